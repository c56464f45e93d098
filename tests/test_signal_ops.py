"""tf.signal: FFTs, windows, framing, STFT, mel matrices and DCTs. Expected
values are what TensorFlow 2.21 prints for the same calls."""
import numpy as np
import pytest

import rillflow as tf


def close(t, expected, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(t), np.asarray(expected), rtol=rtol, atol=atol)


def test_fft_values_dtype_and_graph():
    x = tf.constant([1 + 2j, 3 - 1j, 0.5j], tf.complex64)
    expected = [4 + 1.5j, -1.799038 - 0.3480761j, 0.79903805 + 4.848076j]
    y = tf.signal.fft(x)
    assert y.dtype == tf.complex64 and y.shape == (3,)
    close(y.numpy(), expected)
    close(tf.function(tf.signal.fft)(x).numpy(), expected)
    close(tf.signal.ifft(y).numpy(), x.numpy())
    x2 = tf.complex(tf.reshape(tf.range(6.), [2, 3]), tf.ones([2, 3]))
    close(tf.signal.ifft2d(tf.signal.fft2d(x2)).numpy(), x2.numpy())
    close(tf.signal.fft3d(x2[None]).numpy(), np.fft.fftn(x2.numpy()[None], axes=(0, 1, 2)),
          rtol=1e-5)


def test_rfft_pads_and_crops_to_fft_length():
    close(tf.signal.rfft(tf.range(5.), [3]).numpy(), [3 + 0j, -1.5 + 0.8660254j])
    y = tf.signal.rfft(tf.range(5.), [8])
    assert y.shape == (5,) and y.dtype == tf.complex64
    close(y.numpy(), [10, -5.414213 - 4.8284273j, 2 + 2j, -2.5857866 - 0.8284271j, 2])
    z = tf.signal.irfft(tf.ones([2, 3], tf.complex64), [8])
    close(z.numpy()[0], [0.625, 0.3017767, -0.125, -0.05177669, 0.125, -0.05177669, -0.125,
                         0.3017767])
    assert tf.signal.irfft(tf.ones([2, 3], tf.complex128)).dtype == tf.float64
    assert tf.signal.rfft(tf.zeros([2, 0])).shape == (2, 0)


def test_fft_static_shapes_in_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
    def f(x):
        a = tf.signal.rfft(x)
        b = tf.signal.rfft2d(x[None], [3, 4])
        assert a.shape.as_list() == [None, 4], a.shape
        assert b.shape.as_list()[1:] == [3, 3], b.shape
        return a
    assert f(tf.ones([2, 6])).shape == (2, 4)


def test_fft_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tcomplex' of "
                       "float is not in the list of allowed values: complex64, complex128"):
        tf.signal.fft(tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input must have rank of at least 1 but got: \[\]"):
        tf.signal.fft(tf.constant(3 + 1j))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        tf.signal.rfft(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128"):
        tf.signal.irfft(tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"fft_length\[0\] must >= 0, but got: -1"):
        tf.signal.rfft(tf.constant([1., 2.]), [-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"fft_length must have shape \[1\]"):
        tf.signal.rfft(tf.constant([1., 2.]), [2, 2])
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        tf.signal.rfft2d(tf.constant([1., 2.]))

    @tf.function
    def g(x):
        return tf.signal.fft(x)
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
        g(tf.constant([1., 2.]))
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        g(tf.constant(1 + 0j))


X = tf.constant([[0.5, -1.0, 2.0, 0.25, 3.0], [1.5, 0.0, -2.0, 1.0, -0.5]])


def test_fft_gradients_match_tensorflow():
    cw = tf.complex(tf.constant([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]]),
                    tf.constant([[0.3, -1.0, 2.0], [1.0, 0.0, -2.0]]))
    c = tf.complex(X, tf.reverse(X, [1]))
    with tf.GradientTape(persistent=True) as t:
        t.watch([X, c])
        y1 = tf.reduce_sum(tf.math.real(tf.signal.rfft(X) * cw))
        y3 = tf.reduce_sum(tf.signal.irfft(c) * tf.range(8.))
        y6 = tf.reduce_sum(tf.math.real(
            tf.signal.rfft2d(X) * tf.constant([1 + 2j, 3 - 1j, 0.5j], tf.complex64)))
    close(t.gradient(y1, X), [[2.0, 2.65156, -3.41695, 1.56285, 2.20254],
                              [3.0, -3.25713, 3.73367, -0.07055, -0.90599]], atol=1e-5)
    close(t.gradient(y3, c)[0], [3.5, -1 + 2.41421j, -1 + 1j, -1 + 0.41421j, -0.5], atol=1e-5)
    close(t.gradient(y6, X), [[8.0, 2.53977, -4.98073, -0.72748, 5.16843], [0.0] * 5],
          atol=1e-5)


def test_fft_gradient_vs_finite_differences():
    x = tf.constant(np.random.default_rng(0).standard_normal(6))
    w = tf.constant(np.random.default_rng(1).standard_normal(6) + 0j)

    def f(v):
        return tf.reduce_sum(tf.abs(tf.signal.fft(tf.complex(v, v * 0.5)) * w) ** 2)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    g = t.gradient(y, x).numpy()
    eps = 1e-6
    num = [(f(x + eps * np.eye(6)[i]) - f(x - eps * np.eye(6)[i])).numpy() / (2 * eps)
           for i in range(6)]
    close(g, num, rtol=1e-5, atol=1e-5)


def test_fftshift():
    x = tf.reshape(tf.range(12), [3, 4])
    assert tf.signal.fftshift(x).numpy().tolist() == [[10, 11, 8, 9], [2, 3, 0, 1], [6, 7, 4, 5]]
    assert tf.signal.ifftshift(x, axes=1).numpy().tolist() == [[2, 3, 0, 1], [6, 7, 4, 5],
                                                               [10, 11, 8, 9]]
    y = tf.signal.fftshift(tf.reshape(tf.range(15), [3, 5]), axes=[-1, 0])
    assert y.numpy().tolist() == [[13, 14, 10, 11, 12], [3, 4, 0, 1, 2], [8, 9, 5, 6, 7]]


def test_windows():
    assert tf.signal.hann_window(5).numpy().tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert tf.signal.hann_window(1).numpy().tolist() == [1.0]
    assert tf.signal.hamming_window(6, periodic=False).numpy().tolist() == [
        0.08000001311302185, 0.39785221219062805, 0.9121478796005249, 0.9121478199958801,
        0.3978521227836609, 0.08000001311302185]
    h = tf.signal.hamming_window(7, dtype=tf.float64)
    assert h.numpy().tolist() == [0.08000000000000002, 0.30999999999999994, 0.7699999999999999,
                                  1.0, 0.7700000000000002, 0.30999999999999994,
                                  0.08000000000000002]
    close(tf.signal.kaiser_window(6), [5.2773448e-05, 0.10171972, 0.79293954, 0.79293954,
                                       0.10171972, 5.2773448e-05], rtol=2e-6)
    close(tf.signal.kaiser_bessel_derived_window(8),
          [0.00607182877, 0.388206184, 0.921572566, 0.999981523] * 1 +
          [0.999981523, 0.921572566, 0.388206184, 0.00607182877], rtol=2e-6)
    close(tf.signal.vorbis_window(6), [0.105029337, 0.707106769, 0.994469106, 0.994469106,
                                       0.707106769, 0.105029248], rtol=5e-7)
    with pytest.raises(ValueError, match="dtype must be a floating point type"):
        tf.signal.hann_window(3, dtype=tf.int32)


def test_frame_and_overlap_and_add():
    assert tf.signal.frame(tf.range(7), 3, 2).numpy().tolist() == [[0, 1, 2], [2, 3, 4],
                                                                   [4, 5, 6]]
    f = tf.signal.frame(tf.range(7), 3, 2, pad_end=True, pad_value=-1)
    assert f.numpy().tolist()[-1] == [6, -1, -1]
    f3 = tf.signal.frame(tf.reshape(tf.range(24), [2, 6, 2]), 4, 2, axis=1, pad_end=True)
    assert f3.shape == (2, 3, 4, 2) and f3.numpy()[1, 2].tolist() == [[20, 21], [22, 23],
                                                                      [0, 0], [0, 0]]
    o = tf.signal.overlap_and_add(tf.reshape(tf.range(30.), [2, 3, 5]), 3)
    assert o.numpy().tolist()[1] == [15, 16, 17, 38, 40, 22, 48, 50, 27, 28, 29]
    with pytest.raises(ValueError, match=r"Shape \(3,\) must have rank at least 2"):
        tf.signal.overlap_and_add(tf.range(3.), 1)


SIG = tf.sin(tf.range(64.) * 0.3) + 0.1 * tf.cos(tf.range(64.) * 1.7)


def test_stft_and_inverse():
    s = tf.signal.stft(SIG, 16, 8)
    assert s.shape == (7, 9) and s.dtype == tf.complex64
    close(s.numpy()[1, :3], [-5.385388, 4.075241 + 0.315166j, -1.261394 - 0.128434j],
          rtol=1e-5)
    inv = tf.signal.inverse_stft(s, 16, 8, window_fn=tf.signal.inverse_stft_window_fn(8))
    close(inv.numpy()[8:12], [0.72663349, 0.33558676, 0.11360361, -0.05886214], rtol=1e-5)
    close(inv.numpy()[8:56], SIG.numpy()[8:56], atol=1e-5)  # a true inverse inside
    fn = tf.function(lambda x: tf.signal.stft(x, 16, 8))
    close(fn(SIG).numpy(), s.numpy())
    with tf.GradientTape() as t:
        t.watch(SIG)
        y = tf.reduce_sum(tf.abs(tf.signal.stft(SIG, 16, 8)) ** 2 * tf.range(9.))
    g = tf.convert_to_tensor(t.gradient(y, SIG))
    close(g.numpy()[:4], [0.0, -0.15386146, -0.84470677, -0.69001508], atol=2e-5)


def test_mel_matrix():
    m = tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100., 3900.)
    assert m.shape == (9, 4)
    close(m.numpy()[1:4], [[0.84099823, 0.15900178, 0, 0], [0, 0.84538108, 0.15461892, 0],
                           [0, 0.10838963, 0.89161038, 0]], rtol=2e-6)
    with pytest.raises(ValueError, match="num_mel_bins must be positive. Got: 0"):
        tf.signal.linear_to_mel_weight_matrix(0)
    with pytest.raises(ValueError, match="must not be larger than the Nyquist frequency"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.)


V = tf.constant([[1., 2., -1., 0.5, 3.], [0., 1., 0., -2., 0.25]])


def test_dct_types():
    close(tf.signal.dct(V, type=1).numpy()[0], [7.0, 0.12132025, 6.0, -4.12132025, -3.0])
    close(tf.signal.dct(V, type=2).numpy()[0], [11.0, -2.04087019, 6.92705107, -5.20431042,
                                                -3.57294917])
    close(tf.signal.dct(V, type=3, norm="ortho").numpy()[0],
          [1.91074085, -0.44960317, 2.977036, -1.33509481, -0.86701107])
    close(tf.signal.idct(V, type=4).numpy()[0], [5.51778698, 0.11033291, 4.94974661,
                                                 -9.64659119, 2.11781716])
    close(tf.signal.mfccs_from_log_mel_spectrograms(V).numpy()[1],
          [-0.47434163, 0.96486884, 0.32335633, -1.89743984, 0.56052721])
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        tf.signal.dct(V, type=5)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tf.signal.dct(V, axis=0)
    with pytest.raises(ValueError, match="Normalization is not supported for the Type-I DCT"):
        tf.signal.dct(V, type=1, norm="ortho")

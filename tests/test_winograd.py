"""Winograd F(2x2, 3x3) convolutions (rillflow/ops/nn/winograd.py): the
convolution and both gradients against a float64 im2col reference (within
float32 tolerance: the GEMMs' blocking and the transforms' roundings decide
the last bits), the jit extra's transform loops against the NumPy transforms
(the same bits), and the ops choosing it for large 3x3 stride-1 layers."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.nn import conv_geometry, conv_ops, jit_nn, winograd

S1 = [1, 1, 1, 1]
# (N, H, W, C, O, padding, explicit pads): odd and even sizes, every pad
# before of 0..2 (the input gradient's own padding is 2 - pad before).
CASES = [(2, 16, 16, 16, 16, "SAME", ()), (3, 9, 10, 17, 19, "SAME", ()),
         (2, 13, 11, 16, 24, "VALID", ()), (2, 8, 7, 16, 16, "EXPLICIT", (0, 0, 2, 1, 0, 2, 0, 0)),
         (1, 12, 12, 16, 20, "EXPLICIT", (0, 0, 1, 0, 2, 2, 0, 0)),
         (1, 9, 8, 16, 16, "EXPLICIT", (0, 0, 1, 4, 0, 3, 0, 0))]     # outputs of padding only


def _case(rng, n, h, w, c, o, padding, explicit):
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    f = (rng.standard_normal((3, 3, c, o)) / np.sqrt(9 * c)).astype(np.float32)
    geo = conv_geometry.geometry(x.shape, (3, 3), S1, S1, padding, explicit)
    dy = rng.standard_normal((n, geo[0][0], geo[1][0], o)).astype(np.float32)
    return x, f, dy, geo


def _reference(x, f, dy, padding, explicit):
    """The im2col kernels in float64."""
    x64, f64, dy64 = (a.astype(np.float64) for a in (x, f, dy))
    return (conv_ops._conv_kernel(x64, f64, S1, padding, S1, explicit),
            conv_ops._backprop_input_kernel(np.array(x.shape), f64, dy64, S1, padding, S1,
                                            explicit),
            conv_ops._backprop_filter_kernel(x64, np.array(f.shape), dy64, S1, padding, S1,
                                             explicit))


def _winograd_all(x, f, dy, geo):
    return (winograd.conv(x, f, geo), winograd.backprop_input(x.shape, f, dy, geo),
            winograd.backprop_filter(x, dy, geo))


@pytest.mark.parametrize("case", CASES)
def test_winograd_matches_direct_convolution(case):
    rng = np.random.default_rng(5)
    x, f, dy, geo = _case(rng, *case)
    _check_against_reference(x, f, dy, geo, case)


@pytest.mark.parametrize("chunk_bytes", [1, 140000])
def test_batch_cut_into_chunks_matches_direct_convolution(monkeypatch, chunk_bytes):
    # One image per chunk, and three chunks (at most 3 images each) made four
    # of 1 or 2 images (an even count, sizes within one image of each other):
    # the outputs are written chunk by chunk, the filter gradient adds the
    # chunks' products.
    monkeypatch.setattr(winograd, "CHUNK_BYTES", chunk_bytes)
    case = (7, 11, 12, 16, 20, "SAME", ())
    assert [j - i for i, j in winograd._chunks(7, 36, 20, 4)] == \
        ([1] * 7 if chunk_bytes == 1 else [1, 2, 2, 2])
    x, f, dy, geo = _case(np.random.default_rng(8), *case)
    _check_against_reference(x, f, dy, geo, case)


def _check_against_reference(x, f, dy, geo, case):
    assert winograd.backprop_input_usable(geo)
    for got, want in zip(_winograd_all(x, f, dy, geo), _reference(x, f, dy, *case[5:])):
        assert got.shape == want.shape and got.dtype == np.float32
        # F(2x2, 3x3) rounds about as much as direct summation.
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * np.abs(want).max())


def test_compiled_transforms_give_the_numpy_transforms_bits(monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setattr(winograd, "CHUNK_BYTES", 140000)     # several chunks per batch
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    loops = jit_nn.LOAD.value
    rng = np.random.default_rng(6)
    for case in CASES + [(7, 11, 12, 16, 20, "SAME", ())]:
        x, f, dy, geo = _case(rng, *case)
        x.ravel()[rng.integers(0, x.size, 5)] = -0.0
        results = []
        for use in (True, False):
            jit_nn.LOAD.value = loops if use else None
            try:
                results.append(_winograd_all(x, f, dy, geo))
            finally:
                jit_nn.LOAD.value = loops
        for a, b in zip(*results):
            np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


def _record_winograd_calls(monkeypatch):
    """The names of winograd's conv, backprop_input and backprop_filter, in
    call order, as the tests' code calls them."""
    calls = []
    for name in ("conv", "backprop_input", "backprop_filter"):
        real = getattr(winograd, name)
        monkeypatch.setattr(winograd, name,
                            lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    return calls


def test_conv2d_and_its_gradients_use_winograd_on_large_layers(monkeypatch):
    rng = np.random.default_rng(7)
    x, f, dy, geo = _case(rng, 8, 14, 14, 64, 64, "SAME", ())
    calls = _record_winograd_calls(monkeypatch)
    xt, ft = tf.constant(x), tf.Variable(f)

    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.nn.conv2d(x, ft, 1, "SAME")
        return (y,) + tuple(t.gradient(y, [x, ft], output_gradients=tf.constant(dy)))
    got = step(xt)
    assert sorted(calls) == ["backprop_filter", "backprop_input", "conv"]
    for g, want in zip(got, _reference(x, f, dy, "SAME", ())):
        np.testing.assert_allclose(g.numpy(), want, rtol=0, atol=2e-6 * np.abs(want).max())


def test_small_or_strided_layers_keep_im2col(monkeypatch):
    monkeypatch.setattr(jit_nn, "available", lambda: True)
    assert not winograd.usable((8, 14, 14, 32), (3, 3), [1, 2, 2, 1], S1, np.float32, 32,
                               (7, 7))
    assert not winograd.usable((8, 14, 14, 32), (3, 3), S1, [1, 2, 2, 1], np.float32, 32,
                               (10, 10))
    assert not winograd.usable((8, 14, 14, 1), (3, 3), S1, S1, np.float32, 32, (14, 14))
    assert not winograd.usable((1, 6, 6, 32), (3, 3), S1, S1, np.float32, 32, (6, 6))
    assert not winograd.usable((8, 14, 14, 16), (3, 3), S1, S1, np.float32, 32, (14, 14))
    assert winograd.usable((8, 14, 14, 16), (3, 3), S1, S1, np.float32, 64, (14, 14))
    # Without the jit extra the NumPy transforms need 64 x 64 channels.
    monkeypatch.setattr(jit_nn, "available", lambda: False)
    assert not winograd.usable((8, 14, 14, 32), (3, 3), S1, S1, np.float32, 64, (14, 14))
    assert winograd.usable((8, 14, 14, 64), (3, 3), S1, S1, np.float32, 64, (14, 14))
    assert not winograd.usable((8, 14, 14, 32), (3, 3), S1, S1, np.float16, 32, (14, 14))
    assert not winograd.usable((8, 14, 14, 32), (5, 5), S1, S1, np.float32, 32, (14, 14))


def test_odd_outputs_take_im2col(monkeypatch):
    from rillflow.ops.kernels import threads
    monkeypatch.setattr(threads, "SPREADING", False)
    for op in ("forward", "input", "filter"):
        assert winograd.pays_for(op, (32, 14, 14, 32), (14, 14))
        # 7x7 outputs compute 8x8 tiles: im2col for all three.
        assert not winograd.pays_for(op, (32, 7, 7, 128), (7, 7))
    # 15x15 computes 16x16 (1.14x): still Winograd.
    assert winograd.pays_for("forward", (32, 15, 15, 64), (15, 15))
    # An input gradient's tiles cover the input: 16x16 under a VALID 14x14.
    assert winograd.pays_for("input", (32, 16, 16, 64), (14, 14))
    assert not winograd.pays_for("input", (32, 7, 7, 64), (5, 5))
    # With the kernel threads the chunks spread, and Winograd always won.
    monkeypatch.setattr(threads, "SPREADING", True)
    assert winograd.pays_for("forward", (32, 7, 7, 128), (7, 7))


def test_an_odd_layer_runs_im2col_and_right(monkeypatch):
    from rillflow.ops.kernels import threads
    monkeypatch.setattr(threads, "SPREADING", False)
    rng = np.random.default_rng(11)
    x, f, dy, geo = _case(rng, 8, 7, 7, 64, 64, "SAME", ())
    calls = _record_winograd_calls(monkeypatch)
    got = (conv_ops._conv_kernel(x, f, S1, "SAME", S1),
           conv_ops._backprop_input_kernel(np.array(x.shape), f, dy, S1, "SAME", S1),
           conv_ops._backprop_filter_kernel(x, np.array(f.shape), dy, S1, "SAME", S1))
    assert calls == []
    for g, want in zip(got, _reference(x, f, dy, "SAME", ())):
        np.testing.assert_allclose(g, want, rtol=0, atol=2e-6 * np.abs(want).max())


def test_infinite_inputs_take_the_direct_path():
    # TensorFlow's direct summation gives +-inf next to an inf input; the
    # Winograd transforms would give NaN (inf - inf), so such layers don't
    # run as Winograd.
    rng = np.random.RandomState(5)
    x = rng.rand(2, 12, 12, 64).astype(np.float32)
    f = rng.rand(3, 3, 64, 64).astype(np.float32)   # positive: sums of inf stay inf
    geo = conv_geometry.geometry(x.shape, (3, 3), S1, S1, "SAME", ())
    assert conv_ops._winograd(x.shape, f.shape, S1, S1, x.dtype, geo, "forward")
    x[0, 5, 5, 3] = np.inf
    y = conv_ops._conv_kernel(x, f, S1, "SAME", S1)
    assert np.isposinf(y[0, 4:7, 4:7]).all() and not np.isnan(y).any()
    assert np.isfinite(y[1]).all()


def _transforms(use_compiled):
    """The transform loops to run with: the compiled ones (skips without the
    jit extra) or the NumPy ones (None); for `jit_nn.LOAD.value`."""
    if not use_compiled:
        return None
    pytest.importorskip("numba")
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    return jit_nn.LOAD.value


@pytest.mark.parametrize("use_compiled", [False, True], ids=["numpy", "compiled"])
def test_transforms_that_overflow_take_the_direct_path(monkeypatch, use_compiled):
    # 3e38 and -3e38 two rows apart are finite, and so is every direct sum
    # (TensorFlow gives finite values), but B^T d B's d0 - d2 is inf: the
    # Winograd result is thrown away and the layer runs the direct path.
    # (An earlier rule looked at the inputs' sums, which cancel here: the
    # layer returned 192 infs and NaNs.)
    monkeypatch.setattr(jit_nn.LOAD, "value", _transforms(use_compiled))
    rng = np.random.default_rng(3)
    x, f, dy, geo = _case(rng, 2, 12, 12, 64, 64, "SAME", ())
    f *= 1e-3
    assert conv_ops._winograd(x.shape, f.shape, S1, S1, x.dtype, geo, "forward")
    big_x, big_dy = x.copy(), dy.copy()
    big_x[0, 4, 5, 3], big_x[0, 6, 5, 3] = 3e38, -3e38
    big_dy[1, 2, 3, 7], big_dy[1, 2, 5, 7] = 3e38, -3e38
    calls = _record_winograd_calls(monkeypatch)
    with np.errstate(all="raise"):          # and no NumPy warning on the way
        got = (conv_ops._conv_kernel(big_x, f, S1, "SAME", S1),
               conv_ops._backprop_input_kernel(np.array(x.shape), f, big_dy, S1, "SAME", S1),
               conv_ops._backprop_filter_kernel(big_x, np.array(f.shape), dy * 1e-3, S1,
                                                "SAME", S1))
    assert calls == ["conv", "backprop_input", "backprop_filter"]     # tried first
    want = (_reference(big_x, f, dy, "SAME", ())[0], _reference(x, f, big_dy, "SAME", ())[1],
            _reference(big_x, f, dy * 1e-3, "SAME", ())[2])
    for g, w in zip(got, want):
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6 * np.abs(w).max())


@pytest.mark.parametrize("use_compiled", [False, True], ids=["numpy", "compiled"])
def test_an_inf_in_a_cropped_tile_sends_the_layer_to_the_direct_path(monkeypatch,
                                                                    use_compiled):
    # VALID on 13 rows gives 11 output rows: the last tile computes rows 10
    # and 11 and drops 11. An inf in the input's last row reaches output row
    # 10 through that tile (the transforms connect an input to the outputs
    # whose windows hold it, as the direct sum does), so the check on the
    # result sees it, and the direct path gives TensorFlow's +inf there.
    monkeypatch.setattr(jit_nn.LOAD, "value", _transforms(use_compiled))
    rng = np.random.default_rng(4)
    x, f, dy, geo = _case(rng, 2, 13, 12, 16, 24, "VALID", ())
    f = np.abs(f)
    y = winograd.conv(x, f, geo)
    np.testing.assert_allclose(y, _reference(x, f, dy, "VALID", ())[0], rtol=0, atol=1e-5)
    x[1, 12, 4, 0] = np.inf
    assert winograd.conv(x, f, geo) is None             # an output sees it
    y = conv_ops._conv_kernel(x, f, S1, "VALID", S1)
    assert np.isposinf(y[1, 10, 2:5]).all() and np.isfinite(y[0]).all()
    assert np.isfinite(np.delete(y[1], 10, axis=0)).all()

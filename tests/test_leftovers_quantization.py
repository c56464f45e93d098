"""tf.quantization against TensorFlow 2.21's CPU results (recorded by
tools/tf_leftovers_fixtures.py into tf_quantization.npz): fake_quant_*
and their gradients, quantize/dequantize in each mode, type, range and
rounding, quantize_and_dequantize(_v2), quantized_concat. Element-wise
results are compared bit for bit; the summed min/max gradients, whose
order of addition is the SIMD reduction's, within float32 rounding."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_quantization.npz"))
FQ_RANGES = [(-6.0, 6.0), (-1.3, 2.7), (0.5, 1.0), (-2.0, -0.5), (-0.1, 25.3), (0.0, 1.0)]
QDQ_RANGES = [(-1.0, 1.0), (-0.37, 2.9), (0.0, 5.0), (-3.0, 0.0)]
Q_RANGES = [(-1.0, 1.0), (-0.37, 2.9), (0.0, 5.0), (-3.0, -1.0), (0.0, 0.0), (2.0, 3.5)]
X = DATA["q_x"]
G = DATA["q_g"]


def _same(got, key):
    want = DATA[key]
    got = np.asarray(got)
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("i", range(len(FQ_RANGES)))
def test_fake_quant(i):
    mn, mx = FQ_RANGES[i]
    for bits in (2, 8, 13, 16):
        for narrow in (False, True):
            key = f"{i}_{bits}_{int(narrow)}"
            _same(tf.quantization.fake_quant_with_min_max_args(X, mn, mx, bits, narrow),
                  "fqa_" + key)
            _same(tf.quantization.fake_quant_with_min_max_vars(X, mn, mx, bits, narrow),
                  "fqv_" + key)
            _same(tf.quantization.fake_quant_with_min_max_args_gradient(G, X, mn, mx, bits,
                                                                        narrow), "fqag_" + key)
            d = tf.quantization.fake_quant_with_min_max_vars_gradient(G, X, mn, mx, bits, narrow)
            _same(d.backprops_wrt_input, f"fqvg_{key}_0")
            for j in (1, 2):
                np.testing.assert_allclose(d[j], DATA[f"fqvg_{key}_{j}"], rtol=1e-5, atol=1e-5)


def test_fake_quant_per_channel_and_tape():
    xc = X[:300].reshape(-1, 6)
    mins = np.array([r[0] for r in FQ_RANGES], np.float32)
    maxs = np.array([r[1] for r in FQ_RANGES], np.float32)
    _same(tf.quantization.fake_quant_with_min_max_vars_per_channel(xc, mins, maxs), "fqc")
    d = tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
        G[:300].reshape(-1, 6), xc, mins, maxs, 5, True)
    _same(d[0], "fqcg_0")
    np.testing.assert_allclose(d[1], DATA["fqcg_1"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d[2], DATA["fqcg_2"], rtol=1e-5, atol=1e-5)
    mn_v, mx_v = tf.Variable(-1.0), tf.Variable(1.5)
    xv = tf.constant(X[:50])

    def loss():
        return tf.reduce_sum(tf.quantization.fake_quant_with_min_max_vars(xv, mn_v, mx_v) *
                             tf.range(50.))
    for run in (lambda f: f(), lambda f: tf.function(f)()):
        with tf.GradientTape() as tape:
            tape.watch(xv)
            y = run(loss)
        got = tape.gradient(y, [xv, mn_v, mx_v])
        _same(got[0], "fq_tape_0")
        for j in (1, 2):
            np.testing.assert_allclose(got[j], DATA[f"fq_tape_{j}"], rtol=1e-6)


def test_fake_quant_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="min has to be smaller than max"):
        tf.quantization.fake_quant_with_min_max_args([1.0], 1.0, 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_bits must be between 2 and 16"):
        tf.quantization.fake_quant_with_min_max_args([1.0], num_bits=17)
    with pytest.raises(tf.errors.InvalidArgumentError, match="min has incorrect size"):
        tf.quantization.fake_quant_with_min_max_vars_per_channel(np.ones((2, 3), np.float32),
                                                                 [0., -1.], [1., 1.])


@pytest.mark.parametrize("tname", ["qint8", "quint8", "qint16", "quint16", "qint32"])
def test_quantize_dequantize(tname):
    T = getattr(tf, tname)
    seen = 0
    for i, (mn, mx) in enumerate(Q_RANGES):
        for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
            for narrow in ((False, True) if mode == "SCALED" else (False,)):
                for rm in (("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN") if mode == "SCALED"
                           else ("HALF_AWAY_FROM_ZERO",)):
                    key = f"{tname}_{i}_{mode}_{int(narrow)}_{rm}"
                    if f"qz_{key}_0" not in DATA:
                        continue   # TensorFlow's oneDNN build has no such kernel
                    seen += 1
                    q = tf.quantization.quantize(X, mn, mx, T, mode=mode, round_mode=rm,
                                                 narrow_range=narrow)
                    assert q.output.dtype == T
                    for j, part in enumerate(q):
                        _same(part, f"qz_{key}_{j}")
                    if "dq_" + key in DATA:
                        _same(tf.quantization.dequantize(q.output, q.output_min, q.output_max,
                                                         mode=mode, narrow_range=narrow),
                              "dq_" + key)
    assert seen >= 6


def test_quantize_axis():
    xq = tf.constant(X[:300].reshape(50, 6))
    mins = np.array([r[0] for r in FQ_RANGES], np.float32)
    maxs = np.array([r[1] for r in FQ_RANGES], np.float32)
    q = tf.quantization.quantize(xq, mins, maxs, tf.qint8, mode="SCALED", axis=1)
    for j, part in enumerate(q):
        _same(part, f"qz_axis_{j}")
    _same(tf.quantization.dequantize(q.output, q.output_min, q.output_max, mode="SCALED",
                                     axis=1), "dq_axis")
    q = tf.quantization.quantize(xq, mins, maxs + 1, tf.quint8, mode="MIN_COMBINED", axis=-1)
    for j, part in enumerate(q):
        _same(part, f"qz_axis2_{j}")


def test_quantize_errors():
    x = [0.5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supported for mode 'SCALED'"):
        tf.quantization.quantize(x, -1., 1., tf.qint8, round_mode="HALF_TO_EVEN")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'mode'"):
        tf.quantization.quantize(x, -1., 1., tf.qint8, mode="BAD")
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be larger than input_min"):
        tf.quantization.quantize(x, 1., -1., tf.qint8)


@pytest.mark.parametrize("i", range(len(QDQ_RANGES)))
def test_quantize_and_dequantize(i):
    mn, mx = QDQ_RANGES[i]
    for bits in (3, 8, 16):
        for signed in (True, False):
            for rg in (True, False):
                for rm in ("HALF_TO_EVEN", "HALF_UP"):
                    key = f"{i}_{bits}_{int(signed)}_{int(rg)}_{rm}"
                    _same(tf.quantization.quantize_and_dequantize_v2(
                        X, mn, mx, signed_input=signed, num_bits=bits, range_given=rg,
                        round_mode=rm, narrow_range=(bits == 3)), "qdq_" + key)


def test_quantize_and_dequantize_more():
    _same(tf.quantization.quantize_and_dequantize_v2(X.astype(np.float64) * 1.37, -2.0, 3.0,
                                                     range_given=True), "qdq_f64")
    _same(tf.quantization.quantize_and_dequantize_v2(tf.constant(X[:300].reshape(50, 6)),
                                                     -1.0, 1.0, axis=1), "qdq_axis")
    v = tf.constant([-1.5, -1., 0.3, 1., 2.])
    with tf.GradientTape(persistent=True) as t:
        t.watch(v)
        y = tf.reduce_sum(tf.quantization.quantize_and_dequantize_v2(v, -1., 1.) * tf.range(5.))
        y2 = tf.reduce_sum(tf.quantization.quantize_and_dequantize(v, -1., 1., range_given=True)
                           * tf.range(5.))
    assert t.gradient(y, v).numpy().tolist() == [0., 1., 2., 3., 0.]
    assert t.gradient(y2, v).numpy().tolist() == [0., 1., 2., 3., 4.]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_bits is out of range: 0"):
        tf.quantization.quantize_and_dequantize_v2(v, -1., 1., num_bits=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid range: input_min 1"):
        tf.quantization.quantize_and_dequantize_v2(v, 1., -1., range_given=True)


def test_quantized_concat():
    c = tf.quantization.quantized_concat(
        0, [tf.constant([1, 200, 17], tf.quint8), tf.constant([0, 255, 128], tf.quint8),
            tf.constant([3, 4, 5], tf.quint8)], [0.0, -1.0, -0.3], [1.0, 2.0, 0.7])
    assert c.output.dtype == tf.quint8
    for j, part in enumerate(c):
        _same(part, f"qconcat_{j}")
    c = tf.quantization.quantized_concat(
        0, [tf.constant([1, -2000000000, 17], tf.qint32),
            tf.constant([0, 2 ** 31 - 1], tf.qint32)], [-1.0, -3.0], [1.0, 2.0])
    for j, part in enumerate(c):
        _same(part, f"qconcat32_{j}")
    with pytest.raises(tf.errors.NotFoundError, match="QuantizedConcat"):
        tf.quantization.quantized_concat(0, [tf.constant([1], tf.qint8)], [0.], [1.])


def test_quantize_input_dtype():
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but "
                                                             "is a double tensor"):
        tf.quantization.quantize(tf.constant([1.], tf.float64), -1., 1., tf.qint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int8"):
        tf.quantization.quantize([1.], -1., 1., tf.int8)
    assert tf.quantization.quantize([1, 2], -1., 1., tf.qint8).output.numpy().tolist() == \
        [127, 127]


def test_random_ranges():
    """40 random ranges (some starting or ending at 0, from 1e-3 to 1e5 wide)
    and bit widths through every op, type and mode."""
    xr = DATA["rand_x"]
    for k, (a, b, bits, narrow) in enumerate(DATA["rand_cases"]):
        bits, narrow = int(bits), bool(narrow)
        _same(tf.quantization.fake_quant_with_min_max_args(xr, a, b, bits, narrow), f"rfa{k}")
        _same(tf.quantization.fake_quant_with_min_max_vars(xr, a, b, bits, narrow), f"rfv{k}")
        for tname in ("qint8", "quint8", "qint16", "quint16", "qint32"):
            for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
                q = tf.quantization.quantize(xr, a, b, getattr(tf, tname), mode=mode,
                                             narrow_range=narrow)
                for j, part in enumerate(q):
                    _same(part, f"rq{k}{tname}{mode}_{j}")
                if f"rd{k}{tname}{mode}" in DATA:
                    _same(tf.quantization.dequantize(q.output, q.output_min, q.output_max,
                                                     mode=mode, narrow_range=narrow),
                          f"rd{k}{tname}{mode}")
        for rg in (True, False):
            _same(tf.quantization.quantize_and_dequantize_v2(
                xr, a, b, num_bits=bits, range_given=rg, narrow_range=narrow,
                signed_input=bool(k % 2)), f"rqdq{k}{int(rg)}")

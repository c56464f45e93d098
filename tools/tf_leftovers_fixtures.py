"""Records TensorFlow's results for issue 22's leftovers (mdct, the string
hashing and Unicode ops, sparse/ragged crosses, the quantized dtypes) into
tests/data/tf_leftovers.json and the quantization ops' into
tests/data/tf_quantization.npz, which tests/test_leftovers_*.py compare
with rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_leftovers_fixtures.py

TensorFlow's reference CPU kernels are recorded (TF_ENABLE_ONEDNN_OPTS=0):
with oneDNN on, an x86 build swaps in oneDNN's QuantizeV2/Dequantize for
qint8/quint8 in MIN_FIRST and SCALED/HALF_TO_EVEN modes, with other
rounding and ranges (and no SCALED kernels for the other types);
docs/quantization.md says more.

Floats are stored as JSON numbers (Python's repr round-trips them exactly),
strings as lists of byte values, so nothing depends on an encoding.
"""
import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"   # before TensorFlow is imported

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_leftovers.json")
rng = np.random.default_rng(20261127)


def _np(t):
    """A result as JSON: floats and ints as lists, bytes as lists of ints."""
    a = t.numpy() if hasattr(t, "numpy") else np.asarray(t)
    if a.dtype == object:
        return [list(v) for v in a.reshape(-1).tolist()]
    if np.iscomplexobj(a):
        return {"re": a.real.tolist(), "im": a.imag.tolist()}
    return a.tolist()


def signal_section():
    """mdct / inverse_mdct with each window and norm, and a gradient."""
    x = rng.standard_normal((2, 40)).astype(np.float32)
    x64 = rng.standard_normal((3, 24))
    out = {"mdct_x": x.tolist(), "mdct_x64": x64.tolist()}
    out["mdct_vorbis"] = _np(tf.signal.mdct(x, 16))
    out["mdct_none_ortho_pad"] = _np(tf.signal.mdct(x, 12, window_fn=None, norm="ortho",
                                                    pad_end=True))
    out["mdct_kbd64"] = _np(tf.signal.mdct(
        x64, 8, window_fn=tf.signal.kaiser_bessel_derived_window))
    m = tf.signal.mdct(x, 16)
    out["imdct_vorbis"] = _np(tf.signal.inverse_mdct(m))
    out["imdct_none_ortho"] = _np(tf.signal.inverse_mdct(
        tf.signal.mdct(x, 12, window_fn=None, norm="ortho"), window_fn=None, norm="ortho"))
    xv = tf.constant(x64)
    with tf.GradientTape() as tape:
        tape.watch(xv)
        y = tf.reduce_sum(tf.signal.mdct(xv, 8) ** 2)
    out["mdct_grad64"] = _np(tape.gradient(y, xv))
    return out


def _bytes(values):
    return [list(v) for v in values]


UNICODE_INPUTS = [b"abc", b"\xe4\xbd\xa0\xe5\xa5\xbd", b"\xe4\xbd", b"a\xffb", b"\xc0\xaf",
                  b"\xed\xa0\x80x", b"\xf4\x90\x80\x80", b"\x01\x7f\x1fz", b"\xf0\x9f\x98",
                  b"\xe4\xbdx", b"\x85\x00\x7f\x1f", b"a\xc2\x85b\x00", b"\x00a\x00",
                  b"\x00\x00\xd8\x00\x00a", b"\xd8\x00\xdc\x00\xdc\x00", b"",
                  b"\xf0\x9f\x98\x80!", b"\xc3\xa9t\xc3\xa9"]


def strings_section():
    """to_hash_bucket over random strings; the Unicode ops over valid and
    broken input in each encoding and errors mode."""
    strs = [bytes(rng.integers(0, 256, size=n, dtype=np.uint8)) for n in
            list(range(0, 40)) * 5] + [b"hello", b"world", b"\x00"]
    out = {"hash_strings": _bytes(strs),
           "hash_1000": tf.strings.to_hash_bucket(strs, 1000).numpy().tolist(),
           "hash_big": tf.strings.to_hash_bucket(strs, 2 ** 62 + 7).numpy().tolist(),
           "unicode_inputs": _bytes(UNICODE_INPUTS)}
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        for mode in ("replace", "ignore"):
            for ctrl in (False, True):
                key = f"{enc}_{mode}_{int(ctrl)}"
                c, o = tf.strings.unicode_decode_with_offsets(
                    UNICODE_INPUTS, enc, errors=mode, replace_control_characters=ctrl)
                out["dec_" + key] = c.to_list()
                out["off_" + key] = o.to_list()
                for oenc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
                    out[f"tr_{key}_{oenc}"] = _bytes(tf.strings.unicode_transcode(
                        UNICODE_INPUTS, enc, oenc, errors=mode,
                        replace_control_characters=ctrl).numpy().tolist())
            p, o = tf.strings.unicode_split_with_offsets(UNICODE_INPUTS, enc, errors=mode,
                                                         replacement_char=63)
            out[f"split_{enc}_{mode}"] = [_bytes(r) for r in p.to_list()]
            out[f"splitoff_{enc}_{mode}"] = o.to_list()
    # Random byte soup from the bytes that start, continue and break UTF-8
    # and UTF-16 sequences.
    pool = [b"\x00", b"\x7f", b"\x80", b"\xbf", b"\xc0", b"\xc1", b"\xc2", b"\xdf", b"\xe0",
            b"\xe1", b"\xed", b"\xee", b"\xef", b"\xf0", b"\xf4", b"\xf5", b"\xff", b"a",
            b"\x9f", b"\xa0", b"\x8f", b"\x90", b"\xd8", b"\xdc", b"\x01"]
    soup = [b"".join(pool[i] for i in rng.integers(0, len(pool), rng.integers(0, 12)))
            for _ in range(400)]
    out["soup"] = _bytes(soup)
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        for ctrl in (False, True):
            c, o = tf.strings.unicode_decode_with_offsets(soup, enc,
                                                          replace_control_characters=ctrl)
            out[f"soup_{enc}_{int(ctrl)}"] = [c.to_list(), o.to_list()]
            out[f"soupt_{enc}_{int(ctrl)}"] = _bytes(tf.strings.unicode_transcode(
                soup, enc, "UTF-8", errors="ignore",
                replace_control_characters=ctrl).numpy().tolist())
    pts = np.concatenate([rng.integers(-10, 0x110010, 3000),
                          [0, 65, 0x300, 0x4E2D, 0x3042, 0x30A2, 0x1F600, 0x10FFFF, 0x110000,
                           -1, 2 ** 31 - 1, -2 ** 31]]).astype(np.int32)
    out["script_points"] = pts.tolist()
    out["script_codes"] = tf.strings.unicode_script(pts).numpy().tolist()
    return out


def _cross_inputs():
    r1 = tf.ragged.constant([["a", "b"], [], ["c"]])
    r2 = tf.ragged.constant([[1, 2], [3], [4, 5, 6]], dtype=tf.int64)
    d = tf.constant([["x"], ["y"], ["z"]])
    di = tf.constant([[7], [8], [9]], tf.int64)
    s = tf.sparse.from_dense(tf.constant([["p", ""], ["q", "r"], ["", ""]]))
    si = tf.sparse.from_dense(tf.constant([[10, 0], [11, 12], [0, 13]], tf.int64))
    r3 = tf.RaggedTensor.from_row_splits(tf.constant([5, 6, 7], tf.int32),
                                         tf.constant([0, 1, 3, 3], tf.int32))
    return {"r1_r2": [r1, r2], "d_r1": [d, r1], "r2_d_s": [r2, d, s], "di_r2": [di, r2],
            "si_r1_d": [si, r1, d], "r2_di_si": [r2, di, si], "r3_d": [r3, d],
            "r1_r2_r1": [r1, r2, r1]}


def sparse_ragged_section():
    """ragged.cross / cross_hashed, ragged_fill_empty_rows, sparse.mask,
    sparse.sampled_addmm."""
    out = {}
    for key, inputs in _cross_inputs().items():
        c = tf.ragged.cross(inputs)
        out["cross_" + key] = [_bytes(r) for r in c.to_list()]
        out["crosssplits_" + key] = c.row_splits.dtype.name
        out["hashed_" + key] = tf.ragged.cross_hashed(inputs).to_list()
        out["hashed100_" + key] = tf.ragged.cross_hashed(inputs, num_buckets=100,
                                                         hash_key=123).to_list()
    r = tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 0, 2, 4, 2], tf.int64),
                                  values=tf.constant([1., 2., 3., 4., 5.]),
                                  nrows=tf.constant(6, tf.int64),
                                  default_value=tf.constant(-1.))
    out["fill"] = [_np(t) for t in r]
    g = tf.ragged_fill_empty_rows_grad(reverse_index_map=r.reverse_index_map,
                                       grad_values=tf.range(1., 9.))
    out["fill_grad"] = [_np(t) for t in g]
    v = tf.constant([1., 2., 3.])
    with tf.GradientTape() as tape:
        tape.watch(v)
        o = tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 0, 2], tf.int64), values=v,
                                      nrows=tf.constant(4, tf.int64),
                                      default_value=tf.constant(0.))
        y = tf.reduce_sum(o.output_values * tf.constant([1., 2., 3., 4., 5.]))
    out["fill_tape"] = _np(tape.gradient(y, v))
    m1 = rng.standard_normal((3, 4)).astype(np.float32)
    m2 = rng.standard_normal((4, 5)).astype(np.float32)
    ind = np.array([[0, 0], [1, 3], [2, 4], [2, 1]], np.int64)
    vals = rng.standard_normal(4).astype(np.float32)
    out.update(addmm_m1=m1.tolist(), addmm_m2=m2.tolist(), addmm_vals=vals.tolist())
    _, v1, _ = tf.sparse.sampled_addmm(ind, vals, [3, 5], m1, m2, beta=0.5, alpha=2.0)
    out["addmm"] = _np(v1)
    b1 = rng.standard_normal((2, 3, 4))
    b2 = rng.standard_normal((2, 4, 2))
    bind = np.array([[[0, 0], [2, 1]], [[1, 1], [0, 1]]], np.int64)
    out.update(addmm_b1=b1.tolist(), addmm_b2=b2.tolist())
    _, v2, _ = tf.sparse.sampled_addmm(bind, [[1., 2.], [3., 4.]], [[3, 2], [3, 2]], b1, b2,
                                       output_type=tf.float64)
    out["addmm_batched"] = _np(v2)
    return out


QUANTIZED = ["qint8", "quint8", "qint16", "quint16", "qint32"]
EXPERIMENTAL = ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]


def _limit(d, attr):
    try:
        v = getattr(d, attr)
    except TypeError as e:
        return ["TypeError", str(e)]
    return [str(v), type(v).__name__]


def dtypes_section():
    """The quantized and experimental DTypes' properties; quantized tensors'
    printing and casts."""
    out = {}
    dts = [getattr(tf, n) for n in QUANTIZED] + \
        [getattr(tf.dtypes.experimental, n) for n in EXPERIMENTAL]
    for d in dts:
        out["dtype_" + d.name] = [
            repr(d), str(d), d.as_datatype_enum, d.is_quantized, d.size, d.is_numeric,
            d.is_integer, d.is_floating, d.is_unsigned, str(np.dtype(d.as_numpy_dtype)),
            _limit(d, "min"), _limit(d, "max")]
    t = tf.constant([1, 2], dtype=tf.qint8)
    x = tf.constant([1.7, -3.2, 300., -129.5])
    out["qtensor"] = [str(t), repr(t), repr(t.numpy()), str(tf.zeros([2], tf.quint8)),
                      str(tf.reshape(tf.constant([1, 2, 3, 4], tf.qint32), [2, 2])),
                      str(tf.concat([t, t], 0)), str(tf.cast(t, tf.float32))]
    for n in QUANTIZED:
        out["qcast_" + n] = tf.cast(x, getattr(tf, n)).numpy().tolist()
    return out


FQ_RANGES = [(-6.0, 6.0), (-1.3, 2.7), (0.5, 1.0), (-2.0, -0.5), (-0.1, 25.3), (0.0, 1.0)]
QDQ_RANGES = [(-1.0, 1.0), (-0.37, 2.9), (0.0, 5.0), (-3.0, 0.0)]
Q_RANGES = [(-1.0, 1.0), (-0.37, 2.9), (0.0, 5.0), (-3.0, -1.0), (0.0, 0.0), (2.0, 3.5)]


def quant_inputs():
    x = np.concatenate([rng.uniform(-8, 8, 180), np.linspace(-3, 3, 121),
                        [0.0, -0.0, 1e-8, 0.5, -0.5, 6.0, -6.0]]).astype(np.float32)
    return x


def _arr(t):
    """A result as a NumPy array (quantized values as their integers)."""
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _flatten(out):
    """List-valued entries become key_0, key_1, ... for the npz file."""
    flat = {}
    for k, v in out.items():
        if isinstance(v, list):
            for i, part in enumerate(v):
                flat[f"{k}_{i}"] = part
        else:
            flat[k] = v
    return flat


def quantization_section():
    """fake_quant_* (and gradients), quantize/dequantize in every mode and
    type, quantize_and_dequantize(_v2), quantized_concat."""
    x = quant_inputs()
    out = {"q_x": x}
    g = rng.standard_normal(x.shape).astype(np.float32)
    out["q_g"] = g
    for i, (mn, mx) in enumerate(FQ_RANGES):
        for bits in (2, 8, 13, 16):
            for narrow in (False, True):
                key = f"{i}_{bits}_{int(narrow)}"
                out["fqa_" + key] = _arr(tf.quantization.fake_quant_with_min_max_args(
                    x, mn, mx, bits, narrow))
                out["fqv_" + key] = _arr(tf.quantization.fake_quant_with_min_max_vars(
                    x, mn, mx, bits, narrow))
                out["fqag_" + key] = _arr(tf.quantization.fake_quant_with_min_max_args_gradient(
                    g, x, mn, mx, bits, narrow))
                d = tf.quantization.fake_quant_with_min_max_vars_gradient(g, x, mn, mx, bits,
                                                                          narrow)
                out["fqvg_" + key] = [_arr(t) for t in d]
    xc = x[:300].reshape(-1, 6)
    mins = np.array([r[0] for r in FQ_RANGES], np.float32)
    maxs = np.array([r[1] for r in FQ_RANGES], np.float32)
    out["fqc"] = _arr(tf.quantization.fake_quant_with_min_max_vars_per_channel(xc, mins, maxs))
    d = tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
        g[:300].reshape(-1, 6), xc, mins, maxs, 5, True)
    out["fqcg"] = [_arr(t) for t in d]
    mn_v, mx_v = tf.Variable(-1.0), tf.Variable(1.5)
    xv = tf.constant(x[:50])
    with tf.GradientTape() as tape:
        tape.watch(xv)
        y = tf.reduce_sum(tf.quantization.fake_quant_with_min_max_vars(xv, mn_v, mx_v) *
                          tf.range(50.))
    out["fq_tape"] = [_arr(t) for t in tape.gradient(y, [xv, mn_v, mx_v])]
    for tname in ["qint8", "quint8", "qint16", "quint16", "qint32"]:
        T = getattr(tf, tname)
        for i, (mn, mx) in enumerate(Q_RANGES):
            for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
                for narrow in ((False, True) if mode == "SCALED" else (False,)):
                    for rm in (("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN") if mode == "SCALED"
                               else ("HALF_AWAY_FROM_ZERO",)):
                        key = f"{tname}_{i}_{mode}_{int(narrow)}_{rm}"
                        try:   # oneDNN's SCALED kernels only take qint8 and quint8
                            q = tf.quantization.quantize(x, mn, mx, T, mode=mode,
                                                         round_mode=rm, narrow_range=narrow)
                        except tf.errors.NotFoundError:
                            continue
                        out["qz_" + key] = [_arr(q.output), _arr(q.output_min),
                                            _arr(q.output_max)]
                        try:
                            dq = tf.quantization.dequantize(q.output, q.output_min,
                                                            q.output_max, mode=mode,
                                                            narrow_range=narrow)
                            out["dq_" + key] = _arr(dq)
                        except tf.errors.OpError:
                            pass
    xq = tf.constant(x[:300].reshape(50, 6))
    q = tf.quantization.quantize(xq, mins, maxs, tf.qint8, mode="SCALED", axis=1)
    out["qz_axis"] = [_arr(q.output), _arr(q.output_min), _arr(q.output_max)]
    out["dq_axis"] = _arr(tf.quantization.dequantize(q.output, q.output_min, q.output_max,
                                                    mode="SCALED", axis=1))
    q = tf.quantization.quantize(xq, mins, maxs + 1, tf.quint8, mode="MIN_COMBINED", axis=-1)
    out["qz_axis2"] = [_arr(q.output), _arr(q.output_min), _arr(q.output_max)]
    for i, (mn, mx) in enumerate(QDQ_RANGES):
        for bits in (3, 8, 16):
            for signed in (True, False):
                for rg in (True, False):
                    for rm in ("HALF_TO_EVEN", "HALF_UP"):
                        key = f"{i}_{bits}_{int(signed)}_{int(rg)}_{rm}"
                        out["qdq_" + key] = _arr(tf.quantization.quantize_and_dequantize_v2(
                            x, mn, mx, signed_input=signed, num_bits=bits, range_given=rg,
                            round_mode=rm, narrow_range=(bits == 3)))
    out["qdq_f64"] = _arr(tf.quantization.quantize_and_dequantize_v2(
        x.astype(np.float64) * 1.37, -2.0, 3.0, range_given=True))
    out["qdq_axis"] = _arr(tf.quantization.quantize_and_dequantize_v2(xq, -1.0, 1.0, axis=1))
    # Random ranges (some from 0, some to 0), bit widths and scales of input.
    xr = (rng.standard_normal(64) * rng.choice([0.01, 1, 30, 1000], 64)).astype(np.float32)
    out["rand_x"] = xr
    cases = []
    while len(cases) < 40:
        a, b = sorted(rng.standard_normal(2) * rng.choice([0.001, 0.5, 3, 100, 1e5]))
        a = 0.0 if rng.random() < 0.2 else a
        b = 0.0 if rng.random() < 0.1 else b
        if not a < b:
            continue
        bits, narrow, k = int(rng.integers(2, 17)), bool(rng.random() < 0.5), len(cases)
        cases.append((a, b, bits, narrow))
        out[f"rfa{k}"] = _arr(tf.quantization.fake_quant_with_min_max_args(xr, a, b, bits,
                                                                            narrow))
        out[f"rfv{k}"] = _arr(tf.quantization.fake_quant_with_min_max_vars(xr, a, b, bits,
                                                                            narrow))
        for tname in ("qint8", "quint8", "qint16", "quint16", "qint32"):
            for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
                q = tf.quantization.quantize(xr, a, b, getattr(tf, tname), mode=mode,
                                             narrow_range=narrow)
                out[f"rq{k}{tname}{mode}"] = [_arr(q.output), _arr(q.output_min),
                                              _arr(q.output_max)]
                try:   # no SCALED Dequantize kernel for qint32 in TensorFlow
                    out[f"rd{k}{tname}{mode}"] = _arr(tf.quantization.dequantize(
                        q.output, q.output_min, q.output_max, mode=mode, narrow_range=narrow))
                except tf.errors.OpError:
                    pass
        for rg in (True, False):
            out[f"rqdq{k}{int(rg)}"] = _arr(tf.quantization.quantize_and_dequantize_v2(
                xr, a, b, num_bits=bits, range_given=rg, narrow_range=narrow,
                signed_input=bool(k % 2)))
    out["rand_cases"] = np.array(cases)
    c = tf.quantization.quantized_concat(
        0, [tf.constant([1, 200, 17], tf.quint8), tf.constant([0, 255, 128], tf.quint8),
            tf.constant([3, 4, 5], tf.quint8)], [0.0, -1.0, -0.3], [1.0, 2.0, 0.7])
    out["qconcat"] = [_arr(t) for t in c]
    c = tf.quantization.quantized_concat(
        0, [tf.constant([1, -2000000000, 17], tf.qint32), tf.constant([0, 2 ** 31 - 1], tf.qint32)],
        [-1.0, -3.0], [1.0, 2.0])
    out["qconcat32"] = [_arr(t) for t in c]
    return out


SECTIONS = [signal_section, strings_section, sparse_ragged_section, dtypes_section]
QUANT_OUT = os.path.join(os.path.dirname(OUT), "tf_quantization.npz")


def main():
    data = {}
    for section in SECTIONS:
        data.update(section())
    with open(OUT, "w") as f:
        json.dump(data, f)
    np.savez_compressed(QUANT_OUT, **_flatten(quantization_section()))


if __name__ == "__main__":
    main()

"""Records TensorFlow's results for issue 22's leftovers (mdct, the string
hashing and Unicode ops, sparse/ragged crosses, quantization and the
quantized dtypes) into tests/data/tf_leftovers.json, which
tests/test_leftovers_*.py compare with rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_leftovers_fixtures.py

Floats are stored as JSON numbers (Python's repr round-trips them exactly),
strings as lists of byte values, so nothing depends on an encoding.
"""
import json
import os

import numpy as np
import tensorflow as tf

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


SECTIONS = [signal_section, strings_section, sparse_ragged_section, dtypes_section]


def main():
    data = {}
    for section in SECTIONS:
        data.update(section())
    with open(OUT, "w") as f:
        json.dump(data, f)


if __name__ == "__main__":
    main()

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


SECTIONS = [signal_section, strings_section]


def main():
    data = {}
    for section in SECTIONS:
        data.update(section())
    with open(OUT, "w") as f:
        json.dump(data, f)


if __name__ == "__main__":
    main()

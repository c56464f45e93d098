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


SECTIONS = [signal_section]


def main():
    data = {}
    for section in SECTIONS:
        data.update(section())
    with open(OUT, "w") as f:
        json.dump(data, f)


if __name__ == "__main__":
    main()

"""Records what TensorFlow does with the hand-written AutoGraph corpus.

tests/test_autograph_differential.py runs each corpus function natively and
through tf.function, with tensor and with Python arguments. Where
TensorFlow refuses a program that Python runs, rillflow must refuse it with
the same exception, so the test reads TensorFlow's outcomes from
tests/data/autograph_corpus_tf.json, which this script writes:

    /path/to/tf-venv/bin/python tools/autograph_corpus_tf.py

(run from the repository root, with TensorFlow 2.21 installed in that
environment; the corpus modules' `import rillflow as tf` gets TensorFlow).
"""
import json
import os
import sys

import numpy as np


def _outcome(fn, args):
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return {"error": type(e).__name__, "message": str(e).splitlines()[-1][:200]}
    return {"value": _plain(r)}


def _plain(x):
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy()).tolist()
    return x


def main():
    import tensorflow
    sys.modules["rillflow"] = tensorflow
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tests"))
    import test_autograph_differential as t
    out = {}
    for fn, arg_sets in t.CORPUS:
        for args in arg_sets:
            key = "%s%s" % (fn.__name__, args)
            out[key] = {
                "tensor": _outcome(tensorflow.function(fn),
                                   [tensorflow.constant(a) for a in args]),
                "python": _outcome(tensorflow.function(fn), list(args)),
            }
    path = os.path.join(root, "tests", "data", "autograph_corpus_tf.json")
    with open(path, "w") as f:
        json.dump({"generated_by": "tools/autograph_corpus_tf.py with TensorFlow " +
                   tensorflow.__version__, "cases": out}, f, indent=1, sort_keys=True)
    print("wrote", path, len(out), "cases")


if __name__ == "__main__":
    main()

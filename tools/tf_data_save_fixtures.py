"""Datasets TensorFlow 2.21 saved with `tf.data.experimental.save` (into
tests/data/tf_data_saved/), and TensorFlow's results of loading them
(tests/data/tf_data_saved.npz), for tests/test_data_saving.py: rillflow
must read TensorFlow's snapshot files as TensorFlow does.

    /work/tfref/bin/python tools/tf_data_save_fixtures.py
"""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import DATA, Cases  # noqa: E402

CASES = Cases()
case = CASES.case
SAVED = os.path.join(DATA, "tf_data_saved")


def _datasets(tf):
    return {
        "dict": (tf.data.Dataset.from_tensor_slices(
            {"a": [1, 2, 3], "b": [[1.5, 2.0], [3.0, 4.0], [5.0, 6.0]]}), {}),
        "sharded": (tf.data.Dataset.range(7), {"shard_func": lambda x: x % 3}),
        "gzip_strings": (tf.data.Dataset.from_tensor_slices([["ab", ""], ["c", "def"]]),
                         {"compression": "GZIP"}),
        "tuple_mixed": (tf.data.Dataset.from_tensor_slices(
            (np.arange(4, dtype=np.float64), [True, False, True, True],
             np.arange(8, dtype=np.uint8).reshape(4, 2))), {}),
        "empty": (tf.data.Dataset.range(0), {}),
    }


def write(tf):
    """Saves the datasets with TensorFlow (run once; the files are committed)."""
    shutil.rmtree(SAVED, ignore_errors=True)
    for name, (ds, kw) in _datasets(tf).items():
        tf.data.experimental.save(ds, os.path.join(SAVED, name), **kw)


def _ordered(e):
    # A dict element's key order is the order of protobuf's map: not
    # behaviour to compare.
    return sorted(e.items()) if isinstance(e, dict) else e


def _load_case(name, **kw):
    def fn(tf):
        ds = tf.data.experimental.load(os.path.join(SAVED, name), **kw)
        return [[_ordered(e) for e in ds.as_numpy_iterator()], str(_ordered(ds.element_spec)),
                int(ds.cardinality())]
    fn.__name__ = "load_" + name + ("_" + "_".join(sorted(kw)) if kw else "")
    return fn


for _name in ("dict", "sharded", "tuple_mixed", "empty"):
    case(_load_case(_name))
case(_load_case("gzip_strings", compression="GZIP"))


@case
def load_sharded_with_reader_func(tf):
    ds = tf.data.experimental.load(os.path.join(SAVED, "sharded"),
                                   reader_func=lambda dss: dss.flat_map(lambda x: x))
    return list(ds.as_numpy_iterator())


@case
def load_gzip_without_compression(tf):
    return list(tf.data.experimental.load(os.path.join(SAVED, "gzip_strings"))
                .as_numpy_iterator())


@case
def load_missing(tf):
    try:
        tf.data.experimental.load(os.path.join(SAVED, "nope"))
    except tf.errors.NotFoundError as e:
        return [type(e).__name__, str(e).replace(SAVED, "SAVED")]


@case
def save_bad_shard_func(tf):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        tf.data.experimental.save(tf.data.Dataset.range(3), d, shard_func=lambda x: 1.5)


if __name__ == "__main__":
    import tensorflow
    write(tensorflow)
    CASES.main("tf_data_saved.npz")

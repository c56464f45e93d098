"""TensorFlow's results for issue 22's tf.data, tf.config and tf.debugging
names: FixedLengthRecordDataset, the tf.data.experimental sources and
transformations, and the recorded settings of tf.config, for
tests/test_data_experimental.py.

    /work/tfref/bin/python tools/tf_data_config_fixtures.py
"""
import gzip
import os
import sqlite3
import sys
import shutil
import tempfile
import atexit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case
# Per process: test workers run cases at once.
TMP = tempfile.mkdtemp(prefix="rillflow_issue22_")
atexit.register(shutil.rmtree, TMP, True)


def _files():
    os.makedirs(TMP, exist_ok=True)
    paths = {k: os.path.join(TMP, k) for k in ("a.bin", "b.bin", "bad.bin", "c.gz", "db")}
    with open(paths["a.bin"], "wb") as f:
        f.write(b"HDR" + bytes(range(24)) + b"FT")
    with open(paths["b.bin"], "wb") as f:
        f.write(b"HDR" + bytes(range(100, 112)) + b"FT")
    with open(paths["bad.bin"], "wb") as f:
        f.write(b"HDR" + bytes(range(23)) + b"FT")
    with gzip.open(paths["c.gz"], "wb") as f:
        f.write(b"HDR" + bytes(range(50, 70)) + b"FT")
    if os.path.exists(paths["db"]):
        os.remove(paths["db"])
    c = sqlite3.connect(paths["db"])
    c.execute("create table t (a integer, b text, c real)")
    c.executemany("insert into t values (?,?,?)", [(1, "x", 0.5), (2, "y", 1.5), (7, "z", -2.)])
    c.commit()
    c.close()
    return paths


def _np(ds):
    return list(ds.as_numpy_iterator())


@case
def fixed_length_records(tf):
    p = _files()
    ds = tf.data.FixedLengthRecordDataset([p["a.bin"], p["b.bin"]], 4, header_bytes=3,
                                          footer_bytes=2)
    return [_np(ds), str(ds.element_spec),
            _np(tf.data.FixedLengthRecordDataset(p["c.gz"], 5, 3, 2, compression_type="GZIP")),
            _np(tf.data.FixedLengthRecordDataset([p["a.bin"], p["b.bin"]], 4, 3, 2,
                                                 num_parallel_reads=2)),
            _np(tf.data.FixedLengthRecordDataset(
                tf.data.Dataset.from_tensor_slices([p["b.bin"]]), 17)),
            str(isinstance(ds, tf.data.FixedLengthRecordDataset))]


@case
def fixed_length_zero_record(tf):
    try:
        _np(tf.data.FixedLengthRecordDataset(_files()["a.bin"], 0))
    except tf.errors.InvalidArgumentError as e:
        # TensorFlow reports it from inside its flat_map over the files.
        msg = str(e)
        return msg[msg.index("`record_bytes`"):].split("\n")[0].split(" [Op:")[0]


@case
def fixed_length_not_multiple(tf):
    try:
        _np(tf.data.FixedLengthRecordDataset(_files()["bad.bin"], 4, 3, 2))
    except tf.errors.InvalidArgumentError as e:
        # The message names the file: keep what does not depend on where it is.
        return str(e).split("}}")[-1].split(" [Op:")[0].strip().replace(TMP, "TMP")


@case
def counter_and_random(tf):
    tf.random.set_seed(None)   # whatever other cases in this process set
    out = [_np(tf.data.experimental.Counter(3, 2).take(4)),
           _np(tf.data.experimental.Counter(1, 1, tf.int32).take(2)),
           _np(tf.data.Dataset.counter(-2, 3).take(3)),
           int(tf.data.experimental.Counter().cardinality()),
           _np(tf.data.experimental.RandomDataset(seed=42).take(600)),
           _np(tf.data.Dataset.random(seed=7).take(5)),
           str(tf.data.experimental.RandomDataset(seed=1).element_spec)]
    tf.random.set_seed(5)
    out.append(_np(tf.data.experimental.RandomDataset().take(3)))
    tf.random.set_seed(None)
    return out


@case
def transformations(tf):
    red = tf.data.experimental.Reducer(init_func=lambda k: tf.constant(0, tf.int64),
                                       reduce_func=lambda s, x: s + x,
                                       finalize_func=lambda s: s * 10)
    xs = tf.data.Dataset.from_tensor_slices(np.array([5, 3, 8, 1, 6, 4, 9], np.int64))
    exp = tf.data.experimental
    ex = [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1]))}))
        .SerializeToString() for i in range(4)]
    return [_np(xs.apply(exp.group_by_reducer(lambda x: x % 3, red))),
            _np(tf.data.Dataset.range(10).apply(exp.map_and_batch(lambda x: x * 2, 4))),
            _np(tf.data.Dataset.range(10).apply(exp.map_and_batch(lambda x: x * 2, 4,
                                                                  drop_remainder=True))),
            _np(tf.data.Dataset.range(3).apply(exp.parallel_interleave(
                lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), cycle_length=2))),
            _np(tf.data.Dataset.range(5).apply(exp.shuffle_and_repeat(3, 2, seed=7))),
            _np(tf.data.Dataset.from_tensor_slices([1, 2, 1, 3]).apply(exp.unique())),
            _np(tf.data.Dataset.range(3).apply(exp.copy_to_device("/cpu:0"))),
            _np(tf.data.Dataset.range(3).apply(exp.prefetch_to_device("/cpu:0"))),
            _np(tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[1., 2.], [3., 4.]]})
                .apply(exp.pad_to_cardinality(4))),
            _np(tf.data.Dataset.from_tensor_slices(ex).batch(2).apply(
                exp.parse_example_dataset({"x": tf.io.FixedLenFeature([2], tf.int64)})))]


@case
def pad_to_cardinality_too_many(tf):
    return tf.data.Dataset.range(5).apply(tf.data.experimental.pad_to_cardinality(4))


@case
def elements_and_structures(tf):
    exp = tf.data.experimental
    fl = exp.from_list([(1, "a"), (2, "b")])
    fl2 = exp.from_list([[1, 2], [3, 4]])
    v = exp.to_variant(tf.data.Dataset.range(3))
    return [_np(fl), str(fl.element_spec), _np(fl2), str(fl2.element_spec),
            str(exp.get_structure(tf.data.Dataset.range(3))),
            str(exp.get_structure(iter(tf.data.Dataset.range(3)))),
            exp.at(tf.data.Dataset.range(10, 20), 3), v.dtype.name,
            _np(exp.from_variant(v, tf.TensorSpec([], tf.int64))),
            str(exp.SHARD_HINT), str(exp.AutotuneAlgorithm.HILL_CLIMB),
            str(list(exp.AutotuneAlgorithm)),
            str([tf.data.Options().autotune.enabled, exp.AutotuneOptions().cpu_budget]),
            type(tf.data.Dataset.range(2).as_numpy_iterator()).__name__,
            str(isinstance(tf.data.Dataset.range(2).as_numpy_iterator(), tf.data.NumpyIterator))]


@case
def from_list_empty(tf):
    return tf.data.experimental.from_list([])


@case
def get_structure_bad(tf):
    return tf.data.experimental.get_structure(3)


@case
def at_out_of_range(tf):
    return tf.data.experimental.at(tf.data.Dataset.range(3), 5)


@case
def writer_and_sql(tf):
    p = _files()
    path = os.path.join(TMP, "w.tfrecord")
    tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.from_tensor_slices(
        [b"ab", b"cde"]))
    sq = tf.data.experimental.SqlDataset("sqlite", p["db"], "select a, b, c from t",
                                         (tf.int32, tf.string, tf.float64))
    return [_np(tf.data.TFRecordDataset(path)), _np(sq), str(sq.element_spec),
            _np(tf.data.experimental.SqlDataset("sqlite", p["db"], "select b from t where a > 1",
                                                tf.string))]


@case
def config_settings(tf):
    c, e, d = tf.config, tf.config.experimental, tf.debugging
    out = [c.get_soft_device_placement()]
    c.set_soft_device_placement(False)
    out.append(c.get_soft_device_placement())
    c.set_soft_device_placement(True)
    out += [str(c.optimizer.get_experimental_options()), c.optimizer.get_jit()]
    c.optimizer.set_experimental_options({"constant_folding": False, "layout_optimizer": True})
    out.append(str(c.optimizer.get_experimental_options()))
    c.optimizer.set_jit(True)
    out.append(c.optimizer.get_jit())
    c.optimizer.set_jit(False)
    out.append(c.optimizer.get_jit())
    out += [e.tensor_float_32_execution_enabled(), e.get_device_policy(),
            e.get_synchronous_execution(),
            str(e.get_device_details(c.list_physical_devices("CPU")[0])),
            str(e.get_memory_info("CPU:0")), e.get_memory_usage("CPU:0"),
            d.is_traceback_filtering_enabled(), d.get_log_device_placement(),
            str(e.enable_op_determinism())]
    e.set_device_policy("warn")
    out.append(e.get_device_policy())
    e.set_device_policy(None)
    out.append(e.get_device_policy())
    return out


@case
def config_bad_policy(tf):
    return tf.config.experimental.set_device_policy("bad")


@case
def config_memory_of_missing_device(tf):
    return tf.config.experimental.get_memory_info("GPU:0")


@case
def config_details_of_a_name(tf):
    return tf.config.experimental.get_device_details("CPU:0")


if __name__ == "__main__":
    CASES.main("tf_data_config.npz")

"""The quantized dtypes (tf.qint8, ...) and tf.dtypes.experimental's narrow
types against TensorFlow's properties, printing and casts (recorded by
tools/tf_leftovers_fixtures.py)."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

with open(os.path.join(os.path.dirname(__file__), "data", "tf_leftovers.json")) as _f:
    DATA = json.load(_f)
QUANTIZED = ["qint8", "quint8", "qint16", "quint16", "qint32"]
EXPERIMENTAL = ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]


def _limit(d, attr):
    try:
        v = getattr(d, attr)
    except TypeError as e:
        return ["TypeError", str(e)]
    return [str(v), type(v).__name__]


@pytest.mark.parametrize("name", QUANTIZED + EXPERIMENTAL)
def test_dtype_properties(name):
    d = getattr(tf, name) if name in QUANTIZED else getattr(tf.dtypes.experimental, name)
    got = [repr(d), str(d), d.as_datatype_enum, d.is_quantized, d.size, d.is_numeric,
           d.is_integer, d.is_floating, d.is_unsigned, str(np.dtype(d.as_numpy_dtype)),
           _limit(d, "min"), _limit(d, "max")]
    assert got == DATA["dtype_" + name]
    assert tf.as_dtype(name) is d and tf.as_dtype(d.as_datatype_enum) is d
    assert tf.as_dtype(d.as_numpy_dtype) is d
    if name in QUANTIZED:
        assert getattr(tf.dtypes, name) is d and d in tf.dtypes.QUANTIZED_DTYPES


def test_quantized_tensors():
    t = tf.constant([1, 2], dtype=tf.qint8)
    got = [str(t), repr(t), repr(t.numpy()), str(tf.zeros([2], tf.quint8)),
           str(tf.reshape(tf.constant([1, 2, 3, 4], tf.qint32), [2, 2])),
           str(tf.concat([t, t], 0)), str(tf.cast(t, tf.float32))]
    assert got == DATA["qtensor"]
    x = tf.constant([1.7, -3.2, 300., -129.5])
    for n in QUANTIZED:
        q = tf.cast(x, getattr(tf, n))
        assert q.dtype == getattr(tf, n)
        assert q.numpy().tolist() == DATA["qcast_" + n]
    assert tf.TensorSpec([2], tf.qint8).dtype is tf.qint8
    f = tf.function(lambda v: tf.reshape(tf.cast(v, tf.quint8), [2, 2]))
    assert f(x).dtype == tf.quint8
    assert f(x).numpy().tolist() == np.reshape(DATA["qcast_quint8"], [2, 2]).tolist()


def test_quantized_scalars_fill_and_equality():
    s = tf.constant(5, tf.quint16)
    assert s.dtype == tf.quint16 and s.numpy() == 5 and s.shape == ()
    f = tf.fill([2], tf.constant(3, tf.quint8))
    assert f.dtype == tf.quint8 and f.numpy().tolist() == [3, 3]
    t = tf.constant([1, 2, 3], tf.qint8)
    assert (t != tf.constant([1, 0, 3], tf.qint8)).numpy().tolist() == [False, True, False]
    assert tf.equal(t, t).numpy().tolist() == [True, True, True]
    assert tf.convert_to_tensor(np.array([1, 2], np.int8), tf.qint8).dtype == tf.qint8
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a qint8 tensor"):
        tf.equal(t, tf.constant([1, 2, 3], tf.int8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of qint8"):
        t + t

"""rillflow's random numbers equal TensorFlow 2.21's, bit for bit.

The cases live in tools/tf_random_fixtures.py, which recorded TensorFlow's
outputs into tests/data/tf_random.npz; here each case runs with rillflow
and every output must have TensorFlow's dtype, shape and bits (float values
compared as their bit patterns).
"""
import importlib.util
import os

import numpy as np
import pytest

import rillflow as tf

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "tf_random_fixtures", os.path.join(_HERE, "..", "tools", "tf_random_fixtures.py"))
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)

_DATA = np.load(os.path.join(_HERE, "data", "tf_random.npz"))


def _expected(name):
    keys = sorted((k for k in _DATA.files if k.startswith(name + "__")),
                  key=lambda k: int(k.split("__")[1]))
    return [(_DATA[k], k.endswith("__bf16")) for k in keys]


def _bits(a):
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "f":
        return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    return a


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tf.random.set_seed(None)


@pytest.mark.parametrize("name", sorted(fixtures.CASES))
def test_equals_tensorflow(name):
    got = fixtures.CASES[name](tf)
    want = _expected(name)
    assert len(got) == len(want)
    for i, (t, (ref, bf16)) in enumerate(zip(got, want)):
        a, is_bf16 = fixtures._to_numpy(t)
        assert is_bf16 == bf16, f"output {i}: dtype {a.dtype}"
        assert a.dtype == ref.dtype and a.shape == ref.shape, \
            f"output {i}: {a.dtype}{a.shape} != TensorFlow's {ref.dtype}{ref.shape}"
        mismatch = np.flatnonzero(_bits(a).reshape(-1) != _bits(ref).reshape(-1))
        assert mismatch.size == 0, (
            f"output {i}: {mismatch.size} of {a.size} values differ, first at "
            f"{mismatch[0]}: {a.reshape(-1)[mismatch[0]]!r} != {ref.reshape(-1)[mismatch[0]]!r}")


def test_stateless_values_are_pure():
    a = tf.random.stateless_normal([5], seed=[1, 2])
    f = tf.function(lambda: tf.random.stateless_normal([5], seed=[1, 2]))
    assert np.array_equal(a.numpy(), f().numpy())
    assert np.array_equal(a.numpy(), f().numpy())


def test_truncated_normal_redraws_past_the_first_calls():
    # Groups that need more than 8 candidates take later calls of their own
    # stream: a large draw has some, and all values stay within 2.
    x = tf.random.stateless_truncated_normal([200000], seed=[3, 3]).numpy()
    assert np.all(np.abs(x) < 2)
    assert abs(float(x.std()) - 0.8796) < 0.01

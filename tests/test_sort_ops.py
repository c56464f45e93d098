"""top_k, sort, argsort and in_top_k (rillflow/ops/core/sort_ops.py)."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match, eq, ph

IAE = tf.errors.InvalidArgumentError


X = [[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, -1.0]]


# --- sort / argsort ----------------------------------------------------------

def test_sort():
    x = tf.constant(X)
    eq(tf.sort(x), [[1, 1, 2, 3], [-1, 0, 5, 5]], tf.float32)
    eq(tf.sort(x, direction="DESCENDING"), [[3, 2, 1, 1], [5, 5, 0, -1]])
    eq(tf.sort(x, axis=0), [[0, 1, 2, -1], [3, 5, 5, 1]])
    eq(tf.sort(x, axis=-2, direction="DESCENDING"), [[3, 5, 5, 1], [0, 1, 2, -1]])
    eq(tf.sort(tf.constant([3, 1, -2147483648, 2147483647])),
       [-2147483648, 1, 3, 2147483647], tf.int32)
    eq(tf.sort(tf.constant([3, 1, 2], tf.uint8)), [1, 2, 3], tf.uint8)
    eq(tf.sort(tf.constant([3, 1, 2], tf.int64)), [1, 2, 3], tf.int64)
    eq(tf.sort([[1, 3, 2]], axis=-2), [[1, 3, 2]])
    # NaN counts as the largest value (first in TensorFlow's top_k order).
    nan = tf.constant([np.nan, 1.0, -np.inf, np.inf])
    eq(tf.sort(nan), [np.nan, -np.inf, 1.0, np.inf])
    eq(tf.sort(nan, direction="DESCENDING"), [np.nan, np.inf, 1.0, -np.inf])


def test_argsort_is_stable():
    x = tf.constant(X)
    eq(tf.argsort(x), [[1, 3, 2, 0], [3, 0, 1, 2]], tf.int32)
    eq(tf.argsort(x, direction="DESCENDING"), [[0, 2, 1, 3], [1, 2, 0, 3]])
    eq(tf.argsort(x, axis=0, stable=True), [[1, 0, 0, 1], [0, 1, 1, 0]])
    eq(tf.argsort([3, 1, 2]), [1, 2, 0])
    eq(tf.argsort([1, 1, 0]), [2, 0, 1])
    eq(tf.argsort([1.0, 1, 0], direction="DESCENDING"), [0, 1, 2])
    eq(tf.argsort([1, 1, 0], direction="DESCENDING"), [0, 1, 2])
    assert tf.argsort(tf.constant([3, 1, 2], tf.int64)).dtype == tf.int32
    eq(tf.argsort(tf.constant([np.nan, 1.0, -np.inf, np.inf])), [0, 2, 1, 3])


def test_sort_errors():
    x = tf.constant(X)
    with pytest.raises(ValueError, match="Argument `direction` should be one of ASCENDING, "
                                         "DESCENDING. Received: direction=UP"):
        tf.sort(x, direction="UP")
    with pytest.raises(IAE, match="slice index 2 of dimension 0 out of bounds."):
        tf.sort(x, axis=2)
    with pytest.raises(IAE, match="slice index -1 of dimension 0 out of bounds."):
        tf.sort(tf.constant(3.0))
    with pytest.raises(IAE, match="Value for attr 'T' of string is not in the list of allowed "
                                  "values"):
        tf.sort(tf.constant(["b", "a"]))
    with pytest.raises(IAE, match="Value for attr 'T' of bool is not in the list"):
        tf.argsort(tf.constant([True, False]))


def test_sort_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        s = tf.sort(x)
        assert s.shape.as_list() == [None, 4] and s.dtype == tf.float32
        assert tf.sort(x, axis=0).shape.as_list() == [None, 4]
        a = tf.argsort(x, direction="DESCENDING")
        assert a.shape.as_list() == [None, 4] and a.dtype == tf.int32
        assert tf.sort(ph([3, None])).shape.as_list() == [3, None]
        assert tf.sort(ph(None)).shape.rank is None
        assert "TopKV2" in [op.type for op in tf.compat.v1.get_default_graph().get_operations()]
        with pytest.raises(ValueError, match="slice index 2 of dimension 0 out of bounds."):
            tf.sort(x, axis=2)


# --- top_k -------------------------------------------------------------------

def test_top_k():
    x = tf.constant(X)
    r = tf.math.top_k(x, 2)
    eq(r.values, [[3, 2], [5, 5]], tf.float32)
    eq(r.indices, [[0, 2], [1, 2]], tf.int32)
    values, indices = tf.nn.top_k([1, 3, 3, 2], 2)
    eq(values, [3, 3], tf.int32)
    eq(indices, [1, 2])
    eq(tf.math.top_k([1, 3, 3, 2], 2, index_type=tf.int64).indices, [1, 2], tf.int64)
    eq(tf.math.top_k([1, 2]).indices, [1])
    eq(tf.math.top_k([1, 2], k=tf.constant(1)).values, [2])
    eq(tf.math.top_k([1, 2], k=tf.constant(1, tf.int64)).values, [2])
    eq(tf.math.top_k(tf.constant([1.0, -0.0, 0.0]), 3).indices, [0, 1, 2])
    eq(tf.math.top_k(tf.constant([3, 1, 2], tf.uint8), 2).values, [3, 2], tf.uint8)
    e = tf.math.top_k(tf.zeros([2, 0]), 0)
    assert e.values.shape == (2, 0) and e.indices.shape == (2, 0)
    r = tf.math.top_k([1.0])
    assert type(r).__name__ == "TopKV2" and r._fields == ("values", "indices")
    assert repr(r) == ("TopKV2(values=<tf.Tensor: shape=(1,), dtype=float32, numpy=array([1.], "
                       "dtype=float32)>, indices=<tf.Tensor: shape=(1,), dtype=int32, "
                       "numpy=array([0], dtype=int32)>)")


@pytest.mark.parametrize("args, msg", [
    (([1, 3, 3, 2], 5), "input must have at least k columns. Had 4, needed 5"),
    (([1, 3, 3, 2], -1), "Need k >= 0, got -1"),
    ((3.0, 1), "input must be >= 1-D, got shape []"),
    (([[1, 2], [3, 4]], [1]), "k must be scalar, got shape [1]"),
])
def test_top_k_errors(args, msg):
    with pytest.raises(IAE) as e:
        tf.math.top_k(*args)
    assert e.value.message == msg + " [Op:TopKV2]"


def test_top_k_dtype_errors():
    with pytest.raises(IAE, match="Value for attr 'Tk' of float"):
        tf.math.top_k([1, 2], k=1.5)
    with pytest.raises(IAE, match="Value for attr 'T' of complex128 is not in the list"):
        tf.math.top_k(tf.constant([1 + 1j]), 1)


def test_top_k_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        v, i = tf.math.top_k(x, 2)
        assert v.shape.as_list() == [None, 2] and i.shape.as_list() == [None, 2]
        assert v.op.type == "TopKV2" and i.dtype == tf.int32 and v.op is i.op
        assert tf.math.top_k(x, ph([], tf.int32)).values.shape.as_list() == [None, None]
        assert tf.math.top_k(ph(None), 2).values.shape.rank is None
        with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 4"):
            tf.math.top_k(x, 5)
        with pytest.raises(ValueError, match="Dimension size, given by scalar input 1, must be "
                                             "non-negative but is -1"):
            tf.math.top_k(x, -1)
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.math.top_k(ph([]), 1)


# --- in_top_k ----------------------------------------------------------------

P = [[0.1, 0.9, 0.0], [0.3, 0.3, 0.4]]


def test_in_top_k():
    eq(tf.math.in_top_k([1, 0], P, 1), [True, False], tf.bool)
    eq(tf.math.in_top_k([1, 0], P, 2), [True, True])
    eq(tf.math.in_top_k([1, 1], P, 2), [True, True])
    eq(tf.nn.in_top_k([1, 0], [[0.1, 0.9], [1.0, 2.0]], 1), [True, False])
    eq(tf.math.in_top_k([5, 0], P, 1), [False, False])
    eq(tf.math.in_top_k([0, -1], [[1.0, 1.0], [0.3, 0.2]], 1), [True, False])
    eq(tf.math.in_top_k([1, 0], [[0.1, np.nan, 0.0], [0.3, 0.3, 0.4]], 1), [False, False])
    eq(tf.math.in_top_k([1, 0], [[np.inf, 1.0], [0.3, np.inf]], 2), [False, False])
    eq(tf.math.in_top_k([0, 0], [[-np.inf, 1.0], [0.3, 0.2]], 2), [False, True])
    eq(tf.math.in_top_k([1, 0], [[0.1, 0.9], [1.0, 2.0]], 0), [False, False])
    eq(tf.math.in_top_k([1, 0], [[0.1, 0.9], [1.0, 2.0]], 5), [True, True])
    eq(tf.math.in_top_k([1, 0], [[0.1, 0.9], [1.0, 2.0]], -1), [False, False])
    eq(tf.math.in_top_k([1, 0], [[1, 9], [1, 2]], 1), [True, False])
    eq(tf.math.in_top_k(tf.constant([1, 0], tf.int64), [[0.1, 0.9], [1.0, 2.0]], 1),
       [True, False])
    eq(tf.math.in_top_k(targets=[0], predictions=[[1.0, 1.0]], k=tf.constant(1, tf.int64)),
       [True])


def test_in_top_k_errors():
    with pytest.raises(IAE) as e:
        tf.math.in_top_k([1], P, 1)
    assert e.value.message == \
        "First dimension of predictions 2 must match length of targets 1 [Op:InTopKV2]"
    with pytest.raises(IAE) as e:
        tf.math.in_top_k([1, 0], [0.1, 0.9], 1)
    assert e.value.message == "predictions must be 2-dimensional [Op:InTopKV2]"
    with pytest.raises(IAE, match="Value for attr 'T' of float is not in the list of allowed "
                                  "values: int32, int64"):
        tf.math.in_top_k([1.0, 0], [[0.1, 0.9], [1, 2]], 1)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype float64"):
        tf.math.in_top_k([1, 0], tf.constant([[0.1, 0.9], [1.0, 2.0]], tf.float64), 1)
    with tf.Graph().as_default():
        r = tf.math.in_top_k(ph([None], tf.int32), ph([None, 4]), 1)
        assert r.shape.as_list() == [None] and r.dtype == tf.bool and r.op.type == "InTopKV2"
        assert tf.math.in_top_k([1, 2], ph([None, 4]), 1).shape.as_list() == [2]
        assert tf.math.in_top_k(ph([None], tf.int32), ph([3, 4]), 1).shape.as_list() == [3]
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.math.in_top_k([1, 2, 3], ph([2, 4]), 1)


# --- gradients ---------------------------------------------------------------

def _r(*shape):
    return tf.constant(np.random.RandomState(sum(shape)).randn(*shape).astype(np.float64))


GRADIENT_CASES = {
    "sort": (lambda a: tf.sort(a), (3, 4)),
    "sort_descending_axis0": (lambda a: tf.sort(a, axis=0, direction="DESCENDING"), (3, 4)),
    "top_k": (lambda a: tf.math.top_k(a, 2).values, (3, 4)),
    "top_k_3d": (lambda a: tf.math.top_k(a, 2).values, (2, 3, 4)),
    "top_k_1d": (lambda a: tf.math.top_k(a, 3).values * 2.0, (5,)),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_match_finite_differences(name):
    f, shape = GRADIENT_CASES[name]
    assert_gradients_match(f, [_r(*shape)], rtol=1e-6, atol=1e-7)


def test_sort_gradient_goes_back_to_original_positions():
    x = tf.constant([1.0, 2.0, 1.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = tf.reduce_sum(tf.sort(x) * tf.constant([1.0, 10.0, 100.0, 1000.0]))
    eq(tape.gradient(z, x), [1.0, 100.0, 10.0, 1000.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        v = tf.math.top_k(x, 2).values
    eq(tape.gradient(v, x, output_gradients=tf.constant([5.0, 7.0])), [0.0, 7.0, 0.0, 5.0])


def test_gradients_build_in_graphs_with_partial_shapes():
    for f in (lambda x: tf.sort(x), lambda x: tf.sort(x, axis=0),
              lambda x: tf.math.top_k(x, 2).values,
              lambda x: tf.math.top_k(x, ph([], tf.int32)).values):
        with tf.Graph().as_default():
            x = ph([None, 4])
            g = tf.gradients(f(x), x)[0]
            assert g.shape.as_list() == [None, 4] and g.dtype == tf.float32
    with tf.Graph().as_default():
        x = ph(None)
        assert tf.gradients(tf.math.top_k(x, 2).values, x)[0].dtype == tf.float32

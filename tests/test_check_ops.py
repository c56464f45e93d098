"""tf.debugging.assert_* and check_numerics: eager reports, static graph
decisions and Assert ops (messages recorded from TensorFlow 2.21)."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.framework.execute import placeholder
from rillflow.framework.op_registry import get
from rillflow.framework.tensor_shape import TensorShape
from helpers import assert_gradients_match

d = tf.debugging
IAE = tf.errors.InvalidArgumentError


def message(fn, *args, **kwargs):
    with pytest.raises(IAE) as e:
        fn(*args, **kwargs)
    return e.value.message


# --- eager comparisons -------------------------------------------------------------------------

def test_assert_equal_eager_report():
    assert d.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 2, 3])) is None
    assert d.assert_equal(1, 1) is None
    assert message(d.assert_equal, tf.constant([1, 2, 3]), tf.constant([1, 2, 4])) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\n"
        "Corresponding x values:\n[3]\nCorresponding y values:\n[4]\n"
        "First 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 4]")
    assert message(d.assert_equal, 1, 2, message="mymsg") == (
        "mymsg\nCondition x == y did not hold.\nFirst 1 elements of x:\n[1]\n"
        "First 1 elements of y:\n[2]")


def test_assert_equal_summarize():
    x = tf.constant(np.arange(10, dtype=np.int32))
    y = tf.constant(np.arange(1, 11, dtype=np.int32))
    assert message(d.assert_equal, x, y, summarize=2) == (
        "Condition x == y did not hold.\nIndices of first 2 different values:\n[[0]\n [1]]\n"
        "Corresponding x values:\n[0 1]\nCorresponding y values:\n[1 2]\n"
        "First 2 elements of x:\n[0 1]\nFirst 2 elements of y:\n[1 2]")
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[1, 2], [3, 5]])
    assert message(d.assert_equal, a, b, summarize=-1) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1 1]]\n"
        "Corresponding x values:\n[4]\nCorresponding y values:\n[5]\n"
        "First 4 elements of x:\n[1 2 3 4]\nFirst 4 elements of y:\n[1 2 3 5]")
    assert message(d.assert_equal, a, tf.constant([[0, 2], [3, 5]]), summarize=0) == \
        "Condition x == y did not hold."


def test_other_comparisons_eager():
    assert message(d.assert_less, tf.constant([1, 2, 3]), tf.constant([1, 2, 4])).startswith(
        "Condition x < y did not hold.\nIndices of first 2 different values:\n[[0]\n [1]]")
    assert message(d.assert_less_equal, tf.constant([1, 2, 5]), 3) == (
        "Condition x <= y did not hold.\nFirst 3 elements of x:\n[1 2 5]\n"
        "First 1 elements of y:\n[3]")
    assert message(d.assert_greater, tf.constant([1, 2, 5]), 3).startswith(
        "Condition x > y did not hold.")
    assert message(d.assert_greater_equal, tf.constant([1, 2, 5]), 3).startswith(
        "Condition x >= y did not hold.")
    assert message(d.assert_none_equal, tf.constant([1, 2, 5]), 2).startswith(
        "Condition x != y did not hold.")
    assert d.assert_less(tf.constant([1.0]), tf.constant([2.0])) is None
    assert message(d.assert_equal, tf.constant(["a"]), tf.constant(["b"])).endswith(
        "First 1 elements of x:\n[b'a']\nFirst 1 elements of y:\n[b'b']")


def test_comparison_dtype_and_shape_errors():
    with pytest.raises(IAE, match="expected to be a float tensor but is a int32 tensor"):
        d.assert_equal(tf.constant([1.0]), 1)
    with pytest.raises(IAE, match=r"Incompatible shapes: \[3\] vs. \[2\]"):
        d.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 2]))


def test_tf_namespace_aliases():
    assert tf.assert_equal is d.assert_equal
    assert tf.assert_less is d.assert_less
    assert tf.assert_greater is d.assert_greater
    assert tf.assert_rank is d.assert_rank


def test_v1_forms_take_data():
    assert message(tf.compat.v1.assert_equal, tf.constant([1]), tf.constant([2]),
                   data=["hi", tf.constant(5)]) == "hi\n5"
    assert message(tf.compat.v1.assert_positive, tf.constant([-1]), data=["hi"]) == "hi"


# --- signs ------------------------------------------------------------------------------------

def test_sign_asserts_eager():
    x = tf.constant([1, -2, 5])
    assert message(d.assert_positive, x) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(3,) dtype=int32) = \n"
        "['1', '-2', '5']")
    assert message(d.assert_negative, x).startswith("\nCondition x < 0 did not hold")
    assert message(d.assert_non_negative, x, message="mm") == (
        "mm.  \nCondition x >= 0 did not hold element-wise:\nx (shape=(3,) dtype=int32) = \n"
        "['1', '-2', '5']")
    # TensorFlow runs two lines of this report together; kept for fidelity.
    assert message(d.assert_non_positive, x, message="mm") == (
        "mm.  \nCondition x <= 0 did not hold element-wise:x (shape=(3,) dtype=int32) = \n"
        "['1', '-2', '5']")
    assert message(d.assert_positive, tf.constant(-1)) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=() dtype=int32) = \n-1")
    v = tf.constant(np.arange(-5, 5, dtype=np.float32))
    assert message(d.assert_positive, v, message="mm", summarize=2) == (
        "mm.  \nCondition x > 0 did not hold element-wise:\nx (shape=(10,) dtype=float32) = \n"
        "['-5.0', '-4.0', '...']")
    assert d.assert_positive(tf.constant([], tf.float32)) is None
    assert d.assert_non_negative(tf.constant([0, 1])) is None


# --- assert_near ------------------------------------------------------------------------------

def test_assert_near():
    assert d.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0000001])) is None
    assert message(d.assert_near, tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1]),
                   rtol=0.01, atol=0.01, message="mm") == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
        "b'mm.  '\nb'x and y not equal to tolerance rtol = tf.Tensor(0.01, shape=(), "
        "dtype=float32), atol = tf.Tensor(0.01, shape=(), dtype=float32)'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, 2.0\nb'y (shape=(2,) dtype=float32) = '\n"
        "1.0, 2.1")
    assert "rtol = tf.Tensor(1.1920929e-06" in message(
        d.assert_near, tf.constant([1.0]), tf.constant([1.5]))
    with pytest.raises(ValueError, match="not inexact"):
        d.assert_near(tf.constant([1, 2]), tf.constant([1, 2]))


# --- ranks, types, shapes ---------------------------------------------------------------------

def test_rank_checks_are_static():
    x = tf.constant([1, 2])
    assert d.assert_rank(x, 1) is None
    with pytest.raises(ValueError, match=r"^Tensor  must have rank 2.  Received rank 1, "
                                         r"shape \(2,\)$"):
        d.assert_rank(x, 2)
    with pytest.raises(ValueError, match=r"^mm.  Tensor  must have rank 2"):
        d.assert_rank(x, 2, message="mm")
    with pytest.raises(ValueError, match="must have rank 2"):
        d.assert_rank(x, tf.constant(2))
    with pytest.raises(ValueError, match="Rank must be a scalar."):
        d.assert_rank(x, tf.constant([2]))
    with pytest.raises(TypeError, match="tensor must be of type tf.int32; got tf.float32"):
        d.assert_rank(x, 1.5)
    with pytest.raises(ValueError, match="must have rank at least 2.  Received rank 1"):
        d.assert_rank_at_least(x, 2)
    assert d.assert_rank_at_least(x, 0) is None
    with pytest.raises(ValueError, match=r"mm.  Tensor  must have rank in \(0, 2\).  "
                                         r"Received rank 1"):
        d.assert_rank_in(x, [0, 2], message="mm")
    assert d.assert_rank_in(x, [1, 2]) is None


def test_rank_in_graph():
    g = tf.Graph()
    with g.as_default():
        x = placeholder(tf.float32, TensorShape([None]))
        with pytest.raises(ValueError, match="Tensor Placeholder:0 must have rank 2.  Received "
                                             r"rank 1, shape \(None,\)"):
            d.assert_rank(x, 2)
        ok = d.assert_rank(x, 1)
        assert ok.type == "NoOp" and ok.name == "assert_rank_1/static_checks_determined_all_ok"
        u = placeholder(tf.float32, TensorShape(None))
        op = d.assert_rank(u, 2)
        assert op.type == "Assert"
        assert op.inputs[0].dtype == tf.bool and op.inputs[0].shape == TensorShape([])
        op = d.assert_rank_in(u, (1, 2))
        assert op.type == "Assert"


def test_type_integer_scalar():
    assert d.assert_type(tf.constant([1, 2]), tf.int32) is None
    with pytest.raises(TypeError, match=r"^mm.  tensor must be of type tf.float32; got "
                                        r"tf.int32$"):
        d.assert_type(tf.constant([1, 2]), tf.float32, message="mm")
    with pytest.raises(TypeError, match='Expected "x" to be integer type.  Found: tensor of '
                                        "dtype <dtype: 'float32'>"):
        d.assert_integer(tf.constant([1.0, 2]))
    assert d.assert_integer(tf.constant([1])) is None
    with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(2,\).$"):
        d.assert_scalar(tf.constant([1.0, 2]))
    assert d.assert_scalar(tf.constant(1.0)) is None
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3], name="x")
        with pytest.raises(TypeError, match="^x:0 must be of type tf.float32; got tf.int32$"):
            d.assert_type(x, tf.float32)
        with pytest.raises(ValueError, match=r"Expected scalar shape for x:0, saw shape: "
                                             r"\(3,\)."):
            d.assert_scalar(x)


def test_proper_iterable_and_numeric():
    d.assert_proper_iterable([1])
    d.assert_proper_iterable((1, 2))
    for bad in ("abc", b"x", np.array([1]), tf.constant([1])):
        with pytest.raises(TypeError, match='to be a "proper" iterable'):
            d.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match='Expected argument "values" to be iterable'):
        d.assert_proper_iterable(5)
    assert d.is_numeric_tensor(tf.constant([1]))
    assert not d.is_numeric_tensor(tf.constant(["a"]))
    assert not d.is_numeric_tensor(tf.constant([True]))
    assert not d.is_numeric_tensor(3)


def test_assert_same_float_dtype():
    assert d.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]) == tf.float32
    assert d.assert_same_float_dtype(None, tf.float64) == tf.float64
    assert d.assert_same_float_dtype() == tf.float32
    with pytest.raises(ValueError, match="must be of the same type"):
        d.assert_same_float_dtype([tf.constant(1.0), tf.constant(np.float64(1.0))])
    with pytest.raises(ValueError, match="Expected floating point type, got <dtype: 'int32'>."):
        d.assert_same_float_dtype([tf.constant(1)])


def test_assert_shapes_static():
    a = tf.constant([[1, 2]])
    assert d.assert_shapes([(a, ("N", "M")), (tf.constant([1, 2]), ("M",))]) is None
    assert d.assert_shapes([(a, "NM"), (tf.constant([1]), ("N",))]) is None
    assert d.assert_shapes([(a, (None, 2)), (tf.constant(1), ())]) is None
    assert d.assert_shapes([(tf.constant([[[1, 2]]]), ("*", 2))]) is None
    assert d.assert_shapes([(tf.constant(1), ("N",))]) is None
    with pytest.raises(ValueError, match=r"^Specified by tensor shape=\(2,\) dtype=int32 "
                                         r"dimension 0.  Tensor shape=\(3,\) dtype=int32 "
                                         r"dimension 0 must have size 2.  Received size 3, "
                                         r"shape \(3,\)$"):
        d.assert_shapes([(tf.constant([1, 2]), ("N",)), (tf.constant([1, 2, 3]), ("N",))])
    with pytest.raises(ValueError, match=r"^Specified explicitly.  Tensor shape=\(1, 2\) "
                                         r"dtype=int32 dimension 0 must have size 2"):
        d.assert_shapes([(a, (2, "N"))])
    with pytest.raises(ValueError, match=r"must have rank in \(0, 1\).  Received rank 2"):
        d.assert_shapes([(a, ("N",))])
    with pytest.raises(ValueError, match="dimension -1 must have size 3"):
        d.assert_shapes([(a, ("*", "N", 3))])
    with pytest.raises(ValueError, match="must have rank at least 3"):
        d.assert_shapes([(a, ("*", "N", 2, 3))])
    with pytest.raises(ValueError, match="dimension 1 must have size 1.  Received size 2"):
        d.assert_shapes([(a, ("N", "N"))])
    with pytest.raises(ValueError, match="^mm.  Specified by tensor"):
        d.assert_shapes([(a, ("N", "M")), (tf.constant([1, 2, 3]), ("M",))], message="mm")
    with pytest.raises(ValueError, match="dimension 0 must have size 1"):
        d.assert_shapes([(tf.constant([1, 2]), ())])


# --- graph behaviour of comparisons ------------------------------------------------------------

def test_graph_static_failure_raises_at_construction():
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3])
        y = tf.constant([1, 2, 4])
        with pytest.raises(IAE) as e:
            d.assert_equal(x, y)
        assert e.value.message == ("Condition x == y did not hold element-wise:\n"
                                   "x (Const:0) = \n[1 2 3]\ny (Const_1:0) = \n[1 2 4]")


def test_graph_dynamic_comparison_builds_assert():
    g = tf.Graph()
    with g.as_default():
        p = placeholder(tf.int32, TensorShape([None]))
        op = d.assert_equal(p, tf.constant([1, 2, 3]), summarize=5)
        assert op.type == "Assert" and op.name == "assert_equal/Assert/Assert"
        assert op.get_attr("summarize") == 5
        cond = op.inputs[0]
        assert cond.op.type == "All" and cond.shape == TensorShape([])
        data = op.inputs[1:]
        assert [t.dtype for t in data] == [tf.string, tf.string, tf.int32, tf.string, tf.int32]
        same = d.assert_equal(p, p)
        assert same.type == "NoOp"
        op = d.assert_positive(p, message="msg")
        assert op.type == "Assert"
        assert op.name.startswith("assert_positive/assert_less/")


def test_graph_dtype_mismatch_is_type_error():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            d.assert_equal(placeholder(tf.int32, TensorShape([2])),
                           placeholder(tf.float32, TensorShape([2])))


def test_graph_assert_shapes_dynamic():
    with tf.Graph().as_default():
        a = placeholder(tf.float32, TensorShape([None, 3]))
        b = placeholder(tf.float32, TensorShape([None]))
        op = d.assert_shapes([(a, ("N", 3)), (b, ("N",))])
        assert op is not None and op.type == "NoOp"  # a group of Assert ops
        assert all(c.type == "Assert" for c in op.control_inputs)
        with pytest.raises(ValueError, match="dimension 1 must have size 2"):
            d.assert_shapes([(a, ("N", 2))])


# --- check_numerics ------------------------------------------------------------------------------

def test_check_numerics_eager():
    x = tf.constant([1.0, 2.0])
    assert d.check_numerics(x, "boom").numpy().tolist() == [1.0, 2.0]
    assert message(d.check_numerics, tf.constant([1.0, np.nan]), "boom") == \
        "boom : Tensor had NaN values [Op:CheckNumerics]"
    assert message(d.check_numerics, tf.constant([1.0, np.inf]), "boom") == \
        "boom : Tensor had Inf values [Op:CheckNumerics]"
    assert message(d.check_numerics, tf.constant([np.inf, np.nan], tf.float64), "boom") == \
        "boom : Tensor had Inf and NaN values [Op:CheckNumerics]"
    with pytest.raises(IAE, match="Value for attr 'T' of int32 is not in the list"):
        d.check_numerics(tf.constant([1]), "boom")
    with pytest.raises(IAE, match="Tensor had NaN values"):
        d.assert_all_finite(tf.constant([1.0, np.nan]), "boom")
    assert d.assert_all_finite(x, "ok") is not None


def test_check_numerics_graph_and_gradient():
    with tf.Graph().as_default():
        t = d.check_numerics(placeholder(tf.float32, TensorShape([None])), "m")
        assert t.op.type == "CheckNumerics" and t.shape == TensorShape([None])
        assert t.op.get_attr("message") == "m"
        with pytest.raises(TypeError):
            d.check_numerics(placeholder(tf.int32, TensorShape([2])), "m")
    assert get("CheckNumerics").stateful
    x = tf.constant(np.array([0.5, 1.5, -2.0]))
    assert_gradients_match(lambda v: d.check_numerics(v * v, "g"), [x])

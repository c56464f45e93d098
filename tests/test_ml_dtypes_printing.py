"""bfloat16 (NumPy's dtype comes from ml_dtypes, when installed) prints its
values, as in TensorFlow, not `<unprintable>`."""
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

import rillflow as tf  # noqa: E402


def test_bfloat16_tensors_and_variables_print_their_values():
    x = tf.constant([1.5, 2.25], tf.bfloat16)
    assert str(x) == "tf.Tensor([1.5 2.25], shape=(2,), dtype=bfloat16)"
    assert repr(x) == ("<tf.Tensor: shape=(2,), dtype=bfloat16, "
                       "numpy=array([1.5, 2.25], dtype=bfloat16)>")
    assert repr(x[0]) == "<tf.Tensor: shape=(), dtype=bfloat16, numpy=1.5>"
    assert repr(tf.Variable(x)).endswith("numpy=array([1.5, 2.25], dtype=bfloat16)>")


def test_float8_and_int4_by_name_cast_only():
    # TensorFlow 2.21 knows these by name (tf.as_dtype), not as tf.* attributes,
    # and only casts to and from them; the values and reprs below are its.
    f8 = tf.as_dtype("float8_e4m3fn")
    assert (f8.as_datatype_enum, f8.is_floating, float(f8.min), float(f8.max), f8.size) == \
        (25, True, -448.0, 448.0, 1)
    assert tf.as_dtype("float8_e5m2").as_datatype_enum == 24
    i4 = tf.as_dtype("int4")
    assert (i4.as_datatype_enum, i4.is_integer, i4.min, i4.max) == (29, True, -8, 7)
    assert tf.as_dtype("uint4").is_unsigned and tf.as_dtype("uint4").max == 15
    assert not hasattr(tf, "float8_e4m3fn")
    y = tf.cast(tf.constant([1.0, 300.0, -0.1, 1000.0]), "float8_e4m3fn")
    assert str(y) == ("tf.Tensor([1 288 -0.101562 nan], shape=(4,), "
                      "dtype=float8_e4m3fn)")
    assert str(tf.cast(tf.constant([7, -9]), "int4")) == \
        "tf.Tensor([7 7], shape=(2,), dtype=int4)"
    with pytest.raises(tf.errors.InvalidArgumentError, match="float8_e4m3fn"):
        y * y

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

"""CSR sparse matrices (rillflow/ops/sparse/csr_matrix_ops.py) against TensorFlow
2.21's sparse_csr_matrix_ops, recorded by tools/tf_csr_fixtures.py."""
import os

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.sparse import csr_matrix_ops as C

_F = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_csr.npz"))
_KEYS = sorted({k[len("a_"):] for k in _F.files if k.startswith("a_")})


def _csr(dense):
    st = tf.sparse.from_dense(tf.constant(dense))
    return C.sparse_tensor_to_csr_sparse_matrix(st.indices, st.values, st.dense_shape)


def _dtype(key):
    return tf.as_dtype(key.split("_", 1)[1])


@pytest.mark.parametrize("key", _KEYS)
def test_sparse_sparse_product_keeps_tensorflows_structure_and_values(key):
    a, b, dt = _F["a_" + key], _F["b_" + key], _dtype(key)
    prod = C.sparse_matrix_sparse_mat_mul(_csr(a), _csr(b), dt)
    st = C.csr_sparse_matrix_to_sparse_tensor(prod, dt)
    np.testing.assert_array_equal(st.indices.numpy(), _F["prod_indices_" + key])
    # Small integers: the sums are exact whatever the order.
    np.testing.assert_array_equal(st.values.numpy(), _F["prod_values_" + key])
    assert st.values.dtype == dt
    np.testing.assert_array_equal(st.dense_shape.numpy(), np.matmul(a, b).shape)
    np.testing.assert_array_equal(C.sparse_matrix_nnz(prod).numpy(), _F["prod_nnz_" + key])
    np.testing.assert_array_equal(C.csr_sparse_matrix_to_dense(prod, dt).numpy(), a @ b)


@pytest.mark.parametrize("key", _KEYS)
def test_transposed_and_adjoint_operands(key):
    a, b, dt = _F["a_" + key], _F["b_" + key], _dtype(key)
    at = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    bt = np.ascontiguousarray(np.swapaxes(b, -1, -2))
    prod = C.sparse_matrix_sparse_mat_mul(_csr(at), _csr(bt), dt, transpose_a=True,
                                          adjoint_b=True)
    st = C.csr_sparse_matrix_to_sparse_tensor(prod, dt)
    np.testing.assert_array_equal(st.indices.numpy(), _F["prodT_indices_" + key])
    np.testing.assert_array_equal(st.values.numpy(), _F["prodT_values_" + key])


@pytest.mark.parametrize("key", _KEYS)
def test_dense_product_components_and_transpose(key):
    a, dt = _F["a_" + key], _dtype(key)
    rtol = 1e-6 if dt == tf.float32 else 1e-12
    np.testing.assert_allclose(C.sparse_matrix_mat_mul(_csr(a), _F["dense_b_" + key]).numpy(),
                               _F["matmul_" + key], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(
        C.sparse_matrix_mat_mul(_csr(a), _F["dense_b_" + key], transpose_output=True).numpy(),
        _F["matmul_to_" + key], rtol=rtol, atol=rtol)
    comp = C.csr_sparse_matrix_components(_csr(a), 0, dt)
    np.testing.assert_array_equal(comp.row_ptrs.numpy(), _F["comp_row_" + key])
    np.testing.assert_array_equal(comp.col_inds.numpy(), _F["comp_col_" + key])
    np.testing.assert_array_equal(comp.values.numpy(), _F["comp_val_" + key])
    assert comp.row_ptrs.dtype == tf.int32
    tr = C.sparse_matrix_transpose(_csr(a), dt)
    np.testing.assert_array_equal(C.csr_sparse_matrix_to_dense(tr, dt).numpy(),
                                  _F["transpose_" + key])


def test_in_a_function_and_errors():
    a = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32)

    @tf.function
    def f(x):
        st = tf.sparse.from_dense(x)
        m = C.sparse_tensor_to_csr_sparse_matrix(st.indices, st.values, st.dense_shape)
        p = C.sparse_matrix_sparse_mat_mul(m, m, tf.float32, transpose_b=True)
        return C.csr_sparse_matrix_to_dense(p, tf.float32)
    np.testing.assert_array_equal(f(tf.constant(a)).numpy(), a @ a.T)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Inner product dimensions of A and B do not agree.  Shapes are: "
                             r"\[2,3\] vs. \[2,3\]"):
        C.sparse_matrix_sparse_mat_mul(_csr(a), _csr(a), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="CSRSparseMatrix of type float64"):
        C.csr_sparse_matrix_to_dense(_csr(a), tf.float64)


def test_raw_ops_and_zeros():
    z = tf.raw_ops.SparseMatrixZeros(dense_shape=tf.constant([2, 3, 4], tf.int64),
                                     type=tf.float32)
    np.testing.assert_array_equal(tf.raw_ops.SparseMatrixNNZ(sparse_matrix=z).numpy(), [0, 0])
    np.testing.assert_array_equal(
        tf.raw_ops.CSRSparseMatrixToDense(sparse_input=z, type=tf.float32).numpy(),
        np.zeros((2, 3, 4), np.float32))

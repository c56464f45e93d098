"""Records TensorFlow 2.21's CSR sparse matrix results (sparse_csr_matrix_ops)
for tests/test_csr_matrix.py, into tests/data/tf_csr.npz. Run with TensorFlow's
Python: /work/tfref/bin/python tools/tf_csr_fixtures.py"""
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops.linalg.sparse import sparse_csr_matrix_ops as C  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "tests", "data", "tf_csr.npz")


def random_sparse(rng, shape, density, dtype):
    """A dense array with about `density` of its entries nonzero (small integers,
    so that products are exact in any summation order)."""
    dense = rng.integers(-3, 4, size=shape).astype(dtype)
    dense[rng.random(shape) > density] = 0
    return dense


def csr(dense):
    st = tf.sparse.from_dense(dense)
    return C.sparse_tensor_to_csr_sparse_matrix(st.indices, st.values, st.dense_shape)


def main():
    rng = np.random.default_rng(7)
    out = {}
    cases = [((5, 4), (4, 6)), ((3, 5, 4), (3, 4, 2)), ((1, 1), (1, 1)), ((6, 3), (3, 5))]
    for n, (sa, sb) in enumerate(cases):
        for dtype in (np.float32, np.float64):
            a = random_sparse(rng, sa, 0.4, dtype)
            b = random_sparse(rng, sb, 0.4, dtype)
            key = f"{n}_{np.dtype(dtype).name}"
            out[f"a_{key}"], out[f"b_{key}"] = a, b
            prod = C.sparse_matrix_sparse_mat_mul(csr(a), csr(b), dtype)
            st = C.csr_sparse_matrix_to_sparse_tensor(prod, dtype)
            out[f"prod_indices_{key}"] = st.indices.numpy()
            out[f"prod_values_{key}"] = st.values.numpy()
            out[f"prod_nnz_{key}"] = C.sparse_matrix_nnz(prod).numpy()
            # The same product from the transposed matrices, transposed back by the op.
            bt = np.swapaxes(b, -1, -2).copy()
            at = np.swapaxes(a, -1, -2).copy()
            prod_t = C.sparse_matrix_sparse_mat_mul(csr(at), csr(bt), dtype, transpose_a=True,
                                                    adjoint_b=True)
            st = C.csr_sparse_matrix_to_sparse_tensor(prod_t, dtype)
            out[f"prodT_indices_{key}"] = st.indices.numpy()
            out[f"prodT_values_{key}"] = st.values.numpy()
            dense_b = rng.standard_normal(sb).astype(dtype)
            out[f"dense_b_{key}"] = dense_b
            out[f"matmul_{key}"] = C.sparse_matrix_mat_mul(csr(a), dense_b).numpy()
            out[f"matmul_to_{key}"] = C.sparse_matrix_mat_mul(
                csr(a), dense_b, transpose_output=True).numpy()
            comp = C.csr_sparse_matrix_components(csr(a), 0, dtype)
            out[f"comp_row_{key}"] = comp.row_ptrs.numpy()
            out[f"comp_col_{key}"] = comp.col_inds.numpy()
            out[f"comp_val_{key}"] = comp.values.numpy()
            tr = C.sparse_matrix_transpose(csr(a), dtype)
            out[f"transpose_{key}"] = C.csr_sparse_matrix_to_dense(tr, dtype).numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT}: {len(out)} arrays")


if __name__ == "__main__":
    main()

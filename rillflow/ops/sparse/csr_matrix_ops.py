"""CSR sparse matrices: TensorFlow's `CSRSparseMatrix` variant and the ops on it
(`tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops`, used by Keras'
sparse-sparse `dot`).

A CSR matrix value holds a (batch of) 2-D matrices as TensorFlow's kernels do:
`dense_shape` ([rows, cols] or [batch, rows, cols]), `batch_pointers`
(int32, batch + 1: where each matrix's entries start), `row_pointers`
(int32, batch * (rows + 1), per matrix), `col_indices` (int32) and `values`.
Entries are sorted by row and then column in each matrix. (SparseMatrixAdd,
the softmax, Cholesky and AMD ordering ops are not here: TensorFlow's CPU build
has no kernel for the first, and Keras uses none of them.)

A sparse-sparse product keeps TensorFlow's structure: every (i, j) reached by
some a[i, k] * b[k, j] is an entry, also when the sum is zero.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply as _apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape

_TYPES = (np.float32, np.float64, np.complex64, np.complex128)


class CSRValue:
    """The value of a `CSRSparseMatrix` variant tensor."""

    __slots__ = ("dense_shape", "batch_pointers", "row_pointers", "col_indices", "values")
    dtype = D.VARIANT_NP
    shape = ()
    ndim = 0
    size = 1

    def __init__(self, dense_shape, batch_pointers, row_pointers, col_indices, values):
        self.dense_shape = np.asarray(dense_shape, np.int64)
        self.batch_pointers = np.asarray(batch_pointers, np.int32)
        self.row_pointers = np.asarray(row_pointers, np.int32)
        self.col_indices = np.asarray(col_indices, np.int32)
        self.values = values

    @property
    def batch(self):
        """The number of matrices."""
        return int(self.dense_shape[0]) if len(self.dense_shape) == 3 else 1

    @property
    def rows_cols(self):
        """(rows, cols) of each matrix."""
        return int(self.dense_shape[-2]), int(self.dense_shape[-1])

    def matrix(self, b):
        """(row of each entry, col of each entry, values) of matrix `b`."""
        rows, _ = self.rows_cols
        lo, hi = int(self.batch_pointers[b]), int(self.batch_pointers[b + 1])
        ptrs = self.row_pointers[b * (rows + 1):(b + 1) * (rows + 1)]
        row = np.repeat(np.arange(rows, dtype=np.int64), np.diff(ptrs))
        return row, self.col_indices[lo:hi].astype(np.int64), self.values[lo:hi]

    def __repr__(self):
        return f"<CSRSparseMatrix dense_shape={self.dense_shape.tolist()} nnz={len(self.values)}>"


def _from_entries(dense_shape, per_batch, dtype):
    """A CSRValue from per-matrix (row, col, values), each sorted by (row, col)."""
    rows = int(dense_shape[-2])
    batch_ptrs, row_ptrs, cols, vals = [0], [], [], []
    for row, col, v in per_batch:
        counts = np.bincount(row, minlength=rows)[:rows] if len(row) else np.zeros(rows, int)
        row_ptrs.append(np.concatenate([[0], np.cumsum(counts)]))
        cols.append(col)
        vals.append(v)
        batch_ptrs.append(batch_ptrs[-1] + len(v))
    values = np.concatenate(vals).astype(dtype) if vals else np.zeros(0, dtype)
    return CSRValue(dense_shape, batch_ptrs,
                    np.concatenate(row_ptrs) if row_ptrs else np.zeros(0, np.int32),
                    np.concatenate(cols) if cols else np.zeros(0, np.int32), values)


def _check_type(csr, type_, op):
    want = np.dtype(D.as_dtype(type_).as_numpy_dtype)
    if csr.values.dtype != want:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: expected a CSRSparseMatrix of type "
            f"{D.as_dtype(type_).name}, but saw type: {D.from_numpy(csr.values.dtype).name}")


def _sorted_entries(row, col, values):
    order = np.lexsort((col, row))
    return row[order], col[order], values[order]


# --- conversions ---------------------------------------------------------------------------

def _from_sparse_kernel(indices, values, dense_shape, T=None):
    indices = np.asarray(indices, np.int64).reshape(-1, max(1, len(dense_shape)))
    rank = len(dense_shape)
    if rank not in (2, 3):
        raise errors.InvalidArgumentError(
            None, None, f"SparseTensor must have rank 2 or 3; but indices has rank: {rank}")
    if len(values) != len(indices):
        raise errors.InvalidArgumentError(
            None, None, f"indices.shape[0] != values.shape[0]: {len(indices)} vs. "
            f"{len(values)}")
    shape = np.asarray(dense_shape, np.int64)
    if len(indices) and (np.any(indices < 0) or np.any(indices >= shape)):
        raise errors.InvalidArgumentError(None, None, "Indices out of bounds of dense_shape")
    batch = int(shape[0]) if rank == 3 else 1
    bidx = indices[:, 0] if rank == 3 else np.zeros(len(indices), np.int64)
    per = []
    for b in range(batch):
        sel = bidx == b
        per.append(_sorted_entries(indices[sel, -2], indices[sel, -1], np.asarray(values)[sel]))
    return _from_entries(shape, per, np.asarray(values).dtype)


def _to_sparse_kernel(sparse_matrix, type=None):  # noqa: A002 -- TensorFlow's attr name
    m = sparse_matrix
    _check_type(m, type, "CSRSparseMatrixToSparseTensor")
    idx, vals = [], []
    for b in range(m.batch):
        row, col, v = m.matrix(b)
        cols = [row, col] if len(m.dense_shape) == 2 else [np.full(len(row), b), row, col]
        idx.append(np.stack(cols, axis=1) if len(row) else
                   np.zeros((0, len(m.dense_shape)), np.int64))
        vals.append(v)
    return [np.concatenate(idx).astype(np.int64), np.concatenate(vals), m.dense_shape.copy()]


def _to_dense_kernel(sparse_input, type=None):  # noqa: A002
    m = sparse_input
    _check_type(m, type, "CSRSparseMatrixToDense")
    rows, cols = m.rows_cols
    out = np.zeros((m.batch, rows, cols), m.values.dtype)
    for b in range(m.batch):
        row, col, v = m.matrix(b)
        out[b, row, col] = v
    return out.reshape(tuple(m.dense_shape))


def _components_kernel(csr_sparse_matrix, index, type=None):  # noqa: A002
    m = csr_sparse_matrix
    _check_type(m, type, "CSRSparseMatrixComponents")
    b = int(index)
    if not 0 <= b < m.batch:
        raise errors.InvalidArgumentError(
            None, None, f"index ({b}) not in [0, {m.batch})")
    rows, _ = m.rows_cols
    lo, hi = int(m.batch_pointers[b]), int(m.batch_pointers[b + 1])
    return [m.row_pointers[b * (rows + 1):(b + 1) * (rows + 1)].copy(),
            m.col_indices[lo:hi].copy(), m.values[lo:hi].copy()]


def _from_dense_kernel(dense_input, indices, T=None):
    dense = np.asarray(dense_input)
    indices = np.asarray(indices, np.int64)
    values = dense[tuple(indices.T)] if len(indices) else np.zeros(0, dense.dtype)
    return _from_sparse_kernel(indices, values, np.asarray(dense.shape, np.int64))


def _nnz_kernel(sparse_matrix):
    m = sparse_matrix
    nnz = np.diff(m.batch_pointers).astype(np.int32)
    return nnz if len(m.dense_shape) == 3 else nnz[0]


def _zeros_kernel(dense_shape, type=None):  # noqa: A002
    shape = np.asarray(dense_shape, np.int64)
    dtype = D.as_dtype(type).as_numpy_dtype
    batch = int(shape[0]) if len(shape) == 3 else 1
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype))
    return _from_entries(shape, [empty] * batch, dtype)


# --- arithmetic ---------------------------------------------------------------------------

def _oriented(m, b, transpose, adjoint):
    """Matrix `b` of `m` as (row, col, values, rows, cols), transposed/adjointed."""
    row, col, v = m.matrix(b)
    rows, cols = m.rows_cols
    if transpose or adjoint:
        row, col, rows, cols = col, row, cols, rows
        if adjoint:
            v = np.conj(v)
        row, col, v = _sorted_entries(row, col, v)
    return row, col, v, rows, cols


def _check_flags(transpose, adjoint, which):
    if transpose and adjoint:
        raise errors.InvalidArgumentError(
            None, None, f"Only one of adjoint_{which}, transpose_{which} may be true.")


def _sparse_mat_mul_kernel(a, b, type=None, transpose_a=False, transpose_b=False,  # noqa: A002
                           adjoint_a=False, adjoint_b=False):
    _check_flags(transpose_a, adjoint_a, "a")
    _check_flags(transpose_b, adjoint_b, "b")
    _check_type(a, type, "SparseMatrixSparseMatMul")
    _check_type(b, type, "SparseMatrixSparseMatMul")
    if len(a.dense_shape) != len(b.dense_shape) or a.batch != b.batch:
        raise errors.InvalidArgumentError(
            None, None, "Batch sizes do not match: "
            f"{a.dense_shape.tolist()} vs. {b.dense_shape.tolist()}")
    per, out_rows, out_cols = [], None, None
    for i in range(a.batch):
        ar, ac, av, arows, acols = _oriented(a, i, transpose_a, adjoint_a)
        br, bc, bv, brows, bcols = _oriented(b, i, transpose_b, adjoint_b)
        if acols != brows:
            raise errors.InvalidArgumentError(
                None, None, f"Inner product dimensions of A and B do not agree.  Shapes are: "
                f"[{arows},{acols}] vs. [{brows},{bcols}]")
        out_rows, out_cols = arows, bcols
        # Each entry a[r, k] meets every entry of row k of b.
        b_ptr = np.concatenate([[0], np.cumsum(np.bincount(br, minlength=brows)[:brows])])
        counts = b_ptr[ac + 1] - b_ptr[ac] if len(ac) else np.zeros(0, np.int64)
        rep = np.repeat(np.arange(len(ac)), counts)
        starts = np.repeat(b_ptr[ac] - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) \
            if len(ac) else np.zeros(0, np.int64)
        bsel = np.arange(len(rep)) + starts
        keys = ar[rep] * bcols + bc[bsel]
        uniq, inv = np.unique(keys, return_inverse=True)
        vals = np.zeros(len(uniq), a.values.dtype)
        np.add.at(vals, inv, av[rep] * bv[bsel])
        per.append((uniq // max(bcols, 1), uniq % max(bcols, 1), vals))
    shape = ([a.batch] if len(a.dense_shape) == 3 else []) + [out_rows, out_cols]
    return _from_entries(np.asarray(shape, np.int64), per, a.values.dtype)


def _mat_mul_kernel(a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
                    adjoint_b=False, transpose_output=False, conjugate_output=False, T=None):
    _check_flags(transpose_a, adjoint_a, "a")
    _check_flags(transpose_b, adjoint_b, "b")
    dense_a = _to_dense_kernel(a, D.from_numpy(a.values.dtype))
    b = np.asarray(b)
    if dense_a.ndim != b.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"Ranks of a and b must match, saw: {dense_a.ndim} vs. {b.ndim}.")
    if transpose_a or adjoint_a:
        dense_a = np.swapaxes(dense_a, -1, -2)
        if adjoint_a:
            dense_a = np.conj(dense_a)
    if transpose_b or adjoint_b:
        b = np.swapaxes(b, -1, -2)
        if adjoint_b:
            b = np.conj(b)
    if dense_a.shape[-1] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Inner product dimensions of A and B do not match: shapes are "
            f"{list(dense_a.shape)} vs. {list(b.shape)}")
    out = np.matmul(dense_a, b).astype(b.dtype)
    if transpose_output:
        out = np.swapaxes(out, -1, -2)
    if conjugate_output:
        out = np.conj(out)
    return np.ascontiguousarray(out)


def _transpose_kernel(input, conjugate=False, type=None):  # noqa: A002
    m = input
    _check_type(m, type, "SparseMatrixTranspose")
    per = [_oriented(m, b, True, False)[:3] for b in range(m.batch)]
    if conjugate:
        per = [(r, c, np.conj(v)) for r, c, v in per]
    shape = m.dense_shape.copy()
    shape[-2], shape[-1] = shape[-1], shape[-2]
    return _from_entries(shape, per, m.values.dtype)


# --- registration --------------------------------------------------------------------------

_VARIANT = [(TensorShape([]), D.variant)]


def _variant_infer(inputs, attrs):
    return _VARIANT


def _to_sparse_infer(inputs, attrs):
    return [(TensorShape([None, None]), D.int64), (TensorShape([None]), D.as_dtype(attrs["type"])),
            (TensorShape([None]), D.int64)]


def _to_dense_infer(inputs, attrs):
    return [(TensorShape(None), D.as_dtype(attrs["type"]))]


def _components_infer(inputs, attrs):
    return [(TensorShape([None]), D.int32), (TensorShape([None]), D.int32),
            (TensorShape([None]), D.as_dtype(attrs["type"]))]


def _mat_mul_infer(inputs, attrs):
    return [(TensorShape(None), inputs[1].dtype)]


_FromSparse = register("SparseTensorToCSRSparseMatrix", _from_sparse_kernel, _variant_infer)
_ToSparse = register("CSRSparseMatrixToSparseTensor", _to_sparse_kernel, _to_sparse_infer)
_ToDense = register("CSRSparseMatrixToDense", _to_dense_kernel, _to_dense_infer)
_Components = register("CSRSparseMatrixComponents", _components_kernel, _components_infer)
_FromDense = register("DenseToCSRSparseMatrix", _from_dense_kernel, _variant_infer)
_Nnz = register("SparseMatrixNNZ", _nnz_kernel, lambda i, a: [(TensorShape(None), D.int32)])
_Zeros = register("SparseMatrixZeros", _zeros_kernel, _variant_infer)
_SparseMatMul = register("SparseMatrixSparseMatMul", _sparse_mat_mul_kernel, _variant_infer)
_MatMul = register("SparseMatrixMatMul", _mat_mul_kernel, _mat_mul_infer)
_Transpose = register("SparseMatrixTranspose", _transpose_kernel, _variant_infer)


# --- the Python functions of sparse_csr_matrix_ops -----------------------------------------

def apply(opdef, inputs, attrs=None, name=None, dtypes=None, multi=False):
    """Runs `opdef` on `inputs` converted to tensors (`dtypes`: per input, or None)."""
    dtypes = dtypes or [None] * len(inputs)
    return _apply(opdef, [convert_to_tensor(x, dtype=d) for x, d in zip(inputs, dtypes)],
                  attrs or {}, name=name, multi=multi)


SparseTensorParts = collections.namedtuple("CSRSparseMatrixToSparseTensor",
                                           ["indices", "values", "dense_shape"])
Components = collections.namedtuple("CSRSparseMatrixComponents",
                                    ["row_ptrs", "col_inds", "values"])


def sparse_tensor_to_csr_sparse_matrix(indices, values, dense_shape, name=None):
    """A CSR sparse matrix (variant scalar) from a SparseTensor's parts."""
    return apply(_FromSparse, [indices, values, dense_shape], name=name,
                 dtypes=[D.int64, None, D.int64])


def csr_sparse_matrix_to_sparse_tensor(sparse_matrix, type, name=None):  # noqa: A002
    """(indices, values, dense_shape) of a CSR sparse matrix of dtype `type`."""
    return SparseTensorParts(*apply(_ToSparse, [sparse_matrix], {"type": D.as_dtype(type)},
                                    name=name, multi=True))


def csr_sparse_matrix_to_dense(sparse_input, type, name=None):  # noqa: A002
    """The dense tensor of a CSR sparse matrix of dtype `type`."""
    return apply(_ToDense, [sparse_input], {"type": D.as_dtype(type)}, name=name)


def csr_sparse_matrix_components(csr_sparse_matrix, index, type, name=None):  # noqa: A002
    """(row_ptrs, col_inds, values) of matrix `index` of a CSR sparse matrix."""
    return Components(*apply(_Components, [csr_sparse_matrix, index],
                             {"type": D.as_dtype(type)}, name=name, dtypes=[None, D.int32],
                             multi=True))


def dense_to_csr_sparse_matrix(dense_input, indices, name=None):
    """A CSR sparse matrix of the entries of `dense_input` at `indices`."""
    return apply(_FromDense, [dense_input, indices], name=name, dtypes=[None, D.int64])


def sparse_matrix_nnz(sparse_matrix, name=None):
    """The number of entries (int32; one per matrix of a batch)."""
    return apply(_Nnz, [sparse_matrix], name=name)


def sparse_matrix_zeros(dense_shape, type, name=None):  # noqa: A002
    """An all-zero CSR sparse matrix of `dense_shape` and dtype `type`."""
    return apply(_Zeros, [dense_shape], {"type": D.as_dtype(type)}, name=name,
                 dtypes=[D.int64])


def sparse_matrix_sparse_mat_mul(a, b, type, transpose_a=False, transpose_b=False,  # noqa: A002
                                 adjoint_a=False, adjoint_b=False, name=None):
    """The CSR sparse matrix product of two CSR sparse matrices."""
    return apply(_SparseMatMul, [a, b], {"type": D.as_dtype(type), "transpose_a": transpose_a,
                                         "transpose_b": transpose_b, "adjoint_a": adjoint_a,
                                         "adjoint_b": adjoint_b}, name=name)


def sparse_matrix_mat_mul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
                          adjoint_b=False, transpose_output=False, conjugate_output=False,
                          name=None):
    """The dense product of a CSR sparse matrix and a dense tensor."""
    return apply(_MatMul, [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b,
                                   "adjoint_a": adjoint_a, "adjoint_b": adjoint_b,
                                   "transpose_output": transpose_output,
                                   "conjugate_output": conjugate_output}, name=name)


def sparse_matrix_transpose(input, type, conjugate=False, name=None):  # noqa: A002
    """The transposed (optionally conjugated) CSR sparse matrix."""
    return apply(_Transpose, [input], {"type": D.as_dtype(type), "conjugate": conjugate},
                 name=name)


PYTHON_FUNCTIONS = {f.__name__: f for f in (
    sparse_tensor_to_csr_sparse_matrix, csr_sparse_matrix_to_sparse_tensor,
    csr_sparse_matrix_to_dense, csr_sparse_matrix_components, dense_to_csr_sparse_matrix,
    sparse_matrix_nnz, sparse_matrix_zeros, sparse_matrix_sparse_mat_mul, sparse_matrix_mat_mul,
    sparse_matrix_transpose)}

"""SparseTensor ops (`tf.sparse`): the registry entries and public functions
(sparse_ops, sparse_array_ops, sparse_math_ops), their NumPy kernels (sparse_kernels),
the `tf.*` elementwise functions that take a SparseTensor (sparse_dispatch),
`tf.sets` (set_ops: set operations along the last dimension, SparseTensor results),
counting (bincount_ops: `tf.sparse.bincount`, `tf.math.bincount` of sparse and ragged values),
`tf.edit_distance` (edit_distance_ops), feature crosses (sparse_cross_ops: `tf.sparse.cross`, `tf.sparse.cross_hashed`)
and CSR sparse matrices (csr_matrix_ops: the CSRSparseMatrix variant ops).
The SparseTensor type itself is in rillflow/framework/sparse_tensor.py."""

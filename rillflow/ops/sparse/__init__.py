"""SparseTensor ops (`tf.sparse`): the registry entries and public functions
(sparse_ops, sparse_array_ops, sparse_math_ops) and their NumPy kernels (sparse_kernels).
The SparseTensor type itself is in rillflow/framework/sparse_tensor.py."""

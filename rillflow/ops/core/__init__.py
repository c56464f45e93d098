"""The core ops every other family is built on: array and shape manipulation
(array_ops), elementwise arithmetic and comparison (math_ops), one-tensor math
(unary_ops), reductions, scans and segment ops (reduction_ops), tensors made from sizes
(creation_ops), indexing (slicing), scatter/split/pad (scatter_ops), sorting, binning,
partitioning and bitcasts, the shared op-definition helpers (op_util) and the Python
operators installed on tf.Tensor (tensor_operators)."""

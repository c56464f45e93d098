"""The core ops every other family is built on: array and shape manipulation
(array_ops), elementwise arithmetic and comparison (math_ops), one-tensor math
(unary_ops), reductions, scans and segment ops (reduction_ops), tensors made from sizes
(creation_ops), indexing (slicing), scatter/split/pad (scatter_ops), sorting, binning,
partitioning and bitcasts, and the shared op-definition helpers (op_util). The Python
operators of tf.Tensor are installed by rillflow/ops/tensor_operators.py, above every
family."""

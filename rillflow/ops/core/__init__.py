"""The core ops every other family is built on: the array ops, that is identity and
shapes (shape_ops), tensors of given values (constant_ops), stack, unstack and concat
(join_ops), expand_dims, squeeze and transpose (dim_ops), tile, broadcasting and where
(broadcast_ops), with their argument helpers (array_util); elementwise arithmetic and
comparison (math_ops), one-tensor math (unary_ops), special functions, complex parts and
atan2/xlogy/xdivy (special_math_ops), erfinv, ndtri, the Bessel functions and the other Cephes
functions of tf.math.special, and nextafter (special_functions), clipping (clip_ops), reductions over axes and
argmax/argmin (reduction_ops), scans (scan_ops), segment reductions and bincount
(segment_ops), add_n (add_n_ops), with the reductions' shared helpers (reduction_util),
tensors made from sizes (creation_ops), getitem, strided_slice and slice (slicing),
gather, gather_nd, boolean_mask and reverse (gather_ops), scatter_nd and
tensor_scatter_nd_* (scatter_ops), split and pad (split_pad_ops), repeat, unique and roll
(repeat_unique_roll_ops), sorting, binning, partitioning, bitcasts and bit shifts (shift_ops), and the shared
op-definition helpers (op_util). The Python operators of tf.Tensor are installed by
rillflow/ops/tensor_operators.py, above every family."""

"""`tf.experimental.numpy` (tnp): NumPy's API on rillflow tensors, ported
from TensorFlow's numpy_ops and built on the public ops, so every function
works eagerly, in graphs and under a GradientTape.

np_dtypes: the dtype names, NumPy's promotion with TensorFlow's switches
(prefer_float32, the dtype conversion mode), result_type, finfo, iinfo;
np_utils: the docstrings and the evaluate-if-known helpers (`cond`);
np_array_core: array/asarray, the creation functions, promotion of
arguments, reshape/transpose/moveaxis/atleast_*d; np_math_unary: the
one-array elementwise functions, rounding, complex parts, diff;
np_array_manip: joining, splitting, tiling, padding, flipping, diagonals and
triangles, shape queries; np_indexing: take, where, select, nonzero and
NumPy-style `__getitem__`; np_reductions: sums, means, extrema, variance,
scans, sorting; np_math_binary: arithmetic, comparisons, logical and bitwise
functions, clip, gcd; np_linalg: dot, matmul, tensordot, einsum, cross,
kron, trace; np_spacing: linspace, logspace, geomspace; np_random:
`tnp.random`; np_behavior: `experimental_enable_numpy_behavior` and the
Tensor methods it adds; np_weak: the "safe"/"all" dtype conversion modes
(WeakTensor, TensorFlow's promotion lattice, the wrappers), with their table
np_weak_table, generated from TensorFlow by tools/gen_weak_table.py."""

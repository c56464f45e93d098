"""Linear algebra (`tf.linalg`, `tf.matmul`, `tf.einsum`, `tf.tensordot`, norms):
matrix products, decompositions, solvers and their gradients.

Modules, each importing only those listed before it:

- `linalg_util`: the dtype sets and helpers the others share (registers no op).
- `eigen_solvers`: NumPy versions of the Eigen arithmetic and triangular solve behind
  TensorFlow's kernels, with its flush-to-zero (registers no op); `eigen_decompositions`:
  its LU (and determinants from it) and Cholesky factorizations, on those (registers no op).
- `matmul_ops`: `matmul`, `matvec` and `cross`, the products with a kernel of their own.
- `structure_ops`: diagonals (`diag`, `diag_part`, `set_diag`), `trace`, `band_part`,
  `matrix_transpose`, `adjoint`.
- `einsum_ops`: `einsum` and `tensordot`.
- `solve_ops`: `inv`, `det`, `slogdet`, `solve`, `triangular_solve`.
- `decomposition_ops`: `cholesky`, `logdet`, `qr`, `svd`, and `matrix_rank` and `pinv` from the SVD.
- `norm_ops`: `norm` and `l2_normalize`.
- `eig_ops`: `eig`, `eigvals` (Eig), `eigh`, `eigvalsh` (SelfAdjointEigV2).
- `lu_ops`: `lu` (Lu) and `lu_solve`, `lu_matrix_inverse`, `lu_reconstruct` built on it.
- `matrix_functions`: `expm` (composed), `sqrtm` (MatrixSquareRoot), `logm` (MatrixLogarithm).
- `linalg_extra_ops`: `cholesky_solve`, `tensor_diag`/`tensor_diag_part` (Diag, DiagPart),
  `normalize`, `lstsq` (MatrixSolveLs), `tridiagonal_matmul`, `tridiagonal_solve`
  (TridiagonalSolve), `banded_triangular_solve`, `eigh_tridiagonal`.
- The `tf.linalg.LinearOperator` family (imported after the signal and debugging ops, which
  they use): `linear_operator_spec` (the composite spec), `linear_operator` (the base class),
  `linear_operator_basic`, `linear_operator_wrappers`, `linear_operator_block`,
  `linear_operator_structured` (the operators), `conjugate_gradient`.
"""

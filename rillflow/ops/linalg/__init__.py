"""Linear algebra (`tf.linalg`, `tf.matmul`, `tf.einsum`, `tf.tensordot`, norms):
matrix products, decompositions, solvers and their gradients."""

"""Mutable state: `tf.Variable` (variables), row and slice updates of variables
(scatter_variable_ops, variable_slicing) and `tf.Module` (module)."""

"""Mutable state: `tf.Variable` (variables), row and slice updates of variables
(scatter_variable_ops, variable_slicing) `tf.Module` (module), `tf.variable_creator_scope` (variable_creator) and
`tf.train.ExponentialMovingAverage` (moving_averages)."""

"""Random ops: TensorFlow's seeding rules and the generators the ops draw from (seeding),
the stateful ops of `tf.random` (stateful_ops), the stateless ops (stateless_ops) and
`tf.random.Generator` (generator); random_util holds what they share (argument checks, shape
functions, samplers)."""

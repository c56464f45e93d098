"""Random ops (`tf.random`, the stateless ops, `tf.random.Generator`) and
TensorFlow's seeding rules."""

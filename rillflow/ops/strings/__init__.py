"""String ops (`tf.strings`) on tensors of Python bytes."""

"""`tf.RaggedTensor` and `tf.ragged`: rows of different lengths."""

"""Neural-network ops (`tf.nn`): activations, softmax and cross entropies,
normalization, dropout and embeddings (nn_ops), convolution and pooling with their
gradient ops (conv_ops)."""

"""Neural-network ops (`tf.nn`): activations (activations), softmax and the cross-entropy
losses (softmax_losses), bias_add and l2_loss (layer_ops), moments and batch normalization
(normalization), fused batch normalization and its gradient op (batch_norm_ops), dropout, embedding lookup, crelu and zero_fraction (dropout_embedding),
embedding lookups combined over SparseTensor rows (embedding_sparse),
2-D convolution, depthwise convolution and pooling with their gradient ops (conv_ops), the
N-D convolution geometry and im2col (conv_geometry), Winograd F(2x2, 3x3) for large 3x3
stride-1 layers and their gradients (winograd), Conv3D, transposed and dispatching
convolutions (conv_nd_ops), 3-D pooling, max_pool_with_argmax and tf.nn.pool (pool_nd_ops),
space_to_batch_nd, batch_to_space and with_space_to_batch (space_batch_ops), dilation2d/
erosion2d, lrn, batch_norm_with_global_normalization and approx_top_k (nn_extra_ops),
the N-D pooling kernels (pool_kernels) and their compiled loops under the jit extra (jit_nn loads jit_nn_loops, and jit_winograd: winograd's tile transforms);
reverse_sequence, depth_to_space and space_to_depth (rearrange_ops); the CTC losses, decoders and
label helpers (ctc_ops) with their kernels (ctc_kernels: the losses; ctc_beam_search: TensorFlow's
prefix beam search and its TopN); the XLA lowerings of the convolution and pooling ops
(conv_lowering) and of the dense-label CTC loss (ctc_lowering); nce_loss and sampled_softmax_loss
(sampled_losses); tf.conv, the V2 conv2d backprops and extract_volume_patches (conv_extras);
fractional max/avg pooling (fractional_pool); isotonic_regression (isotonic_ops); the
RNN cell wrappers (rnn_cell_wrappers); nn_util holds what the modules share."""

"""`tf.RaggedTensor` and `tf.ragged`: rows of different lengths.

- `ragged_tensor`: the class: row-partition constructors with TensorFlow's
  validation, accessors, `to_list` / `numpy` / printing, the composite protocol.
- `ragged_spec`: `tf.RaggedTensorSpec` (trace keys, tf.data batching).
- `ragged_factory`: `tf.ragged.constant`.
- `ragged_conversion`: `from_tensor`, `to_tensor`, `from_sparse`, `to_sparse`.
- `ragged_getitem`: `rt[...]` and the ragged row gather.
- `ragged_math_ops`: elementwise ops with ragged/dense broadcasting,
  reductions, `tf.ragged.map_flat_values`, the Python operators.
- `ragged_array_ops`: concat, stack, gather, where, boolean_mask,
  `tf.ragged.range`, segment ids <-> row splits, `stack_dynamic_partitions`.
- `ragged_tile`: `tf.tile` of a RaggedTensor.
- `ragged_gather`: `tf.gather` on any axis and with batch dimensions.
- `ragged_map_fn`: `tf.map_fn` over the rows of a RaggedTensor.
- `dynamic_ragged_shape`: `tf.experimental.RowPartition` and
  `tf.experimental.DynamicRaggedShape` (what `tf.shape(rt)` returns).
- `ragged_dispatch`: the public `tf.*` functions that take ragged
  arguments, routed to the two modules above (until the dispatch module).
"""

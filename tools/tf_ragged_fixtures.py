"""Regenerates tests/data/ragged_tf.json: the repr (or exception class and
message) TensorFlow 2.21 gives for each ragged expression in CASES, which
tests/test_ragged_parity.py evaluates with rillflow and compares.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_ragged_fixtures.py
"""
import json
import os
import sys

SETUP = """
rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
rf = tf.ragged.constant([[3., 1, 4, 1], [], [5, 9, 2], [6], []])
r2 = tf.ragged.constant([[1, 2], [3], [4, 5, 6], [], [7]])
r3 = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6, 7]]])
rd = tf.ragged.constant([[[1., 2.], [3., 4.]], [[5., 6.]]], ragged_rank=1)
ru = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2)
"""

CASES = [
    'tf.RaggedTensor.from_row_splits([1,2,3], [0,2,4])',
    'tf.RaggedTensor.from_row_splits([1,2,3], [1,2,3])',
    'tf.RaggedTensor.from_row_splits([1,2,3], [0,3,2])',
    'tf.RaggedTensor.from_row_splits([1,2,3], [[0,3]])',
    'tf.RaggedTensor.from_row_splits([1,2,3], [])',
    'tf.RaggedTensor.from_row_lengths([1,2,3], [1,1])',
    'tf.RaggedTensor.from_row_lengths([1,2,3], [4,-1])',
    'tf.RaggedTensor.from_value_rowids([1,2,3], [0,2,1])',
    'tf.RaggedTensor.from_value_rowids([1,2,3], [0,1])',
    'tf.RaggedTensor.from_value_rowids([1,2,3], [0,1,5], nrows=3)',
    'tf.RaggedTensor.from_value_rowids([1,2,3], [-1,1,1], nrows=3)',
    'tf.RaggedTensor.from_value_rowids([1,2,3], [0,1,1], nrows=5)',
    'tf.RaggedTensor.from_row_starts([1,2,3], [0,1])',
    'tf.RaggedTensor.from_row_starts([1,2,3], [1,1])',
    'tf.RaggedTensor.from_row_limits([1,2,3], [1,3])',
    'tf.RaggedTensor.from_row_limits([1,2,3], [1,2])',
    'tf.RaggedTensor.from_uniform_row_length([1,2,3,4,5,6], 2)',
    'tf.RaggedTensor.from_uniform_row_length([1,2,3,4,5], 2)',
    'tf.RaggedTensor.from_uniform_row_length([1,2,3,4,5,6], 2).uniform_row_length',
    'tf.RaggedTensor.from_uniform_row_length([1,2,3,4,5,6], 2).shape',
    'tf.RaggedTensor.from_uniform_row_length(tf.RaggedTensor.from_row_lengths([1,2,3,4,5,6],[1,2,3,0]), 2)',
    'tf.RaggedTensor.from_tensor([[1,0,0],[2,3,0]], padding=0)',
    'tf.RaggedTensor.from_tensor([[1,0,0],[2,3,0]], lengths=[1,3])',
    'tf.RaggedTensor.from_tensor([[[1,0],[0,0]],[[2,3],[4,0]]], ragged_rank=2, padding=0)',
    'tf.RaggedTensor.from_tensor([[[1,0],[0,0]],[[2,3],[4,0]]], ragged_rank=2)',
    'tf.RaggedTensor.from_tensor([[1,0,0],[2,3,0]])',
    'tf.RaggedTensor.from_tensor([[1,0,0],[2,3,0]], padding=0, lengths=[1,2])',
    'tf.RaggedTensor.from_nested_row_splits([1,2,3,4], ([0,2,3],[0,1,3,4]))',
    'tf.RaggedTensor.from_nested_row_lengths([1,2,3,4], ([2,1],[1,2,1]))',
    'tf.RaggedTensor.from_nested_value_rowids([1,2,3,4], ([0,0,1],[0,1,1,2]))',
    'tf.RaggedTensor.from_nested_value_rowids([1,2,3,4], ([0,0,1],[0,1,1,2]), nested_nrows=[3,3])',
    'tf.RaggedTensor.from_sparse(tf.SparseTensor([[0,0],[0,1],[2,0]],[1,2,3],[3,4]))',
    'tf.RaggedTensor.from_sparse(tf.SparseTensor([[0,1],[2,0]],[1,3],[3,4]))',
    'rt[1:]',
    'rt[:, :2]',
    'rt[:, -1]',
    'rt[0, 1]',
    'rt[2, -1]',
    'rt[::2]',
    'rt[:, ::-1]',
    'rt[..., 0]',
    'rt[..., :1]',
    'rt[5]',
    'rt[:, 1:]',
    'rt[-2:, 1:]',
    'rt[:, tf.newaxis]',
    'rt[tf.newaxis]',
    'r3[:, :, 0]',
    'r3[:, 1, :]',
    'r3[:, 1:, :1]',
    'r3[1, 2, 1]',
    'rt.to_tensor(default_value=-1, shape=[3,2])',
    'rt.to_tensor(shape=[None,6])',
    'r3.to_tensor()',
    'r3.row_lengths(axis=2)',
    'r3.merge_dims(1,2)',
    'r3.merge_dims(0,1)',
    'r3.merge_dims(0,-1)',
    'rt.with_values(rt.values*2)',
    'r3.with_flat_values(r3.flat_values*2)',
    'r3.bounding_shape()',
    'r3.nested_row_lengths()',
    'rt.bounding_shape(axis=1)',
    'tf.RaggedTensorSpec([2,None],tf.int32)',
    'rt._type_spec',
    'tf.RaggedTensor.from_row_splits(tf.constant([1,2]), tf.constant([0,2],tf.int32))',
    'tf.RaggedTensor.from_row_splits(tf.RaggedTensor.from_row_splits([1,2],[0,2]), tf.constant([0,1],tf.int32))',
    'tf.ragged.constant([[1.5,2],[3]])',
    'tf.ragged.constant([["a","bc"],[]])',
    'str(tf.ragged.constant([["a","bc"],[]]))',
    'tf.ragged.constant([[[1.,2.],[3.,4.]],[[5.,6.]]], ragged_rank=1)',
    'tf.ragged.constant([list(range(i)) for i in range(60)])',
    'str(tf.ragged.constant([list(range(40)),[1]]))',
    'tf.RaggedTensor.from_row_splits([1,2,3,4,5,6,7], [0,3,2,1,0,-1,7])',
    'tf.RaggedTensor.from_row_lengths([1,2,3], [4,-1,-2,-3,-5, 0])',
    'tf.RaggedTensor.from_row_splits([[1,2],[3,4]], [0,1,2])',
    'tf.RaggedTensor.from_row_splits(tf.constant([[1,2],[3,4]]), [0,1,2]).shape',
    'tf.RaggedTensor.from_row_splits([1,2,3], tf.constant([0,1,3],tf.int32)).row_splits',
    'tf.RaggedTensor.from_row_splits([1,2,3], [0.,1,3])',
    'rt.row_lengths(axis=0)',
    'rt.row_lengths(axis=2)',
    'rt.bounding_shape(out_type=tf.int32)',
    'rt.to_tensor(default_value=[1])',
    'rt.merge_dims(0,1)',
    'rt.merge_dims(1,1)',
    'rt.values.dtype',
    'tf.RaggedTensor.from_row_lengths([1,2,3],[2,1]).row_splits',
    'str(tf.RaggedTensor.from_row_lengths([1.5,2,3],[2,1]))',
    'tf.RaggedTensorSpec(shape=[None,None,3], dtype=tf.float32, ragged_rank=1, row_splits_dtype=tf.int32)',
    'tf.RaggedTensorSpec([2,None],tf.int32).flat_values_spec',
    'rt.get_shape()',
    'tf.ragged.constant([[1,2],[3]]).with_row_splits_dtype(tf.int32).row_splits',
    'rt + tf.ragged.constant([[1,2],[3]])',
    'rt + tf.ragged.constant([[1,2,3,4],[3],[1,1,1],[1],[]])',
    'rt + 1',
    '2 * rt',
    'rt + [[1],[2],[3],[4],[5]]',
    'rt + tf.constant([[1],[2],[3],[4],[5]])',
    'rt + [1,2]',
    'rf / 2',
    'rt / 2',
    'rt // 2',
    '-rt',
    'rt > 2',
    'rt == 2',
    'tf.ragged.constant([[1,2],[3,4]]) + tf.constant([[10,20],[30,40]])',
    'tf.math.sqrt(rf)',
    'tf.abs(-rt)',
    'tf.cast(rt, tf.float32)',
    'tf.maximum(rt, 3)',
    'tf.add(rt, rt)',
    'tf.reduce_any(rt > 3, axis=1)',
    'tf.reduce_all(rt > 3, axis=1)',
    'tf.reduce_any(rt > 3, axis=0)',
    'tf.reduce_sum(rt, axis=1, keepdims=True)',
    'tf.reduce_sum(rt, axis=[0,1])',
    'rd + [1., 2.]',
    'rd * tf.constant([[[2.]],[[3.]]])',
    'tf.ragged.map_flat_values(tf.ones_like, rt)',
    'tf.ragged.map_flat_values(tf.add, rt, 1)',
    'tf.ragged.map_flat_values(tf.add, rt, rt)',
    'tf.ragged.map_flat_values(tf.add, rt, tf.ragged.constant([[1]]))',
    'tf.reduce_mean(tf.ragged.constant([[1,2],[3]]), axis=1)',
    'tf.math.reduce_std(rf, axis=1)',
    'tf.math.reduce_variance(rf, axis=1)',
    'tf.size(rt)',
    'tf.rank(rt)',
    'tf.ones_like(rt)',
    'tf.zeros_like(rt)',
    'tf.strings.length(tf.ragged.constant([["ab","c"],[]]))',
    'tf.ragged.range([3, 5, 2])',
    'tf.ragged.range([0, 5, 8], [3, 3, 12])',
    'tf.ragged.range([0, 5, 8], [3, 3, 12], 2)',
    'tf.ragged.range(3, [0, 5, 8], -1)',
    'tf.ragged.range([0.5, 1], 3, 0.75)',
    'tf.ragged.segment_ids_to_row_splits([0, 0, 1, 3])',
    'tf.ragged.segment_ids_to_row_splits(tf.constant([0, 0, 1, 3], tf.int32))',
    'tf.ragged.segment_ids_to_row_splits([0, 0, 1, 3], num_segments=6)',
    'tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5])',
    'tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 2, 5], tf.int32))',
    "tf.ragged.stack_dynamic_partitions(['a','b','c','d','e'], [3, 0, 3, 2, 0], 4)",
    'tf.ragged.stack_dynamic_partitions([1,2,3], [0, 1, 0], 3)',
    'tf.ragged.boolean_mask([1,2,3], [True, False, True])',
    'tf.ragged.boolean_mask([[1,2,3],[4,5,6]], [[True, False, True],[False,False,True]])',
    'tf.ragged.boolean_mask(rt, rt > 2)',
    'tf.ragged.boolean_mask(rt, [True, False, True, True, False])',
    'tf.ragged.boolean_mask(tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6, 7]]]), tf.ragged.constant([[True, False], [True, True, False]]))',
    'tf.concat([rt, r2], axis=0)',
    'tf.concat([rt, r2], axis=1)',
    'tf.concat([rt, [[1],[2],[3],[4],[5]]], axis=1)',
    'tf.concat([rt, tf.ragged.constant([[1]])], axis=1)',
    'tf.stack([rt, r2], axis=0)',
    'tf.stack([rt, r2], axis=1)',
    'tf.gather(rt, [2, 0])',
    'tf.gather(rt, [[2, 0], [1, 1]])',
    'tf.gather(rt, tf.ragged.constant([[2, 0], [], [4]]))',
    'tf.gather([10, 20, 30], tf.ragged.constant([[2, 0], [], [1]]))',
    'tf.where(rt > 3, rt, -rt)',
    'tf.where(rt > 3)',
    'tf.where(rt > 3, rt, 0)',
    'tf.ragged.stack([rt, r2])',
    'tf.ragged.stack([[1,2],[3,4]])',
    'tf.ragged.stack([rt, r2], axis=1)',
    'tf.expand_dims(rt, 0)',
    'tf.expand_dims(rt, 1)',
    'tf.expand_dims(rt, 2)',
    'tf.expand_dims(rt, 1).shape',
    'tf.ragged.constant([[1,2],[3]]).to_tensor().shape',
    'tf.strings.split(tf.ragged.constant([["a b", "c"], ["d e f"]]))',
    'tf.strings.upper(tf.ragged.constant([["ab","c"],[]]))',
    'tf.size(rt, out_type=tf.int64)',
    'tf.ragged.constant([["a b"]]).shape',
    # tf.tile of ragged rank 1 and 2, zero multiples, uniform inner dimensions
    'tf.tile(rt, [1, 2])',
    'tf.tile(rt, [2, 3])',
    'tf.tile(rt, [0, 2])',
    'tf.tile(r3, [2, 1, 2])',
    'tf.tile(r3, [1, 3, 2])',
    'tf.tile(r3, [2, 2, 0])',
    'tf.tile(rd, [2, 2, 3])',
    'tf.function(lambda x: tf.tile(x, [2, 3]))(rt)',
    'tf.strings.substr(tf.ragged.constant([["So", "long"], ["thanks", "for"]]), 0, 2)',
    'tf.strings.to_hash_bucket_fast(tf.ragged.constant([["Who", "is"], [], ["Dan"]]), 1024)',
    'tf.nn.embedding_lookup([[1., 2.], [3., 4.], [5., 6.]], tf.ragged.constant([[2, 0], [], [1]]))',
]


def evaluate(tf, case, env):
    """repr of the value of `case`, or 'ExceptionClass: message'."""
    try:
        return repr(eval(case, env))
    except Exception as e:  # noqa: BLE001 (the exception is the recorded result)
        return f"{type(e).__name__}: {e}"


def run(tf):
    """{case: result} for every case."""
    env = {"tf": tf}
    exec(SETUP, env)
    return {c: evaluate(tf, c, env) for c in CASES}


if __name__ == "__main__":
    import tensorflow as tf
    out = run(tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                        "ragged_tf.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    sys.stdout.write(f"{len(out)} cases written to {path}\n")

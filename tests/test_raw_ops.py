"""`tf.raw_ops`: every registered op TensorFlow has, called as TensorFlow calls
it (ops/raw_ops.py), and the raw ops Keras calls.

The cases live in tools/tf_raw_ops_fixtures.py, which recorded TensorFlow
2.21's results and errors into tests/data/tf_raw_ops.npz; here each case
runs with rillflow and must give TensorFlow's structure, dtypes, shapes and
values, or its exception class and message.
"""
import os
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import op_registry
from rillflow.ops import raw_ops
from rillflow.ops.raw_op_table import TABLE

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_raw_ops_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_raw_ops.npz"))

# Registered ops TensorFlow does not have (rillflow's own gradient helpers
# and fused ops), or has under no `tf.raw_ops` name.
_NOT_IN_TENSORFLOW = {
    "CTCLossDense", "DenseToRaggedDataset", "ExtractImagePatchesGrad", "ExtractVolumePatchesGrad",
    "FractionalAvgPoolMean", "FractionalMaxPoolGradGrad", "IsotonicSegmentMean", "GatherNdGrad", "GatherV2Grad",
    "InitializeVariableOnce", "ReplicaAllReduce", "ReplicaId", "ReplicatedRun", "Repeat", "SparseDenseScaledIndices", "SparseReducedShape",
    "SparseReorderPermutation", "SparseSoftmaxGrad", "TensorListAddN", "TensorListFillZeros",
    "TensorListGatherOrZeros", "TensorListGetItemOrZeros", "TensorListMaybeZero",
    "TensorListStackOrZeros", "TensorListZerosLike"}


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_the_table_covers_the_registry():
    missing = sorted(set(op_registry.REGISTRY) - set(TABLE) - _NOT_IN_TENSORFLOW)
    assert not missing, ("ops without TensorFlow's calling convention: rerun "
                         f"tools/gen_raw_op_table.py with TensorFlow ({missing})")


def test_every_exposed_op_is_a_keyword_only_function():
    exposed = raw_ops.exposed()
    assert len(exposed) > 300
    for name in exposed:
        fn = getattr(tf.raw_ops, name)
        assert fn.__name__ == TABLE[name][0]
        with pytest.raises(TypeError, match="only takes keyword args"):
            fn(1)


def test_ops_with_opaque_inputs_are_not_exposed():
    # Function attrs need TensorFlow's function library; rillflow's tensor-list
    # kernels take their element shape as an attr, so hand-written functions
    # (not the generic ones) export them, as they do the function calls.
    for name in ("TensorListLength", "TensorListReserve", "While", "If"):
        assert name not in raw_ops.exposed()
    for name in ("While", "If", "Case", "StatelessWhile", "MapDataset"):
        assert name not in raw_ops.covered()
    for name in raw_ops.HAND_WRITTEN:
        assert name in raw_ops.covered()
        fn = getattr(tf.raw_ops, name)
        assert fn.__name__ == TABLE[name][0] and fn.__doc__
        with pytest.raises(TypeError, match="only takes keyword args"):
            fn(1)
    assert len(raw_ops.covered()) == 589


def test_ops_on_variant_tensors_take_them_as_tensorflow_does():
    # Values recorded from TensorFlow 2.21 (the same calls there).
    v = tf.data.Dataset.range(6)._variant_tensor
    take = tf.raw_ops.TakeDataset(input_dataset=v, count=2, output_types=[tf.int64],
                                  output_shapes=[[]])
    assert int(tf.raw_ops.DatasetCardinality(input_dataset=take)) == 2
    both = tf.raw_ops.ConcatenateDataset(input_dataset=v, another_dataset=v,
                                         output_types=[tf.int64], output_shapes=[[]])
    assert int(tf.raw_ops.DatasetCardinality(input_dataset=both)) == 12
    batched = tf.raw_ops.BatchDatasetV2(input_dataset=v, batch_size=6, drop_remainder=False,
                                        output_types=[tf.int64], output_shapes=[[None]])
    (whole,) = tf.raw_ops.DatasetToSingleElement(dataset=batched, output_types=[tf.int64],
                                                 output_shapes=[[None]])
    np.testing.assert_array_equal(whole.numpy(), np.arange(6))
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype variant"):
        tf.raw_ops.DatasetCardinality(input_dataset=3)


def test_ops_on_resource_handles():
    v = tf.Variable([1.0, 2.0])
    np.testing.assert_array_equal(
        tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=tf.float32).numpy(), [1.0, 2.0])
    tf.raw_ops.AssignAddVariableOp(resource=v.handle, value=[1.0, 1.0])
    tf.raw_ops.ResourceScatterAdd(resource=v.handle, indices=[1], updates=[10.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 13.0])
    # TensorFlow's messages (recorded from 2.21).
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to read variable with wrong dtype. Expected int32 got float"):
        tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to assign variable with wrong dtype. Expected float got int32"):
        tf.raw_ops.AssignVariableOp(resource=v.handle, value=[1, 2])
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype resource"):
        tf.raw_ops.ReadVariableOp(resource=3, dtype=tf.float32)
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1)
    found = tf.raw_ops.LookupTableFindV2(table_handle=table.resource_handle, keys=["a", "c"],
                                         default_value=-1)
    np.testing.assert_array_equal(found.numpy(), [1, -1])


def test_unsupported_attr_value_is_an_error():
    # MaxPool's kernel has no explicit padding: any value but the default fails.
    x = np.zeros([1, 2, 2, 1], np.float32)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.raw_ops.MaxPool(input=x, ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                           padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0])


# --- tensor lists (control_flow/list_raw_ops.py) -------------------------------------
# Expected values and messages recorded from TensorFlow 2.21 running the same calls.

def test_tensor_list_raw_ops_eager():
    R = tf.raw_ops
    lst = R.TensorListReserve(element_shape=[2], num_elements=3, element_dtype=tf.float32)
    assert lst.dtype == tf.variant and lst.shape == []
    lst = R.TensorListSetItem(input_handle=lst, index=1, item=[1.0, 2.0])
    length = R.TensorListLength(input_handle=lst)
    assert length.dtype == tf.int32 and int(length) == 3
    np.testing.assert_array_equal(
        R.TensorListGetItem(input_handle=lst, index=1, element_shape=[2],
                            element_dtype=tf.float32).numpy(), [1.0, 2.0])
    # An unwritten element reads as zeros.
    np.testing.assert_array_equal(
        R.TensorListGetItem(input_handle=lst, index=0, element_shape=[2],
                            element_dtype=tf.float32).numpy(), [0.0, 0.0])
    stacked = R.TensorListStack(input_handle=lst, element_shape=[2], element_dtype=tf.float32)
    assert stacked.dtype == tf.float32
    np.testing.assert_array_equal(stacked.numpy(), [[0, 0], [1, 2], [0, 0]])
    f = R.TensorListFromTensor(tensor=[[1, 2], [3, 4], [5, 6]], element_shape=[2])
    np.testing.assert_array_equal(
        R.TensorListGather(input_handle=f, indices=[2, 0], element_shape=[2],
                           element_dtype=tf.int32).numpy(), [[5, 6], [1, 2]])
    s = R.TensorListScatterIntoExistingList(input_handle=f, tensor=[[9, 9]], indices=[1])
    np.testing.assert_array_equal(
        R.TensorListStack(input_handle=s, element_shape=[2], element_dtype=tf.int32).numpy(),
        [[1, 2], [9, 9], [5, 6]])
    tensor, lengths = R.TensorListConcat(input_handle=f, element_dtype=tf.int32,
                                         element_shape=[2])
    np.testing.assert_array_equal(tensor.numpy(), [1, 2, 3, 4, 5, 6])
    assert lengths.dtype == tf.int64
    np.testing.assert_array_equal(lengths.numpy(), [2, 2, 2])
    sp = R.TensorListSplit(tensor=[1.0, 2.0, 3.0, 4.0], element_shape=-1, lengths=[1, 3])
    assert int(R.TensorListLength(input_handle=sp)) == 2
    np.testing.assert_array_equal(
        R.TensorListGetItem(input_handle=sp, index=1, element_shape=-1,
                            element_dtype=tf.float32).numpy(), [2.0, 3.0, 4.0])
    e = R.EmptyTensorList(element_shape=tf.constant([], tf.int32), max_num_elements=-1,
                          element_dtype=tf.float32)
    e = R.TensorListPushBack(input_handle=e, tensor=3.0)
    e = R.TensorListPushBack(input_handle=e, tensor=4.0)
    assert int(R.TensorListLength(input_handle=e)) == 2
    rest, last = R.TensorListPopBack(input_handle=e, element_shape=tf.constant([], tf.int32),
                                     element_dtype=tf.float32)
    assert float(last) == 4.0 and int(R.TensorListLength(input_handle=rest)) == 1
    grown = R.TensorListSetItem(input_handle=f, index=4, item=[1, 2],
                                resize_if_index_out_of_bounds=True)
    np.testing.assert_array_equal(
        R.TensorListStack(input_handle=grown, element_shape=[2], element_dtype=tf.int32).numpy(),
        [[1, 2], [3, 4], [5, 6], [0, 0], [1, 2]])


def test_tensor_list_raw_ops_errors():
    R = tf.raw_ops
    err = tf.errors.InvalidArgumentError
    lst = R.TensorListReserve(element_shape=[2], num_elements=3, element_dtype=tf.float32)
    lst = R.TensorListSetItem(input_handle=lst, index=1, item=[1.0, 2.0])
    with pytest.raises(err, match=r"Trying to access element 5 in a list with 3 elements\."):
        R.TensorListGetItem(input_handle=lst, index=5, element_shape=[2], element_dtype=tf.float32)
    with pytest.raises(err, match=r"Trying to access element -1 in a list with 3 elements\."):
        R.TensorListGetItem(input_handle=lst, index=-1, element_shape=[2],
                            element_dtype=tf.float32)
    with pytest.raises(err, match=r"Trying to modify element 5 in a list with 3 elements\."):
        R.TensorListSetItem(input_handle=lst, index=5, item=[1.0, 2.0])
    with pytest.raises(err, match="Invalid data types; op elements int32 but list elements float"):
        R.TensorListGetItem(input_handle=lst, index=1, element_shape=-1, element_dtype=tf.int32)
    with pytest.raises(err, match="Invalid data types; op elements int32 but list elements float"):
        R.TensorListSetItem(input_handle=lst, index=1, item=[1, 2])
    f = R.TensorListFromTensor(tensor=[[1, 2], [3, 4], [5, 6]], element_shape=[2])
    with pytest.raises(err, match="Operation expected a list with 2 elements but got a list "
                                  "with 3 elements."):
        R.TensorListStack(input_handle=f, element_shape=[2], element_dtype=tf.int32,
                          num_elements=2)
    with pytest.raises(err, match="Index 3 out o range; list only has 3 elements."):
        R.TensorListGather(input_handle=f, indices=[3], element_shape=[2], element_dtype=tf.int32)
    with pytest.raises(err, match=r"Specified a list with shape \[3\] from a tensor with "
                                  r"shape \[2\]"):
        R.TensorListFromTensor(tensor=[[1, 2], [3, 4], [5, 6]], element_shape=[3])
    with pytest.raises(err, match=r"Tensor must be at least a vector, but saw shape: \[\]"):
        R.TensorListFromTensor(tensor=5, element_shape=-1)
    with pytest.raises(err, match="Unused values in tensor. Length of tensor: 4 Values used: 3"):
        R.TensorListSplit(tensor=[1.0, 2.0, 3.0, 4.0], element_shape=-1, lengths=[1, 2])
    empty = R.EmptyTensorList(element_shape=tf.constant([], tf.int32), max_num_elements=-1,
                              element_dtype=tf.float32)
    with pytest.raises(err, match="Trying to pop from an empty list."):
        R.TensorListPopBack(input_handle=empty, element_shape=tf.constant([], tf.int32),
                            element_dtype=tf.float32)
    with pytest.raises(err, match="The num_elements to reserve must be a non negative number, "
                                  "but got -1"):
        R.TensorListReserve(element_shape=[2], num_elements=-1, element_dtype=tf.float32)
    unknown = R.TensorListReserve(element_shape=-1, num_elements=2, element_dtype=tf.float32)
    with pytest.raises(err, match="Tried to stack list which only contains uninitialized "
                                  "tensors and has a non-fully-defined element_shape: <unknown>"):
        R.TensorListStack(input_handle=unknown, element_shape=-1, element_dtype=tf.float32)
    with pytest.raises(err, match=r"element_shape is not fully defined: \[\?\] and no list "
                                  "element is set."):
        R.TensorListGetItem(input_handle=unknown, index=0, element_shape=[-1],
                            element_dtype=tf.float32)
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype variant"):
        R.TensorListLength(input_handle=3)


def test_tensor_list_raw_ops_in_tf_function():
    R = tf.raw_ops

    @tf.function
    def g(x):
        lst = R.TensorListFromTensor(tensor=x, element_shape=[2])
        lst = R.TensorListSetItem(input_handle=lst, index=0, item=[7.0, 7.0])
        lst = R.TensorListPushBack(input_handle=lst, tensor=[5.0, 5.0])
        return (R.TensorListStack(input_handle=lst, element_shape=[2], element_dtype=tf.float32),
                R.TensorListLength(input_handle=lst),
                R.TensorListGetItem(input_handle=lst, index=1, element_shape=[2],
                                    element_dtype=tf.float32))

    stacked, length, item = g(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(stacked.numpy(), [[7, 7], [3, 4], [5, 5]])
    assert int(length) == 3
    np.testing.assert_array_equal(item.numpy(), [3.0, 4.0])


# --- function calls (function/raw_call.py) ------------------------------------------------

def test_partitioned_call():
    R = tf.raw_ops

    @tf.function
    def f(x, y):
        return x * y + 1.0, x - y

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.float32))
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    for op in (R.PartitionedCall, R.StatefulPartitionedCall):
        out = op(args=[a, b], Tout=[tf.float32, tf.float32], f=cf)
        assert isinstance(out, list) and len(out) == 2
        np.testing.assert_array_equal(out[0].numpy(), [4.0, 9.0])
        np.testing.assert_array_equal(out[1].numpy(), [-2.0, -2.0])
    # TensorFlow returns one output per Tout entry.
    (only,) = R.PartitionedCall(args=[a, b], Tout=[tf.float32], f=cf)
    np.testing.assert_array_equal(only.numpy(), [4.0, 9.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input_devices length = 1 number of arguments = 2"):
        R.PartitionedCall(args=[a], Tout=[tf.float32, tf.float32], f=cf)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expects arg\[0\] to be float but int32 is provided"):
        R.PartitionedCall(args=[tf.constant([1, 2]), tf.constant([3, 4])],
                          Tout=[tf.float32, tf.float32], f=cf)

    @tf.function
    def outer(x, y):
        return R.PartitionedCall(args=[x, y], Tout=[tf.float32, tf.float32], f=cf)

    np.testing.assert_array_equal(outer(a, b)[0].numpy(), [4.0, 9.0])
    # Beyond TensorFlow (its runtime finds no function by a tf.function): a
    # tf.function's concrete function for the arguments is called.
    g = tf.function(lambda x: x * 2.0)
    np.testing.assert_array_equal(
        R.PartitionedCall(args=[a], Tout=[tf.float32], f=g)[0].numpy(), [2.0, 4.0])


def test_stateful_partitioned_call_takes_the_captured_inputs():
    v = tf.Variable(1.0)

    @tf.function
    def s(x):
        v.assign_add(x)
        return v.read_value()

    cs = s.get_concrete_function(tf.TensorSpec([], tf.float32))
    # As in TensorFlow, args hold the captured inputs after the arguments.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input_devices length = 1 number of arguments = 2"):
        tf.raw_ops.StatefulPartitionedCall(args=[tf.constant(2.0)], Tout=[tf.float32], f=cs)
    (out,) = tf.raw_ops.StatefulPartitionedCall(args=[tf.constant(2.0)] + cs.captured_inputs,
                                                Tout=[tf.float32], f=cs)
    assert float(out) == 3.0 and float(v.numpy()) == 3.0


# --- a Generator's state (random/stateful_raw_ops.py) -----------------------------------
# Values recorded from TensorFlow 2.21 (tf.random.Generator.from_seed(42), the same calls).

def test_stateful_random_raw_ops_on_a_generator_state():
    R = tf.raw_ops
    g = tf.random.Generator.from_seed(42)
    h, alg = g.state.handle, g.algorithm
    u = R.StatefulUniform(resource=h, algorithm=alg, shape=[3])
    assert u.dtype == tf.float32
    np.testing.assert_allclose(u.numpy(), [0.7493447, 0.73561966, 0.45230794], rtol=1e-6)
    np.testing.assert_array_equal(g.state.numpy(), [810, 0, 0])
    np.testing.assert_allclose(R.StatefulStandardNormalV2(resource=h, algorithm=alg, shape=[3]),
                               [-1.2469416, 0.62861687, 0.7609874], rtol=1e-6)
    np.testing.assert_allclose(R.StatefulTruncatedNormal(resource=h, algorithm=alg, shape=[3]),
                               [0.17522676, 0.71105534, 0.54882437], rtol=1e-6)
    # The raw op's integers (64-bit words per value), not Generator.uniform's.
    ints = R.StatefulUniformInt(resource=h, algorithm=alg, shape=[3], minval=0, maxval=10)
    assert ints.dtype == tf.int32
    np.testing.assert_array_equal(ints.numpy(), [5, 4, 8])
    full = R.StatefulUniformFullInt(resource=h, algorithm=alg, shape=[3], dtype=tf.int64)
    np.testing.assert_array_equal(
        full.numpy(), [5812551189176997123, 8861592896583127741, -122031930841395583])
    np.testing.assert_array_equal(g.state.numpy(), [3882, 0, 0])
    g = tf.random.Generator.from_seed(42)
    np.testing.assert_allclose(
        R.StatefulUniform(resource=g.state.handle, algorithm=1, shape=[2, 2],
                          dtype=tf.float64).numpy(),
        [[0.99475846, 0.61846381], [0.51145365, 0.98950501]], rtol=1e-7)
    g = tf.random.Generator.from_seed(42)
    assert R.StatefulUniformInt(resource=g.state.handle, algorithm=1, shape=[5], minval=-3,
                                maxval=1000).numpy().tolist() == [350, 513, 994, 487, 786]
    wide = R.StatefulUniformInt(resource=g.state.handle, algorithm=1, shape=[5],
                                minval=tf.constant(-3, tf.int64),
                                maxval=tf.constant(10**12, tf.int64))
    assert wide.dtype == tf.int64 and wide.numpy().tolist() == [
        902874500280, 993758175538, 453878915473, 805814337737, 32328229314]
    np.testing.assert_array_equal(g.state.numpy(), [2602, 0, 0])
    g = tf.random.Generator.from_seed(42)
    # Algorithm 3 (auto-select) is Philox; the default full-int dtype is uint64.
    np.testing.assert_allclose(R.StatefulUniform(resource=g.state.handle, algorithm=3,
                                                 shape=[3]).numpy(),
                               [0.7493447, 0.73561966, 0.45230794], rtol=1e-6)
    full = R.StatefulUniformFullInt(resource=g.state.handle, algorithm=1, shape=[2])
    assert full.dtype == tf.uint64
    assert full.numpy().tolist() == [11234655001243568051, 9082963999715861075]


def test_stateful_random_raw_ops_errors_and_tf_function():
    R = tf.raw_ops
    g = tf.random.Generator.from_seed(42)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported algorithm id: 5"):
        R.StatefulUniform(resource=g.state.handle, algorithm=5, shape=[3])
    with pytest.raises(tf.errors.UnimplementedError,
                       match="Non-XLA devices don't support the ThreeFry algorithm."):
        R.StatefulUniform(resource=g.state.handle, algorithm=2, shape=[3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
        R.StatefulUniformInt(resource=g.state.handle, algorithm=1, shape=[3], minval=5, maxval=5)
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="dtype of RNG state variable must be int64, not float"):
        R.StatefulUniform(resource=v.handle, algorithm=1, shape=[3])
    g = tf.random.Generator.from_seed(7)

    @tf.function
    def f():
        return R.StatefulStandardNormalV2(resource=g.state.handle, algorithm=g.algorithm,
                                          shape=[2])

    np.testing.assert_allclose(f().numpy(), [-1.3240396, 0.28785667], rtol=1e-6)
    np.testing.assert_allclose(f().numpy(), [0.43116674, -1.4442065], rtol=1e-6)
    np.testing.assert_array_equal(g.state.numpy(), [1031, 0, 0])

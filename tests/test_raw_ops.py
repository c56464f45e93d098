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
    "InitializeVariableOnce", "Repeat", "SparseDenseScaledIndices", "SparseReducedShape",
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
    # kernels take their element shape as an attr.
    for name in ("TensorListLength", "TensorListReserve", "While", "If"):
        assert name not in raw_ops.exposed()


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

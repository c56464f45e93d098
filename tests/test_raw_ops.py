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
    "CTCLossDense", "DenseToRaggedDataset", "ExtractImagePatchesGrad", "GatherNdGrad", "GatherV2Grad",
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
    # Variables, datasets and tensor lists are Python objects in rillflow.
    for name in ("ReadVariableOp", "TensorListLength", "While", "If"):
        assert name not in raw_ops.exposed()


def test_unsupported_attr_value_is_an_error():
    # MaxPool's kernel has no explicit padding: any value but the default fails.
    x = np.zeros([1, 2, 2, 1], np.float32)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.raw_ops.MaxPool(input=x, ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                           padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0])

"""RaggedTensor construction, validation errors, accessors, conversion,
indexing, printing and ragged ops against TensorFlow 2.21: each case of
tools/tf_ragged_fixtures.py, evaluated with rillflow, must give the repr
(or exception class and message) TensorFlow gave, recorded in
tests/data/ragged_tf.json."""
import json
import os
import re
import sys

import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import tf_ragged_fixtures as F  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "ragged_tf.json")) as _f:
    EXPECTED = json.load(_f)

_ENV = {"tf": tf}
exec(F.SETUP, _ENV)

# TensorFlow names its kernels' function nodes in op error messages; rillflow's
# op errors carry the rest of the message.
_NODE = re.compile(r"\{\{function_node [^}]*\}\} ")


@pytest.mark.parametrize("case", F.CASES)
def test_case(case):
    got = F.evaluate(tf, case, _ENV)
    want = _NODE.sub("", EXPECTED[case])
    assert got == want

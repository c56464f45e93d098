"""tf.saved_model.experimental: Fingerprint, read_fingerprint and
VariablePolicy against TensorFlow 2.21 (cases of tools/tf_infra_fixtures.py),
and a fingerprint.pb TensorFlow wrote (tests/data/tf_fingerprint: the file
and the variables.index of the same SavedModel, saved by TensorFlow 2.21
from a module with one variable and one function)."""
import os
import shutil
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.saved_model import fingerprint as fp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = ["fingerprint_objects", "fingerprint_singleprint_of_nones", "read_fingerprint_missing",
          "variable_policies", "variable_policy_bad"]
_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_fingerprint")


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_reads_tensorflows_fingerprint(tmp_path):
    shutil.copy(os.path.join(_DIR, "fingerprint.pb"), tmp_path / "fingerprint.pb")
    f = tf.saved_model.experimental.read_fingerprint(str(tmp_path))
    # TensorFlow's read_fingerprint of the same file gives these values.
    assert repr(f) == ("Fingerprint(13605098439138883712, 8445737094063524969, "
                       "12572367847200978387, 4594662638454777136, 10937508477605954619)")
    assert f.singleprint() == ("8445737094063524969/12572367847200978387/"
                               "4594662638454777136/10937508477605954619")
    assert f.version.producer == 4


def test_checkpoint_hash_is_tensorflows(tmp_path):
    os.makedirs(tmp_path / "variables")
    shutil.copy(os.path.join(_DIR, "variables.index"), tmp_path / "variables")
    assert fp.checkpoint_hash(str(tmp_path)) == 10937508477605954619


def test_corrupt_fingerprint_is_a_runtime_error(tmp_path):
    (tmp_path / "fingerprint.pb").write_bytes(b"\xff\xff")
    with pytest.raises(RuntimeError, match="Could not read fingerprint"):
        tf.saved_model.experimental.read_fingerprint(str(tmp_path))


def test_rillflow_saves_no_fingerprint(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    tf.saved_model.save(m, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="Could not find fingerprint"):
        tf.saved_model.experimental.read_fingerprint(str(tmp_path))

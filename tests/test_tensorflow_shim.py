"""rillflow.compat.tensorflow_shim (`import tensorflow` gives rillflow) and
tools/tf_autograph_tests.py (TensorFlow's AutoGraph reference tests runner),
each in a subprocess: both change sys.modules for good."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code, *args, cwd=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *(["-c", textwrap.dedent(code)] if code else []), *args],
                          capture_output=True, text=True, env=env, cwd=cwd or ROOT, timeout=300)


def test_import_tensorflow_gives_rillflow():
    r = _run("""
        from rillflow.compat import tensorflow_shim
        tf = tensorflow_shim.install()
        assert tensorflow_shim.install() is tf
        import rillflow
        import tensorflow
        import tensorflow.compat.v1 as tf1
        from tensorflow.python import autograph as ag
        from tensorflow.math import add
        assert tensorflow is rillflow and tf1 is rillflow.compat.v1
        assert add is rillflow.math.add
        assert ag.to_graph is rillflow.autograph.to_graph
        assert ag.set_element_type and ag.stack and ag.operators
        assert not hasattr(tensorflow, "python")   # as in TensorFlow 2.21
        try:
            import tensorflow.ops      # a rillflow package, not a TensorFlow name
        except ModuleNotFoundError as e:
            print("refused", e.name)
        print(tensorflow.constant([1, 2]) + 1)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "refused tensorflow.ops",
        "tf.Tensor([2 3], shape=(2,), dtype=int32)"]


def test_autotrackable_is_saved_and_walked_by_its_dependencies(tmp_path):
    # Keras' model.export saves a tf.__internal__.tracking.AutoTrackable with
    # functions and lists of variables assigned to it (as TensorFlow tracks).
    r = _run(f"""
        from rillflow.compat import tensorflow_shim
        tf = tensorflow_shim.install()
        root = tf.__internal__.tracking.AutoTrackable()
        root.vars = []
        root.vars.append(tf.Variable(3.0))
        root.scale = tf.function(lambda x: x * root.vars[0],
                                 input_signature=[tf.TensorSpec([], tf.float32)])
        root.note = "not state"
        root.dropped = tf.Variable(1.0)
        root.dropped = None            # still a dependency, as in TensorFlow
        print(sorted(tf.train.TrackableView.children(root)))
        tf.saved_model.save(root, {str(tmp_path)!r})
        back = tf.saved_model.load({str(tmp_path)!r})
        print(float(back.scale(tf.constant(2.0))), float(back.vars[0]))
        print(float(back.signatures["serving_default"](tf.constant(2.0))["output_0"]))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["['dropped', 'scale', 'vars']", "6.0 3.0", "6.0"]


_BASE = '''
import tensorflow as tf


class TestCase(tf.test.TestCase):

    def assertFunctionMatchesEager(self, f, *args):
        self.assertAllEqual(tf.function(f)(*args), f(*args))
'''

_TEST = '''
import unittest
import tensorflow as tf
from tensorflow.python.autograph.tests import reference_test_base


def count(n):
    s = 0
    while s < n:
        s += 1
    return s


class ReferenceTest(reference_test_base.TestCase):

    def test_loop(self):
        self.assertFunctionMatchesEager(count, tf.constant(3))

    def test_fails(self):
        self.assertEqual(tf.constant(1).numpy(), 2)

    def test_error(self):
        tf.no_such_name

    @unittest.skip("not today")
    def test_skipped(self):
        pass
'''


def test_reference_test_runner(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "reference_test_base.py").write_text(_BASE)
    (tests / "sample_test.py").write_text(_TEST)
    (tests / "broken_test.py").write_text("import tensorflow as tf\ntf.no_such_module\n")
    out = tmp_path / "out.json"
    r = _run(None, os.path.join(ROOT, "tools", "tf_autograph_tests.py"),
             "--tests", str(tests), "--json", str(out), "-j", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads(out.read_text())
    assert results["mode"] == "rillflow"
    sample = results["files"]["sample_test.py"]
    outcomes = {name: rec["outcome"] for name, rec in sample["tests"].items()}
    assert outcomes == {"ReferenceTest.test_loop": "pass", "ReferenceTest.test_fails": "fail",
                        "ReferenceTest.test_error": "error", "ReferenceTest.test_skipped": "skip"}
    assert sample["tests"]["ReferenceTest.test_error"]["message"] == (
        "AttributeError: module 'rillflow' has no attribute 'no_such_name'")
    broken = results["files"]["broken_test.py"]
    assert broken["status"] == "import_error" and "no_such_module" in broken["message"]
    assert r.stdout.splitlines()[-1].split() == ["TOTAL", "1", "1", "1", "1"]

    # --compare: tests passing in the baseline and not here.
    baseline = dict(results, files={"sample_test.py": {"status": "ok", "tests": {
        name: {"outcome": "pass"} for name in outcomes}}})
    (tmp_path / "base.json").write_text(json.dumps(baseline))
    r = _run(None, os.path.join(ROOT, "tools", "tf_autograph_tests.py"), "--tests", str(tests),
             "--from-json", str(out), "--compare", str(tmp_path / "base.json"))
    assert r.returncode == 1
    assert "== sample_test.py: 3 pass in the baseline, not here" in r.stdout
    assert "  ReferenceTest.test_fails: fail\n      AssertionError: np.int32(1) != 2" in r.stdout
    assert "3 test(s) pass in the baseline and not here" in r.stdout


def test_event_protos_and_tf_record_reader_for_tensorflow_written_tests(tmp_path):
    # Keras' TensorBoard tests read event files with TensorFlow's own event
    # proto and record reader; objects deriving tf.__internal__.types.Tensor
    # (Keras' variables) are tensors to tf.is_tensor, as in TensorFlow.
    pytest.importorskip("tensorboard")
    r = _run(f"""
        from rillflow.compat import tensorflow_shim
        tf = tensorflow_shim.install()
        from tensorflow.core.util import event_pb2
        from tensorflow.python.lib.io import tf_record
        writer = tf.summary.create_file_writer({str(tmp_path)!r})
        with writer.as_default():
            tf.summary.scalar("loss", 0.5, step=3)
        writer.close()
        import glob
        path = glob.glob({str(tmp_path)!r} + "/events.out.tfevents.*")[0]
        events = [event_pb2.Event.FromString(r) for r in tf_record.tf_record_iterator(path)]
        values = [(e.step, v.tag) for e in events for v in e.summary.value]
        print(values)

        class Wrapped(tf.__internal__.types.Tensor):
            pass
        print(tf.is_tensor(Wrapped()), tf.is_tensor(object()))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[(3, 'loss')]", "True False"]

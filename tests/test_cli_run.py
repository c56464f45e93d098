"""`rillflow run`: unmodified TensorFlow programs on rillflow, and the demo."""
import os
import subprocess
import sys
import textwrap

import pytest


def _rillflow(args, cwd, env=None):
    """Runs `python -m rillflow ARGS` in a fresh process (the shim changes
    sys.modules for good)."""
    full_env = dict(os.environ)
    full_env.pop("KERAS_BACKEND", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "rillflow", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=300)


def test_run_script_sees_tensorflow_as_rillflow_with_its_arguments(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import tensorflow as tf
        from tensorflow import math as tfm
        import helper_mod   # the script's own directory is on sys.path
        x = tf.constant([1.0, 2.0, 3.0])

        @tf.function
        def f(v):
            s = tf.constant(0.0)
            for e in v:
                if e > 1.0:
                    s += tfm.square(e)
            return s
        print(__name__, tf.__name__, sys.argv[1:], float(f(x)), helper_mod.VALUE)
        sys.exit(int(sys.argv[1]))
    """))
    (tmp_path / "helper_mod.py").write_text("VALUE = 7\n")
    out = _rillflow(["run", str(script), "3", "--flag"], cwd=tmp_path.parent)
    assert out.returncode == 3, out.stderr
    assert out.stdout.strip() == "__main__ rillflow ['3', '--flag'] 13.0 7"


def test_run_module_runs_as_main_from_the_current_directory(tmp_path):
    (tmp_path / "mymod.py").write_text(textwrap.dedent("""
        import sys
        import tensorflow as tf
        if __name__ == "__main__":
            print(tf.__name__, sys.argv[1:], tf.reduce_sum(tf.range(5)).numpy())
    """))
    out = _rillflow(["run", "-m", "mymod", "a"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "rillflow ['a'] 10"


def test_run_refuses_another_keras_backend_and_missing_files(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    out = _rillflow(["run", str(script)], cwd=tmp_path, env={"KERAS_BACKEND": "jax"})
    assert out.returncode != 0 and "ran" not in out.stdout
    assert "KERAS_BACKEND='jax'" in out.stderr
    out = _rillflow(["run", str(tmp_path / "nope.py")], cwd=tmp_path)
    assert out.returncode != 0
    assert "can't open file" in out.stderr and "nope.py" in out.stderr


def test_run_module_pytest_on_rillflow(tmp_path):
    # A test file written for TensorFlow, run with `rillflow run -m pytest`.
    (tmp_path / "test_tf_written.py").write_text(textwrap.dedent("""
        import tensorflow as tf

        def test_matmul():
            assert tf.__name__ == "rillflow"
            assert tf.linalg.matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy().tolist() == [[11.0]]
    """))
    out = _rillflow(["run", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     "test_tf_written.py"], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout


def test_demo_trains_a_model(tmp_path):
    out = _rillflow(["demo"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    losses = [float(line.split()[-1]) for line in out.stdout.splitlines()
              if line.startswith("step ")]
    assert len(losses) == 4
    assert losses == sorted(losses, reverse=True) and losses[-1] < 0.5 * losses[0]


def test_run_keras_script_written_for_tensorflow_reaches_tensorflows_losses(tmp_path):
    import importlib.util
    if importlib.util.find_spec("keras") is None:
        pytest.skip("the keras extra is not installed")
    import json
    data = os.path.join(os.path.dirname(__file__), "data")
    out = _rillflow(["run", os.path.join(data, "keras_train_script.py")], cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    with open(os.path.join(data, "keras_train_script.json")) as f:
        want = json.load(f)
    assert sorted(got) == sorted(want)
    for key in want:
        # float32 training: a few ulps apart from TensorFlow's sums, per step
        assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key

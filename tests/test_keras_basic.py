"""Keras 3 on rillflow (`tf.keras`, compat/keras_loader.py and the shim's
TensorFlow internals): a small Sequential model, with and without Dropout,
trained as on TensorFlow 2.21 (tests/data/keras_basic.json and
keras_dropout.json, from tools/keras_basic_fixture.py), and the
import guards. Each case runs in a subprocess: importing Keras fixes its
backend and changes sys.modules for good."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# Not pytest.importorskip: importing keras here would pick its backend (and
# try the real TensorFlow) in the test process; the cases import it in a child.
needs_keras = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                 reason="keras not installed (pip install rillflow[keras])")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code, **env_extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("KERAS_BACKEND", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=600)


@needs_keras
@pytest.mark.parametrize("dropout,fixture", [(False, "keras_basic.json"),
                                             (True, "keras_dropout.json")])
def test_keras_fit_evaluate_predict_match_tensorflow(dropout, fixture):
    # With dropout the losses match only if every mask is TensorFlow's
    # (tf.nn.experimental.stateless_dropout under Keras' seed generator).
    r = _run(f"""
        import json, sys
        sys.path.insert(0, "tools")
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import keras_basic_fixture
        print(json.dumps(keras_basic_fixture.run(dropout={dropout})))
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    with open(os.path.join(ROOT, "tests", "data", fixture)) as f:
        want = json.load(f)
    # Float32 training: the same ops in the same order, so within a few ulps.
    np.testing.assert_allclose(got["history"]["loss"], want["history"]["loss"], rtol=1e-5)
    assert got["history"]["accuracy"] == want["history"]["accuracy"]
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], rtol=1e-5)
    np.testing.assert_allclose(got["predict"], want["predict"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["final_kernel_0"], want["final_kernel_0"], rtol=1e-5, atol=1e-6)


@needs_keras
def test_tf_keras_attribute_loads_keras_on_rillflow():
    r = _run("""
        import rillflow as tf
        keras = tf.keras
        import tensorflow
        assert tensorflow is tf and keras.backend.backend() == "tensorflow"
        assert tf.keras is keras
        print(keras.layers.Dense(2)(tf.ones((1, 3))).shape)
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["(1,", "2)"]


@needs_keras
def test_keras_on_another_backend_is_refused():
    r = _run("""
        import sys, types
        # A stand-in for keras imported on the jax backend (no jax needed).
        keras = types.ModuleType("keras")
        keras.backend = types.SimpleNamespace(backend=lambda: "jax")
        sys.modules["keras"] = keras
        from rillflow.compat import tensorflow_shim
        try:
            tensorflow_shim.install()
        except RuntimeError as e:
            print("refused:", "'jax' backend" in str(e))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused: True"


@needs_keras
def test_keras_backend_env_other_than_tensorflow_is_refused():
    r = _run("""
        import rillflow as tf
        try:
            tf.keras
        except RuntimeError as e:
            print("refused:", "KERAS_BACKEND='jax'" in str(e))
    """, KERAS_BACKEND="jax")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused: True"


def test_tf_keras_without_keras_says_how_to_install():
    # Keras hidden from the loader's find_spec, whether installed or not.
    r = _run("""
        import importlib.util
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda n, *a: None if n == "keras" else real(n, *a)
        import rillflow as tf
        print(hasattr(tf, "keras"))
        try:
            tf.keras
        except AttributeError as e:
            print("pip install rillflow[keras]" in str(e))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "True"]


def test_real_tensorflow_already_imported_is_refused():
    r = _run("""
        import sys, types
        sys.modules["tensorflow"] = types.ModuleType("tensorflow")  # the real one, say
        from rillflow.compat import tensorflow_shim
        try:
            tensorflow_shim.install()
        except RuntimeError as e:
            print("refused:", "real TensorFlow is already imported" in str(e))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused: True"

"""Keras 3's preprocessing layers on rillflow's `tf.lookup`, sparse crosses and
string hashes (StringLookup, IntegerLookup, TextVectorization, Hashing,
HashedCrossing, CategoryEncoding): eagerly, in a functional model and inside
`tf.data.Dataset.map`, against TensorFlow 2.21's outputs
(tests/data/keras_preprocessing.json, from tools/keras_preprocessing_fixture.py).
The layers run in a subprocess with the shim installed, as in
tests/test_keras_basic.py: importing Keras fixes its backend for good."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# Not pytest.importorskip: importing keras here would pick its backend in the
# test process; the case imports it in a child.
needs_keras = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                 reason="keras not installed (pip install rillflow[keras])")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_fixture():
    code = """
        import json, sys
        sys.path.insert(0, "tools")
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import keras_preprocessing_fixture
        print(json.dumps(keras_preprocessing_fixture.run()))
    """
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               KERAS_BACKEND="tensorflow")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def outputs():
    return _run_fixture()


with open(os.path.join(ROOT, "tests", "data", "keras_preprocessing.json")) as _f:
    _WANT = json.load(_f)


def _compare(got, want, path):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _compare(got[k], want[k], f"{path}/{k}")
        return
    if got == want:
        return
    # Floats (tf_idf weights) within float32 rounding; everything else exact.
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert g.shape == w.shape, f"{path}: {got} != {want}"
    np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=path)


@needs_keras
@pytest.mark.parametrize("layer", sorted(_WANT))
def test_layers_match_tensorflow(outputs, layer):
    _compare(outputs[layer], _WANT[layer], layer)

"""The compiler against eager execution on model-shaped programs.

Every model of tests/compiler_zoo_models.py (training steps with gradients
and in-place variable updates, and inference functions) runs a few steps
eagerly and under `tf.function` -- with rillflow's optimizations and on the
plain path (one kernel call per op) -- each on copies of the same initial
variables. The outputs, the gradients and the final variable values must
agree: same dtype and shape, values within rtol 1e-5 (the compiled code runs
the same kernels, and only the reorderings docs/numerics.md allows may move
the last bits; most results are equal bit for bit).
"""

import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import fallback

from compiler_zoo_models import MODELS
from helpers import optimizations

RTOL = 1e-5
ATOL = 1e-6


def _numpy(x):
    if isinstance(x, tf.IndexedSlices):
        return ("IndexedSlices", _numpy(x.values), _numpy(x.indices))
    if isinstance(x, (list, tuple)):
        return [_numpy(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def run_model(name, mode, seed=0):
    """(outputs of each step, final variable values) of model `name` run
    `mode` ("eager", "compiled" or "plain")."""
    built = MODELS[name](np.random.RandomState(seed))
    V = {k: tf.Variable(v, name=k) for k, v in built.variables.items()}

    def call(*args):
        return built.step(V, *args)
    if mode != "eager":
        call = tf.function(call)
    outs = []
    # Strict: a pass failing must fail the test, not fall back quietly.
    with optimizations(mode != "plain"), fallback.strict():
        for args in built.inputs:
            outs.append(_numpy(call(*args)))
    return outs, {k: v.numpy() for k, v in V.items()}


def assert_same(actual, expected, where="", exact=True):
    """Equal structure, dtypes and shapes, and equal values (NaN equals NaN);
    with `exact=False` float values within RTOL/ATOL."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, "%s[%d]" % (where, i), exact)
        return
    assert isinstance(actual, np.ndarray) or np.isscalar(actual), where
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, "%s: dtype %s, eager %s" % (where, a.dtype, e.dtype)
    assert a.shape == e.shape, "%s: shape %s, eager %s" % (where, a.shape, e.shape)
    if exact or e.dtype.kind not in "fc":
        np.testing.assert_array_equal(a, e, err_msg=where)
    else:
        np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=where)


def assert_runs_agree(name, modes=("compiled", "plain")):
    """Model `name` compiled (each of `modes`) gives what it gives eagerly."""
    expected_outs, expected_vars = run_model(name, "eager")
    for mode in modes:
        outs, variables = run_model(name, mode)
        assert_same(outs, expected_outs, "%s %s outputs" % (name, mode))
        assert sorted(variables) == sorted(expected_vars)
        for k in expected_vars:
            assert_same(variables[k], expected_vars[k], "%s %s variable %s" % (name, mode, k))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiled_model_matches_eager(name):
    assert_runs_agree(name)


def test_models_train():
    """The zoo's training steps change their variables (the comparison above
    would pass vacuously on steps that updated nothing)."""
    for name in ("mlp", "attention", "cnn", "lstm_while", "embedding_pool"):
        built = MODELS[name](np.random.RandomState(0))
        _, final = run_model(name, "compiled")
        changed = [k for k, v in built.variables.items() if not np.array_equal(final[k], v)]
        assert changed, name

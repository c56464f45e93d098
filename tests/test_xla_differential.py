"""The XLA lowering (`jit_compile=True`) against eager execution.

Every model of tests/compiler_zoo_models.py (training steps with gradients,
loops, conditionals, TensorArrays, variable updates) and the random op DAGs
of tests/compiler_dag_programs.py run eagerly and as one XLA computation
through JAX. Results must agree within float tolerance: XLA's elementwise
functions are not TensorFlow's bit for bit (its tanh, exp, sin... differ in
the last bits) and it may reorder sums, so float values are compared with a
relative tolerance; integer and boolean values, dtypes and shapes exactly.
"""
import importlib.util

import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import context

import compiler_dag_check as chk
import compiler_dag_programs as dag
import test_compiler_zoo as zoo
from compiler_zoo_models import MODELS

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                                reason="needs JAX (the xla extra)")

RTOL = 1e-4
ATOL = 1e-5


def _run_model_xla(name, seed=0):
    built = MODELS[name](np.random.RandomState(seed))
    V = {k: tf.Variable(v, name=k) for k, v in built.variables.items()}
    call = tf.function(lambda *args: built.step(V, *args), jit_compile=True)
    outs = [zoo._numpy(call(*args)) for args in built.inputs]
    return outs, {k: v.numpy() for k, v in V.items()}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_model_lowered_to_xla_matches_eager(name, monkeypatch):
    expected_outs, expected_vars = zoo.run_model(name, "eager")
    outs, variables = _run_model_xla(name)
    monkeypatch.setattr(zoo, "RTOL", RTOL)
    monkeypatch.setattr(zoo, "ATOL", ATOL)
    zoo.assert_same(outs, expected_outs, "%s xla outputs" % name, exact=False)
    for k in expected_vars:
        zoo.assert_same(variables[k], expected_vars[k], "%s xla variable %s" % (name, k),
                        exact=False)


# --- random op DAGs ------------------------------------------------------------------

SEEDS = range(0, 160)
# Programs whose float results amplify rounding differences beyond any fixed
# tolerance (XLA's and TensorFlow's libm differ in the last bits), each
# checked by hand to be that and not a lowering error.
# Where TensorFlow's own eager kernel and XLA differ (checked on TensorFlow
# 2.21 eagerly and with jit_compile=True): rillflow's eager results are
# TensorFlow's eager ones, its compiled ones XLA's.
EAGER_IS_NOT_XLA = {
    69: "reciprocal: the eager kernel is the rcpps estimate and a Newton step "
        "(1 / 1 = 0.99999994), XLA's a division (1.0); t*t >= t compares them",
    10: "selu's gradient where selu(erf(0)) = 0: TensorFlow's XLA kernel selects on "
        "output > 0 (g * scale_alpha), its CPU kernel on output < 0 (g * scale)",
    49: "xdivy(-0, y): TensorFlow's CPU packets give x itself (-0), its XLA kernel "
        "selects the constant +0; v / xdivy(...) is then -inf against +inf",
}

NUMERICALLY_UNSTABLE = {
    105: "a sum of ~1e8 terms that cancel (v / v2 for tiny v2) moves by 1e-3 relatively",
    130: "log(tan(x)) and its gradient at |x| ~ 1e3, where float32 tan's range "
         "reduction decides the value",
}


def run_xla(program):
    """('ok', [arrays...]) or ('error', class name, message): `chk.run`'s
    outcome for `program` under `tf.function(jit_compile=True)`."""
    fn = program.function(tf)
    V = [tf.Variable(v) for v in program.variables]
    inputs = [tf.constant(a) for a in program.inputs]
    call = tf.function(lambda *args: fn(V, *args), jit_compile=True)
    results = []
    try:
        for _ in range(chk.CALLS):
            results.extend(chk._numpy(r) for r in call(*inputs))
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return ("error", type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
    finally:
        context.state.graph = None
        context.state.tapes = []
    results.extend(v.numpy() for v in V)
    return ("ok", results)


def _close(a, e):
    """None when arrays agree (floats within tolerance, scaled to the
    output's magnitude), else a description."""
    if (a is None) != (e is None):
        return "None vs array"
    if a is None:
        return None
    if a.dtype != e.dtype or a.shape != e.shape:
        return "%s%s, expected %s%s" % (a.dtype, a.shape, e.dtype, e.shape)
    if a.dtype.kind in "fc":
        finite = np.isfinite(e)
        scale = float(np.abs(e[finite]).max()) if finite.any() else 1.0
        if np.allclose(a, e, rtol=2e-3, atol=1e-5 * max(1.0, scale), equal_nan=True):
            return None
        return "float values differ"
    return None if np.array_equal(a, e) else "values differ"


def xla_difference(program):
    """None when the lowered program gives eager execution's results."""
    expected = chk.run(program, "eager")
    if expected[0] == "error":
        return None   # XLA reports no runtime errors (bad indices are clamped, ...)
    actual = run_xla(program)
    if actual[0] == "error":
        return "error %s: %s" % actual[1:]
    for i, (a, e) in enumerate(zip(actual[1], expected[1])):
        d = _close(a, e)
        if d is not None:
            return "result %d: %s" % (i, d)
    return None


# On a GPU, XLA's float32 division is not correctly rounded (x / x can be
# 1 - 2**-24): programs that compare or differentiate such quotients
# (divide_no_nan(v, v) <= its reverse) differ from the CPU's exact answer.
# Seen on an H100 with JAX 0.11.2; the CPU runs check them.
GPU_APPROXIMATE_DIVISION = {87, 124}


def _on_gpu():
    from rillflow.framework import lowering
    return lowering.load().default_backend() == "gpu"


@pytest.fixture(autouse=True)
def _full_float32_products():
    """Full float32 matrix products on a GPU (TensorFloat-32 off), as on
    the CPU that eager execution and these tolerances stand for."""
    tf.config.experimental.enable_tensor_float_32_execution(False)
    yield
    tf.config.experimental.enable_tensor_float_32_execution(True)


@pytest.mark.parametrize("start", range(SEEDS.start, SEEDS.stop, 40))
def test_random_dags_lowered_to_xla_match_eager(start):
    failures = []
    skip = NUMERICALLY_UNSTABLE.keys() | EAGER_IS_NOT_XLA.keys() | (
        GPU_APPROXIMATE_DIVISION if _on_gpu() else set())
    for seed in range(start, start + 40):
        if seed in skip:
            continue
        found = xla_difference(dag.generate(seed))
        if found is not None:
            failures.append((seed, found))
    assert not failures, failures

"""Differential property test of AutoGraph: random small programs
(tests/autograph_programs.py) run natively and through tf.function must
give the same outcome.

Per program and per call, rillflow's tf.function must return Python's
native value (rillflow eager), or, where TensorFlow 2.21 refuses the
program, raise TensorFlow's exception class. TensorFlow's outcomes cannot
be computed here (no TensorFlow in CI); tools/autograph_property.py
records them in tests/data/autograph_property_tf.json (its "regenerate"
entry gives the command). Programs where TensorFlow itself gives another
value than Python are skipped (the fixture's "tf_differs").

Environment:
  AUTOGRAPH_PROPERTY_SEED, AUTOGRAPH_PROPERTY_COUNT: the programs (seeds
    SEED .. SEED+COUNT-1; default 0 and 300, the fixture's). Seeds the
    fixture does not cover are compared with Python only, and an exception
    where Python returns a value passes only when it is one of
    autograph_programs.KNOWN_TF_REFUSALS.
  AUTOGRAPH_PROPERTY_REQUIRE_TF_REFUSALS=1: count Python's value where
    TensorFlow refuses a program as a failure. By default it passes: the
    same answer as Python (rillflow converts for/else, lists appended to in
    graph loops, ... which TensorFlow 2.21 refuses).
"""
import json
import os

import pytest

import autograph_programs as ap
import rillflow as tf
from rillflow.framework import context

SEED = int(os.environ.get("AUTOGRAPH_PROPERTY_SEED", "0"))
COUNT = int(os.environ.get("AUTOGRAPH_PROPERTY_COUNT", "300"))
ALLOW_EXTENSIONS = os.environ.get("AUTOGRAPH_PROPERTY_REQUIRE_TF_REFUSALS") != "1"
# Chunks of programs, so that pytest-xdist spreads them over workers
# while a test id stays meaningful (its seed range).
CHUNK = 25
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "autograph_property_tf.json")
TIMEOUT = 20.0   # seconds per call: a graph loop that never ends fails, not hangs

_recorded = None


def recorded():
    """The fixture: {"programs": {seed: {...}}, ...}, loaded once."""
    global _recorded
    if _recorded is None:
        with open(FIXTURE) as fh:
            data = json.load(fh)
        data["programs"] = {int(k): v for k, v in data["programs"].items()}
        _recorded = data
    return _recorded


def tf_outcomes(program):
    """TensorFlow's recorded RunResult for this exact program, or None."""
    rec = recorded()["programs"].get(program.seed)
    if rec is None or rec["sha1"] != program.sha1:
        return None
    return ap.RunResult.from_json(rec["tf"])


def _isolated_run(program):
    """Runs one program; a trace that fails must not leave graph mode or
    tapes behind for the next program (its native run would then trace)."""
    try:
        result = ap.run_program(program, tf, timeout=TIMEOUT)
    finally:
        leaked = context.state.graph is not None
        context.state.graph = None
        context.state.tapes = []
        context.config.run_functions_eagerly = False
    return result, leaked


def _report(program, result, tfr, verdict):
    lines = ["seed %d: %s" % (program.seed, verdict.result), program.source.rstrip()]
    for c in range(2):
        lines.append("  call %d: f%s" % (c + 1, program.args_text(c + 1)))
        lines.append("    Python:               %s" % ap.describe(result.native[c]))
        if tfr is not None:
            lines.append("    TF eager:             %s" % ap.describe(tfr.native[c]))
            lines.append("    TF tf.function:       %s" % ap.describe(tfr.function[c]))
        lines.append("    rillflow tf.function: %s   [%s]" % (ap.describe(result.function[c]), verdict.calls[c]))
    return "\n".join(lines)


def _chunks():
    for first in range(SEED, SEED + COUNT, CHUNK):
        stop = min(first + CHUNK, SEED + COUNT)
        yield pytest.param(first, stop, id="seeds%d-%d" % (first, stop - 1))


@pytest.mark.parametrize("first,stop", list(_chunks()))
def test_tf_function_gives_python_outcome(first, stop):
    """Every program of the chunk: rillflow's tf.function outcome is
    Python's, or TensorFlow's refusal (see the module docstring)."""
    skip = set(recorded()["tf_differs"])
    failures = []
    for seed in range(first, stop):
        program = ap.generate(seed)
        tfr = tf_outcomes(program)
        if tfr is not None and seed in skip:
            continue   # TensorFlow's own bug: no reference to hold rillflow to
        result, leaked = _isolated_run(program)
        verdict = ap.classify(result.native, result.function, tfr, ALLOW_EXTENSIONS)
        if verdict.result != "ok":
            failures.append(_report(program, result, tfr, verdict))
        if leaked:
            failures.append("seed %d: tf.function left a graph as the default\n%s" % (seed, program.source))
    assert not failures, "%d of %d programs diverge:\n\n%s" % (
        len(failures), stop - first, "\n\n".join(failures))


def test_fixture_matches_the_generator():
    """The recorded outcomes belong to the programs generate() makes now:
    after a generator change, regenerate the fixture (its "regenerate"
    entry), or the recorded seeds silently fall back to Python only."""
    data = recorded()
    assert data["generator_version"] == ap.GENERATOR_VERSION, data["regenerate"]
    stale = [s for s, rec in sorted(data["programs"].items()) if rec["sha1"] != ap.generate(s).sha1]
    assert not stale, "stale recorded seeds %s; regenerate with: %s" % (stale[:10], data["regenerate"])


def test_generator_is_deterministic_and_keeps_programs_small():
    """One seed, one program (no hash() of strings, no set order); 5-25
    lines; the second call's arguments differ from the first's."""
    for seed in range(SEED, SEED + 50):
        p, q = ap.generate(seed), ap.generate(seed)
        assert p == q
        n = sum(1 for line in p.source.splitlines() if line.strip())
        assert ap.MIN_LINES <= n <= ap.MAX_LINES, p.source
        assert p.args1 != p.args2


def test_normalized_values_compare_as_tensorflow_converts():
    """A Python 3 equals an int32 3 (tf.function returns Python ints as
    int32 tensors), not an int64 3 nor a float32 3.0; floats compare to
    1e-6 relative; structure and None are exact."""
    n = ap.normalize
    assert ap.values_equal(n(3), n(tf.constant(3)))
    assert not ap.values_equal(n(3), n(tf.constant(3, tf.int64)))
    assert not ap.values_equal(n(3), n(3.0))
    assert not ap.values_equal(n(True), n(1))
    assert ap.values_equal(n(2.5), n(tf.constant(2.5)))
    assert ap.values_equal(n(1.0), n(tf.constant(1.0 + 5e-7)))
    assert not ap.values_equal(n(1.0), n(tf.constant(1.0 + 1e-5)))
    assert ap.values_equal(n(float("nan")), n(tf.constant(float("nan"))))
    assert not ap.values_equal(n((1, 2)), n([1, 2]))
    assert not ap.values_equal(n((1, 2)), n((1, 2, 3)))
    assert not ap.values_equal(n(None), n(0))
    assert not ap.values_equal(n(tf.constant([1, 2])), n(tf.constant([[1, 2]])))
    assert not ap.values_equal(n(object()), n(object()))


def test_classify_reference_is_python_unless_tensorflow_refuses():
    """The judging rules on hand-made outcomes."""
    v = lambda x: ap.Outcome("value", ap.normalize(x))
    e = lambda cls, msg="": ap.Outcome("error", cls, msg)
    # TF agrees with Python: rillflow must give Python's value.
    tf_ok = ap.RunResult([v(1), v(2)], [v(1), v(2)])
    assert ap.classify([v(1), v(2)], [v(1), v(2)], tf_ok).result == "ok"
    assert ap.classify([v(1), v(2)], [v(1), v(3)], tf_ok).result == "wrong_value"
    assert ap.classify([v(1), v(2)], [v(1), e("ValueError")], tf_ok).result == "unexpected_exception"
    # TF refuses: rillflow must raise the same class.
    tf_no = ap.RunResult([v(1), v(2)], [e("ValueError", "x"), e("ValueError", "x")])
    assert ap.classify([v(1), v(2)], [e("ValueError"), e("ValueError")], tf_no).result == "ok"
    assert ap.classify([v(1), v(2)], [e("TypeError"), e("ValueError")], tf_no).result == "wrong_exception"
    assert ap.classify([v(1), v(2)], [v(1), e("ValueError")], tf_no).result == "extension"
    assert ap.classify([v(1), v(2)], [v(1), e("ValueError")], tf_no, allow_extensions=True).result == "ok"
    assert ap.classify([v(1), v(2)], [v(5), e("ValueError")], tf_no).result == "missing_exception"
    # TF differs from Python: skipped.
    tf_bad = ap.RunResult([v(1), v(2)], [v(1), v(7)])
    assert ap.classify([v(1), v(2)], [v(9), v(9)], tf_bad).tf == "differs"
    # No TF: an exception passes only as a known refusal.
    known = e("ValueError", "'a' must also be initialized in the else branch")
    assert ap.classify([v(1), v(2)], [known, v(2)]).result == "ok"
    assert ap.classify([v(1), v(2)], [e("ValueError", "other"), v(2)]).result == "unexpected_exception"

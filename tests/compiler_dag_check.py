"""Runs random op DAGs (compiler_dag_programs.py) eagerly and under
`tf.function` -- with rillflow's optimizations and on the plain path -- and
compares the results: same dtype, same shape, same values bit for bit (NaN
equal to NaN, and the sign of zero kept). An exception must be the same
class in every mode. Programs that differ are minimized to a few lines.

The optimized code is held to the plain path's results exactly (a
difference there is the compiler's), and the plain path to eager
execution's (a difference there is an op's graph form).

Each mode runs the program twice on its own copies of the variables, so
that buffers reused across calls and updates made in place show up.
"""
import re

import numpy as np

import rillflow as tf
from rillflow.compiler import fallback
from rillflow.framework import context

import compiler_dag_programs as dag
from helpers import optimizations

MODES = ("eager", "compiled", "plain")
CALLS = 2


def _numpy(x):
    if x is None:
        return None
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def run(program, mode):
    """('ok', [arrays...]) or ('error', exception class name, message) for
    `program` run in `mode`."""
    fn = program.function(tf)
    V = [tf.Variable(v) for v in program.variables]
    inputs = [tf.constant(a) for a in program.inputs]

    def call(*args):
        return fn(V, *args)
    if mode != "eager":
        call = tf.function(call)
    results = []
    try:
        # Strict: a pass failing is a finding, not a quiet fallback.
        with optimizations(mode != "plain"), fallback.strict():
            for _ in range(CALLS):
                results.extend(_numpy(r) for r in call(*inputs))
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        name = type(e).__name__
        if name == "StagingError":
            # AutoGraph wraps the classes it cannot rebuild (LookupError...)
            # in a StagingError, as TensorFlow does: compare the wrapped one.
            inner = re.findall(r"^\s+(\w+): ", str(e), re.M)
            name = inner[-1] if inner else name
        return ("error", name, str(e).splitlines()[0][:300] if str(e) else "")
    finally:
        # Leave no graph behind a failed trace, nor a tape behind a failed call.
        context.state.graph = None
        context.state.tapes = []
    results.extend(v.numpy() for v in V)
    return ("ok", results)


def _same_array(a, e):
    if (a is None) != (e is None):
        return "None vs %s" % ("array" if e is not None else "None")
    if a is None:
        return None
    if a.dtype != e.dtype:
        return "dtype %s, expected %s" % (a.dtype, e.dtype)
    if a.shape != e.shape:
        return "shape %s, expected %s" % (a.shape, e.shape)
    if a.dtype.kind in "fc":
        nan_a, nan_e = np.isnan(a), np.isnan(e)
        if not np.array_equal(nan_a, nan_e):
            return "NaN at other places"
        ok = ~nan_e
        if not np.array_equal(a[ok], e[ok]):
            bad = np.argwhere(~((a == e) | nan_e))
            i = tuple(bad[0])
            return "values differ at %d places, first %s: %r, expected %r" % (
                len(bad), i, a[i], e[i])
        if not np.array_equal(np.signbit(a[ok]), np.signbit(e[ok])):
            return "sign of zero differs"
        return None
    if not np.array_equal(a, e):
        return "values differ"
    return None


def difference(actual, expected):
    """None when two outcomes of `run` agree, else a short description."""
    if actual[0] != expected[0]:
        def brief(outcome):
            return outcome[1:] if outcome[0] == "error" else "values"
        return "%s %s, expected %s %s" % (actual[0], brief(actual), expected[0],
                                          brief(expected))
    if actual[0] == "error":
        return None if actual[1] == expected[1] else "error %s, expected %s" % (
            actual[1], expected[1])
    if len(actual[1]) != len(expected[1]):
        return "%d results, expected %d" % (len(actual[1]), len(expected[1]))
    for i, (a, e) in enumerate(zip(actual[1], expected[1])):
        d = _same_array(a, e)
        if d is not None:
            return "result %d: %s" % (i, d)
    return None


def check(program):
    """None when all modes agree, else (kind, description): kind "compiler"
    when the optimized code differs from the plain path (the same graph and
    kernels: a compiler bug, whatever eager execution gives), "graph" when
    the plain path differs from eager execution (an op whose graph form
    computes otherwise than its eager kernel)."""
    plain = run(program, "plain")
    d = difference(run(program, "compiled"), plain)
    if d is not None:
        return "compiler", d
    eager = run(program, "eager")
    d = difference(plain, eager)
    if d is not None and not _tape_error_first(plain, eager):
        return "graph", d
    return None


def _tape_error_first(graph, eager):
    """A graph traced to a tape's missing gradient (TruncateMod has none)
    raises LookupError while it is built, before any op runs; eagerly the
    ops run first, and one may fail before the gradient is asked for, as in
    TensorFlow."""
    return graph[0] == "error" and graph[1] == "LookupError" and eager[0] == "error"


def failure_kind(found):
    """What kind of failure a `check` result is (minimization keeps it)."""
    if found is None:
        return None
    kind, d = found
    return kind, d.split(":")[0] if d.startswith(("error", "ok")) else "mismatch"


# --- minimization ----------------------------------------------------------------------

def minimize(program, budget=300):
    """A smaller program failing `check` the same way: outputs dropped, an
    earlier value made the only output, gradients dropped, ops replaced by
    fresh inputs holding the values they computed (so the values downstream
    stay the same), unread lines dropped."""
    want = failure_kind(check(program))
    tries = [0]

    def still_fails(p):
        tries[0] += 1
        try:
            return failure_kind(check(p)) == want
        except Exception:   # noqa: BLE001 - a broken candidate is no reduction
            return False
    p = _prune(program)
    changed = True
    while changed and tries[0] < budget:
        changed = False
        for k in list(p.outputs):
            if len(p.outputs) > 1 and tries[0] < budget:
                q = _copy(p)
                q.outputs.remove(k)
                q = _prune(q)
                if still_fails(q):
                    p, changed = q, True
        for k, _ in list(p.lines):
            # An earlier value as the only output drops what follows it.
            if k is None or k in p.outputs or tries[0] >= budget:
                continue
            q = _copy(p)
            q.outputs = [k]
            q = _prune(q)
            if still_fails(q):
                p, changed = q, True
                break
        if p.gradients and tries[0] < budget:
            q = _copy(p)
            q.gradients = False
            if still_fails(q):
                p, changed = q, True
        for k, _ in list(p.lines):
            if k is None or tries[0] >= budget:
                continue
            q = _as_input(p, k)
            if q is not None and still_fails(q):
                p, changed = q, True
    return p


def _copy(p):
    q = dag.Program(p.seed)
    q.inputs, q.variables = list(p.inputs), list(p.variables)
    q.lines, q.nodes, q.outputs = list(p.lines), list(p.nodes), list(p.outputs)
    q.gradients = p.gradients
    return q


def _as_input(p, k):
    """`p` with node k's line replaced by a new input holding its eager value."""
    if not any(j == k for j, _ in p.lines):
        return None
    probe = _copy(p)
    probe.outputs = [k]
    probe.gradients = False
    outcome = run(probe, "eager")
    if outcome[0] != "ok":
        return None
    value = outcome[1][0]
    if value.dtype not in (np.float32, np.int32, np.bool_):
        return None
    q = _copy(p)
    q.inputs.append(value)
    name = "v%d" % (len(q.inputs) - 1)
    old = q.nodes[k].name
    q.lines = [(j, line) for j, line in q.lines if j != k]
    q.lines = [(j, _rename(line, old, name)) for j, line in q.lines]
    node = dag.Node(q.nodes[k].dtype, q.nodes[k].shape, name)
    q.nodes[k] = node
    return _prune(q)


def _rename(line, old, new):
    target, sep, rhs = line.partition(" = ")
    if not sep:
        return re.sub(r"\b%s\b" % old, new, line)
    return target + sep + re.sub(r"\b%s\b" % old, new, rhs)


def _prune(p):
    """Drops lines nothing needs (variable updates stay) and unused inputs."""
    q = _copy(p)
    needed = {q.nodes[k].name for k in q.outputs}
    keep = []
    for j, line in reversed(q.lines):
        name = line.partition(" = ")[0] if j is not None else None
        if j is None or name in needed or j in q.outputs:
            keep.append((j, line))
            needed |= dag._names_in(line) | _inputs_in(line)
    q.lines = list(reversed(keep))
    return q


def _inputs_in(line):
    rhs = line.partition(" = ")[2] or line
    return set(re.findall(r"\bv\d+\b", rhs))

"""Fusion of elementwise chains on large tensors.

A chain like `tanh(x) * 2 + sin(x) ** 2 - x / 3` on a million floats is
one NumPy call per op, each streaming the whole array through memory and
allocating a temporary. A fused kernel instead runs the chain on chunks
that stay in cache, writes each result once into its output, and spreads
the chunks over the CPU's cores (NumPy's loops release the GIL). Results
are identical: every op still runs its own kernel, elementwise.
"""
import concurrent.futures
import os
import threading


# Chains whose outputs have fewer elements than this are not worth it.
FUSE_MIN_ELEMENTS = 1 << 16
CHUNK = 1 << 14

ELEMENTWISE = frozenset((
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference",
    "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Expm1", "Sin", "Cos",
    "Tan", "Tanh", "Sigmoid", "Relu", "Relu6", "Floor", "Ceil", "Round", "Sign",
    "Reciprocal", "Softplus", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal",
    "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "SelectV2", "Erf", "Atan",
    "Asin", "Acos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Elu", "Selu", "Softsign",
))

_pool = [None]
_pool_lock = threading.Lock()


def _executor():
    if _pool[0] is None:
        with _pool_lock:
            if _pool[0] is None:
                workers = max(1, (os.cpu_count() or 1) - 1)
                _pool[0] = concurrent.futures.ThreadPoolExecutor(
                    max_workers=workers, thread_name_prefix="rillflow-fused")
    return _pool[0]


def run_chunks(work, n):
    """Calls `work(lo, hi)` over [0, n) in cache-sized chunks on all cores."""
    cores = os.cpu_count() or 1
    if cores == 1 or n < 4 * CHUNK:
        for lo in range(0, n, CHUNK):
            work(lo, min(n, lo + CHUNK))
        return
    per = -(-n // cores)

    def span(start, stop):
        for lo in range(start, stop, CHUNK):
            work(lo, min(stop, lo + CHUNK))
    futures = [_executor().submit(span, k * per, min(n, (k + 1) * per))
               for k in range(1, cores) if k * per < n]
    span(0, min(n, per))
    for f in futures:
        f.result()


def _shape_of(t):
    s = t.shape
    return tuple(s.as_list()) if s.is_fully_defined() else None


def _is_scalar(t):
    s = t.shape
    return s.rank == 0 or (s.is_fully_defined() and s.num_elements() == 1 and s.rank == 0)


def _candidate(plan):
    op = plan.op
    if plan.kind not in ("expr", "kernel") or op.type not in ELEMENTWISE:
        return None
    if len(op.outputs) != 1 or op.opdef.stateful:
        return None
    out = op.outputs[0]
    shape = _shape_of(out)
    if shape is None or out.shape.num_elements() < FUSE_MIN_ELEMENTS:
        return None
    if out.dtype._np is None or out.dtype._np.kind not in "biuf":
        return None
    for t in plan.inputs:
        if not (_is_scalar(t) or _shape_of(t) == shape):
            return None
    return shape


def fuse(plans, protected):
    """Replaces chains of elementwise plans with fused plans (in place order).

    `protected` are ids of tensors that must be materialized (outputs).
    """
    from .codegen import Plan
    group_of = {}
    groups = []
    for p in plans:
        shape = _candidate(p)
        if shape is None:
            continue
        joined = None
        for t in p.inputs:
            g = group_of.get(id(t.op))
            if g is not None and g["shape"] == shape:
                if joined is None:
                    joined = g
                elif g is not joined:
                    joined["plans"].extend(g["plans"])
                    for q in g["plans"]:
                        group_of[id(q.op)] = joined
                    g["plans"] = []
        if joined is None:
            joined = {"shape": shape, "plans": []}
            groups.append(joined)
        joined["plans"].append(p)
        group_of[id(p.op)] = joined
    groups = [g for g in groups if len(g["plans"]) >= 2]
    if not groups:
        return plans
    consumers = {}
    for p in plans:
        for t in p.inputs:
            consumers.setdefault(id(t), []).append(p.op)
    order = {id(p.op): i for i, p in enumerate(plans)}
    replaced = {}
    for g in groups:
        members = sorted(g["plans"], key=lambda p: order[id(p.op)])
        ids = {id(p.op) for p in members}
        inputs, outputs = [], []
        for p in members:
            for t in p.inputs:
                if id(t.op) not in ids and all(t is not x for x in inputs):
                    inputs.append(t)
            out = p.op.outputs[0]
            used_outside = any(id(c) not in ids for c in consumers.get(id(out), ())) or \
                id(out) in protected
            if used_outside:
                outputs.append(out)
        fused = Plan(members[-1].op, "fused", members, inputs)
        fused.outputs = outputs
        # The fused plan sits where its last member was.
        replaced[id(members[-1].op)] = fused
        for p in members[:-1]:
            replaced[id(p.op)] = None
    out = []
    for p in plans:
        r = replaced.get(id(p.op), p)
        if r is not None:
            out.append(r)
    return out


def emit_fused(em, plan):
    """Emits a call of a generated chunked kernel for a fused plan."""
    from .codegen import Emitter
    members = plan.template
    inner = Emitter(em.name + "_fused")
    inner.globals = em.globals  # shares kernels and constants
    inner._used = em._used
    inner._global_ids = em._global_ids
    inner.subst = em.subst
    inner.indent = 2
    params = []
    for i, t in enumerate(plan.inputs):
        p = "in%d" % i
        params.append(p)
        inner.names[id(t)] = ("%s_c" % p) if not _is_scalar(t) else p
    head = []
    for i, t in enumerate(plan.inputs):
        if not _is_scalar(t):
            head.append("    in%d_f = np.ravel(in%d)" % (i, i))
    loads = ["        in%d_c = in%d_f[lo:hi]" % (i, i) for i, t in enumerate(plan.inputs)
             if not _is_scalar(t)]
    for p in members:
        inner.emit_plan(p)
    outs = []
    for k, t in enumerate(plan.outputs):
        name = "out%d" % k
        np_dtype = em.global_for(t.dtype._np, "dtype_" + t.dtype.name)
        head.append("    %s = np.empty(%r, %s)" % (name, plan_shape(plan), np_dtype))
        head.append("    %s_f = %s.reshape(-1)" % (name, name))
        outs.append((name, inner.value(t)))
    body = loads + inner.lines
    for name, expr in outs:
        body.append("        %s_f[lo:hi] = %s" % (name, expr))
    fname = em.new_name("fused_" + plan.op.name)
    src = ["def %s(%s):" % (fname, ", ".join(params))] + head + \
        ["    def work(lo, hi):"] + body + \
        ["    run_chunks(work, %d)" % _size(plan),
         "    return %s" % (", ".join(n for n, _ in outs) + ("," if len(outs) == 1 else ""))]
    source = "\n".join(src) + "\n"
    em.globals["run_chunks"] = run_chunks
    ns = em.globals
    exec(compile(source, "<rillflow %s>" % fname, "exec"), ns)
    em.fused_sources.append(source)
    targets = [em.new_name(t.op.name) for t in plan.outputs]
    for t, n in zip(plan.outputs, targets):
        em.names[id(t)] = n
    em.emit("%s = %s(%s)" % (", ".join(targets) + ("," if len(targets) == 1 else ""),
                             fname, ", ".join(em.value(t) for t in plan.inputs)), plan.op)


def plan_shape(plan):
    """The common static shape of a fused plan's outputs."""
    return tuple(plan.outputs[0].shape.as_list())


def _size(plan):
    n = 1
    for d in plan_shape(plan):
        n *= d
    return n

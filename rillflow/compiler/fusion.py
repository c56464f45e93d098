"""Fusion of elementwise chains on large tensors.

A chain like `tanh(x) * 2 + sin(x) ** 2 - x / 3` on a million floats is
one NumPy call per op, each streaming the whole array through memory and
allocating a temporary. A fused kernel instead runs the chain on chunks
that stay in cache, writes each result once into its output, and spreads
the chunks over the CPU's cores (NumPy's loops release the GIL). Results
are identical: every op still runs its own kernel, elementwise.
"""
import numpy as np

from .plan import Plan
from . import broadcast_sink, specialize
from ..ops.kernels import threads

# Chains whose outputs have fewer elements than this are not worth it.
FUSE_MIN_ELEMENTS = 1 << 16
# Chunks of 64K elements keep a chain's temporaries in L2 while leaving few
# GIL hand-offs between the worker threads (measured: 16K was 20% slower).
CHUNK = 1 << 16

ELEMENTWISE = frozenset((
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference",
    "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Expm1", "Sin", "Cos",
    "Tan", "Tanh", "Sigmoid", "Relu", "Relu6", "Floor", "Ceil", "Round", "Sign",
    "Reciprocal", "Softplus", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal",
    "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "SelectV2", "Erf", "Atan",
    "Asin", "Acos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Elu", "Selu", "Softsign",
))

# Ops that call OpenBLAS. After a multithreaded GEMM, OpenBLAS's idle
# threads spin (sched_yield) for ~2**28 cycles, so a chunk handed to a
# kernel thread competes with them for the other core: a function whose
# graph has such an op runs its fused chains on the calling thread
# (`run_chunks_serial`), which made the model steps faster (in-process
# A/B: attention 6.87-6.98 -> 6.75-6.77 ms, ResNet block 12.57 -> 12.15 ms).
BLAS_OPS = frozenset((
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum", "Conv2D",
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D", "Conv3DBackpropInputV2",
    "Conv3DBackpropFilterV2", "_FusedMatMul",
))


def chunks_serially(ops):
    """Whether a function of these ops runs its fused chains on the calling
    thread: it calls BLAS, whose idle threads spin (with
    RILLFLOW_BLAS_THREADS=kernels OpenBLAS runs one thread and has none
    spinning: the chunks spread)."""
    return not threads.SPREADING and uses_blas(ops)


def uses_blas(ops, seen=None):
    """Whether any of `ops`, or of the ops of the function graphs they
    carry (loop bodies, branches, called functions), is in BLAS_OPS."""
    seen = set() if seen is None else seen
    for op in ops:
        if op.type in BLAS_OPS:
            return True
        for v in op.attrs.values():
            # A function attribute, or a list of them (Case's branches).
            for g in (v if isinstance(v, (list, tuple)) else (v,)):
                get_ops = getattr(g, "get_operations", None)
                if get_ops is not None and id(g) not in seen:
                    seen.add(id(g))
                    if uses_blas(get_ops(), seen):
                        return True
    return False


def run_chunks_serial(work, n):
    """Calls `work(lo, hi)` over [0, n) in cache-sized chunks, on this thread."""
    for lo in range(0, n, CHUNK):
        work(lo, min(n, lo + CHUNK))


def run_chunks(work, n):
    """Calls `work(lo, hi)` over [0, n) in cache-sized chunks on all cores
    (the kernels' shared threads, ops/kernels/threads.py); the same results
    as `run_chunks_serial` (each element is computed by the same ops)."""
    cores = threads.cores()
    if cores == 1 or n < 2 * CHUNK:
        run_chunks_serial(work, n)
        return
    per = -(-n // cores)
    # Spans start at multiples of 8: kernels that follow Eigen's packets
    # (ops/kernels/exp_log.py) treat the last size % 8 elements of a call
    # differently, so only the array's own tail may be such a remainder.
    per = -(-per // 8) * 8

    def span(start, stop):
        for lo in range(start, stop, CHUNK):
            work(lo, min(stop, lo + CHUNK))
    futures = [threads.executor().submit(span, k * per, min(n, (k + 1) * per))
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
    if plan.kind not in ("expr", "kernel") or op.type not in ELEMENTWISE or \
            broadcast_sink.is_sunk(plan):
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

    A fused plan runs where its last member was, so a group may only take in
    plans while no plan outside it reads a member's result before that point:
    `y = a * b; s = reduce_sum(y); z = y * s` must not fuse `y` and `z`, for
    `s` needs `y` before `z` (and `z` needs `s`).
    """
    order = {id(p.op): i for i, p in enumerate(plans)}
    consumers = {}
    for p in plans:
        for t in p.inputs:
            consumers.setdefault(id(t), []).append(p.op)
    group_of = {}
    groups = []
    for pos, p in enumerate(plans):
        shape = _candidate(p)
        if shape is None:
            continue
        joined = None
        for t in p.inputs:
            g = group_of.get(id(t.op))
            if g is None or g["shape"] != shape or g is joined:
                continue
            members = g["plans"] + (joined["plans"] if joined is not None else [])
            if not _placeable(members + [p], pos, consumers, order):
                continue
            if joined is None:
                joined = g
            else:
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


def _placeable(members, last, consumers, order):
    """Whether `members` (plans) may run as one plan at position `last`: no
    plan outside them, placed before `last`, reads a member's result."""
    ids = {id(p.op) for p in members}
    for p in members:
        for c in consumers.get(id(p.op.outputs[0]), ()):
            if id(c) not in ids and order[id(c)] < last:
                return False
    return True


def emit_fused(em, plan):
    """Emits a call of a generated chunked kernel for a fused plan."""
    members = plan.template
    inner = em.sharing(em.name + "_fused")
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
    out_index = {id(t): k for k, t in enumerate(plan.outputs)}
    outs = []
    for k, t in enumerate(plan.outputs):
        name = "out%d" % k
        np_dtype = em.global_for(t.dtype._np, "dtype_" + t.dtype.name)
        head.append("    %s = np.empty(%r, %s)" % (name, plan_shape(plan), np_dtype))
        head.append("    %s_f = %s.reshape(-1)" % (name, name))
        outs.append(name)
    _emit_members(inner, members, out_index)
    body = loads + inner.lines
    for k, t in enumerate(plan.outputs):
        expr = inner.value(t)
        if expr != "out%d_c" % k:
            body.append("        out%d_f[lo:hi] = %s" % (k, expr))
    fname = em.new_name("fused_" + plan.op.name)
    src = ["def %s(%s):" % (fname, ", ".join(params))] + head + \
        ["    def work(lo, hi):"] + body + \
        ["    run_chunks(work, %d)" % _size(plan),
         "    return %s" % (", ".join(outs) + ("," if len(outs) == 1 else ""))]
    source = "\n".join(src) + "\n"
    em.globals["run_chunks"] = run_chunks_serial if em.serial_chunks else run_chunks
    ns = em.globals
    exec(compile(source, "<rillflow %s>" % fname, "exec"), ns)
    em.fused_sources.append(source)
    targets = [em.new_name(t.op.name) for t in plan.outputs]
    for t, n in zip(plan.outputs, targets):
        em.names[id(t)] = n
    em.emit("%s = %s(%s)" % (", ".join(targets) + ("," if len(targets) == 1 else ""),
                             fname, ", ".join(em.value(t) for t in plan.inputs)), plan.op)


# Ops that are one NumPy ufunc call on their inputs (specialized plans for
# `x ** 2` read one input twice: np.multiply(x, x)). Not Maximum/Minimum:
# their kernels choose between -0 and +0 as TensorFlow does.
_UFUNCS = {"AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.true_divide,
           "Neg": np.negative,
           "Square": np.square, "Less": np.less, "LessEqual": np.less_equal,
           "Greater": np.greater, "GreaterEqual": np.greater_equal}


def _ufunc_of(p):
    op = p.op
    if op.type == "Pow" and p.kind == "expr" and len(p.inputs) == 1:
        # Only a Pow by 2 is x * x; the other one-input Pow templates
        # (x * (x * x), sqrt, rsqrt, reciprocal: TensorFlow's rewrites of the
        # exponents 3, 0.5, -0.5, -1) are emitted as they are.
        if p.template != specialize.SQUARE:
            return None, None
        return np.multiply, [p.inputs[0], p.inputs[0]]
    f = _UFUNCS.get(op.type)
    if f is None and isinstance(op.opdef.kernel, np.ufunc) and \
            op.opdef.kernel.nin == len(op.inputs):
        f = op.opdef.kernel
    if f is None or p.kind not in ("expr", "kernel"):
        return None, None
    return f, list(p.inputs)


def _emit_members(inner, members, out_index):
    """Emits a fused chain with `out=`: a result goes straight into its output
    buffer, or into the buffer of a chunk temporary that dies here."""
    last = {}
    for p in members:
        for t in p.inputs:
            last[id(t)] = p.op
    temps = set()     # ids of tensors held in chunk-local buffers we own
    for p in members:
        t = p.op.outputs[0]
        ufunc, operands = _ufunc_of(p)
        if ufunc is None:
            inner.emit_plan(p)
            temps.add(id(t))
            continue
        args = ", ".join(inner.value(x) for x in operands)
        k = out_index.get(id(t))
        if k is not None:
            target = "out%d_c" % k
            inner.emit("%s = out%d_f[lo:hi]" % (target, k))
            inner.emit("%s(%s, out=%s)" % (inner.global_for(ufunc, "uf_" + ufunc.__name__),
                                           args, target), p.op)
            inner.names[id(t)] = target
            continue
        reuse = next((x for x in operands if id(x) in temps and last.get(id(x)) is p.op and
                      x.dtype is t.dtype and id(x) not in out_index), None)
        name = inner.value(reuse) if reuse is not None else inner.new_name(p.op.name)
        extra = ", out=%s" % name if reuse is not None else ""
        inner.emit("%s = %s(%s%s)" % (name, inner.global_for(ufunc, "uf_" + ufunc.__name__),
                                      args, extra), p.op)
        inner.names[id(t)] = name
        temps.add(id(t))


def plan_shape(plan):
    """The common static shape of a fused plan's outputs."""
    return tuple(plan.outputs[0].shape.as_list())


def _size(plan):
    n = 1
    for d in plan_shape(plan):
        n *= d
    return n

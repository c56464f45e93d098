"""Specialized code for ops whose static dtypes and shapes make a plain
Python/NumPy expression exact: `a + b` instead of a checked kernel call,
`x[i]` instead of a general strided slice, `a @ b` for a valid matmul.

Graph construction already checked what the kernels would check (matching
dtypes, compatible shapes), and NumPy raises for what can only be known at
run time (out-of-range indices, incompatible dynamic shapes), which the
runtime turns into TensorFlow's errors. `specialize(op)` returns
`(kind, template, inputs)` or None for the generic kernel call.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework.op_registry import get
from ..ops.control_flow.list_ops import set_item_static
from ..ops.core.broadcast_ops import select_values
from ..ops.core.slicing import slice_result
from ..ops.kernels import jit_kernels, xla_gemm
from ..ops.kernels import threads as _kernel_threads

_NUMERIC_KINDS = "biufc"

_BINARY = {
    "AddV2": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}",
    "Less": "{0} < {1}", "LessEqual": "{0} <= {1}", "Greater": "{0} > {1}",
    "GreaterEqual": "{0} >= {1}", "LogicalAnd": "np.logical_and({0}, {1})",
    "LogicalOr": "np.logical_or({0}, {1})", "SquaredDifference": "np.square({0} - {1})",
}
_COMPARE = {"Equal": "{0} == {1}", "NotEqual": "{0} != {1}"}
# Unary ops whose kernels are exactly these expressions (transcendental
# functions keep their kernels, which may round as TensorFlow does).
# x * x: Square, and a Pow by 2 (fusion.py runs this template as np.multiply).
SQUARE = "{0} * {0}"
_UNARY = {"Neg": "-{0}", "LogicalNot": "np.logical_not({0})", "Square": SQUARE}
_FLOAT_ONLY_UNARY = set()


def _numeric(t):
    d = t.dtype
    return d._np is not None and d._np.kind in _NUMERIC_KINDS and d is not D.string


def _real_float(t):
    return t.dtype.is_floating and t.dtype is not D.bfloat16


def _const(t):
    return t._const


# Ops whose complex kernels give TensorFlow's bits where NumPy's expression
# would not (ops/kernels/complex_arith.py: NumPy's complex multiply may fuse,
# its division is Smith's everywhere; Maximum/Minimum have no complex order):
# with complex operands they keep their kernels.
_COMPLEX_KERNELS = frozenset(("Mul", "RealDiv", "Square", "SquaredDifference", "Pow",
                              "Maximum", "Minimum"))


def specialize(op):
    """`(kind, template, inputs)` for a plain-expression version of `op`, or None."""
    fn = _TABLE.get(op.type)
    if fn is None:
        return None
    if op.type in _COMPLEX_KERNELS and op.inputs and op.inputs[0].dtype.is_complex:
        return None
    try:
        return fn(op)
    except (AttributeError, TypeError, ValueError, IndexError):
        return None


def _binary(op):
    x, y = op.inputs
    if not (_numeric(x) and _numeric(y)) or x.dtype is not y.dtype:
        return None
    return "expr", _BINARY[op.type], [x, y]


def _compare(op):
    x, y = op.inputs
    if not (_numeric(x) and _numeric(y)) or x.dtype is not y.dtype:
        return None
    if op.attrs.get("incompatible_shape_error") is False:
        return None   # the kernel answers a scalar False for unbroadcastable shapes
    return "expr", _COMPARE[op.type], [x, y]


def _realdiv(op):
    x, y = op.inputs
    if not (x.dtype.is_floating or x.dtype.is_complex) or x.dtype is not y.dtype:
        return None
    return "expr", "{0} / {1}", [x, y]


def _nonzero_const(t):
    c = _const(t)
    return c is not None and bool(np.all(np.asarray(c) != 0))


def _floordiv(op):
    x, y = op.inputs
    if not _numeric(x) or x.dtype is not y.dtype or x.dtype.is_complex or x.dtype.is_bool:
        return None
    if x.dtype.is_integer and not _nonzero_const(y):
        return None  # the kernel reports integer division by zero
    if x.dtype.is_floating:
        # floor(x / y), which Python's // on floats is not; FloorMod's zeros
        # keep x's sign, where Python's % gives them y's (the kernels' formulas)
        return None
    return "expr", "{0} // {1}" if op.type == "FloorDiv" else "{0} % {1}", [x, y]


def _pow(op):
    x, y = op.inputs
    if x.dtype is not y.dtype or not _numeric(x) or x.dtype.is_bool:
        return None
    if x.dtype.is_floating:
        # The Pow kernel (TensorFlow's eager bits, Eigen's pow: not x * x even
        # for y == 2); the constant exponents TensorFlow's graph optimizer
        # rewrites are graph_rewrite's.
        return None
    c = _const(y)
    if c is not None and np.ndim(c) == 0 and c == 2 and y.shape.rank == 0:
        return "expr", SQUARE, [x]   # exact, and much faster than power
    if x.dtype.is_integer:
        if c is None or np.any(np.asarray(c) < 0):
            return None
    return "expr", "{0} ** {1}", [x, y]


def graph_rewrite(op):
    """TensorFlow's graph optimizer's rewrites that change results, as
    `(kind, template, inputs)`, or None; applied with or without rillflow's own
    optimizations, so that a tf.function gives what TensorFlow's graphs give.

    Grappler's arithmetic optimizer turns a float Pow whose exponent is a constant
    2, 3, 0.5 or -0.5 (every element the same, not broadcasting the base) into
    Square, x * Square(x), Sqrt and Rsqrt, which round differently from the eager
    Pow (TensorFlow's eager and graph results differ on about a quarter of float32
    inputs), and a Pow by -1 into Reciprocal (the rcpps estimate and a Newton step
    on float32 packets)."""
    if op.type != "Pow":
        return None
    x, y = op.inputs
    if x.dtype not in (D.float32, D.float64) or y.dtype is not x.dtype:
        return None
    c = _const(y)
    if c is None:
        return None
    c = np.asarray(c)
    if c.size == 0 or not np.all(c == c.flat[0]):
        return None
    out = op.outputs[0].shape
    if y.shape.rank != 0 and not (x.shape.is_fully_defined() and out.is_fully_defined()
                                  and x.shape.as_list() == out.as_list()):
        return None
    e = float(c.flat[0])
    if e == 2.0:
        return "expr", SQUARE, [x]
    if e == 3.0:
        return "expr", "{0} * ({0} * {0})", [x]
    if e in (0.5, -0.5, -1.0):
        kernel, name = {0.5: (np.sqrt, "sqrt"), -0.5: (get("Rsqrt").kernel, "rsqrt"),
                        -1.0: (get("Reciprocal").kernel, "reciprocal")}[e]

        def template(em, args):
            return "%s(%s)" % (em.global_for(kernel, name), args[0])
        return "expr", template, [x]
    return None


def _unary(op):
    x = op.inputs[0]
    if not _numeric(x) or x.dtype.is_bool and op.type != "LogicalNot":
        return None
    if op.type in _FLOAT_ONLY_UNARY and not _real_float(x):
        return None
    return "expr", _UNARY[op.type], [x]


def _cast(op):
    x = op.inputs[0]
    dst = op.get_attr("DstT")
    if not _numeric(x) or dst._np is None or dst is D.string or x.dtype.is_complex:
        return None
    if dst.is_bool:
        return "expr", "({0} != 0)", [x]

    # Floats become integers by truncation toward zero, as TensorFlow casts.
    truncate = x.dtype.is_floating and dst.is_integer

    def template(em, args, dst=dst):
        value = "np.trunc(%s)" % args[0] if truncate else args[0]
        return "%s.astype(%s)" % (value, em.global_for(dst._np, "dtype_" + dst.name))
    return "expr", template, [x]


def _matmul(op):
    a, b = op.inputs
    attrs = op.attrs
    if attrs.get("adjoint_a") or attrs.get("adjoint_b"):
        return None
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    if a.dtype is not b.dtype or not (a.dtype.is_floating or a.dtype.is_complex or
                                      a.dtype in (D.int32, D.int64)):
        return None
    if a.dtype is D.bfloat16:
        return None   # (ml_dtypes' `@` gives float32; the kernel rounds back)
    if (ta or tb) and not (a.dtype in (D.float32, D.float64) or a.dtype.is_complex):
        return None   # the kernel's own integer and half-precision paths
    sa, sb = a.shape, b.shape
    if sa.rank != 2 or sb.rank != 2:
        return None
    inner_a, inner_b = sa[0 if ta else 1], sb[1 if tb else 0]
    if inner_a is None or inner_b is None or inner_a != inner_b:
        return None
    if a.dtype.is_integer:
        # NumPy's integer matmul is not blocked: only small products inline.
        dims = [sa[0], sa[1], sb[1]]
        if any(d is None for d in dims) or dims[0] * dims[1] * dims[2] > 64 ** 3:
            return None
    # `.T` is a view: NumPy passes the transpose to BLAS, as the kernel does.
    if (a.dtype is D.float32 and xla_gemm.enabled()) or (
            (a.dtype in (D.float32, D.float64) or a.dtype.is_complex) and
            _kernel_threads.spreading()):
        # Large float32 products may go to XLA's dot (RILLFLOW_XLA_GEMM=1),
        # or be cut over the kernel threads (RILLFLOW_BLAS_THREADS=kernels),
        # as the kernel's are.
        def template(em, args, ta=ta, tb=tb):
            return "%s(%s%s, %s%s)" % (em.global_for(xla_gemm.matmul, "xla_gemm"), args[0],
                                       ".T" if ta else "", args[1], ".T" if tb else "")
        return "expr", template, [a, b]
    return "expr", "{0}%s @ {1}%s" % (".T" if ta else "", ".T" if tb else ""), [a, b]


def _index_value(t, i):
    """The i-th element of a 1-D index tensor: (literal or None, tensor or None)."""
    c = _const(t)
    if c is not None:
        return int(np.reshape(c, -1)[i]), None
    if t.op.type == "Pack" and len(t.op.inputs) > i:
        elem = t.op.inputs[i]
        ce = _const(elem)
        if ce is not None:
            return int(ce), None
        if elem.shape.rank == 0 and elem.dtype.is_integer:
            return None, elem
    raise ValueError("index not available")


def _strided_slice(op):
    x, begin, end, strides = op.inputs
    a = op.attrs
    n = begin.shape[0] if begin.shape.rank == 1 else None
    if n is None or _const(strides) is None:
        return None
    steps = [int(v) for v in np.reshape(_const(strides), -1)]
    inputs = [x]
    parts = []

    def ref(lit, tensor):
        if tensor is None:
            return str(lit)
        inputs.append(tensor)
        return "{%d}" % (len(inputs) - 1)
    for i in range(n):
        bit = 1 << i
        if a.get("ellipsis_mask", 0) & bit:
            parts.append("...")
            continue
        if a.get("new_axis_mask", 0) & bit:
            parts.append("None")
            continue
        if a.get("shrink_axis_mask", 0) & bit:
            lit, t = _index_value(begin, i)
            parts.append(ref(lit, t))
            continue
        start = "" if a.get("begin_mask", 0) & bit else ref(*_index_value(begin, i))
        stop = "" if a.get("end_mask", 0) & bit else ref(*_index_value(end, i))
        step = "" if steps[i] == 1 else str(steps[i])
        parts.append("%s:%s%s" % (start, stop, ":" + step if step else ""))
    if not parts:
        return None
    return "expr", _slice_template(parts), inputs


def _slice_template(parts):
    def template(em, args):
        body = ", ".join(p.format(*args) if "{" in p else p for p in parts)
        return "%s(%s[%s])" % (em.global_for(slice_result, "sliced"), args[0], body)
    # loop_batch.py reads the index parts (a row `x[i]` of a stacked value).
    template.parts = tuple(parts)
    return template


def _assign_update(sign):
    def spec(op):
        h, v = op.inputs
        return "stmt", "{0}.value = {0}.value %s {1}" % sign, [h, v]
    return spec


def _select(op):
    c, x, y = op.inputs
    if not _numeric(x) or x.dtype is not y.dtype:
        return None
    return "expr", _select_template, [c, x, y]


def _select_template(em, args):
    # The kernel's bit select: np.where branches per element (slow on an
    # irregular mask) and gives the same values.
    return "%s(%s, %s, %s)" % (em.global_for(select_values, "select"), *args)


def _list_set_item(op):
    lst, index, item = op.inputs
    shape = op.attrs.get("element_shape")
    if op.attrs.get("dynamic_size") or not item.shape.is_fully_defined():
        return None
    if shape is not None and shape.rank is not None and not shape.is_compatible_with(
            item.shape):
        return None

    def template(em, args):
        return "%s(%s, %s, %s)" % (em.global_for(set_item_static, "list_set"), *args)
    return "expr", template, [lst, index, item]


def _tanh(op):
    # TensorFlow's tanh compiled (the jit extra), when it is installed: the
    # kernel's bits in one call instead of twenty ufunc calls.
    x = op.inputs[0]
    if x.dtype not in (D.float32, D.float64):
        return None
    n = x.shape.num_elements()
    if n is not None and n < jit_kernels.MIN_ELEMENTS:
        return None
    kernel = jit_kernels.tanh()
    if kernel is None:
        return None

    def template(em, args):
        return "%s(%s)" % (em.global_for(kernel, "tanh_jit"), args[0])
    return "expr", template, [x]


_TABLE = {name: _binary for name in _BINARY}
_TABLE.update({name: _compare for name in _COMPARE})
_TABLE.update({name: _unary for name in _UNARY})
_TABLE.update({
    "RealDiv": _realdiv, "FloorDiv": _floordiv, "FloorMod": _floordiv, "Pow": _pow,
    "Cast": _cast, "MatMul": _matmul, "StridedSlice": _strided_slice,
    "AssignAddVariableOp": _assign_update("+"), "AssignSubVariableOp": _assign_update("-"),
    "SelectV2": _select, "TensorListSetItem": _list_set_item, "Tanh": _tanh,
})

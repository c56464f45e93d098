"""Reductions over axes (sum, mean, max, ...), arg-reductions, scans
(cumsum, cumprod, cumulative_logsumexp), segment reductions, bincount and
`add_n`.

The reduction axes are an int32/int64 input tensor, as in TensorFlow, so
they may be computed at run time (gradients of broadcasting need that).
Composite functions (`reduce_logsumexp`, `reduce_variance`, ...) are built
from the registered ops exactly as TensorFlow builds them, so their graphs,
values and gradients match; eagerly, without a tape, some of them compute
the same NumPy expression directly to skip the per-op overhead.
"""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text, shape_text
from . import op_util as U
from .. import late

_state = _context.state
_BOOL = (D.bool_,)


def _present(*dtypes):
    return tuple(d for d in dtypes if d is not None)


# Allowed dtypes in the order TensorFlow lists them in its messages.
NUMERIC = _present(D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.complex64,
                   D.int64, D.bfloat16, D.uint16, D.complex128, D.float16, D.uint32, D.uint64)
REAL = _present(D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64, D.bfloat16,
                D.uint16, D.float16, D.uint32, D.uint64)
FLOATS = _present(D.bfloat16, D.float16, D.float32, D.float64)
_IDX = U.INDEX
_ARG_OUT = (D.int16, D.uint16, D.int32, D.int64)


# --- small helpers -----------------------------------------------------------

def _invalid(msg, op_name=None):
    """An InvalidArgumentError; `op_name` appends the ` [Op:Name]` suffix,
    needed when the message itself ends with `]` (a shape)."""
    if op_name is not None:
        msg = f"{msg} [Op:{op_name}]"
    return errors.InvalidArgumentError(None, None, msg)


def _input_name(op_name, arg):
    """The name TensorFlow gives a constant input made for an op while
    building a graph: `<op name>/<arg>` (e.g. `Sum/reduction_indices`)."""
    g = _state.graph
    if g is None or op_name is None:
        return None
    full = g.unique_name(op_name, mark_as_used=False)
    stack = g.get_name_scope()
    if stack and full.startswith(stack + "/"):
        full = full[len(stack) + 1:]
    return f"{full}/{arg}"


_EAGER_AXES = {}


def _cached_axes(key, make):
    t = _EAGER_AXES.get(key)
    if t is None:
        t = _EAGER_AXES[key] = EagerTensor(make())
    return t


def _index_tensor(v, op_name=None, arg=None, strict=True):
    """An axis/index/size argument as an int tensor (Python values become
    int32). With `strict`, a Python float is rejected while converting;
    otherwise it becomes a float tensor for the op's dtype check to reject.
    In graphs a new constant is named after the op (`op_name`/`arg`)."""
    if isinstance(v, Tensor):
        return v
    if v.__class__ is int and -64 <= v < 64 and _state.graph is None:
        return _cached_axes(v, lambda: np.int32(v))
    if hasattr(v, "_dense_var_to_tensor"):
        return convert_to_tensor(v)
    name = _input_name(op_name, arg) if arg is not None else None
    if not strict:
        return convert_to_tensor(v, name=name)
    if isinstance(v, np.ndarray) and v.dtype.kind in "iu":
        return convert_to_tensor(v if v.dtype in (np.int32, np.int64) else v.astype(np.int32),
                                 name=name)
    return convert_to_tensor(v, dtype=D.int32, name=name)


def _scope(name):
    """A name scope for a composite op while building a graph (nothing eagerly)."""
    g = _state.graph
    if g is None:
        return contextlib.nullcontext()
    return g.name_scope(name)


def _fast_eager():
    """Whether composites may compute their value directly: eager, no tape."""
    return _state.graph is None and not _state.tapes


# --- axes --------------------------------------------------------------------

def _axes(axis, ndim):
    """Normalizes a runtime axis array to a tuple of distinct non-negative ints.

    Raises:
      InvalidArgumentError: for an axis out of range or a repeated axis.
    """
    if axis.ndim == 0:
        a = int(axis)
        if -ndim <= a < ndim:
            return (a % ndim,)
        vals = (a,)
    else:
        vals = axis.reshape(-1).tolist()
    out = []
    for a in vals:
        if not -ndim <= a < ndim:
            raise _invalid(f"Invalid reduction dimension ({a} for input with {ndim} "
                           "dimension(s)")
        a %= ndim
        if a in out:
            raise _invalid("Invalid reduction arguments: Axes contains duplicate dimension: "
                           f"{a}")
        out.append(a)
    return tuple(out)


def reduction_infer(op_name, out_dtype=None, allowed=None):
    """Shape function of a reduction whose second input is the axes.

    Duplicate axes are accepted here (TensorFlow rejects them only when the
    op runs); out-of-range constant axes raise ValueError.
    """
    def infer(inputs, attrs):
        x, a = inputs
        if allowed is not None and x.dtype not in allowed:
            if allowed == _BOOL:
                raise TypeError(f"Input 'input' of '{op_name}' Op has type {x.dtype.name} that "
                                "does not match expected type of bool.")
            raise U.graph_dtype_error("input", x.dtype, allowed)
        U.check_graph_dtype(a, _IDX, "reduction_indices")
        if a.shape.rank is not None and a.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {a.shape.rank}")
        keep = attrs.get("keep_dims", False)
        dtype = out_dtype or x.dtype
        s = x.shape
        axis = U.constant_value(a)
        if axis is None:
            if a.shape.num_elements() == 0:
                return [(s, dtype)]
            if keep and s.rank is not None:
                return [(TensorShape([None] * s.rank), dtype)]
            return [(TensorShape(None), dtype)]
        if s.rank is None:
            return [(TensorShape(None), dtype)]
        r = s.rank
        ax = set()
        for v in np.reshape(axis, -1).tolist():
            v = int(v)
            if not -r <= v < r:
                raise ValueError(f"Invalid reduction dimension {v} for input with {r} "
                                 "dimensions.")
            ax.add(v % r)
        if keep:
            dims = [1 if i in ax else d for i, d in enumerate(s)]
        else:
            dims = [d for i, d in enumerate(s) if i not in ax]
        return [(TensorShape(dims), dtype)]
    return infer


def _all_axes(x):
    """[0, 1, ..., rank(x) - 1] as a tensor, for an input of unknown rank."""
    return late.range(0, late.rank(x))


def _axis_tensor(x, axis, op_name=None, op_type="Sum"):
    """The axes argument of a reduction as an int tensor (all axes for None).

    `op_name` names a constant made for the axes in graphs; `op_type` is the
    op named in dtype errors.

    Eagerly the tensors of common axes are cached: they are immutable and
    converting them is a noticeable share of a small reduction's cost.
    """
    if _state.graph is None:
        if axis is None:
            n = x._v.ndim
            return _cached_axes(("all", n), lambda: np.arange(n, dtype=np.int32))
        cls = axis.__class__
        if cls is int:
            if -64 <= axis < 64:
                return _cached_axes(axis, lambda: np.int32(axis))
        elif (cls is list or cls is tuple) and len(axis) <= 8 and \
                all(a.__class__ is int and -64 <= a < 64 for a in axis):
            key = tuple(axis)
            return _cached_axes(key, lambda: np.array(key, dtype=np.int32))
    if axis is None:
        r = x.shape.rank
        if r is not None:
            return convert_to_tensor(np.arange(r, dtype=np.int32),
                                     name=_input_name(op_name, "reduction_indices"))
        return _all_axes(x)
    a = _index_tensor(axis, op_name, "reduction_indices")
    U.check_dtype(op_type, a, _IDX, attr="Tidx", param="reduction_indices")
    return a


def reduce(opdef, input_tensor, axis, keepdims, name):
    """Runs a reduction op with TensorFlow's axis conventions.

    `axis` may be None (all axes), an int, a list/tuple or a tensor;
    negative axes count from the end.
    """
    x = input_tensor if input_tensor.__class__ is EagerTensor else \
        convert_to_tensor(input_tensor)
    allowed_np = opdef.allowed_np
    if allowed_np is not None and x.__class__ is EagerTensor and x._v.dtype not in allowed_np:
        if opdef.allowed == _BOOL:
            raise _invalid(f"cannot compute {opdef.name} as input #0(zero-based) was expected "
                           f"to be a bool tensor but is a {U.tf_type_name(x.dtype)} tensor "
                           f"[Op:{opdef.name}]")
        raise U.eager_dtype_error(opdef.name, "T", x.dtype, opdef.allowed)
    a = _axis_tensor(x, axis, name, opdef.name)
    out = apply2(opdef, x, a, {"keep_dims": bool(keepdims)}, name=name)
    if axis is None and not keepdims and _state.graph is not None and out.shape.rank is None:
        # All axes of an input of unknown rank: still a scalar.
        out.set_shape(TensorShape([]))
    return out


# --- kernels -----------------------------------------------------------------

# The ufuncs' reduce methods directly: np.sum & co. add a Python wrapper that
# costs as much as the reduction itself on small arrays.
_add_reduce = np.add.reduce
_mul_reduce = np.multiply.reduce
_max_reduce = np.maximum.reduce
_min_reduce = np.minimum.reduce
_and_reduce = np.logical_and.reduce
_or_reduce = np.logical_or.reduce


def _sum_kernel(x, axis, keep_dims=False):
    return _add_reduce(x, axis=_axes(axis, x.ndim), dtype=x.dtype, keepdims=keep_dims)


def _count(x, ax):
    n = 1
    for a in ax:
        n *= x.shape[a]
    return n


def _int_mean(s, n, dtype):
    """Integer mean: quotient truncated toward zero, as C++ integer division
    (without negating, which would overflow for the most negative sum)."""
    q = s // n
    if dtype.kind == "i":
        q = q + ((s < 0) & (q * n != s))
    return np.asarray(q).astype(dtype)[()]


def _mean_kernel(x, axis, keep_dims=False):
    ax = _axes(axis, x.ndim)
    n = _count(x, ax)
    k = x.dtype.kind
    if k in "iu":
        # TensorFlow accumulates integer means in 64 bits (int8 [100, 100]
        # gives 100), wrapping only when the 64-bit sum overflows.
        s = _add_reduce(x, axis=ax, dtype=np.int64 if k == "i" else np.uint64,
                        keepdims=keep_dims)
        if n == 0:
            return np.zeros(np.shape(s), dtype=x.dtype)[()]
        return _int_mean(s, n, x.dtype)
    s = _add_reduce(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)
    if n == 0:
        return np.full(np.shape(s), np.nan, dtype=x.dtype)[()]
    return s / x.dtype.type(n)


def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


def _max_kernel(x, axis, keep_dims=False):
    ax = _axes(axis, x.ndim)
    if x.size == 0:
        return _max_reduce(x, axis=ax, keepdims=keep_dims, initial=_lowest(x.dtype))
    return _max_reduce(x, axis=ax, keepdims=keep_dims)


def _min_kernel(x, axis, keep_dims=False):
    ax = _axes(axis, x.ndim)
    if x.size == 0:
        return _min_reduce(x, axis=ax, keepdims=keep_dims, initial=_highest(x.dtype))
    return _min_reduce(x, axis=ax, keepdims=keep_dims)


def _prod_kernel(x, axis, keep_dims=False):
    return _mul_reduce(x, axis=_axes(axis, x.ndim), dtype=x.dtype, keepdims=keep_dims)


def _all_kernel(x, axis, keep_dims=False):
    return _and_reduce(x, axis=_axes(axis, x.ndim), keepdims=keep_dims)


def _any_kernel(x, axis, keep_dims=False):
    return _or_reduce(x, axis=_axes(axis, x.ndim), keepdims=keep_dims)


def _euclidean_norm_kernel(x, axis, keep_dims=False):
    ax = _axes(axis, x.ndim)
    k = x.dtype.kind
    if k == "c":
        s = np.sum((x * np.conj(x)).real, axis=ax, keepdims=keep_dims)
        return np.asarray(np.sqrt(s)).astype(x.dtype)[()]
    if k in "iu":
        # Integer norms are truncated ([3, 5] gives 5).
        s = np.sum(np.square(x.astype(np.float64)), axis=ax, keepdims=keep_dims)
        return np.asarray(np.sqrt(s)).astype(x.dtype)[()]
    return np.sqrt(np.sum(np.square(x), axis=ax, keepdims=keep_dims, dtype=x.dtype))


# --- gradients ---------------------------------------------------------------

def _reduced_shape_keepdims(x, axis):
    """The shape of `x` with the reduced axes set to 1, as a list when known
    while building, else as an int32 tensor computed at run time."""
    s = x.shape
    a = U.constant_value(axis)
    r = s.rank
    if a is not None and r is not None:
        ax = {int(v) % r for v in np.reshape(a, -1).tolist()} if r else set()
        if s.is_fully_defined():
            return [1 if i in ax else d for i, d in enumerate(s.as_list())]
        mask = np.array([i in ax for i in range(r)], dtype=bool)
        xs = late.shape(x)
        return late.where(convert_to_tensor(mask), late.ones_like(xs), xs)
    # Fully dynamic: mark the reduced positions of shape(x) with a
    # comparison of [0 .. rank-1] against the (wrapped) axes.
    xs = late.shape(x)
    n = late.size(xs)
    positions = cumsum(late.ones_like(xs), exclusive=True)
    axes = late.floormod(late.reshape(late.cast(axis, D.int32), [-1]), n)
    hit = reduce_any(late.equal(late.expand_dims(positions, 1), late.expand_dims(axes, 0)), axis=1)
    return late.where(hit, late.ones_like(xs), xs)


def U_reshape(t, s):
    """reshape, imported lazily (array_ops imports this module)."""
    return late.reshape(t, s)


def _keepdims_grad(op, g, y=None):
    """(g, y) reshaped so that they broadcast against the op's input."""
    if op.get_attr("keep_dims"):
        return g, y
    x, axis = op.inputs
    shp = _reduced_shape_keepdims(x, axis)
    g = late.reshape(g, shp)
    if y is not None:
        y = late.reshape(y, shp)
    return g, y


def _sum_grad(op, g):
    x = op.inputs[0]
    g, _ = _keepdims_grad(op, g)
    return [late.broadcast_to(g, late.shape(x)), None]


def _mean_grad(op, g):
    x = op.inputs[0]
    y = op.outputs[0]
    sum_grad = _sum_grad(op, g)[0]
    nx, ny = x.shape.num_elements(), y.shape.num_elements()
    if nx is not None and ny is not None:
        factor = convert_to_tensor(nx // max(ny, 1), dtype=sum_grad.dtype)
    else:
        factor = late.cast(late.floordiv(late.size(x), late.maximum(late.size(y), 1)), sum_grad.dtype)
    return [late.truediv(sum_grad, factor), None]


def _min_or_max_grad(op, g):
    """Ties share the gradient equally, as in TensorFlow."""
    x, axis = op.inputs
    g, y = _keepdims_grad(op, g, op.outputs[0])
    indicators = late.cast(late.equal(y, x), g.dtype)
    num_selected = reduce_sum(indicators, axis, keepdims=True)
    return [late.multiply(late.truediv(indicators, num_selected), g), None]


def _prod_grad(op, g):
    """d prod / dx_i is the product of the other elements; zeros are handled
    by counting them instead of dividing by them."""
    x, axis = op.inputs
    g, _ = _keepdims_grad(op, g)
    zero = late.zeros_like(x)
    is_zero = late.equal(x, zero)
    num_zeros = reduce_sum(late.cast(is_zero, D.int32), axis, keepdims=True)
    safe = late.where(is_zero, late.ones_like(x), x)
    prod_nonzero = reduce_prod(safe, axis, keepdims=True)
    others = late.where(late.equal(num_zeros, 0), late.truediv(prod_nonzero, safe),
                   late.where(late.logical_and(late.equal(num_zeros, 1), is_zero),
                         late.broadcast_to(prod_nonzero, late.shape(x)), zero))
    return [late.multiply(g, late.conj(others)), None]


def _euclidean_norm_grad(op, g):
    x = op.inputs[0]
    g, y = _keepdims_grad(op, g, op.outputs[0])
    return [late.multiply(g, late.conj(late.truediv(x, y))), None]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


# --- registry entries --------------------------------------------------------

_Sum = register("Sum", _sum_kernel, reduction_infer("Sum", allowed=NUMERIC), _sum_grad,
                allowed=NUMERIC)
_Mean = register("Mean", _mean_kernel, reduction_infer("Mean", allowed=NUMERIC), _mean_grad,
                 allowed=NUMERIC)
_Max = register("Max", _max_kernel, reduction_infer("Max", allowed=REAL), _min_or_max_grad,
                allowed=REAL)
_Min = register("Min", _min_kernel, reduction_infer("Min", allowed=REAL), _min_or_max_grad,
                allowed=REAL)
_Prod = register("Prod", _prod_kernel, reduction_infer("Prod", allowed=NUMERIC), _prod_grad,
                 allowed=NUMERIC)
_All = register("All", _all_kernel, reduction_infer("All", allowed=_BOOL), _no_grad,
                allowed=_BOOL)
_Any = register("Any", _any_kernel, reduction_infer("Any", allowed=_BOOL), _no_grad,
                allowed=_BOOL)
_EuclideanNorm = register("EuclideanNorm", _euclidean_norm_kernel,
                          reduction_infer("EuclideanNorm", allowed=NUMERIC),
                          _euclidean_norm_grad, allowed=NUMERIC)


# --- public reductions -------------------------------------------------------

@export("math.reduce_sum", "reduce_sum")
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """The sum of elements across `axis` (all axes when None).

    Raises:
      InvalidArgumentError: (eager) / ValueError (graph) for an axis out of
        range.
    """
    return reduce(_Sum, input_tensor, axis, keepdims, name or "Sum")


@export("math.reduce_mean", "reduce_mean")
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """The mean of elements across `axis` (all axes when None).

    Integer inputs give an integer mean truncated toward zero, as in
    TensorFlow; the mean of no elements is NaN (0 for integers).
    """
    return reduce(_Mean, input_tensor, axis, keepdims, name or "Mean")


@export("math.reduce_max", "reduce_max")
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """The maximum across `axis`; -inf (or the dtype's lowest value) for no
    elements. NaN propagates."""
    return reduce(_Max, input_tensor, axis, keepdims, name or "Max")


@export("math.reduce_min", "reduce_min")
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """The minimum across `axis`; inf (or the dtype's highest value) for no
    elements. NaN propagates."""
    return reduce(_Min, input_tensor, axis, keepdims, name or "Min")


@export("math.reduce_prod", "reduce_prod")
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """The product of elements across `axis` (1 for no elements)."""
    return reduce(_Prod, input_tensor, axis, keepdims, name or "Prod")


@export("math.reduce_all", "reduce_all")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical AND across `axis` of a bool tensor (True for no elements)."""
    return reduce(_All, input_tensor, axis, keepdims, name or "All")


@export("math.reduce_any", "reduce_any")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical OR across `axis` of a bool tensor (False for no elements)."""
    return reduce(_Any, input_tensor, axis, keepdims, name or "Any")


@export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) across `axis`; integer results are truncated."""
    return reduce(_EuclideanNorm, input_tensor, axis, keepdims, name or "EuclideanNorm")


def _float_check(op_name, x):
    U.check_dtype(op_name, x, FLOATS, param="x")


def _lse_value(xv, axis, keepdims):
    """reduce_logsumexp's value computed directly (the composite's exact steps)."""
    raw_max = _max_kernel(xv, axis, True)
    my_max = np.where(np.isfinite(raw_max), raw_max, np.zeros((), xv.dtype))
    with np.errstate(all="ignore"):
        s = _sum_kernel(np.exp(xv - my_max), axis, keepdims)
        out = np.log(s)
    return (out + np.reshape(my_max, np.shape(out))).astype(xv.dtype)[()]


@export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) across `axis`, computed stably by subtracting the
    (finite) maximum first; -inf for no elements."""
    x = convert_to_tensor(input_tensor)
    _float_check("IsFinite", x)
    if _fast_eager():
        a = _axis_tensor(x, axis, op_type="Max")
        try:
            return EagerTensor(_lse_value(x._v, a._v, bool(keepdims)))
        except errors.InvalidArgumentError as e:
            raise _invalid(e.message + " [Op:Max]") from None
    with _scope(name or "ReduceLogSumExp"):
        raw_max = reduce_max(x, axis, keepdims=True)
        my_max = late.stop_gradient(late.where(late.is_finite(raw_max), raw_max, 0))
        result = late.log(reduce_sum(late.exp(late.subtract(x, my_max)), axis, keepdims=keepdims))
        if not keepdims:
            my_max = late.reshape(my_max, late.shape(result))
        return late.add(result, my_max)


def _variance_check(x):
    if x.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"{x.dtype}.")


def _variance_value(xv, axis, keepdims):
    """reduce_variance's value computed directly (the composite's exact steps)."""
    means = _mean_kernel(xv, axis, True)
    d = xv - means
    sq = (d * np.conj(d)).real if d.dtype.kind == "c" else np.square(d)
    return _mean_kernel(sq, axis, keepdims)


def _variance(x, axis, keepdims):
    means = reduce_mean(x, axis, keepdims=True)
    d = late.subtract(x, means, name="sub")
    if x.dtype.is_complex:
        sq = late.real(late.multiply(d, late.conj(d)))
    else:
        sq = late.square(d)
    return reduce_mean(sq, axis, keepdims=keepdims)


@export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The population variance across `axis`: mean(|x - mean(x)|**2).

    Complex inputs give a real result.

    Raises:
      TypeError: for integer inputs.
    """
    x = convert_to_tensor(input_tensor)
    _variance_check(x)
    if _fast_eager() and x._v.dtype.kind in "fc":
        a = _axis_tensor(x, axis, op_type="Mean")
        try:
            return EagerTensor(_variance_value(x._v, a._v, bool(keepdims)))
        except errors.InvalidArgumentError as e:
            raise _invalid(e.message + " [Op:Mean]") from None
    with _scope(name or "reduce_variance"):
        return _variance(x, axis, keepdims)


@export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The population standard deviation across `axis` (sqrt of the variance).

    Raises:
      TypeError: for integer inputs.
    """
    x = convert_to_tensor(input_tensor)
    _variance_check(x)
    if _fast_eager() and x._v.dtype.kind in "fc":
        a = _axis_tensor(x, axis, op_type="Mean")
        try:
            return EagerTensor(np.sqrt(_variance_value(x._v, a._v, bool(keepdims))))
        except errors.InvalidArgumentError as e:
            raise _invalid(e.message + " [Op:Mean]") from None
    with _scope(name or "reduce_std"):
        with _scope("reduce_variance"):
            var = _variance(x, axis, keepdims)
        return late.sqrt(var)


# --- argmax / argmin -----------------------------------------------------------

def _arg_axis(dimension, ndim, op_name):
    if np.ndim(dimension) != 0:
        raise _invalid(f"dimension must be a scalar, but got shape "
                       f"{dims_text(np.shape(dimension))}", op_name)
    a = int(dimension)
    if not -ndim <= a < ndim:
        raise _invalid(f"Expected dimension in the range [{-ndim}, {ndim}), but got {a}")
    return a % ndim


def _arg_kernel(op_name, find, nan_fill):
    def kernel(x, dimension, output_type=D.int64):
        a = _arg_axis(dimension, x.ndim, op_name)
        if x.shape[a] == 0:
            raise _invalid(f"Reduction axis {a} is empty in shape {dims_text(x.shape)}",
                           op_name)
        if x.dtype.kind == "f" and np.isnan(_add_reduce(x, axis=None)):
            # TensorFlow never selects a NaN (NumPy selects the first one).
            x = np.where(np.isnan(x), nan_fill, x)
        return np.asarray(find(x, axis=a)).astype(output_type._np)[()]
    return kernel


def _arg_infer(op_name):
    def infer(inputs, attrs):
        x, d = inputs
        U.check_graph_dtype(x, _ARG_IN, "input")
        U.check_graph_dtype(d, _IDX, "dimension")
        out = attrs.get("output_type", D.int64)
        s = x.shape
        if s.rank is None:
            return [(TensorShape(None), out)]
        if s.rank == 0:
            return [(TensorShape([]), out)]
        a = U.constant_value(d)
        if a is None:
            return [(TensorShape([None] * (s.rank - 1)), out)]
        a = int(np.reshape(a, -1)[0])
        r = s.rank
        if not -r <= a < r:
            raise ValueError(f"Dimension ({a}) must be in the range [{-r}, {r}), where {r} is "
                             "the number of dimensions in the input.")
        dims = s.as_list()
        del dims[a % r]
        return [(TensorShape(dims), out)]
    return infer


_ARG_IN = REAL + _BOOL
_ArgMax = register("ArgMax", _arg_kernel("ArgMax", np.argmax, -np.inf), _arg_infer("ArgMax"),
                   _no_grad, allowed=_ARG_IN)
_ArgMin = register("ArgMin", _arg_kernel("ArgMin", np.argmin, np.inf), _arg_infer("ArgMin"),
                   _no_grad, allowed=_ARG_IN)


def _arg_reduce(opdef, input, axis, output_type, name):  # noqa: A002
    x = convert_to_tensor(input)
    if output_type.__class__ is not D.DType:
        output_type = D.as_dtype(output_type)
    if output_type not in _ARG_OUT:
        if _state.graph is None:
            raise U.eager_dtype_error(opdef.name, "output_type", output_type, _ARG_OUT)
        raise U.graph_dtype_error("output_type", output_type, _ARG_OUT)
    U.check_dtype(opdef.name, x, _ARG_IN)
    if axis is None:
        axis = 0
    if isinstance(axis, (list, tuple)):
        raise TypeError("axis must be int or Tensor with integer datatype")
    a = _index_tensor(axis, name, "dimension")
    if a.dtype not in _IDX:
        raise TypeError("axis must be int or Tensor with integer datatype")
    return apply2(opdef, x, a, {"output_type": output_type}, name=name)


@export("math.argmax", "argmax")
def argmax(input, axis=None, output_type=D.int64, name=None):  # noqa: A002
    """The index of the largest value along `axis` (0 when None, as in
    TensorFlow 2); the first one on ties; NaNs are never selected.

    Raises:
      InvalidArgumentError: for an axis out of range or an empty axis.
    """
    return _arg_reduce(_ArgMax, input, axis, output_type, name or "ArgMax")


@export("math.argmin", "argmin")
def argmin(input, axis=None, output_type=D.int64, name=None):  # noqa: A002
    """The index of the smallest value along `axis` (0 when None, as in
    TensorFlow 2); the first one on ties; NaNs are never selected.

    Raises:
      InvalidArgumentError: for an axis out of range or an empty axis.
    """
    return _arg_reduce(_ArgMin, input, axis, output_type, name or "ArgMin")


# --- scans: cumsum, cumprod, cumulative_logsumexp -------------------------------

def _scan_axis(axis, ndim, op_name):
    if np.ndim(axis) != 0:
        raise _invalid(f"ScanOp: axis must be a scalar, not {dims_text(np.shape(axis))}",
                       op_name)
    a = int(axis)
    if not -ndim <= a < ndim:
        raise _invalid(f"ScanOp: Expected scan axis in the range [{-ndim}, {ndim}), but got "
                       f"{a}")
    return a % ndim


def _scan_kernel(op_name, accumulate, identity):
    def kernel(x, axis, exclusive=False, reverse=False):
        a = _scan_axis(axis, x.ndim, op_name)
        if reverse:
            x = np.flip(x, a)
        if exclusive:
            out = np.empty_like(x)
            head = [slice(None)] * x.ndim
            tail = list(head)
            first = list(head)
            head[a] = slice(None, -1)
            tail[a] = slice(1, None)
            first[a] = slice(0, 1)
            out[tuple(first)] = identity
            if x.shape[a] > 1:
                out[tuple(tail)] = accumulate(x[tuple(head)], a)
        else:
            out = accumulate(x, a)
        if reverse:
            out = np.flip(out, a)
        return out
    return kernel


def _scan_infer(op_name, allowed):
    def infer(inputs, attrs):
        x, a = inputs
        U.check_graph_dtype(x, allowed, "x")
        U.check_graph_dtype(a, _IDX, "axis")
        return [(x.shape, x.dtype)]
    return infer


def _cumsum_grad(op, g):
    axis = op.inputs[1]
    return [cumsum(g, axis, exclusive=op.get_attr("exclusive"),
                   reverse=not op.get_attr("reverse")), None]


def _cumprod_grad(op, g):
    # The sum over later outputs of g * y / x. Like TensorFlow, inputs equal
    # to 0 get a 0 gradient (division without NaN).
    x, axis = op.inputs
    y = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    out = cumsum(late.multiply(late.conj(y), g), axis, exclusive=exclusive, reverse=not reverse)
    return [late.div_no_nan(out, late.conj(x)), None]


def _cumulative_logsumexp_grad(op, g):
    # dL/dx_k = exp(x_k) * sum_j g_j exp(-y_j) over the outputs y_j that
    # include x_k; positive and negative g are accumulated separately in
    # log space so that nothing overflows.
    x, axis = op.inputs
    y = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    one = convert_to_tensor(1, dtype=g.dtype)
    minus_inf = convert_to_tensor(-np.inf, dtype=g.dtype)
    zero = convert_to_tensor(0, dtype=g.dtype)

    def part(mask, mag):
        log_g = late.where(mask, late.log(late.where(mask, mag, one)), minus_inf)
        acc = cumulative_logsumexp(late.subtract(log_g, y), axis, exclusive=exclusive,
                                   reverse=not reverse)
        return late.exp(late.add(acc, x))

    return [late.subtract(part(late.greater(g, zero), g), part(late.less(g, zero), late.negative(g))), None]


def _cumsum_acc(x, a):
    return np.add.accumulate(x, axis=a, dtype=x.dtype)


def _cumprod_acc(x, a):
    return np.multiply.accumulate(x, axis=a, dtype=x.dtype)


def _logaddexp_acc(x, a):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x, axis=a)


def _register_scan(name, accumulate, identity, grad, allowed):
    return register(name, _scan_kernel(name, accumulate, identity), _scan_infer(name, allowed),
                    grad, allowed=allowed)


_Cumsum = _register_scan("Cumsum", _cumsum_acc, 0, _cumsum_grad, NUMERIC)
_Cumprod = _register_scan("Cumprod", _cumprod_acc, 1, _cumprod_grad, NUMERIC)
_CumulativeLogsumexp = _register_scan("CumulativeLogsumexp", _logaddexp_acc, -np.inf,
                                      _cumulative_logsumexp_grad, FLOATS)


def _scan(opdef, x, axis, exclusive, reverse, name):
    x = convert_to_tensor(x)
    U.check_dtype(opdef.name, x, opdef.allowed, param="x")
    a = _index_tensor(axis, name, "axis")
    if a.dtype not in _IDX:
        U.check_dtype(opdef.name, a, _IDX, attr="Tidx", param="axis")
    return apply2(opdef, x, a, {"exclusive": bool(exclusive), "reverse": bool(reverse)},
                  name=name)


@export("math.cumsum", "cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative sum along `axis`.

    `exclusive` leaves each element out of its own sum (the first output is
    0); `reverse` sums from the end.
    """
    return _scan(_Cumsum, x, axis, exclusive, reverse, name or "Cumsum")


@export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative product along `axis` (`exclusive` starts from 1,
    `reverse` multiplies from the end)."""
    return _scan(_Cumprod, x, axis, exclusive, reverse, name or "Cumprod")


@export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative log-sum-exp along `axis`, computed stably (float
    inputs only; `exclusive` starts from -inf)."""
    return _scan(_CumulativeLogsumexp, x, axis, exclusive, reverse,
                 name or "CumulativeLogsumexp")


# --- count_nonzero -------------------------------------------------------------

@export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=D.int64, name=None):  # noqa: A002
    """The number of non-zero elements across `axis` (non-empty strings,
    True values, NaNs count), as `dtype` (int64 by default)."""
    dtype = D.as_dtype(dtype)
    with _scope(name or "count_nonzero"):
        x = convert_to_tensor(input)
        zero = late.zeros([], dtype=x.dtype)
        nonzero = late.cast(late.not_equal(x, zero), D.int64)
        return late.cast(reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)), dtype)


# --- segment reductions (sorted segment ids) -----------------------------------

_SORTED_IDX = U.INDEX
_UNSORTED_IDX = (D.int16, D.int32, D.int64)


def _sorted_segments(data, ids):
    """Validates sorted segment ids; returns (number of segments, run starts)."""
    if data.ndim < 1:
        raise _invalid("input must be at least rank 1")
    if ids.ndim != 1:
        raise _invalid("segment_ids should be a vector.")
    if ids.shape[0] != data.shape[0]:
        raise _invalid("segment_ids should be the same size as dimension 0 of input.")
    if ids.shape[0] == 0:
        return 0, np.zeros(0, dtype=np.intp)
    n = int(ids[-1]) + 1
    if ids[0] < 0:
        raise _invalid(f"Segment id {int(ids[0])} out of range [0, {n}), possibly because "
                       "'segment_ids' input is not sorted.")
    step = ids[1:] != ids[:-1]
    if np.any(ids[1:] < ids[:-1]):
        raise _invalid("segment ids are not increasing")
    starts = np.concatenate([[0], np.flatnonzero(step) + 1])
    return n, starts


def _segment_kernel(ufunc, empty):
    def kernel(data, segment_ids):
        n, starts = _sorted_segments(data, segment_ids)
        out = np.full((n,) + data.shape[1:], empty, dtype=data.dtype)
        if starts.size:
            out[segment_ids[starts]] = ufunc.reduceat(data, starts, axis=0, dtype=data.dtype)
        return out
    return kernel


def _segment_mean_kernel(data, segment_ids):
    n, starts = _sorted_segments(data, segment_ids)
    out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
    if starts.size:
        sums = np.add.reduceat(data, starts, axis=0, dtype=data.dtype)
        counts = np.diff(np.append(starts, data.shape[0])).reshape(
            (-1,) + (1,) * (data.ndim - 1))
        if data.dtype.kind in "iu":
            out[segment_ids[starts]] = _int_mean(sums, counts, data.dtype)
        else:
            out[segment_ids[starts]] = sums / counts.astype(data.dtype)
    return out


def _segment_infer(op_name, allowed):
    def infer(inputs, attrs):
        data, ids = inputs
        U.check_graph_dtype(data, allowed, "data")
        U.check_graph_dtype(ids, _SORTED_IDX, "segment_ids")
        if ids.shape.rank is not None and ids.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {ids.shape.rank}")
        s = data.shape
        if s.rank is None:
            return [(TensorShape(None), data.dtype)]
        if s.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        return [(TensorShape([None] + s.as_list()[1:]), data.dtype)]
    return infer


def _gather(params, indices):
    return late.gather(params, indices)


def _rows_like(t, like):
    """A 1-D `t` of one value per segment reshaped to broadcast against `like`
    (whose first dimension is the segments)."""
    r = like.shape.rank
    if r is not None:
        return late.reshape(t, [-1] + [1] * (r - 1))
    ones = late.fill(late.reshape(late.rank(like) - 1, [1]), 1)
    return late.reshape(t, late.concat([convert_to_tensor([-1]), ones], 0))


def _segment_sum_grad(op, g):
    return [_gather(g, op.inputs[1]), None]


def _segment_mean_grad(op, g):
    data, ids = op.inputs
    counts = segment_sum(late.cast(late.ones_like(ids), g.dtype), ids)
    counts = late.maximum(counts, convert_to_tensor(1, dtype=g.dtype))
    return [_gather(late.truediv(g, _rows_like(counts, g)), ids), None]


def _segment_min_or_max_grad(op, g):
    """Ties within a segment share its gradient equally."""
    data, ids = op.inputs
    is_selected = late.equal(data, _gather(op.outputs[0], ids))
    num_selected = segment_sum(late.cast(is_selected, g.dtype), ids)
    weighted = late.truediv(g, num_selected)
    return [late.where(is_selected, _gather(weighted, ids), late.zeros_like(data)), None]


def _prod_without_self(data, gathered_prod, gathered_prod_nonzero, gathered_num_zeros,
                       is_zero, safe):
    """The product of the other elements of each element's segment."""
    at_zero = late.where(late.equal(gathered_num_zeros, 1), gathered_prod_nonzero, late.zeros_like(data))
    return late.where(is_zero, at_zero, late.truediv(gathered_prod, safe))


def _segment_prod_grad(op, g):
    data, ids = op.inputs
    is_zero = late.equal(data, late.zeros_like(data))
    num_zeros = segment_sum(late.cast(is_zero, D.int32), ids)
    safe = late.where(is_zero, late.ones_like(data), data)
    prod_nonzero = segment_prod(safe, ids)
    others = _prod_without_self(data, _gather(op.outputs[0], ids), _gather(prod_nonzero, ids),
                                _gather(num_zeros, ids), is_zero, safe)
    return [late.multiply(_gather(g, ids), late.conj(others)), None]


_SegmentSum = register("SegmentSum", _segment_kernel(np.add, 0),
                       _segment_infer("SegmentSum", NUMERIC), _segment_sum_grad,
                       allowed=NUMERIC)
_SegmentMean = register("SegmentMean", _segment_mean_kernel,
                        _segment_infer("SegmentMean", NUMERIC), _segment_mean_grad,
                        allowed=NUMERIC)
_SegmentProd = register("SegmentProd", _segment_kernel(np.multiply, 1),
                        _segment_infer("SegmentProd", NUMERIC), _segment_prod_grad,
                        allowed=NUMERIC)
_SegmentMax = register("SegmentMax", _segment_kernel(np.maximum, 0),
                       _segment_infer("SegmentMax", REAL), _segment_min_or_max_grad,
                       allowed=REAL)
_SegmentMin = register("SegmentMin", _segment_kernel(np.minimum, 0),
                       _segment_infer("SegmentMin", REAL), _segment_min_or_max_grad,
                       allowed=REAL)


def _segment(opdef, data, segment_ids, name):
    data = convert_to_tensor(data)
    U.check_dtype(opdef.name, data, opdef.allowed, param="data")
    ids = _index_tensor(segment_ids, name, "segment_ids", strict=False)
    U.check_dtype(opdef.name, ids, _SORTED_IDX, attr="Tindices", param="segment_ids")
    return apply2(opdef, data, ids, name=name)


@export("math.segment_sum")
def segment_sum(data, segment_ids, name=None):
    """Sums the rows of `data` that share a (sorted) segment id; output row i
    is segment i (0 for ids that do not occur)."""
    return _segment(_SegmentSum, data, segment_ids, name or "SegmentSum")


@export("math.segment_mean")
def segment_mean(data, segment_ids, name=None):
    """The mean of the rows of each segment (sorted ids; 0 for empty segments;
    integer means truncate)."""
    return _segment(_SegmentMean, data, segment_ids, name or "SegmentMean")


@export("math.segment_prod")
def segment_prod(data, segment_ids, name=None):
    """The product of the rows of each segment (sorted ids; 1 for empty segments)."""
    return _segment(_SegmentProd, data, segment_ids, name or "SegmentProd")


@export("math.segment_max")
def segment_max(data, segment_ids, name=None):
    """The maximum of the rows of each segment (sorted ids; 0 for empty segments)."""
    return _segment(_SegmentMax, data, segment_ids, name or "SegmentMax")


@export("math.segment_min")
def segment_min(data, segment_ids, name=None):
    """The minimum of the rows of each segment (sorted ids; 0 for empty segments)."""
    return _segment(_SegmentMin, data, segment_ids, name or "SegmentMin")


# --- unsorted segment reductions -------------------------------------------------

def _unsorted_kernel(op_name, ufunc, init):
    def kernel(data, segment_ids, num_segments):
        if np.ndim(num_segments) != 0:
            raise _invalid(f"num_segments should be a scalar, not shape "
                           f"{dims_text(np.shape(num_segments))}", op_name)
        n = int(num_segments)
        if n < 0:
            raise _invalid(f"Input num_segments == {n} must not be negative.")
        k = segment_ids.ndim
        if data.shape[:k] != segment_ids.shape:
            raise _invalid(f"data.shape = {dims_text(data.shape)} does not start with "
                           f"segment_ids.shape = {dims_text(segment_ids.shape)}", op_name)
        ids = segment_ids.reshape(-1)
        rows = data.reshape((ids.size,) + data.shape[k:])
        too_big = ids >= n
        if too_big.any():
            i = int(np.argmax(too_big))
            raise _invalid(f"segment_ids[{i}] = {int(ids[i])} is out of range [0, {n})")
        out = np.full((n,) + data.shape[k:], init(data.dtype), dtype=data.dtype)
        keep = ids >= 0
        if not keep.all():
            # Negative ids drop their rows, as in TensorFlow.
            ids = ids[keep]
            rows = rows[keep]
        ufunc.at(out, ids, rows)
        return out
    return kernel


def _unsorted_infer(op_name, allowed):
    def infer(inputs, attrs):
        data, ids, num = inputs
        U.check_graph_dtype(data, allowed, "data")
        U.check_graph_dtype(ids, _UNSORTED_IDX, "segment_ids")
        U.check_graph_dtype(num, _IDX, "num_segments")
        if num.shape.rank is not None and num.shape.rank != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {num.shape.rank}")
        n = U.constant_value(num)
        n = None if n is None else int(n)
        s, si = data.shape, ids.shape
        if s.rank is None or si.rank is None:
            return [(TensorShape(None), data.dtype)]
        if si.rank > s.rank:
            raise ValueError(f"Shape must be at least rank {si.rank} but is rank {s.rank}")
        for a, b in zip(s.as_list()[:si.rank], si.as_list()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        return [(TensorShape([n] + s.as_list()[si.rank:]), data.dtype)]
    return infer


def _zero(dtype):
    return 0


def _one(dtype):
    return 1


def _seg_lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _seg_highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _mask_like(mask, like):
    """A bool mask over the segment ids broadcast to `like` (ids' shape plus
    the trailing dimensions of the data)."""
    rm, rl = mask.shape.rank, like.shape.rank
    if rm is not None and rl is not None:
        for _ in range(rl - rm):
            mask = late.expand_dims(mask, -1)
        return mask
    ones = late.fill(late.reshape(late.rank(like) - late.rank(mask), [1]), 1)
    return late.reshape(mask, late.concat([late.shape(mask), ones], 0))


def _gather_drop_negatives(params, ids, clipped=None, is_positive=None):
    """gather(params, ids) with zeros where an id is negative (dropped rows)."""
    if clipped is None:
        clipped = late.maximum(ids, late.zeros_like(ids))
    gathered = _gather(params, clipped)
    if is_positive is None:
        is_positive = _mask_like(late.greater_equal(ids, late.zeros_like(ids)), gathered)
    return late.where(is_positive, gathered, late.zeros_like(gathered)), clipped, is_positive


def _unsorted_sum_grad(op, g):
    return [_gather_drop_negatives(g, op.inputs[1])[0], None, None]


def _unsorted_min_or_max_grad(op, g):
    data, ids, num = op.inputs
    gathered_y, clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = late.logical_and(late.equal(data, gathered_y), is_positive)
    num_selected = unsorted_segment_sum(late.cast(is_selected, g.dtype), ids, num)
    weighted = late.truediv(g, num_selected)
    gathered_g, _, _ = _gather_drop_negatives(weighted, ids, clipped, is_positive)
    return [late.where(is_selected, gathered_g, late.zeros_like(gathered_g)), None, None]


def _unsorted_prod_grad(op, g):
    data, ids, num = op.inputs
    is_zero = late.equal(data, late.zeros_like(data))
    num_zeros = unsorted_segment_sum(late.cast(is_zero, D.int32), ids, num)
    safe = late.where(is_zero, late.ones_like(data), data)
    prod_nonzero = unsorted_segment_prod(safe, ids, num)
    gathered_prod, clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    gathered_nonzero = _gather_drop_negatives(prod_nonzero, ids, clipped, is_positive)[0]
    gathered_zeros = _gather_drop_negatives(num_zeros, ids, clipped, is_positive)[0]
    others = _prod_without_self(data, gathered_prod, gathered_nonzero, gathered_zeros,
                                is_zero, safe)
    gathered_g = _gather_drop_negatives(g, ids, clipped, is_positive)[0]
    return [late.multiply(gathered_g, late.conj(others)), None, None]


def _register_unsorted(name, ufunc, init, grad, allowed):
    return register(name, _unsorted_kernel(name, ufunc, init), _unsorted_infer(name, allowed),
                    grad, allowed=allowed)


_UnsortedSegmentSum = _register_unsorted("UnsortedSegmentSum", np.add, _zero,
                                         _unsorted_sum_grad, NUMERIC)
_UnsortedSegmentProd = _register_unsorted("UnsortedSegmentProd", np.multiply, _one,
                                          _unsorted_prod_grad, NUMERIC)
_UnsortedSegmentMax = _register_unsorted("UnsortedSegmentMax", np.maximum, _seg_lowest,
                                         _unsorted_min_or_max_grad, REAL)
_UnsortedSegmentMin = _register_unsorted("UnsortedSegmentMin", np.minimum, _seg_highest,
                                         _unsorted_min_or_max_grad, REAL)


def _unsorted(opdef, data, segment_ids, num_segments, name):
    data = convert_to_tensor(data)
    U.check_dtype(opdef.name, data, opdef.allowed, param="data")
    ids = _index_tensor(segment_ids, name, "segment_ids", strict=False)
    U.check_dtype(opdef.name, ids, _UNSORTED_IDX, attr="Tindices", param="segment_ids")
    num = _index_tensor(num_segments, name, "num_segments", strict=False)
    U.check_dtype(opdef.name, num, _IDX, attr="Tnumsegments", param="num_segments")
    return apply(opdef, [data, ids, num], name=name)


@export("math.unsorted_segment_sum")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the slices of `data` by segment id (ids in any order, any shape
    that prefixes data's); output has `num_segments` rows, 0 where a
    segment is empty; rows with negative ids are dropped."""
    return _unsorted(_UnsortedSegmentSum, data, segment_ids, num_segments,
                     name or "UnsortedSegmentSum")


@export("math.unsorted_segment_prod")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of the slices of each segment (1 for empty segments)."""
    return _unsorted(_UnsortedSegmentProd, data, segment_ids, num_segments,
                     name or "UnsortedSegmentProd")


@export("math.unsorted_segment_max")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum of the slices of each segment; empty segments get the
    dtype's lowest finite value."""
    return _unsorted(_UnsortedSegmentMax, data, segment_ids, num_segments,
                     name or "UnsortedSegmentMax")


@export("math.unsorted_segment_min")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum of the slices of each segment; empty segments get the
    dtype's highest finite value."""
    return _unsorted(_UnsortedSegmentMin, data, segment_ids, num_segments,
                     name or "UnsortedSegmentMin")


def _segment_counts(data, ids, num_segments):
    """How many rows each segment has (at least 1), shaped to broadcast
    against the segment reduction of `data`."""
    if ids.shape.is_fully_defined():
        ones_ = late.ones(ids.shape, dtype=data.dtype)
    else:
        ones_ = late.fill(late.shape(ids), convert_to_tensor(1, dtype=data.dtype))
    n = unsorted_segment_sum(ones_, ids, num_segments)
    rd, ri = data.shape.rank, ids.shape.rank
    if rd is not None and ri is not None:
        n = late.reshape(n, [-1] + [1] * (rd - ri))
    else:
        extra = late.fill(late.reshape(late.rank(data) - late.rank(ids), [1]), 1)
        n = late.reshape(n, late.concat([convert_to_tensor([-1]), extra], 0))
    return late.maximum(n, convert_to_tensor(1, dtype=data.dtype))


@export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the slices of each segment (0 for empty segments).

    Integer data gives a floating mean (true division), as in TensorFlow.
    """
    with _scope(name or "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        ids = _index_tensor(segment_ids)
        n = _segment_counts(data, ids, num_segments)
        return late.truediv(unsorted_segment_sum(data, ids, num_segments), n)


@export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the slices of each segment divided by sqrt(segment size)."""
    with _scope(name or "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        ids = _index_tensor(segment_ids)
        n = _segment_counts(data, ids, num_segments)
        return late.truediv(unsorted_segment_sum(data, ids, num_segments), late.sqrt(n))


# --- bincount --------------------------------------------------------------------

_BINCOUNT_T = (D.int32, D.int64, D.float32, D.float64)


def _dense_bincount_kernel(input, size, weights, binary_output=False):  # noqa: A002
    if np.ndim(size) != 0:
        raise _invalid(f"Shape must be rank 0 but is rank {np.ndim(size)}")
    n = int(size)
    if n < 0:
        raise _invalid(f"size ({n}) must be non-negative")
    if input.ndim > 2:
        raise _invalid(f"Shape must be at most rank 2 but is rank {input.ndim}")
    if input.size and input.min() < 0:
        raise _invalid("Input arr must be non-negative!")
    has_weights = weights.size > 0
    if has_weights and weights.shape != input.shape:
        raise _invalid("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in "
                       "which case it acts as all weights equal to 1. Received "
                       f"{dims_text(weights.shape)}", "DenseBincount")
    if input.ndim == 2:
        rows = input.shape[0]
        index = (input + np.arange(rows, dtype=input.dtype)[:, None] * n).reshape(-1)
        keep = input.reshape(-1) < n
        out_shape = (rows, n)
    else:
        index = input.reshape(-1)
        keep = index < n
        out_shape = (n,)
    out = np.zeros(int(np.prod(out_shape)), dtype=weights.dtype)
    if not keep.all():
        index = index[keep]
    if binary_output:
        out[index] = 1
    elif has_weights:
        w = weights.reshape(-1)
        np.add.at(out, index, w if keep.all() else w[keep])
    else:
        np.add.at(out, index, 1)
    return out.reshape(out_shape)


def _dense_bincount_infer(inputs, attrs):
    arr, size, weights = inputs
    U.check_graph_dtype(arr, _IDX, "input")
    U.check_graph_dtype(weights, _BINCOUNT_T, "weights")
    n = U.constant_value(size)
    n = None if n is None else int(n)
    r = arr.shape.rank
    if r is None:
        return [(TensorShape(None), weights.dtype)]
    if r > 2:
        raise ValueError(f"Shape must be at most rank 2 but is rank {r}")
    if r == 2:
        # TensorFlow leaves the number of rows unknown too.
        return [(TensorShape([None, n]), weights.dtype)]
    return [(TensorShape([n]), weights.dtype)]


# No gradient, as in TensorFlow (differentiating the weights raises LookupError).
_DenseBincount = register("DenseBincount", _dense_bincount_kernel, _dense_bincount_infer,
                          allowed=_BINCOUNT_T)


def _bincount_size(arr, minlength, maxlength):
    """The output length: max(arr) + 1 (0 for empty `arr`), clipped to
    [minlength, maxlength]; a Python int when `arr` is known now."""
    v = U.constant_value(arr)
    if v is not None:
        n = int(np.max(v)) + 1 if np.size(v) else 0
        if minlength is not None and U.constant_value(minlength) is not None:
            n = max(int(U.constant_value(minlength)), n)
            minlength = None
        if maxlength is not None and U.constant_value(maxlength) is not None:
            n = min(int(U.constant_value(maxlength)), n)
            maxlength = None
        if minlength is None and maxlength is None:
            return convert_to_tensor(n, dtype=arr.dtype)
        size = convert_to_tensor(n, dtype=arr.dtype)
    else:
        nonempty = late.cast(late.greater(late.size(arr), 0), arr.dtype)
        size = late.multiply(nonempty, reduce_max(arr) + convert_to_tensor(1, dtype=arr.dtype))
    if minlength is not None:
        size = late.maximum(late.cast(convert_to_tensor(minlength), arr.dtype), size)
    if maxlength is not None:
        size = late.minimum(late.cast(convert_to_tensor(maxlength), arr.dtype), size)
    return size


@export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
             axis=None, binary_output=False):
    """Counts the occurrences of each value of a non-negative integer array.

    Output i is the number of times i occurs (or the sum of the `weights`
    of those elements; the output then has the weights' dtype). Its length
    is max(arr) + 1, at least `minlength` and at most `maxlength` (larger
    values are ignored). `axis=-1` counts each row of a 2-D `arr`
    separately; `binary_output` gives 1 for values that occur.

    Raises:
      ValueError: for another `axis`, or `weights` with `binary_output`.
      InvalidArgumentError: for negative values.
    """
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    with _scope(name or "bincount"):
        arr = convert_to_tensor(arr)
        if arr.dtype not in _IDX:
            arr = late.cast(arr, D.int32)
        if weights is not None:
            weights = convert_to_tensor(weights)
        else:
            weights = constant_value_tensor(np.zeros(0, dtype=D.as_dtype(dtype)._np))
        U.check_dtype("DenseBincount", weights, _BINCOUNT_T, param="weights")
        if axis == 0:
            arr = late.reshape(arr, [-1])
            if weights.shape.num_elements() != 0:
                weights = late.reshape(weights, [-1])
        size = _bincount_size(arr, minlength, maxlength)
        return apply(_DenseBincount, [arr, size, weights],
                     {"binary_output": bool(binary_output)}, name="DenseBincount")


# --- add_n -----------------------------------------------------------------------

def _add_n_kernel(*xs, N=None):
    first = xs[0]
    shape, dtype = first.shape, first.dtype
    for i, x in enumerate(xs[1:], 1):
        if x.dtype != dtype:
            raise _invalid(f"cannot compute AddN as input #{i}(zero-based) was expected to be a "
                           f"{U.tf_type_name(D.from_numpy(dtype))} tensor but is a "
                           f"{U.tf_type_name(D.from_numpy(x.dtype))} tensor")
        if x.shape != shape:
            raise _invalid("Inputs to operation AddN of type AddN must have the same size and "
                           f"shape.  Input 0: {dims_text(shape)} != input {i}: "
                           f"{dims_text(x.shape)}", "AddN")
    out = first + xs[1]
    if len(xs) > 2:
        if isinstance(out, np.ndarray):
            # `out` is a fresh array: accumulate into it without temporaries.
            for x in xs[2:]:
                np.add(out, x, out=out)
        else:
            for x in xs[2:]:
                out = out + x
    return out


def _add_n_infer(inputs, attrs):
    dtype = inputs[0].dtype
    if dtype not in NUMERIC:
        raise U.graph_dtype_error("inputs", dtype, NUMERIC)
    for t in inputs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
    s = inputs[0].shape
    for i, t in enumerate(inputs[1:], 1):
        o = t.shape
        if s.rank is None or o.rank is None:
            s = s if o.rank is None else o
            continue
        if s.rank != o.rank:
            raise ValueError(f"Shapes must be equal rank, but are {s.rank} and {o.rank}\n\t"
                             f"From merging shape {i - 1} with other shapes.")
        dims = []
        for k, (a, b) in enumerate(zip(s, o)):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {k} in both shapes must be equal, but are {a} and "
                                 f"{b}. Shapes are {shape_text(s)} and {shape_text(o)}.\n\t"
                                 f"From merging shape {i - 1} with other shapes.")
            dims.append(a if a is not None else b)
        s = TensorShape(dims)
    return [(s, dtype)]


_AddN = register("AddN", _add_n_kernel, _add_n_infer,
                 lambda op, g: [g] * len(op.inputs), allowed=NUMERIC)


@export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype.

    A single tensor is returned as is; iterating a tensor argument sums its
    rows, as in TensorFlow.

    Raises:
      ValueError: for an empty list, or (graph) tensors of different shapes.
      InvalidArgumentError: (eager) tensors of different shapes or dtypes.
    """
    if isinstance(inputs, Tensor):
        inputs = list(inputs)
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with "
                         "the same dtype and shape.")
    ts = []
    hint = None
    for x in inputs:
        if x.__class__ is not EagerTensor:
            x = convert_to_tensor(x, dtype_hint=hint)
        if hint is None:
            hint = x.dtype
        ts.append(x)
    if len(ts) == 1:
        return ts[0]
    first = ts[0]
    if first.__class__ is EagerTensor and _state.graph is None and \
            first._v.dtype not in _AddN.allowed_np:
        raise U.eager_dtype_error("AddN", "T", first.dtype, NUMERIC)
    return apply(_AddN, ts, {"N": len(ts)}, name=name or "AddN")


@export("math.accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors (as `add_n`; `shape` and
    `tensor_dtype`, when given, must match the inputs)."""
    from ...framework.tensor_shape import as_shape
    ts = [convert_to_tensor(x) for x in inputs] if not isinstance(inputs, Tensor) else inputs
    if tensor_dtype is not None:
        for t in ts:
            if t.dtype is not D.as_dtype(tensor_dtype):
                raise TypeError(f"tensor_dtype is {D.as_dtype(tensor_dtype).name}, but input "
                                f"is of type {t.dtype.name}")
    if shape is not None:
        shape = as_shape(shape)
        for t in ts:
            if not t.shape.is_compatible_with(shape):
                raise ValueError(f"Incompatible shape for input: {t.shape} vs. {shape}")
    return add_n(ts, name=name or "AccumulateN")

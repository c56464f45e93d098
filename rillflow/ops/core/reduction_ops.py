"""Reductions over axes (sum, mean, max, min, prod, all, any, euclidean norm,
logsumexp, variance, std, count_nonzero) and the arg-reductions (argmax, argmin).

The reduction axes are an int32/int64 input tensor, as in TensorFlow, so
they may be computed at run time (gradients of broadcasting need that).
Composite functions (`reduce_logsumexp`, `reduce_variance`, ...) are built
from the registered ops exactly as TensorFlow builds them, so their graphs,
values and gradients match; eagerly, without a tape, some of them compute
the same NumPy expression directly to skip the per-op overhead.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .float_sums import float_prod, float_sum, row_major
from ..kernels import complex_arith
from .. import late
from ..kernels.jit_kernels import exp_kernel, log_kernel, softmax_ops
from ..kernels.softmax_kernel import column_sums, row_sums
from .reduction_util import (FLOATS, NUMERIC, REAL, _BOOL, _IDX, _cached_axes, _fast_eager,
                             _index_tensor, _input_name, _invalid, _scope)

_state = _context.state
_ARG_OUT = (D.int16, D.uint16, D.int32, D.int64)


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
_max_reduce = np.maximum.reduce
_min_reduce = np.minimum.reduce
_and_reduce = np.logical_and.reduce
_or_reduce = np.logical_or.reduce


def _sum_kernel(x, axis, keep_dims=False):
    return float_sum(x, _axes(axis, x.ndim), keep_dims)


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
    if x.dtype.name == "bfloat16":
        # TensorFlow: the float32 sum divided in float32, rounded once.
        s = float_sum(x.astype(np.float32), ax, keep_dims)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(s / np.float32(n)).astype(x.dtype)[()]
    s = float_sum(x, ax, keep_dims)
    if n == 0:
        return np.full(np.shape(s), np.nan, dtype=x.dtype)[()]
    if k == "c":
        # Each part divided by the count (NumPy's complex division by
        # complex(n) multiplies by 1/n: other last bits).
        f = s.real.dtype.type(n)
        out = np.empty(np.shape(s), x.dtype)
        out.real, out.imag = np.real(s) / f, np.imag(s) / f
        return out[()]
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
    return float_prod(x, _axes(axis, x.ndim), keep_dims)


def _all_kernel(x, axis, keep_dims=False):
    return _and_reduce(x, axis=_axes(axis, x.ndim), keepdims=keep_dims)


def _any_kernel(x, axis, keep_dims=False):
    return _or_reduce(x, axis=_axes(axis, x.ndim), keepdims=keep_dims)


def _euclidean_norm_kernel(x, axis, keep_dims=False):
    ax = _axes(axis, x.ndim)
    x = row_major(x)
    k = x.dtype.kind
    if k == "c":
        s = np.sum((x * np.conj(x)).real, axis=ax, keepdims=keep_dims)
        return np.asarray(np.sqrt(s)).astype(x.dtype)[()]
    if k in "iu":
        # Integer norms are truncated ([3, 5] gives 5).
        s = np.sum(np.square(x.astype(np.float64)), axis=ax, keepdims=keep_dims)
        return np.asarray(np.sqrt(s)).astype(x.dtype)[()]
    if x.dtype == np.float32 or x.dtype == np.float64:
        # Eigen's EuclideanNormReducer adds the squares in its sum's order.
        return np.sqrt(float_sum(np.square(x), ax, keep_dims))
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
    positions = late.cumsum(late.ones_like(xs), exclusive=True)
    axes = late.floormod(late.reshape(late.cast(axis, D.int32), [-1]), n)
    hit = reduce_any(late.equal(late.expand_dims(positions, 1), late.expand_dims(axes, 0)), axis=1)
    return late.where(hit, late.ones_like(xs), xs)


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
        factor = late.cast(late.floordiv(late.size(x), late.maximum(late.size(y), 1)),
                           sum_grad.dtype)
    return [late.truediv(sum_grad, factor), None]


def _min_or_max_grad(op, g):
    """Ties share the gradient equally, as in TensorFlow."""
    x, axis = op.inputs
    g, y = _keepdims_grad(op, g, op.outputs[0])
    indicators = late.cast(late.equal(y, x), g.dtype)
    num_selected = reduce_sum(indicators, axis, keepdims=True)
    return [late.multiply(late.truediv(indicators, num_selected), g), None]


def _prod_grad(op, g):
    """d prod / dx_i is the product of the other elements, as TensorFlow
    forms it: the reduced axes (in the order the op names them) moved first
    and flattened, then the exclusive cumulative products from the front and
    from the back multiplied. No division: a product that overflows, or a
    NaN, leaves the other elements' gradients finite (x = [1e30, 1e30,
    1e-30] gives [1, 1, inf], not inf everywhere), and the bits are
    TensorFlow's."""
    x, axis = op.inputs
    g, _ = _keepdims_grad(op, g)
    xs = late.shape(x)
    g = late.broadcast_to(g, xs)
    a = U.constant_value(axis)
    r = x.shape.rank
    if a is not None and r is not None:
        reduced = [int(v) % r for v in np.reshape(a, -1).tolist()] if r else []
        other = [i for i in range(r) if i not in reduced]
        perm = reduced + other
        inverse = [perm.index(i) for i in range(r)]
        dims = x.shape.as_list()
        if all(dims[i] is not None for i in perm):
            reduced_num = int(np.prod([dims[i] for i in reduced], dtype=np.int64))
            other_num = int(np.prod([dims[i] for i in other], dtype=np.int64))
            flat = [reduced_num, other_num]
        else:
            flat = late.stack([reduce_prod(late.gather(xs, np.array(reduced, np.int32))),
                               reduce_prod(late.gather(xs, np.array(other, np.int32)))])
    else:
        rank = late.rank(x)
        reduced = late.floormod(late.reshape(late.cast(axis, D.int32), [-1]) + rank, rank)
        idx = late.range(0, rank)
        # the axes not reduced, in order (TensorFlow's ListDiff)
        kept = reduce_all(late.not_equal(late.expand_dims(idx, 1), late.expand_dims(reduced, 0)),
                          axis=1)
        other = late.boolean_mask(idx, kept)
        perm = late.concat([reduced, other], 0)
        inverse = late.invert_permutation(perm)
        flat = late.stack([reduce_prod(late.gather(xs, reduced)),
                           reduce_prod(late.gather(xs, other))])
    permuted = late.transpose(x, perm)
    reshaped = late.reshape(permuted, flat)
    left = late.cumprod(reshaped, axis=0, exclusive=True)
    right = late.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = late.reshape(late.multiply(late.conj(left), late.conj(right)), late.shape(permuted))
    out = late.multiply(g, late.transpose(y, inverse))
    return [late.reshape(out, xs), None]


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
    if xv.dtype in (np.float32, np.float64):
        out = _lse_eigen(xv, my_max, axis, keepdims)
        if out is not None:
            return out
    # Other axes: TensorFlow's exp and log all the same (its ops run one by
    # one), and NumPy's sum, which adds along a middle axis in order, as
    # Eigen's reduction over a non-inner axis does.
    with np.errstate(all="ignore"):
        s = _sum_kernel(exp_kernel(xv - my_max), axis, keepdims)
        out = log_kernel(np.asarray(s))
    return (out + np.reshape(my_max, np.shape(out))).astype(xv.dtype)[()]


def _lse_eigen(xv, my_max, axis, keepdims):
    # TensorFlow's bits: its exp and log (kernels/exp_log.py) and, when the
    # reduced axes are the trailing ones (all of them included) or the
    # leading ones, its sums in Eigen's order (kernels/softmax_kernel.py).
    # A full reduction of a large tensor is split over TensorFlow's threads,
    # which this does not follow: within an ulp or two there. Other axes:
    # None, the caller's NumPy sum.
    nd = xv.ndim
    axes = sorted(set(range(nd) if axis is None else
                      [a % nd for a in np.atleast_1d(axis).tolist()])) if nd else []
    trailing = axes == list(range(nd - len(axes), nd))
    if not trailing and axes != list(range(len(axes))) or xv.size == 0:
        return None
    with np.errstate(all="ignore"):
        e = np.ascontiguousarray(exp_kernel(xv - my_max))
        k = int(np.prod([xv.shape[a] for a in axes], dtype=np.int64))
        rows = softmax_ops(e.size)["row_sums"] if e.dtype == np.float32 else row_sums
        s = rows(e.reshape(-1, k)) if trailing else column_sums(e.reshape(k, -1))
        keep = [1 if a in axes else n for a, n in enumerate(xv.shape)]
        s = s.reshape(keep if keepdims else [n for a, n in enumerate(xv.shape) if a not in axes])
        out = log_kernel(s)
        return (out + np.reshape(my_max, np.shape(out)))[()]


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
    sq = complex_arith.multiply(np.conj(d), d).real if d.dtype.kind == "c" else np.square(d)
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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _reduction(fname):
    def rule(ctx, op, x, axis):
        axes = tuple(a % max(XL.jnp.ndim(x), 1) for a in XL.ints(ctx.static(op, 1, axis)))
        keep = op.attrs.get("keep_dims", False)
        extra = {}
        dt = np.dtype(XL.jnp.asarray(x).dtype)
        if fname in ("max", "min") and dt.kind in "iuf":
            # An empty reduction gives the identity (-inf, or the lowest integer, for max).
            lo, hi = (-np.inf, np.inf) if dt.kind == "f" else (np.iinfo(dt).min,
                                                               np.iinfo(dt).max)
            extra["initial"] = np.asarray(lo if fname == "max" else hi, dt)
        out = getattr(XL.jnp, fname)(x, axis=axes, keepdims=keep, **extra)
        if fname in ("max", "min") and dt.kind == "f":
            # XLA's vectorized CPU min/max reductions may drop a NaN;
            # TensorFlow's propagate it.
            nan = XL.jnp.any(XL.jnp.isnan(x), axis=axes, keepdims=keep)
            out = XL.jnp.where(nan, XL.jnp.asarray(np.nan, out.dtype), out)
        return out
    return rule


def _lower_euclidean_norm(ctx, op, x, axis):
    sq = _reduction("sum")(ctx, op, XL.jnp.real(x * XL.jnp.conj(x)), axis)
    return XL.jnp.sqrt(sq)


def _lower_arg(ctx, op, x, dimension):
    fn = XL.jnp.argmax if op.type == "ArgMax" else XL.jnp.argmin
    if XL.jnp.issubdtype(XL.jnp.asarray(x).dtype, XL.jnp.floating):
        # TensorFlow never selects a NaN.
        x = XL.jnp.where(XL.jnp.isnan(x), -np.inf if op.type == "ArgMax" else np.inf, x)
    return fn(x, axis=XL.ints(ctx.static(op, 1, dimension))[0])


XL.set_lowerings({
    "Sum": _reduction("sum"), "Mean": _reduction("mean"), "Max": _reduction("max"),
    "Min": _reduction("min"), "Prod": _reduction("prod"), "All": _reduction("all"),
    "Any": _reduction("any"), "EuclideanNorm": _lower_euclidean_norm, "ArgMax": _lower_arg,
    "ArgMin": _lower_arg})

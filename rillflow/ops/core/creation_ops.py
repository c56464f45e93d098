"""Tensors made from sizes and indices: range, linspace, eye, one_hot,
meshgrid, invert_permutation, sequence_mask.

`Range`, `LinSpace`, `OneHot` and `InvertPermutation` are single ops; eye,
meshgrid and sequence_mask are built from other public ops, as in
TensorFlow, so their graphs and gradients come for free.
"""
import builtins
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor, to_numpy
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .. import late

_state = _context.state
_INT = builtins.int
_IAE = errors.InvalidArgumentError


# --- naming and dtype checks shared with slicing.py and gather_ops.py -------

def op_base_name(name):
    """The name TensorFlow gives an op created inside its own name scope.

    TensorFlow names the helper constants of an op `<op>/<argument>` and the
    op itself `<op>`; this returns `<op>` made unique in the current graph
    (without reserving it, so the op can still take it), or None eagerly.
    """
    g = _state.graph
    if g is None:
        return None
    full = g.unique_name(name, mark_as_used=False)
    stack = g.get_name_scope()
    return full[len(stack) + 1:] if stack else full


def arg_name(base, arg):
    """The name of a helper constant of the op `base` (None eagerly)."""
    return None if base is None else base + "/" + arg


def apply_named(opdef, inputs, attrs, base, default):
    """`apply` with the op named `base` (see `op_base_name`).

    An op that fails shape inference still uses up its name, as in
    TensorFlow, where its name scope was already entered.
    """
    try:
        return apply(opdef, inputs, attrs, name=base or default)
    except (ValueError, TypeError):
        g = _state.graph
        if g is not None and base is not None:
            g.unique_name(base)
        raise


@contextlib.contextmanager
def name_scope(name):
    """A graph name scope for a composite op (does nothing eagerly)."""
    g = _state.graph
    if g is None:
        yield
        return
    with g.name_scope(name):
        yield


def _scalar(v):
    """A Python number from a size-1 NumPy value."""
    return np.reshape(v, -1)[0]


_INDEX = U.INDEX


# --- range -------------------------------------------------------------------

_RANGE_TYPES = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.int16,
                                 D.int32, D.int64, D.uint16, D.uint32, D.uint64)
                     if d is not None)
# TensorFlow widens mixed start/limit/delta dtypes along this order.
_RANGE_HIERARCHY = tuple(d for d in (D.int32, D.int64, D.float16, D.bfloat16, D.float32,
                                     D.float64) if d is not None)


def _range_size(start, limit, delta, integral):
    """The number of elements of range(start, limit, delta); ValueError if invalid."""
    if delta == 0:
        raise ValueError(f"Requires delta != 0: {_fmt(delta)}")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {_fmt(start)}/{_fmt(limit)}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {_fmt(start)}/{_fmt(limit)}")
    if integral:
        s, l, d = _INT(start), _INT(limit), _INT(delta)
        return (abs(l - s) + abs(d) - 1) // abs(d)
    # In the element type, as TensorFlow's kernel computes it.
    return _INT(np.ceil(np.abs((limit - start) / delta)))


def _fmt(v):
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer():
        return str(_INT(v))
    return str(v)


def _range_kernel(start, limit, delta, Tidx=None):
    for arg, v in (("start", start), ("limit", limit), ("delta", delta)):
        if np.size(v) != 1:
            raise _IAE(None, None, f"{arg} must be a scalar, not shape {dims_text(np.shape(v))}")
    start, limit, delta = _scalar(start), _scalar(limit), _scalar(delta)
    dt = start.dtype
    try:
        n = _range_size(start, limit, delta, dt.kind in "iu")
    except ValueError as e:
        raise _IAE(None, None, str(e)) from None
    if dt.kind in "iu":
        return np.arange(_INT(start), _INT(limit), _INT(delta), dtype=dt)
    return (np.arange(n).astype(dt) * delta + start).astype(dt)


def _range_infer(inputs, attrs):
    start, limit, delta = inputs
    dtype = start.dtype
    for name, t in (("limit", limit), ("delta", delta)):
        if t.dtype is not dtype:
            raise TypeError(f"Input '{name}' of 'Range' Op has type {t.dtype.name} that does not "
                            f"match type {dtype.name} of argument 'start'.")
    if dtype not in _RANGE_TYPES:
        raise U.graph_dtype_error("start", dtype, _RANGE_TYPES)
    vals = [U.constant_value(t) for t in inputs]
    if any(v is None or np.size(v) != 1 for v in vals):
        return [(TensorShape([None]), dtype)]
    s, l, d = (_scalar(v) for v in vals)
    return [(TensorShape([_range_size(s, l, d, dtype.is_integer)]), dtype)]


_Range = register("Range", _range_kernel, _range_infer, lambda op, g: [None, None, None],
                  default_name="range")


def _range_arg(v, dtype, name):
    if isinstance(v, Tensor):
        if dtype is not None and v.dtype is not dtype:
            return late.cast(v, dtype)
        return v
    return convert_to_tensor(v, dtype=dtype, name=name)


@export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """The numbers from `start` up to (not including) `limit` in steps of `delta`.

    `range(n)` counts from 0. Without `dtype`, the arguments' dtypes are
    widened along int32 < int64 < float16 < bfloat16 < float32 < float64
    (Python ints are int32, floats float32).

    Raises:
      InvalidArgumentError: (eager) for a zero `delta` or a `delta` pointing
        away from `limit`; ValueError for the same while building a graph.
      TypeError: for a Python float requested as an integer dtype.
    """
    if limit is None:
        start, limit = 0, start
    if dtype is not None:
        dtype = D.as_dtype(dtype)
    g = _state.graph
    if (g is None and dtype is None and start.__class__ is _INT and limit.__class__ is _INT
            and delta.__class__ is _INT and -2 ** 31 <= min(start, limit, delta)
            and max(start, limit, delta) < 2 ** 31):
        # The common eager `tf.range(n)`: no conversions, no tape (ints have
        # no gradient).
        try:
            _range_size(start, limit, delta, True)
        except ValueError as e:
            raise _IAE(None, None, f"{e} [Op:Range]") from None
        return EagerTensor(np.arange(start, limit, delta, dtype=np.int32))
    base = op_base_name(name)
    args = [_range_arg(v, dtype, arg_name(base, n))
            for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
    if dtype is None:
        for t in args:
            if t.dtype not in _RANGE_HIERARCHY:
                # TensorFlow asserts this (AssertionError, without a message).
                raise AssertionError(f"tf.range does not support arguments of dtype "
                                     f"{t.dtype.name}; "
                                f"use one of {', '.join(d.name for d in _RANGE_HIERARCHY)}")
        dtype = max((t.dtype for t in args), key=_RANGE_HIERARCHY.index)
        args = [_range_arg(v, dtype, None) for v in args]
    U.check_dtype("Range", args[0], _RANGE_TYPES, "Tidx", "start")
    return apply_named(_Range, args, {"Tidx": dtype}, base, name)


# --- linspace ----------------------------------------------------------------

def _linspace_kernel(start, stop, num, axis=0):
    if np.size(num) != 1:
        raise _IAE(None, None, f"num must be a scalar, not shape {dims_text(np.shape(num))}")
    n = _INT(_scalar(num))
    if n < 0:
        raise _IAE(None, None, f"Requires num >= 0: {n}")
    dt = start.dtype
    try:
        shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    except ValueError:
        raise _IAE(None, None, f"Incompatible shapes: {dims_text(np.shape(start))} vs. "
                   f"{dims_text(np.shape(stop))}") from None
    r = len(shape) + 1
    if not -r <= axis < r:
        raise _IAE(None, None, f"Tried to expand dim index {axis} for tensor with {r - 1} "
                   "dimensions.")
    a = np.broadcast_to(start, shape)[..., None]
    b = np.broadcast_to(stop, shape)[..., None]
    steps = np.arange(n).astype(dt)
    with np.errstate(all="ignore"):
        delta = (b - a) / dt.type(max(n - 1, 1))
        out = (a + steps * delta).astype(dt)
    if n > 1:
        out[..., -1] = b[..., 0]
    return np.moveaxis(out, -1, axis % r)


def _linspace_infer(inputs, attrs):
    start, stop, num = inputs
    if stop.dtype is not start.dtype:
        raise TypeError(f"Input 'stop' of 'LinSpace' Op has type {stop.dtype.name} that does not "
                        f"match type {start.dtype.name} of argument 'start'.")
    s = U.broadcast_shapes(start.shape, stop.shape)
    nv = U.constant_value(num)
    n = _INT(_scalar(nv)) if nv is not None and np.size(nv) == 1 else None
    if n is not None and n < 0:
        raise ValueError(f"Requires num >= 0: {n}")
    if s.rank is None:
        return [(TensorShape(None), start.dtype)]
    r = s.rank + 1
    axis = attrs.get("axis", 0)
    if not -r <= axis < r:
        raise ValueError(f"Tried to expand dim index {axis} for tensor with {s.rank} dimensions.")
    dims = s.as_list()
    dims.insert(axis % r, n)
    return [(TensorShape(dims), start.dtype)]


def _linspace_grad(op, g):
    start, stop, num = op.inputs
    out = op.outputs[0]
    axis = op.get_attr("axis") % out.shape.rank if out.shape.rank is not None else None
    if axis is None:
        return [None, None, None]
    # out = start + w * (stop - start) with w = i / (num - 1) along `axis`.
    n = late.cast(num, D.int32)
    w = late.cast(range(n), g.dtype) / late.cast(late.maximum(n - 1, 1), g.dtype)
    wshape = [1] * out.shape.rank
    wshape[axis] = -1
    w = late.reshape(w, wshape)
    g_stop = late.reduce_sum(g * w, axis=axis)
    g_start = late.reduce_sum(g, axis=axis) - g_stop
    return [late._sum_to(g_start, start), late._sum_to(g_stop, stop), None]


_LINSPACE_TYPES = U.FLOATS + U.COMPLEX
_LinSpace = register("LinSpace", _linspace_kernel, _linspace_infer, _linspace_grad,
                     default_name="linspace")


@export("linspace", "compat.v1.linspace", "compat.v1.lin_space")
def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop` (both included).

    `start` and `stop` broadcast against each other; the values run along
    the new dimension `axis` of the result. Integer inputs give float64.

    Raises:
      TypeError: if `num` is not an integer.
      InvalidArgumentError: (eager) for a negative `num` or shapes that do
        not broadcast.
    """
    base = op_base_name(name or "linspace")
    x0 = convert_to_tensor(start, name=arg_name(base, "start"))
    try:
        x1 = convert_to_tensor(stop, dtype=x0.dtype, name=arg_name(base, "stop"))
    except ValueError as e:
        raise ValueError(f"stop: {e}") from None
    n = convert_to_tensor(num, name=arg_name(base, "num"))
    if not n.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received "
                        f"`tensor` = {U.np_value(num) if not isinstance(num, Tensor) else num} "
                        f"of dtype: {n.dtype}")
    if x0.dtype.is_integer:
        U.check_dtype("LinSpace", n, _INDEX, "Tidx", "num")
        return _linspace_of_integers(x0, x1, n, _INT(axis), base)
    U.check_dtype("LinSpace", x0, _LINSPACE_TYPES, "T", "start")
    U.check_dtype("LinSpace", n, _INDEX, "Tidx", "num")
    return apply_named(_LinSpace, [x0, x1, n], {"axis": _INT(axis)}, base, "linspace")


def _linspace_of_integers(x0, x1, n, axis, base):
    """tf.linspace of integers as TensorFlow computes it: the step is
    `stop - start` taken in the integer type (wrapping around for unsigned
    types when stop < start) divided as `truediv` divides integers (float32
    for 8- and 16-bit ones, float64 for the others); the values are
    `start + k * step`, and the last one is `stop` itself."""
    ft = D.float32 if x0.dtype.size <= 2 else D.float64
    diff = late.cast(late.subtract(x1, x0), ft)
    # k * step along `axis` (the kernel's `0 + k * step`; its last value is
    # `diff`, replaced below).
    steps = apply_named(_LinSpace, [late.zeros_like(diff), diff, n], {"axis": axis}, base,
                        "linspace")
    shape = late.shape(diff)
    start = late.expand_dims(late.cast(late.broadcast_to(x0, shape), ft), axis)
    stop = late.expand_dims(late.cast(late.broadcast_to(x1, shape), ft), axis)
    out = start + steps
    rank = steps.shape.rank
    if rank is None:
        return out
    last = late.logical_and(late.equal(late.range(n), n - 1), late.greater(n, 1))
    where_last = [1] * rank
    where_last[axis % rank] = -1
    return late.where(late.reshape(last, where_last), stop, out)


# --- eye ---------------------------------------------------------------------

def _static_int(v):
    """`v` as a Python int if known now, else None."""
    if isinstance(v, (_INT, np.integer)) and not isinstance(v, bool):
        return _INT(v)
    if isinstance(v, Tensor):
        c = U.constant_value(v)
        if c is not None and np.size(c) == 1 and c.dtype.kind in "iu":
            return _INT(_scalar(c))
    return None


@export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=D.float32, name=None):
    """An identity matrix (ones on the diagonal), or a batch of them.

    The result has shape `batch_shape + [num_rows, num_columns]`.

    Raises:
      TypeError: if `num_rows`/`num_columns` are not integers.
      InvalidArgumentError: (eager) for negative sizes.
    """
    dtype = D.as_dtype(dtype)
    for v in (num_rows, num_columns):
        if v is not None and not isinstance(v, (Tensor, _INT, np.integer)):
            raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer "
                            f"values. Received: num_rows={num_rows}, num_columns="
                            f"{num_rows if num_columns is None else num_columns}")
    cols = num_rows if num_columns is None else num_columns
    n, m = _static_int(num_rows), _static_int(cols)
    batch = None
    if batch_shape is None:
        batch = []
    elif isinstance(batch_shape, (list, tuple)) or not isinstance(batch_shape, Tensor):
        batch = [_static_int(b) for b in batch_shape]
        if any(b is None for b in batch):
            batch = None
    else:
        c = U.constant_value(batch_shape)
        batch = None if c is None else [_INT(b) for b in np.reshape(c, -1)]
    if n is not None and m is not None and batch is not None:
        for d in [n, m] + batch:
            if d < 0:
                msg = f"Dimension {d} must be >= 0"
                if _state.graph is None:
                    raise _IAE(None, None, msg + " [Op:Fill]")
                raise ValueError(msg)
        arr = np.eye(n, m, dtype=dtype._np if dtype is not D.string else object)
        if batch:
            arr = np.broadcast_to(arr, batch + [n, m]).copy()
        if _state.graph is None:
            return EagerTensor(arr)
        with name_scope(name or "eye"):
            return constant_value_tensor(arr, "diag")
    def positions(size):
        t = size if isinstance(size, Tensor) else convert_to_tensor(size, dtype=D.int32)
        return range(t if t.dtype is D.int32 else late.cast(t, D.int32))

    with name_scope(name or "eye"):
        rows = positions(num_rows)
        out = late.cast(late.equal(late.expand_dims(rows, 1), positions(cols)), dtype)
        if batch_shape is not None:
            bs = convert_to_tensor(batch_shape, dtype=D.int32) if not isinstance(
                batch_shape, Tensor) else batch_shape
            out = late.broadcast_to(out, late.concat([late.reshape(bs, [-1]), late.shape(out)], 0))
        return out


# --- one_hot -----------------------------------------------------------------

_ONE_HOT_INDICES = (D.uint8, D.int8, D.int32, D.int64)


def _one_hot_kernel(indices, depth, on_value, off_value, axis=-1, T=None, TI=None):
    if np.ndim(depth) != 0:
        raise _IAE(None, None, f"depth must be a scalar, but got: {dims_text(np.shape(depth))}")
    for arg, v in (("on_value", on_value), ("off_value", off_value)):
        if np.ndim(v) != 0:
            raise _IAE(None, None, f"{arg} must be a scalar, but got: {dims_text(np.shape(v))}")
    d = _INT(depth)
    if d < 0:
        raise _IAE(None, None, f"depth must be non-negative, got: {d}")
    r = np.ndim(indices) + 1
    if axis != -1 and not 0 <= axis < r:
        raise _IAE(None, None, f"Expected axis to be -1 or between [0, {r}).  But received: "
                   f"{axis}")
    if np.ndim(indices) == 0:
        # One element per call (a tf.data map): no comparison with arange.
        out = np.full(d, off_value, dtype=on_value.dtype)
        if 0 <= indices < d:
            out[indices] = on_value
        return out
    hot = np.asarray(indices)[..., None] == np.arange(d)
    out = np.where(hot, on_value, off_value)
    if out.dtype != on_value.dtype:
        out = out.astype(on_value.dtype)
    if axis != -1 and axis != r - 1:
        out = np.moveaxis(out, -1, axis)
    return out


def _one_hot_infer(inputs, attrs):
    indices, depth, on, off = inputs
    if off.dtype is not on.dtype:
        raise TypeError(f"Input 'off_value' of 'OneHot' Op has type {off.dtype.name} that does "
                        f"not match type {on.dtype.name} of argument 'on_value'.")
    axis = attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    dv = U.constant_value(depth)
    d = _INT(dv) if dv is not None and np.ndim(dv) == 0 else None
    if d is not None and d < 0:
        raise ValueError(f"depth must be non-negative, got: {d}")
    s = indices.shape
    if s.rank is None:
        return [(TensorShape(None), on.dtype)]
    r = s.rank + 1
    if axis >= r:
        raise ValueError(f"Expected axis to be -1 or between [0, {r}).  But received: {axis}")
    dims = s.as_list()
    dims.insert(r - 1 if axis == -1 else axis, d)
    return [(TensorShape(dims), on.dtype)]


_OneHot = register("OneHot", _one_hot_kernel, _one_hot_infer,
                   lambda op, g: [None, None, None, None], default_name="one_hot")


def _python_dtype(v, dtype):
    """The dtype `v` converts to (with `dtype` as a hint for Python values),
    found without adding constants to a graph."""
    if isinstance(v, Tensor) or hasattr(v, "_dense_var_to_tensor"):
        return v.dtype
    try:
        arr = to_numpy(v, dtype) if dtype is not None else to_numpy(v)
    except (TypeError, ValueError):
        arr = to_numpy(v)
    return D.from_numpy(np.asarray(arr).dtype)


def _fill_value(v, dtype, name):
    if isinstance(v, (_INT, float)) and not isinstance(v, bool) and (
            dtype is D.bool_ or dtype is D.string):
        raise TypeError(f"Cannot convert {v} to EagerTensor of dtype {dtype.name}")
    return convert_to_tensor(v, dtype=dtype, name=name)


@export("one_hot", "compat.v1.one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors: `on_value` where the index matches, `off_value` elsewhere.

    The new dimension of size `depth` goes at `axis` (last by default);
    indices outside [0, depth) give rows of `off_value`. The dtype is
    `dtype`, else that of `on_value`/`off_value`, else float32.

    Raises:
      TypeError: if `on_value`, `off_value` and `dtype` disagree.
      InvalidArgumentError: (eager) for a negative depth or a bad axis.
    """
    if dtype is not None:
        dtype = D.as_dtype(dtype)
    on_dtype = _python_dtype(on_value, dtype) if on_value is not None else None
    off_dtype = _python_dtype(off_value, dtype) if off_value is not None else None
    if dtype is not None:
        if on_dtype is not None and on_dtype is not dtype:
            raise TypeError(f"dtype {on_dtype} of on_value does not match dtype parameter "
                            f"{dtype}")
        if off_dtype is not None and off_dtype is not dtype:
            raise TypeError(f"dtype {off_dtype} of off_value does not match dtype parameter "
                            f"{dtype}")
    elif on_dtype is not None and off_dtype is not None and on_dtype is not off_dtype:
        raise TypeError(f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of "
                        "off_value")
    dtype = dtype or on_dtype or off_dtype or D.float32
    base = op_base_name(name or "one_hot")
    on = _fill_value(1 if on_value is None else on_value, dtype, arg_name(base, "on_value"))
    off = _fill_value(0 if off_value is None else off_value, dtype, arg_name(base, "off_value"))
    idx = convert_to_tensor(indices, name=arg_name(base, "indices"))
    if not isinstance(indices, Tensor) and idx.dtype is D.float32 and \
            idx.shape.num_elements() == 0:
        # An empty list has no element type; the op's index type applies.
        idx = convert_to_tensor(indices, dtype=D.int32, name=arg_name(base, "indices"))
    U.check_dtype("OneHot", idx, _ONE_HOT_INDICES, "TI", "indices")
    d = convert_to_tensor(depth, dtype=D.int32, name=arg_name(base, "depth"))
    attrs = {"axis": -1 if axis is None else _INT(axis), "T": dtype, "TI": idx.dtype}
    return apply_named(_OneHot, [idx, d, on, off], attrs, base, "one_hot")


# --- meshgrid ----------------------------------------------------------------

@export("meshgrid")
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate vectors.

    With N inputs of lengths n1..nN, each output has shape (n2, n1, n3, ...)
    for `indexing='xy'` (the default, Cartesian) or (n1, n2, ...) for 'ij'
    (matrix). Keyword arguments: `indexing`, `name`.

    Raises:
      TypeError: for unknown keyword arguments.
      ValueError: for an unknown `indexing`.
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = list(kwargs)[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    with name_scope(name):
        n = len(args)
        xs = [convert_to_tensor(a) for a in args]
        if not xs:
            return []
        # 'xy' indexing swaps the first two output dimensions.
        swap = indexing == "xy" and n > 1
        out = []
        for i, x in enumerate(xs):
            shp = [1] * n
            shp[1 - i if swap and i < 2 else i] = -1
            out.append(late.reshape(x, shp))
        sizes = [x.shape.num_elements() for x in xs]
        if any(s is None for s in sizes):
            sizes = [late.size(x) for x in xs]
        if swap:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        if all(isinstance(s, _INT) for s in sizes):
            mult = late.ones(sizes, xs[0].dtype)
        else:
            mult = late.ones(late.stack([convert_to_tensor(s) for s in sizes]), xs[0].dtype)
        return [o * mult for o in out]


# --- invert_permutation ------------------------------------------------------

def _invert_permutation_kernel(x):
    if x.ndim != 1:
        raise _IAE(None, None, "invert_permutation expects a 1D vector.")
    n = x.shape[0]
    # TensorFlow reports the first bad element: out of range or a repeat.
    out_of_range = np.flatnonzero((x < 0) | (x >= n))
    order = np.argsort(x, kind="stable")
    repeats = order[1:][x[order][1:] == x[order][:-1]]
    first_bad = out_of_range[0] if out_of_range.size else n
    first_repeat = repeats.min() if repeats.size else n
    if first_bad < n and first_bad <= first_repeat:
        raise _IAE(None, None, f"{x[first_bad]} is not between 0 and {n}")
    if first_repeat < n:
        raise _IAE(None, None, f"{x[first_repeat]} is duplicated in the input.")
    y = np.empty(n, dtype=x.dtype)
    y[x] = np.arange(n, dtype=x.dtype)
    return y


def _invert_permutation_infer(inputs, attrs):
    x = inputs[0]
    U.check_graph_dtype(x, _INDEX, "x")
    s = x.shape
    if s.rank is not None and s.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.rank}")
    return [(TensorShape([None]) if s.rank is None else s, x.dtype)]


_InvertPermutation = register("InvertPermutation", _invert_permutation_kernel,
                              _invert_permutation_infer, lambda op, g: [None])


@export("math.invert_permutation")
def invert_permutation(x, name=None):
    """The inverse permutation: `y[x[i]] = i`.

    Raises:
      InvalidArgumentError: (eager) if `x` is not a permutation of 0..n-1.
    """
    base = op_base_name(name or "InvertPermutation")
    t = convert_to_tensor(x, name=arg_name(base, "x"))
    U.check_dtype("InvertPermutation", t, _INDEX, "T", "x")
    return apply_named(_InvertPermutation, [t], {}, base, "InvertPermutation")


# --- sequence_mask -----------------------------------------------------------

@export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool_, name=None):
    """A mask of the first `lengths[i]` positions of each row.

    The result has shape `lengths.shape + [maxlen]`; `maxlen` defaults to
    the largest length. Element `[..., j]` is `j < lengths[...]`, in `dtype`.

    Raises:
      ValueError: if `maxlen` is not a scalar.
    """
    dtype = D.as_dtype(dtype)
    with name_scope(name or "SequenceMask"):
        lens = convert_to_tensor(lengths)
        if maxlen is None:
            known = U.constant_value(lens)
            if known is not None:
                top = np.max(known) if np.size(known) else 0
                m = convert_to_tensor(np.asarray(top, dtype=known.dtype if np.size(known)
                                                 else lens.dtype._np))
            else:
                m = late.reduce_max(lens)
        else:
            m = convert_to_tensor(maxlen)
            if m.shape.rank is not None and m.shape.rank != 0:
                shown = maxlen if isinstance(maxlen, Tensor) else U.np_value(maxlen)
                raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                                 f"`maxlen` = {shown} with shape '{tuple(m.shape.as_list())}' "
                                 "instead")
        row = apply(_Range, [convert_to_tensor(0, dtype=m.dtype), m,
                             convert_to_tensor(1, dtype=m.dtype)], {"Tidx": m.dtype}, name="Range")
        col = late.cast(late.expand_dims(lens, -1), m.dtype)
        mask = late.less(row, col)
        if dtype is D.bool_:
            return mask
        return late.cast(mask, dtype)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_one_hot(ctx, op, indices, depth, on_value, off_value):
    d = XL.ints(ctx.static(op, 1, depth))[0]
    hot = XL.jnp.expand_dims(indices, -1) == XL.jnp.arange(d)
    out = XL.jnp.where(hot, on_value, off_value)
    axis, r = op.attrs.get("axis", -1), XL.jnp.ndim(indices) + 1
    return out if axis in (-1, r - 1) else XL.jnp.moveaxis(out, -1, axis)


def _lower_linspace(ctx, op, start, stop, num):
    n = XL.ints(ctx.static(op, 2, num))[0]
    a = XL.jnp.expand_dims(XL.jnp.asarray(start), -1)
    b = XL.jnp.expand_dims(XL.jnp.asarray(stop), -1)
    delta = (b - a) / max(n - 1, 1)
    out = a + XL.jnp.arange(n).astype(a.dtype) * delta
    if n > 1:
        out = out.at[..., -1].set(b[..., 0])
    return XL.jnp.moveaxis(out, -1, op.attrs.get("axis", 0) % XL.jnp.ndim(out))


XL.set_lowerings({"Range": XL.host_rule, "LinSpace": _lower_linspace, "OneHot": _lower_one_hot,
                  "InvertPermutation": lambda ctx, op, x: XL.jnp.argsort(x)})

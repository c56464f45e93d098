"""Slicing: `Tensor.__getitem__`, tf.strided_slice and tf.slice.

`x[...]` becomes one `StridedSlice` op, whose begin/end/strides inputs and
five bit masks encode the index expression as TensorFlow encodes it (a
boolean key becomes `tf.boolean_mask`, in gather_ops.py). The gradients
scatter the incoming gradient into zeros of the input's shape
(`StridedSliceGrad`). The helpers of shape functions that report invalid
specs (`_SpecError`, `_graph_errors`) are shared with gather_ops.py.
"""
import builtins

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .creation_ops import apply_named, arg_name, op_base_name
from .. import late

_state = _context.state
_IAE = errors.InvalidArgumentError
_INT = builtins.int
_FULL = builtins.slice(None)

_SLICE_INDEX = (D.int16, D.int32, D.int64)
_INDEX = U.INDEX
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


class _SpecError(ValueError):
    """An invalid slice; eagerly an InvalidArgumentError, in graphs a ValueError."""


def _graph_errors(infer):
    """Shape functions raise plain ValueErrors (graph construction errors)."""
    def wrapped(inputs, attrs):
        try:
            return infer(inputs, attrs)
        except _SpecError as err:
            raise ValueError(str(err)) from None
    wrapped.__name__ = infer.__name__
    wrapped.__doc__ = infer.__doc__
    return wrapped


def _bit(mask, i):
    return (mask >> i) & 1


def _slice_len(d, b, e, s):
    """Length of the slice b:e:s (None = masked) of a dimension of size d (or None)."""
    if d is None:
        return None
    if b is _UNKNOWN or e is _UNKNOWN:
        return None
    # Python's slice rules are TensorFlow's: negative bounds count from the
    # end, then clamp to the dimension.
    return len(builtins.range(*builtins.slice(b, e, s).indices(d)))


_UNKNOWN = object()


def resolve(dims, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
            new_axis_mask=0, shrink_axis_mask=0):
    """Applies a strided-slice spec to a shape.

    Args:
      dims: the input's dimensions (ints, or None when unknown).
      begin, end: one value per spec element, `_UNKNOWN` when not known.
      strides: one int per spec element.

    Returns:
      (output dims, NumPy index tuple); the tuple is only meaningful when
      everything is known.

    Raises:
      _SpecError: with TensorFlow's message, for a spec that cannot apply.
    """
    n = len(strides)
    rank = len(dims)
    if ellipsis_mask & (ellipsis_mask - 1):
        raise _SpecError("Multiple ellipses in slice spec not allowed")
    ell = n
    for i in builtins.range(n):
        if _bit(ellipsis_mask, i):
            ell = i
            break
    n_eff = n + 1 if ell == n else n
    new_after = sum(_bit(new_axis_mask, j) for j in builtins.range(ell + 1, n))
    if rank == 0:
        for i in builtins.range(n):
            if i != ell and not _bit(new_axis_mask, i):
                raise _SpecError("Attempting to slice scalar input.")
    out = []
    index = []
    k = 0
    for i in builtins.range(n_eff):
        if i == ell:
            stop = min(rank - (n_eff - i) + 1 + new_after, rank)
            while k < stop:
                out.append(dims[k])
                index.append(_FULL)
                k += 1
            continue
        if _bit(new_axis_mask, i):
            out.append(1)
            index.append(None)
            continue
        if k >= rank:
            raise _SpecError(f"Index out of range using input dim {k}; input has only {rank} "
                             "dims")
        d = dims[k]
        s = strides[i]
        if s == 0:
            raise _SpecError(f"strides[{i}] must be non-zero")
        if _bit(shrink_axis_mask, i):
            if s < 0:
                raise _SpecError("only stride 1 allowed on non-range indexing.")
            b = begin[i]
            if b is not _UNKNOWN and d is not None:
                fwd = b + d if b < 0 else b
                if not 0 <= fwd < d:
                    raise _SpecError(f"slice index {fwd} of dimension {k} out of bounds.")
                b = fwd
            index.append(b)
        else:
            b = None if _bit(begin_mask, i) else begin[i]
            e = None if _bit(end_mask, i) else end[i]
            out.append(_slice_len(d, b, e, s))
            index.append(builtins.slice(b, e, s))
        k += 1
    return out, tuple(index)


def slice_result(r):
    """A slice result as an array the tensor owns (basic indexing gives views,
    and object arrays give bare Python objects for single elements): a copy
    of the view, a NumPy scalar, or a 0-d object array for a single string.
    Compiled graphs use it too (compiler/specialize.py): the layout matters
    for the bits, since NumPy's float32 ufuncs and sums take other loops
    (other roundings) on views with other strides, even on one element
    (`np.cosh(x[::-2])` differs from `np.cosh(x[::-2].copy())`)."""
    if r.__class__ is np.ndarray:
        return r.copy()
    if isinstance(r, np.generic):
        return r
    out = np.empty((), dtype=object)
    out[()] = r
    return out


def _spec_lists(begin, end, strides):
    if begin.ndim != 1 or begin.shape != end.shape or begin.shape != strides.shape:
        raise _IAE(None, None, "Expected begin, end, and strides to be 1D equal size tensors, but "
                   f"got shapes {dims_text(begin.shape)}, {dims_text(end.shape)}, and "
                   f"{dims_text(strides.shape)} instead.")
    return begin.tolist(), end.tolist(), strides.tolist()


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _masks(attrs):
    return [attrs.get(m, 0) for m in _MASKS]


def _strided_slice_kernel(x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                          new_axis_mask=0, shrink_axis_mask=0, **_):
    b, e, s = _spec_lists(begin, end, strides)
    try:
        _, index = resolve(x.shape, b, e, s, begin_mask, end_mask, ellipsis_mask,
                           new_axis_mask, shrink_axis_mask)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    return slice_result(x[index])


def _check_index_dtypes(op_name, b, e, s):
    for t, arg in ((b, "begin"), (e, "end"), (s, "strides")):
        U.check_graph_dtype(t, _SLICE_INDEX, arg)
    for t, arg in ((e, "end"), (s, "strides")):
        if t.dtype is not b.dtype:
            raise TypeError(f"Input '{arg}' of '{op_name}' Op has type {t.dtype.name} that does "
                            f"not match type {b.dtype.name} of argument 'begin'.")


def _spec_length(ts):
    """The common length of 1-D spec tensors (None if unknown); ValueError if they differ."""
    n = None
    for t in ts:
        s = t.shape
        if s.rank is None:
            continue
        if s.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {s.rank}")
        d = s[0]
        if d is None:
            continue
        if n is not None and d != n:
            raise ValueError(f"Dimension 0 in both shapes must be equal, but are {n} and {d}. "
                             f"Shapes are [{n}] and [{d}].")
        n = d
    return n


def _values_or_unknown(t, n):
    v = U.constant_value(t)
    if v is None:
        return [_UNKNOWN] * n
    return [_INT(a) for a in np.reshape(v, -1)]


def _strided_slice_shape(x_shape, b, e, s, attrs):
    """Static output shape of a strided slice of a tensor of shape `x_shape`."""
    _spec_length((b, e, s))
    if x_shape.rank is None:
        return TensorShape(None)
    sv = U.constant_value(s)
    if sv is None:
        return TensorShape(None)
    strides = [_INT(a) for a in np.reshape(sv, -1)]
    n = len(strides)
    dims, _ = resolve(x_shape.as_list(), _values_or_unknown(b, n), _values_or_unknown(e, n),
                      strides, *_masks(attrs))
    return TensorShape(dims)


@_graph_errors
def _strided_slice_infer(inputs, attrs):
    x, b, e, s = inputs
    _check_index_dtypes("StridedSlice", b, e, s)
    return [(_strided_slice_shape(x.shape, b, e, s, attrs), x.dtype)]


def _strided_slice_grad(op, g):
    x, b, e, s = op.inputs
    attrs = {m: op.get_attr(m) for m in _MASKS}
    dx = _strided_slice_grad_op(late.shape(x, out_type=b.dtype if b.dtype is D.int64 else D.int32),
                                b, e, s, g, attrs)
    return [dx, None, None, None]


_StridedSlice = register("StridedSlice", _strided_slice_kernel, _strided_slice_infer,
                         _strided_slice_grad, default_name="strided_slice")


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,
                               ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, **_):
    dims = [_INT(d) for d in np.reshape(shape, -1)]
    b, e, s = _spec_lists(begin, end, strides)
    try:
        _, index = resolve(dims, b, e, s, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                           shrink_axis_mask)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    out = np.zeros(dims, dtype=dy.dtype)
    out[index] = dy
    return out


def _strided_slice_grad_infer(inputs, attrs):
    shape, b, e, s, dy = inputs
    return [(U.constant_shape(shape), dy.dtype)]


def _strided_slice_grad_grad(op, g):
    _, b, e, s, _ = op.inputs
    attrs = {m: op.get_attr(m) for m in _MASKS}
    return [None, None, None, None, apply(_StridedSlice, [g, b, e, s], dict(attrs, Index=b.dtype),
                                    name="StridedSlice")]


_StridedSliceGrad = register("StridedSliceGrad", _strided_slice_grad_kernel,
                             _strided_slice_grad_infer, _strided_slice_grad_grad)


def _strided_slice_grad_op(shape, b, e, s, dy, attrs):
    return apply(_StridedSliceGrad, [shape, b, e, s, dy], dict(attrs, Index=b.dtype),
                 name="StridedSliceGrad")


# --- Tensor.__getitem__ ------------------------------------------------------

def _check_index(idx):
    """Raises TypeError unless `idx` can be one index of a slice spec."""
    if isinstance(idx, (_INT, np.integer)):
        return
    dtype = getattr(idx, "dtype", None)
    if dtype is not None:
        try:
            dt = D.as_dtype(dtype)
        except (TypeError, ValueError, KeyError):
            dt = None
        shape = getattr(idx, "shape", None)
        rank = shape.rank if isinstance(shape, TensorShape) else len(shape or ())
        if dt in _SLICE_INDEX and rank != 1:
            return
    raise TypeError(_SLICE_TYPE_ERROR + ", got {!r}".format(idx))


_NP_INDEX = frozenset(np.dtype(t) for t in (np.int16, np.int32, np.int64))


def _index_value(v):
    """A spec element as a Python int when its value is known now, else the tensor."""
    if v.__class__ is _INT:
        return v
    if hasattr(v, "_dense_var_to_tensor"):
        v = convert_to_tensor(v)
    if v.__class__ is EagerTensor:
        a = v._v
        if a.ndim == 0 and a.dtype in _NP_INDEX:
            return _INT(a)
    _check_index(v)
    if isinstance(v, (_INT, np.integer)):
        return _INT(v)
    if isinstance(v, np.ndarray):
        return _INT(v) if v.ndim == 0 else v
    if isinstance(v, EagerTensor):
        a = v._v
        return _INT(a) if a.ndim == 0 else a
    return v


def getitem(tensor, key):
    """`tensor[key]` with TensorFlow's rules (`tf.Tensor.__getitem__`).

    Basic indexing as in NumPy: ints (negative count from the end),
    slices with any start/stop/step (None or int or scalar int tensor),
    `...`, and `tf.newaxis` (None). A list key acts as a tuple. A boolean
    key (Python bool, bool NumPy array or bool tensor) is
    `tf.boolean_mask(tensor, key)`.

    Raises:
      TypeError: for other index types (floats, strings, non-scalar int
        tensors or arrays).
      InvalidArgumentError: (eager) for an index out of bounds, e.g.
        "slice index 5 of dimension 0 out of bounds."; ValueError for the
        same while building a graph, when it is known.
    """
    kc = key.__class__
    if kc is not tuple and kc is not _INT and kc is not builtins.slice and (
            kc is bool or (kc is np.ndarray and key.dtype == np.bool_)
            or (isinstance(key, Tensor) and key.dtype is D.bool_)):
        # gather_ops builds on this module's helpers, so it is reached late.
        return late.boolean_mask(tensor, key)
    x = tensor if tensor.__class__ is EagerTensor else convert_to_tensor(tensor)
    begin, end, strides, masks, dynamic = parse_key(key)
    if _state.graph is None and not dynamic and not _state.tapes:
        # Eager fast path: the spec is all Python ints, so index NumPy directly.
        try:
            _, index = resolve(x._v.shape, begin, end, strides, *masks)
        except _SpecError as err:
            raise _IAE(None, None, f"{err} [Op:StridedSlice]") from None
        return EagerTensor(slice_result(x._v[index]))
    return _apply_strided_slice(x, begin, end, strides, masks, "strided_slice",
                                ("stack", "stack_1", "stack_2"), dynamic)


def parse_key(key):
    """A `tensor[key]` key (not a boolean mask) as StridedSlice's spec:
    (begin, end, strides, (begin, end, ellipsis, new_axis, shrink masks),
    whether some bound is a tensor).

    Raises:
      TypeError: for index types TensorFlow rejects.
    """
    kc = key.__class__
    if kc is not tuple:
        key = tuple(key) if kc is list else (key,)
    if key and all(k.__class__ is bool for k in key):
        # TensorFlow packs such a spec into a bool begin vector, which
        # StridedSlice rejects.
        raise _bool_index_error()
    begin, end, strides = [], [], []
    bm = em = elm = nm = sm = 0
    dynamic = False
    for i, s in enumerate(key):
        c = s.__class__
        if c is _INT:
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            sm |= 1 << i
        elif c is builtins.slice:
            parts = []
            for p in (s.start, s.stop, s.step):
                if p is not None:
                    p = _index_value(p)
                    if isinstance(p, Tensor):
                        dynamic = True
                parts.append(p)
            b, e, st = parts
            if b is None:
                b = 0
                bm |= 1 << i
            if e is None:
                e = 0
                em |= 1 << i
            begin.append(b)
            end.append(e)
            strides.append(1 if st is None else st)
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            elm |= 1 << i
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            nm |= 1 << i
        else:
            v = _index_value(s)
            if isinstance(v, np.ndarray):
                n = len(key)
                shp = dims_text((n,) + v.shape)
                raise _IAE(None, None, "Expected begin, end, and strides to be 1D equal size "
                           f"tensors, but got shapes {shp}, {shp}, and [{n}] instead. "
                           "[Op:StridedSlice]")
            if isinstance(v, Tensor):
                dynamic = True
                begin.append(v)
                end.append(v + 1)
            else:
                begin.append(v)
                end.append(v + 1)
            strides.append(1)
            sm |= 1 << i
    return begin, end, strides, (bm, em, elm, nm, sm), dynamic


def _bool_index_error():
    return U.dtype_error("StridedSlice", D.bool_, _SLICE_INDEX, "Index", "begin")


def _index_dtype(values):
    for v in values:
        if isinstance(v, Tensor):
            if v.dtype is D.int64:
                return D.int64
        elif not -2 ** 31 <= v < 2 ** 31:
            return D.int64
    return D.int32


def _spec_tensor(values, dtype, name, dynamic):
    if not dynamic or not any(isinstance(v, Tensor) for v in values):
        return constant_value_tensor(np.array(values, dtype=dtype._np).reshape(-1), name)
    name = name or "stack"
    items = [(late.cast(v, dtype) if v.dtype is not dtype else v) if isinstance(v, Tensor)
             else convert_to_tensor(v, dtype=dtype, name=f"{name}/{j}")
             for j, v in enumerate(values)]
    return late.stack(items, name=name)


def _apply_strided_slice(x, begin, end, strides, masks, default, names, dynamic):
    base = op_base_name(default)
    dtype = _index_dtype(begin + end + strides)
    b = _spec_tensor(begin, dtype, arg_name(base, names[0]), dynamic)
    e = _spec_tensor(end, dtype, arg_name(base, names[1]), dynamic)
    s = _spec_tensor(strides, dtype, arg_name(base, names[2]), dynamic)
    attrs = dict(zip(_MASKS, masks))
    attrs["Index"] = dtype
    return apply_named(_StridedSlice, [x, b, e, s], attrs, base, default)


def _index_vector(v, name, dtype_hint=None):
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype_hint=dtype_hint or D.int32, name=name)


@export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Extracts a strided slice: `input_[begin:end:strides]` per dimension.

    Bit `i` of a mask applies to spec element `i`: `begin_mask`/`end_mask`
    ignore that begin/end (use the full range), `ellipsis_mask` marks the
    `...`, `new_axis_mask` inserts a dimension of size 1, and
    `shrink_axis_mask` takes the single index `begin[i]` and drops the
    dimension. `strides` defaults to ones.

    Raises:
      InvalidArgumentError: (eager) for an out-of-bounds index, a zero
        stride or mismatched begin/end/strides; ValueError in graphs.
    """
    base = op_base_name(name or "StridedSlice")
    x = convert_to_tensor(input_)
    b = _index_vector(begin, arg_name(base, "begin"))
    e = _index_vector(end, arg_name(base, "end"), b.dtype)
    if strides is None:
        known = U.constant_value(b)
        if known is not None:
            strides = np.ones_like(known)
        else:
            strides = late.ones_like(b)
    s = _index_vector(strides, arg_name(base, "strides"), b.dtype)
    for t, arg in ((b, "begin"), (e, "end"), (s, "strides")):
        U.check_dtype("StridedSlice", t, _SLICE_INDEX, "Index", arg)
    if _state.graph is None:
        for i, t in ((2, e), (3, s)):
            if t.dtype is not b.dtype:
                raise _IAE(None, None, f"cannot compute StridedSlice as input #{i}(zero-based) "
                           f"was expected to be a {U.tf_type_name(b.dtype)} tensor but is a "
                           f"{U.tf_type_name(t.dtype)} tensor [Op:StridedSlice]")
    attrs = {"begin_mask": _INT(begin_mask), "end_mask": _INT(end_mask),
             "ellipsis_mask": _INT(ellipsis_mask), "new_axis_mask": _INT(new_axis_mask),
             "shrink_axis_mask": _INT(shrink_axis_mask), "Index": b.dtype}
    return apply_named(_StridedSlice, [x, b, e, s], attrs, base, "StridedSlice")


# --- slice -------------------------------------------------------------------

def _check_slice_bounds(i, d, b, size):
    """The size of slice dimension i (resolving -1); ValueError if out of range."""
    if not 0 <= b <= d:
        raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
    if size == -1:
        return d - b
    if not 0 <= size <= d - b:
        raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {size}")
    return size


def _slice_kernel(x, begin, size, **_):
    r = x.ndim
    if begin.ndim != 1 or size.ndim != 1 or begin.shape[0] != r or size.shape[0] != r:
        raise _IAE(None, None, f"Expected begin and size arguments to be 1-D tensors of size {r}, "
                   f"but got shapes {dims_text(begin.shape)} and {dims_text(size.shape)} "
                   "instead.")
    index = []
    for i, (d, b, n) in enumerate(zip(x.shape, begin.tolist(), size.tolist())):
        try:
            n = _check_slice_bounds(i, d, b, n)
        except ValueError as err:
            raise _IAE(None, None, str(err)) from None
        index.append(builtins.slice(b, b + n))
    return slice_result(x[tuple(index)])


@_graph_errors
def _slice_infer(inputs, attrs):
    x, b, s = inputs
    for t, arg in ((b, "begin"), (s, "size")):
        U.check_graph_dtype(t, _INDEX, arg)
    if s.dtype is not b.dtype:
        raise TypeError(f"Input 'size' of 'Slice' Op has type {s.dtype.name} that does not "
                        f"match type {b.dtype.name} of argument 'begin'.")
    n = _spec_length((b, s))
    r = x.shape.rank
    if r is not None and n is not None and n != r:
        raise ValueError(f"Shape must be rank {n} but is rank {r}")
    r = r if r is not None else n
    if r is None:
        return [(TensorShape(None), x.dtype)]
    dims = x.shape.as_list() if x.shape.rank is not None else [None] * r
    bv, sv = U.constant_value(b), U.constant_value(s)
    bv = None if bv is None else [_INT(v) for v in np.reshape(bv, -1)]
    sv = None if sv is None else [_INT(v) for v in np.reshape(sv, -1)]
    out = []
    for i in builtins.range(r):
        d = dims[i]
        bi = None if bv is None else bv[i]
        si = None if sv is None else sv[i]
        if si == -1 and bi is not None and d is not None:
            # TensorFlow's shape function does not check the bounds.
            out.append(d - bi if d >= bi else None)
        elif si is not None and si != -1:
            out.append(si)
        else:
            out.append(None)
    return [(TensorShape(out), x.dtype)]


def _slice_grad(op, g):
    x, b, s = op.inputs
    out_type = b.dtype
    end = b + late.shape(op.outputs[0], out_type=out_type)
    dx = _strided_slice_grad_op(late.shape(x, out_type=out_type), b, end, late.ones_like(b), g,
                                dict(zip(_MASKS, (0,) * 5)))
    return [dx, None, None]


_Slice = register("Slice", _slice_kernel, _slice_infer, _slice_grad)


@export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """The block of `input_` starting at `begin` with `size` (-1: to the end).

    Raises:
      InvalidArgumentError: (eager) if the block does not fit in the input;
        ValueError in graphs when it is known.
    """
    base = op_base_name(name or "Slice")
    x = convert_to_tensor(input_)
    b = _index_vector(begin, arg_name(base, "begin"))
    s = _index_vector(size, arg_name(base, "size"), b.dtype)
    U.check_dtype("Slice", b, _INDEX, "Index", "begin")
    U.check_dtype("Slice", s, _INDEX, "Index", "size")
    return apply_named(_Slice, [x, b, s], {"Index": b.dtype}, base, "Slice")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_index(ctx, op, dims, begin, end, strides, first):
    """The NumPy-style index of a strided slice whose strides are static; a
    begin known only at run time is allowed where it picks one element (x[i])."""
    s = list(XL.ints(ctx.static(op, first + 2, strides)))
    n = len(s)
    masks = _masks(op.attrs)
    dyn_begin = not ctx.is_static(begin)
    b = [_UNKNOWN] * n if dyn_begin else list(XL.ints(begin))
    e = [_UNKNOWN] * n if not ctx.is_static(end) else list(XL.ints(end))
    try:
        _, index = resolve(list(dims), b, e, s, *masks)
    except _SpecError as err:
        raise _IAE(None, op, str(err)) from None
    index = list(index)
    picked = iter([begin[i] for i in builtins.range(n) if _bit(masks[4], i) and
                   not _bit(masks[2], i) and not _bit(masks[3], i)])
    for k, v in enumerate(index):
        if v is _UNKNOWN:
            index[k] = next(picked)
        elif isinstance(v, builtins.slice) and (v.start is _UNKNOWN or v.stop is _UNKNOWN):
            ctx.static(op, first if v.start is _UNKNOWN else first + 1,
                       begin if v.start is _UNKNOWN else end)
        elif v is not None and not isinstance(v, builtins.slice):
            next(picked)
    return tuple(index)


def _lower_strided_slice(ctx, op, x, begin, end, strides):
    return x[_xla_index(ctx, op, XL.jnp.shape(x), begin, end, strides, 1)]


def _lower_strided_slice_grad(ctx, op, shape, begin, end, strides, dy):
    dims = XL.ints(ctx.static(op, 0, shape))
    index = _xla_index(ctx, op, dims, begin, end, strides, 1)
    zeros = XL.jnp.zeros(dims, dy.dtype)
    return XL.jax.vjp(lambda z: z[index], zeros)[1](dy)[0]


def _lower_slice(ctx, op, x, begin, size):
    sizes = XL.ints(ctx.static(op, 2, size))
    if ctx.is_static(begin):
        b = XL.ints(begin)
        return x[tuple(builtins.slice(bi, None if n == -1 else bi + n)
                       for bi, n in zip(b, sizes))]
    if -1 in sizes:
        ctx.static(op, 1, begin)
    return XL.lax.dynamic_slice(x, [begin[i] for i in builtins.range(len(sizes))], sizes)


XL.set_lowerings({"StridedSlice": _lower_strided_slice,
                  "StridedSliceGrad": _lower_strided_slice_grad, "Slice": _lower_slice})

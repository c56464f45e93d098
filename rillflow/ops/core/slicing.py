"""Indexing: `Tensor.__getitem__` and tf.slice, tf.strided_slice, tf.gather,
tf.gather_nd, tf.boolean_mask, tf.reverse.

`x[...]` becomes one `StridedSlice` op, whose begin/end/strides inputs and
five bit masks encode the index expression as TensorFlow encodes it. The
gradients scatter the incoming gradient into zeros of the input's shape
(`StridedSliceGrad`, and rillflow's own `GatherV2Grad` / `GatherNdGrad`,
which add up the gradients of repeated indices).
"""
import builtins

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .creation_ops import apply_named, arg_name, name_scope, op_base_name
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


def _as_array(r):
    """A slice result as an array the tensor owns (basic indexing gives views,
    and object arrays give bare Python objects for single elements)."""
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
    return _as_array(x[index])


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
        return boolean_mask(tensor, key)
    x = tensor if tensor.__class__ is EagerTensor else convert_to_tensor(tensor)
    begin, end, strides, masks, dynamic = parse_key(key)
    if _state.graph is None and not dynamic and not _state.tapes:
        # Eager fast path: the spec is all Python ints, so index NumPy directly.
        try:
            _, index = resolve(x._v.shape, begin, end, strides, *masks)
        except _SpecError as err:
            raise _IAE(None, None, f"{err} [Op:StridedSlice]") from None
        return EagerTensor(_as_array(x._v[index]))
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
    return _as_array(x[tuple(index)])


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


# --- gather ------------------------------------------------------------------

def _scalar(v):
    return np.reshape(v, -1)[0]


def _position(shape, flat):
    """`indices[i,j]`-style text for the flat position `flat` in `shape`."""
    return ",".join(str(_INT(p)) for p in np.unravel_index(flat, shape)) if shape else ""


def _gather_axes(params_ndim, indices_ndim, axis, batch_dims):
    """Normalized (axis, batch_dims); raises _SpecError with TensorFlow's messages."""
    r = params_ndim
    if r == 0:
        raise _SpecError("params must be at least 1 dimensional")
    if axis >= r:
        raise _SpecError(f"Shape must be at least rank {axis + 1} but is rank {r}")
    if axis < -r:
        raise _SpecError(f"Expected axis in the range [{-r}, {r}), but got {axis}")
    axis %= r
    bd = batch_dims
    if bd < -indices_ndim or bd > indices_ndim:
        raise _SpecError(f"Expected batch_dims in the range [{-indices_ndim}, {indices_ndim}], "
                         f"but got {bd}")
    if bd < 0:
        bd += indices_ndim
    if bd > axis:
        raise _SpecError(f"batch_dims ({bd}) must be less than or equal to axis ({axis}).")
    return axis, bd


def _lead(shape, bd):
    """The leading `bd` dimensions of `shape` flattened into one (a 1-tuple)."""
    return (_INT(np.prod(shape[:bd])),)


def _batched(params, indices, bd, fn):
    """fn(params_k, indices_k) for each entry k of the leading `bd` batch dimensions."""
    for i in builtins.range(bd):
        if params.shape[i] != indices.shape[i]:
            raise _IAE(None, None, f"params.shape[{i}]: {params.shape[i]} should be equal to "
                       f"indices.shape[{i}]: {indices.shape[i]}")
    p = params.reshape(_lead(params.shape, bd) + params.shape[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    return [fn(p[k], ind[k]) for k in builtins.range(p.shape[0])]


def _gather_kernel(params, indices, axis, batch_dims=0, **_):
    try:
        a, bd = _gather_axes(params.ndim, indices.ndim, _INT(axis), batch_dims)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    d = params.shape[a]
    bad = (indices < 0) | (indices >= d)
    if bad.any():
        pos = _INT(np.flatnonzero(bad)[0])
        raise _IAE(None, None, f"indices[{_position(indices.shape, pos)}] = "
                   f"{indices.reshape(-1)[pos]} is not in [0, {d})")
    out_shape = params.shape[:a] + indices.shape[bd:] + params.shape[a + 1:]
    if bd == 0:
        return np.take(params, indices, axis=a)
    parts = _batched(params, indices, bd, lambda p, i: np.take(p, i, axis=a - bd))
    if not parts:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@_graph_errors
def _gather_infer(inputs, attrs):
    p, i, a = inputs
    U.check_graph_dtype(i, _SLICE_INDEX, "indices")
    U.check_graph_dtype(a, _INDEX, "axis")
    ps, is_ = p.shape, i.shape
    bd = attrs.get("batch_dims", 0)
    av = U.constant_value(a)
    if av is not None and ps.rank is not None:
        axis = _INT(av)
        if axis >= ps.rank or axis < -ps.rank:
            need = axis + 1 if axis >= 0 else -axis
            raise ValueError(f"Shape must be at least rank {need} but is rank {ps.rank}")
    if ps.rank is None or is_.rank is None:
        return [(TensorShape(None), p.dtype)]
    if bd < 0:
        bd += is_.rank
    if av is None:
        return [(TensorShape([None] * (ps.rank - 1 + is_.rank - bd)), p.dtype)]
    try:
        axis, bd = _gather_axes(ps.rank, is_.rank, _INT(av), attrs.get("batch_dims", 0))
    except _SpecError as err:
        raise ValueError(str(err)) from None
    dims = ps.as_list()[:axis] + is_.as_list()[bd:] + ps.as_list()[axis + 1:]
    return [(TensorShape(dims), p.dtype)]


def _gather_grad(op, g):
    p, i, a = op.inputs
    av = U.constant_value(a)
    if av is not None and np.size(av) == 1 and _INT(_scalar(av)) == 0:
        # As in TensorFlow: along a constant axis 0 the gradient is sparse,
        # the gathered rows of the gradient (an IndexedSlices).
        return [late.sparse_gather_gradient(p, i, g), None, None]
    dp = apply(_GatherV2Grad, [late.shape(p), i, g, a], {"batch_dims": op.get_attr("batch_dims")},
               name="GatherV2Grad")
    return [dp, None, None]


_GatherV2 = register("GatherV2", _gather_kernel, _gather_infer, _gather_grad)


def _scatter_add_axis(out, indices, dy, axis):
    """out[..., indices[j], ...] += dy[..., j, ...] along `axis` (in place on `out`)."""
    target = np.moveaxis(out, axis, 0)
    ir = indices.ndim
    src = np.moveaxis(dy, list(builtins.range(axis, axis + ir)), list(builtins.range(ir)))
    np.add.at(target, indices.reshape(-1), src.reshape((indices.size,) + target.shape[1:]))


def _gather_grad_kernel(shape, indices, dy, axis, batch_dims=0, **_):
    dims = tuple(_INT(d) for d in np.reshape(shape, -1))
    a, bd = _gather_axes(len(dims), indices.ndim, _INT(axis), batch_dims)
    out = np.zeros(dims, dtype=dy.dtype)
    if bd == 0:
        _scatter_add_axis(out, indices, dy, a)
        return out
    o = out.reshape(_lead(dims, bd) + dims[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    g = dy.reshape(_lead(dy.shape, bd) + dy.shape[bd:])
    for k in builtins.range(o.shape[0]):
        _scatter_add_axis(o[k], ind[k], g[k], a - bd)
    return o.reshape(dims)


def _gather_grad_grad(op, g):
    _, i, _, a = op.inputs
    return [None, None, gather(g, i, axis=a, batch_dims=op.get_attr("batch_dims")), None]


# rillflow's own op: the dense gradient of GatherV2 along an axis other
# than a constant 0 (where TensorFlow's is dense too), adding up the
# gradients of repeated indices.
_GatherV2Grad = register("GatherV2Grad", _gather_grad_kernel,
                         lambda inputs, attrs: [(U.constant_shape(inputs[0]), inputs[2].dtype)],
                         _gather_grad_grad)


@export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` at `indices` along `axis` (default: `batch_dims`).

    The result has shape `params.shape[:axis] + indices.shape[batch_dims:]
    + params.shape[axis + 1:]`. With `batch_dims` > 0 the leading
    dimensions of params and indices are batch dimensions gathered from
    independently.

    Raises:
      InvalidArgumentError: (eager) for an index outside [0, dim), e.g.
        "indices[1] = 7 is not in [0, 3)".
    """
    base = op_base_name(name or "GatherV2")
    p = convert_to_tensor(params, name=arg_name(base, "params"))
    i = convert_to_tensor(indices, name=arg_name(base, "indices"))
    if axis is None:
        axis = batch_dims
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, name=arg_name(base, "axis"))
    av = U.constant_value(a)
    if av is not None and np.size(av) == 1 and _INT(_scalar(av)) == 0:
        # TensorFlow gathers along a constant axis 0 without batch dimensions.
        batch_dims = 0
    U.check_dtype("GatherV2", i, _SLICE_INDEX, "Tindices", "indices")
    U.check_dtype("GatherV2", a, _INDEX, "Taxis", "axis")
    attrs = {"batch_dims": _INT(batch_dims), "Tparams": p.dtype, "Tindices": i.dtype,
             "Taxis": a.dtype}
    return apply_named(_GatherV2, [p, i, a], attrs, base, "GatherV2")


# --- gather_nd ---------------------------------------------------------------

def _check_nd_indices(params_shape, indices, bd):
    """InvalidArgumentError for the first coordinate row outside `params_shape`.

    With batch dimensions the row is reported as TensorFlow's batched
    gather sees it: batch coordinates first, at its flat position.
    """
    depth = indices.shape[-1]
    lead = indices.shape[:-1]
    n = _INT(np.prod(lead))
    flat = indices.reshape(n, depth)
    if not flat.size:
        return
    bad = ((flat < 0) | (flat >= np.array(params_shape[bd:bd + depth], dtype=np.int64)))
    bad = bad.any(axis=1)
    if not bad.any():
        return
    row = _INT(np.flatnonzero(bad)[0])
    coords = flat[row].tolist()
    if bd:
        per_batch = _INT(np.prod(lead[bd:]))
        batch = np.unravel_index(row // per_batch if per_batch else 0, lead[:bd])
        coords = [_INT(b) for b in batch] + coords
        where = str(row)
    else:
        where = _position(lead, row)
    raise _IAE(None, None, f"indices[{where}] = [{', '.join(str(v) for v in coords)}] does not "
               f"index into param shape [{','.join(str(d) for d in params_shape)}], node name: "
               "GatherNd")


def _gather_nd_one(params, indices):
    """gather_nd without batch dimensions (indices already checked)."""
    depth = indices.shape[-1]
    lead = indices.shape[:-1]
    flat = indices.reshape(_INT(np.prod(lead)), depth)
    if depth == 0:
        out = np.broadcast_to(params, (flat.shape[0],) + params.shape)
    else:
        out = params[tuple(flat.T)]
    return out.reshape(lead + params.shape[depth:])


def _gather_nd_check(params_ndim, indices_shape, bd):
    if len(indices_shape) < 1:
        raise _SpecError("indices must be at least a vector")
    depth = indices_shape[-1]
    if depth is not None and depth > params_ndim - bd:
        raise _SpecError("index innermost dimension length must be <= params rank; saw: "
                         f"{depth} vs. {params_ndim}")


def _gather_nd_kernel(params, indices, batch_dims=0, **_):
    try:
        _gather_nd_check(params.ndim, indices.shape, batch_dims)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    bd = batch_dims
    _check_nd_indices(params.shape, indices, bd)
    if bd == 0:
        return _gather_nd_one(params, indices)
    out_shape = (params.shape[:bd] + indices.shape[bd:-1]
                 + params.shape[bd + indices.shape[-1]:])
    parts = _batched(params, indices, bd, _gather_nd_one)
    if not parts:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@_graph_errors
def _gather_nd_infer(inputs, attrs):
    p, i = inputs
    U.check_graph_dtype(i, _SLICE_INDEX, "indices")
    bd = attrs.get("batch_dims", 0)
    ps, is_ = p.shape, i.shape
    if is_.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if ps.rank is None or is_.rank is None or is_[-1] is None:
        return [(TensorShape(None), p.dtype)]
    depth = is_[-1]
    if depth > ps.rank - bd:
        raise ValueError("indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{dims_text(is_)} and params shape: {dims_text(ps)}")
    pd, idd = ps.as_list(), is_.as_list()
    batch = [a if a is not None else b for a, b in zip(pd[:bd], idd[:bd])]
    return [(TensorShape(batch + idd[bd:-1] + pd[bd + depth:]), p.dtype)]


def _gather_nd_grad(op, g):
    p, i = op.inputs
    dp = apply(_GatherNdGrad, [late.shape(p), i, g], {"batch_dims": op.get_attr("batch_dims")},
               name="GatherNdGrad")
    return [dp, None]


_GatherNd = register("GatherNd", _gather_nd_kernel, _gather_nd_infer, _gather_nd_grad)


def _scatter_nd_add_one(out, indices, dy):
    depth = indices.shape[-1]
    flat = indices.reshape(_INT(np.prod(indices.shape[:-1])), depth)
    src = dy.reshape((flat.shape[0],) + out.shape[depth:])
    if depth == 0:
        out += src.sum(axis=0)
    else:
        np.add.at(out, tuple(flat.T), src)


def _gather_nd_grad_kernel(shape, indices, dy, batch_dims=0):
    dims = tuple(_INT(d) for d in np.reshape(shape, -1))
    out = np.zeros(dims, dtype=dy.dtype)
    bd = batch_dims
    if bd == 0:
        _scatter_nd_add_one(out, indices, dy)
        return out
    o = out.reshape(_lead(dims, bd) + dims[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    g = dy.reshape((o.shape[0],) + dy.shape[bd:])
    for k in builtins.range(o.shape[0]):
        _scatter_nd_add_one(o[k], ind[k], g[k])
    return o.reshape(dims)


def _gather_nd_grad_grad(op, g):
    _, i, _ = op.inputs
    return [None, None, gather_nd(g, i, batch_dims=op.get_attr("batch_dims"))]


# rillflow's own op: the dense gradient of GatherNd (a scatter-add).
_GatherNdGrad = register("GatherNdGrad", _gather_nd_grad_kernel,
                         lambda inputs, attrs: [(U.constant_shape(inputs[0]), inputs[2].dtype)],
                         _gather_nd_grad_grad)


@export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Slices of `params` at N-dimensional `indices`.

    The last dimension of `indices` holds (partial) coordinates into
    `params`; the result has shape `indices.shape[:-1] +
    params.shape[indices.shape[-1]:]` (after `batch_dims` leading batch
    dimensions shared by both).

    Raises:
      InvalidArgumentError: (eager) for coordinates outside `params`.
      ValueError: if `batch_dims` is not less than the rank of `indices`.
    """
    base = op_base_name(name or "GatherNd")
    p = convert_to_tensor(params, name=arg_name(base, "params"))
    i = convert_to_tensor(indices, name=arg_name(base, "indices"))
    U.check_dtype("GatherNd", i, _SLICE_INDEX, "Tindices", "indices")
    bd = _INT(batch_dims)
    r = i.shape.rank
    if bd and r is not None:
        if bd < 0:
            bd += r
        if bd >= r:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`indices`) = {r}")
    attrs = {"batch_dims": bd, "Tparams": p.dtype, "Tindices": i.dtype}
    return apply_named(_GatherNd, [p, i], attrs, base, "GatherNd")


# --- boolean_mask ------------------------------------------------------------

@export("boolean_mask", "compat.v1.boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The elements (or slices) of `tensor` where `mask` is True.

    The mask's K dimensions match `tensor.shape[axis:axis + K]`; those
    dimensions are flattened into one holding the selected entries.

    Raises:
      ValueError: for a scalar mask, a mask of unknown rank, or shapes
        that do not match.
    """
    with name_scope(name):
        x = convert_to_tensor(tensor)
        m = convert_to_tensor(mask)
        mshape = m.shape
        k = mshape.rank
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        a = 0 if axis is None else axis
        if isinstance(a, Tensor):
            av = U.constant_value(a)
            a = a if av is None else _INT(av)
        else:
            a = _INT(a)
        xshape = x.shape
        static = isinstance(a, _INT)
        if static:
            xshape[a:a + k].assert_is_compatible_with(mshape)
        if _state.graph is None and not _state.tapes and static:
            # Eager fast path: NumPy's selection along the flattened mask axes.
            xv = np.asarray(x._v)
            lead = _INT(np.prod(xv.shape[a:a + k]))
            flat = xv.reshape(xv.shape[:a] + (lead,) + xv.shape[a + k:])
            picks = np.flatnonzero(np.reshape(m._v, -1))
            return EagerTensor(np.take(flat, picks, axis=a))
        lead = xshape[a:a + k].num_elements() if static else None
        if lead is None:
            lead_t = late.reduce_prod(late.shape(x)[a:a + k], [0])
        else:
            lead_t = lead
        xs = late.shape(x)
        x = late.reshape(x, late.concat([xs[:a], [lead_t], xs[a + k:]], 0))
        if static and xshape.rank is not None:
            x.set_shape(xshape[:a].concatenate([lead]).concatenate(xshape[a + k:]))
        idx = late.squeeze(late.where(late.reshape(m, [-1])), axis=[1])
        return gather(x, idx, axis=a)


# --- reverse -----------------------------------------------------------------

def _reverse_axes(axes, r):
    """Canonical axes to reverse; _SpecError with TensorFlow's messages."""
    seen = []
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise _SpecError(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}")
        c = a % r
        if c in seen:
            raise _SpecError(f"axis {c} specified more than once.")
        seen.append(c)
    return tuple(seen)


def _reverse_kernel(x, axis, **_):
    if axis.ndim != 1:
        raise _IAE(None, None, f"'dims' must be 1-dimension, not {axis.ndim}")
    try:
        axes = _reverse_axes(axis.tolist(), x.ndim)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    if not axes:
        return x
    return np.flip(x, axes).copy()


@_graph_errors
def _reverse_infer(inputs, attrs):
    x, a = inputs
    U.check_graph_dtype(a, _INDEX, "axis")
    if a.shape.rank is not None and a.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {a.shape.rank}")
    av = U.constant_value(a)
    if av is not None and x.shape.rank is not None:
        _reverse_axes([_INT(v) for v in np.reshape(av, -1)], x.shape.rank)
    return [(x.shape, x.dtype)]


_ReverseV2 = register("ReverseV2", _reverse_kernel, _reverse_infer,
                      lambda op, g: [reverse(g, op.inputs[1]), None])


@export("reverse", "compat.v1.reverse_v2")
def reverse(tensor, axis, name=None):
    """The tensor with the order of elements reversed along each of `axis`.

    Raises:
      InvalidArgumentError: (eager) for an axis out of range or repeated;
        ValueError in graphs.
    """
    base = op_base_name(name or "ReverseV2")
    x = convert_to_tensor(tensor)
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(
        axis, dtype_hint=D.int32, name=arg_name(base, "axis"))
    U.check_dtype("ReverseV2", a, _INDEX, "Tidx", "axis")
    return apply_named(_ReverseV2, [x, a], {"Tidx": a.dtype}, base, "ReverseV2")

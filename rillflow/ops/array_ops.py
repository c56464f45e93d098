"""Array creation and shape manipulation: constant, zeros/ones/fill, reshape,
shape/size/rank, identity, stack, concat, expand_dims, transpose, tile,
broadcast_to, where."""
import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import constant_value_tensor, convert_to_tensor, to_numpy
from ..framework.execute import apply, apply1, apply2
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import op_util as U

_state = _context.state


def _shape_of(t):
    return t.shape


def _int_vector(v, dtype=D.int32, name=None):
    """A shape-like argument (list, TensorShape, tensor) as an int tensor."""
    if isinstance(v, TensorShape):
        v = v.as_list()
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype=dtype, name=name)


# --- constant ----------------------------------------------------------------

@export("constant")
def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value` (Python scalar, nested list or NumPy array).

    `dtype` casts NumPy values and Python ints; `shape` reshapes, or fills
    when `value` is a scalar.

    Raises:
      TypeError: if a Python float is asked to become an integer type, or
        the value does not fit `shape`.
    """
    if dtype is not None:
        dtype = D.as_dtype(dtype)
    if isinstance(value, Tensor) or hasattr(value, "_dense_var_to_tensor"):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype is not dtype:
            if isinstance(t, EagerTensor):
                from .math_ops import cast
                t = cast(t, dtype)
            else:
                raise TypeError(f"Expected tensor {value!r} with dtype {dtype!r}, but got dtype "
                                f"{t.dtype!r}.")
        if shape is not None:
            t = reshape(t, shape)
        return t
    try:
        arr = to_numpy(value, dtype)
    except TypeError as e:
        raise TypeError(str(e)) from None
    if shape is not None:
        shape = as_shape(shape).as_list()
        if arr.size == 1 and int(np.prod(shape)) != 1:
            arr = np.broadcast_to(np.reshape(arr, ()), shape).copy()
        elif arr.size != int(np.prod(shape)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{arr} (converted from {value}) has {arr.size} elements, but got "
                            f"`shape` {tuple(shape)} with {int(np.prod(shape))} elements).")
        else:
            arr = np.reshape(arr, shape)
    return constant_value_tensor(arr, name)


# --- identity ----------------------------------------------------------------

def _identity_kernel(x):
    return x


_Identity = register("Identity", _identity_kernel, lambda i, a: [(i[0].shape, i[0].dtype)],
                     lambda op, g: [g])


@export("identity")
def identity(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Returns a tensor with the same value (a new node in graphs)."""
    if hasattr(input, "_dense_var_to_tensor"):
        return input._dense_var_to_tensor(name=name)
    x = convert_to_tensor(input)
    if _state.graph is None and not _state.tapes:
        return x
    return apply1(_Identity, x, name=name or "Identity")


def _identity_n_kernel(*xs, **_):
    return list(xs)


_IdentityN = register("IdentityN", _identity_n_kernel,
                      lambda i, a: [(t.shape, t.dtype) for t in i], lambda op, *g: list(g))


@export("identity_n")
def identity_n(input, name=None, _grad_fn=None):  # noqa: A002
    """Identity of each tensor of a list.

    `_grad_fn` (internal, used by `tf.custom_gradient`) replaces the
    gradient of this one op.
    """
    xs = [convert_to_tensor(x) for x in input]
    attrs = {"_grad_fn": _grad_fn} if _grad_fn is not None else {}
    return apply(_IdentityN, xs, attrs, name=name or "IdentityN", multi=True)


def _stop_gradient_infer(inputs, attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


_StopGradient = register("StopGradient", _identity_kernel, _stop_gradient_infer,
                         lambda op, g: [None])


@export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """Identity whose gradient is None: blocks backpropagation."""
    x = convert_to_tensor(input)
    return apply1(_StopGradient, x, name=name or "StopGradient")


# --- shape, size, rank -------------------------------------------------------

def _shape_kernel(x, out_type=D.int32):
    return np.array(x.shape, dtype=out_type._np)


def _shape_infer(inputs, attrs):
    r = inputs[0].shape.rank
    return [(TensorShape([r]), attrs.get("out_type", D.int32))]


_Shape = register("Shape", _shape_kernel, _shape_infer, lambda op, g: [None])


@export("shape")
def shape(input, out_type=D.int32, name=None):  # noqa: A002
    """The shape of a tensor as a 1-D int tensor (dynamic in graphs when not
    fully known)."""
    out_type = D.as_dtype(out_type)
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    s = x.shape
    if s.is_fully_defined():
        return constant_value_tensor(np.array(s.as_list(), dtype=out_type._np),
                                     name or "Shape")
    return apply1(_Shape, x, {"out_type": out_type}, name=name or "Shape")


@export("shape_n")
def shape_n(input, out_type=D.int32, name=None):  # noqa: A002
    """`shape` of each tensor of a list."""
    return [shape(x, out_type) for x in input]


def _size_kernel(x, out_type=D.int32):
    return out_type._np.type(np.size(x))


_Size = register("Size", _size_kernel, lambda i, a: [(TensorShape([]), a["out_type"])],
                 lambda op, g: [None])


@export("size")
def size(input, out_type=D.int32, name=None):  # noqa: A002
    """The number of elements of a tensor (scalar)."""
    out_type = D.as_dtype(out_type)
    x = convert_to_tensor(input)
    n = x.shape.num_elements()
    if n is not None:
        return constant_value_tensor(out_type._np.type(n), name or "Size")
    return apply1(_Size, x, {"out_type": out_type}, name=name or "Size")


def _rank_kernel(x):
    return np.int32(np.ndim(x))


_Rank = register("Rank", _rank_kernel, lambda i, a: [(TensorShape([]), D.int32)],
                 lambda op, g: [None])


@export("rank")
def rank(input, name=None):  # noqa: A002
    """The number of dimensions of a tensor (scalar int32)."""
    x = convert_to_tensor(input)
    r = x.shape.rank
    if r is not None:
        return constant_value_tensor(np.int32(r), name or "Rank")
    return apply1(_Rank, x, name=name or "Rank")


# --- reshape -----------------------------------------------------------------

def _reshape_kernel(x, shape):
    shp = [int(d) for d in np.reshape(shape, -1)]
    try:
        return np.reshape(x, shp)
    except ValueError:
        n = int(np.prod([d for d in shp if d != -1])) if shp else 1
        raise errors.InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {np.size(x)} values, but the "
            f"requested shape {'requires a multiple of' if -1 in shp else 'has'} {n}") from None


def _reshape_infer(inputs, attrs):
    x, s = inputs
    target = U.constant_shape(s)
    if target.rank is None:
        return [(TensorShape(None), x.dtype)]
    const = U.constant_value(s)
    dims = list(target.as_list())
    if const is not None:
        raw = [int(d) for d in np.reshape(const, -1)]
        if raw.count(-1) > 1:
            raise ValueError("Cannot infer multiple unknown dimensions in shape "
                             f"{raw}")
        n = x.shape.num_elements()
        known = int(np.prod([d for d in raw if d != -1])) if raw else 1
        if -1 in raw:
            i = raw.index(-1)
            if n is not None and known:
                if n % known:
                    raise ValueError(f"Cannot reshape a tensor with {n} elements to shape "
                                     f"{raw} ({known} elements)")
                dims[i] = n // known
            else:
                dims[i] = None
        elif n is not None and known != n:
            raise ValueError(f"Cannot reshape a tensor with {n} elements to shape {raw} "
                             f"({known} elements)")
    return [(TensorShape(dims), x.dtype)]


def _reshape_grad(op, g):
    return [reshape(g, shape(op.inputs[0])), None]


_Reshape = register("Reshape", _reshape_kernel, _reshape_infer, _reshape_grad)


@export("reshape")
def reshape(tensor, shape, name=None):  # noqa: A002
    """The same values in a new shape; one dimension may be -1 (inferred).

    Raises:
      InvalidArgumentError: (eager) / ValueError (graph) if the number of
        elements differs.
    """
    x = convert_to_tensor(tensor)
    s = _int_vector(shape)
    return apply2(_Reshape, x, s, name=name or "Reshape")


# --- fill, zeros, ones -------------------------------------------------------

def _fill_kernel(dims, value):
    return np.full([int(d) for d in np.reshape(dims, -1)], value, dtype=value.dtype)


def _fill_infer(inputs, attrs):
    dims, value = inputs
    return [(U.constant_shape(dims), value.dtype)]


_Fill = register("Fill", _fill_kernel, _fill_infer,
                 lambda op, g: [None, _reduce_all(g)])


def _reduce_all(g):
    from .reduction_ops import reduce_sum
    return reduce_sum(g)


@export("fill")
def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with `value`."""
    v = convert_to_tensor(value)
    d = _int_vector(dims)
    return apply2(_Fill, d, v, name=name or "Fill")


def _filled(shape, dtype, fill_value, name):
    dtype = D.as_dtype(dtype)
    if isinstance(shape, Tensor) and not isinstance(shape, EagerTensor):
        known = U.constant_value(shape)
        if known is None:
            return fill(shape, convert_to_tensor(fill_value, dtype=dtype), name=name)
        shape = known
    if isinstance(shape, EagerTensor):
        shape = shape._v
    dims = as_shape([int(d) for d in np.reshape(shape, -1)] if isinstance(shape, np.ndarray)
                    else shape)
    if not dims.is_fully_defined():
        raise ValueError(f"Shape {dims} must be fully defined")
    if dtype is D.string:
        arr = np.full(dims.as_list(), b"" if fill_value == 0 else fill_value, dtype=object)
    else:
        arr = np.full(dims.as_list(), fill_value, dtype=dtype._np)
    return constant_value_tensor(arr, name)


@export("zeros")
def zeros(shape, dtype=D.float32, name=None):
    """A tensor of zeros."""
    return _filled(shape, dtype, 0, name or "zeros")


@export("ones")
def ones(shape, dtype=D.float32, name=None):
    """A tensor of ones."""
    return _filled(shape, dtype, 1, name or "ones")


def _zeros_like_kernel(x):
    return np.zeros_like(x)


def _ones_like_kernel(x):
    return np.ones_like(x)


_ZerosLike = register("ZerosLike", _zeros_like_kernel, lambda i, a: [(i[0].shape, i[0].dtype)],
                      lambda op, g: [None])
_OnesLike = register("OnesLike", _ones_like_kernel, lambda i, a: [(i[0].shape, i[0].dtype)],
                     lambda op, g: [None])


@export("zeros_like")
def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`."""
    x = convert_to_tensor(input)
    if dtype is not None and D.as_dtype(dtype) is not x.dtype:
        if x.shape.is_fully_defined():
            return zeros(x.shape, dtype, name=name)
        return fill(shape(x), convert_to_tensor(0, dtype=dtype), name=name)
    if isinstance(x, EagerTensor):
        return EagerTensor(np.zeros_like(x._v))
    return apply1(_ZerosLike, x, name=name or "zeros_like")


@export("ones_like")
def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`."""
    x = convert_to_tensor(input)
    if dtype is not None and D.as_dtype(dtype) is not x.dtype:
        if x.shape.is_fully_defined():
            return ones(x.shape, dtype, name=name)
        return fill(shape(x), convert_to_tensor(1, dtype=dtype), name=name)
    if isinstance(x, EagerTensor):
        return EagerTensor(np.ones_like(x._v))
    return apply1(_OnesLike, x, name=name or "ones_like")


# --- stack / unstack ---------------------------------------------------------

def _pack_kernel(*xs, axis=0, N=None):
    if xs and xs[0].dtype.kind == "O":
        return np.asarray(np.stack(xs, axis), dtype=object)
    return np.stack(xs, axis)


def _pack_infer(inputs, attrs):
    if not inputs:
        raise ValueError("Pack requires at least one input")
    dtype = inputs[0].dtype
    s = inputs[0].shape
    for i, t in enumerate(inputs[1:], 1):
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
        if not s.is_compatible_with(t.shape):
            raise ValueError(f"Shapes must be equal rank, but are {s.rank} and {t.shape.rank}"
                             if s.rank != t.shape.rank else
                             f"Dimension mismatch: shapes {s} and {t.shape} of the values "
                             f"to stack differ")
        s = s.merge_with(t.shape)
    if s.rank is None:
        return [(TensorShape(None), dtype)]
    axis = attrs["axis"]
    r = s.rank + 1
    if not -r <= axis < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    axis %= r
    dims = list(s.as_list())
    dims.insert(axis, len(inputs))
    return [(TensorShape(dims), dtype)]


def _pack_grad(op, g):
    return unstack(g, num=len(op.inputs), axis=op.get_attr("axis"))


_Pack = register("Pack", _pack_kernel, _pack_infer, _pack_grad)


@export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along `axis`."""
    if isinstance(values, Tensor):
        return identity(values)
    ts = [convert_to_tensor(v) for v in values]
    if ts:
        base = next((t.dtype for t in ts if isinstance(t, Tensor)), None)
        ts = [convert_to_tensor(v, dtype_hint=base) if not isinstance(v, Tensor) else t
              for v, t in zip(values, ts)]
    return apply(_Pack, ts, {"axis": axis, "N": len(ts)}, name=name)


def _unpack_kernel(x, num, axis):
    if x.shape[axis] != num:
        raise errors.InvalidArgumentError(
            None, None, f"Input shape axis {axis} must equal {num}, got shape {list(x.shape)}")
    return [np.take(x, i, axis=axis) for i in range(num)]


def _unpack_infer(inputs, attrs):
    s = inputs[0].shape
    axis = attrs["axis"]
    if s.rank is None:
        return [(TensorShape(None), inputs[0].dtype)] * attrs["num"]
    if not -s.rank <= axis < s.rank:
        raise ValueError(f"axis = {axis} not in [{-s.rank}, {s.rank})")
    dims = s.as_list()
    del dims[axis]
    return [(TensorShape(dims), inputs[0].dtype)] * attrs["num"]


def _unpack_grad(op, *grads):
    axis = op.get_attr("axis")
    gs = [g if g is not None else zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [stack(gs, axis=axis)]


_Unpack = register("Unpack", _unpack_kernel, _unpack_infer, _unpack_grad)


@export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a rank-R tensor into a list of rank-(R-1) tensors along `axis`.

    Raises:
      ValueError: if `num` is not given and the dimension is not known.
    """
    x = convert_to_tensor(value)
    s = x.shape
    if s.rank is not None:
        if not -s.rank <= axis < s.rank:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-s.rank}, {s.rank})")
        axis %= s.rank
    if num is None:
        num = s[axis] if s.rank is not None else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    return apply(_Unpack, [x], {"num": num, "axis": axis}, name=name, multi=True)


# --- concat ------------------------------------------------------------------

def _concat_kernel(*args, N=None):
    *xs, axis = args
    axis = int(axis)
    try:
        out = np.concatenate(xs, axis=axis)
    except (ValueError, np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError) as e:
        shapes = ", ".join(str(list(x.shape)) for x in xs)
        raise errors.InvalidArgumentError(
            None, None, f"ConcatOp : Dimension mismatch or invalid axis {axis} for inputs of "
            f"shapes {shapes}: {e}") from None
    return out


def _concat_infer(inputs, attrs):
    *xs, axis_t = inputs
    dtype = xs[0].dtype
    for t in xs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'ConcatV2' Op have types "
                            f"[{', '.join(x.dtype.name for x in xs)}] that don't all match.")
    axis = U.constant_value(axis_t)
    ranks = [t.shape.rank for t in xs if t.shape.rank is not None]
    if not ranks:
        return [(TensorShape(None), dtype)]
    r = ranks[0]
    if any(q != r for q in ranks):
        raise ValueError(f"Shape must be rank {r} but is rank "
                         f"{next(q for q in ranks if q != r)}")
    if axis is None:
        return [(TensorShape([None] * r), dtype)]
    axis = int(axis)
    if not -r <= axis < r:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                         f"[{-r}, {r}), but got {axis}")
    axis %= r
    dims = [None] * r
    total = 0
    for t in xs:
        if t.shape.rank is None:
            total = None
            continue
        for i, d in enumerate(t.shape.as_list()):
            if i == axis:
                continue
            if dims[i] is None:
                dims[i] = d
            elif d is not None and d != dims[i]:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are "
                                 f"{dims[i]} and {d}. Shapes are {xs[0].shape} and {t.shape}.")
        d = t.shape[axis]
        total = None if (total is None or d is None) else total + d
    dims[axis] = total
    return [(TensorShape(dims), dtype)]


def _concat_grad(op, g):
    *xs, axis = op.inputs
    sizes = [shape(x) for x in xs]
    from .slicing import slice as slice_
    if all(x.shape.is_fully_defined() for x in xs) and U.constant_value(axis) is not None:
        a = int(U.constant_value(axis)) % xs[0].shape.rank
        out = []
        start = 0
        for x in xs:
            begin = [0] * x.shape.rank
            begin[a] = start
            out.append(slice_(g, begin, x.shape.as_list()))
            start += x.shape[a]
        return out + [None]
    offsets = []
    a = axis
    out = []
    running = zeros_like(sizes[0])
    r = rank(g)
    from .math_ops import floormod
    a = floormod(a, r)
    for s in sizes:
        out.append(slice_(g, running, s))
        mask = one_hot_axis(a, r)
        running = running + s * mask
    return out + [None]


def one_hot_axis(axis, r):
    """A 1-D int32 vector of length `r` with a 1 at `axis` (dynamic helper)."""
    from .math_ops import cast, equal
    from .creation_ops import range as range_
    return cast(equal(range_(r), axis), D.int32)


_ConcatV2 = register("ConcatV2", _concat_kernel, _concat_infer, _concat_grad)


@export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along an existing dimension `axis`."""
    if isinstance(values, Tensor):
        values = [values]
    ts = [convert_to_tensor(v) for v in values]
    if len(ts) == 1:
        return identity(ts[0], name=name)
    a = convert_to_tensor(axis, dtype=D.int32)
    return apply(_ConcatV2, ts + [a], {"N": len(ts)}, name=name)


# --- expand_dims / squeeze / transpose / tile / broadcast_to -----------------

def _expand_dims_kernel(x, axis):
    return np.expand_dims(x, int(axis))


def _expand_dims_infer(inputs, attrs):
    x, a = inputs
    axis = U.constant_value(a)
    s = x.shape
    if s.rank is None or axis is None:
        return [(TensorShape(None), x.dtype)]
    axis = int(np.reshape(axis, -1)[0])
    r = s.rank + 1
    if not -r <= axis < r:
        raise ValueError(f"Tried to expand dim index {axis} for tensor with {s.rank} dimensions.")
    dims = s.as_list()
    dims.insert(axis % r, 1)
    return [(TensorShape(dims), x.dtype)]


_ExpandDims = register("ExpandDims", _expand_dims_kernel, _expand_dims_infer,
                       lambda op, g: [reshape(g, shape(op.inputs[0])), None])


@export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002
    """Inserts a dimension of size 1 at `axis`."""
    x = convert_to_tensor(input)
    return apply2(_ExpandDims, x, convert_to_tensor(axis, dtype=D.int32),
                  name=name or "ExpandDims")


def _squeeze_kernel(x, squeeze_dims):
    if not squeeze_dims:
        return np.squeeze(x)
    for a in squeeze_dims:
        if x.shape[a] != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                f"{x.shape[a]}")
    return np.squeeze(x, axis=tuple(squeeze_dims))


def _squeeze_infer(inputs, attrs):
    x = inputs[0]
    s = x.shape
    axes = attrs["squeeze_dims"]
    if s.rank is None:
        return [(TensorShape(None), x.dtype)]
    r = s.rank
    if not axes:
        if any(d is None for d in s):
            return [(TensorShape(None), x.dtype)]
        return [(TensorShape([d for d in s if d != 1]), x.dtype)]
    norm = []
    for a in axes:
        if not -r <= a < r:
            raise ValueError(f"Tried to squeeze dim index {a} for tensor with {r} dimensions.")
        a %= r
        if s[a] is not None and s[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {s[a]}")
        norm.append(a)
    return [(TensorShape([d for i, d in enumerate(s) if i not in norm]), x.dtype)]


_Squeeze = register("Squeeze", _squeeze_kernel, _squeeze_infer,
                    lambda op, g: [reshape(g, shape(op.inputs[0]))])


@export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those in `axis`)."""
    x = convert_to_tensor(input)
    if isinstance(axis, int):
        axis = [axis]
    axes = tuple(int(a) for a in axis) if axis is not None else ()
    if axes and x.shape.rank is not None:
        axes = tuple(a % x.shape.rank for a in axes)
    return apply1(_Squeeze, x, {"squeeze_dims": axes}, name=name or "Squeeze")


def _transpose_kernel(x, perm):
    return np.transpose(x, [int(p) for p in perm])


def _transpose_infer(inputs, attrs):
    x, p = inputs
    perm = U.constant_value(p)
    s = x.shape
    if perm is None:
        r = s.rank if s.rank is not None else (p.shape[0] if p.shape.rank == 1 else None)
        return [(TensorShape(None) if r is None else TensorShape([None] * r), x.dtype)]
    perm = [int(v) for v in np.reshape(perm, -1)]
    if s.rank is None:
        return [(TensorShape([None] * len(perm)), x.dtype)]
    if sorted(perm) != list(range(s.rank)):
        raise ValueError(f"Dimension must be {s.rank} but is {len(perm)}"
                         if len(perm) != s.rank else f"{perm} is not a valid permutation")
    return [(TensorShape([s[i] for i in perm]), x.dtype)]


def _transpose_grad(op, g):
    from .creation_ops import invert_permutation
    return [transpose(g, invert_permutation(op.inputs[1])), None]


_Transpose = register("Transpose", _transpose_kernel, _transpose_infer, _transpose_grad)


@export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (reverses them when `perm` is None)."""
    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.rank
        if r is None:
            from .creation_ops import range as range_
            from .math_ops import subtract
            perm = subtract(rank(x) - 1, range_(rank(x)))
        else:
            perm = list(range(r - 1, -1, -1))
    out = apply2(_Transpose, x, convert_to_tensor(perm, dtype=D.int32), name=name)
    if conjugate and x.dtype.is_complex:
        from .math_ops import conj
        out = conj(out)
    return out


def _tile_kernel(x, multiples):
    return np.tile(x, [int(m) for m in multiples])


def _tile_infer(inputs, attrs):
    x, m = inputs
    mult = U.constant_value(m)
    s = x.shape
    if mult is None or s.rank is None:
        r = s.rank
        return [(TensorShape(None) if r is None else TensorShape([None] * r), x.dtype)]
    mult = [int(v) for v in np.reshape(mult, -1)]
    if len(mult) != s.rank:
        raise ValueError(f"Shape must be rank {s.rank}... multiples has length {len(mult)} "
                         f"but input has rank {s.rank}")
    return [(TensorShape([None if d is None else d * k for d, k in zip(s, mult)]), x.dtype)]


def _tile_grad(op, g):
    x, m = op.inputs
    from .reduction_ops import reduce_sum
    # Split each axis i into (multiples[i], dim[i]) and sum over the repeats.
    xs = shape(x)
    split = reshape(stack([m, xs], axis=1), [-1])
    from .creation_ops import range as range_
    axes = range_(0, size(split), 2)
    return [reduce_sum(reshape(g, split), axis=axes), None]


_Tile = register("Tile", _tile_kernel, _tile_infer, _tile_grad)


@export("tile")
def tile(input, multiples, name=None):  # noqa: A002
    """Repeats the tensor `multiples[i]` times along each dimension i."""
    x = convert_to_tensor(input)
    return apply2(_Tile, x, convert_to_tensor(multiples, dtype=D.int32), name=name or "Tile")


def _broadcast_to_kernel(x, shape):
    try:
        return np.broadcast_to(x, [int(d) for d in shape])
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Unable to broadcast tensor of shape {list(np.shape(x))} to tensor of "
            f"shape {[int(d) for d in shape]}") from None


def _broadcast_to_infer(inputs, attrs):
    x, s = inputs
    target = U.constant_shape(s)
    if target.rank is not None and x.shape.rank is not None:
        U.broadcast_shapes(x.shape, target)
    return [(target, x.dtype)]


def _broadcast_to_grad(op, g):
    from .math_ops import _sum_to
    return [_sum_to(g, op.inputs[0]), None]


_BroadcastTo = register("BroadcastTo", _broadcast_to_kernel, _broadcast_to_infer,
                        _broadcast_to_grad)


@export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts `input` to `shape` (NumPy broadcasting rules)."""
    x = convert_to_tensor(input)
    return apply2(_BroadcastTo, x, _int_vector(shape), name=name or "BroadcastTo")


def _bga_kernel(s0, s1):
    s0 = [int(d) for d in s0]
    s1 = [int(d) for d in s1]
    n = max(len(s0), len(s1))
    a = [1] * (n - len(s0)) + s0
    b = [1] * (n - len(s1)) + s1
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
        else:
            raise errors.InvalidArgumentError(None, None,
                                              f"Incompatible shapes: {s0} vs. {s1}")
    r0 = list(range(n - len(s0))) + [i for i in r0 if i >= n - len(s0)]
    r1 = list(range(n - len(s1))) + [i for i in r1 if i >= n - len(s1)]
    return np.array(sorted(set(r0)), dtype=s0 and np.int32 or np.int32), \
        np.array(sorted(set(r1)), dtype=np.int32)


_BroadcastGradientArgs = register(
    "BroadcastGradientArgs", _bga_kernel,
    lambda i, a: [(TensorShape([None]), D.int32), (TensorShape([None]), D.int32)],
    lambda op, g0, g1: [None, None])


@export("raw_ops.BroadcastGradientArgs")
def broadcast_gradient_args(s0, s1, name=None):
    """The axes to reduce over for the gradients of two broadcast operands."""
    return apply(_BroadcastGradientArgs, [convert_to_tensor(s0, D.int32),
                                          convert_to_tensor(s1, D.int32)],
                 name=name or "BroadcastGradientArgs", multi=True)


@export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes.

    Raises:
      ValueError: if they are incompatible.
    """
    try:
        return U.broadcast_shapes(as_shape(shape_x), as_shape(shape_y))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Got {as_shape(shape_x)} and "
                         f"{as_shape(shape_y)}.") from None


@export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors."""
    a = U.constant_value(convert_to_tensor(shape_x))
    b = U.constant_value(convert_to_tensor(shape_y))
    if a is not None and b is not None:
        try:
            return constant_value_tensor(np.array(np.broadcast_shapes(tuple(int(v) for v in a),
                                                                      tuple(int(v) for v in b)),
                                                  dtype=np.int32))
        except ValueError:
            raise errors.InvalidArgumentError(None, None, f"Incompatible shapes: "
                                              f"{list(a)} vs. {list(b)}") from None
    x = zeros(1)
    return shape(broadcast_to(broadcast_to(x, shape_x), shape_y))


# --- where / select ----------------------------------------------------------

def _select_kernel(c, x, y):
    return np.where(c, x, y)


def _select_infer(inputs, attrs):
    c, x, y = inputs
    if x.dtype is not y.dtype:
        raise TypeError(f"Input 'e' of 'SelectV2' Op has type {y.dtype.name} that does not "
                        f"match type {x.dtype.name} of argument 't'.")
    if c.dtype is not D.bool_:
        raise TypeError(f"Input 'condition' of 'SelectV2' Op has type {c.dtype.name} that does "
                        "not match expected type of bool.")
    s = U.broadcast_shapes(U.broadcast_shapes(c.shape, x.shape), y.shape)
    return [(s, x.dtype)]


def _select_grad(op, g):
    from .math_ops import _sum_to
    c, x, y = op.inputs
    z = zeros_like(g)
    return [None, _sum_to(where(c, g, z), x), _sum_to(where(c, z, g), y)]


_SelectV2 = register("SelectV2", _select_kernel, _select_infer, _select_grad)


def _where_kernel(c):
    return np.argwhere(c).astype(np.int64)


_Where = register("Where", _where_kernel,
                  lambda i, a: [(TensorShape([None, i[0].shape.rank]), D.int64)],
                  lambda op, g: [None], no_fold=True)


@export("where")
def where(condition, x=None, y=None, name=None):
    """With x and y: elementwise `x if condition else y` (broadcasting).
    Alone: the int64 coordinates of the True elements, shape [n, rank].

    Raises:
      ValueError: if only one of x and y is given.
    """
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return apply1(_Where, c, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = U.binary_operands(x, y)
    if _state.graph is None and x.dtype is not y.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute SelectV2 as input #2(zero-based) was expected to be a "
            f"{U.tf_type_name(x.dtype)} tensor but is a {U.tf_type_name(y.dtype)} tensor "
            "[Op:SelectV2]")
    if c.dtype is not D.bool_:
        raise TypeError(f"condition must be a bool tensor, got {c.dtype.name}")
    return apply(_SelectV2, [c, x, y], name=name or "SelectV2")

"""Tensors of given values: constant (and TensorFlow 1's constant), fill, zeros, ones,
zeros_like, ones_like.
"""
import numpy as np

from ...framework import context as _context
from ...framework import placement as _placement
from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor, to_numpy
from ...framework.execute import apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape, dims_text
from . import op_util as U
from .. import late
from .array_util import _index_input, _is_tensor_like, _num_elements, _partial_values
from .shape_ops import _same_infer, reshape, shape

_state = _context.state

# TensorFlow builds `zeros`/`ones` of fewer elements as a Const, larger ones as a Fill.
_SMALL_CONSTANT = 1000


# --- constant ----------------------------------------------------------------

def _shape_mismatch(arr, value, shape):
    shape = tuple(shape)
    try:
        n = int(np.prod(shape)) if None not in shape else None
    except TypeError:
        n = None
    if executing_eagerly():
        return TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {arr} "
                         f"(converted from {value}) has {arr.size} elements, but got `shape` "
                         f"{shape} with {n} elements).")
    return TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")


@export("constant")
def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value` (Python scalar, nested list or NumPy array).

    `dtype` casts NumPy values and Python ints; `shape` reshapes, or fills
    when `value` has a single element.

    Raises:
      TypeError: if a Python float is asked to become an integer type, a
        tensor of another dtype is given with `dtype`, or the value does not
        fit `shape`.
    """
    if dtype is not None:
        dtype = D.as_dtype(dtype)
    if _is_tensor_like(value):
        t = value if isinstance(value, EagerTensor) else convert_to_tensor(value)
        if not isinstance(t, EagerTensor):
            raise TypeError("Expected any non-tensor type, but got a tensor instead.")
        if dtype is not None and t.dtype is not dtype:
            raise TypeError(f"Expected tensor {t._v} with dtype {dtype!r}, but got dtype "
                            f"{t.dtype!r}.")
        if shape is None:
            return _placed(constant_value_tensor(t._v, name))
        value = arr = t._v
    else:
        arr = to_numpy(value, dtype)
    if shape is not None:
        shp = as_shape(shape)
        if shp.rank is None:
            dims = None
        else:
            dims = shp.as_list()
        if dims is None or None in dims:
            raise _shape_mismatch(arr, value, dims if dims is not None else ())
        n = _num_elements(dims)
        if arr.size == 1 and n != 1:
            arr = np.full(dims, np.reshape(arr, ())[()], dtype=arr.dtype)
        elif arr.size != n:
            raise _shape_mismatch(arr, value, dims)
        elif arr.shape != tuple(dims):
            arr = np.reshape(arr, dims)
    return _placed(constant_value_tensor(arr, name))


def _placed(t):
    """`t`, given a device copy when a `tf.device` scope names a GPU."""
    if _state.device and isinstance(t, EagerTensor):
        return _placement.place(t)
    return t


@export("compat.v1.constant")
def constant_v1(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """TensorFlow 1's `tf.constant`: as `tf.constant`, and `verify_shape`
    requires `value` to have `shape` already. In graphs, a value with fewer
    elements than `shape` is padded with its last element (zeros when empty),
    as TensorFlow 1's tensor protos are.

    Raises:
      TypeError: `verify_shape` and the value's shape is not `shape`.
      ValueError: in graphs, more elements than `shape` holds.
    """
    if shape is None or _is_tensor_like(value) and not verify_shape:
        return constant(value, dtype, shape, name)
    dims = as_shape(shape).as_list() if as_shape(shape).rank is not None else None
    if dims is None or None in dims:
        return constant(value, dtype, shape, name)
    if _is_tensor_like(value):
        t = value if isinstance(value, EagerTensor) else convert_to_tensor(value)
        arr, shown = t._v, t._v
    else:
        arr, shown = to_numpy(value, None if dtype is None else D.as_dtype(dtype)), value
    if verify_shape and arr.shape != tuple(dims):
        if executing_eagerly():
            raise TypeError(f"Expected Tensor {arr} (converted from {shown}) with shape "
                            f"{tuple(dims)}, but got shape {arr.shape}.")
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
    n = _num_elements(dims)
    if executing_eagerly() or arr.size in (1, n):
        return constant(value, dtype, shape, name)
    if arr.size > n:
        raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
    flat = arr.reshape(-1)
    pad = np.full(n - flat.size, flat[-1] if flat.size else 0, dtype=arr.dtype)
    return constant(np.concatenate([flat, pad]).reshape(dims), dtype, None, name)


# --- fill, zeros, ones -------------------------------------------------------

def _fill_kernel(dims, value):
    # A 0-d `dims` and a 1-element `value` are accepted as TensorFlow's
    # runtime does ("legacy" vectors and scalars).
    if dims.ndim > 1:
        raise U.op_error("Fill", f"dims must represent a vector, got shape {dims_text(dims.shape)}")
    if value.size != 1 or value.ndim > 1:
        raise U.op_error("Fill", "value must represent a scalar, got shape "
                         + dims_text(value.shape))
    value = np.reshape(value, ())
    shp = [int(d) for d in np.reshape(dims, -1)]
    for d in shp:
        if d < 0:
            raise U.op_error("Fill", f"Dimension {d} must be >= 0")
    return np.full(shp, value, dtype=value.dtype)


def _fill_infer(inputs, attrs):
    dims, value = inputs
    if value.shape.rank is not None and value.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {value.shape.rank}")
    if dims.shape.rank is not None and dims.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {dims.shape.rank}")
    vals = _partial_values(dims)
    if vals is None:
        return [(TensorShape(None), value.dtype)]
    if any(v is not None and v < 0 for v in vals):
        raise ValueError("Fill dimensions must be >= 0")
    return [(TensorShape(vals), value.dtype)]


def _fill_grad(op, g):
    return [None, late.reduce_sum(g)]


_Fill = register("Fill", _fill_kernel, _fill_infer, _fill_grad)


@export("fill")
def fill(dims, value, name=None, layout=None):
    """A tensor of shape `dims` filled with the scalar `value`."""
    v = convert_to_tensor(value)
    d = _index_input(dims, "Fill", "dims", "index_type")
    return apply2(_Fill, d, v, name=name or "Fill")


def _fill_value(dtype, one):
    if dtype is D.string:
        if one:
            raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
        return b""
    if dtype.is_quantized:
        return dtype._np[0].type(1 if one else 0)
    return dtype._np.type(1 if one else 0)


def _static_dims(shape):
    """The dims of a shape argument as a list of ints, or None when they are
    not all known now (a tensor in a graph, negative values, ...)."""
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    if isinstance(shape, EagerTensor):
        shape = shape._v
    elif isinstance(shape, Tensor):
        v = U.constant_value(shape)
        if v is None:
            return None
        shape = v
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    if isinstance(shape, np.ndarray):
        if shape.dtype.kind not in "iu" or shape.ndim > 1:
            return None
        shape = shape.reshape(-1).tolist()
    if not isinstance(shape, (list, tuple)):
        return None
    out = []
    for d in shape:
        if isinstance(d, EagerTensor) and d._v.ndim == 0 and d._v.dtype.kind in "iu":
            d = int(d._v)
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0:
            return None
        out.append(int(d))
    return out


def _filled(shape, dtype, one, name):
    dtype = D.as_dtype(dtype)
    fill_value = _fill_value(dtype, one)
    dims = _static_dims(shape)
    if dims is not None and (executing_eagerly() or _num_elements(dims) < _SMALL_CONSTANT):
        if dtype is D.string:
            arr = np.empty(dims, dtype=object)
            arr.fill(fill_value)
        elif dtype.is_quantized:
            arr = np.full(dims, fill_value, dtype=dtype._np[0]).view(dtype._np)
        else:
            arr = np.full(dims, fill_value, dtype=dtype._np)
        return constant_value_tensor(arr, name)
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not any(_is_tensor_like(d) for d in shape):
        shape = convert_to_tensor(shape, dtype=D.int32)
    d = _index_input(shape, "Fill", "dims", "index_type")
    if d.shape.rank == 0:
        d = reshape(d, [-1])
    return fill(d, constant_value_tensor(np.asarray(fill_value, dtype=dtype._np or object))
                if executing_eagerly() else convert_to_tensor(fill_value, dtype=dtype), name=name)


@export("zeros")
def zeros(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of zeros (empty strings for tf.string)."""
    return _filled(shape, dtype, False, name or "zeros")


@export("ones")
def ones(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ones.

    Raises:
      TypeError: for tf.string.
    """
    return _filled(shape, dtype, True, name or "ones")


def _zeros_like_kernel(x):
    if x.dtype.kind == "O":
        out = np.empty(x.shape, dtype=object)
        out.fill(b"")
        return out
    return np.zeros_like(x)


def _ones_like_kernel(x):
    return np.ones_like(x)


_ZerosLike = register("ZerosLike", _zeros_like_kernel, _same_infer, lambda op, g: [None])
_OnesLike = register("OnesLike", _ones_like_kernel, U.unary_infer("OnesLike"),
                     lambda op, g: [None], allowed=U.NUMERIC + (D.bool_,))


def _like(input, dtype, one, name, opdef):  # noqa: A002
    x = convert_to_tensor(input)
    if dtype is not None:
        dtype = D.as_dtype(dtype)
        if dtype is not x.dtype:
            s = x.shape
            if s.is_fully_defined():
                return _filled(s, dtype, one, name)
            return fill(shape(x), convert_to_tensor(_fill_value(dtype, one), dtype=dtype),
                        name=name)
    if isinstance(x, EagerTensor):
        if opdef.allowed_np is not None and x._v.dtype not in opdef.allowed_np:
            raise U._eager_disallowed(opdef, x)
        return EagerTensor(opdef.kernel(x._v))
    return apply1(opdef, x, name=name)


@export("zeros_like")
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`."""
    return _like(input, dtype, False, name or "zeros_like", _ZerosLike)


@export("ones_like")
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`."""
    return _like(input, dtype, True, name or "ones_like", _OnesLike)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({
    "Fill": lambda ctx, op, dims, value: XL.jnp.full(XL.ints(ctx.static(op, 0, dims)), value,
                                                     op.outputs[0].dtype._np),
    "ZerosLike": "jnp.zeros_like", "OnesLike": "jnp.ones_like"})

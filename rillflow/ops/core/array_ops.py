"""Array creation and shape manipulation: constant, zeros/ones/fill, reshape,
shape/size/rank, identity, stack/unstack, concat, expand_dims, squeeze,
transpose, tile, broadcast_to, where.

Shape-valued arguments (a reshape's shape, tile multiples, a concat axis)
are int32/int64 op inputs, as in TensorFlow, so they can be computed at run
time; shape inference reads whatever part of them is known while building.
"""
import numpy as np

from ...framework import context as _context
from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor, to_numpy
from ...framework.execute import apply, apply1, apply2
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape, dims_text, shape_text
from . import op_util as U
from .. import late

_state = _context.state
_INDEX_TYPES = U.INDEX
# TensorFlow builds `zeros`/`ones` of fewer elements as a Const, larger ones as a Fill.
_SMALL_CONSTANT = 1000


# --- helpers shared by the ops of this family (and imported by others) ------

def _is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_dense_var_to_tensor")


_I32_MIN, _I32_MAX = -2 ** 31, 2 ** 31 - 1


def _int_list_tensor(value):
    """A constant int32 (int64 if needed) tensor for a list of Python ints
    or a list of such lists; None for any other value. A fast path for the
    shape arguments ops are called with most often."""
    if value.__class__ is not list and value.__class__ is not tuple:
        return None
    flat = value
    if value and (value[0].__class__ is list or value[0].__class__ is tuple):
        n = len(value[0])
        flat = []
        for row in value:
            if (row.__class__ is not list and row.__class__ is not tuple) or len(row) != n:
                return None
            flat.extend(row)
    for v in flat:
        if v.__class__ is not int:
            return None
    if not flat:
        return None
    big = min(flat) < _I32_MIN or max(flat) > _I32_MAX
    return constant_value_tensor(np.array(value, dtype=np.int64 if big else np.int32))


def _index_input(value, op_name, param, attr):
    """Converts a shape/axis/multiples argument to an int32 or int64 tensor.

    Raises:
      InvalidArgumentError (eager) / TypeError (graph): for other dtypes.
    """
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, Tensor):
        t = value
    elif value.__class__ is int and _I32_MIN <= value <= _I32_MAX:
        t = constant_value_tensor(np.int32(value))
    elif isinstance(value, (list, tuple)) and not value:
        t = constant_value_tensor(np.zeros(0, np.int32))
    else:
        t = _int_list_tensor(value)
        if t is None:
            t = convert_to_tensor(value)
    if t.dtype not in _INDEX_TYPES:
        raise U.dtype_error(op_name, t.dtype, _INDEX_TYPES, attr, param)
    return t


def _index_pair(s0, s1, op_name):
    """Two int32/int64 shape vectors of one dtype (Python values take the
    dtype of a tensor operand)."""
    vals = [np.zeros(0, np.int32) if isinstance(v, (list, tuple)) and not v else v
            for v in (s0, s1)]
    a, b = _convert_same_dtype(vals, op_name)
    if a.dtype not in _INDEX_TYPES:
        raise U.dtype_error(op_name, a.dtype, _INDEX_TYPES, "T", "s0")
    return a, b


def _int_vector(v, dtype=D.int32, name=None):
    """A shape-like argument (list, TensorShape, tensor) as an int tensor."""
    if isinstance(v, TensorShape):
        v = v.as_list()
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype=dtype, name=name)


def _convert_same_dtype(values, op_name, mismatch=None, first_input=0):
    """Converts the inputs of an op whose inputs share one dtype `T`.

    As TensorFlow does, the first tensor among `values` fixes the dtype
    (the first value, converted, when none is a tensor) and Python values
    are converted to it; a Python float asked to become an integer raises
    TypeError. `mismatch(i, dtypes)` builds the graph-mode TypeError;
    `first_input` is the op input index of `values[0]`, or a list of the
    op input index of each value (for messages).
    """
    base = None
    for v in values:
        if _is_tensor_like(v):
            base = v.dtype
            break
    # Without a tensor among them, a graph op converts each value on its own
    # (a mismatch is the op's TypeError); eagerly the first fixes the dtype.
    independent = base is None and not executing_eagerly()
    out = []
    for v in values:
        if _is_tensor_like(v) or independent:
            t = convert_to_tensor(v)
        else:
            t = convert_to_tensor(v, dtype=base)
        if base is None:
            base = t.dtype
        out.append(t)
    for i, t in enumerate(out):
        if t.dtype is not base:
            if executing_eagerly():
                pos = first_input[i] if isinstance(first_input, list) else i + first_input
                raise U.op_error(op_name, f"cannot compute {op_name} as input "
                                          f"#{pos}(zero-based) was expected to be a "
                                          f"{U.tf_type_name(base)} tensor but is a "
                                          f"{U.tf_type_name(t.dtype)} tensor")
            if mismatch is not None:
                raise mismatch(i, [x.dtype for x in out])
            raise TypeError(f"Tensors in list passed to 'values' of '{op_name}' Op have types "
                            f"[{', '.join(x.dtype.name for x in out)}] that don't all match.")
    return out


def _partial_values(t):
    """The elements of a 1-D int tensor known while building, None for the
    unknown ones; None when even its length is unknown."""
    v = U.constant_value(t)
    if v is not None:
        return [int(x) for x in np.reshape(v, -1)]
    if isinstance(t, SymbolicTensor):
        op = t.op
        if op.type == "Shape":
            s = op.inputs[0].shape
            if s.rank is not None:
                return s.as_list()
        elif op.type == "Pack" and op.get_attr("axis") == 0 and \
                all(i.shape.rank == 0 for i in op.inputs):
            out = []
            for i in op.inputs:
                c = U.constant_value(i)
                out.append(None if c is None else int(c))
            return out
        elif op.type == "ConcatV2":
            out = []
            for i in op.inputs[:-1]:
                p = _partial_values(i)
                if p is None:
                    break
                out.extend(p)
            else:
                return out
        elif op.type in ("Cast", "Identity"):
            return _partial_values(op.inputs[0])
    s = t.shape
    if s.rank == 1 and s[0] is not None:
        return [None] * s[0]
    return None


def _shape_from_tensor(t, op_desc="shape"):
    """A TensorShape from a 1-D shape tensor (None dims where unknown, and
    for -1 entries).

    Raises:
      ValueError: if the tensor is not 1-D or holds a value below -1.
    """
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    vals = _partial_values(t)
    if vals is None:
        return TensorShape(None)
    for v in vals:
        if v is not None and v < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {v}")
    return TensorShape([None if v is None or v < 0 else v for v in vals])


def _num_elements(dims):
    """Elements of a partial shape: 0 when a known dim is 0, None when unknown."""
    if any(d == 0 for d in dims):
        return 0
    if any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def _like_shape(g, x):
    """`g` (a gradient of `x`) with the static shape of `x` merged in, for
    gradients computed through shape arithmetic that loses it."""
    if isinstance(g, SymbolicTensor) and x.shape.rank is not None:
        g.set_shape(x.shape)
    return g


def _check_scalar_axis(t):
    if t.shape.rank is not None and t.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank}")


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
            return constant_value_tensor(t._v, name)
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
    return constant_value_tensor(arr, name)


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


# --- identity ----------------------------------------------------------------

def _identity_kernel(x):
    return x


def _same_infer(inputs, attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


_Identity = register("Identity", _identity_kernel, _same_infer, lambda op, g: [g])


@export("identity")
def identity(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Returns a tensor with the same value (a new node in graphs)."""
    if hasattr(input, "_dense_var_to_tensor"):
        return input._dense_var_to_tensor(name=name)
    if getattr(input, "_is_composite_tensor", False):
        # TensorFlow's identity of an IndexedSlices: that of each component.
        return input._from_components([identity(c) for c in input._to_components()])
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


_StopGradient = register("StopGradient", _identity_kernel, _same_infer, lambda op, g: [None])


@export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """Identity whose gradient is None: blocks backpropagation."""
    x = convert_to_tensor(input)
    return apply1(_StopGradient, x, name=name or "StopGradient")


# --- shape, size, rank -------------------------------------------------------

def _out_type(out_type, op_name):
    out_type = D.int32 if out_type is None else D.as_dtype(out_type)
    if out_type not in _INDEX_TYPES:
        allowed = ", ".join(d.name for d in _INDEX_TYPES)
        if executing_eagerly():
            raise U.op_error(op_name, f"Value for attr 'out_type' of {U.tf_type_name(out_type)} is "
                                      f"not in the list of allowed values: {allowed}\n\t; NodeDef: "
                                      f"{{{{node {op_name}}}}}")
        raise TypeError(f"Value for attr 'out_type' of {out_type.name} is not in the list of "
                        f"allowed values: {allowed}")
    return out_type


def _shape_kernel(x, out_type=D.int32):
    return np.array(x.shape, dtype=out_type._np)


def _shape_infer(inputs, attrs):
    r = inputs[0].shape.rank
    return [(TensorShape([r]), attrs.get("out_type", D.int32))]


_Shape = register("Shape", _shape_kernel, _shape_infer, lambda op, g: [None])


@export("shape")
def shape(input, out_type=None, name=None):  # noqa: A002
    """The shape of a tensor as a 1-D int32 (or `out_type`) tensor.

    A constant when the shape is fully known, else a `Shape` op.
    """
    out_type = _out_type(out_type, "Shape")
    if input.__class__ is SparseTensor:
        # As TensorFlow: the dense_shape, cast.
        return late.cast(input.dense_shape, out_type, name=name)
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    s = x.shape
    if s.is_fully_defined():
        return constant_value_tensor(np.array(s.as_list(), dtype=out_type._np),
                                     name or "Shape")
    return apply1(_Shape, x, {"out_type": out_type}, name=name or "Shape")


@export("shape_n")
def shape_n(input, out_type=D.int32, name=None):  # noqa: A002
    """`shape` of each tensor of a list (the tensors must share one dtype)."""
    out_type = _out_type(out_type, "ShapeN")
    xs = _convert_same_dtype(list(input), "ShapeN")
    return [shape(x, out_type) for x in xs]


def _size_kernel(x, out_type=D.int32):
    return out_type._np.type(np.size(x))


_Size = register("Size", _size_kernel, lambda i, a: [(TensorShape([]), a["out_type"])],
                 lambda op, g: [None])


@export("size")
def size(input, out_type=None, name=None):  # noqa: A002
    """The number of elements of a tensor (a scalar of `out_type`, int32 by default)."""
    if input.__class__ is SparseTensor:
        # As TensorFlow: the product of the dense shape.
        return late.cast(late.reduce_prod(input.dense_shape), _out_type(out_type, "Size"), name=name)
    x = convert_to_tensor(input)
    n = x.shape.num_elements()
    if n is not None and out_type is not None and D.as_dtype(out_type) in U.NUMERIC:
        # A known size is a constant, which TensorFlow builds in any numeric type.
        return constant_value_tensor(D.as_dtype(out_type)._np.type(n), name or "Size")
    out_type = _out_type(out_type, "Size")
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
    if input.__class__ is SparseTensor:
        return size(input.dense_shape, name=name)
    x = convert_to_tensor(input)
    r = x.shape.rank
    if r is not None:
        return constant_value_tensor(np.int32(r), name or "Rank")
    return apply1(_Rank, x, name=name or "Rank")


# --- reshape -----------------------------------------------------------------

def _reshape_kernel(x, shape):
    if shape.ndim > 1:
        raise U.op_error("Reshape", f"sizes input must be 1-D, not {dims_text(shape.shape)}")
    dims = np.reshape(shape, -1).tolist()
    n = x.size
    total = 1
    for d in dims:
        if d <= 0:
            break
        total *= d
    else:
        if total == n:
            return np.reshape(x, dims)
        raise U.op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                    f"requested shape has {total}")
    unknown = -1
    product = 1
    sizes_have_zero = False
    for i, d in enumerate(dims):
        if d == -1:
            if unknown != -1:
                raise U.op_error("Reshape", f"Only one input size may be -1, not both {unknown} "
                                            f"and {i}")
            unknown = i
        elif d < 0:
            raise U.op_error("Reshape", f"Size {i} must be non-negative, not {d}")
        elif d == 0:
            sizes_have_zero = True
        else:
            product *= d
    if unknown != -1:
        # Zero-sized input dims are left out when the requested shape has a
        # zero too, so the -1 can still be resolved (TensorFlow's rule).
        known_in = 1
        input_has_zero = False
        for d in x.shape:
            if d > 0 or not sizes_have_zero:
                known_in *= d
            else:
                input_has_zero = True
        missing = known_in // product
        if not input_has_zero and product * missing != known_in:
            raise U.op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                        f"requested shape requires a multiple of {product}")
        dims[unknown] = missing
    total = 1
    for d in dims:
        total *= d
    if total != n:
        raise U.op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                    f"requested shape has {total}")
    return np.reshape(x, dims)


def _reshape_infer(inputs, attrs):
    x, s = inputs
    out = _shape_from_tensor(s)
    if out.rank is None or x.shape.rank is None:
        return [(out, x.dtype)]
    dims = out.as_list()
    in_dims = x.shape.as_list()
    too_many = False
    out_unknown = -1
    known_out = _num_elements(dims)
    if known_out is None:
        known_out = 1
        for i, d in enumerate(dims):
            if d is None:
                if out_unknown >= 0:
                    too_many = True
                    break
                out_unknown = i
            else:
                known_out *= d
    in_unknown = -1
    known_in = _num_elements(in_dims)
    if known_in is None:
        known_in = 1
        for i, d in enumerate(in_dims):
            if d is None:
                if in_unknown >= 0:
                    too_many = True
                    break
                in_unknown = i
            else:
                known_in *= d
    if not too_many:
        if in_unknown < 0 and out_unknown < 0:
            if known_in != known_out:
                raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape "
                                 f"{dims_text(dims)} ({known_out} elements)")
        elif in_unknown < 0 <= out_unknown and known_out > 0:
            if known_in % known_out:
                raise ValueError(f"Dimension size must be evenly divisible by {known_out} but "
                                 f"is {known_in}")
            dims[out_unknown] = known_in // known_out
        elif out_unknown < 0 <= in_unknown and known_in != 0:
            if known_out % known_in:
                raise ValueError(f"Dimension size must be evenly divisible by {known_in} but "
                                 f"is {known_out}")
        elif in_unknown >= 0 and out_unknown >= 0 and known_in == known_out:
            dims[out_unknown] = in_dims[in_unknown]
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
    s = _index_input(shape, "Reshape", "shape", "Tshape")
    return apply2(_Reshape, x, s, name=name or "Reshape")


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


# --- stack / unstack ---------------------------------------------------------

def _pack_kernel(*xs, axis=0, N=None):
    s = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != s:
            raise U.op_error("Pack", f"Shapes of all inputs must match: values[0].shape = "
                                     f"{dims_text(s)} != values[{i}].shape = {dims_text(x.shape)}")
    out = np.stack(xs, axis)
    if out.dtype != xs[0].dtype:
        out = out.astype(xs[0].dtype)
    return out


def _pack_infer(inputs, attrs):
    if not inputs:
        raise ValueError("Pack requires at least one input")
    dtype = inputs[0].dtype
    s = inputs[0].shape
    for t in inputs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
        if s.rank is not None and t.shape.rank is not None and s.rank != t.shape.rank:
            raise ValueError(f"Shapes must be equal rank, but are {s.rank} and {t.shape.rank}")
        if not s.is_compatible_with(t.shape):
            i = next(i for i, (a, b) in enumerate(zip(s, t.shape))
                     if a is not None and b is not None and a != b)
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {s[i]} and "
                             f"{t.shape[i]}. Shapes are {shape_text(s)} and {shape_text(t.shape)}."
                             f"\n\tFrom merging shape 0 with other shapes.")
        s = s.merge_with(t.shape)
    if s.rank is None:
        return [(TensorShape(None), dtype)]
    axis = attrs["axis"]
    r = s.rank + 1
    if not -r <= axis < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    dims = s.as_list()
    dims.insert(axis % r, len(inputs))
    return [(TensorShape(dims), dtype)]


def _pack_grad(op, g):
    return unstack(g, num=len(op.inputs), axis=op.get_attr("axis"))


_Pack = register("Pack", _pack_kernel, _pack_infer, _pack_grad)


@export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along `axis`.

    Raises:
      ValueError: if `axis` is out of range.
      InvalidArgumentError (eager) / ValueError (graph): for different shapes.
    """
    if isinstance(values, Tensor):
        return identity(values, name=name)
    values = list(values)
    if axis == 0 and not any(_is_tensor_like(v) for v in values):
        # A list of Python/NumPy values is one constant.
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    if not values:
        raise ValueError("List argument 'values' to 'Pack' Op with length 0 shorter than "
                         "minimum length 1.")
    ts = _convert_same_dtype(values, "Pack")
    s = ts[0].shape
    if s.rank is not None:
        r = s.rank + 1
        if not -r <= axis < r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    return apply(_Pack, ts, {"axis": axis, "N": len(ts)}, name=name)


def _unpack_kernel(x, num, axis):
    if x.shape[axis] != num:
        raise U.op_error("Unpack", f"Input shape axis {axis} must equal {num}, got shape "
                                   f"{dims_text(x.shape)}")
    moved = np.moveaxis(x, axis, 0) if axis else x
    # `[i, ...]` keeps 0-d results arrays (string elements stay object arrays).
    return [moved[i, ...] for i in range(num)]


def _unpack_infer(inputs, attrs):
    s = inputs[0].shape
    axis, num = attrs["axis"], attrs["num"]
    if s.rank is None:
        return [(TensorShape(None), inputs[0].dtype)] * num
    if not -s.rank <= axis < s.rank:
        raise ValueError(f"axis = {axis} not in [{-s.rank}, {s.rank})")
    dims = s.as_list()
    d = dims.pop(axis)
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    return [(TensorShape(dims), inputs[0].dtype)] * num


def _unpack_grad(op, *grads):
    axis = op.get_attr("axis")
    gs = [g if g is not None else zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [stack(gs, axis=axis)]


_Unpack = register("Unpack", _unpack_kernel, _unpack_infer, _unpack_grad)


@export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a rank-R tensor into a list of rank-(R-1) tensors along `axis`.

    Raises:
      ValueError: if `num` is not given and the dimension is not known, or
        `axis` is out of range.
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
    if axis.size != 1:
        raise U.op_error("ConcatV2", f"Concat dim tensor should be a scalar integer, but got "
                                     f"shape {dims_text(axis.shape)}")
    axis = int(np.reshape(axis, -1)[0])
    r = xs[0].ndim
    if r == 0:
        raise U.op_error("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -r <= axis < r:
        raise U.op_error("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                     f"[{-r}, {r}), but got {axis}")
    a = axis % r
    try:
        out = np.concatenate(xs, axis=a)
    except ValueError:
        s0 = xs[0].shape
        for i, x in enumerate(xs[1:], 1):
            if x.ndim != r:
                raise U.op_error("ConcatV2", f"ConcatOp : Ranks of all input tensors should "
                                             f"match: shape[0] = {dims_text(s0)} vs. shape[{i}] = "
                                             f"{dims_text(x.shape)}") from None
            for j in range(r):
                if j != a and x.shape[j] != s0[j]:
                    raise U.op_error("ConcatV2", f"ConcatOp : Dimension {j} in both shapes must "
                                                 f"be equal: shape[0] = {dims_text(s0)} vs. "
                                                 f"shape[{i}] = {dims_text(x.shape)}") from None
        raise
    if out.dtype != xs[0].dtype:
        out = out.astype(xs[0].dtype)
    return out


def _concat_infer(inputs, attrs):
    *xs, axis_t = inputs
    dtype = xs[0].dtype
    for t in xs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'ConcatV2' Op have types "
                            f"[{', '.join(x.dtype.name for x in xs)}] that don't all match.")
    _check_scalar_axis(axis_t)
    ranks = [t.shape.rank for t in xs if t.shape.rank is not None]
    if not ranks:
        return [(TensorShape(None), dtype)]
    r = ranks[0]
    for q in ranks:
        if q != r:
            raise ValueError(f"Shape must be rank {r} but is rank {q}")
    axis = U.constant_value(axis_t)
    if axis is None:
        return [(TensorShape([None] * r), dtype)]
    axis = int(np.reshape(axis, -1)[0])
    if r == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if axis >= r:
        raise ValueError(f"Shape must be at least rank {axis + 1} but is rank {r}")
    if axis < -r:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                         f"[{-r}, {r}), but got {axis}")
    axis %= r
    dims = [None] * r
    first = None
    total = 0
    for t in xs:
        if t.shape.rank is None:
            total = None
            continue
        rest = [d for i, d in enumerate(t.shape.as_list()) if i != axis]
        if first is None:
            first = rest
        for i, d in enumerate(t.shape.as_list()):
            if i == axis:
                continue
            if dims[i] is None:
                dims[i] = d
            elif d is not None and d != dims[i]:
                raise ValueError(
                    f"Dimension {i if i < axis else i - 1} in both shapes must be equal, but are "
                    f"{dims[i]} and {d}. Shapes are {shape_text(TensorShape(first))} and "
                    f"{shape_text(TensorShape(rest))}.")
        d = t.shape[axis]
        total = None if (total is None or d is None) else total + d
    dims[axis] = total
    return [(TensorShape(dims), dtype)]


def _axis_sizes(xs, axis):
    """The size of each tensor of `xs` along `axis` (ints when known, else
    one int32 tensor of all sizes)."""
    a = U.constant_value(axis)
    if a is not None and all(x.shape.rank is not None for x in xs):
        a = int(np.reshape(a, -1)[0]) % xs[0].shape.rank
        sizes = [x.shape[a] for x in xs]
        if all(s is not None for s in sizes):
            return sizes
        mask = np.zeros(xs[0].shape.rank, np.int32)
        mask[a] = 1
        mask = convert_to_tensor(mask)
    else:
        axis = convert_to_tensor(axis)
        r = rank(xs[0])
        mask = one_hot_axis(late.floormod(axis, r), r)
    return stack([late.reduce_sum(shape(x) * mask) for x in xs])


def _concat_grad(op, g):
    *xs, axis = op.inputs
    sizes = _axis_sizes(xs, axis)
    return list(late.split(g, sizes, axis=axis, num=len(xs))) + [None]


def one_hot_axis(axis, r):
    """A 1-D int32 vector of length `r` with a 1 at `axis` (dynamic helper)."""
    return late.cast(late.equal(late.range(r), axis), D.int32)


_ConcatV2 = register("ConcatV2", _concat_kernel, _concat_infer, _concat_grad)


@export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along an existing dimension `axis`.

    Raises:
      InvalidArgumentError (eager) / ValueError (graph): for incompatible
        shapes or an out-of-range axis.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        a = convert_to_tensor(axis, dtype=D.int32)
        if a.shape.rank is not None and a.shape.rank != 0:
            raise ValueError(f"Shape {a.shape} must have rank 0")
        return identity(values[0], name=name)
    if not values:
        raise ValueError("List argument 'values' to 'ConcatV2' Op with length 0 shorter than "
                         "minimum length 2.")
    ts = _convert_same_dtype(values, "ConcatV2")
    a = _index_input(axis, "ConcatV2", "axis", "Tidx")
    return apply(_ConcatV2, ts + [a], {"N": len(ts)}, name=name)


# --- expand_dims / squeeze ---------------------------------------------------

def _expand_dims_kernel(x, axis):
    if axis.size != 1:
        raise U.op_error("ExpandDims", "'dim' must be a tensor with a single value")
    a = int(np.reshape(axis, -1)[0])
    r = x.ndim
    if not -r - 1 <= a <= r:
        raise U.op_error("ExpandDims", f"Tried to expand dim index {a} for tensor with {r} "
                                       "dimensions.")
    return np.expand_dims(x, a)


def _expand_dims_infer(inputs, attrs):
    x, a = inputs
    n = a.shape.num_elements()
    if n is not None and n != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    axis = U.constant_value(a)
    s = x.shape
    if s.rank is None or axis is None:
        return [(TensorShape(None), x.dtype)]
    axis = int(np.reshape(axis, -1)[0])
    r = s.rank
    if not -r - 1 <= axis <= r:
        raise ValueError(f"dim {axis} not in the interval [{-r - 1}, {r}].")
    dims = s.as_list()
    dims.insert(axis % (r + 1), 1)
    return [(TensorShape(dims), x.dtype)]


_ExpandDims = register("ExpandDims", _expand_dims_kernel, _expand_dims_infer,
                       lambda op, g: [reshape(g, shape(op.inputs[0])), None])


@export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002
    """Inserts a dimension of size 1 at `axis` (negative counts from the end)."""
    x = convert_to_tensor(input)
    if isinstance(axis, float):
        axis = convert_to_tensor(axis, dtype=D.int32)  # raises TypeError, as TensorFlow does
    a = _index_input(axis, "ExpandDims", "dim", "Tdim")
    return apply2(_ExpandDims, x, a, name=name or "ExpandDims")


def _squeeze_kernel(x, squeeze_dims):
    r = x.ndim
    if not squeeze_dims:
        return np.reshape(x, [d for d in x.shape if d != 1])
    axes = set()
    for a in squeeze_dims:
        if not -r <= a < r:
            raise U.op_error("Squeeze", f"Tried to squeeze dim index {a} for tensor with {r} "
                                        "dimensions.")
        a %= r
        if x.shape[a] != 1:
            raise U.op_error("Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, "
                                        f"got {x.shape[a]}")
        axes.add(a)
    return np.reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


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
    norm = set()
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise ValueError(f"squeeze_dims[{i}] not in [{-r},{r}).")
        a %= r
        if s[a] is not None and s[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {s[a]}")
        norm.add(a)
    return [(TensorShape([d for i, d in enumerate(s) if i not in norm]), x.dtype)]


_Squeeze = register("Squeeze", _squeeze_kernel, _squeeze_infer,
                    lambda op, g: [reshape(g, shape(op.inputs[0]))])


@export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those listed in `axis`).

    Raises:
      InvalidArgumentError (eager) / ValueError (graph): if a listed
        dimension is not 1 or out of range.
    """
    x = convert_to_tensor(input)
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    axes = [int(a) for a in axis] if axis is not None else []
    return apply1(_Squeeze, x, {"squeeze_dims": axes}, name=name or "Squeeze")


# --- transpose ---------------------------------------------------------------

def _transpose_check(x, perm, op_name):
    r = x.ndim
    if perm.ndim != 1 or perm.size != r:
        raise U.op_error(op_name, f"transpose expects a vector of size {r}. But input(1) is a "
                                  f"vector of size {perm.size}")
    p = [int(v) for v in perm]
    seen = [False] * r
    for v in p:
        if not -r <= v < r:
            raise U.op_error(op_name, f"{v} is out of range [0 .. {r})")
        seen[v % r] = True
    for i, ok in enumerate(seen):
        if not ok:
            raise U.op_error(op_name, f"{i} is missing from {{{','.join(str(v) for v in p)}}}.")
    return p


def _transpose_kernel(x, perm):
    return np.transpose(x, _transpose_check(x, perm, "Transpose"))


def _conjugate_transpose_kernel(x, perm):
    return np.conj(np.transpose(x, _transpose_check(x, perm, "ConjugateTranspose")))


def _transpose_infer(inputs, attrs):
    x, p = inputs
    s = x.shape
    if p.shape.rank is not None and p.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {p.shape.rank}")
    perm = U.constant_value(p)
    n = p.shape[0] if p.shape.rank == 1 else None
    if s.rank is not None and n is not None and n != s.rank:
        raise ValueError(f"Dimension must be {s.rank} but is {n}")
    if perm is None:
        r = s.rank if s.rank is not None else n
        return [(TensorShape(None) if r is None else TensorShape([None] * r), x.dtype)]
    perm = [int(v) for v in np.reshape(perm, -1)]
    if s.rank is None:
        return [(TensorShape([None] * len(perm)), x.dtype)]
    r = s.rank
    for v in perm:
        if not -r <= v < r:
            raise ValueError(f"perm dim {v} is out of range of input rank {r}")
    return [(TensorShape([s[v % r] for v in perm]), x.dtype)]


def _inverse_permutation(perm):
    p = U.constant_value(perm)
    if p is not None:
        p = np.reshape(p, -1).astype(np.int64)
        p = p % max(len(p), 1)
        return convert_to_tensor(np.argsort(p).astype(np.int32))
    return late.invert_permutation(perm)


def _transpose_grad(op, g):
    return [transpose(g, _inverse_permutation(op.inputs[1]),
                      conjugate=op.type == "ConjugateTranspose"), None]


_Transpose = register("Transpose", _transpose_kernel, _transpose_infer, _transpose_grad)
_ConjugateTranspose = register("ConjugateTranspose", _conjugate_transpose_kernel,
                               _transpose_infer, _transpose_grad)


@export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (reverses them when `perm` is None); with
    `conjugate`, complex values are also conjugated."""
    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.rank
        if r is None:
            perm = late.range(rank(x) - 1, -1, -1)
        else:
            perm = np.arange(r - 1, -1, -1, dtype=np.int32)
    p = _index_input(perm, "Transpose", "perm", "Tperm")
    op = _ConjugateTranspose if conjugate and x.dtype.is_complex else _Transpose
    return apply2(op, x, p, name=name)


# --- tile --------------------------------------------------------------------

def _tile_kernel(x, multiples):
    if multiples.ndim != 1:
        raise U.op_error("Tile", f"Expected multiples to be 1-D, but got shape "
                                 f"{dims_text(multiples.shape)}")
    if multiples.size != x.ndim:
        raise U.op_error("Tile", f"Expected multiples argument to be a vector of length {x.ndim} "
                                 f"but got length {multiples.size}")
    m = [int(v) for v in multiples]
    for i, v in enumerate(m):
        if v < 0:
            raise U.op_error("Tile", f"Expected multiples[{i}] >= 0, but got {v}")
    return np.tile(x, m) if m else x


def _tile_infer(inputs, attrs):
    x, m = inputs
    s = x.shape
    if m.shape.rank is not None and m.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {m.shape.rank}")
    mult = _partial_values(m)
    if mult is None:
        if s.rank is None:
            return [(TensorShape(None), x.dtype)]
        return [(TensorShape([None] * s.rank), x.dtype)]
    if s.rank is None:
        return [(TensorShape([None] * len(mult)), x.dtype)]
    if len(mult) != s.rank:
        raise ValueError(f"Shape must be rank {s.rank} but is rank {len(mult)}")
    for v in mult:
        if v is not None and v < 0:
            raise ValueError(f"Expected multiples >= 0, but got {v}")
    return [(TensorShape([None if d is None or k is None else d * k
                          for d, k in zip(s, mult)]), x.dtype)]


def _tile_grad(op, g):
    x, m = op.inputs
    # Split each axis i into (multiples[i], dim[i]) and sum over the repeats.
    split_shape = reshape(stack([m, shape(x, out_type=m.dtype)], axis=1), [-1])
    r = x.shape.rank
    if r is not None:
        axes = list(range(0, 2 * r, 2))
    else:
        axes = late.range(0, size(split_shape), 2)
    if r == 0:
        return [g, None]
    return [_like_shape(late.reduce_sum(reshape(g, split_shape), axis=axes), x), None]


_Tile = register("Tile", _tile_kernel, _tile_infer, _tile_grad)


@export("tile")
def tile(input, multiples, name=None):  # noqa: A002
    """Repeats the tensor `multiples[i]` times along each dimension i."""
    x = convert_to_tensor(input)
    m = _index_input(multiples, "Tile", "multiples", "Tmultiples")
    return apply2(_Tile, x, m, name=name or "Tile")


# --- broadcast_to ------------------------------------------------------------

def _broadcast_to_kernel(x, shape):
    if shape.ndim != 1:
        raise U.op_error("BroadcastTo", f"shape must be a vector of {{int32,int64}}, got shape "
                                        f"{dims_text(shape.shape)}")
    target = [int(d) for d in shape]
    for d in target:
        if d < 0:
            raise U.op_error("BroadcastTo", f"Dimension {d} must be >= 0")
    if x.ndim > len(target):
        raise U.op_error("BroadcastTo", f"Rank of input ({x.ndim}) must be no greater than rank "
                                        f"of output shape ({len(target)}).")
    for a, b in zip(reversed(x.shape), reversed(target)):
        if a != b and a != 1:
            raise U.op_error("BroadcastTo", f"Incompatible shapes: {dims_text(x.shape)} vs. "
                                            f"{dims_text(target)}")
    return np.broadcast_to(x, target)


def _broadcast_to_infer(inputs, attrs):
    x, s = inputs
    if s.shape.rank is not None and s.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.shape.rank}")
    target = _shape_from_tensor(s)
    if target.rank is None or x.shape.rank is None:
        return [(target, x.dtype)]
    xr, tr = x.shape.rank, target.rank
    if xr > tr:
        raise ValueError(f"Shape must be at most rank {tr} but is rank {xr}")
    dims = target.as_list()
    for i, d in enumerate(x.shape.as_list()):
        j = tr - xr + i
        t = dims[j]
        if d is None or d == 1:
            continue
        if t is None:
            dims[j] = d
        elif t != d:
            raise ValueError(f"Dimensions must be equal, but are {d} and {t}")
    return [(TensorShape(dims), x.dtype)]


def _broadcast_to_grad(op, g):
    return [late._sum_to(g, op.inputs[0]), None]


_BroadcastTo = register("BroadcastTo", _broadcast_to_kernel, _broadcast_to_infer,
                        _broadcast_to_grad)


@export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts `input` to `shape` (NumPy broadcasting rules)."""
    x = convert_to_tensor(input)
    s = _index_input(shape, "BroadcastTo", "shape", "Tidx")
    return apply2(_BroadcastTo, x, s, name=name or "BroadcastTo")


# --- broadcast shape arithmetic ---------------------------------------------

def _bga_kernel(s0, s1):
    a0 = [int(d) for d in s0]
    a1 = [int(d) for d in s1]
    dt = s0.dtype
    if a0 == a1:
        return np.zeros(0, dt), np.zeros(0, dt)
    n = max(len(a0), len(a1))
    x = [1] * (n - len(a0)) + a0
    y = [1] * (n - len(a1)) + a1
    r0, r1 = [], []
    for i, (p, q) in enumerate(zip(x, y)):
        if p == 1 and q == 1:
            r0.append(i)
            r1.append(i)
        elif p == q:
            continue
        elif p == 1:
            r0.append(i)
        elif q == 1:
            r1.append(i)
        else:
            raise U.op_error("BroadcastGradientArgs", f"Incompatible shapes: {dims_text(a0)} vs. "
                                                      f"{dims_text(a1)}")
    return np.array(r0, dtype=dt), np.array(r1, dtype=dt)


def _bga_infer(inputs, attrs):
    s0, s1 = inputs
    if s0.dtype is not s1.dtype:
        raise TypeError(f"Input 's1' of 'BroadcastGradientArgs' Op has type {s1.dtype.name} "
                        f"that does not match type {s0.dtype.name} of argument 's0'.")
    return [(TensorShape([None]), s0.dtype), (TensorShape([None]), s0.dtype)]


_BroadcastGradientArgs = register("BroadcastGradientArgs", _bga_kernel, _bga_infer,
                                  lambda op, g0, g1: [None, None])


@export("raw_ops.BroadcastGradientArgs")
def broadcast_gradient_args(s0, s1, name=None):
    """The axes to reduce over for the gradients of two broadcast operands
    (the shapes `s0` and `s1`)."""
    a, b = _index_pair(s0, s1, "BroadcastGradientArgs")
    return apply(_BroadcastGradientArgs, [a, b], name=name or "BroadcastGradientArgs",
                 multi=True)


@export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes.

    Raises:
      ValueError: if they are incompatible.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return U.broadcast_shapes(x, y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {x} and {y}.") from None


def _broadcast_args_kernel(s0, s1):
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    try:
        out = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        raise U.op_error("BroadcastArgs",
                         f"Incompatible shapes: {dims_text(a)} vs. {dims_text(b)}") from None
    return np.array(out, dtype=s0.dtype)


def _broadcast_args_infer(inputs, attrs):
    s0, s1 = inputs
    n0 = s0.shape[0] if s0.shape.rank == 1 else None
    n1 = s1.shape[0] if s1.shape.rank == 1 else None
    n = None if n0 is None or n1 is None else max(n0, n1)
    return [(TensorShape([n]), s0.dtype)]


_BroadcastArgs = register("BroadcastArgs", _broadcast_args_kernel, _broadcast_args_infer,
                          lambda op, g: [None, None])


@export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors (computed at run time in graphs).

    Raises:
      InvalidArgumentError: if the shapes are incompatible.
    """
    a, b = _index_pair(shape_x, shape_y, "BroadcastArgs")
    return apply2(_BroadcastArgs, a, b, name="BroadcastArgs")


# --- where / select ----------------------------------------------------------

def _select_kernel(c, x, y):
    try:
        out = np.where(c, x, y)
    except ValueError:
        raise U.op_error("SelectV2", f"condition {dims_text(c.shape)}, then "
                                     f"{dims_text(x.shape)}, and else {dims_text(y.shape)} "
                                     "must be broadcastable") from None
    if out.dtype != x.dtype:
        out = out.astype(x.dtype)
    return out


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
    c, x, y = op.inputs
    z = zeros_like(g)
    return [None, late._sum_to(where(c, g, z), x), late._sum_to(where(c, z, g), y)]


_SelectV2 = register("SelectV2", _select_kernel, _select_infer, _select_grad)

_WHERE_TYPES = U.NUMERIC + (D.bool_,)


def _where_kernel(c):
    if c.ndim == 0:
        raise U.op_error("Where", "WhereOp : Unhandled input dimensions: 0")
    return np.argwhere(c).astype(np.int64)


def _where_infer(inputs, attrs):
    c = inputs[0]
    U.check_graph_dtype(c, _WHERE_TYPES, "input")
    return [(TensorShape([None, c.shape.rank]), D.int64)]


_Where = register("Where", _where_kernel, _where_infer, lambda op, g: [None], no_fold=True,
                  allowed=_WHERE_TYPES)


def _select_mismatch(i, dtypes):
    return TypeError(f"Input 'e' of 'SelectV2' Op has type {dtypes[1].name} that does not "
                     f"match type {dtypes[0].name} of argument 't'.")


@export("where")
def where(condition, x=None, y=None, name=None):
    """With x and y: elementwise `x if condition else y` (broadcasting all
    three). Alone: the int64 coordinates of the True (non-zero) elements,
    shape [n, rank].

    Raises:
      ValueError: if only one of x and y is given.
    """
    if x is None and y is None:
        c = convert_to_tensor(condition)
        if executing_eagerly() and c._v.dtype not in _Where.allowed_np:
            raise U._eager_disallowed(_Where, c)
        return apply1(_Where, c, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if _is_tensor_like(condition):
        c = convert_to_tensor(condition)
        if c.dtype is not D.bool_:
            if executing_eagerly():
                raise ValueError(f"Tensor conversion requested dtype bool for Tensor with dtype "
                                 f"{c.dtype.name}: {c!r}")
            raise TypeError(f"Input 'condition' of 'SelectV2' Op has type {c.dtype.name} that "
                            "does not match expected type of bool.")
    elif isinstance(condition, (np.ndarray, np.generic)):
        c = convert_to_tensor(condition, dtype=D.bool_)
    else:
        c = convert_to_tensor(condition)
        if c.dtype is not D.bool_:
            raise TypeError(f"Cannot convert {condition!r} to EagerTensor of dtype bool")
    x, y = _convert_same_dtype([x, y], "SelectV2", _select_mismatch, first_input=1)
    return apply(_SelectV2, [c, x, y], name=name or "SelectV2")

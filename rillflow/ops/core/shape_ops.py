"""Identity and shape ops: identity, identity_n, stop_gradient, prevent_gradient;
shape, shape_n, size, rank; reshape.

Shape-valued arguments (a reshape's shape) are int32/int64 op inputs, as in TensorFlow, so
they can be computed at run time; shape inference reads whatever part of them is known
while building (array_util._partial_values).
"""
import numpy as np

from ...framework import context as _context
from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply, apply1, apply2
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework import placement as _placement
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .. import late
from .array_util import (_INDEX_TYPES, _convert_same_dtype, _index_input, _num_elements,
                         _shape_from_tensor)

_state = _context.state


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
    if _state.graph is None and _state.device:
        # Eager identity in a device scope: a copy there (TensorFlow's
        # identity copies between devices).
        out = apply1(_Identity, x, name=name or "Identity") if _state.tapes \
            else EagerTensor(x._v)
        return _placement.place(out)
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


# GuaranteeConst has no gradient in TensorFlow (asking for one is an error).
_GuaranteeConst = register("GuaranteeConst", _identity_kernel, _same_infer)


@export("guarantee_const")
def guarantee_const(input, name=None):  # noqa: A002
    """The input, promised to be constant across runs (deprecated in
    TensorFlow; an identity without a gradient)."""
    return apply1(_GuaranteeConst, convert_to_tensor(input), name=name or "GuaranteeConst")


_StopGradient = register("StopGradient", _identity_kernel, _same_infer, lambda op, g: [None])


@export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """Identity whose gradient is None: blocks backpropagation."""
    x = convert_to_tensor(input)
    return apply1(_StopGradient, x, name=name or "StopGradient")


def _prevent_gradient_grad(op, g):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


_PreventGradient = register("PreventGradient", lambda x, message="": x, _same_infer,
                            _prevent_gradient_grad)


def prevent_gradient(input, message="", name=None):  # noqa: A002
    """Identity whose gradient raises LookupError with `message` (TensorFlow's
    array_ops.prevent_gradient, for values no gradient may flow through)."""
    x = convert_to_tensor(input)
    return apply1(_PreventGradient, x, {"message": message}, name=name or "PreventGradient")


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
    xs = _convert_same_dtype(list(input), "ShapeN", list_input=True)
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
        return late.cast(late.reduce_prod(input.dense_shape), _out_type(out_type, "Size"),
                         name=name)
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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_shape(ctx, op, x):
    return np.array(XL.jnp.shape(x), op.attrs.get("out_type", D.int32)._np)


def _lower_size(ctx, op, x):
    return np.array(XL.jnp.size(x), op.attrs.get("out_type", D.int32)._np)


XL.set_lowerings({
    "Identity": lambda ctx, op, x: x, "IdentityN": lambda ctx, op, *xs: list(xs),
    "StopGradient": "lax.stop_gradient", "Shape": _lower_shape, "Size": _lower_size,
    "Rank": lambda ctx, op, x: np.int32(XL.jnp.ndim(x)),
    "Reshape": lambda ctx, op, x, shape: XL.jnp.reshape(x, XL.ints(ctx.static(op, 1, shape)))})

"""Reductions over axes: sum, mean, max, min, prod, all, any, ...

The reduction axes are an int32 input tensor, as in TensorFlow, so they may
be computed at run time (gradients of broadcasting need that).
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply2
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from . import op_util as U
from .op_util import NUMERIC, REAL


def _axes(axis, ndim):
    """Normalizes a runtime axis array to a tuple of non-negative ints."""
    axis = np.reshape(axis, -1)
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({a} for input with {ndim} "
                "dimension(s)")
        out.append(a % ndim if ndim else 0)
    return tuple(out)


def reduction_infer(op_name, out_dtype=None, allowed=None):
    """Shape function of a reduction whose second input is the axes."""
    def infer(inputs, attrs):
        x, a = inputs
        if allowed is not None and x.dtype not in allowed:
            raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not "
                            f"in list of allowed values: {', '.join(d.name for d in allowed)}")
        keep = attrs.get("keep_dims", False)
        dtype = out_dtype or x.dtype
        s = x.shape
        axis = U.constant_value(a)
        if s.rank is None:
            return [(TensorShape(None), dtype)]
        if axis is None:
            if keep:
                return [(TensorShape([None] * s.rank), dtype)]
            n = a.shape.num_elements() if a.shape.rank is not None else None
            if n is not None and s.rank is not None:
                return [(TensorShape([None] * (s.rank - n)) if n <= s.rank
                         else TensorShape(None), dtype)]
            return [(TensorShape(None), dtype)]
        r = s.rank
        ax = set()
        for v in np.reshape(axis, -1):
            v = int(v)
            if not -r <= v < max(r, 1):
                raise ValueError(f"Invalid reduction dimension {v} for input with {r} "
                                 "dimensions.")
            ax.add(v % r if r else 0)
        if keep:
            dims = [1 if i in ax else d for i, d in enumerate(s)]
        else:
            dims = [d for i, d in enumerate(s) if i not in ax]
        return [(TensorShape(dims), dtype)]
    return infer


def _sum_kernel(x, axis, keep_dims=False):
    return np.sum(x, axis=_axes(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype)


def _reduced_shape_keepdims(x, axis):
    """The shape of `x` with the reduced axes set to 1 (dynamic-safe)."""
    from .array_ops import shape
    s = x.shape
    a = U.constant_value(axis)
    if s.is_fully_defined() and a is not None:
        r = s.rank
        ax = {int(v) % r for v in np.reshape(a, -1)} if r else set()
        return [1 if i in ax else d for i, d in enumerate(s.as_list())]
    from .math_ops import floormod
    from .scatter_ops import tensor_scatter_nd_update
    from .array_ops import expand_dims, ones_like, rank
    xs = shape(x)
    axes = floormod(convert_to_tensor(axis, dtype=D.int32), rank(x))
    axes = U_reshape(axes, [-1])
    return tensor_scatter_nd_update(xs, expand_dims(axes, 1), ones_like(axes))


def U_reshape(t, s):
    """reshape, imported lazily (array_ops imports this module)."""
    from .array_ops import reshape
    return reshape(t, s)


def _sum_grad(op, g):
    from .array_ops import broadcast_to, reshape, shape
    x, axis = op.inputs
    if not op.get_attr("keep_dims"):
        g = reshape(g, _reduced_shape_keepdims(x, axis))
    return [broadcast_to(g, shape(x)), None]


_Sum = register("Sum", _sum_kernel, reduction_infer("Sum", allowed=NUMERIC), _sum_grad,
                allowed=NUMERIC)


def _axis_tensor(x, axis):
    if axis is None:
        r = x.shape.rank
        if r is not None:
            return convert_to_tensor(np.arange(r, dtype=np.int32))
        from .creation_ops import range as range_
        from .array_ops import rank
        return range_(0, rank(x))
    if isinstance(axis, Tensor):
        return axis
    return convert_to_tensor(axis, dtype=D.int32)


def reduce(opdef, input_tensor, axis, keepdims, name):
    """Runs a reduction op with TensorFlow's axis conventions."""
    x = convert_to_tensor(input_tensor)
    if opdef.allowed_np is not None and isinstance(x, EagerTensor) and \
            x._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, x)
    a = _axis_tensor(x, axis)
    return apply2(opdef, x, a, {"keep_dims": bool(keepdims)}, name=name)


@export("math.reduce_sum", "reduce_sum")
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """The sum of elements across `axis` (all axes when None)."""
    return reduce(_Sum, input_tensor, axis, keepdims, name or "Sum")


def _add_n_kernel(*xs, N=None):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def _add_n_infer(inputs, attrs):
    dtype = inputs[0].dtype
    s = inputs[0].shape
    for t in inputs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
        s = s.merge_with(t.shape)
    return [(s, dtype)]


_AddN = register("AddN", _add_n_kernel, _add_n_infer,
                 lambda op, g: [g] * len(op.inputs), allowed=NUMERIC)


@export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype.

    Raises:
      ValueError: for an empty list or tensors of different shapes.
    """
    if isinstance(inputs, Tensor):
        return inputs
    if not inputs:
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    ts = [convert_to_tensor(x) for x in inputs]
    if len(ts) == 1:
        from .array_ops import identity
        return identity(ts[0], name=name)
    from ..framework.execute import apply
    return apply(_AddN, ts, {"N": len(ts)}, name=name or "AddN")

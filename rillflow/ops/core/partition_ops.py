"""Moving elements between tensors by index: `dynamic_partition`,
`dynamic_stitch` (each the other's gradient), `unravel_index`, plus
`ensure_shape` and `confusion_matrix`."""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, as_shape
from . import op_util as U
from .gather_ops import gather
from .constant_ops import zeros_like
from .creation_ops import range as range_
from .join_ops import stack
from .math_ops import cast, maximum
from .reduction_ops import reduce_max
from .scatter_ops import scatter_nd
from .shape_ops import reshape, shape, size

__all__ = ["dynamic_partition", "dynamic_stitch", "unravel_index", "ensure_shape",
           "confusion_matrix"]


# --- dynamic_partition / dynamic_stitch ---------------------------------------------

def _partition_kernel(data, partitions, num_partitions):
    p = np.asarray(partitions)
    if data.shape[:p.ndim] != p.shape:
        raise U.op_error("DynamicPartition", f"data.shape must start with partitions.shape, "
                         f"got data.shape = {list(data.shape)}, partitions.shape = "
                         f"{list(p.shape)}")
    bad = p[(p < 0) | (p >= num_partitions)]
    if bad.size:
        raise U.op_error("DynamicPartition", f"partitions{list(np.argwhere(p == bad[0])[0])} = "
                         f"{bad[0]} is not in [0, {num_partitions})")
    return [data[p == k] for k in range(num_partitions)]


def _partition_infer(inputs, attrs):
    data, parts = inputs[0].shape, inputs[1].shape
    rest = data[parts.rank:] if data.rank is not None and parts.rank is not None \
        else TensorShape(None)
    shape = TensorShape([None]).concatenate(rest)
    return [(shape, inputs[0].dtype)] * attrs["num_partitions"]


def _partition_grad(op, *grads):
    data, parts = op.inputs
    # Where each element of `data` went: partition the positions the same way.
    positions = reshape(range_(size(parts)), shape(parts))
    where = dynamic_partition(positions, parts, op.attrs["num_partitions"])
    grads = [g if g is not None else zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [reshape(dynamic_stitch(where, grads), shape(data)), None]


def _stitch_kernel(*args, N):
    indices, data = args[:N], args[N:]
    flat_idx = [np.asarray(i).reshape(-1) for i in indices]
    n = max((int(i.max()) + 1 for i in flat_idx if i.size), default=0)
    inner = None
    for i, d in zip(indices, data):
        inner = d.shape[np.ndim(i):]
        break
    out = np.zeros((n,) + tuple(inner), dtype=data[0].dtype)
    for i, d in zip(indices, data):
        i = np.asarray(i)
        out[i.reshape(-1)] = np.reshape(d, (i.size,) + tuple(inner))
    return out


def _stitch_infer(inputs, attrs):
    n = attrs["N"]
    idx, data = inputs[0].shape, inputs[n].shape
    rest = data[idx.rank:] if data.rank is not None and idx.rank is not None \
        else TensorShape(None)
    return [(TensorShape([None]).concatenate(rest), inputs[n].dtype)]


def _stitch_grad(op, g):
    n = op.attrs["N"]
    indices = op.inputs[:n]
    return [None] * n + [gather(g, i) for i in indices]


_DynamicPartition = register("DynamicPartition", _partition_kernel, _partition_infer,
                             _partition_grad)
_DynamicStitch = register("DynamicStitch", _stitch_kernel, _stitch_infer, _stitch_grad)


@export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """`data` split into `num_partitions` tensors: element i goes to the
    tensor `partitions[i]` (partitions index the leading dimensions)."""
    data = convert_to_tensor(data)
    parts = convert_to_tensor(partitions, dtype=D.int32)
    return apply(_DynamicPartition, [data, parts], {"num_partitions": int(num_partitions)},
                 name=name or "DynamicPartition", multi=True)


@export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None):
    """One tensor with `data[m][i]` at position `indices[m][i]` (later
    entries win where indices repeat)."""
    indices = [convert_to_tensor(i, dtype=D.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    return apply(_DynamicStitch, indices + data, {"N": len(indices)},
                 name=name or "DynamicStitch")


# --- unravel_index ---------------------------------------------------------------------

def _unravel_kernel(indices, dims):
    size = int(np.prod(dims))
    bad = np.asarray(indices)[(np.asarray(indices) < 0) | (np.asarray(indices) >= size)]
    if bad.size:
        raise U.op_error("UnravelIndex", f"index {bad.reshape(-1)[0]} is out of bound as with "
                         f"dims = {dims.tolist()}")
    return np.stack(np.unravel_index(indices, tuple(int(d) for d in dims))).astype(
        indices.dtype)


def _unravel_infer(inputs, attrs):
    idx, dims = inputs[0].shape, inputs[1].shape
    n = dims[0] if dims.rank == 1 else None
    return [(TensorShape([n]).concatenate(idx) if idx.rank is not None else
             TensorShape(None), inputs[0].dtype)]


_UnravelIndex = register("UnravelIndex", _unravel_kernel, _unravel_infer,
                         lambda op, g: [None, None], allowed=U.INDEX)


@export("unravel_index")
def unravel_index(indices, dims, name=None):
    """The coordinates, in an array of shape `dims`, of each flat index:
    shape [len(dims)] + indices.shape."""
    indices = convert_to_tensor(indices)
    dims = convert_to_tensor(dims, dtype=indices.dtype)
    return apply(_UnravelIndex, [indices, dims], name=name or "UnravelIndex")


# --- ensure_shape ----------------------------------------------------------------------

def _ensure_shape_kernel(input, shape):
    if not shape.is_compatible_with(TensorShape(np.shape(input))):
        raise U.op_error("EnsureShape", f"Shape of tensor input "
                         f"{_text(TensorShape(np.shape(input)))} is not compatible with "
                         f"expected shape {_text(shape)}.")
    return input


def _text(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def _ensure_shape_infer(inputs, attrs):
    have, want = inputs[0].shape, attrs["shape"]
    if not have.is_compatible_with(want):
        raise ValueError(f"Shape must be rank {want.rank} but is rank {have.rank}"
                         if have.rank is not None and want.rank is not None and
                         have.rank != want.rank else
                         f"Dimensions of tensor input {_text(have)} are not compatible with "
                         f"expected shape {_text(want)}")
    return [(have.merge_with(want), inputs[0].dtype)]


_EnsureShape = register("EnsureShape", _ensure_shape_kernel, _ensure_shape_infer,
                        lambda op, g: [g])


@export("ensure_shape")
def ensure_shape(x, shape, name=None):
    """`x`, checked to have a shape compatible with `shape` (at run time for
    the dimensions not known while building); in a graph the result's static
    shape is refined with `shape`.

    Raises:
      InvalidArgumentError: (eagerly or at run time) for an incompatible shape.
      ValueError: while building a graph, when the static shapes already clash.
    """
    x = convert_to_tensor(x)
    return apply(_EnsureShape, [x], {"shape": as_shape(shape)}, name=name or "EnsureShape")


# --- confusion_matrix -----------------------------------------------------------------

@export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=D.int32,
                     name=None):
    """counts[i, j]: how many elements have label i and prediction j (summing
    `weights` instead of ones when given); `num_classes` defaults to one more
    than the largest label or prediction."""
    labels = cast(convert_to_tensor(labels), D.int64)
    predictions = cast(convert_to_tensor(predictions), D.int64)
    if num_classes is None:
        num_classes = maximum(reduce_max(labels), reduce_max(predictions)) + 1
    n = cast(convert_to_tensor(num_classes), D.int64)
    values = cast(weights if weights is not None else labels * 0 + 1, dtype)
    indices = stack([labels, predictions], axis=1)
    return scatter_nd(indices, values, stack([n, n]))



# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_stitch(ctx, op, *args):
    n = op.attrs["N"]
    indices = [ctx.static(op, i, args[i]) for i in range(n)]
    data = args[n:]
    size = max((int(np.max(i)) + 1 for i in indices if np.size(i)), default=0)
    inner = tuple(XL.jnp.shape(data[0])[np.ndim(indices[0]):])
    out = XL.jnp.zeros((size,) + inner, op.outputs[0].dtype._np)
    for i, d in zip(indices, data):
        out = out.at[np.reshape(i, -1)].set(XL.jnp.reshape(d, (np.size(i),) + inner))
    return out


XL.set_lowerings({"DynamicStitch": _lower_stitch, "EnsureShape": lambda ctx, op, x: x,
                  "DynamicPartition": XL.host_rule, "UnravelIndex": XL.host_rule})

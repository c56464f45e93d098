"""`tensorflow.compiler.tf2xla.python.xla`, the one function Keras imports
from it: `dynamic_update_slice`, written with rillflow's ops."""
from rillflow.framework import dtypes
from rillflow.framework.convert import convert_to_tensor
from rillflow.ops.core.clip_ops import clip_by_value
from rillflow.ops.core.creation_ops import meshgrid, range as _range
from rillflow.ops.core.join_ops import stack
from rillflow.ops.core.math_ops import cast
from rillflow.ops.core.scatter_ops import tensor_scatter_nd_update
from rillflow.ops.core.shape_ops import shape


def dynamic_update_slice(operand, update, indices, name=None):
    """XLA's DynamicUpdateSlice: `operand` with `update` written at `indices`,
    each start clamped to [0, operand_dim - update_dim] as XLA does."""
    operand = convert_to_tensor(operand)
    update = convert_to_tensor(update, dtype=operand.dtype)
    if isinstance(indices, (list, tuple)):
        indices = stack([cast(i, dtypes.int32) for i in indices])
    start = clip_by_value(cast(indices, dtypes.int32), 0, shape(operand) - shape(update))
    up_shape = shape(update)
    grids = meshgrid(*[_range(up_shape[d]) for d in range(len(update.shape))], indexing="ij")
    coords = stack(grids, axis=-1) + start
    return tensor_scatter_nd_update(operand, coords, update, name=name)

"""Variable storage and its ops: the `ResourceHandle` a variable's handle
tensor holds, and the kernels of `ReadVariableOp`, `AssignVariableOp`,
`AssignAddVariableOp`, `AssignSubVariableOp`, `InitializeVariableOnce` and
`VarHandleOp`, with TensorFlow's checks (shapes, dtypes, uninitialized
variables). The `tf.Variable` class on top of them is in variables.py.
"""
from ...framework import dtypes as D
from ...framework import errors
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core.op_util import tf_type_name


class ResourceHandle:
    """The storage of one variable: its current value (None until initialized)."""

    # device_entry: compiled code's (host value, its device array) for this
    # storage (compiler/xla_compile.py, framework/placement.py), or None.
    __slots__ = ("value", "dtype", "shape", "name", "device_entry", "__weakref__")

    def __init__(self, dtype, shape, name, value=None):
        self.value = value
        self.dtype = dtype
        self.shape = shape
        self.name = name
        self.device_entry = None

    def __repr__(self):
        return "<ResourceHandle %s>" % self.name


class HandleTensor(EagerTensor):
    """An eager tensor of dtype `resource` whose value is a ResourceHandle."""

    __slots__ = ()

    @property
    def dtype(self):
        """Always `tf.resource`."""
        return D.resource

    @property
    def shape(self):
        """Handles are scalars."""
        return TensorShape._from_tuple(())

    def numpy(self):
        return self._v

    def __repr__(self):
        return "<tf.Tensor: shape=(), dtype=resource, value=%s>" % self._v.name

    __str__ = __repr__


ResourceHandle._eager_tensor_class = HandleTensor




def _uninitialized(handle):
    return errors.FailedPreconditionError(
        None, None, f"Could not find variable {handle.name}. This could mean that the variable "
        "has been deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
        f"container=localhost, status error message=Resource localhost/{handle.name} does not "
        "exist. [Op:ReadVariableOp]")


def _check_dtype(h, dtype, what, op):
    # As TensorFlow's kernels: the op's dtype attr must be the variable's.
    if dtype is not None and dtype is not h.dtype and h.dtype is not None:
        want, got = (dtype, h.dtype) if what == "read" else (h.dtype, dtype)
        raise errors.InvalidArgumentError(
            None, None, f"Trying to {what} variable with wrong dtype. Expected "
            f"{tf_type_name(want)} got {tf_type_name(got)} [Op:{op}]")


def _read_kernel(h, dtype=None):
    v = h.value
    if v is None:
        raise _uninitialized(h)
    _check_dtype(h, dtype, "read", "ReadVariableOp")
    return v


def _check_assign(h, value):
    shp = h.shape
    if shp is not None and shp.rank is not None:
        vs = value.shape
        if len(vs) != shp.rank or any(d is not None and d != e for d, e in zip(shp._dims, vs)):
            raise _update_shape_error(shp, vs, "AssignVariableOp")


def _update_shape_error(var_shape, value_shape, op_name):
    return errors.InvalidArgumentError(
        None, None, f"Cannot update variable with shape {dims_text(var_shape)} using a Tensor "
        f"with shape {dims_text(value_shape)}, shapes must be equal. [Op:{op_name}]")


def _assign_kernel(h, value, dtype=None, validate_shape=True):
    _check_dtype(h, dtype, "assign", "AssignVariableOp")
    if validate_shape:
        _check_assign(h, value)
    h.value = value
    return []


def _updated_value(h, value, op_name):
    """The variable's current value, checked for an in-place update by
    `value`: TensorFlow's kernels require equal shapes (no broadcasting)."""
    old = h.value
    if old is None:
        raise _uninitialized(h)
    if old.shape != value.shape:
        raise _update_shape_error(old.shape, value.shape, op_name)
    return old


def _assign_add_kernel(h, value, dtype=None):
    h.value = _updated_value(h, value, "AssignAddVariableOp") + value
    return []


def _assign_sub_kernel(h, value, dtype=None):
    h.value = _updated_value(h, value, "AssignSubVariableOp") - value
    return []


def _init_once_kernel(h, value):
    if h.value is None:
        h.value = value
    return []


def _no_outputs(inputs, attrs):
    return []


def _read_infer(inputs, attrs):
    return [(attrs.get("_shape", TensorShape(None)), attrs["dtype"])]


_ReadVariableOp = register("ReadVariableOp", _read_kernel, _read_infer,
                           lambda op, g: [g], stateful=True)
_AssignVariableOp = register("AssignVariableOp", _assign_kernel, _no_outputs, stateful=True)
_AssignAddVariableOp = register("AssignAddVariableOp", _assign_add_kernel, _no_outputs,
                                stateful=True)
_AssignSubVariableOp = register("AssignSubVariableOp", _assign_sub_kernel, _no_outputs,
                                stateful=True)
_InitializeVariableOnce = register("InitializeVariableOnce", _init_once_kernel, _no_outputs,
                                   stateful=True)


def _var_handle_kernel(resource, dtype, shape, shared_name=""):
    return resource


_VarHandleOp = register("VarHandleOp", _var_handle_kernel,
                        lambda i, a: [(TensorShape([]), D.resource)], stateful=True)

"""Public names of the framework layer (dtypes, shapes, errors, nest, ...)."""
import platform

from . import context, device, dtypes, errors, nest  # noqa: F401  (device: tf.device)
from . import indexed_slices  # noqa: F401  (tf.IndexedSlices, tf.IndexedSlicesSpec)
from . import sparse_tensor  # noqa: F401  (tf.SparseTensor, tf.SparseTensorSpec)
from . import load_library  # noqa: F401  (tf.load_op_library, tf.load_library)
from . import core_types  # noqa: F401  (tf.types.experimental)
from . import gradient_registry  # noqa: F401  (tf.RegisterGradient, tf.no_gradient)
from . import device_spec, type_spec  # noqa: F401  (tf.DeviceSpec, tf.TypeSpec)
from . import config  # noqa: F401  (tf.config's settings)
from . import dispatch  # noqa: F401  (tf.experimental.dispatch_for_*)
from . import extension_type  # noqa: F401  (tf.experimental.ExtensionType)
from . import compat_text  # noqa: F401  (tf.compat.as_text, as_bytes, ...)
from .api_export import export_value
from .convert import convert_to_tensor, register_tensor_conversion_function
from .graph import Graph, Operation
from .tensor import Tensor, is_tensor
from .tensor_shape import Dimension, TensorShape, dimension_value
from .tensor_spec import TensorSpec, type_spec_from_value
from .tensor import EagerTensor, SymbolicTensor

_DTYPE_NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                "uint16", "uint32", "uint64", "complex64", "complex128", "string",
                "resource", "variant", "half", "double"]
for _n in _DTYPE_NAMES:
    export_value(getattr(dtypes, _n), _n, "dtypes." + _n)
export_value(dtypes.bool_, "bool", "dtypes.bool")
if dtypes.bfloat16 is not None:
    export_value(dtypes.bfloat16, "bfloat16", "dtypes.bfloat16")
export_value(dtypes.DType, "DType", "dtypes.DType")
export_value(dtypes.as_dtype, "as_dtype", "dtypes.as_dtype")
export_value(dtypes.QUANTIZED_DTYPES, "dtypes.QUANTIZED_DTYPES")
for _d in dtypes.QUANTIZED:
    export_value(_d, _d.name, "dtypes." + _d.name)
for _n in ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]:
    if dtypes.narrow(_n) is not None:
        export_value(dtypes.narrow(_n), "dtypes.experimental." + _n)

for _n in ["OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
           "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
           "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
           "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
           "InternalError", "UnavailableError", "DataLossError",
           "OperatorNotAllowedInGraphError", "OK", "CANCELLED", "UNKNOWN",
           "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
           "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED",
           "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
           "UNAVAILABLE", "DATA_LOSS", "exception_type_from_error_code",
           "error_code_from_exception_type"]:
    export_value(getattr(errors, _n), "errors." + _n)

for _n in ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure",
           "is_nested", "flatten_up_to", "map_structure_up_to",
           "flatten_with_joined_string_paths"]:
    export_value(getattr(nest, _n), "nest." + _n)

export_value(Tensor, "Tensor")
export_value(TensorShape, "TensorShape")
export_value(TensorSpec, "TensorSpec")
export_value(Graph, "Graph", "compat.v1.Graph")
export_value(Operation, "Operation")
export_value(is_tensor, "is_tensor")
export_value(convert_to_tensor, "convert_to_tensor")
export_value(register_tensor_conversion_function, "register_tensor_conversion_function")
export_value(dimension_value, "compat.dimension_value", "compat.v1.dimension_value")
export_value(Dimension, "compat.v1.Dimension")
export_value(type_spec_from_value, "type_spec_from_value")
export_value(None, "newaxis")
export_value(context.executing_eagerly, "executing_eagerly", "compat.v1.executing_eagerly")
export_value(context.init_scope, "init_scope")


def _get_static_value(tensor, partial=False):
    """The NumPy value of `tensor` if it is known without running a graph, else None."""
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if isinstance(tensor, SymbolicTensor):
        return tensor._const
    if hasattr(tensor, "_dense_var_to_tensor"):
        return None
    import numpy as np
    return np.asarray(tensor)


export_value(_get_static_value, "get_static_value")


def _run_functions_eagerly(run_eagerly):
    """Makes every `tf.function` run its Python function eagerly (for debugging)."""
    context.config.run_functions_eagerly = bool(run_eagerly)


def _functions_run_eagerly():
    """Whether `run_functions_eagerly(True)` is in effect."""
    return context.config.run_functions_eagerly


export_value(_run_functions_eagerly, "config.run_functions_eagerly",
             "config.experimental_run_functions_eagerly")
export_value(_functions_run_eagerly, "config.functions_run_eagerly",
             "config.experimental_functions_run_eagerly")


def _inside_function():
    """Whether a `tf.function` is being traced (the graph being built is a
    function's)."""
    g = context.get_default_graph()
    return g is not None and g.building_function


def _is_symbolic_tensor(tensor):
    """Whether `tensor` is a graph tensor (not an eager value or a variable)."""
    return isinstance(tensor, SymbolicTensor)


export_value(_inside_function, "inside_function")
export_value(_is_symbolic_tensor, "is_symbolic_tensor")

# tf.version: the TensorFlow API this implements; the graph versions rillflow's
# GraphDefs carry (summary/graph_export.py's producer).
export_value("2.21.0", "version.VERSION")
export_value("rillflow-0.1.0", "version.GIT_VERSION")
export_value(platform.python_compiler(), "version.COMPILER_VERSION")
export_value(2100, "version.GRAPH_DEF_VERSION")
export_value(0, "version.GRAPH_DEF_VERSION_MIN_CONSUMER")
export_value(0, "version.GRAPH_DEF_VERSION_MIN_PRODUCER")

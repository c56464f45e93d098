"""Stand-ins graph_io writes or rebuilds for attr values that are not plain
data: a TensorArray returned by a function, a variable passed as an
argument, and Python callables (which are never saved)."""
from ..framework import errors
from ..ops.control_flow.tensor_array import TensorArray
from . import values as V
from .values import FormatError
from ..data.functions import DatasetFunction

__all__ = ["composite_kind", "composite_template", "VariableArgument", "lost_callable",
           "lost_gradient", "is_dataset_function", "dataset_function"]


def is_dataset_function(v):
    """Whether `v` is the traced function of a tf.data transformation."""
    return isinstance(v, DatasetFunction)


def dataset_function(cf, output_spec):
    """A tf.data transformation's function over a restored ConcreteFunction
    (what `DatasetFunction.__init__` makes by tracing, without the tracing)."""
    f = DatasetFunction.__new__(DatasetFunction)
    f.concrete = cf
    f.graph = cf.graph
    f.function_name = cf.name
    f.output_spec = output_spec
    f.captures = list(cf.graph.external_captures)
    f._compiled = None
    return f


def composite_kind(template):
    """The saved form of a composite output's template (TensorArray only)."""
    if isinstance(template, TensorArray):
        return {"TensorArray": [template._dtype.name, template._dynamic_size,
                                bool(template._infer_shape),
                                V.encode_shape(template._element_shape)]}
    raise TypeError(f"cannot save a function returning {type(template).__name__}")


def composite_template(e):
    """The TensorArray template a `composite_kind` entry describes (its
    components are set when a call's outputs are packed)."""
    if not isinstance(e, dict) or list(e) != ["TensorArray"] or \
            not isinstance(e["TensorArray"], list) or len(e["TensorArray"]) != 4:
        raise FormatError("malformed composite template")
    dtype, dynamic, infer, shape = e["TensorArray"]
    ta = TensorArray.__new__(TensorArray)
    ta._dtype = V.decode_dtype(dtype)
    ta._dynamic_size = bool(dynamic)
    ta._infer_shape = bool(infer)
    ta._element_shape = V.decode_shape(shape)
    ta._clear_after_read = None
    ta._flow = None
    return ta


class VariableArgument:
    """Stands for a variable argument in a restored input signature."""

    def __init__(self, spec):
        self._arg_spec = spec

    def __repr__(self):
        return repr(self._arg_spec)


def lost_callable(op_name):
    """Stands for the Python function of an op (tf.py_function), which was
    not saved: running the op raises, as TensorFlow's restored op does."""
    def missing(*args, **kwargs):
        raise errors.InvalidArgumentError(
            None, None, f"Could not find the Python function of op '{op_name}': Python "
            "functions (tf.py_function, tf.numpy_function) are not saved with the model.")
    return missing


def lost_gradient(op_name):
    """Stands for a tf.custom_gradient function, which is Python code and
    was not saved: differentiating the op says so."""
    def grad_fn(*args, **kwargs):
        raise LookupError(f"No gradient defined for operation '{op_name}': its "
                          "tf.custom_gradient was not saved with the model.")
    return grad_fn

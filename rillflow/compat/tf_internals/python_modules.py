"""Stand-ins for the `tensorflow.python.*` (and `tensorflow.compiler.*`)
modules Keras 3 imports by name. `modules()` returns {module name: module};
the shim registers them in sys.modules only while rillflow stands in for
`tensorflow`. Each holds only the names Keras imports; what rillflow cannot
do raises NotImplementedError when called, not when imported, since Keras
imports some of them at module level for rarely used paths.
"""
import types

from rillflow.data.dataset_ops import Dataset
from rillflow.distribute.strategy import DistributedDataset
from rillflow.framework import context as _context
from rillflow.framework.sparse_tensor import SparseTensor
from rillflow.framework.exports import _get_static_value
from rillflow.framework.tensor import Tensor, is_tensor
from rillflow.io.tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator
from rillflow.ops.core.unary_ops import is_nan
from rillflow.ops.sparse import csr_matrix_ops
from rillflow.ops.ragged.ragged_tensor import RaggedTensor
from . import tracking, xla
from .internal_namespace import TensorType

# Keras (trainers/data_adapters, utils/dataset_utils) recognizes TensorFlow's
# types by class name and `"tensorflow.python." in cls.__module__`, not by
# isinstance. While rillflow stands in for TensorFlow, these classes carry the
# module and name TensorFlow gives them (`tf.data.Dataset.__name__` is
# "DatasetV2" there too), and those modules hold them under that name, so
# the alias resolves like any class path.
CLASS_ALIASES = (
    (Tensor, "tensorflow.python.framework.tensor", "Tensor"),
    # tf.__internal__.types.Tensor, the base of Keras' Variable (on TensorFlow
    # its MRO has types.core.Tensor, which Keras' checks take for a tensor).
    (TensorType, "tensorflow.python.types.core", "Tensor"),
    (Dataset, "tensorflow.python.data.ops.dataset_ops", "DatasetV2"),
    (RaggedTensor, "tensorflow.python.ops.ragged.ragged_tensor", "RaggedTensor"),
    (SparseTensor, "tensorflow.python.framework.sparse_tensor", "SparseTensor"),
    (DistributedDataset, "tensorflow.python.distribute.input_lib", "DistributedDataset"),
)


class _EagerContext:
    """What `context.context()` returns: rillflow keeps no kernel cache or
    async executor, so clearing and waiting have nothing to do."""

    def clear_kernel_cache(self):
        """No kernel cache to clear (rillflow runs NumPy kernels directly)."""

    def executing_eagerly(self):
        """Whether ops run immediately."""
        return _context.executing_eagerly()


_EAGER_CONTEXT = _EagerContext()


def context():
    """The eager context object (`tensorflow.python.eager.context.context`)."""
    return _EAGER_CONTEXT


def async_wait():
    """Waits for pending async ops: rillflow runs every op synchronously."""


def type_spec_lookup(name):
    """`type_spec_registry.lookup`: rillflow has no TypeSpec name registry."""
    raise ValueError(f"No TypeSpec has been registered with name {name!r} "
                     "(rillflow keeps no TypeSpec registry)")


def type_spec_get_name(cls):
    """`type_spec_registry.get_name`: rillflow has no TypeSpec name registry."""
    raise ValueError(f"TypeSpec {cls.__name__} has not been registered "
                     "(rillflow keeps no TypeSpec registry)")


# Whether enable_op_determinism was called; rillflow's kernels are
# deterministic either way, so only callers that ask read it.
_determinism = [False]


def enable_op_determinism():
    """Records the request; rillflow's kernels are deterministic already."""
    _determinism[0] = True


def disable_op_determinism():
    """Clears the request (rillflow's kernels stay deterministic)."""
    _determinism[0] = False


def is_op_determinism_enabled():
    """Whether enable_op_determinism was called (and not disabled since)."""
    return _determinism[0]


def _not_implemented(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"{name} (CSR sparse matrices) is not implemented in rillflow")
    fn.__name__ = name.rpartition(".")[2]
    fn.__doc__ = f"Not implemented in rillflow: {name}."
    return fn


def _module(name, package=False, **members):
    mod = types.ModuleType(name, f"rillflow stand-in for TensorFlow's `{name}`.")
    if package:
        mod.__path__ = []   # submodules come from sys.modules only
    mod.__dict__.update(members)
    return mod


def _unsupported_class(name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"{name} is not implemented in rillflow (no DTensor)")
    return type(name.rpartition(".")[2], (), {
        "__init__": __init__, "__doc__": f"Not implemented in rillflow: {name}."})


_CSR = "tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops"


class _ProtoModule(types.ModuleType):
    """TensorFlow's generated protobuf module `name`, served by the same
    schema in the `tensorboard` package (`tensorboard.compat.proto`), loaded
    on first attribute access (importing protobuf costs time, and Keras'
    tests import these modules only to read event files)."""

    def __init__(self, name, source):
        super().__init__(name, f"rillflow stand-in for TensorFlow's `{name}` "
                               f"(the `{source}` schema; needs the tensorboard extra).")
        self._source = source

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        import importlib
        try:
            real = importlib.import_module(self._source)
        except ImportError as exc:
            raise ImportError(f"{self.__name__} needs the `tensorboard` package "
                              f"(pip install \"rillflow[tensorboard]\"): {exc}") from None
        return getattr(real, attr)


def modules():
    """{name: module} of the internal modules Keras imports, parents included
    (each parent also has its children as attributes, as after an import)."""
    mods = {}
    leaves = {
        "tensorflow.python.trackable.data_structures": dict(
            ListWrapper=tracking.ListWrapper, _DictWrapper=tracking._DictWrapper),
        "tensorflow.python.trackable.base": dict(Trackable=tracking.Trackable),
        "tensorflow.python.trackable.autotrackable": dict(AutoTrackable=tracking.AutoTrackable),
        "tensorflow.python.eager.context": dict(
            context=context, async_wait=async_wait,
            executing_eagerly=_context.executing_eagerly),
        "tensorflow.python.framework.type_spec_registry": dict(
            lookup=type_spec_lookup, get_name=type_spec_get_name),
        "tensorflow.python.framework.config": dict(
            enable_op_determinism=enable_op_determinism,
            disable_op_determinism=disable_op_determinism,
            is_op_determinism_enabled=is_op_determinism_enabled),
        "tensorflow.python.ops.math_ops": dict(is_nan=is_nan),
        # Keras' model.export patches is_tf_type for TensorFlow before 2.21.
        "tensorflow.python.framework.tensor_util": dict(
            is_tf_type=is_tensor, is_tensor=is_tensor, constant_value=_get_static_value),
        _CSR: dict(csr_matrix_ops.PYTHON_FUNCTIONS),
        # Keras' TF backend imports it at module level; used only by
        # keras.distribution with DTensor layouts.
        "tensorflow.experimental.dtensor": {n: _unsupported_class(f"tf.experimental.dtensor.{n}")
                                            for n in ("Mesh", "Layout")},
        "tensorflow.compiler.tf2xla.python.xla": dict(
            dynamic_update_slice=xla.dynamic_update_slice),
    }
    leaves["tensorflow.python.lib.io.tf_record"] = dict(
        tf_record_iterator=tf_record_iterator, TFRecordOptions=TFRecordOptions,
        TFRecordWriter=TFRecordWriter)
    for cls, module, name in CLASS_ALIASES:
        leaves.setdefault(module, {})[name] = cls
    protos = {"tensorflow.core.util.event_pb2": "tensorboard.compat.proto.event_pb2",
              "tensorflow.core.framework.summary_pb2": "tensorboard.compat.proto.summary_pb2"}
    for name, members in leaves.items():
        mods[name] = _module(name, **members)
    for name, source in protos.items():
        mods[name] = _ProtoModule(name, source)
    for name in list(mods):
        parts = name.split(".")
        for i in range(len(parts) - 1, 1, -1):
            if ".".join(parts[:i]) == "tensorflow.experimental":
                break   # rillflow's own tf.experimental is the parent
            parent = ".".join(parts[:i])
            if parent not in mods:
                mods[parent] = _module(parent, package=True)
            setattr(mods[parent], parts[i], mods[".".join(parts[:i + 1])])
    return mods


def alias_classes():
    """Gives each class of CLASS_ALIASES TensorFlow's module and name
    (call only once rillflow stands in for `tensorflow`: the names point
    into the stand-in modules)."""
    for cls, module, name in CLASS_ALIASES:
        cls.__module__ = module
        cls.__name__ = cls.__qualname__ = name

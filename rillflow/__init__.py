"""rillflow: TensorFlow 2's programming model (eager tensors, tf.function,
AutoGraph) as a small pure-Python library on NumPy.

    import rillflow as tf
"""
import warnings as _warnings

# NumPy reports overflow and division by zero as RuntimeWarnings from the
# frame that called the kernel; TensorFlow computes inf/nan silently.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"rillflow(\..*)?$")

from .framework import allocator as _allocator  # noqa: E402
from .framework import exports as _framework_exports  # noqa: E402,F401
from . import ops as _ops  # noqa: E402,F401
from . import eager as _eager  # noqa: E402,F401
from . import function as _function  # noqa: E402,F401
from . import autograph as _autograph  # noqa: E402,F401
from .compat import v1 as _compat_v1  # noqa: E402,F401
from . import testing as _testing  # noqa: E402,F401
from . import testing_util as _testing_util  # noqa: E402,F401
from . import profiler as _profiler  # noqa: E402,F401
from . import summary  # noqa: E402,F401
from . import feature_column as _feature_column  # noqa: E402,F401
from . import data as _data  # noqa: E402,F401
from . import distribute as _distribute  # noqa: E402,F401
from .saved_model import saved_model as _saved_model  # noqa: E402,F401
from .saved_model import checkpoint as _checkpoint, checkpoint_reader as _checkpoint_reader  # noqa: E402,F401,E501
from .saved_model import trackable_view as _trackable_view  # noqa: E402,F401
from .saved_model import checkpoint_wait as _checkpoint_wait  # noqa: E402,F401
from .saved_model import graph_def_io as _graph_def_io  # noqa: E402,F401
from .saved_model import wrap_function as _wrap_function  # noqa: E402,F401
from .saved_model import checkpoint_view as _checkpoint_view  # noqa: E402,F401
from .saved_model import asset as _asset, fingerprint as _fingerprint  # noqa: E402,F401
from . import _api  # noqa: E402

__version__ = "0.1.0"

from .compat.v1 import v2_names as _v1_names  # noqa: E402
from .framework.api_export import EXPORTS as _EXPORTS  # noqa: E402

# Large arrays freed by one step are reused by the next, not refaulted
# (framework/allocator.py; RILLFLOW_MALLOC=system turns this off).
_allocator.tune()
_v1_names.add_aliases(_EXPORTS)
_api.build(__import__(__name__))
del _api, _v1_names, _EXPORTS


def __getattr__(name):
    """`tf.keras`: Keras 3 on rillflow, imported on first access (the
    optional `keras` extra, so loaded lazily; compat/keras_loader.py)."""
    if name == "keras":
        from .compat import keras_loader
        keras = keras_loader.load()
        globals()["keras"] = keras
        return keras
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

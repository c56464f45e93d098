"""`import tensorflow` on rillflow: `install()` registers rillflow under
TensorFlow's module names, so code (and test suites) written against
TensorFlow run unchanged.

    from rillflow.compat import tensorflow_shim
    tensorflow_shim.install()
    import tensorflow as tf                 # rillflow
    import tensorflow.compat.v1 as tf1      # rillflow.compat.v1
    from tensorflow.python import autograph as ag

Mapped: `tensorflow` and each public namespace (`tensorflow.math`,
`tensorflow.compat.v1`, ...), and `tensorflow.python.autograph`, TensorFlow's
internal AutoGraph module, with the names its tests use (`to_graph`,
`set_element_type`, `stack`, the `operators` package), and the TensorFlow
internals Keras 3 imports (`tensorflow.python.trackable.data_structures`,
`tensorflow.python.eager.context`, ..., and `tf.__internal__`: see
compat/tf_internals/). Any other
`tensorflow.*` import raises ModuleNotFoundError instead of loading a second
copy of a rillflow module under a TensorFlow name.
"""
import importlib.abc
import sys
import types
from rillflow.framework.api_export import EXPORTS
from rillflow.compat.tf_internals import internal_namespace, python_modules

_AUTOGRAPH_NAMES = ("to_graph", "to_code", "set_element_type", "stack",
                    "set_verbosity", "get_verbosity", "trace")
_AUTOGRAPH_EXPERIMENTAL_NAMES = ("do_not_convert", "set_loop_options", "Feature")


class _Blocker(importlib.abc.MetaPathFinder):
    """Refuses `tensorflow.X` where `tensorflow...` is a rillflow module
    (its `__path__` would otherwise load rillflow's files a second time)."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("tensorflow."):
            return None
        parent = sys.modules.get(fullname.rpartition(".")[0])
        if parent is not None and getattr(parent, "__name__", "").split(".")[0] == "rillflow":
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def _module(name, doc):
    mod = types.ModuleType(name, doc)
    mod.__path__ = []  # a package: submodules come from sys.modules only
    return mod


def install():
    """Makes `import tensorflow` give rillflow; returns the rillflow module.
    Idempotent."""
    from rillflow import autograph as _ag
    # The root package is always initialised before this submodule runs;
    # taking it from sys.modules keeps `rillflow.keras` (which calls this)
    # from making an import cycle with the package's __init__.
    rillflow = sys.modules["rillflow"]

    current = sys.modules.get("tensorflow")
    if current is not None and current is not rillflow:
        raise RuntimeError(
            "the real TensorFlow is already imported in this process, so rillflow cannot "
            "stand in for `tensorflow`: install the shim before anything imports tensorflow "
            "(or keras with KERAS_BACKEND=tensorflow)")
    _check_keras_backend()
    sys.modules["tensorflow"] = rillflow
    namespaces = {n.rpartition(".")[0] for n in EXPORTS if "." in n}
    for ns in sorted(namespaces):
        obj = rillflow
        for part in ns.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, types.ModuleType):
            sys.modules["tensorflow." + ns] = obj

    python = sys.modules.get("tensorflow.python") or _module(
        "tensorflow.python", "Stand-in for TensorFlow's internal `tensorflow.python` package.")
    autograph = sys.modules.get("tensorflow.python.autograph") or _module(
        "tensorflow.python.autograph",
        "Stand-in for `tensorflow.python.autograph`: rillflow's AutoGraph API.")
    for name in _AUTOGRAPH_NAMES:
        if hasattr(_ag, name):
            setattr(autograph, name, getattr(_ag, name))
    for name in _AUTOGRAPH_EXPERIMENTAL_NAMES:
        setattr(autograph, name, getattr(_ag.experimental, name))
    autograph.experimental = _ag.experimental
    autograph.operators = _ag.operators
    sys.modules["tensorflow.python.autograph.operators"] = _ag.operators
    python.autograph = autograph
    sys.modules["tensorflow.python"] = python
    sys.modules["tensorflow.python.autograph"] = autograph

    _install_internals(rillflow)
    if not any(isinstance(f, _Blocker) for f in sys.meta_path):
        sys.meta_path.insert(0, _Blocker())
    return rillflow


def _check_keras_backend():
    """Refuses when Keras is already imported on a backend other than
    rillflow-as-TensorFlow: its backend is chosen once, at import."""
    keras = sys.modules.get("keras")
    if keras is None or sys.modules.get("tensorflow") is not None:
        return
    try:
        backend = sys.modules["keras"].backend.backend()
    except Exception:  # a half-imported keras: report it as unknown
        backend = "unknown"
    raise RuntimeError(
        f"keras is already imported with the {backend!r} backend; rillflow can only run "
        "Keras when it stands in for tensorflow before keras is imported (set "
        "KERAS_BACKEND=tensorflow and install the shim, or use `rillflow.keras`)")


def _install_internals(rillflow):
    """Registers the TensorFlow internals Keras imports (tf_internals/) and
    `tf.__internal__`; modules already present (tensorflow.python) are kept
    and get the new children as attributes."""
    if not hasattr(rillflow, "__internal__"):
        rillflow.__internal__ = internal_namespace.build()
    mods = python_modules.modules()
    for name in sorted(mods):
        sys.modules.setdefault(name, mods[name])
    for name in sorted(mods):
        parent, _, child = name.rpartition(".")
        # `tensorflow.python` stays off the tensorflow module, as in TensorFlow;
        # tf.experimental gets `dtensor` (`from tensorflow.experimental import
        # dtensor` looks the attribute up, or rillflow.experimental.dtensor).
        if parent in sys.modules and parent != "tensorflow":
            setattr(sys.modules[parent], child, sys.modules[name])
    python_modules.alias_classes()

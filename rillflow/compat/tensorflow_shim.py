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
`set_element_type`, `stack`, the `operators` package). Any other
`tensorflow.*` import raises ModuleNotFoundError instead of loading a second
copy of a rillflow module under a TensorFlow name.
"""
import importlib.abc
import sys
import types
from rillflow.framework.api_export import EXPORTS

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
    import rillflow
    from rillflow import autograph as _ag

    current = sys.modules.get("tensorflow")
    if current is not None and current is not rillflow:
        raise RuntimeError("another `tensorflow` module is already imported")
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

    if not any(isinstance(f, _Blocker) for f in sys.meta_path):
        sys.meta_path.insert(0, _Blocker())
    return rillflow

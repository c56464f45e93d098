"""Assembles the public namespaces (`tf.math`, `tf.nn`, ...) from the
`export` table, so that each name is declared once, where it is defined."""
import importlib
import sys
import types

from .framework import dispatch
from .framework.api_export import EXPORTS
from .ops import raw_ops


def _namespace(package, dotted):
    """The module object for `rillflow.<dotted>`, created when it is not a real
    subpackage."""
    full = package.__name__ + "." + dotted
    mod = sys.modules.get(full)
    if mod is None:
        try:
            mod = importlib.import_module(full)
        except ImportError:
            mod = types.ModuleType(full, f"The `tf.{dotted}` namespace.")
            sys.modules[full] = mod
    parent_name, _, leaf = dotted.rpartition(".")
    parent = _namespace(package, parent_name) if parent_name else package
    if not isinstance(getattr(parent, leaf, None), types.ModuleType):
        setattr(parent, leaf, mod)
    return mod


def build(package):
    """Sets every exported name on `package` and its namespaces."""
    # Elementwise dispatch handlers registered while the op families were
    # being imported also cover the ops of families imported after them.
    dispatch.apply_pending()
    # tf.raw_ops: every op registered by now, in TensorFlow's calling convention.
    raw_ops.install()
    for name, obj in EXPORTS.items():
        ns, _, leaf = name.rpartition(".")
        target = _namespace(package, ns) if ns else package
        setattr(target, leaf, obj)

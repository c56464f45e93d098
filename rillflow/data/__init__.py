"""`tf.data`: input pipelines (see DESIGN.md, `data/`).

Importing this package registers the dataset ops and the `tf.data.*`
exports. When rillflow itself is already imported (the package is then
being imported late, e.g. by a test), the public namespaces are rebuilt so
that `tf.data.Dataset` and friends appear.
"""
import sys as _sys

from . import dataset_ops  # noqa: F401
from . import sources, combinators, functional, batching, ordering  # noqa: F401
from . import grouping, readers, iterator_ops, options, exports  # noqa: F401
from . import tfrecord_dataset  # noqa: F401

__all__ = ["dataset_ops", "sources", "combinators", "functional", "batching", "ordering",
           "grouping", "readers", "iterator_ops", "options", "exports", "tfrecord_dataset"]

_root = _sys.modules.get(__name__.rpartition(".")[0])
if _root is not None and hasattr(_root, "__version__"):
    from .._api import build as _build
    _build(_root)
    del _build
del _root, _sys

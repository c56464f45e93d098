"""`tf.data`: input pipelines (see DESIGN.md, `data/`).

Importing this package registers the dataset ops and the `tf.data.*`
exports; `rillflow/__init__.py` imports it before it builds the public
namespaces, so `tf.data.Dataset` and friends appear there.

The modules, lowest first (each imports only those before it):
`registry` (the table through which `Dataset` and element structures reach
the code defined above them), `runtime` (runtime datasets), `options`,
`structure` (element specs), `functions` (traced user functions),
`dataset_ops` (the `Dataset` class and dataset-op helpers), `iterator_ops`,
then the sources and transformations, which register the `Dataset` methods
they implement: `sources`, `ordering`, `functional`, `combinators`,
`batching`, `grouping`, `readers`, `tfrecord_dataset`, `fixed_length`
(FixedLengthRecordDataset), `experimental` (tf.data.experimental's transformations
and sources: Counter, RandomDataset, ...), `saving` (save, load, snapshot in
TensorFlow's snapshot format), `lookup_tables` (lookup tables from datasets),
`service` (the in-process tf.data service), `experimental_extras`
(rejection_resample, make_batched_features_dataset, ...); last `exports`.
"""
from . import dataset_ops  # noqa: F401
# Importing these registers the Dataset methods they implement (see registry.py).
from . import sources, combinators, functional, batching, ordering  # noqa: F401
from . import grouping, readers, iterator_ops, options, exports  # noqa: F401
from . import tfrecord_dataset, fixed_length, experimental, saving, lookup_tables  # noqa: F401
from . import service, experimental_extras  # noqa: F401

__all__ = ["dataset_ops", "sources", "combinators", "functional", "batching", "ordering",
           "grouping", "readers", "iterator_ops", "options", "exports", "tfrecord_dataset", "fixed_length", "experimental", "saving", "lookup_tables", "service",
           "experimental_extras"]

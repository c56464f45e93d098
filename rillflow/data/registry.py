"""The table through which the bottom of `tf.data` reaches the code built on it.

`Dataset` (dataset_ops.py) has a method for every source and transformation
(`Dataset.range`, `.map`, `.batch`, `.shuffle`, ...), but those are implemented
in modules that import dataset_ops for the base class and its op helpers
(sources.py, functional.py, batching.py, ...). Likewise element structures
(structure.py) rebuild `Dataset` values from variant tensors, yet `Dataset`
is described by their `DatasetSpec`. Rather than import upward, the lower
module looks the name up here when it is called, and the module that defines
it fills the entry when it is imported; `rillflow/data/__init__.py` imports
them all, so the table is complete before any dataset exists.

The names are the method they implement (`"Dataset.map"`), or, for what
structure.py needs, `"Dataset"` and `"make_dataset"`.
"""

_IMPLEMENTATIONS = {}


def implements(name):
    """Decorator recording the decorated function or class as the one that
    implements `name`; it returns it unchanged."""
    def record(obj):
        if name in _IMPLEMENTATIONS:
            # Two modules claiming one method is a wiring mistake, not an override.
            raise ValueError(f"tf.data: {name!r} is already implemented by "
                             f"{_IMPLEMENTATIONS[name]!r}.")
        _IMPLEMENTATIONS[name] = obj
        return obj
    return record


def lookup(name):
    """What implements `name`.

    Raises:
      NotImplementedError: if no imported module implements it (only when
        part of `rillflow.data` was imported by hand, bypassing the package).
    """
    try:
        return _IMPLEMENTATIONS[name]
    except KeyError:
        raise NotImplementedError(
            f"tf.data: nothing implements {name!r}; import `rillflow.data` so that its "
            f"modules register themselves.") from None

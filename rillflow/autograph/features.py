"""AutoGraph's optional features (`experimental_autograph_options`).

`tf.function` turns on the features its options name while it traces
(`with_features`); the converted calls the traced code makes ask whether one
is on (`uses`). Both sides import this module: api.py for the first, the
`ag__` namespace's `converted_call` for the second.
"""
import functools
import threading

__all__ = ["Feature", "uses", "with_features"]

# The optional features of the function being traced, seen by the converted
# calls it makes.
_features = threading.local()


class Feature:
    """AutoGraph optional features. BUILTIN_FUNCTIONS (or ALL) makes `print` of
    graph tensors print their values when the function runs; the others are
    accepted for compatibility."""
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def uses(feature):
    """Whether `feature` is on for the function being traced."""
    active = getattr(_features, "active", ())
    return feature in active or Feature.ALL in active


def with_features(fn, options):
    """`fn`, running with the optional AutoGraph features `options` active."""
    if not options:
        return fn
    active = frozenset(options if isinstance(options, (list, tuple, set, frozenset))
                       else [options])

    @functools.wraps(fn)
    def run(*args, **kwargs):
        previous = getattr(_features, "active", ())
        _features.active = active
        try:
            return fn(*args, **kwargs)
        finally:
            _features.active = previous
    return run

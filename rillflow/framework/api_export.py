"""`export`: declares the public names (`tf.add`, `tf.math.add`, ...) of a
function or class where it is defined; `rillflow/__init__.py` assembles the
namespaces from this table, so no module has to list another's names."""

EXPORTS = {}


def export(*names):
    """Decorator: publishes the object under each dotted name given.

    `@export("math.add", "add")` makes it `tf.math.add` and `tf.add`.
    """
    def decorator(obj):
        for n in names:
            EXPORTS[n] = obj
        return obj
    return decorator


def export_value(value, *names):
    """Publishes a non-function value (a constant, a dtype) under the names."""
    for n in names:
        EXPORTS[n] = value
    return value

"""tf.function: tracing Python functions into graphs, compiled and cached."""
from . import polymorphic_function  # noqa: F401

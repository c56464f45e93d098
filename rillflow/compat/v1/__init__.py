"""`tf.compat.v1`: graph-mode sessions and placeholders."""
from . import session  # noqa: F401

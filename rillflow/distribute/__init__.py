"""`tf.distribute`: strategies with one replica (see strategy.py)."""
from . import strategy  # noqa: F401

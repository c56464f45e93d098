"""`tf.distribute`: strategies with one replica (see strategy.py); `tf.train.ClusterSpec`
and `tf.train.Coordinator` (cluster.py)."""
from . import strategy, cluster  # noqa: F401

"""`tf.distribute`: the strategy classes and contexts (strategy.py),
per-replica values (values.py), several replicas as one sharded JAX program
(spmd.py, mirrored.py), several workers (multi_worker.py);
`tf.train.ClusterSpec` and `tf.train.Coordinator` (cluster.py)."""
from . import strategy, cluster, values, spmd, mirrored, cluster_resolver  # noqa: F401
from . import multi_worker, cross_device_ops, extras  # noqa: F401

"""tf.function: tracing Python functions into graphs, compiled and cached."""
from . import polymorphic_function  # noqa: F401
# Installs the differentiation of calls into concrete_function.py, which
# cannot import it (function_gradients.py builds on it).
from . import function_gradients  # noqa: F401
from . import batch_function  # noqa: F401  (tf.nondifferentiable_batch_function)
from . import xla_experimental  # noqa: F401  (tf.xla.experimental)
from . import raw_call  # noqa: F401  (tf.raw_ops.PartitionedCall, StatefulPartitionedCall)

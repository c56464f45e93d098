"""`tf.summary.experimental`: the default step, summary scopes, raw protos."""
from .ops import summary_scope, write_raw_pb
from .writer import get_step, set_step

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]

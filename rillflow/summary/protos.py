"""TensorBoard's protocol buffers, imported on first use.

Event files are written with the `tensorboard` package's own protos, so that
what TensorBoard reads is exactly what it defines. The package is an
optional extra: importing rillflow never needs it, creating a file writer
does.
"""
import importlib

__all__ = ["load", "EXTRA_HINT"]

EXTRA_HINT = 'pip install "rillflow[tensorboard]"'
_NAMES = ("event_pb2", "summary_pb2", "graph_pb2", "node_def_pb2", "attr_value_pb2",
          "function_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2", "config_pb2",
          "versions_pb2")
_loaded = None


class _Protos:
    """The proto modules, as attributes (`P.event_pb2`, ...)."""

    def __init__(self, modules):
        self.__dict__.update(modules)


def load():
    """The TensorBoard proto modules.

    Raises:
      ImportError: naming the `rillflow[tensorboard]` extra when the
        `tensorboard` package is not installed.
    """
    global _loaded
    if _loaded is None:
        try:
            modules = {n: importlib.import_module("tensorboard.compat.proto." + n)
                       for n in _NAMES}
        except ImportError as e:
            raise ImportError(
                "tf.summary writes TensorBoard event files with the `tensorboard` package, "
                f"which is not installed ({e}). Install it with: {EXTRA_HINT}") from None
        _loaded = _Protos(modules)
    return _loaded

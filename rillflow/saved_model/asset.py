"""`tf.saved_model.Asset`: a file a SavedModel carries (a vocabulary, say).

`asset_path` is a string tensor holding the file's path; functions read it
as a captured value. `tf.saved_model.save` copies the file into the
SavedModel's `assets/` directory (saved_model.py) and records the capture as
bound to the asset (graph_io.py for rillflow's file, tf_save.py for
TensorFlow's `asset_file_def` and `bound_inputs`); loading makes a new
Asset whose path is the copy in the loaded directory, and the functions
read that path.
"""
import os

import numpy as np

from ..framework import context as _context
from ..framework.api_export import export
from ..framework.tensor import EagerTensor, Tensor

__all__ = ["Asset"]


@export("saved_model.Asset")
class Asset:
    """A file to save with a SavedModel.

    Args:
      path: the file's path (a str, bytes, os.PathLike or a string tensor).

    Raises:
      TypeError: for a path of another type.
    """

    def __init__(self, path):
        if isinstance(path, Tensor):
            value = path.numpy() if hasattr(path, "numpy") else None
            if not isinstance(value, (bytes, str)):
                raise TypeError("Asset path must be a scalar string tensor known eagerly, "
                                f"got {path!r}")
            path = value
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        if not isinstance(path, str):
            raise TypeError(f"Asset path must be a string, bytes, os.PathLike or a string "
                            f"tensor, got {type(path).__name__}: {path!r}")
        with _context.init_scope():
            self._path_tensor = EagerTensor(np.array(path.encode("utf-8"), dtype=object))

    @property
    def asset_path(self):
        """The path of the file, a scalar string tensor."""
        return self._path_tensor

    @property
    def _path(self):
        return self._path_tensor.numpy().decode("utf-8")

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        # A node without children or state in checkpoints, as in TensorFlow.
        return {}

    def __repr__(self):
        return f"<tf.saved_model.Asset path={self._path!r}>"

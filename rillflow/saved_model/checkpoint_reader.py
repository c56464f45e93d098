"""`tf.train.load_checkpoint`, `list_variables`, `load_variable` and
`tf.compat.v1.train.NewCheckpointReader`: reading the tensors of a
checkpoint by key, without the objects that wrote it."""
import os

from ..framework import errors
from ..framework.api_export import export
from ..io import tensor_bundle
from .checkpoint_management import latest_checkpoint

_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}


class CheckpointReader:
    """Reads the tensors of one checkpoint (what `tf.train.load_checkpoint`
    returns).

    Raises (on construction):
      NotFoundError: if the checkpoint does not exist.
      DataLossError: if its files are not a valid checkpoint.
    """

    def __init__(self, prefix):
        self._file = tensor_bundle.BundleReader(prefix)

    def has_tensor(self, name):
        """Whether the checkpoint holds a tensor with this key."""
        return name in self._file

    def get_tensor(self, name):
        """The saved value: a NumPy array, or a NumPy scalar (`bytes` for a
        string) when the tensor is a scalar, as TensorFlow returns it.

        Raises:
          NotFoundError: if there is no tensor with this key.
          DataLossError: if its bytes are corrupt.
        """
        if name not in self._file:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        value = self._file.get(name)
        if value.ndim == 0:
            return value.item() if value.dtype == object else value[()]
        return value

    def get_variable_to_shape_map(self):
        """A dict key -> shape (a list of ints) of every saved tensor."""
        return {name: self._file.shape(name) for name in self._file.names()}

    def get_variable_to_dtype_map(self):
        """A dict key -> `tf.DType` of every saved tensor."""
        return {name: self._file.dtype(name) for name in self._file.names()}

    def debug_string(self):
        """One line per tensor, `key (DT_FLOAT) [2,3]`, as bytes (TensorFlow's form)."""
        lines = []
        for name in self._file.names():
            dt = self._file.dtype(name).name
            dt = _DT_NAMES.get(dt, "DT_" + dt.upper())
            shape = ",".join(str(d) for d in self._file.shape(name))
            lines.append(f"{name} ({dt}) [{shape}]\n")
        return "".join(lines).encode("utf-8")


@export("compat.v1.train.NewCheckpointReader")
def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    """A `CheckpointReader` for the checkpoint prefix `filepattern`.

    Raises:
      NotFoundError: if the checkpoint does not exist.
      DataLossError: if its files are not a valid checkpoint.
    """
    return CheckpointReader(os.fspath(filepattern))


@export("train.load_checkpoint", "compat.v1.train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A `CheckpointReader` for a checkpoint prefix, or for the latest
    checkpoint of a directory.

    Raises:
      ValueError: for a directory without checkpoints.
      NotFoundError: if the checkpoint does not exist.
    """
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        path = latest
    return CheckpointReader(path)


@export("train.list_variables", "compat.v1.train.list_variables")
def list_variables(ckpt_dir_or_file):
    """The sorted `(key, shape)` pairs of every tensor in a checkpoint (or
    the latest checkpoint of a directory)."""
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


@export("train.load_variable", "compat.v1.train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The value of tensor `name` in a checkpoint (or the latest checkpoint
    of a directory), as `CheckpointReader.get_tensor` returns it. A name
    ending in `:0` is looked up without it, as in TensorFlow."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)

"""`tf.load_op_library` and `tf.load_library`: TensorFlow loads compiled
custom-op and kernel libraries (.so files built against its C++ framework)
into the process. rillflow's ops are Python kernels registered in its own
op registry, so no such library can add ops or kernels to it; both
functions check the path as TensorFlow does (TensorFlow's exceptions and
messages for a missing path or a file that is no shared library) and raise
NotFoundError naming the library for any other file, without loading it.
"""
import errno
import os

from . import errors
from .api_export import export

__all__ = ["load_op_library", "load_library"]

_SUFFIXES = (".so", ".dylib", ".dll")


def _refuse(path):
    """NotFoundError for `path`: glibc's dlopen message for what is no shared
    library, else the reason rillflow cannot load it."""
    if not os.path.exists(path) or os.path.isdir(path):
        raise errors.NotFoundError(
            None, None, f"{path}: cannot open shared object file: No such file or directory")
    with open(path, "rb") as f:
        head = f.read(64)
    if len(head) < 64:
        raise errors.NotFoundError(None, None, f"{path}: file too short")
    if not head.startswith(b"\x7fELF"):
        raise errors.NotFoundError(None, None, f"{path}: invalid ELF header")
    raise errors.NotFoundError(
        None, None, f"{path}: rillflow cannot load TensorFlow op or kernel libraries: its ops "
                    f"are Python kernels in its own registry, and a library compiled against "
                    f"TensorFlow's C++ framework cannot register ops with it")


@export("load_op_library")
def load_op_library(library_filename):
    """TensorFlow loads a custom-op library and returns a module of its op
    wrappers; rillflow cannot run compiled TensorFlow kernels.

    Raises:
      NotFoundError: always: TensorFlow's message when the file is missing
        or no shared library, else one saying that rillflow cannot load it.
    """
    _refuse(os.fspath(library_filename))


@export("load_library")
def load_library(library_location):
    """TensorFlow loads a kernel library, or every shared library in a
    folder; rillflow cannot load compiled TensorFlow kernels. An empty
    folder (or one without shared libraries) loads nothing, as in TensorFlow.

    Raises:
      FileNotFoundError: `library_location` does not exist.
      NotFoundError: for the first shared library found (see
        `load_op_library`).
    """
    path = os.fspath(library_location)
    if not os.path.exists(path):
        raise FileNotFoundError(
            errno.ENOENT, "The file or folder to load kernel libraries from does not exist.",
            path)
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name.endswith(_SUFFIXES) or ".so." in name:
                _refuse(os.path.join(path, name))
        return None
    _refuse(path)

"""`tf.io.gfile`: file access with TensorFlow's names and errors, for local
paths (TensorFlow's cloud file systems are out of scope).

This module is the `tf.io.gfile` namespace itself.
"""
import glob as _glob
import os
import shutil

from ..framework import errors
from ..framework.api_export import export

__all__ = ["GFile", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
           "remove", "rmtree", "rename", "copy", "stat", "walk"]


def _path(p):
    return os.fsdecode(p) if isinstance(p, (bytes, os.PathLike)) else str(p)


def _not_found(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


@export("io.gfile.GFile", "io.gfile.Open", "compat.v1.gfile.GFile", "compat.v1.gfile.Open")
class GFile:
    """A file object (`tf.io.gfile.GFile(name, mode="r")`): "r"/"w"/"a"
    give str, with "b" bytes. Like TensorFlow, the file is opened at the
    first read or write, so a missing file fails there with NotFoundError."""

    def __init__(self, name, mode="r"):
        self.name, self.mode = _path(name), mode
        self._f = None

    def _file(self):
        if self._f is None:
            try:
                self._f = open(self.name, self.mode if "b" in self.mode else self.mode + "b")
            except FileNotFoundError:
                raise _not_found(self.name) from None
        return self._f

    def _out(self, data):
        return data if "b" in self.mode else data.decode("utf-8")

    def read(self, n=-1):
        """Up to `n` bytes/characters (all that remain by default)."""
        return self._out(self._file().read(n))

    def readline(self):
        """The next line, with its newline."""
        return self._out(self._file().readline())

    def readlines(self):
        """The remaining lines."""
        return [self._out(line) for line in self._file().readlines()]

    def __iter__(self):
        return iter(self.readline, self._out(b""))

    def write(self, data):
        """Writes str or bytes."""
        self._file().write(data.encode("utf-8") if isinstance(data, str) else bytes(data))

    def seek(self, offset=None, whence=0, position=None):
        """Moves to `offset` (or the older `position`) relative to `whence`."""
        self._file().seek(position if offset is None else offset, whence)

    def tell(self):
        """The current position."""
        return self._file().tell()

    def size(self):
        """The file's length in bytes."""
        return stat(self.name).length

    def flush(self):
        """Pushes written data to the file."""
        if self._f is not None:
            self._f.flush()

    def close(self):
        """Closes the file."""
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


@export("io.gfile.exists", "compat.v1.gfile.Exists")
def exists(path):
    """Whether `path` exists."""
    return os.path.exists(_path(path))


@export("io.gfile.isdir", "compat.v1.gfile.IsDirectory")
def isdir(path):
    """Whether `path` is a directory."""
    return os.path.isdir(_path(path))


@export("io.gfile.join")
def join(path, *paths):
    """The paths joined with "/"."""
    return os.path.join(_path(path), *map(_path, paths))


@export("io.gfile.glob", "compat.v1.gfile.Glob")
def glob(pattern):
    """The paths matching `pattern` (or any of a list of patterns), sorted."""
    pats = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    return sorted({m for p in pats for m in _glob.glob(_path(p))})


@export("io.gfile.listdir", "compat.v1.gfile.ListDirectory")
def listdir(path):
    """The names in directory `path` (directories without a trailing "/").

    Raises:
      NotFoundError: if `path` is not a directory.
    """
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


@export("io.gfile.makedirs", "compat.v1.gfile.MakeDirs")
def makedirs(path):
    """Creates `path` and missing parents; fine if it exists."""
    os.makedirs(_path(path), exist_ok=True)


@export("io.gfile.mkdir", "compat.v1.gfile.MkDir")
def mkdir(path):
    """Creates directory `path` (its parent must exist)."""
    try:
        os.mkdir(_path(path))
    except FileExistsError:
        raise errors.AlreadyExistsError(None, None, f"{_path(path)}; File exists") from None
    except FileNotFoundError:
        raise _not_found(_path(path)) from None


@export("io.gfile.remove", "compat.v1.gfile.Remove")
def remove(path):
    """Deletes file `path`.

    Raises:
      NotFoundError: if it does not exist.
    """
    try:
        os.remove(_path(path))
    except FileNotFoundError:
        raise _not_found(_path(path)) from None


@export("io.gfile.rmtree", "compat.v1.gfile.DeleteRecursively")
def rmtree(path):
    """Deletes directory `path` and everything in it."""
    path = _path(path)
    if not os.path.exists(path):
        raise _not_found(path)
    shutil.rmtree(path)


@export("io.gfile.rename", "compat.v1.gfile.Rename")
def rename(src, dst, overwrite=False):
    """Renames `src` to `dst`; an existing `dst` needs `overwrite=True`."""
    src, dst = _path(src), _path(dst)
    if os.path.exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {dst}")
    if not os.path.exists(src):
        raise _not_found(src)
    os.replace(src, dst)


@export("io.gfile.copy", "compat.v1.gfile.Copy")
def copy(src, dst, overwrite=False):
    """Copies file `src` to `dst`; an existing `dst` needs `overwrite=True`."""
    src, dst = _path(src), _path(dst)
    if os.path.exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {dst}")
    if not os.path.exists(src):
        raise _not_found(src)
    shutil.copyfile(src, dst)


class _FileStatistics:
    """What `stat` returns: `length`, `mtime_nsec`, `is_directory`."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


@export("io.gfile.stat", "compat.v1.gfile.Stat")
def stat(path):
    """Size, modification time and kind of `path`."""
    try:
        st = os.stat(_path(path))
    except FileNotFoundError:
        raise _not_found(_path(path)) from None
    return _FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(_path(path)))


@export("io.gfile.walk", "compat.v1.gfile.Walk")
def walk(top, topdown=True, onerror=None):
    """(directory, subdirectory names, file names) for each directory under `top`."""
    yield from os.walk(_path(top), topdown=topdown, onerror=onerror)


@export("io.gfile.get_registered_schemes")
def get_registered_schemes():
    """The URI schemes of the file systems gfile reads and writes: local files
    only here (`file://` and plain paths; TensorFlow also registers `ram`
    and `gs`)."""
    return ["file", ""]

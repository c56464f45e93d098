"""`rillflow run`: an unmodified TensorFlow (or Keras) script or module on
rillflow.

    rillflow run train.py --epochs 3
    rillflow run -m pytest tests/

or from Python, `rillflow.compat.run.run_path("train.py", ["--epochs", "3"])`.

The script's `import tensorflow as tf` gets rillflow (compat/tensorflow_shim)
and its `import keras` gets Keras on its TensorFlow backend, run by rillflow.
The script runs as `__main__`, with `sys.argv` as the script would see it
and its own directory first on `sys.path`, as `python SCRIPT` gives it.
"""
import os
import runpy
import sys

from . import tensorflow_shim

_PLUGIN = "rillflow.compat.pytest_plugin"


def prepare():
    """Stands rillflow in for TensorFlow and points Keras at it.

    Raises:
      RuntimeError: KERAS_BACKEND names another backend (a script run this
        way would otherwise run Keras on a library other than rillflow), or
        TensorFlow or Keras is already imported.
    """
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    if backend != "tensorflow":
        raise RuntimeError(
            f"KERAS_BACKEND={backend!r}: `rillflow run` runs Keras on its TensorFlow backend "
            "(unset KERAS_BACKEND or set it to 'tensorflow')")
    # Keras reads the variable once, at its first import, and overrides
    # ~/.keras/keras.json with it.
    os.environ["KERAS_BACKEND"] = "tensorflow"
    import rillflow  # noqa: F401  (the shim takes the package from sys.modules)
    tensorflow_shim.install()


def run_path(path, args=()):
    """Runs the Python file `path` as `__main__` on rillflow with
    `sys.argv = [path, *args]`; returns its globals.

    Raises:
      FileNotFoundError: `path` does not exist.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"rillflow run: can't open file {path!r}: no such file")
    prepare()
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [path, *args]
    # `python SCRIPT` puts the script's directory first on sys.path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        return runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path


def run_module(module, args=()):
    """Runs module `module` as `__main__` (as `python -m MODULE ARGS`) on
    rillflow; returns its globals."""
    prepare()
    # pytest-xdist's workers are new processes that do not run through
    # `rillflow run`: pytest loads the plugin named in the environment in
    # each of them, and it stands rillflow in there too.
    plugins = [p for p in os.environ.get("PYTEST_PLUGINS", "").split(",") if p]
    if _PLUGIN not in plugins:
        os.environ["PYTEST_PLUGINS"] = ",".join(plugins + [_PLUGIN])
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [module, *args]
    # `python -m` puts the current directory first on sys.path.
    sys.path.insert(0, os.getcwd())
    try:
        return runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path


def main(argv):
    """`rillflow run [-m MODULE | SCRIPT] [ARGS...]`; returns the exit status."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: rillflow run SCRIPT [ARGS...]\n"
              "       rillflow run -m MODULE [ARGS...]\n\n"
              "Runs an unmodified TensorFlow or Keras program on rillflow.")
        return 0 if argv else 2
    try:
        if argv[0] == "-m":
            if len(argv) < 2:
                print("rillflow run: -m needs a module name", file=sys.stderr)
                return 2
            run_module(argv[1], argv[2:])
        else:
            run_path(argv[0], argv[1:])
    except SystemExit as exc:  # the program's own exit status, as `python` reports it
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0

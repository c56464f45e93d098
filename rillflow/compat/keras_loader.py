"""`tf.keras`: Keras 3 on its TensorFlow backend, with rillflow standing in
for TensorFlow. `load()` is what `rillflow.keras` calls on first access (the
`keras` extra: `pip install rillflow[keras]`); see docs/keras.md for what runs.
"""
import importlib.util
import os
import sys

from . import tensorflow_shim

_INSTALL_HINT = "pip install rillflow[keras]"


def load():
    """Imports Keras with KERAS_BACKEND=tensorflow on rillflow and returns it.

    Raises:
      AttributeError: Keras is not installed (so `hasattr(tf, "keras")` is
        False, as for any missing attribute).
      RuntimeError: Keras is already imported on another backend, the real
        TensorFlow is imported, or KERAS_BACKEND names another backend.
    """
    if "keras" not in sys.modules and importlib.util.find_spec("keras") is None:
        raise AttributeError("module 'rillflow' has no attribute 'keras': Keras is not "
                             f"installed ({_INSTALL_HINT})")
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    if backend != "tensorflow" and "keras" not in sys.modules:
        raise RuntimeError(f"KERAS_BACKEND={backend!r}: rillflow runs Keras only on its "
                           "TensorFlow backend (unset KERAS_BACKEND or set it to 'tensorflow')")
    # Keras reads the variable once, when first imported.
    os.environ["KERAS_BACKEND"] = "tensorflow"
    tensorflow_shim.install()
    import keras
    if keras.backend.backend() != "tensorflow":  # e.g. a keras.json that overrides
        raise RuntimeError(f"keras was imported with the {keras.backend.backend()!r} backend; "
                           "rillflow runs Keras only on its TensorFlow backend")
    return keras

"""Stand-ins for TensorFlow internals that Keras 3's TensorFlow backend
imports: `tensorflow.python.*` modules (python_modules.py), `tf.__internal__`
(internal_namespace.py), the tracking base classes (tracking.py) and XLA's
dynamic_update_slice (xla.py). The shim (compat/tensorflow_shim.py) installs
them only while rillflow stands in for `tensorflow`; see docs/keras.md."""

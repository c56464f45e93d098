"""Checkpoints and SavedModel in TensorFlow's own file formats: object graphs and
`tf.train.Checkpoint` (checkpoint*.py), reading and writing the variable bundle
(checkpoint_io.py, checkpoint_reader.py), `tf.saved_model.save`/`load` (saved_model.py,
saved_objects.py, graph_io.py, restored.py) custom gradients kept across a save
(custom_gradients.py), `tf.train.checkpoints_iterator` (checkpoint_wait.py), and tf.saved_model's signature
constants (signature_constants.py). See docs/architecture.md."""
from . import signature_constants  # noqa: F401  (tf.saved_model's constants)

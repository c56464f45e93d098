"""Checkpoints and SavedModel in TensorFlow's own file formats: object graphs and
`tf.train.Checkpoint` (checkpoint*.py), reading and writing the variable bundle
(checkpoint_io.py, checkpoint_reader.py), `tf.saved_model.save`/`load` (saved_model.py,
saved_objects.py, graph_io.py, restored.py) custom gradients kept across a save
(custom_gradients.py), and `tf.train.checkpoints_iterator` (checkpoint_wait.py). See docs/architecture.md."""

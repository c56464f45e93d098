"""Checkpoints and SavedModel: object graphs and `tf.train.Checkpoint`
(checkpoint.py, checkpoint_graph.py), the `checkpoint` state file and
CheckpointManager (checkpoint_management.py), reading a checkpoint by key
(checkpoint_reader.py; the files themselves are TensorFlow's tensor bundle,
rillflow/io/tensor_bundle.py), `tf.saved_model.save`/`load` (saved_model.py;
TensorFlow's saved_model.pb: tf_save.py, function_export.py, tf_load.py,
function_import.py, tf_values.py, describe.py; rillflow's exact graphs
beside it: saved_objects.py, graph_io.py, restored.py) and custom gradients
kept across a save (custom_gradients.py), `tf.train.checkpoints_iterator`
(checkpoint_wait.py) tf.saved_model's signature constants (signature_constants.py), and GraphDefs in
TensorFlow's terms: `tf.io.write_graph`, `tf.import_graph_def` (graph_def_io.py),
`tf.compat.v1.wrap_function` and its `prune` (wrap_function.py).
See docs/architecture.md."""
from . import signature_constants  # noqa: F401  (tf.saved_model's constants)

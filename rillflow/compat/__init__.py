"""`tf.compat`: the TensorFlow 1 API (`v1/`: Session, placeholders and the v1 names)
and the `tensorflow` module shim that runs TensorFlow's own tests against rillflow
(tensorflow_shim.py). See docs/architecture.md."""

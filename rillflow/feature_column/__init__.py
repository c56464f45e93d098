"""`tf.feature_column`: the column classes and their transformations
(columns), the constructors and `make_parse_example_spec` (api), and
`tf.compat.v1.feature_column.input_layer` (input_layer)."""
from . import columns, api, input_layer  # noqa: F401

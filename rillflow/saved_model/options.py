"""`tf.saved_model.SaveOptions`, `LoadOptions` and the namespace's constants.

The options are accepted with TensorFlow's parameters and kept as
attributes. `SaveOptions.function_aliases` and
`LoadOptions.experimental_load_function_aliases` work as in TensorFlow; the
others change nothing (one device, no sharding, no protobuf image format).
"""
from ..framework.api_export import export, export_value

__all__ = ["SaveOptions", "LoadOptions"]


@export("saved_model.SaveOptions")
class SaveOptions:
    """Options for `tf.saved_model.save` (accepted for compatibility)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases if function_aliases else {}
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


@export("saved_model.LoadOptions")
class LoadOptions:
    """Options for `tf.saved_model.load` (accepted for compatibility)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


# TensorFlow's names for the parts of a SavedModel (rillflow writes the same
# files, and its own saved_model.json beside them).
for _name, _value in (("ASSETS_DIRECTORY", "assets"), ("ASSETS_KEY", "saved_model_assets"),
                      ("DEFAULT_SERVING_SIGNATURE_DEF_KEY", "serving_default"),
                      ("SAVED_MODEL_FILENAME_PB", "saved_model.pb"),
                      ("SAVED_MODEL_FILENAME_PBTXT", "saved_model.pbtxt"),
                      ("SAVED_MODEL_SCHEMA_VERSION", 1), ("SERVING", "serve"),
                      ("TRAINING", "train"), ("GPU", "gpu"), ("TPU", "tpu"),
                      ("VARIABLES_DIRECTORY", "variables"), ("VARIABLES_FILENAME", "variables"),
                      ("DEBUG_DIRECTORY", "debug"),
                      ("DEBUG_INFO_FILENAME_PB", "saved_model_debug_info.pb")):
    export_value(_value, "saved_model." + _name)
del _name, _value

"""`tf.saved_model.SaveOptions`, `LoadOptions` and the namespace's constants.

The options are accepted with TensorFlow's parameters and kept as
attributes. `SaveOptions.function_aliases` and
`LoadOptions.experimental_load_function_aliases` work as in TensorFlow; the
others change nothing (one device, no sharding, no protobuf image format).
"""
import enum

from ..framework.api_export import export, export_value

__all__ = ["SaveOptions", "LoadOptions", "CheckpointOptions", "ShardingCallback",
           "VariablePolicy"]


@export("saved_model.experimental.VariablePolicy")
class VariablePolicy(enum.Enum):
    """How `SaveOptions` saves variables: rillflow has one device and no
    distributed variables, so each policy saves the same files."""
    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    def _save_variable_devices(self):
        return self != VariablePolicy.NONE

    def _expand_distributed_variables(self):
        return self == VariablePolicy.EXPAND_DISTRIBUTED_VARIABLES

    @staticmethod
    def from_obj(obj):
        """The policy for None, a policy, or its value or name (any case).

        Raises:
          ValueError: for an unknown policy.
        """
        if obj is None:
            return VariablePolicy.NONE
        if isinstance(obj, VariablePolicy):
            return obj
        key = str(obj).lower()
        for policy in VariablePolicy:
            if key == policy.value:
                return policy
        raise ValueError(f"Received invalid VariablePolicy value: {obj}.")



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
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)
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
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)
        self.experimental_load_function_aliases = experimental_load_function_aliases


@export("train.experimental.ShardingCallback")
class ShardingCallback:
    """The base of checkpoint sharding policies: `description` (a string)
    and `__call__(shardable_tensors)` returning a list of shards, each a
    {tensor name: {slice spec: tensor}} dict.

    rillflow writes every checkpoint as one data shard; a policy given in
    `CheckpointOptions` is checked and kept, and changes nothing on disk.
    """

    @property
    def description(self):
        """A text describing the policy."""
        raise NotImplementedError

    def __call__(self, shardable_tensors):
        raise NotImplementedError


@export("train.CheckpointOptions")
class CheckpointOptions:
    """Options for `tf.train.Checkpoint`'s `save`/`write`/`read`/`restore`.

    `experimental_write_callbacks` are called after each checkpoint is
    written, with its path when they take an argument, as in TensorFlow.
    The others are kept as attributes: rillflow saves on one device,
    synchronously (`enable_async`: the file is complete when `save`
    returns), in one shard.

    Raises:
      ValueError: for a sharding callback that is not a `ShardingCallback`.
    """

    __slots__ = ("experimental_io_device", "enable_async", "experimental_write_callbacks",
                 "experimental_skip_slot_variables", "experimental_sharding_callback")

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.enable_async = experimental_enable_async_checkpoint or enable_async
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        if experimental_sharding_callback is not None and not isinstance(
                experimental_sharding_callback, ShardingCallback):
            raise ValueError("The experimental_sharding_callback checkpoint option"
                             "must be of type ShardingCallback. The option provided"
                             f"was of type {type(experimental_sharding_callback)}.")
        self.experimental_sharding_callback = experimental_sharding_callback

    @property
    def experimental_enable_async_checkpoint(self):
        """The deprecated name of `enable_async`."""
        return self.enable_async

    def __copy__(self):
        out = CheckpointOptions.__new__(CheckpointOptions)
        for k in self.__slots__:
            setattr(out, k, getattr(self, k))
        return out


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

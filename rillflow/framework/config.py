"""`tf.config`'s settings beyond devices (device.py): soft placement,
`tf.config.optimizer` (Grappler options and XLA auto-clustering),
`tf.config.threading`, TensorFloat-32, the device policy, synchronous
execution, device details and memory info, the MLIR bridge, op determinism,
and `tf.debugging`'s traceback filtering and device-placement logging.

rillflow runs every op on the CPU in one deterministic way, so these are
recorded and read back as TensorFlow reports them; none changes a result.
"""
from . import context as _context
from . import lowering
from .api_export import export
from .device import PhysicalDevice, list_logical_devices

_cfg = _context.config


class _Settings:
    """The process-wide values of the settings below (TensorFlow's context)."""

    def __init__(self):
        self.optimizer = {}          # Grappler options set by the user
        self.jit = ""                # "" (off) or "autoclustering"
        self.inter_op_threads = 0
        self.intra_op_threads = 0
        self.tf32 = True
        self.device_policy = "silent"
        self.synchronous = True
        self.mlir_bridge = None
        self.op_determinism = False
        self.traceback_filtering = True
        self.log_device_placement = False


_settings = _Settings()

# --- soft placement ---------------------------------------------------------------------------


@export("config.get_soft_device_placement")
def get_soft_device_placement():
    """Whether ops asked to run on a missing device run on another (True)."""
    return _cfg.soft_device_placement


@export("config.set_soft_device_placement")
def set_soft_device_placement(enabled):
    """Records soft placement (every op runs on the CPU either way)."""
    _cfg.soft_device_placement = bool(enabled)


# --- tf.config.optimizer ------------------------------------------------------------------------

_DEFAULT_OPTIMIZER = {"disable_model_pruning": False, "disable_meta_optimizer": False}
# The order TensorFlow lists the options in (its RewriterConfig's).
_ORDER = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
          "arithmetic_optimization", "dependency_optimization", "loop_optimization",
          "function_optimization", "debug_stripper", "scoped_allocator_optimization",
          "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision",
          "disable_model_pruning", "disable_meta_optimizer", "min_graph_nodes")


@export("config.optimizer.get_experimental_options")
def get_experimental_options():
    """The Grappler options set (with TensorFlow's two defaults)."""
    out = dict(_settings.optimizer)
    for k, v in _DEFAULT_OPTIMIZER.items():
        out.setdefault(k, v)
    rank = {k: i for i, k in enumerate(_ORDER)}
    return dict(sorted(out.items(), key=lambda kv: rank.get(kv[0], len(rank))))


@export("config.optimizer.set_experimental_options")
def set_experimental_options(options):
    """Records Grappler options (a dict of option name to value)."""
    _settings.optimizer.update(options)


@export("config.optimizer.get_jit")
def get_jit():
    """`"autoclustering"` when XLA auto-clustering was turned on, else `""`."""
    return _settings.jit


@export("config.optimizer.set_jit")
def set_jit(enabled):
    """Records XLA auto-clustering (True or "autoclustering": on; False: off)."""
    _settings.jit = "autoclustering" if enabled else ""


# --- tf.config.threading ------------------------------------------------------------------------

@export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads():
    """The number of threads for independent ops (0: chosen by the runtime)."""
    return _settings.inter_op_threads


@export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads):
    """Records the number of threads for independent ops."""
    _settings.inter_op_threads = int(num_threads)


@export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads():
    """The number of threads inside one op (0: chosen by the runtime)."""
    return _settings.intra_op_threads


@export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads):
    """Records the number of threads inside one op."""
    _settings.intra_op_threads = int(num_threads)


# --- tf.config.experimental ----------------------------------------------------------------------

@export("config.experimental.tensor_float_32_execution_enabled")
def tensor_float_32_execution_enabled():
    """Whether TensorFloat-32 may be used on GPUs that have it."""
    return _settings.tf32


@export("config.experimental.enable_tensor_float_32_execution")
def enable_tensor_float_32_execution(enabled):
    """Whether float32 matrix products and convolutions may use TensorFloat-32
    on GPUs that have it (compiled functions on a GPU: JAX's default matmul
    precision; CPU float32 math never uses it)."""
    _settings.tf32 = bool(enabled)
    lowering.set_tf32(enabled)


_POLICIES = ("silent", "silent_for_int32", "warn", "explicit")


@export("config.experimental.get_device_policy")
def get_device_policy():
    """How tensors on other devices are handled: "silent" by default."""
    return _settings.device_policy


@export("config.experimental.set_device_policy")
def set_device_policy(device_policy):
    """Records the device policy (None: the default, "silent").

    Raises:
      ValueError: for an unknown policy.
    """
    if device_policy is None:
        device_policy = "silent"
    if device_policy not in _POLICIES:
        raise ValueError(f"Invalid argument `device_policy`: {device_policy!r}. Please refer "
                         "to https://www.tensorflow.org/api_docs/python/tf/config/experimental/"
                         "set_device_policy for valid `device_policy` arguments.")
    _settings.device_policy = device_policy


@export("config.experimental.get_synchronous_execution")
def get_synchronous_execution():
    """Whether eager ops finish before returning (always so here)."""
    return _settings.synchronous


@export("config.experimental.set_synchronous_execution")
def set_synchronous_execution(enable):
    """Records the setting (eager ops always finish before returning here)."""
    _settings.synchronous = bool(enable)


@export("config.experimental.get_device_details")
def get_device_details(device):
    """Details of a physical device: empty for the CPU, as in TensorFlow.

    Raises:
      ValueError: if `device` is not a PhysicalDevice.
    """
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"device must be a tf.config.PhysicalDevice, but got: {device}")
    return {}


def _check_device(device):
    name = device if isinstance(device, str) else getattr(device, "name", str(device))
    short = name.split("device:")[-1].upper()
    if not any(d.name.split("device:")[-1].upper() == short for d in list_logical_devices()):
        raise ValueError(f"No matching devices found for '{name}'")


@export("config.experimental.get_memory_info")
def get_memory_info(device):
    """{'current', 'peak'} bytes TensorFlow's allocator tracks on `device`:
    0 for the CPU, where it tracks none.

    Raises:
      ValueError: for a device this machine does not have.
    """
    _check_device(device)
    return {"current": 0, "peak": 0}


@export("config.experimental.get_memory_usage")
def get_memory_usage(device):
    """`get_memory_info(device)['current']` (deprecated in TensorFlow)."""
    return get_memory_info(device)["current"]


@export("config.experimental.enable_mlir_bridge")
def enable_mlir_bridge():
    """Records the MLIR bridge setting (XLA's compiler; not used here)."""
    _settings.mlir_bridge = True


@export("config.experimental.disable_mlir_bridge")
def disable_mlir_bridge():
    """Records the MLIR bridge setting (XLA's compiler; not used here)."""
    _settings.mlir_bridge = False


@export("config.experimental.enable_op_determinism")
def enable_op_determinism():
    """Makes ops deterministic: rillflow's always are (same inputs, same bits)."""
    _settings.op_determinism = True


# --- tf.debugging --------------------------------------------------------------------------------

@export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled():
    """Whether tracebacks hide TensorFlow's internal frames."""
    return _settings.traceback_filtering


@export("debugging.enable_traceback_filtering")
def enable_traceback_filtering():
    """Records traceback filtering (rillflow's errors show the user's frames)."""
    _settings.traceback_filtering = True


@export("debugging.disable_traceback_filtering")
def disable_traceback_filtering():
    """Records traceback filtering (rillflow's errors show the user's frames)."""
    _settings.traceback_filtering = False


@export("debugging.get_log_device_placement")
def get_log_device_placement():
    """Whether the device of each op is logged."""
    return _settings.log_device_placement


@export("debugging.set_log_device_placement")
def set_log_device_placement(enabled):
    """Records device-placement logging (every op runs on the CPU)."""
    _settings.log_device_placement = bool(enabled)


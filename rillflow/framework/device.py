"""Devices: `tf.device` scopes and the `tf.config` device queries.

rillflow runs its eager ops on the CPU: device scopes are accepted for any
device (soft placement), recorded on the ops built inside them (`op.device`,
as TensorFlow canonicalizes it). The machine lists one CPU, and the GPUs JAX
sees where JAX has a GPU plugin: `jit_compile=True` functions run there, and
tensors and variables can be placed there (placement.py). The CPU can be split into
logical CPUs (`tf.config.set_logical_device_configuration`), which
`list_logical_devices` then lists; all of them run on the one CPU.
"""
import collections
import contextlib
import re

from . import context as _context
from . import lowering
from .api_export import export, export_value
from .device_spec import DeviceSpec

__all__ = ["device", "canonical_device", "list_physical_devices", "list_logical_devices",
           "LogicalDeviceConfiguration"]

_state = _context.state

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = "A physical device of the machine (`name`, `device_type`)."
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDevice.__doc__ = "A device ops run on (`name`, `device_type`)."

LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    defaults=(None, None, None))
LogicalDeviceConfiguration.__doc__ = (
    "One logical device to make of a physical one "
    "(`tf.config.LogicalDeviceConfiguration`).")

_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_CPU_LOGICAL = LogicalDevice("/device:CPU:0", "CPU")
_DEVICE = re.compile(r"^(?P<prefix>(/job:[^/]+)?(/replica:\d+)?(/task:\d+)?)"
                     r"(/?(device:)?(?P<type>[A-Za-z_]+)(:(?P<index>\d+|\*))?)?$")


def canonical_device(name):
    """`name` as TensorFlow records it on an op: `/CPU:0` and `cpu:0` become
    `/device:CPU:0`; a job/replica/task prefix stays.

    Raises:
      ValueError: for a name that is not a device name.
    """
    m = _DEVICE.match(name.strip())
    if m is None:
        raise ValueError(f"Unknown attribute: '{name}' in '{name}'")
    out = m.group("prefix") or ""
    if m.group("type"):
        out += "/device:%s" % m.group("type").upper()
        if m.group("index") is not None:
            out += ":" + m.group("index")
    return out


@export("device")
@contextlib.contextmanager
def device(device_name):
    """Places the ops built inside on `device_name` (recorded on graph ops;
    everything runs on the CPU). `None` clears the scope.

    Raises:
      ValueError: if `device_name` is not a string (or None).
    """
    if isinstance(device_name, DeviceSpec):
        device_name = device_name.to_string()
    if device_name is not None and not isinstance(device_name, str):
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions when eager execution "
                               "is enabled.")
        raise ValueError(f"Expecting a string device name. Got "
                         f"{type(device_name)}({device_name!r})")
    saved = _state.device
    _state.device = "" if not device_name else canonical_device(device_name)
    try:
        yield
    finally:
        _state.device = saved


def _matching(devices, device_type):
    if device_type is None:
        return list(devices)
    return [d for d in devices if d.device_type == device_type]


@export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type=None):
    """The machine's physical devices of `device_type` (all if None): one CPU,
    and the GPUs JAX sees where JAX has a GPU plugin (`jit_compile=True`
    functions run there through XLA)."""
    gpus = [PhysicalDevice("/physical_device:GPU:%d" % i, "GPU")
            for i in range(len(lowering.gpu_devices()))] if device_type in (None, "GPU") else []
    return _matching([_CPU] + gpus, device_type)


# physical device -> its LogicalDeviceConfigurations; fixed once the logical
# devices have been listed (TensorFlow's runtime is initialized by then).
_logical_config = {}
_initialized = [False]


@export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type=None):
    """The devices ops can run on, of `device_type` (all if None): the CPU,
    or the logical CPUs it was split into."""
    _initialized[0] = True
    n = len(_logical_config.get(_CPU) or ()) or 1
    gpus = [LogicalDevice("/device:GPU:%d" % i, "GPU")
            for i in range(len(lowering.gpu_devices()))] if device_type in (None, "GPU") else []
    return _matching([LogicalDevice("/device:CPU:%d" % i, "CPU") for i in range(n)] + gpus,
                     device_type)


def _check_physical(device):
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


@export("config.set_logical_device_configuration",
        "config.experimental.set_virtual_device_configuration")
def set_logical_device_configuration(device, logical_devices):
    """Splits physical `device` into one logical device per configuration.

    Raises:
      ValueError: an unknown device, or a memory limit for a CPU.
      RuntimeError: a different configuration once the logical devices
        were listed (as TensorFlow's after its runtime started).
    """
    _check_physical(device)
    configs = list(logical_devices)
    if device.device_type == "CPU" and any(c.memory_limit is not None for c in configs):
        raise ValueError("Setting memory limit on CPU virtual devices is currently not "
                         "supported")
    if _logical_config.get(device) == configs:
        return
    if _initialized[0]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _logical_config[device] = configs


@export("config.get_logical_device_configuration",
        "config.experimental.get_virtual_device_configuration")
def get_logical_device_configuration(device):
    """The logical device configurations of physical `device`, or None.

    Raises:
      ValueError: an unknown device.
    """
    _check_physical(device)
    return _logical_config.get(device)


export_value(LogicalDeviceConfiguration, "config.LogicalDeviceConfiguration",
             "config.experimental.VirtualDeviceConfiguration")
export_value(PhysicalDevice, "config.PhysicalDevice")
export_value(LogicalDevice, "config.LogicalDevice")


@export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type=None):
    """The physical devices visible to the runtime: the CPU and the GPUs
    JAX sees."""
    return list_physical_devices(device_type)


@export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices, device_type=None):
    """Accepts this machine's devices as the visible set (every device
    stays usable: JAX's devices are fixed once it has started).

    Raises:
      ValueError: for a device this machine does not have.
    """
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    known = list_physical_devices()
    for d in devices:
        if d not in known:
            raise ValueError(f"Unrecognized device: {d!r}")


# GPU -> the memory growth asked for (recorded: JAX's allocator is set by
# XLA_PYTHON_CLIENT_PREALLOCATE before it starts, not per device).
_memory_growth = {}


@export("config.experimental.set_memory_growth")
def set_memory_growth(device, enable):
    """Records whether GPU `device` may grow its memory (TensorFlow's call
    before the GPUs are used). JAX's allocator takes its setting from the
    environment when it starts: set `XLA_PYTHON_CLIENT_PREALLOCATE=false`
    for memory on demand.

    Raises:
      ValueError: a device that is not one of this machine's GPUs.
    """
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    _check_physical(device)
    _memory_growth[device] = bool(enable)


@export("config.experimental.get_memory_growth")
def get_memory_growth(device):
    """The memory growth recorded for GPU `device` (False by default).

    Raises:
      ValueError: a device that is not one of this machine's GPUs.
    """
    if device.device_type != "GPU":
        raise ValueError("Cannot get memory growth on non-GPU and non-Pluggable devices")
    _check_physical(device)
    return _memory_growth.get(device, False)

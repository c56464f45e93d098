"""Where tensors live when JAX has GPUs (the `xla` extra with JAX's CUDA or
ROCm plugin).

rillflow's eager ops compute with NumPy on the CPU, so every tensor keeps its
value as a host array. What a GPU adds is a second home for that value:

- `jit_compile=True` functions run on a JAX device: the one the enclosing
  `tf.device` scope names (`/GPU:i`, or `/CPU:0` to keep a call on the host),
  else JAX's default device, the first GPU where there is one (TensorFlow
  also prefers a GPU). Their results keep their device arrays, so the next
  compiled call takes them without a transfer; the host copy (`.numpy()`,
  eager ops) is made from the device array.
- `tf.constant`, `tf.identity` and `tf.Variable` inside a `tf.device("/GPU:i")`
  scope put a copy of the value on that GPU at once (the tensor's array is
  made read-only, so the copy can never go stale); a variable's copy is
  replaced whenever a compiled call writes it; after an eager assignment
  the next compiled call uploads the new value.
- `.device` of a tensor or variable names the device its device copy is on,
  else the CPU (eager results are computed on the CPU, also inside a GPU
  scope: they say so).

Device copies are "uncommitted" JAX arrays, so a compiled call on another
device moves them there instead of failing, as TensorFlow copies between
devices silently (its default device policy).

Without JAX, or without GPUs, none of this costs anything: the scope is an
empty string and `.device` is the CPU.
"""
import functools
import re
import weakref

import numpy as np

from . import context as _context
from . import lowering
from . import tensor as _tensor

__all__ = ["call_device", "place", "place_variable", "device_name", "variable_device_name",
           "CPU_NAME", "device_copies", "device_copy", "variable_copy",
           "register_device_copy", "register_variable_copy"]

_state = _context.state

CPU_NAME = "/job:localhost/replica:0/task:0/device:CPU:0"
_GPU_NAME = "/job:localhost/replica:0/task:0/device:GPU:%d"
_SPEC = re.compile(r"(?:^|/)device:(?P<type>[A-Z_]+)(?::(?P<index>\d+))?")

# The device copies of host values, which compiled calls
# (compiler/xla_compile.py) pass instead of the host values:
# - id(host array) -> (the array, or a weak reference to it; its device
#   array), for values that never change: NumPy scalars, read-only arrays
#   (results of compiled calls, tensors placed on a GPU);
# A variable storage's `device_entry` (ops/state/resource_ops.py) holds (its
# host value when the copy was made, or None while the newest value exists
# only on the device; the device array, or None).
device_copies = {}
DEVICE_COPY_LIMIT = 4096


def _forget(table, key, ref):
    e = table.get(key)
    if e is not None and e[0] is ref:
        # (another thread may have replaced the entry since: dropping an
        # entry only costs a transfer)
        table.pop(key, None)


def remember(table, host, value):
    """Records `(weak reference to host, value)` under `id(host)` in `table`
    (`device_copies` or a table like it), removed when `host` goes (its
    device copy freed, its id free for reuse)."""
    if len(table) >= DEVICE_COPY_LIMIT:
        table.clear()
    key = id(host)
    table[key] = (weakref.ref(host, functools.partial(_forget, table, key)), value)


def register_device_copy(host, value):
    """Records device array `value` as the copy of read-only host array
    `host`, which compiled calls then pass instead."""
    remember(device_copies, host, value)


def device_copy(host):
    """The device array recorded for host value `host`, or None."""
    e = device_copies.get(id(host))
    if e is None:
        return None
    held = e[0]
    if held is host or (held.__class__ is weakref.ref and held() is host):
        return e[1]
    return None


def register_variable_copy(storage, value):
    """Records `value` (a device array) as the device copy of variable
    `storage`'s current host value."""
    storage.device_entry = (storage.value, value)


def variable_copy(storage):
    """The device copy of variable `storage`'s current value, or None (never
    made, or stale after an eager assignment)."""
    e = getattr(storage, "device_entry", None)
    if e is None:
        return None
    if e[0] is None or e[0] is storage.value:   # None: the value is only there
        return e[1]
    return None


# canonical scope name -> the JAX device a compiled call runs on (None: JAX's
# default device, nothing to switch).
_call_devices = {}


def _named_device(name):
    """The JAX device a canonical device name names (GPU i, or the host
    CPU), or None (no GPUs, or a name no device matches: soft placement)."""
    gpus = lowering.gpu_devices()
    if not gpus:
        return None     # no GPU: everything runs on the default (host) device
    m = _SPEC.search(name)
    if m is None:
        return None
    index = int(m.group("index") or 0)
    if m.group("type") == "GPU":
        return gpus[index] if index < len(gpus) else None
    if m.group("type") == "CPU":
        return lowering.load().devices("cpu")[0]
    return None


def call_device():
    """The JAX device the current `tf.device` scope sends a compiled call to,
    or None for JAX's default device."""
    name = _state.device
    if not name:
        return None
    try:
        return _call_devices[name]
    except KeyError:
        dev = _named_device(name)
        if dev is not None and dev == lowering.load().devices()[0]:
            dev = None      # the default already: nothing to switch
        _call_devices[name] = dev
        return dev


def _scope_gpu():
    """The JAX GPU the current scope names, or None (no scope, a CPU scope,
    no GPUs, or JAX not installed)."""
    name = _state.device
    if not name or "GPU" not in name or not lowering.available():
        return None
    dev = _named_device(name)
    return dev if dev is not None and dev in lowering.gpu_devices() else None


def _copy_to(array, device):
    """An uncommitted copy of `array` on JAX `device`."""
    jax = lowering.load()
    with jax.default_device(device):
        return jax.numpy.asarray(array)


def place(tensor):
    """Gives eager `tensor` a copy on the GPU the current scope names (if
    any); returns `tensor`. Its host array becomes read-only (a copy if it
    was shared), so the device copy always equals it."""
    gpu = _scope_gpu()
    if gpu is None:
        return tensor
    host = tensor._v
    if not isinstance(host, np.ndarray) or host.flags.writeable:
        # (a NumPy scalar becomes a 0-d array: the registry holds arrays weakly)
        host = np.array(host)
        host.flags.writeable = False
        tensor._v = host
    register_device_copy(host, _copy_to(host, gpu))
    return tensor


def place_variable(storage):
    """Gives a new variable's value a copy on the GPU the current scope
    names (if any)."""
    gpu = _scope_gpu()
    if gpu is None or storage.value is None:
        return
    register_variable_copy(storage, _copy_to(storage.value, gpu))
    _variable_homes[storage] = _device_string(gpu)


# variable storage -> the device name of the GPU it was created on (its
# device copy is dropped by an eager assignment; the variable stays there).
_variable_homes = weakref.WeakKeyDictionary()


def _device_string(dev):
    """The TensorFlow device name of JAX device `dev`."""
    gpus = lowering.gpu_devices()
    return _GPU_NAME % gpus.index(dev) if dev in gpus else CPU_NAME


def _name_of(device_array):
    """The TensorFlow device name of a JAX array's device."""
    try:
        dev = next(iter(device_array.devices()))
    except Exception:  # noqa: BLE001 - not a JAX array: a host value
        return CPU_NAME
    return _device_string(dev)


def device_name(host):
    """The device name of an eager tensor whose host array is `host`."""
    if not lowering._loaded:
        return CPU_NAME     # JAX never imported: no device copies exist
    dev = device_copy(host)
    return CPU_NAME if dev is None else _name_of(dev)


# EagerTensor.device asks this module (tensor.py cannot import it: this
# module imports tensor.py's dependents' dependencies).
_tensor.device_name_hook[0] = device_name


def variable_device_name(storage):
    """The device name of a variable with resource storage `storage`."""
    if not lowering._loaded:
        return CPU_NAME
    dev = variable_copy(storage)
    if dev is None:
        return _variable_homes.get(storage, CPU_NAME)
    return _name_of(dev)

"""Lowering ops to JAX: what an op module uses to state its XLA rule.

`tf.function(jit_compile=True)` runs a traced graph as one `jax.jit`
computation (compiler/xla_lower.py walks the graph; compiler/xla_compile.py
compiles and calls it). Each op says how it lowers, next to its kernel,
shape inference and gradient: `register(..., lower=...)`, or
`op_registry.set_lowering(name, rule)`, or `@lowers("OpName", ...)` above a
rule in the op's module. A rule takes one of two forms:

- a dotted name, `"jnp.add"`, `"lax.rsqrt"`, `"jax.nn.sigmoid"`,
  `"jax.scipy.special.erf"`: that function applied to the op's input values
  (resolved on first use, so defining the rule never imports JAX);
- a function `rule(ctx, op, *values)` returning the op's output value, or a
  list of them for an op with several (or no) outputs. `op` is the graph
  Operation (`op.attrs`, `op.inputs`, `op.outputs` with static shapes and
  dtypes). A value is a NumPy array when it is known at compile time, a JAX
  array otherwise, a `VarRef` for a variable handle and a `TList` for a
  tensor list (compiler/xla_values.py). Results are cast to the dtypes the
  graph declares, so a rule need not care about NumPy's type promotion.

`ctx` (compiler/xla_lower.py's `LoweringContext`) offers what a rule cannot
compute from its inputs: `ctx.static(op, i)` (input `i` as a NumPy value, or
TensorFlow's "must be a compile-time constant" error), `ctx.next_key()` (a
fresh PRNG key, threaded through the computation, for stateful random ops),
`ctx.read(ref)` / `ctx.write(ref, value)` (variables), `ctx.call(graph,
values, outputs)` (a function graph lowered in place: branches, loop bodies,
called functions) and `ctx.switch`/`ctx.while_loop` (lax control flow with
the variables and the key threaded through).

`jax`, `jnp` and `lax` below import JAX on first attribute access (JAX is
the optional `xla` extra); loading it turns on JAX's 64-bit types, since
TensorFlow programs use int64 and float64 as a matter of course.
"""
import importlib
import importlib.util
import threading

import numpy as np

from . import lowering_values
from .lowering_values import TList, VarRef
from .op_registry import set_lowering

__all__ = ["available", "load", "jax", "jnp", "lax", "lowers", "set_lowerings", "resolve",
           "gpu_devices", "broadcast", "is_int", "np_dtype", "host_rule", "ints", "TList",
           "VarRef", "HostValue", "host_callback", "report_error", "raise_pending"]

_loaded = []


def available():
    """Whether JAX is installed (without importing it)."""
    if not _loaded:
        return importlib.util.find_spec("jax") is not None
    return True


def load():
    """Imports JAX (once), with 64-bit types on; returns the `jax` module.

    Raises:
      ImportError: when JAX is not installed.
    """
    if not _loaded:
        module = importlib.import_module("jax")
        # int64 indices and float64 values must stay 64-bit in compiled code,
        # as they do in TensorFlow's XLA.
        module.config.update("jax_enable_x64", True)
        lowering_values.register_pytrees(module)
        _loaded.append(module)
        if not _tf32[0]:
            set_tf32(False)     # else JAX's own default (or its environment) stays
    return _loaded[0]


# Whether TensorFloat-32 is allowed (config.py's
# tf.config.experimental.enable_tensor_float_32_execution sets it).
_tf32 = [True]


def set_tf32(enabled):
    """Gives JAX the TensorFloat-32 setting: off means full float32
    products ("highest" precision) on GPUs, as TensorFlow computes them then."""
    _tf32[0] = bool(enabled)
    if _loaded:
        _loaded[0].config.update("jax_default_matmul_precision",
                                 None if enabled else "highest")


class _LazyModule:
    """A JAX module imported on first attribute access."""

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):
        if self._module is None:
            load()
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self):
        return "<lazy module %s>" % self._name


jax = _LazyModule("jax")
jnp = _LazyModule("jax.numpy")
lax = _LazyModule("jax.lax")

_PREFIXES = {"jnp": "jax.numpy", "lax": "jax.lax", "jax": "jax"}
_resolved = {}


def resolve(name):
    """The JAX function a dotted rule name (`"jnp.add"`) stands for."""
    fn = _resolved.get(name)
    if fn is None:
        load()
        head, _, rest = name.partition(".")
        obj = importlib.import_module(_PREFIXES[head])
        parts = rest.split(".")
        for i, part in enumerate(parts):
            if not hasattr(obj, part):
                # A submodule not imported yet (jax.scipy.special).
                obj = importlib.import_module(obj.__name__ + "." + part)
            else:
                obj = getattr(obj, part)
        fn = _resolved[name] = obj
    return fn


def lowers(*names):
    """Decorator: the function is the lowering rule of the ops `names`."""
    def decorate(rule):
        for n in names:
            set_lowering(n, rule)
        return rule
    return decorate


class HostValue:
    """A value only the host computes (a formatted string): `fn(*args)`,
    evaluated in a host callback by the op consuming it (tf.print)."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, args):
        self.fn = fn
        self.args = list(args)


# Errors raised by host callbacks (assertions) in a running computation: the
# callback records its error and returns (an exception inside XLA would lose
# its class and message), and the compiled call raises it when it returns.
_pending = threading.local()


def report_error(exc):
    """Records an error raised by a host callback of the running computation."""
    errs = getattr(_pending, "errors", None)
    if errs is None:
        errs = _pending.errors = []
    errs.append(exc)


def raise_pending():
    """Raises the first error a host callback recorded (and forgets them all)."""
    errs = getattr(_pending, "errors", None)
    if errs:
        _pending.errors = []
        raise errs[0]


def host_callback(ctx, fn, *args):
    """Calls `fn(*values)` on the host when the computation reaches it
    (`jax.debug.callback`, in program order): array arguments are passed at
    run time, static ones (NumPy values, strings) as they are. An error `fn`
    raises is raised by the compiled call (`report_error`)."""
    dynamic = [i for i, a in enumerate(args) if not isinstance(a, (np.ndarray, np.generic))]

    def call(*values):
        full = list(args)
        for i, v in zip(dynamic, values):
            full[i] = np.asarray(v)
        try:
            fn(*full)
        except Exception as e:  # noqa: BLE001 - raised by the call, after the computation
            report_error(e)
    ctx.callbacks = True
    jax.debug.callback(call, *[args[i] for i in dynamic], ordered=True)


def set_lowerings(table):
    """Sets the lowering rule of each op named in `table` (name -> rule)."""
    for name, rule in table.items():
        set_lowering(name, rule)


def host_rule(ctx, op, *values):
    """The rule of an op computed at compile time: its NumPy kernel on its
    inputs, which must all be static (shape arithmetic, `tf.range`, ...)."""
    static = [ctx.static(op, i, v) for i, v in enumerate(values)]
    return op.opdef.kernel(*static, **op.attrs)


def ints(value):
    """A static value as a tuple of Python ints (shapes, axes, permutations)."""
    return tuple(int(v) for v in np.reshape(value, -1))


def broadcast(*xs):
    """The values as JAX arrays broadcast to one shape (lax's elementwise
    operations take equal shapes only)."""
    return jnp.broadcast_arrays(*[jnp.asarray(x) for x in xs])


def is_int(x):
    """Whether `x` (a NumPy or JAX value) has an integer dtype."""
    return jnp.issubdtype(x.dtype, jnp.integer)


def np_dtype(dtype):
    """The NumPy dtype of a rillflow DType (what JAX takes)."""
    return dtype._np


_GPU_PLUGINS = ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_plugins.xla_cuda12",
                "jax_rocm60_plugin", "jax_rocm7_plugin")


_gpus = []


def gpu_devices():
    """JAX's GPU devices, where a GPU plugin of JAX is installed (JAX is
    imported only then, so machines without one pay nothing); else []."""
    if not _gpus:
        found = []
        try:
            if any(_has_module(p) for p in _GPU_PLUGINS):
                found = list(load().devices("gpu"))
        except Exception:  # noqa: BLE001 - no usable GPU backend: no GPUs to list
            found = []
        _gpus.append(found)
    return _gpus[0]


def _has_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False

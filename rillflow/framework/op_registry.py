"""The op registry: one `OpDef` per op type, the single source of truth.

Eager dispatch, graph building, code generation, autodiff and exporters all
read an op's behaviour from its OpDef:

- `kernel(*arrays, **attrs)`: NumPy implementation. Returns one array (or
  NumPy scalar) for single-output ops, a tuple/list for multi-output ops.
  Kernels never mutate their inputs.
- `infer(inputs, attrs)`: static shape and dtype inference. `inputs` are
  tensors (symbolic or eager: anything with `.shape` and `.dtype`); returns
  a list of `(TensorShape, DType)`, one per output. Raises ValueError for
  inputs that can never be valid (graph construction errors).
- `grad(op, *output_grads)`: gradient, written with the public ops so it
  works on the eager tape and in graphs alike. `op` has `.inputs`,
  `.outputs`, `.get_attr(name)` and `.type`. Returns one gradient (or None)
  per input.
- `allowed`: the dtypes the op's (type-parametrised) inputs may have, or
  None for no restriction; helpers in `rillflow.ops.core.op_util` enforce it.
- `stateful`: the op has side effects or is not a function of its inputs
  (random, print, variable reads and writes); never pruned, folded or merged,
  and ordered by automatic control dependencies.
- `lower`: how `tf.function(jit_compile=True)` lowers the op to JAX
  (framework/lowering.py documents the forms): a rule
  `lower(ctx, op, *values)` returning the output value(s), or a dotted name
  such as `"jnp.add"` (the function applied to the inputs). None: the op
  cannot be compiled with XLA. An op module states it at `register`, or
  later with `set_lowering`.
"""

__all__ = ["OpDef", "register", "get", "set_gradient", "set_lowering", "REGISTRY"]

REGISTRY = {}


class OpDef:
    """What the runtime knows of one op type (see the module docstring)."""

    __slots__ = ("name", "kernel", "infer", "grad", "stateful", "default_name",
                 "no_fold", "codegen", "allowed", "allowed_np", "lower", "__weakref__")

    def __init__(self, name, kernel, infer, grad=None, stateful=False,
                 default_name=None, no_fold=False, codegen=None, allowed=None, lower=None):
        self.name = name
        self.allowed = tuple(allowed) if allowed is not None else None
        self.allowed_np = (frozenset(d._np for d in allowed if d is not None and d._np is not None)
                           if allowed is not None else None)
        self.kernel = kernel
        self.infer = infer
        self.grad = grad
        self.stateful = stateful
        self.default_name = default_name or name
        # Pure ops whose outputs must not be computed at build time (large or
        # costly outputs, or values that depend on the runtime).
        self.no_fold = no_fold
        # Optional custom code generator for the compiler (control flow ops).
        self.codegen = codegen
        # The JAX lowering rule (jit_compile=True), or None.
        self.lower = lower

    def __repr__(self):
        return "<OpDef %s>" % self.name


def register(name, kernel, infer, grad=None, stateful=False, default_name=None,
             no_fold=False, codegen=None, allowed=None, lower=None):
    """Creates and registers an OpDef; returns it.

    Raises:
      KeyError: if an op of that name is already registered.
    """
    if name in REGISTRY:
        raise KeyError("op %r is already registered" % name)
    op = OpDef(name, kernel, infer, grad, stateful, default_name, no_fold, codegen, allowed,
               lower)
    REGISTRY[name] = op
    return op


def get(name):
    """The OpDef registered under `name`.

    Raises:
      KeyError: with the op name, if no op of that name exists.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError("no op named %r is registered" % name) from None


def set_gradient(name, grad):
    """Sets (or replaces) the gradient function of a registered op."""
    get(name).grad = grad
    return grad


def set_lowering(name, lower):
    """Sets (or replaces) the JAX lowering rule of a registered op (see the
    module docstring); returns `lower`, so it can decorate the rule."""
    get(name).lower = lower
    return lower

"""`tf.RegisterGradient` and `tf.no_gradient`: gradients registered by op type.

rillflow keeps an op's gradient on its OpDef (`op_registry`), so a name that
is an op type is registered there; TensorFlow's registry also takes names that
are no op type, which `Graph.gradient_override_map` maps op types to, so those
are kept here. As in TensorFlow, each name is registered once: registering a
name again (or an op type that has its gradient already) raises KeyError
naming the previous registration.
"""
import traceback

from . import op_registry
from .api_export import export

__all__ = ["RegisterGradient", "no_gradient", "lookup", "override_name"]

# {name: (gradient function or None, "function file:line" of the registration)}
_REGISTRY = {}


def _no_gradient(op, *grads):
    """The gradient of an op registered with `no_gradient`: None for every input."""
    return [None] * len(op.inputs)


def _location_of(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return "%s UNKNOWN:0" % getattr(fn, "__name__", fn)
    return "%s %s:%d" % (code.co_name, code.co_filename, code.co_firstlineno)


def _register(fn, name):
    if name in _REGISTRY:
        previous = _REGISTRY[name][1]
    else:
        opdef = op_registry.REGISTRY.get(name)
        previous = None if opdef is None or opdef.grad is None else _location_of(opdef.grad)
    if previous is not None:
        raise KeyError("Registering two gradient with name '%s'! (Previous registration "
                       "was in %s)" % (name, previous))
    # The user's frame: [..., user code, RegisterGradient.__call__ / no_gradient, _register].
    frame = traceback.extract_stack(limit=3)[0]
    _REGISTRY[name] = (fn, "%s %s:%d" % (frame.name, frame.filename, frame.lineno))
    opdef = op_registry.REGISTRY.get(name)
    if opdef is not None:
        opdef.grad = _no_gradient if fn is None else fn


@export("RegisterGradient")
class RegisterGradient:
    """A decorator registering the gradient function of an op type.

    For an op with `m` inputs and `n` outputs the function takes the
    `Operation` and `n` output gradients and returns `m` input gradients
    (None where there is none):

        @tf.RegisterGradient("MyOpGrad")
        def _my_grad(op, grad):
            return grad * 2.0

    The name may be an op type without a gradient, or a new name that
    `Graph.gradient_override_map` maps op types to.

    Raises:
      TypeError: if `op_type` is not a string.
      KeyError (when applied): if the name has a gradient already.
    """

    __slots__ = ["_op_type"]

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        """Registers `f` as the gradient function of the op type; returns `f`."""
        _register(f, self._op_type)
        return f


@export("no_gradient")
def no_gradient(op_type):
    """Declares ops of type `op_type` not differentiable: their inputs get no
    gradient (None), and gradients stop there without an error.

    Raises:
      TypeError: if `op_type` is not a string.
      KeyError: if the op type has a gradient already.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _register(None, op_type)


def lookup(name):
    """The gradient function registered under `name` (an override name).

    Raises:
      LookupError: if nothing is registered under `name`, as TensorFlow's.
    """
    if name in _REGISTRY:
        fn = _REGISTRY[name][0]
        return _no_gradient if fn is None else fn
    opdef = op_registry.REGISTRY.get(name)
    if opdef is not None and opdef.grad is not None:
        return opdef.grad
    raise LookupError("gradient registry has no entry for: %s" % name)


def override_name(op):
    """The gradient name `Graph.gradient_override_map` gave graph op `op`, or
    None where it gave none."""
    overrides = getattr(getattr(op, "graph", None), "_gradient_overrides", None)
    return overrides.get(op.name) if overrides else None

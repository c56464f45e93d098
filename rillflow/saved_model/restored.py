"""The objects `tf.saved_model.load` returns: user objects with the saved
attributes, functions that dispatch among their saved traces, and the
signature map. They hold restored ConcreteFunctions and Variables only;
no code of the program that saved them."""
import collections.abc
import inspect

from ..framework import errors
from ..framework.tensor import EagerTensor, Tensor
from ..function.concrete_function import ConcreteFunction
from ..function.function_type import FunctionType, split_bound

__all__ = ["UserObject", "CallableUserObject", "RestoredFunction", "SignatureMap", "SignatureFunction"]


class UserObject:
    """A restored `tf.Module` (or other tracked object): its saved
    variables, functions and sub-objects as attributes."""

    def __repr__(self):
        return "<%s.%s object at 0x%x>" % (type(self).__module__, type(self).__qualname__,
                                            id(self))


class CallableUserObject(UserObject):
    """A restored object that had a `__call__` tf.function: calling it calls
    that function, as calling the original did."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["__call__"](*args, **kwargs)


class SignatureMap(collections.abc.Mapping):
    """`loaded.signatures`: signature key -> ConcreteFunction taking keyword
    arguments and returning a dict of named outputs."""

    def __init__(self, signatures=None):
        self._signatures = dict(signatures or {})

    def __getitem__(self, key):
        return self._signatures[key]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return "_SignatureMap(%r)" % (self._signatures,)


class SignatureFunction(ConcreteFunction):
    """A restored signature: its tensor arguments are keyword-only, in its
    flat signature too (TensorFlow: `f(x, y) takes 0 positional arguments`),
    except the one input of a single-input signature, which may be passed
    positionally (TensorFlow's canonicalize_signatures: one input has an
    unambiguous order; Keras' exported `serve` is called so)."""

    def _bind_flat(self, args, kwargs):
        allowed = 1 if len(self._arg_keywords()) == 1 else 0
        if len(args) > allowed:
            raise TypeError(f"{self._flat_signature_summary()} takes {allowed} positional "
                            f"arguments, got {len(args)}.")
        return super()._bind_flat(args, kwargs)


class _Parameters:
    """A callable standing for the saved Python signature (for FunctionType,
    which reads `inspect.signature`)."""

    def __init__(self, signature):
        self.__signature__ = signature

    def __call__(self, *args, **kwargs):  # pragma: no cover - never called
        raise TypeError("not callable")


class RestoredFunction:
    """A `tf.function` restored from a SavedModel: calls the first saved
    ConcreteFunction whose input signature the arguments match.

    Args:
      name: the function's name.
      concrete_functions: the restored ConcreteFunctions, in saved order.
      signature: the Python signature (`inspect.Signature`, defaults
        included) of the saved function, or None.
      input_signature: the saved `input_signature`, or None.
    """

    def __init__(self, name, concrete_functions, signature, input_signature):
        self.__name__ = name
        self._concrete = list(concrete_functions)
        self._signature = signature
        self._input_signature = input_signature
        self._ftype = None
        self._fast = {}  # (dtype, shape) of each argument -> the trace they select
        if input_signature is not None and signature is not None:
            try:
                self._ftype = FunctionType(_Parameters(signature), input_signature)
            except TypeError:
                self._ftype = None

    __doc__ = "Calls a restored function or raises an error if no matching function."

    @property
    def concrete_functions(self):
        """The saved ConcreteFunctions."""
        return list(self._concrete)

    @property
    def input_signature(self):
        """The saved input_signature, or None."""
        return self._input_signature

    def _list_all_concrete_functions(self):
        return list(self._concrete)

    def __call__(self, *args, **kwargs):
        """Calls the saved trace matching the arguments.

        Raises:
          TypeError: when the function has an input_signature the arguments
            do not fit (as a tf.function with that signature raises).
          ValueError: when no saved trace matches.
        """
        key = None
        if not kwargs and all(a.__class__ is EagerTensor for a in args):
            # The common call, eager tensors only: one dict lookup (as
            # tf.function's fast path) instead of binding every time.
            key = tuple((a._v.dtype, a._v.shape) for a in args)
            cf = self._fast.get(key)
            if cf is not None:
                return cf._call_flat(list(args))
        if not self._concrete:
            raise ValueError("Found zero restored functions for caller function.")
        if self._ftype is not None:
            self._ftype.bind(args, kwargs)  # TensorFlow's binding error
        pos, kw = self._canonicalize(args, kwargs)
        if pos is not None:
            for cf in self._concrete:
                try:
                    flat = cf._bind(pos, kw)
                except (TypeError, ValueError, errors.OpError):
                    continue
                if key is not None and len(flat) == len(args) and all(
                        f is a for f, a in zip(flat, args)):
                    self._fast[key] = cf
                return cf._call_flat(flat)
        raise ValueError(self._no_match_message(args if pos is None else pos,
                                                kwargs if pos is None else kw))

    def get_concrete_function(self, *args, **kwargs):
        """The saved ConcreteFunction for these arguments (tensors or
        TensorSpecs); with an input_signature and no arguments, its trace.

        Raises:
          ValueError: when no saved trace matches.
        """
        if not args and not kwargs and (self._input_signature is not None or
                                        len(self._concrete) == 1) and self._concrete:
            return self._concrete[0]
        pos, kw = self._canonicalize(args, kwargs)
        if pos is not None:
            for cf in self._concrete:
                try:
                    cf._function_type().bind(pos, kw, specs_ok=True)
                except TypeError:
                    continue
                return cf
        raise ValueError(self._no_match_message(args if pos is None else pos,
                                                kwargs if pos is None else kw))

    def _canonicalize(self, args, kwargs):
        """(positional values, keyword-only values) with defaults applied, as
        the saved traces were keyed; (None, None) when the call does not fit
        the saved Python signature."""
        sig = self._signature
        if sig is None:
            return tuple(args), dict(kwargs)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return None, None
        given = set(bound.arguments)
        bound.apply_defaults()
        pos, kw = split_bound(sig, bound.arguments)
        if self._input_signature is not None and len(pos) > len(self._input_signature):
            # With an input_signature the traces take only its arguments; the
            # parameters after it keep their defaults (passing them is an error).
            names = list(sig.parameters)[len(self._input_signature):len(pos)]
            if any(n in given for n in names):
                return None, None
            pos = pos[:len(self._input_signature)]
        return pos, kw

    def _no_match_message(self, pos, kw):
        """TensorFlow's message listing the call and each saved option."""
        names = list(self._signature.parameters) if self._signature is not None else []
        got = [_got_text(v, names[i] if i < len(names) else "args_%d" % i)
               for i, v in enumerate(pos)]
        lines = ["Could not find matching concrete function to call loaded from the "
                 "SavedModel. Got:"]
        lines += _arguments_text(got, kw)
        lines.append("")
        lines.append(" Expected these arguments to match one of the following %d option(s):"
                     % len(self._concrete))
        for i, cf in enumerate(self._concrete, 1):
            args, kwargs = cf.structured_input_signature
            lines.append("")
            lines.append("Option %d:" % i)
            lines += _arguments_text([repr(a) for a in args], kwargs)
        return "\n".join(lines)

    def __repr__(self):
        return "<%s.RestoredFunction object at 0x%x>" % (__name__, id(self))


def _got_text(v, name):
    # TensorFlow prints the arguments as its tracing placeholders see them.
    if isinstance(v, Tensor) and not hasattr(v, "op"):
        return "<tf.Tensor '%s:0' shape=%s dtype=%s>" % (name, v.shape, v.dtype.name)
    return repr(v)


def _arguments_text(pos_texts, kw):
    return ["  Positional arguments (%d total):" % len(pos_texts)] + \
        ["    * %s" % t for t in pos_texts] + ["  Keyword arguments: %r" % (kw,)]


def python_signature(params):
    """An inspect.Signature of saved `(name, kind, default)` parameters
    (`default` is `inspect.Parameter.empty` when there is none)."""
    return inspect.Signature([inspect.Parameter(n, getattr(inspect.Parameter, k), default=d)
                              for n, k, d in params])

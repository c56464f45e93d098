"""The bindable signature of a `tf.function` (TensorFlow's FunctionType).

Binding a call checks it against the Python signature and, with an
`input_signature`, casts each argument to its spec. Errors read as
TensorFlow's do: "Binding inputs to tf.function failed due to `...`.
Received args: ... and kwargs: ... for signature: (...)."
"""
import collections.abc
import inspect

from ..framework import core_types
from ..framework.convert import convert_to_tensor
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec

__all__ = ["FunctionType", "type_str"]


class _CapturedDefault:
    """Stands for a default value in a printed signature, as in TensorFlow."""

    def __repr__(self):
        return "<captured_default_value>"

    __str__ = __repr__


CAPTURED_DEFAULT_VALUE = _CapturedDefault()


def type_str(v):
    """TensorFlow's TraceType spelling of a (possibly nested) argument or spec:
    `TensorSpec(...)`, `List[...]`, `Tuple[...]`, `Dict[[k, ...]]`, the
    namedtuple's `Name[['field', ...]]`, `Literal[value]`."""
    if isinstance(v, TensorSpec):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (v.shape, v.dtype, v.name)
    if isinstance(v, Tensor) and hasattr(v, "op"):
        return "TensorSpec(shape=%s, dtype=%r, name=None)" % (v.shape, v.dtype)
    spec = getattr(v, "_arg_spec", None)
    if spec is not None:
        return repr(spec)
    if type(v).__name__ == "VariableSpec" or isinstance(v, Tensor):
        return repr(v)
    if isinstance(v, dict):
        return "Dict[%s]" % ", ".join("[%r, %s]" % (k, type_str(v[k])) for k in v)
    if isinstance(v, list):
        return "List[%s]" % ", ".join(type_str(x) for x in v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return "%s[%s]" % (type(v).__name__, ", ".join(
            "[%r, %s]" % (f, type_str(x)) for f, x in zip(v._fields, v)))
    if isinstance(v, tuple):
        return "Tuple[%s]" % ", ".join(type_str(x) for x in v)
    return "Literal[%r]" % (v,)


def split_bound(sig, arguments):
    """Bound `arguments` (name -> value) of `sig` as (positional values,
    keyword-only values): the form traces are keyed by. Keywords are sorted,
    so that their order in a call does not select a different trace."""
    pos, kw = [], {}
    for p in sig.parameters.values():
        if p.name not in arguments:
            continue
        v = arguments[p.name]
        if p.kind is p.VAR_POSITIONAL:
            pos.extend(v)
        elif p.kind is p.VAR_KEYWORD:
            kw.update(v)
        elif p.kind is p.KEYWORD_ONLY:
            kw[p.name] = v
        else:
            pos.append(v)
    return tuple(pos), dict(sorted(kw.items()))


class _Constraint:
    """The type constraint of one parameter: a (nested) input_signature entry,
    or the default value of a parameter the input_signature does not cover."""

    def __init__(self, spec, literal=False):
        self.spec = spec
        self.literal = literal

    def __repr__(self):
        return type_str(self.spec)

    def cast(self, value, specs_ok):
        """`value` converted to match the constraint; raises on mismatch."""
        if self.literal:
            if not _equal(value, self.spec):
                raise ValueError("Can not cast %r to %s" % (value, self))
            return value
        return _cast(self.spec, value, specs_ok)


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _cast(spec, value, specs_ok):
    if isinstance(spec, TensorSpec):
        if isinstance(value, TensorSpec):
            if not specs_ok:
                raise TypeError("TensorSpec passed as a value: %r" % (value,))
            if value.dtype is not spec.dtype or not spec.shape.is_compatible_with(value.shape):
                raise TypeError("Can not cast %s to %s" % (
                    type_str(TensorSpec(value.shape, value.dtype, spec.name)), type_str(spec)))
            return spec
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=spec.dtype)
        if t.dtype is not spec.dtype or not spec.shape.is_compatible_with(t.shape):
            # As TensorFlow: the value's spec takes the constraint's name.
            raise TypeError("Can not cast %s to %s" % (
                type_str(TensorSpec(t.shape, t.dtype, spec.name)), type_str(spec)))
        return t
    if isinstance(spec, list):
        if not isinstance(value, list):
            raise TypeError("Can not cast %r to list type." % (value,))
        if len(value) != len(spec):
            # TensorFlow's own message for this case (its length check fails).
            raise TypeError("object of type 'Tuple' has no len()")
        return [_cast(s, v, specs_ok) for s, v in zip(spec, value)]
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        if type(value) is not type(spec):
            raise TypeError("Can not cast %r to type %s." % (value, type_str(spec)))
        return type(spec)(*[_cast(s, v, specs_ok) for s, v in zip(spec, value)])
    if isinstance(spec, tuple):
        if not isinstance(value, tuple):
            raise TypeError("Can not cast %r to tuple type." % (value,))
        if len(value) != len(spec):
            raise TypeError("Expected %s to have length of %d" % (value, len(spec)))
        return tuple(_cast(s, v, specs_ok) for s, v in zip(spec, value))
    if isinstance(spec, dict):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError("Can not cast %r to a Dict type." % (value,))
        if set(value) != set(spec):
            raise TypeError("%r has different keys with the TraceType %s." %
                            (value, type_str(spec)))
        return {k: _cast(spec[k], value[k], specs_ok) for k in spec}
    if type(spec).__name__.endswith("Spec"):  # a variable's, dataset's or composite's spec
        check = getattr(spec, "_check_value", None)
        if check is not None:
            check(value, specs_ok)
        return value
    if not _equal(value, spec):
        raise ValueError("Can not cast %r to %s" % (value, type_str(spec)))
    return value


class Parameter(inspect.Parameter):
    """A parameter of a FunctionType, printed as TensorFlow prints one:
    `Parameter(name=a, kind=POSITIONAL_OR_KEYWORD, optional=False,
    type_constraint=TensorSpec(...))`."""

    __slots__ = ()

    @property
    def optional(self):
        """Whether the parameter has a default value."""
        return self.default is not self.empty

    @property
    def type_constraint(self):
        """The trace type the parameter is constrained to, or None."""
        a = self.annotation
        return a.spec if isinstance(a, _Constraint) else None

    def __repr__(self):
        c = self.type_constraint
        return "Parameter(name=%s, kind=%s, optional=%s, type_constraint=%s)" % (
            self.name, self.kind.name, self.optional, "None" if c is None else type_str(c))


class FunctionType(core_types.FunctionType):
    """The parameters of a Function, with input_signature constraints (an
    `inspect.Signature`, as TensorFlow's FunctionType is).

    `str()` is TensorFlow's: `(x, y=<captured_default_value>)`, or with an
    input_signature `(x: TensorSpec(...), b: Literal[2] = <captured_default_value>)`;
    a ConcreteFunction's adds ` -> <output type>`, and its `repr()` is the
    `Input Parameters: ... Output Type: ... Captures: ...` listing.
    """

    def __init__(self, python_function, input_signature):
        try:
            sig = inspect.signature(python_function)
        except (TypeError, ValueError):
            sig = None
        self.defaults = {}
        self.constraints = {}
        # How many leading positional values the input_signature covers.
        self.num_constrained = 0
        if sig is None:
            self.signature = None
            inspect.Signature.__init__(self)
            return
        params = []
        for p in sig.parameters.values():
            if p.default is not p.empty:
                self.defaults[p.name] = p.default
        specs = list(input_signature) if input_signature is not None else None
        has_var_pos = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())
        for p in sig.parameters.values():
            default = p.empty if p.default is p.empty else CAPTURED_DEFAULT_VALUE
            if specs is None:
                params.append(p.replace(default=default, annotation=p.empty))
                continue
            kind = p.POSITIONAL_ONLY if has_var_pos and p.kind is p.POSITIONAL_OR_KEYWORD \
                else p.kind
            if p.name == "self":
                # As in TensorFlow: a method's `self` takes no constraint.
                params.append(p.replace(kind=kind, default=default, annotation=p.empty))
                continue
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.kind is p.VAR_POSITIONAL:
                i = 0
                while specs:
                    name = "%s_%d" % (p.name, i)
                    i += 1
                    c = _Constraint(specs.pop(0))
                    params.append(inspect.Parameter(name, p.POSITIONAL_ONLY, annotation=c))
                    self.constraints[name] = c
                    self.num_constrained += 1
                continue
            if specs:
                c = _Constraint(specs.pop(0))
                self.num_constrained += 1
            elif p.name in self.defaults:
                c = _Constraint(self.defaults[p.name], literal=True)
            else:
                raise TypeError("input_signature missing type constraint for %s" % p.name)
            self.constraints[p.name] = c
            params.append(inspect.Parameter(p.name, kind, default=default, annotation=c))
        self.signature = inspect.Signature(params)
        inspect.Signature.__init__(self, [Parameter(p.name, p.kind, default=p.default,
                                                    annotation=p.annotation) for p in params])

    @classmethod
    def from_parameters(cls, parameters, output=None, captures=None):
        """A FunctionType of given inspect.Parameters (annotated with
        constraints), printed with `-> output` when given; `captures` is a
        list of (id, type string) for `repr()`."""
        self = cls.__new__(cls)
        self.defaults = {}
        self.constraints = {p.name: p.annotation for p in parameters}
        self.num_constrained = len(parameters)
        self.signature = inspect.Signature(parameters)
        inspect.Signature.__init__(self, [Parameter(p.name, p.kind, default=p.default,
                                                    annotation=p.annotation)
                                          for p in parameters])
        self.output = output
        self.captures = list(captures or [])
        return self

    output = None
    captures = ()

    def __str__(self):
        s = str(self.signature) if self.signature is not None else "(*args, **kwargs)"
        return s if self.output is None else "%s -> %s" % (s, self.output)

    def __repr__(self):
        return self.pretty_printed()

    def pretty_printed(self):
        """TensorFlow's listing of the parameters, output type and captures."""
        lines = ["Input Parameters:"]
        for p in self.parameters.values():
            lines.append("  %s (%s): %s" % (p.name, p.kind.name,
                                            "None" if p.annotation is p.empty else p.annotation))
        lines += ["Output Type:", "  " + str(self.output), "Captures:"]
        if not self.captures:
            lines.append("  None")
        for ident, text in self.captures:
            lines.append("  %d: %s" % (ident, text))
        return "\n".join(lines)

    def bind(self, args, kwargs, specs_ok=False):
        """The bound arguments (defaults applied, constraints cast), in
        parameter order, as an ordered dict name -> value.

        Raises:
          TypeError: in TensorFlow's words, when the call does not fit.
        """
        try:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            out = {}
            for name, value in bound.arguments.items():
                if value is CAPTURED_DEFAULT_VALUE:
                    value = self.defaults[name]
                c = self.constraints.get(name)
                out[name] = c.cast(value, specs_ok) if c is not None else value
        except Exception as e:
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Received "
                            f"args: {tuple(args)} and kwargs: {dict(kwargs)} for signature: "
                            f"{self}.") from e
        return out


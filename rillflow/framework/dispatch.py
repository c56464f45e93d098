"""Type-based dispatch: running another implementation of a public `tf.*`
function when it is called with arguments of a registered type
(`tf.experimental.dispatch_for_api` and friends; TensorFlow's "dispatch v2").

Guide for a composite type (RaggedTensor, SparseTensor, an ExtensionType):
to make `tf.X` work on values of type `T`, register an implementation for
the function object that `@export` published as `tf.X`:

    from rillflow.framework import dispatch
    from rillflow.ops.core import math_ops

    def _ragged_add(x, y, name=None):          # same parameters as tf.math.add
        ...
    dispatch.register(math_ops.add, {"x": RaggedTensor}, _ragged_add)
    dispatch.register(math_ops.add, {"y": RaggedTensor}, _ragged_add)

or, for every elementwise op at once (the lists in `elementwise_apis.py`,
TensorFlow's), a handler taking the op and the operands:

    dispatch.register_unary_elementwise(RaggedTensor, handler)   # handler(api_func, x)
    dispatch.register_binary_elementwise(
        Union[RaggedTensor, Tensor], Union[RaggedTensor, Tensor],
        handler)                                                 # handler(api_func, x, y)

A signature maps parameter names to a type, `typing.Union[...]`,
`typing.Optional[...]` or `typing.List[...]`; an implementation runs when
every named argument matches and at least one matching argument is not a
plain tensor (calls with tensors only never dispatch, as in TensorFlow).
Two implementations that match one call raise ValueError. Registering from
an op family's module at import time is fine: the public namespaces are
built after every op module is imported, and they pick up the wrappers.

How the hook stays free for plain calls: nothing is wrapped until an API
gets its first registration. Then the function is replaced by a wrapper
under every name the export table gives it (`EXPORTS`, and the namespace
modules when they already exist); the wrapper looks at the class of each
argument (one level into lists and tuples) through a per-wrapper cache of
"is this class dispatchable here", and calls the original function at once
when none is. Unregistering the last implementation puts the original back.
Internal callers that call the op module's function directly (not the
`tf.*` name) never dispatch; composites call their component ops that way.
"""
import functools
import inspect
import sys
import typing

from .api_export import EXPORTS, export
from .elementwise_apis import apis as _elementwise_apis
from .tensor import Tensor

__all__ = ["register", "unregister", "register_dispatchable_type", "register_unary_elementwise",
           "register_binary_elementwise", "public_function", "dispatch_target_of"]

_PACKAGE = __name__.split(".")[0]
_DISPATCHERS = {}       # original function -> _Dispatcher
_WRAPPER_OF = {}        # original function -> the wrapper published for it
_ORIGINAL_OF = {}       # wrapper -> original function
_TARGETS = {}           # registered implementation -> list of (original, entry)
_ELEMENTWISE = []       # (kind, types, handler): also applied to APIs exported later
_DISPATCHABLE = set()   # classes registered with register_dispatchable_type


class _Check:
    """Whether one argument matches a type annotation; `dispatchable` says
    whether a match proves a non-tensor was passed."""

    __slots__ = ("types", "list_of", "options")

    def __init__(self, types=(), list_of=None, options=None):
        self.types = types          # a tuple of classes (isinstance)
        self.list_of = list_of      # a _Check for each item of a list
        self.options = options      # Union: a list of _Check

    def match(self, value):
        """(matches, saw a value of a dispatchable type)."""
        if self.options is not None:
            for o in self.options:
                ok, special = o.match(value)
                if ok:
                    return True, special
            return False, False
        if self.list_of is not None:
            if not isinstance(value, (list, tuple)):
                return False, False
            special = False
            for v in value:
                ok, s = self.list_of.match(v)
                if not ok:
                    return False, False
                special = special or s
            return True, special
        if isinstance(value, self.types):
            return True, _is_dispatchable(value.__class__)
        return False, False

    def classes(self):
        """Every class this check can match (for the wrapper's quick test)."""
        if self.options is not None:
            return [c for o in self.options for c in o.classes()]
        if self.list_of is not None:
            return self.list_of.classes()
        return list(self.types)


def _unsupported(annotation):
    return ValueError(f"Type annotation {annotation} is not currently supported by dispatch.  "
                      "Supported annotations: type objects,  List[...], and Union[...]")


def make_check(annotation):
    """The _Check of a type annotation (a class, Union, Optional, List).

    Raises:
      ValueError: for other annotations, with TensorFlow's message.
    """
    if annotation is None:
        return _Check((type(None),))
    if isinstance(annotation, type):
        return _Check((annotation,))
    origin = typing.get_origin(annotation)
    if origin is typing.Union or (origin is not None and
                                  getattr(origin, "__name__", "") == "UnionType"):
        return _Check(options=[make_check(a) for a in typing.get_args(annotation)])
    if origin in (list, typing.List):
        args = typing.get_args(annotation)
        if len(args) != 1:
            raise _unsupported(annotation)
        return _Check(list_of=make_check(args[0]))
    raise _unsupported(annotation)


class _Entry:
    """One registered implementation: its parameter checks and target."""

    __slots__ = ("checks", "target")

    def __init__(self, checks, target):
        self.checks = checks        # {parameter name: _Check}
        self.target = target


class _Dispatcher:
    """The implementations registered for one API function."""

    def __init__(self, api):
        self.api = api
        self.signature = inspect.signature(api)
        self.entries = []
        self.trigger = ()           # classes whose instances may dispatch
        self.cache = {}             # class -> whether its instances may dispatch
        self.plain = set()          # classes seen not to dispatch (the wrapper's fast test)

    def refresh(self):
        classes = {c for e in self.entries for ch in e.checks.values() for c in ch.classes()}
        # Only instances of dispatchable types (composites, registered
        # types) make a call dispatch, so only they leave the fast path.
        self.trigger = tuple(classes)
        self.cache = {}
        self.plain.clear()  # the same set object: the wrapper's code holds it

    def checked_params(self):
        """The parameter names some signature checks."""
        return frozenset(n for e in self.entries for n in e.checks)

    def may_dispatch(self, value):
        cls = value.__class__
        hit = self.cache.get(cls)
        if hit is None:
            hit = self.cache[cls] = issubclass(cls, self.trigger) and _is_dispatchable(cls)
        if hit:
            return True
        if cls is list or cls is tuple:
            for v in value:
                if self.may_dispatch(v):
                    return True
        return False

    def dispatch(self, args, kwargs):
        """The result of the one matching implementation, or NotImplemented."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return NotImplemented   # the API itself reports bad arguments
        found = None
        for e in self.entries:
            special = False
            for pname, check in e.checks.items():
                if pname not in bound.arguments:
                    break
                ok, s = check.match(bound.arguments[pname])
                if not ok:
                    break
                special = special or s
            else:
                if special:
                    if found is not None:
                        raise ValueError(
                            "Multiple dispatch targets that were registered with "
                            f"tf.dispatch_for ({found.target} and {e.target}) match "
                            f"the arguments to {self.api.__name__}")
                    found = e
        if found is None:
            return NotImplemented
        return found.target(*args, **kwargs)


def _slow_call(api, dispatcher):
    """The wrapper's path for calls with an argument of a class not yet known
    to be plain: dispatch, or call `api`."""
    may = dispatcher.may_dispatch

    def slow(*args, **kwargs):
        hit = False
        for a in (*args, *kwargs.values()):
            if may(a):
                hit = True
            elif a.__class__ is not list and a.__class__ is not tuple:
                dispatcher.plain.add(a.__class__)
        if hit:
            result = dispatcher.dispatch(args, kwargs)
            if result is not NotImplemented:
                return result
        return api(*args, **kwargs)
    return slow


_P = inspect.Parameter


def _make_wrapper(api, dispatcher):
    """The function published as `tf.X` while `api` has registrations.

    It is generated with `api`'s own parameters, so a call costs one frame
    and a set lookup per checked parameter: the class of each argument that
    some signature names is looked up in `dispatcher.plain` (classes seen
    not to dispatch); any other class takes the slow path, which dispatches
    or adds the class to the set. APIs with *args/**kwargs get a generic
    wrapper."""
    slow = _slow_call(api, dispatcher)
    params = list(inspect.signature(api).parameters.values())
    checked = dispatcher.checked_params()
    if any(p.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD, _P.POSITIONAL_ONLY) for p in params):
        wrapper = functools.wraps(api)(lambda *args, **kwargs: slow(*args, **kwargs))
    else:
        ns = {"_api": api, "_plain": dispatcher.plain, "_slow": slow}
        defs, call, star = [], [], False
        for i, p in enumerate(params):
            if p.kind is _P.KEYWORD_ONLY and not star:
                defs.append("*")
                star = True
            if p.default is _P.empty:
                defs.append(p.name)
            else:
                ns["_d%d" % i] = p.default
                defs.append("%s=_d%d" % (p.name, i))
            call.append(p.name if p.kind is _P.POSITIONAL_OR_KEYWORD else
                        "%s=%s" % (p.name, p.name))
        test = " or ".join("%s.__class__ not in _plain" % p.name for p in params
                           if p.name in checked) or "False"
        src = ("def wrapper(%s):\n    if %s:\n        return _slow(%s)\n"
               "    return _api(%s)\n" % (", ".join(defs), test, ", ".join(call), ", ".join(call)))
        exec(compile(src, "<rillflow dispatch wrapper of %s>" % api.__name__, "exec"), ns)
        wrapper = functools.wraps(api)(ns["wrapper"])
    wrapper._tf_dispatch_target = api
    wrapper._tf_checked = checked
    return wrapper


def _publish(old, new):
    """Puts `new` wherever the export table (and a built namespace) has `old`."""
    for name, obj in list(EXPORTS.items()):
        if obj is not old:
            continue
        EXPORTS[name] = new
        ns, _, leaf = name.rpartition(".")
        mod = sys.modules.get(_PACKAGE + "." + ns if ns else _PACKAGE)
        if mod is not None and getattr(mod, leaf, None) is old:
            setattr(mod, leaf, new)


def _is_exported(fn):
    return any(obj is fn for obj in EXPORTS.values())


def dispatch_target_of(api):
    """The original function behind a public name (itself when not wrapped)."""
    return _ORIGINAL_OF.get(api, api)


def public_function(api):
    """What `tf.X` currently is for the function `api` (its wrapper, if any)."""
    api = dispatch_target_of(api)
    return _WRAPPER_OF.get(api, api)


def _resolve_api(api):
    original = _ORIGINAL_OF.get(api, api)
    if not callable(original) or isinstance(original, type) or not (
            original in _WRAPPER_OF or _is_exported(original)):
        raise ValueError(f"{api} does not support dispatch.")
    return original


def _strip(sig):
    return sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty)
                                   for p in sig.parameters.values()],
                       return_annotation=inspect.Signature.empty)


def _same_parameters(a, b):
    """TensorFlow's test of a target's signature: the same parameter names
    and kinds, in order (defaults and annotations may differ)."""
    pa, pb = list(a.parameters.values()), list(b.parameters.values())
    return len(pa) == len(pb) and all(x.name == y.name and x.kind == y.kind
                                      for x, y in zip(pa, pb))


def _add_name_parameter(target, api_sig):
    """`target` taking the API's `name` argument too when it lacks one
    (TensorFlow's `_add_name_scope_wrapper`, so `def f(values, axis=0)`
    may implement `tf.stack(values, axis=0, name='stack')`). The name is
    dropped: it would only name the ops of a graph."""
    if "name" not in api_sig.parameters:
        return target
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return target
    if "name" in sig.parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD
                                       for p in sig.parameters.values()):
        return target
    index = list(api_sig.parameters).index("name")

    @functools.wraps(target)
    def with_name(*args, **kwargs):
        if index < len(args):
            args = args[:index] + args[index + 1:]
        else:
            kwargs.pop("name", None)
        return target(*args, **kwargs)
    with_name.__signature__ = sig.replace(
        parameters=list(sig.parameters.values()) + [api_sig.parameters["name"]])
    return with_name


def _signatures_of(target, signatures):
    if signatures:
        return list(signatures)
    sig = inspect.signature(target)
    ann = {n: p.annotation for n, p in sig.parameters.items()
           if p.annotation is not inspect.Parameter.empty}
    if not ann:
        raise ValueError("The dispatch_for_api decorator must be called with at least one "
                         "signature, or applied to a function that has type annotations on "
                         "its parameters.")
    return [ann]


def register_dispatchable_type(cls):
    """Makes instances of `cls` (and its subclasses) dispatchable: a call
    dispatches only when an argument matching a signature is of a
    dispatchable type. Composite tensors (classes with `_is_composite_tensor`)
    are dispatchable without this, as TensorFlow's CompositeTensors are."""
    _DISPATCHABLE.add(cls)
    for d in _DISPATCHERS.values():
        d.cache = {}
    return cls


def _is_dispatchable(cls):
    return getattr(cls, "_is_composite_tensor", False) or any(
        issubclass(cls, c) for c in _DISPATCHABLE)


def _checks_for(api_sig, signature):
    checks = {}
    for pname, annotation in signature.items():
        if pname not in api_sig.parameters:
            raise ValueError(f"signature includes annotation for unknown parameter {pname!r}.")
        checks[pname] = make_check(annotation)
    return checks


def register(api, signature, target, check_target_signature=True):
    """Registers `target` as the implementation of the public function `api`
    for calls whose arguments match `signature` ({parameter: type annotation}).

    Raises:
      ValueError: if `api` is not a public function, names an unknown
        parameter, or `target`'s parameters differ from `api`'s.
    """
    original = _resolve_api(api)
    api_sig = inspect.signature(original)
    if check_target_signature:
        try:
            target_sig = inspect.signature(target)
        except (TypeError, ValueError):
            target_sig = None
        if target_sig is not None and not _same_parameters(target_sig, api_sig):
            raise ValueError(f"Dispatch function's signature {target_sig} does not "
                             f"match API's signature {_strip(api_sig)}.")
    checks = _checks_for(api_sig, signature)
    dispatcher = _DISPATCHERS.get(original)
    if dispatcher is None:
        dispatcher = _DISPATCHERS[original] = _Dispatcher(original)
    entry = _Entry(checks, target)
    dispatcher.entries.append(entry)
    dispatcher.refresh()
    _TARGETS.setdefault(target, []).append((original, entry))
    _install(original, dispatcher)
    return target


def _install(original, dispatcher):
    """Publishes a wrapper checking the parameters the signatures name
    (a new one when that set changed)."""
    old = _WRAPPER_OF.get(original)
    if old is not None and old._tf_checked == dispatcher.checked_params():
        return
    wrapper = _make_wrapper(original, dispatcher)
    _WRAPPER_OF[original] = wrapper
    _ORIGINAL_OF[wrapper] = original
    if old is not None:
        del _ORIGINAL_OF[old]
    _publish(old if old is not None else original, wrapper)


def unregister(target):
    """Removes every registration of `target` (`tf.experimental.unregister_dispatch_for`);
    an API left without implementations gets its original function back.

    Raises:
      ValueError: if `target` was never registered.
    """
    regs = _TARGETS.pop(target, None)
    found = bool(regs)
    for original, entry in regs or ():
        d = _DISPATCHERS[original]
        d.entries = [e for e in d.entries if e is not entry]
        d.refresh()
        if not d.entries:
            del _DISPATCHERS[original]
            wrapper = _WRAPPER_OF.pop(original)
            del _ORIGINAL_OF[wrapper]
            _publish(wrapper, original)
        else:
            _install(original, d)
    before = len(_ELEMENTWISE)
    _ELEMENTWISE[:] = [e for e in _ELEMENTWISE if e[2] is not target]
    found = found or len(_ELEMENTWISE) != before
    if not found:
        raise ValueError(f"Function {target} was not registered using a `@dispatch_for_*` "
                         "decorator.")


def _elementwise_target(api, kind, handler):
    """The implementation registered on `api` for an elementwise handler:
    binds the API's other arguments so that the handler sees a function of
    the operands only (as TensorFlow does)."""
    params = list(inspect.signature(api).parameters)
    n = 1 if kind == "unary" else 2
    operands = params[:n]
    simple = len(params) == n + 1 and params[n] == "name" or len(params) == n

    def target(*args, **kwargs):
        kwargs = dict(kwargs)
        args = list(args)
        kwargs.pop("name", None)
        if len(args) > len(params) - 1 and params[-1] == "name":
            args = args[:len(params) - 1]
        vals = []
        for p in operands:
            vals.append(args.pop(0) if args else kwargs.pop(p))
        if simple:
            func = api
        else:
            def func(*xs):
                return api(*xs, *args, **kwargs)
        return handler(func, *vals)
    target.__name__ = getattr(handler, "__name__", "handler")
    return target


def _apply_elementwise(kind, types, handler):
    for api in _elementwise_apis(kind):
        sig_params = list(inspect.signature(api).parameters)
        n = 1 if kind == "unary" else 2
        if len(sig_params) < n:
            continue
        done = any(getattr(e.target, "_tf_handler", None) is handler
                   for e in getattr(_DISPATCHERS.get(api), "entries", ()))
        if done:
            continue
        target = _elementwise_target(api, kind, handler)
        target._tf_handler = handler
        register(api, dict(zip(sig_params[:n], types)), target,
                 check_target_signature=False)
        _TARGETS.setdefault(handler, []).extend(_TARGETS.pop(target))


def register_unary_elementwise(x_type, handler):
    """Registers `handler(api_func, x)` for every unary elementwise API
    (`tf.experimental.dispatch_for_unary_elementwise_apis`)."""
    make_check(x_type)
    _ELEMENTWISE.append(("unary", (x_type,), handler))
    _apply_elementwise("unary", (x_type,), handler)
    return handler


def register_binary_elementwise(x_type, y_type, handler):
    """Registers `handler(api_func, x, y)` for every binary elementwise API
    (`tf.experimental.dispatch_for_binary_elementwise_apis`)."""
    make_check(x_type)
    make_check(y_type)
    _ELEMENTWISE.append(("binary", (x_type, y_type), handler))
    _apply_elementwise("binary", (x_type, y_type), handler)
    return handler


def apply_pending():
    """Registers the elementwise handlers on APIs exported after them (called
    when the namespaces are built: a family imported later adds ops)."""
    for kind, types, handler in list(_ELEMENTWISE):
        _apply_elementwise(kind, types, handler)


# -- the public decorators (tf.experimental.*) ---------------------------------

@export("experimental.dispatch_for_api")
def dispatch_for_api(api, *signatures):
    """Decorator: the decorated function (the "dispatch target") replaces the
    public function `api` for calls whose arguments match one of
    `signatures`, each a dict `{parameter name: type annotation}`; with no
    signature, the target's own parameter annotations are the signature.
    Annotations are classes, `Union[...]`, `Optional[...]` and `List[...]`.
    The target must have the same parameters as `api`.

    Raises:
      ValueError: if `api` does not support dispatch, a signature names an
        unknown parameter or uses another kind of annotation, or the
        target's parameters differ from `api`'s.
    """
    original = _resolve_api(api)
    api_sig = inspect.signature(original)
    for sig in signatures:  # checked now, as TensorFlow does
        _checks_for(api_sig, sig)

    def decorator(target):
        if not callable(target):
            raise TypeError(f"Expected dispatch_target to be callable; got {target!r}")
        # As TensorFlow, the decorated name is bound to the wrapper, which
        # is what unregister_dispatch_for receives.
        target = _add_name_parameter(target, api_sig)
        for sig in _signatures_of(target, signatures):
            register(api, sig, target)
        return target
    return decorator


@export("experimental.dispatch_for_unary_elementwise_apis")
def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: registers `handler(api_func, x)` for every unary
    elementwise API (`tf.math.abs`, `tf.cast`, `tf.nn.relu`, ... TensorFlow's
    list) when `x` matches `x_type`; `api_func(v)` runs the API on `v` with
    the call's other arguments."""
    make_check(x_type)

    def decorator(handler):
        return register_unary_elementwise(x_type, handler)
    return decorator


@export("experimental.dispatch_for_binary_elementwise_apis")
def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: registers `handler(api_func, x, y)` for every binary
    elementwise API (`tf.math.add`, `tf.math.maximum`, ... TensorFlow's list)
    when `x` matches `x_type` and `y` matches `y_type`."""
    make_check(x_type)
    make_check(y_type)

    def decorator(handler):
        return register_binary_elementwise(x_type, y_type, handler)
    return decorator


@export("experimental.unregister_dispatch_for")
def unregister_dispatch_for(dispatch_target):
    """Removes every dispatch registration of `dispatch_target` (a function
    given to one of the `dispatch_for_*` decorators).

    Raises:
      ValueError: if it was not registered.
    """
    unregister(dispatch_target)

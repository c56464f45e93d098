"""`tf.Module`: a container of variables and sub-modules with a name scope."""
import contextlib
import functools
import re

from ..framework import context as _context
from ..framework.api_export import export
from .variables import Variable

_state = _context.state
_VALID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_IGNORED = ("_self_unconditional", "_obj_reference_counts")


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


@contextlib.contextmanager
def eager_name_scope(name):
    """Name scope for eager code: variables created inside are named under it."""
    g = _state.graph
    if g is not None:
        with g.name_scope(name) as s:
            yield s
        return
    old = _state.eager_scope
    if name.endswith("/"):
        new = name[:-1]
    else:
        new = old + "/" + name if old else name
    _state.eager_scope = new
    try:
        yield new + "/"
    finally:
        _state.eager_scope = old


@export("name_scope")
def name_scope(name):
    """Context manager: ops (in graphs) and variables created inside are named
    under `name` (`tf.name_scope`). Yields the full scope name ending in '/'."""
    if not isinstance(name, str):
        raise TypeError(f"name for name_scope must be a string, got {name!r}")
    return eager_name_scope(name) if name else contextlib.nullcontext("")


class _ModuleNameScope:
    """A reusable name scope object (`Module.name_scope`)."""

    def __init__(self, scope_name):
        self._scope_name = scope_name
        self._cm = None

    @property
    def name(self):
        """The scope name, ending in '/'."""
        return self._scope_name

    def __enter__(self):
        self._cm = eager_name_scope(self._scope_name)
        return self._cm.__enter__()

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


@export("Module")
class Module:
    """Base class for models and layers: tracks variables and sub-modules.

    Args:
      name: the module's name (default: the class name in snake_case). Must
        be a valid Python identifier.
    """

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name).")
        self._name = name
        scope = _state.eager_scope if _state.graph is None else _state.graph.get_name_scope()
        self._scope_name = (scope + "/" + name if scope else name) + "/"
        self._name_scope = _ModuleNameScope(self._scope_name)

    @property
    def name(self):
        """The module's name."""
        return self._name

    @property
    def name_scope(self):
        """A name scope for the module (`with self.name_scope:`)."""
        return self._name_scope

    @property
    def variables(self):
        """All variables of this module and its sub-modules (deduplicated)."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self):
        """The trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def non_trainable_variables(self):
        """The non-trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(
            predicate=lambda v: isinstance(v, Variable) and not v.trainable))

    @property
    def submodules(self):
        """All modules reachable from this one (not including itself)."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Module)))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        predicate = predicate or (lambda v: True)
        seen = {id(self)}
        out = []
        self._walk(self, (), seen, out, predicate, recursive, with_path)
        return out

    @staticmethod
    def _walk(obj, path, seen, out, predicate, recursive, with_path):
        items = sorted((k, v) for k, v in vars(obj).items()
                       if k not in _IGNORED and not k.startswith("_Module__"))
        for key, value in items:
            Module._visit(value, path + (key,), seen, out, predicate, recursive, with_path)

    @staticmethod
    def _visit(value, path, seen, out, predicate, recursive, with_path):
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                Module._visit(v, path + (i,), seen, out, predicate, recursive, with_path)
            return
        if isinstance(value, dict):
            for k in sorted(value, key=repr):
                Module._visit(value[k], path + (k,), seen, out, predicate, recursive, with_path)
            return
        if id(value) in seen:
            return
        if isinstance(value, (Module, Variable)):
            seen.add(id(value))
            if predicate(value):
                out.append((path, value) if with_path else value)
            if isinstance(value, Module) and recursive:
                Module._walk(value, path, seen, out, predicate, recursive, with_path)

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: runs `method` inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    def __repr__(self):
        return "<%s.%s object at 0x%x>" % (type(self).__module__, type(self).__name__, id(self))

"""`tf.Module`: a container of variables and sub-modules with a name scope."""
import contextlib
import functools
import re

from ...framework import context as _context
from ...framework import nest
from ...framework.api_export import export
from .variables import Variable

_state = _context.state
_VALID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")   # a Python identifier, as TensorFlow
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
class name_scope:  # noqa: N801 -- TensorFlow's name (a class there too)
    """Context manager: ops (in graphs) and variables created inside are named
    under `name` (`tf.name_scope`). Entering yields the full scope name ending
    in '/' (`""` for an empty name). The object can be entered more than once."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._cms = []

    @property
    def name(self):
        """The name given."""
        return self._name

    def __enter__(self):
        cm = eager_name_scope(self._name) if self._name else contextlib.nullcontext("")
        scope = cm.__enter__()
        self._cms.append(cm)
        return scope

    def __exit__(self, *exc):
        return self._cms.pop().__exit__(*exc)


@export("get_current_name_scope")
def get_current_name_scope():
    """The current name scope (`"outer/inner"`; `""` at the top level): of the
    graph being built, or of eager code."""
    g = _state.graph
    return _state.eager_scope if g is None else g.get_name_scope()


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
        """A generator of the objects (or `(path, object)` pairs) reachable from
        this module's attributes that satisfy `predicate`.

        Attributes are visited in sorted order (or by `attribute_traversal_key`),
        each flattened with `tf.nest`; a module's own matches come before those
        of its sub-modules. Without `with_path` each object is yielded once.
        """
        return _flatten_module(self, recursive, predicate or (lambda _: True),
                               attribute_traversal_key, with_path, (), {id(self)}, [])

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


def _flatten_module(module, recursive, predicate, key, with_path, path, seen, stack):
    if id(module) in stack:
        recursive = False   # a cycle: do not walk back into an enclosing module
    submodules = []
    attrs = vars(module)
    for name in sorted(attrs, key=key):
        if name in _IGNORED or name.startswith("_Module__"):
            continue
        value = attrs[name]
        try:
            leaves = nest.flatten_with_tuple_paths(value)
        except Exception as cause:
            raise ValueError(f"Error processing property {name!r} of {value!r}") from cause
        for leaf_path, leaf in leaves:
            leaf_path = path + (name,) + leaf_path
            if not with_path:
                # With paths, an object reachable two ways is reported twice.
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((leaf_path, leaf))
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _flatten_module(sub, recursive, predicate, key, with_path, sub_path, seen,
                                   stack)
    stack.pop()

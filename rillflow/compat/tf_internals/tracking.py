"""TensorFlow's object-tracking base classes, as far as Keras 3 uses them.

TensorFlow's `Trackable` records named dependencies between objects so that
checkpoints can find every variable. Here `Trackable` keeps the dependency
table Keras fills (`_track_trackable`, which also restores a dependency a
`Checkpoint.restore` was waiting for, as TensorFlow's does), and
`AutoTrackable` fills it on attribute assignment with what TensorFlow would
track (Trackables, tf.functions, lists, dicts and tuples holding them)
unless the switch Keras flips is off (`no_automatic_dependency_tracking`).
rillflow's checkpoints and SavedModels (saved_model/checkpoint_graph.py,
saved_objects.py) follow `_trackable_children`, which Keras overrides.
`ListWrapper` and `_DictWrapper` are the container types TensorFlow
substitutes for lists and dicts assigned to an AutoTrackable; Keras only
registers them with its tree utilities, so here they are plain list/dict
subclasses that are never substituted (rillflow tracks the plain list or
dict itself, as TensorFlow tracks its wrapper).
"""
import abc
import functools
import warnings

from rillflow.ops.state.module import Module
from rillflow.ops.state.variables import Variable
from rillflow.function.concrete_function import ConcreteFunction
from rillflow.function.polymorphic_function import Function
from rillflow.saved_model import checkpoint as _checkpoint
from rillflow.saved_model import checkpoint_graph

_FUNCTIONS = (Function, ConcreteFunction)


class Trackable(metaclass=abc.ABCMeta):
    """Base of objects with named checkpoint dependencies
    (`tf.__internal__.tracking.Trackable`). `tf.Variable`, `tf.Module` and
    tf.functions count as Trackables (registered below), as in TensorFlow."""

    def _track_trackable(self, trackable, name, overwrite=False):
        """Records `trackable` as the dependency `name` of self; returns it.
        A new name gets the values a pending checkpoint restore holds for
        it, as in TensorFlow; a replaced one the values its predecessor was
        matched to (TensorFlow restores those through its list wrappers)."""
        deps = self.__dict__.setdefault("_self_unconditional_dependency_names", {})
        current = deps.get(name)
        if current is not None and current is not trackable and not overwrite:
            raise ValueError(f"Called Trackable._track_trackable() with name='{name}', "
                             "but a Trackable with this name is already declared as a "
                             "dependency. Names must be unique (or overwrite=True).")
        deps[name] = trackable
        if current is None:
            _checkpoint._handle_deferred(self, name, trackable)
        elif current is not trackable:
            _checkpoint._handle_replaced(self, name, trackable)
        return trackable

    def _lookup_dependency(self, name, cached_dependencies=None):
        """The dependency recorded as `name`, or None."""
        return self.__dict__.get("_self_unconditional_dependency_names", {}).get(name)

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """{name: dependency} recorded so far (TensorFlow's method, which
        Keras' layers override)."""
        return dict(self.__dict__.get("_self_unconditional_dependency_names", {}))

    @property
    def _checkpoint_dependencies(self):
        """The (name, trackable) pairs recorded so far."""
        return list(self.__dict__.get("_self_unconditional_dependency_names", {}).items())


Trackable.register(Variable)
Trackable.register(Module)
Trackable.register(Function)
Trackable.register(ConcreteFunction)


class AutoTrackable(Trackable):
    """A Trackable that records Trackable attribute values as dependencies when
    they are assigned (`tf.__internal__.tracking.AutoTrackable`)."""

    def __setattr__(self, name, value):
        # As TensorFlow's AutoTrackable: `self.x = self.x` changes nothing;
        # Trackables, tf.functions and the containers TensorFlow wraps
        # (lists, dicts, tuples holding trackables) become dependencies; a
        # non-trackable value assigned to the name later leaves the
        # dependency in place, as there.
        try:
            if getattr(self, name) is value:
                return
        except AttributeError:
            pass
        if (getattr(self, "_self_setattr_tracking", True) and not name.startswith("_self_")
                and checkpoint_graph.is_node(value)):
            self._track_trackable(value, name=name, overwrite=True)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        self.__dict__.get("_self_unconditional_dependency_names", {}).pop(name, None)
        super().__delattr__(name)

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """The dependencies; for a SavedModel (`save_type="savedmodel"`) also
        every tf.function or ConcreteFunction an attribute of the object
        gives (methods, properties such as Keras' `_default_save_signature`),
        as TensorFlow's AutoTrackable finds them through `dir()`."""
        children = super()._trackable_children(save_type, **kwargs)
        if getattr(save_type, "value", save_type) != "savedmodel":
            return children
        functions = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in dir(self):
                try:
                    value = getattr(self, name, None)
                except Exception:  # noqa: BLE001 - a property that fails: not a function
                    continue
                if isinstance(value, _FUNCTIONS):
                    functions[name] = value
        children.update(functions)
        return children


def no_automatic_dependency_tracking(method):
    """Decorator: while `method` runs, attribute assignments on its `self` are
    not tracked (TensorFlow's `no_automatic_dependency_tracking`)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        previous = getattr(self, "_self_setattr_tracking", True)
        object.__setattr__(self, "_self_setattr_tracking", False)
        try:
            return method(self, *args, **kwargs)
        finally:
            object.__setattr__(self, "_self_setattr_tracking", previous)

    return wrapper


class ListWrapper(list):
    """TensorFlow's tracked-list type (`data_structures.ListWrapper`); rillflow
    never creates one for you, so this is a plain list subclass."""

    _tf_tracked_container = True


class _DictWrapper(dict):
    """TensorFlow's tracked-dict type (`data_structures._DictWrapper`); a plain
    dict subclass here, never substituted for a user's dict."""

    _tf_tracked_container = True

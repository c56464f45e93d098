"""TensorFlow's object-tracking base classes, as far as Keras 3 uses them.

TensorFlow's `Trackable` records named dependencies between objects so that
checkpoints can find every variable. rillflow's checkpoints walk attributes
instead (saved_model/checkpoint_graph.py), so these classes only keep the
dependency table Keras fills (`_track_trackable`) and the switch it flips
(`no_automatic_dependency_tracking`); nothing in rillflow reads the table yet.
A Trackable's attributes are walked like a tf.Module's (`_checkpoint_children`).
`ListWrapper` and `_DictWrapper` are the container types TensorFlow substitutes
for lists and dicts assigned to an AutoTrackable; Keras only registers them
with its tree utilities, so here they are plain list/dict subclasses that are
never substituted.
"""
import abc
import functools

from rillflow.ops.state.module import Module
from rillflow.ops.state.variables import Variable
from rillflow.saved_model import checkpoint_graph


class Trackable(metaclass=abc.ABCMeta):
    """Base of objects with named checkpoint dependencies
    (`tf.__internal__.tracking.Trackable`). `tf.Variable` and `tf.Module` count
    as Trackables (registered below), as in TensorFlow."""

    def _track_trackable(self, trackable, name, overwrite=False):
        """Records `trackable` as the dependency `name` of self; returns it."""
        deps = self.__dict__.setdefault("_self_unconditional_dependency_names", {})
        if name in deps and deps[name] is not trackable and not overwrite:
            raise ValueError(f"Called Trackable._track_trackable() with name='{name}', "
                             "but a Trackable with this name is already declared as a "
                             "dependency. Names must be unique (or overwrite=True).")
        deps[name] = trackable
        return trackable

    def _checkpoint_children(self):
        """The `(name, value)` attributes rillflow's checkpoints and
        SavedModels follow from this object (its variables, modules, other
        Trackables and containers of them), as they follow a tf.Module's;
        the `_self_*` bookkeeping is skipped. Keras' `model.export` saves
        an AutoTrackable holding its endpoints and variables."""
        return [(k, v) for k, v in vars(self).items()
                if not k.startswith("_self_") and checkpoint_graph.is_node(v)]

    @property
    def _checkpoint_dependencies(self):
        """The (name, trackable) pairs recorded so far."""
        return list(self.__dict__.get("_self_unconditional_dependency_names", {}).items())


Trackable.register(Variable)
Trackable.register(Module)


class AutoTrackable(Trackable):
    """A Trackable that records Trackable attribute values as dependencies when
    they are assigned (`tf.__internal__.tracking.AutoTrackable`)."""

    def __setattr__(self, name, value):
        if (getattr(self, "_self_setattr_tracking", True) and isinstance(value, Trackable)
                and not name.startswith("_self_")):
            self._track_trackable(value, name=name, overwrite=True)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        self.__dict__.get("_self_unconditional_dependency_names", {}).pop(name, None)
        super().__delattr__(name)


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


class _DictWrapper(dict):
    """TensorFlow's tracked-dict type (`data_structures._DictWrapper`); a plain
    dict subclass here, never substituted for a user's dict."""

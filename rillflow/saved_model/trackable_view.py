"""`tf.train.TrackableView` (the object graph a checkpoint or SavedModel
walks, as a view anyone can query) and
`tf.saved_model.experimental.TrackableResource` (the base class of objects
owning a resource, such as lookup tables).

Keras' `model.export` walks the tracked objects with a TrackableView to
find the TrackableResources it must keep; rillflow defines no resources of
its own, so the walk finds only what user code defines.
"""
import collections
import weakref

from ..framework.api_export import export
from . import checkpoint_graph, saved_objects

__all__ = ["TrackableView", "TrackableResource"]


@export("train.TrackableView")
class TrackableView:
    """The objects tracked from `root`: `children(obj)` (a classmethod) of one
    object and `descendants()` of the root, as a checkpoint (`save_type=
    "checkpoint"`, the default) or a SavedModel (`"savedmodel"`, which also
    keeps functions) walks them."""

    def __init__(self, root):
        try:
            self._root_ref = weakref.ref(root)
        except TypeError:  # lists and dicts take no weak references
            self._root_ref = lambda: root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """{name: child} of the objects `obj` tracks. Extra keyword arguments
        (TensorFlow's `cache`) are accepted and unused."""
        kind = getattr(save_type, "value", save_type)
        if kind == "savedmodel":
            return dict(saved_objects.children(obj))
        return dict(checkpoint_graph.children(obj))

    @property
    def root(self):
        """The root object."""
        return self._root_ref()

    def descendants(self):
        """Every object reachable from the root, the root first, each once,
        breadth-first (through `self.children`, so subclasses can change the
        walk)."""
        root = self.root
        seen = {id(root)}
        order = [root]
        queue = collections.deque(order)
        while queue:
            obj = queue.popleft()
            for child in self.children(obj).values():
                if id(child) not in seen:
                    seen.add(id(child))
                    order.append(child)
                    queue.append(child)
        return order


@export("saved_model.experimental.TrackableResource")
class TrackableResource:
    """Base of an object that owns a resource (TensorFlow's lookup tables,
    say): a subclass defines `_create_resource()`, returning the resource's
    handle, and optionally `_initialize()`; `resource_handle` creates it on
    first use. rillflow's SavedModel does not save resources."""

    def __init__(self, device=""):
        self._resource_device = device
        self._resource_handle_value = None

    def _create_resource(self):
        """The handle of a new resource (subclasses define it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define _create_resource")

    def _initialize(self):
        """Fills the new resource (nothing by default)."""

    def _destroy_resource(self):
        """Releases the resource (nothing by default)."""

    @property
    def resource_handle(self):
        """The resource's handle, created (and initialized) on first use."""
        if self._resource_handle_value is None:
            self._resource_handle_value = self._create_resource()
            self._initialize()
        return self._resource_handle_value

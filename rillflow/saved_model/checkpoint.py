"""`tf.train.Checkpoint`: saving and restoring the variables reachable from
a root object, by object-graph path, with TensorFlow's restore semantics.

Restoring matches the checkpoint's object graph against the live objects from
the root down: each matched variable gets its saved value at once. A saved
object that does not exist yet is *deferred*: when it is later assigned as an
attribute of a matched `tf.Module` or `Checkpoint` (say by a module that builds
its variables on first call, inside a `tf.function` or not), it is matched
then and gets its value. Values go straight into the variable's storage, which
is what both eager reads and compiled functions read.

The files are TensorFlow's: a tensor bundle (`rillflow/io/tensor_bundle.py`)
holding the variables under TensorFlow's keys and the object graph, a
TrackableObjectGraph proto, as the string tensor `_CHECKPOINTABLE_OBJECT_GRAPH`;
TensorFlow restores what rillflow writes and the reverse.
"""
import inspect
import os
import weakref

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape
from ..ops.state.module import Module
from ..ops.state.variables import Variable
from . import checkpoint_graph as object_graph
from ..io import tensor_bundle
from .checkpoint_management import update_checkpoint_state

# object -> {attribute name: [(restoration, node id), ...]}: saved children
# waiting for their Python object to be attached.
_DEFERRED = weakref.WeakKeyDictionary()
# optimizer -> [(weak reference to the variable, slot name, restoration,
# slot node id), ...]: saved slot variables waiting for `slot_created`.
_DEFERRED_SLOTS = weakref.WeakKeyDictionary()
# Trackable -> {dependency name: [(restoration, node id)]}: saved children
# matched to a TensorFlow-style Trackable's dependencies, matched again when
# the dependency is replaced (Keras' SGD assigns `momentums = []`, then the
# list of its momentum variables).
_BOUND_DEPENDENCIES = weakref.WeakKeyDictionary()

_CPP_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _handle_deferred(obj, name, value):
    """Called after `obj.name = value`: restores `value` if a restoration was
    waiting for that attribute."""
    if not _DEFERRED:
        return
    try:
        pending = _DEFERRED.get(obj)
    except TypeError:  # an unhashable object: nothing can wait for it
        return
    if not pending or name not in pending or not object_graph.is_node(value):
        return
    tracks = hasattr(obj, "_track_trackable")
    for restoration, node_id in pending.pop(name):
        with _context.init_scope():
            restoration.bind(node_id, value)
        if tracks:
            restoration._watch(obj, name, node_id)


def _handle_replaced(obj, name, value):
    """Called after a Trackable's dependency `name` was replaced by `value`:
    matches the saved child the old object was matched to with `value`."""
    if not _BOUND_DEPENDENCIES:
        return
    try:
        entries = _BOUND_DEPENDENCIES.get(obj)
    except TypeError:
        return
    if not entries or name not in entries or not object_graph.is_node(value):
        return
    for restoration, node_id in entries[name]:
        with _context.init_scope():
            restoration.rebind(node_id, value)


def _module_setattr(self, name, value):
    object.__setattr__(self, name, value)
    if _DEFERRED:
        _handle_deferred(self, name, value)


def _watch_module_attributes():
    """Lets `tf.Module` attribute assignments resolve deferred restorations.

    Installed on the first deferral rather than defined on Module itself, so
    programs that never restore a checkpoint pay nothing per assignment.
    """
    if Module.__dict__.get("__setattr__") is not _module_setattr:
        Module.__setattr__ = _module_setattr


def _ref(obj):
    """A weak reference to `obj`, or a strong one for lists and dicts."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj


def _shape_text(dims):
    return str(TensorShape(list(dims)))


class _Restoration:
    """One `read()` of a checkpoint: the saved graph, a reader for its values,
    and which node each live object was matched to."""

    def __init__(self, reader, nodes):
        self.reader = reader
        self.nodes = nodes
        # Weak where possible: the deferred table keeps restorations alive,
        # and they must not keep the program's objects alive in turn.
        self.bound = {}        # node id -> reference to the object
        self._bound_ids = {}   # id(object) -> reference to it
        # original variable's node id -> [(optimizer node id, slot reference)]
        # for slots whose variable was not matched yet.
        self._slot_waits = {}

    def is_bound(self, obj):
        """Whether `obj` (a live object) was matched to a saved node."""
        ref = self._bound_ids.get(id(obj))
        return ref is not None and ref() is obj

    def bind(self, node_id, obj):
        """Matches node `node_id` with `obj`: restores it if it is a variable,
        then matches (or defers) the node's children and slot variables.

        Iterative, with a visited check: a hostile graph may be deep or cyclic.
        """
        stack = [(node_id, obj)]
        while stack:
            node_id, obj = stack.pop()
            if node_id in self.bound or self.is_bound(obj):
                continue
            node = self.nodes[node_id]
            if node["attributes"]:
                self._restore_state(obj, node["attributes"])
            ref = _ref(obj)
            self.bound[node_id] = ref
            self._bound_ids[id(obj)] = ref
            tracks = not isinstance(obj, type) and hasattr(obj, "_track_trackable")
            for c in reversed(node["children"]):
                name, child_id = c["local_name"], c["node_id"]
                live = object_graph.child(obj, name)
                if live is not None:
                    stack.append((child_id, live))
                    if tracks:
                        self._watch(obj, name, child_id)
                elif child_id not in self.bound and self.nodes[child_id]["has_checkpoint_values"]:
                    self._defer(obj, name, child_id)
            for slot in node["slot_variables"]:
                original = slot["original_variable_node_id"]
                if original in self.bound:
                    stack.extend(self._match_slot(node_id, slot))
                else:
                    self._slot_waits.setdefault(original, []).append((node_id, slot))
            for optimizer_id, slot in self._slot_waits.pop(node_id, ()):
                stack.extend(self._match_slot(optimizer_id, slot))

    def _watch(self, obj, name, child_id):
        try:
            _BOUND_DEPENDENCIES.setdefault(obj, {}).setdefault(name, []).append(
                (self, child_id))
        except TypeError:  # unhashable or not weakly referable
            pass

    def rebind(self, node_id, obj):
        """Matches node `node_id` (matched before to another object) with
        `obj` and what it holds."""
        old = self.bound.pop(node_id, None)
        if old is not None and old() is not None:
            self._bound_ids.pop(id(old()), None)
        self.bind(node_id, obj)

    def _match_slot(self, optimizer_id, slot):
        """[(slot node id, slot variable)] when the optimizer has the slot
        already; otherwise waits for `slot_created`."""
        optimizer = self.bound[optimizer_id]()
        variable = self.bound[slot["original_variable_node_id"]]()
        # Only objects that declare slots hold them (a hostile graph may
        # give slot references to anything).
        if optimizer is None or not isinstance(variable, Variable) or \
                not hasattr(optimizer, "_checkpoint_slots"):
            return []
        for var, name, slot_var in object_graph._slots(optimizer):
            if var is variable and name == slot["slot_name"]:
                return [(slot["slot_variable_node_id"], slot_var)]
        _DEFERRED_SLOTS.setdefault(optimizer, []).append(
            (weakref.ref(variable), slot["slot_name"], self, slot["slot_variable_node_id"]))
        return []

    def _defer(self, obj, name, child_id):
        """Waits for `obj.name` to be assigned (a Checkpoint's children may
        also come from its `root`). A TensorFlow-style Trackable (Keras'
        layers and optimizers) reports new dependencies from
        `_track_trackable`; a `tf.Module` from its attribute assignments."""
        if isinstance(obj, Checkpoint) and obj._ckpt_root is not None:
            self._defer(obj._ckpt_root, name, child_id)
        if isinstance(obj, (Module, Checkpoint)) or (
                not isinstance(obj, type) and hasattr(obj, "_track_trackable")):
            try:
                _DEFERRED.setdefault(obj, {}).setdefault(name, []).append((self, child_id))
            except TypeError:  # unhashable or not weakly referable: cannot wait
                return
            if isinstance(obj, Module):
                _watch_module_attributes()

    def _saved(self, key, expected_dtype):
        """The saved value of `key`, checked against `expected_dtype` (a
        DType or NumPy dtype) as TensorFlow's RestoreV2 checks it."""
        reader = self.reader
        if key not in reader:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        saved = reader.dtype(key).name
        expected = D.as_dtype(expected_dtype).name
        if saved != expected:
            def cpp(n):
                return _CPP_DTYPE_NAMES.get(n, n)
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {key}; expected dtype {cpp(expected)} does "
                f"not equal original dtype {cpp(saved)} [Op:RestoreV2]")
        return reader

    def _restore_state(self, obj, attributes):
        """Restores the saved `attributes` (of one node) into `obj`: a
        variable directly, another object through TensorFlow's
        `_restore_from_tensors` with the tensors its `_serialize_to_tensors`
        names (a Keras variable). Objects without state are left alone."""
        if isinstance(obj, Variable):
            for attr in attributes:
                if attr["name"] == object_graph.VARIABLE_VALUE:
                    self._restore_variable(obj, attr["checkpoint_key"])
            return
        restore = getattr(obj, "_restore_from_tensors", None)
        if restore is None or isinstance(obj, type) or not object_graph.has_state(obj):
            return
        live = object_graph.state_tensors(obj)
        keys = {a["name"]: a["checkpoint_key"] for a in attributes}
        restored = {}
        for name, value in live.items():
            key = keys.get(object_graph.escape_local_name(name))
            if key is None:
                raise errors.NotFoundError(
                    None, None, f"Key {object_graph.escape_local_name(name)} of "
                    f"{type(obj).__name__} not found in checkpoint")
            restored[name] = EagerTensor(self._saved(key, value.dtype).get(key))
        if restored:
            restore(restored)

    def _restore_variable(self, var, key):
        shape = self._saved(key, var.dtype).shape(key)
        if not var.shape.is_compatible_with(TensorShape(shape)):
            raise ValueError(f"Received incompatible tensor with shape {_shape_text(shape)} "
                             "when attempting to restore variable with shape "
                             f"{var.shape} and name {var.name}.")
        var._storage.value = self.reader.get(key)

    def unresolved(self):
        """Saved nodes with values that no live object matched."""
        return [i for i, node in enumerate(self.nodes)
                if node["attributes"] and i not in self.bound]


def slot_created(optimizer, variable, slot_name, slot_variable):
    """Restores `slot_variable`, the new slot `slot_name` of `variable` in
    `optimizer`, if a `Checkpoint.restore` is waiting for it; returns whether
    it did.

    Optimizers create slot variables on their first step, usually after the
    checkpoint was restored; an optimizer calls this right after creating
    one (and declares its slots with `_checkpoint_slots()`), as TensorFlow's
    optimizers restore slots on creation.
    """
    pending = _DEFERRED_SLOTS.get(optimizer)
    if not pending:
        return False
    for i, (var_ref, name, restoration, node_id) in enumerate(pending):
        if var_ref() is variable and name == slot_name:
            del pending[i]
            with _context.init_scope():
                restoration.bind(node_id, slot_variable)
            return True
    return False


class CheckpointLoadStatus:
    """What `Checkpoint.restore`/`read` return: assertions about how well
    the checkpoint matched the program. Restoring is eager, so
    `run_restore_ops` and `initialize_or_restore` have nothing to do."""

    def __init__(self, restoration, root):
        self._restoration = restoration
        self._root = root

    def assert_consumed(self):
        """Asserts that every saved value and every live variable was matched
        (deferred values count once their object exists).

        Raises:
          AssertionError: naming the first unmatched saved object.
        """
        self.assert_existing_objects_matched()
        unresolved = self._restoration.unresolved()
        if unresolved:
            nodes = self._restoration.nodes
            paths = object_graph.node_paths(nodes)
            i = unresolved[0]
            raise AssertionError(f"Unresolved object in checkpoint {paths.get(i, i)}: "
                                 f"{object_graph.node_text(nodes[i])}")
        return self

    def assert_existing_objects_matched(self):
        """Asserts that every variable now reachable from the root got a
        saved value.

        Raises:
          AssertionError: listing (up to 10 of) the unmatched variables.
        """
        restoration = self._restoration
        unused = [v for v in object_graph.variables_of(self._root)
                  if not restoration.is_bound(v)]
        if unused:
            n, shown = len(unused), min(10, len(unused))
            raise AssertionError(
                f"Found {n} Python objects that were not bound to checkpointed values, likely "
                f"due to changes in the Python program. Showing {shown} of {n} unmatched "
                f"objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self):
        """Asserts that something besides the root matched.

        Raises:
          AssertionError: if only the root object was matched.
        """
        if len(self._restoration.bound) <= 1:
            unused = [obj for _, obj in object_graph.breadth_first(self._root)
                      if not self._restoration.is_bound(obj)]
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to "
                                 f"{self._root} yet.")
        return self

    def expect_partial(self):
        """Marks the restore as intentionally partial (silences nothing here:
        rillflow does not warn about unused values). Returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: values were restored eagerly."""
        return None

    def initialize_or_restore(self, session=None):
        """Nothing to run: values were restored eagerly."""
        return None


class InitializationOnlyStatus:
    """What `restore(None)` returns: nothing was restored, and every
    assertion says so."""

    def __init__(self, root):
        self._root = root

    def _nothing(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_consumed(self):
        """Raises AssertionError: nothing was restored."""
        self._nothing()

    def assert_existing_objects_matched(self):
        """Raises AssertionError: nothing was restored."""
        self._nothing()

    def assert_nontrivial_match(self):
        """Raises AssertionError: nothing was restored."""
        self._nothing()

    def expect_partial(self):
        """Returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Raises AssertionError: there are no restore ops."""
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session=None):
        """Nothing to initialize eagerly."""
        return None


def _not_trackable(name, value):
    return ValueError(
        f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
        "`Trackable`), got "
        f"{value}. If you believe this object should be trackable (i.e. it is part of the "
        "TensorFlow Python API and manages state), please open an issue.")


@export("train.Checkpoint")
class Checkpoint:
    """Groups trackable objects (variables, `tf.Module`s, other checkpoints,
    and lists/dicts of them) to save and restore them together.

    Args:
      root: optional object whose own dependencies become the checkpoint's
        top-level entries.
      **kwargs: objects to track under those names (more can be assigned
        as attributes later).
      options: a `tf.train.CheckpointOptions`, the default of `save`/`write`
        (its write callbacks run after each write).

    Raises:
      ValueError: if a keyword argument is not a trackable object.
    """

    def __init__(self, root=None, options=None, **kwargs):
        object.__setattr__(self, "_ckpt_root", root)
        object.__setattr__(self, "_ckpt_children", {})
        object.__setattr__(self, "_ckpt_save_counter", None)
        object.__setattr__(self, "_ckpt_options", options)
        if root is not None and not object_graph.is_node(root):
            raise _not_trackable("root", root)
        # Sorted, as TensorFlow attaches them: it decides which of two paths
        # to a shared variable names it.
        for name, value in sorted(kwargs.items()):
            if not object_graph.is_node(value):
                raise _not_trackable(name, value)
            setattr(self, name, value)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if object_graph.is_node(value):
            self._ckpt_children[name] = value
        else:
            self._ckpt_children.pop(name, None)
        _handle_deferred(self, name, value)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        self._ckpt_children.pop(name, None)

    def _checkpoint_children(self):
        """The tracked `(name, object)` pairs, as `object_graph` reads them."""
        out = []
        if self._ckpt_root is not None:
            out += object_graph.children(self._ckpt_root)
        out += list(self._ckpt_children.items())
        if self._ckpt_save_counter is not None:
            out.append(("save_counter", self._ckpt_save_counter))
        return out

    @property
    def save_counter(self):
        """An int64 variable counting `save()` calls (created on first use,
        and by `save`/`restore`); it numbers the saved files."""
        if self._ckpt_save_counter is None:
            with _context.init_scope():
                counter = Variable(np.int64(0), trainable=False, name="save_counter",
                                   dtype=D.int64)
            object.__setattr__(self, "_ckpt_save_counter", counter)
            _handle_deferred(self, "save_counter", counter)
        return self._ckpt_save_counter

    def write(self, file_prefix, options=None):
        """Writes the checkpoint files `file_prefix.index` and
        `file_prefix.data-00000-of-00001` without numbering them or updating
        the directory's state file. Returns `file_prefix` as a string."""
        file_prefix = os.fspath(file_prefix) if isinstance(file_prefix, os.PathLike) else \
            str(file_prefix)
        nodes, tensors = object_graph.serialize(self)
        tensors[object_graph.OBJECT_GRAPH_KEY] = np.array(
            object_graph.to_bytes(nodes), dtype=object)
        tensor_bundle.write_tensors(file_prefix, tensors)
        options = options if options is not None else self._ckpt_options
        for callback in getattr(options, "experimental_write_callbacks", None) or ():
            _run_write_callback(callback, file_prefix)
        return file_prefix

    def save(self, file_prefix, options=None):
        """Increments `save_counter`, writes `file_prefix-N` and records it
        as the latest checkpoint of its directory. Returns the path."""
        if isinstance(file_prefix, os.PathLike):
            file_prefix = os.fspath(file_prefix)
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write("%s-%d" % (file_prefix, int(counter.numpy())), options)
        update_checkpoint_state(os.path.dirname(path), path, [path])
        return path

    def read(self, save_path, options=None):
        """Restores from `save_path` without creating `save_counter`; returns
        a `CheckpointLoadStatus` (an `InitializationOnlyStatus` for None).

        Raises:
          NotFoundError: if there is no checkpoint at `save_path`.
          DataLossError: if the files are not a valid checkpoint.
          ValueError/InvalidArgumentError: for a saved shape or dtype that
            does not fit the variable.
        """
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path) if isinstance(save_path, os.PathLike) else save_path
        save_path = _variables_prefix(save_path)
        reader = tensor_bundle.BundleReader(save_path)
        if object_graph.OBJECT_GRAPH_KEY not in reader:
            raise errors.NotFoundError(
                None, None, f"The checkpoint at {save_path} has no object graph "
                f"({object_graph.OBJECT_GRAPH_KEY}): it was not written by tf.train.Checkpoint.")
        graph = reader.get(object_graph.OBJECT_GRAPH_KEY)
        if graph.shape != () or reader.dtype(object_graph.OBJECT_GRAPH_KEY) is not D.string:
            raise errors.DataLossError(
                None, None, f"The object graph ({object_graph.OBJECT_GRAPH_KEY}) of {save_path} "
                "is not a string scalar.")
        nodes = object_graph.parse(graph.item(), tensor_bundle.index_filename(save_path))
        restoration = _Restoration(reader, nodes)
        with _context.init_scope():
            restoration.bind(0, self)
        return CheckpointLoadStatus(restoration, self)

    def restore(self, save_path, options=None):
        """Restores from `save_path` (see `read`), creating `save_counter`
        (restored too when saved). Values of objects that do not exist yet
        are restored when they are attached. `None` restores nothing.

        Raises:
          NotFoundError: if there is no checkpoint at `save_path`.
        """
        try:
            status = self.read(save_path, options)
        except errors.NotFoundError as e:
            raise errors.NotFoundError(
                None, None, f"Error when restoring from checkpoint or SavedModel at "
                f"{save_path}: {e.message}\nPlease double-check that the path is correct. You "
                "may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').") \
                from None
        self.save_counter  # noqa: B018 - created (and restored) as in TensorFlow
        return status


def _run_write_callback(callback, save_path):
    """Calls a write callback with the path when it takes an argument."""
    try:
        takes = bool(inspect.signature(callback).parameters)
    except (TypeError, ValueError):
        takes = True
    if takes:
        callback(save_path)
    else:
        callback()


def _variables_prefix(save_path):
    """The checkpoint prefix for `save_path`: a SavedModel directory's
    variables, or the path itself."""
    if os.path.isdir(save_path):
        inner = os.path.join(save_path, "variables", "variables")
        if tensor_bundle.exists(inner):
            return inner
        raise errors.DataLossError(
            None, None, f"Unable to open table file {save_path}: FAILED_PRECONDITION: "
            f"{save_path}; Is a directory: perhaps your file is in a different file format and "
            "you need to use a different restore operator?")
    return save_path

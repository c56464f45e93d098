"""`tf.train.CheckpointView` (a checkpoint's object graph, read without
restoring: children, descendants, and how it matches live objects) and
`tf.train.experimental`'s checkpoint extras: `PythonState` (Python state
saved as a string tensor beside the variables), the sharding policies and
`ShardableTensor`.

A `PythonState` is saved through TensorFlow's `_serialize_to_tensors` /
`_restore_from_tensors` protocol, which `checkpoint_graph.py` and
`checkpoint.py` already follow, under the attribute name `py_state`, as
TensorFlow keys it (`st/.ATTRIBUTES/py_state`).
"""
import collections
import dataclasses
import os

import numpy as np

from ..framework import errors
from ..framework.api_export import export
from ..framework.tensor import EagerTensor
from ..io import tensor_bundle
from . import checkpoint_graph
from .checkpoint_management import latest_checkpoint
from .options import ShardingCallback
from .trackable_view import TrackableView

__all__ = ["CheckpointView", "PythonState", "ShardByTaskPolicy", "MaxShardSizePolicy",
           "ShardableTensor"]


@export("train.CheckpointView")
class CheckpointView:
    """The object graph stored in a checkpoint (`save_path`: a prefix, or a
    directory holding a `checkpoint` state file).

    Raises:
      NotFoundError: if there is no checkpoint at `save_path`.
      DataLossError: if its object graph is corrupt.
    """

    def __init__(self, save_path):
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path):
            found = latest_checkpoint(save_path)
            save_path = found if found is not None else save_path
        if not tensor_bundle.exists(save_path):
            raise errors.NotFoundError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                f"matching files for {save_path}")
        reader = tensor_bundle.BundleReader(save_path)
        if checkpoint_graph.OBJECT_GRAPH_KEY not in reader:
            raise errors.NotFoundError(
                None, None, f"The checkpoint at {save_path} has no object graph "
                f"({checkpoint_graph.OBJECT_GRAPH_KEY}).")
        self._nodes = checkpoint_graph.parse(reader.get(checkpoint_graph.OBJECT_GRAPH_KEY).item(),
                                             tensor_bundle.index_filename(save_path))

    def children(self, node_id):
        """{local name: node id} of the children of node `node_id`."""
        return {c["local_name"]: c["node_id"] for c in self._nodes[node_id]["children"]}

    def descendants(self):
        """The ids of the nodes reachable from the root (node 0), the root
        first, breadth-first."""
        out = [0]
        seen = {0}
        queue = collections.deque([0])
        while queue:
            for c in self._nodes[queue.popleft()]["children"]:
                if c["node_id"] not in seen:
                    seen.add(c["node_id"])
                    out.append(c["node_id"])
                    queue.append(c["node_id"])
        return out

    def match(self, obj):
        """{node id: object}: the live objects under `obj` (a trackable, the
        counterpart of node 0) found at the checkpoint's paths.

        Raises:
          ValueError: if `obj` is not trackable.
        """
        if not checkpoint_graph.is_node(obj):
            raise ValueError(f"Expected a Trackable, got {obj} of type {type(obj)}.")
        matched = {0: obj}
        queue = collections.deque([(0, obj)])
        visited = set()
        while queue:
            node_id, current = queue.popleft()
            if node_id in visited:
                continue
            visited.add(node_id)
            live = TrackableView.children(current)
            for name, child_id in self.children(node_id).items():
                if child_id == 0 or child_id in visited or name not in live:
                    continue
                if child_id not in matched:
                    matched[child_id] = live[name]
                    queue.append((child_id, live[name]))
        return matched

    def diff(self, obj):
        """`(matched, only_in_checkpoint, only_in_obj)`: `match(obj)`, the
        ids of the checkpoint's nodes no object matched, and the objects
        under `obj` the checkpoint does not hold."""
        matched = self.match(obj)
        only_ckpt = [i for i in self.descendants() if i not in matched]
        found = {id(o) for o in matched.values()}
        only_obj = [o for o in TrackableView(obj).descendants() if id(o) not in found]
        return matched, only_ckpt, only_obj


@export("train.experimental.PythonState")
class PythonState:
    """Python state saved in checkpoints: subclasses define `serialize()`
    (returning a string) and `deserialize(string)` (given bytes on restore)."""

    def serialize(self):
        """The state as a string (or bytes)."""
        raise NotImplementedError

    def deserialize(self, string_value):
        """Sets the state from `string_value` (bytes)."""
        raise NotImplementedError

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        return {}

    def _serialize_to_tensors(self):
        value = self.serialize()
        if isinstance(value, str):
            value = value.encode("utf-8")
        return {"py_state": EagerTensor(np.array(value, dtype=object))}

    def _restore_from_tensors(self, restored_tensors):
        value = restored_tensors["py_state"]
        value = value.numpy() if hasattr(value, "numpy") else value
        self.deserialize(value.item() if isinstance(value, np.ndarray) else value)


@export("train.experimental.ShardByTaskPolicy")
class ShardByTaskPolicy(ShardingCallback):
    """One shard per device task (rillflow: one task, one shard)."""

    @property
    def description(self):
        """The policy's description, TensorFlow's words."""
        return "Split tensors into shards based on their device spec task."

    def __call__(self, shardable_tensors):
        shard = {}
        for t in shardable_tensors:
            shard.setdefault(t.checkpoint_key, {})[t.slice_spec] = t.tensor
        return [shard]


@export("train.experimental.MaxShardSizePolicy")
class MaxShardSizePolicy(ShardingCallback):
    """Shards of at most `max_shard_size` bytes each.

    Raises:
      ValueError: for a size below 1.
    """

    def __init__(self, max_shard_size):
        self.max_shard_size = max_shard_size

    @property
    def description(self):
        """The policy's description, TensorFlow's words."""
        return "Split tensors into shards with a max shard size."

    def __call__(self, shardable_tensors):
        shards, current, size = [], {}, 0
        for t in shardable_tensors:
            n = int(np.asarray(t.tensor).nbytes) if t.tensor is not None else 0
            if current and size + n > self.max_shard_size:
                shards.append(current)
                current, size = {}, 0
            current.setdefault(t.checkpoint_key, {})[t.slice_spec] = t.tensor
            size += n
        if current:
            shards.append(current)
        return shards


@export("train.experimental.ShardableTensor")
@dataclasses.dataclass
class ShardableTensor:
    """One tensor a sharding callback places: the tensor and what names it."""
    _tensor_save_spec: object
    tensor: object
    dtype: object
    device: object
    name: str
    shape: object
    slice_spec: object
    checkpoint_key: str
    trackable: object

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return (f"ShardableTensor(name={self.name}, dtype={self.dtype}, shape={self.shape}, "
                f"checkpoint_key={self.checkpoint_key})")

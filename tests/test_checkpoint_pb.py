"""rillflow's hand-written checkpoint protos (rillflow/io/checkpoint_pb.py)
against the official protobuf runtime, when it is installed: the schemas of
TensorFlow's tensor_bundle.proto and trackable_object_graph.proto are built
here as descriptors, and both sides must agree on TensorFlow's bytes."""
import os
import random

import pytest

from rillflow.io import checkpoint_pb, sstable

protobuf = pytest.importorskip("google.protobuf")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_checkpoints")
F = descriptor_pb2.FieldDescriptorProto


def _messages():
    """Message classes for TensorFlow's checkpoint protos, in a private pool
    (enums as int32: the same varints on the wire)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="rillflow_ckpt_test.proto",
                                             package="rftest", syntax="proto3")

    def message(name, *fields, parent=None):
        m = (parent.nested_type if parent else fdp.message_type).add(name=name)
        for fname, number, ftype, *rest in fields:
            f = m.field.add(name=fname, number=number, type=ftype,
                            label=F.LABEL_REPEATED if "repeated" in rest else F.LABEL_OPTIONAL)
            for r in rest:
                if r.startswith("."):
                    f.type_name = r
        return m

    shape = message("TensorShapeProto", ("dim", 2, F.TYPE_MESSAGE, "repeated",
                                         ".rftest.TensorShapeProto.Dim"),
                    ("unknown_rank", 3, F.TYPE_BOOL))
    message("Dim", ("size", 1, F.TYPE_INT64), ("name", 2, F.TYPE_STRING), parent=shape)
    message("VersionDef", ("producer", 1, F.TYPE_INT32), ("min_consumer", 2, F.TYPE_INT32),
            ("bad_consumers", 3, F.TYPE_INT32, "repeated"))
    message("BundleHeaderProto", ("num_shards", 1, F.TYPE_INT32),
            ("endianness", 2, F.TYPE_INT32), ("version", 3, F.TYPE_MESSAGE, ".rftest.VersionDef"))
    message("BundleEntryProto", ("dtype", 1, F.TYPE_INT32),
            ("shape", 2, F.TYPE_MESSAGE, ".rftest.TensorShapeProto"),
            ("shard_id", 3, F.TYPE_INT32), ("offset", 4, F.TYPE_INT64),
            ("size", 5, F.TYPE_INT64), ("crc32c", 6, F.TYPE_FIXED32),
            ("slices", 7, F.TYPE_BYTES, "repeated"))
    message("BoolValue", ("value", 1, F.TYPE_BOOL))
    obj = message("TrackableObject",
                  ("children", 1, F.TYPE_MESSAGE, "repeated",
                   ".rftest.TrackableObject.ObjectReference"),
                  ("attributes", 2, F.TYPE_MESSAGE, "repeated",
                   ".rftest.TrackableObject.SerializedTensor"),
                  ("slot_variables", 3, F.TYPE_MESSAGE, "repeated",
                   ".rftest.TrackableObject.SlotVariableReference"),
                  ("has_checkpoint_values", 5, F.TYPE_MESSAGE, ".rftest.BoolValue"))
    message("ObjectReference", ("node_id", 1, F.TYPE_INT32), ("local_name", 2, F.TYPE_STRING),
            parent=obj)
    message("SerializedTensor", ("name", 1, F.TYPE_STRING), ("full_name", 2, F.TYPE_STRING),
            ("checkpoint_key", 3, F.TYPE_STRING), parent=obj)
    message("SlotVariableReference", ("original_variable_node_id", 1, F.TYPE_INT32),
            ("slot_name", 2, F.TYPE_STRING), ("slot_variable_node_id", 3, F.TYPE_INT32),
            parent=obj)
    message("TrackableObjectGraph", ("nodes", 1, F.TYPE_MESSAGE, "repeated",
                                     ".rftest.TrackableObject"))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName("rftest." + name))
            for name in ("BundleHeaderProto", "BundleEntryProto", "TrackableObjectGraph")}


MESSAGES = _messages()


def _tensorflow_index(name):
    with open(os.path.join(DATA, name + ".index"), "rb") as f:
        return sstable.read_table(f.read())


def _entry_fields(m):
    return (m.dtype, tuple(d.size for d in m.shape.dim), m.shard_id, m.offset, m.size, m.crc32c)


def test_entries_and_headers_agree_with_protobuf():
    for name in ("raw/bundle", "module/ckpt-1", "v1_adam/ckpt"):
        items = _tensorflow_index(name)
        header = MESSAGES["BundleHeaderProto"].FromString(items[0][1])
        assert checkpoint_pb.decode_header(items[0][1])[:3] == (
            header.num_shards, header.endianness, header.version.producer)
        assert checkpoint_pb.encode_header(header.num_shards) == items[0][1]
        for _, value in items[1:]:
            theirs = MESSAGES["BundleEntryProto"].FromString(value)
            ours = checkpoint_pb.decode_entry(value)
            assert _entry_fields(theirs) == (ours.dtype, ours.shape, ours.shard_id,
                                             ours.offset, ours.size, ours.crc32c)
            # TensorFlow's bytes, protobuf's serialization and ours: all equal.
            assert checkpoint_pb.encode_entry(ours) == value == theirs.SerializeToString()


def _graph_fields(m):
    return [{"children": [{"node_id": c.node_id, "local_name": c.local_name}
                          for c in n.children],
             "attributes": [{"name": a.name, "full_name": a.full_name,
                             "checkpoint_key": a.checkpoint_key} for a in n.attributes],
             "slot_variables": [{"original_variable_node_id": s.original_variable_node_id,
                                 "slot_name": s.slot_name,
                                 "slot_variable_node_id": s.slot_variable_node_id}
                                for s in n.slot_variables],
             "has_checkpoint_values": n.has_checkpoint_values.value
             if n.HasField("has_checkpoint_values") else True} for n in m.nodes]


def test_object_graphs_agree_with_protobuf():
    import rillflow as tf
    for name in ("module/ckpt-1", "v1_adam/ckpt", "keras_adam/ckpt"):
        data = tf.train.load_checkpoint(os.path.join(DATA, name)).get_tensor(
            "_CHECKPOINTABLE_OBJECT_GRAPH")
        theirs = MESSAGES["TrackableObjectGraph"].FromString(data)
        assert checkpoint_pb.decode_object_graph(data) == _graph_fields(theirs)
        assert theirs.SerializeToString() == data
    rng = random.Random(0)
    for _ in range(50):  # random graphs, unicode names included
        nodes = [{"children": [{"node_id": rng.randrange(2 ** 31), "local_name":
                                rng.choice(["", "a", "\u00e9/..S", "x" * 200])}
                               for _ in range(rng.randrange(3))],
                  "attributes": [{"name": "VARIABLE_VALUE", "full_name": "v%d" % i,
                                  "checkpoint_key": "k" * rng.randrange(300)}
                                 for i in range(rng.randrange(2))],
                  "slot_variables": [{"original_variable_node_id": rng.randrange(9),
                                      "slot_name": "m", "slot_variable_node_id": 0}],
                  "has_checkpoint_values": rng.random() < 0.5}
                 for _ in range(rng.randrange(1, 6))]
        data = checkpoint_pb.encode_object_graph(nodes)
        theirs = MESSAGES["TrackableObjectGraph"].FromString(data)
        assert _graph_fields(theirs) == nodes
        assert theirs.SerializeToString() == data

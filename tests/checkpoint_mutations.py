"""Mutated checkpoints: the cases of tests/test_checkpoint_fuzz.py (a few
hundred, in CI) and tools/checkpoint_fuzz.py (as many as you like).

A case starts from a small valid checkpoint written by rillflow and changes
one thing, either in the raw bytes (which the checksums should catch) or
behind the checksums (the file is rewritten with valid ones), so that the
parsers and the restore logic see hostile content: index entries with huge
sizes, far offsets, other dtypes and shapes; object graphs with out-of-range
ids, cycles, deep chains, swapped keys. `run_case` then reads every tensor
and restores the checkpoint into the structure that wrote it. The only
acceptable failures are TensorFlow's error types (a DataLossError naming the
file, InvalidArgumentError, NotFoundError), ValueError for a shape that does
not fit a variable and AssertionError from assert_consumed.
"""
import os
import random
import shutil

import numpy as np

import rillflow as tf
from rillflow.io import checkpoint_pb, crc32c, sstable, tensor_bundle
from rillflow.saved_model import checkpoint as checkpoint_module

import checkpoint_structures as cs

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def build():
    """The objects of the seed checkpoint (fresh, with other values)."""
    model = cs.build_dense_model(tf)
    model.words = tf.Variable([b"a", b"bc", b""])
    model.items = [tf.Variable(3, dtype=tf.int64), {"k/.x": tf.Variable([1.5, 2.5])}]
    optimizer = cs.make_slot_adam(tf, checkpoint_module.slot_created)()
    return {"model": model, "optimizer": optimizer, "step": tf.Variable(5)}


def write_seed(directory):
    """Writes the seed checkpoint under `directory`; returns its prefix."""
    objects = build()
    cs.dense_steps(tf, objects["model"], objects["optimizer"], steps=1)
    return tf.train.Checkpoint(**objects).write(os.path.join(directory, "seed"))


# --- mutations -------------------------------------------------------------------------------

def _mutate_bytes(rng, data):
    """One random change to `data`: flip, overwrite, insert, delete, truncate."""
    data = bytearray(data)
    kind = rng.randrange(6)
    pos = rng.randrange(len(data)) if data else 0
    if kind == 0 and data:
        data[pos] ^= 1 << rng.randrange(8)
    elif kind == 1 and data:
        data[pos] = rng.choice([0, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    elif kind == 2:
        data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
    elif kind == 3 and data:
        del data[pos:pos + rng.randrange(1, 12)]
    elif kind == 4:
        del data[pos:]
    else:  # a huge varint somewhere
        data[pos:pos] = b"\xff" * rng.randrange(1, 10) + b"\x01"
    return bytes(data)


def _reseal(data, original):
    """`data` with the block trailers of `original`'s blocks recomputed, so
    a change inside a block gets past its checksum."""
    data = bytearray(data)
    try:
        end = len(original) - 48
        _, _, pos = sstable._read_handle(original, end, len(original) - 8)
        index_offset, index_size, _ = sstable._read_handle(original, pos, len(original) - 8)
        handles = [(index_offset, index_size)]
        for _, handle in sstable._entries(original[index_offset:index_offset + index_size]):
            offset, size, _ = sstable._read_handle(handle, 0, len(handle))
            handles.append((offset, size))
    except sstable.TableError:
        return bytes(data)
    for offset, size in handles:
        if offset + size + 5 <= len(data):
            crc = crc32c.mask(crc32c.crc32c(bytes(data[offset:offset + size + 1])))
            data[offset + size + 1:offset + size + 5] = crc.to_bytes(4, "little")
    return bytes(data)


def _hostile_entry(rng, entry):
    field = rng.choice(["dtype", "shape", "shard_id", "offset", "size", "crc32c"])
    if field == "dtype":
        entry.dtype = rng.choice([0, 1, 2, 3, 7, 9, 14, 19, 20, 21, 23, 24, 99, 2 ** 40])
    elif field == "shape":
        entry.shape = rng.choice([(), (0,), (2, 2), (2 ** 31,), (2 ** 62, 2 ** 62), (1,) * 300,
                                  tuple(rng.randrange(5) for _ in range(rng.randrange(4)))])
    else:
        value = rng.choice([0, 1, 7, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 62, -1,
                            getattr(entry, field) + rng.randrange(-3, 4)])
        setattr(entry, field, value & 0xFFFFFFFF if field == "crc32c" else value)
    return entry


def _hostile_graph(rng, nodes):
    n = len(nodes)
    kind = rng.randrange(7)
    node = rng.choice(nodes)
    if kind == 0 and node["children"]:  # out of range or a cycle
        rng.choice(node["children"])["node_id"] = rng.choice([0, n - 1, n, 2 ** 31 - 1, -1])
    elif kind == 1:  # a child pointing back at the root, a self-loop
        node["children"].append({"node_id": rng.choice([0, nodes.index(node)]),
                                 "local_name": rng.choice(["model", "x", "0", "\u00b2"])})
    elif kind == 2 and node["attributes"]:  # another variable's key
        other = rng.choice([a for m in nodes for a in m["attributes"]] or [None])
        node["attributes"][0]["checkpoint_key"] = (other or {}).get(
            "checkpoint_key", GRAPH_KEY)
    elif kind == 3:  # slot references anywhere
        node["slot_variables"].append({"original_variable_node_id": rng.randrange(-1, n + 1),
                                       "slot_name": rng.choice(["m", "v", "zz"]),
                                       "slot_variable_node_id": rng.randrange(-1, n + 1)})
    elif kind == 4:  # a deep chain
        start = len(nodes)
        nodes.append({"children": [], "attributes": [], "slot_variables": []})
        for i in range(rng.choice([10, 5000])):
            nodes[-1]["children"].append({"node_id": start + i + 1, "local_name": "d"})
            nodes.append({"children": [], "attributes": [], "slot_variables": []})
        nodes[0]["children"].append({"node_id": start, "local_name": "model"})
    elif kind == 5:  # renamed children
        for c in node["children"]:
            c["local_name"] = rng.choice(["", "..", ".S", c["local_name"] + "x", "1"])
    else:
        node["has_checkpoint_values"] = not node.get("has_checkpoint_values", True)
    return nodes


def mutate(rng, seed_prefix, prefix):
    """Writes a mutated copy of checkpoint `seed_prefix` as `prefix`;
    returns a short description of the mutation."""
    index, data = tensor_bundle.index_filename, tensor_bundle.data_filename
    shutil.copyfile(index(seed_prefix), index(prefix))
    shutil.copyfile(data(seed_prefix), data(prefix))
    kind = rng.choice(["index_bytes", "index_resealed", "entry", "entry_bytes", "data_bytes",
                       "graph_bytes", "graph"])
    if kind in ("index_bytes", "index_resealed", "data_bytes"):
        path = data(prefix) if kind == "data_bytes" else index(prefix)
        with open(path, "rb") as f:
            original = f.read()
        mutated = _mutate_bytes(rng, original)
        if kind == "index_resealed":
            mutated = _reseal(mutated, original)
        with open(path, "wb") as f:
            f.write(mutated)
        return kind
    if kind in ("entry", "entry_bytes"):
        with open(index(prefix), "rb") as f:
            items = sstable.read_table(f.read())
        i = rng.randrange(len(items))
        key, value = items[i]
        if kind == "entry" and key:
            value = checkpoint_pb.encode_entry(
                _hostile_entry(rng, checkpoint_pb.decode_entry(value)))
        else:
            value = _mutate_bytes(rng, value)
        items[i] = (key, value)
        with open(index(prefix), "wb") as f:
            f.write(sstable.write_table(items))
        return f"{kind} {key!r}"
    tensors = tensor_bundle.read_tensors(seed_prefix)
    graph = tensors[GRAPH_KEY].item()
    if kind == "graph_bytes":
        graph = _mutate_bytes(rng, graph)
    else:
        graph = checkpoint_pb.encode_object_graph(
            _hostile_graph(rng, checkpoint_pb.decode_object_graph(graph)))
    tensors[GRAPH_KEY] = np.array(graph, dtype=object)
    tensor_bundle.write_tensors(prefix, tensors)
    return kind


ALLOWED = (tf.errors.DataLossError, tf.errors.InvalidArgumentError, tf.errors.NotFoundError,
           ValueError, AssertionError)


def run_case(prefix):
    """Reads every tensor of `prefix` and restores it into `build()`'s
    objects, creating the optimizer's slots after the restore. Returns None,
    or the exception when it is one of ALLOWED.

    Raises:
      Whatever else the reader raised (a bug), or AssertionError for a
      DataLossError that does not name the checkpoint's files.
    """
    try:
        reader = tf.train.load_checkpoint(prefix)
        for key in reader.get_variable_to_shape_map():
            reader.get_tensor(key)
        objects = build()
        status = tf.train.Checkpoint(**objects).read(prefix)
        opt, model = objects["optimizer"], objects["model"]
        for var in (model.dense.kernel, model.dense.bias):
            opt._slot(var, "m"), opt._slot(var, "v")
        status.assert_consumed()
    except ALLOWED as e:
        if isinstance(e, tf.errors.DataLossError) and \
                os.path.basename(prefix) not in str(e):
            raise AssertionError(f"DataLossError without the file name: {e}") from e
        return e
    return None


def run(seed, count, directory, on_case=None):
    """Runs `count` cases from `seed`; returns {outcome name: count}.
    `on_case(i, description, outcome)` is called after each case."""
    rng = random.Random(seed)
    seed_prefix = write_seed(directory)
    prefix = os.path.join(directory, "case")
    outcomes = {}
    for i in range(count):
        description = mutate(rng, seed_prefix, prefix)
        try:
            outcome = run_case(prefix)
        except Exception as e:
            raise AssertionError(f"case {i} ({description}) raised {type(e).__name__}: "
                                 f"{e}") from e
        name = type(outcome).__name__ if outcome is not None else "ok"
        outcomes[name] = outcomes.get(name, 0) + 1
        if on_case is not None:
            on_case(i, description, outcome)
    return outcomes


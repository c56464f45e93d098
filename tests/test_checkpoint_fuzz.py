"""Mutated checkpoints (tests/checkpoint_mutations.py) fail with clear
errors, never a crash, a hang or a giant allocation; bounded for CI
(tools/checkpoint_fuzz.py runs long). Also the hand-made hostile object
graphs: cycles and deep chains restore without recursion or loops."""
import time

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import checkpoint_pb, tensor_bundle

import checkpoint_mutations as cm


@pytest.mark.parametrize("seed", [0, 1])
def test_mutated_checkpoints_fail_cleanly(tmp_path, seed):
    start = time.time()
    outcomes = cm.run(seed, 150, str(tmp_path))
    assert sum(outcomes.values()) == 150
    assert outcomes.get("DataLossError", 0) > 20  # the checksums do catch raw damage
    assert time.time() - start < 60


def _with_graph(tmp_path, edit):
    prefix = cm.write_seed(str(tmp_path))
    tensors = tensor_bundle.read_tensors(prefix)
    nodes = checkpoint_pb.decode_object_graph(tensors[cm.GRAPH_KEY].item())
    edit(nodes)
    tensors[cm.GRAPH_KEY] = np.array(checkpoint_pb.encode_object_graph(nodes), dtype=object)
    tensor_bundle.write_tensors(prefix, tensors)
    return prefix


def test_cyclic_and_deep_object_graphs_restore(tmp_path):
    def edit(nodes):
        nodes[1]["children"].append({"node_id": 0, "local_name": "back"})  # a cycle
        nodes[0]["children"].append({"node_id": 0, "local_name": "self"})
        first = len(nodes)
        for i in range(5000):  # deeper than Python's recursion limit
            nodes.append({"children": [{"node_id": first + i + 1, "local_name": "d"}],
                          "attributes": [], "slot_variables": []})
        nodes.append({"children": [], "attributes": [], "slot_variables": []})
        nodes[0]["children"].append({"node_id": first, "local_name": "deep"})
    prefix = _with_graph(tmp_path, edit)
    deep = tf.Module()
    node = deep
    for _ in range(5000):
        node.d = tf.Module()
        node = node.d
    objects = cm.build()
    status = tf.train.Checkpoint(deep=deep, **objects).read(prefix)
    status.assert_existing_objects_matched()
    assert objects["model"].words.numpy().tolist() == [b"a", b"bc", b""]


def test_out_of_range_node_ids_are_data_loss_naming_the_file(tmp_path):
    prefix = _with_graph(tmp_path, lambda nodes: nodes[0]["children"].append(
        {"node_id": len(nodes), "local_name": "x"}))
    with pytest.raises(tf.errors.DataLossError, match="seed.index.*TrackableObjectGraph"):
        tf.train.Checkpoint(**cm.build()).read(prefix)

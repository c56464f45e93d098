"""Damaged and hostile SavedModels for the fuzz test
(tests/test_saved_model_fuzz.py) and tools/saved_model_fuzz.py: a
TensorFlow-written SavedModel (tests/data/tf_saved_models/) whose
saved_model.pb gets random byte damage, or edits behind a valid wire
format (node ids and references out of range, functions calling
themselves, cycles, unknown ops, wrong attr types and input counts, huge
or negative shapes, constants that would fill gigabytes, deeply nested
values). Loading and calling each must raise a clear error (ALLOWED),
never crash, hang or allocate without bound."""
import copy
import os
import random
import shutil

import rillflow as tf
from rillflow.io import proto_codec, wire

import saved_model_structures as ss

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_saved_models")
SEED_MODELS = ("module", "control_flow")
ALLOWED = (tf.errors.OpError, ValueError, TypeError, RuntimeError)


def _mutate_bytes(rng, data):
    data = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0:                       # flip bytes
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:                     # truncate
        del data[rng.randrange(len(data)):]
    elif kind == 2:                     # insert garbage
        i = rng.randrange(len(data))
        data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    else:                               # a huge length prefix
        i = rng.randrange(len(data))
        data[i:i] = wire.encode_varint(rng.choice([2 ** 31, 2 ** 62, 10 ** 12]))
    return bytes(data)


def _functions(proto):
    return proto["meta_graphs"][0].setdefault("graph_def", {}).setdefault(
        "library", {}).setdefault("function", [])


def _some_node(rng, proto):
    fns = [f for f in _functions(proto) if f.get("node_def")]
    fd = rng.choice(fns)
    return fd, rng.choice(fd["node_def"])


def _nested(depth):
    v = {"none_value": {}}
    for _ in range(depth):
        v = {"list_value": {"values": [v]}}
    return v


def _hostile(rng, proto):
    """One edit behind a valid wire format; returns its name."""
    mg = proto["meta_graphs"][0]
    graph = mg.setdefault("object_graph_def", {})
    nodes = graph.setdefault("nodes", [])
    kind = rng.choice(["child_id", "bound_input", "self_call", "cycle", "unknown_op",
                       "bad_input", "attr_type", "input_count", "huge_const", "bad_shape",
                       "deep_value", "missing_function", "drop_ret", "dtype"])
    if kind == "child_id":
        rng.choice(nodes).setdefault("children", []).append(
            {"node_id": rng.choice([len(nodes), 10 ** 9, -1]), "local_name": "x"})
    elif kind == "bound_input":
        saved = rng.choice(list(graph.get("concrete_functions", {}).values()))
        saved.setdefault("bound_inputs", []).append(rng.choice([len(nodes) + 5, -3, 0]))
    elif kind == "self_call":
        fd, node = _some_node(rng, proto)
        node["op"] = "StatefulPartitionedCall"
        node["attr"] = {"f": {"func": {"name": fd["signature"]["name"]}},
                        "Tin": {"list": {}}, "Tout": {"list": {}}}
        node["input"] = []
    elif kind == "cycle":
        fd, node = _some_node(rng, proto)
        node.setdefault("input", []).append("^" + node["name"])
        other = rng.choice(fd["node_def"])
        other.setdefault("input", []).append("^" + node["name"])
        node["input"].append("^" + other["name"])
    elif kind == "unknown_op":
        _some_node(rng, proto)[1]["op"] = rng.choice(["NoSuchOp", "", "A" * 300])
    elif kind == "bad_input":
        node = _some_node(rng, proto)[1]
        node.setdefault("input", []).append(rng.choice(["nowhere:out:0", "x:y:99999", "::",
                                                        "^nowhere"]))
    elif kind == "attr_type":
        node = _some_node(rng, proto)[1]
        if node.get("attr"):
            key = rng.choice(sorted(node["attr"]))
            node["attr"][key] = rng.choice([{"s": b"\xff\xfe"}, {"i": -1}, {"type": 9999},
                                            {"list": {"i": [1, 2, 3]}}, {"f": float("nan")},
                                            {"placeholder": "T"}, {}])
    elif kind == "input_count":
        node = _some_node(rng, proto)[1]
        if node.get("input") and rng.random() < 0.5:
            node["input"].pop()
        else:
            node.setdefault("input", []).extend(node.get("input", [])[:1] * 3)
    elif kind == "huge_const":
        node = _some_node(rng, proto)[1]
        node["op"] = "Const"
        node["input"] = []
        node["attr"] = {"dtype": {"type": 1}, "value": {"tensor": {
            "dtype": 1, "tensor_shape": {"dim": [{"size": rng.choice([10 ** 6, 10 ** 12])},
                                                 {"size": 10 ** 6}]},
            "float_val": [1.0]}}}
    elif kind == "bad_shape":
        target = rng.choice([n for n in nodes if "variable" in n] or nodes)
        target.setdefault("variable", {})["shape"] = {"dim": [{"size": -7}] if rng.random() <
                                                      0.5 else [{"size": 1}] * 300}
    elif kind == "deep_value":
        saved = rng.choice(list(graph.get("concrete_functions", {}).values()))
        saved["output_signature"] = _nested(rng.choice([50, 150, 250]))
    elif kind == "missing_function":
        fn_nodes = [n for n in nodes if "function" in n]
        if fn_nodes:
            rng.choice(fn_nodes)["function"]["concrete_functions"] = ["no_such_function"]
    elif kind == "drop_ret":
        fd = rng.choice(_functions(proto))
        fd["ret"] = {}
    else:
        fd = rng.choice(_functions(proto))
        for a in fd["signature"].get("input_arg", []):
            a["type"] = rng.choice([0, 9999, 21])
    return kind


def mutate(rng, seed_dir, case_dir):
    """Writes a mutated copy of SavedModel `seed_dir` into `case_dir`;
    returns a short description."""
    pb = os.path.join(seed_dir, "saved_model.pb")
    with open(pb, "rb") as f:
        data = f.read()
    if rng.random() < 0.4:
        out, what = _mutate_bytes(rng, data), "bytes"
    else:
        proto = proto_codec.decode(data, "tensorflow.SavedModel")
        proto = copy.deepcopy(proto)
        what = _hostile(rng, proto)
        try:
            out = proto_codec.encode(proto, "tensorflow.SavedModel")
        except (TypeError, ValueError, OverflowError, RecursionError):
            out = data[:len(data) // 3]
    with open(os.path.join(case_dir, "saved_model.pb"), "wb") as f:
        f.write(out)
    return what


def run_case(case_dir, name):
    """Loads `case_dir` and makes `name`'s calls. Returns None, or the
    exception when it is one of ALLOWED; raises anything else."""
    try:
        loaded = tf.saved_model.load(case_dir)
        for spec in ss.CALLS[name]:
            ss.call(tf, loaded, spec)
    except ALLOWED as e:
        return e
    return None


def run(seed, count, directory, on_case=None):
    """Runs `count` cases from `seed`; returns {outcome name: count}."""
    rng = random.Random(seed)
    outcomes = {}
    for i in range(count):
        name = SEED_MODELS[i % len(SEED_MODELS)]
        case_dir = os.path.join(directory, "case_" + name)
        if not os.path.isdir(case_dir):
            shutil.copytree(os.path.join(DATA, name), case_dir)
        description = mutate(rng, os.path.join(DATA, name), case_dir)
        try:
            outcome = run_case(case_dir, name)
        except Exception as e:
            raise AssertionError(f"case {i} ({name}, {description}) raised "
                                 f"{type(e).__name__}: {e}") from e
        key = type(outcome).__name__ if outcome is not None else "ok"
        outcomes[key] = outcomes.get(key, 0) + 1
        if on_case is not None:
            on_case(i, description, outcome)
    return outcomes

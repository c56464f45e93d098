"""Mutated SavedModels (tests/saved_model_mutations.py) fail with clear
errors when loaded and called, never a crash, a hang or a giant
allocation; bounded for CI (tools/saved_model_fuzz.py runs long)."""
import resource
import time

import pytest

import saved_model_mutations as sm


@pytest.mark.parametrize("seed", [0, 1])
def test_mutated_saved_models_fail_cleanly(tmp_path, seed):
    start = time.time()
    outcomes = sm.run(seed, 120, str(tmp_path))
    assert sum(outcomes.values()) == 120
    assert outcomes.get("DataLossError", 0) > 20     # the wire format checks catch damage
    assert outcomes.get("InvalidArgumentError", 0) > 20  # and the meaning checks the rest
    assert time.time() - start < 90
    # A 10**12-element Const filled from one value is refused, not allocated.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 4 * 1024 * 1024


def test_deeply_nested_values_are_data_loss(tmp_path):
    """Nesting deeper than protobuf's limit (100) is refused by the
    parser: a value 150 deep in a signature, and 20,000 deep in bytes that
    would overflow a recursive parser's stack."""
    import os
    import shutil
    import rillflow as tf
    from rillflow.io import proto_codec, wire
    target = tmp_path / "m"
    shutil.copytree(os.path.join(sm.DATA, "module"), target)
    pb = target / "saved_model.pb"
    proto = proto_codec.decode(pb.read_bytes(), "tensorflow.SavedModel")
    saved = next(iter(proto["meta_graphs"][0]["object_graph_def"]["concrete_functions"]
                      .values()))
    saved["output_signature"] = sm._nested(150)
    pb.write_bytes(proto_codec.encode(proto, "tensorflow.SavedModel"))
    with pytest.raises(tf.errors.DataLossError, match="nested too deeply"):
        tf.saved_model.load(str(target))
    deep = b""
    for _ in range(20000):   # StructuredValue.list_value -> ListValue.values -> ...
        deep = wire.len_field(51, wire.len_field(1, deep))
    with pytest.raises(proto_codec.DecodeError, match="nested too deeply"):
        proto_codec.decode(deep, "tensorflow.StructuredValue")

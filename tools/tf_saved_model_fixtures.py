"""Regenerates tests/data/tf_saved_models/: small SavedModels written by
TensorFlow 2.21, which tests/test_tf_saved_models.py loads with rillflow
and runs on rillflow's kernels.

  module/        a tf.Module: variables (one in a nested module, two in a
                 list), `__call__` with an input_signature, `scale` traced
                 for two shapes, `bump` (assign_add), signatures
                 serving_default and `scaled`.
  control_flow/  tf.cond, tf.while_loop, an AutoGraph `for` over tf.range
                 with a tensor `if` inside, tf.switch_case.
  training/      a signature that runs a training step (GradientTape,
                 variable updates).
  keras_export/  Keras 3 `model.export` of a functional model (Dense, relu,
                 Dropout, BatchNormalization, softmax).
  expected.json  inputs and TensorFlow's outputs of every function above.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_saved_model_fixtures.py
"""
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import saved_model_structures as ss  # noqa: E402  (needs tests/ on the path)

OUT = os.path.join(HERE, "..", "tests", "data", "tf_saved_models")


def main():
    """Writes the fixture directory (removing an old one first)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import keras
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    expected = {}
    for name, build in (("module", ss.build_module), ("control_flow", ss.build_control_flow),
                        ("training", ss.build_training)):
        obj, signatures = build(tf)
        tf.saved_model.save(obj, os.path.join(OUT, name), signatures=signatures)
    ss.build_keras_model(keras).export(os.path.join(OUT, "keras_export"))
    for name in ("module", "control_flow", "training", "keras_export"):
        # What TensorFlow computes from the files: the values rillflow must give.
        loaded = tf.saved_model.load(os.path.join(OUT, name))
        expected[name] = ss.run_calls(tf, loaded, ss.CALLS[name])
    for name in os.listdir(OUT):
        fingerprint = os.path.join(OUT, name, "fingerprint.pb")
        if os.path.exists(fingerprint):
            os.remove(fingerprint)  # not needed to load; changes with every run
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

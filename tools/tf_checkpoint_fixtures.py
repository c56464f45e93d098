"""Regenerates tests/data/tf_checkpoints/: small checkpoints written by
TensorFlow 2.21, which tests/test_tf_checkpoints.py reads with rillflow.

  module/       tf.train.Checkpoint(model=Net(), step=...).save(): variables of
                every dtype (strings and bfloat16/half included), a nested
                module, a list, a dict with names that need escaping, a tuple
                (tests/checkpoint_structures.py), and TensorFlow's `checkpoint`
                state file.
  v1_adam/      a one-layer model and tf.compat.v1.train.AdamOptimizer after two
                steps: slot variables (`.OPTIMIZER_SLOT` keys, `slot_variables`
                in the object graph).
  keras_adam/   the same with Keras 3's Adam, whose variables are a list
                (`optimizer/_variables/N`).
  keras_sequential/  tf.train.Checkpoint(model=, optimizer=) of a Keras 3
                Sequential model (Dense, Dense) and its Adam after two
                train_on_batch steps (`ckpt`), and after a third (`next`).
  keras_functional/  the same model built functionally (`ckpt`).
  manager/      tf.train.CheckpointManager(max_to_keep=2) after three saves.
  raw/          tf.raw_ops.SaveV2 of checkpoint_structures.module_values(), by
                sorted name: rillflow's writer must produce these bytes exactly.
  values.json   every saved tensor of the above but the object graphs, as
                checkpoint_structures.to_json writes them.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_checkpoint_fixtures.py
(`--only keras_sequential keras_functional` rewrites just those, keeping the
others and their entries in values.json).
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import checkpoint_structures as cs  # noqa: E402  (needs tests/ on the path)

OUT = os.path.join(HERE, "..", "tests", "data", "tf_checkpoints")


def _record(tf, values, prefix):
    """Adds every tensor of checkpoint `prefix` (but the object graph) to `values`."""
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    out = {}
    for key in reader.get_variable_to_shape_map():
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH":
            continue
        value = np.asarray(reader.get_tensor(key),
                           dtype=object if dtypes[key] == tf.string else None)
        out[key] = cs.to_json(value)
    values[os.path.relpath(prefix, OUT)] = out


def write_module(tf, values):
    """The `module` fixture."""
    ckpt = tf.train.Checkpoint(**cs.build_net(tf, cs.module_values()))
    _record(tf, values, ckpt.save(os.path.join(OUT, "module", "ckpt")))


def write_v1_adam(tf, values):
    """The `v1_adam` fixture (slot variables)."""
    model = cs.build_dense_model(tf)
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    cs.dense_steps(tf, model, opt)
    _record(tf, values, tf.train.Checkpoint(model=model, optimizer=opt).write(
        os.path.join(OUT, "v1_adam", "ckpt")))


def write_keras_adam(tf, values):
    """The `keras_adam` fixture (Keras 3 optimizer variables in a list)."""
    import keras
    model = cs.build_dense_model(tf)
    opt = keras.optimizers.Adam(0.1)
    cs.dense_steps(tf, model, opt)
    _record(tf, values, tf.train.Checkpoint(model=model, optimizer=opt).write(
        os.path.join(OUT, "keras_adam", "ckpt")))


def write_keras_sequential(tf, values):
    """The `keras_sequential` fixture: a Keras model and its Adam, through
    TensorFlow's Trackable protocol (Keras variables, layer dependencies)."""
    import keras
    model, opt = cs.build_keras_model(keras)
    cs.keras_steps(model)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    _record(tf, values, ckpt.write(os.path.join(OUT, "keras_sequential", "ckpt")))
    cs.keras_steps(model, 1)
    _record(tf, values, ckpt.write(os.path.join(OUT, "keras_sequential", "next")))


def write_keras_functional(tf, values):
    """The `keras_functional` fixture."""
    import keras
    model, opt = cs.build_keras_model(keras, functional=True)
    cs.keras_steps(model)
    _record(tf, values, tf.train.Checkpoint(model=model, optimizer=opt).write(
        os.path.join(OUT, "keras_functional", "ckpt")))


def write_manager(tf, values):
    """The `manager` fixture: three saves, two kept."""
    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    manager = tf.train.CheckpointManager(ckpt, os.path.join(OUT, "manager"), max_to_keep=2)
    for _ in range(3):
        ckpt.v.assign_add([1.0, 1.0])
        path = manager.save()
    _record(tf, values, path)


def write_raw(tf, values):
    """The `raw` fixture: SaveV2 of module_values(), names sorted."""
    vals = cs.module_values()
    names = sorted(vals)
    tensors = [tf.constant(vals[n], dtype=tf.string if vals[n].dtype == object else None)
               for n in names]
    prefix = os.path.join(OUT, "raw", "bundle")
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=tensors)
    _record(tf, values, prefix)


WRITERS = {"module": write_module, "v1_adam": write_v1_adam, "keras_adam": write_keras_adam,
           "keras_sequential": write_keras_sequential,
           "keras_functional": write_keras_functional, "manager": write_manager,
           "raw": write_raw}


def main(argv=None):
    """Writes the fixture directory (removing an old one first), or with
    --only the named fixtures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(WRITERS))
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    values = {}
    if args.only:
        with open(os.path.join(OUT, "values.json")) as f:
            values = {k: v for k, v in json.load(f).items()
                      if k.split("/")[0] not in args.only}
        for name in args.only:
            shutil.rmtree(os.path.join(OUT, name), ignore_errors=True)
    else:
        if os.path.isdir(OUT):
            shutil.rmtree(OUT)
        os.makedirs(OUT)
    for name, write in WRITERS.items():
        if not args.only or name in args.only:
            write(tf, values)
    with open(os.path.join(OUT, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

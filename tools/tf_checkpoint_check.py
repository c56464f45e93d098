"""Checks that TensorFlow restores the checkpoints rillflow writes.

rillflow (this interpreter) writes, under --dir:

  module/    Checkpoint(model=Net, step=...).save(): every dtype, nesting,
             lists, dicts, escaped names (tests/checkpoint_structures.py)
  slots/     a one-layer model and an optimizer with TensorFlow's v1 Adam
             layout after two steps (slot variables)
  many/      3,000 variables with long names (an index of several blocks), a
             4 MiB tensor and a 2,000-element string tensor
  manager/   CheckpointManager(max_to_keep=2) after three saves
  keras/     (when Keras is installed) a Keras 3 Sequential model and its
             Adam after two steps, through TensorFlow's Trackable protocol
  expected.json   every value written, by checkpoint and key

then TensorFlow (--tensorflow, a Python with tensorflow-cpu 2.21) builds the
same structures in a subprocess, restores them (assert_consumed), creates
the v1 AdamOptimizer's slots (and the Keras Adam's variables) and compares
every value, key and shape; it writes `many` again (tf_many/), which rillflow then restores and compares.

    PYTHONPATH=. python tools/tf_checkpoint_check.py --tensorflow /work/tfref/bin/python

tests/test_tf_checkpoints.py runs it when RILLFLOW_TF_PYTHON is set.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import checkpoint_structures as cs  # noqa: E402  (needs tests/ on the path)


def _record(tf, prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    return {key: cs.to_json(np.asarray(reader.get_tensor(key),
                                       dtype=object if dtypes[key] == tf.string else None))
            for key in reader.get_variable_to_shape_map()
            if key != "_CHECKPOINTABLE_OBJECT_GRAPH"}


def rillflow_side(directory):
    """Writes the checkpoints and expected.json with rillflow."""
    import rillflow as tf
    from rillflow.saved_model import checkpoint as checkpoint_module
    expected = {}
    ckpt = tf.train.Checkpoint(**cs.build_net(tf, cs.module_values()))
    expected["module"] = _record(tf, ckpt.save(os.path.join(directory, "module", "ckpt")))

    model = cs.build_dense_model(tf)
    opt = cs.make_slot_adam(tf, checkpoint_module.slot_created)()
    cs.dense_steps(tf, model, opt)
    path = tf.train.Checkpoint(model=model, optimizer=opt).write(
        os.path.join(directory, "slots", "ckpt"))
    expected["slots"] = _record(tf, path)

    ckpt = tf.train.Checkpoint(**cs.build_many(tf, cs.many_values()))
    expected["many"] = _record(tf, ckpt.write(os.path.join(directory, "many", "ckpt")))

    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    manager = tf.train.CheckpointManager(ckpt, os.path.join(directory, "manager"), max_to_keep=2)
    for _ in range(3):
        ckpt.v.assign_add([1.0, 1.0])
        path = manager.save()
    expected["manager"] = _record(tf, path)
    if importlib.util.find_spec("keras") is not None:
        os.environ["KERAS_BACKEND"] = "tensorflow"
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import keras
        model, opt = cs.build_keras_model(keras)
        cs.keras_steps(model)
        path = tf.train.Checkpoint(model=model, optimizer=opt).write(
            os.path.join(directory, "keras", "ckpt"))
        expected["keras"] = _record(tf, path)
    with open(os.path.join(directory, "expected.json"), "w") as f:
        json.dump(expected, f)


def rillflow_reads(directory):
    """Restores TensorFlow's `tf_many` checkpoint with rillflow and compares."""
    import rillflow as tf
    values = cs.many_values()
    objects = cs.build_many(tf, cs.zeros_like(values))
    tf.train.Checkpoint(**objects).read(os.path.join(directory, "tf_many", "ckpt")) \
        .assert_consumed()
    for name, value in values.items():
        _same(objects["model"].table[name].numpy(), value, f"tf_many {name}")


def _same(have, want, what):
    have = np.asarray(have, dtype=object if want.dtype == object else None)
    if have.shape != want.shape or have.dtype != want.dtype or not np.array_equal(have, want):
        raise AssertionError(f"{what}: TensorFlow has {have!r}, rillflow wrote {want!r}")


def _check_reader(tf, prefix, expected):
    """TensorFlow's reader: same keys, shapes, dtypes and values."""
    reader = tf.train.load_checkpoint(prefix)
    keys = set(reader.get_variable_to_shape_map()) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    if keys != set(expected):
        raise AssertionError(f"{prefix}: keys differ: {sorted(keys ^ set(expected))[:5]}")
    for key, doc in expected.items():
        _same(reader.get_tensor(key), cs.from_json(doc), f"{prefix} {key}")


def tensorflow_side(directory):
    """Restores every checkpoint with TensorFlow and compares."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    with open(os.path.join(directory, "expected.json")) as f:
        expected = json.load(f)

    values = cs.module_values()
    objects = cs.build_net(tf, cs.zeros_like(values))
    ckpt = tf.train.Checkpoint(**objects)
    prefix = tf.train.latest_checkpoint(os.path.join(directory, "module"))
    ckpt.restore(prefix).assert_consumed()
    _check_reader(tf, prefix, expected["module"])
    for name, value in values.items():
        _same(getattr(objects["model"], name).numpy(), value, f"module {name}")
    print("module: restored", len(expected["module"]), "values")

    model = cs.build_dense_model(tf)
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    prefix = os.path.join(directory, "slots", "ckpt")
    status = ckpt.read(prefix)  # written by write(): no save_counter
    variables = [model.dense.kernel, model.dense.bias]
    opt._create_slots(variables)  # slots and beta powers, restored on creation
    status.assert_consumed()
    _check_reader(tf, prefix, expected["slots"])
    want = expected["slots"]
    for var, path in zip(variables, ("model/dense/kernel", "model/dense/bias")):
        _same(var.numpy(), cs.from_json(want[path + "/.ATTRIBUTES/VARIABLE_VALUE"]), path)
        for slot in ("m", "v"):
            key = f"{path}/.OPTIMIZER_SLOT/optimizer/{slot}/.ATTRIBUTES/VARIABLE_VALUE"
            _same(opt.get_slot(var, slot).numpy(), cs.from_json(want[key]), key)
    beta1, _ = opt._get_beta_accumulators()
    _same(beta1.numpy(), cs.from_json(want["optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE"]),
          "beta1_power")
    print("slots: restored, slots created after restore() got their values")

    values = cs.many_values()
    objects = cs.build_many(tf, cs.zeros_like(values))
    prefix = os.path.join(directory, "many", "ckpt")
    tf.train.Checkpoint(**objects).read(prefix).assert_consumed()
    for name, value in values.items():
        _same(objects["model"].table[name].numpy(), value, f"many {name}")
    _check_reader(tf, prefix, expected["many"])
    print("many: restored", len(values), "variables")
    # And the other way round: TensorFlow writes the same, rillflow reads it.
    tf.train.Checkpoint(**objects).write(os.path.join(directory, "tf_many", "ckpt"))

    ckpt = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0]))
    manager = tf.train.CheckpointManager(ckpt, os.path.join(directory, "manager"), max_to_keep=2)
    names = [os.path.basename(p) for p in manager.checkpoints]
    if names != ["ckpt-2", "ckpt-3"]:
        raise AssertionError(f"manager: TensorFlow lists {names}")
    manager.restore_or_initialize()
    _same(ckpt.v.numpy(), np.array([4.0, 5.0], np.float32), "manager v")
    if int(ckpt.save_counter.numpy()) != 3:
        raise AssertionError("manager: save_counter")
    print("manager: state file and latest checkpoint read")

    if "keras" in expected:
        import keras
        model, opt = cs.build_keras_model(keras)
        prefix = os.path.join(directory, "keras", "ckpt")
        status = tf.train.Checkpoint(model=model, optimizer=opt).read(prefix)
        opt.build(model.trainable_variables)  # Adam's moments, restored on creation
        status.assert_consumed()
        _check_reader(tf, prefix, expected["keras"])
        want = expected["keras"]
        for i, var in enumerate(model.trainable_variables):
            key = f"optimizer/_trainable_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"
            _same(var.numpy(), cs.from_json(want[key]), key)
        for i, var in enumerate(opt.variables[2:], 2):
            key = f"optimizer/_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"
            _same(var.numpy(), cs.from_json(want[key]), key)
        _same(opt.iterations.numpy(), cs.from_json(
            want["optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"]), "iterations")
        print("keras: model and Adam restored, moments on build")


def main(argv=None):
    """Runs both sides; exit status 0 when TensorFlow restored everything."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorflow", help="a Python interpreter with TensorFlow")
    ap.add_argument("--dir", help="where to write the checkpoints (default: a temporary one)")
    ap.add_argument("--tf-side", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tf_side:
        tensorflow_side(args.tf_side)
        return 0
    if not args.tensorflow:
        ap.error("--tensorflow is required")
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or tmp
        rillflow_side(directory)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run([args.tensorflow, os.path.abspath(__file__), "--tf-side", directory],
                              env=env)
        if proc.returncode:
            return proc.returncode
        rillflow_reads(directory)
        print("tf_many: rillflow restored TensorFlow's checkpoint")
        print("all checks passed")
        return 0


if __name__ == "__main__":
    sys.exit(main())

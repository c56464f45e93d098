"""`tf.train.Checkpoint(model=keras_model, optimizer=keras_optimizer)` on
rillflow, through TensorFlow's Trackable protocol (Keras' variables save
through `_serialize_to_tensors`, layers name their dependencies with
`_trackable_children`): TensorFlow 2.21's checkpoints of a Keras 3 model and
its Adam (tests/data/tf_checkpoints/keras_*, from
tools/tf_checkpoint_fixtures.py) restore into the same model on rillflow,
and rillflow writes TensorFlow's object graph and keys. The other direction
(TensorFlow restores rillflow's) is in tools/tf_checkpoint_check.py. Each
case runs in a subprocess, as in test_keras_basic.py: importing Keras fixes
its backend for the process."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

needs_keras = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                 reason="keras not installed (pip install rillflow[keras])")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = """
import json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(ROOT, "tests"))
from rillflow.compat import tensorflow_shim
tensorflow_shim.install()
import tensorflow as tf
import keras
import checkpoint_structures as cs
from rillflow.io import tensor_bundle
from rillflow.saved_model import checkpoint_graph
DATA = os.path.join(ROOT, "tests", "data", "tf_checkpoints")
VALUES = json.load(open(os.path.join(DATA, "values.json")))

def expected(prefix):
    return {k: cs.from_json(v) for k, v in VALUES[prefix].items()}

def graph(prefix):
    reader = tensor_bundle.BundleReader(prefix)
    return cs.object_graph_nodes(checkpoint_graph.parse(
        reader.get(checkpoint_graph.OBJECT_GRAPH_KEY).item()))
"""


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               KERAS_BACKEND="tensorflow")
    source = f"ROOT = {ROOT!r}\n" + PRELUDE + textwrap.dedent(code)
    r = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@needs_keras
def test_restores_tensorflows_keras_checkpoint_and_trains_on():
    """Into a fresh model and an Adam that has no variables yet: the
    weights at once, the optimizer's moments when it builds them (Adam
    assigns its `_momentums` list, whose saved entries are restored then),
    and a third step lands on TensorFlow's third step."""
    _run("""
        model, opt = cs.build_keras_model(keras)
        model.set_weights([np.zeros_like(w) for w in model.get_weights()])
        status = tf.train.Checkpoint(model=model, optimizer=opt).read(
            os.path.join(DATA, "keras_sequential", "ckpt"))
        want = expected("keras_sequential/ckpt")
        for i, v in enumerate(model.trainable_variables):
            np.testing.assert_array_equal(
                v.numpy(), want[f"optimizer/_trainable_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"])
        assert int(opt.iterations.numpy()) == 2
        opt.build(model.trainable_variables)
        status.assert_consumed()
        for i, v in enumerate(opt.variables[2:], 2):
            np.testing.assert_array_equal(
                v.numpy(), want[f"optimizer/_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"])
        cs.keras_steps(model, 1)
        after = expected("keras_sequential/next")
        for i, v in enumerate(opt.variables[2:], 2):
            np.testing.assert_allclose(
                v.numpy(), after[f"optimizer/_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"],
                rtol=1e-5, atol=1e-6)
        """)


@needs_keras
@pytest.mark.parametrize("functional", [False, True])
def test_writes_tensorflows_object_graph_and_keys(functional, tmp_path):
    """Same nodes (the empty lists and dicts TensorFlow wraps included),
    names, attributes with their full names, keys and dtypes/shapes."""
    name = "keras_functional" if functional else "keras_sequential"
    _run(f"""
        model, opt = cs.build_keras_model(keras, functional={functional})
        cs.keras_steps(model)
        path = tf.train.Checkpoint(model=model, optimizer=opt).write({str(tmp_path / 'ck')!r})
        theirs = os.path.join(DATA, "{name}", "ckpt")
        assert graph(path) == graph(theirs), (graph(path), graph(theirs))
        mine = tensor_bundle.BundleReader(path)
        want = expected("{name}/ckpt")
        assert sorted(mine.names()) == sorted(list(want) + [checkpoint_graph.OBJECT_GRAPH_KEY])
        for key, value in want.items():
            assert mine.dtype(key).name == value.dtype.name and tuple(mine.shape(key)) == value.shape
            np.testing.assert_allclose(mine.get(key), value, rtol=1e-5, atol=1e-6, err_msg=key)
        """)


@needs_keras
def test_restores_into_a_sequential_built_after_restore():
    """A Sequential without an Input builds its layers on the first call,
    after restore(): their variables get the saved values when the layers
    track them."""
    _run("""
        model, opt = cs.build_keras_model(keras, with_input=False)
        status = tf.train.Checkpoint(model=model, optimizer=opt).read(
            os.path.join(DATA, "keras_sequential", "ckpt"))
        model(cs.keras_batch()[0])
        want = expected("keras_sequential/ckpt")
        for i, v in enumerate(model.trainable_variables):
            np.testing.assert_array_equal(
                v.numpy(), want[f"optimizer/_trainable_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"])
        status.assert_existing_objects_matched()
        """)


@needs_keras
def test_round_trip_and_mismatches():
    """rillflow writes, rillflow restores; a wrong shape is TensorFlow's
    ValueError; a checkpoint of a tf.Module does not match a Keras model."""
    _run("""
        import tempfile
        model, opt = cs.build_keras_model(keras)
        cs.keras_steps(model)
        path = tf.train.Checkpoint(model=model, optimizer=opt).write(
            os.path.join(tempfile.mkdtemp(), "ck"))
        other, other_opt = cs.build_keras_model(keras)
        status = tf.train.Checkpoint(model=other, optimizer=other_opt).read(path)
        other_opt.build(other.trainable_variables)
        status.assert_consumed()
        for a, b in zip(model.weights + opt.variables, other.weights + other_opt.variables):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        wide = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5), keras.layers.Dense(2)])
        try:
            tf.train.Checkpoint(model=wide).read(path)
        except ValueError as e:
            assert "Received incompatible tensor with shape (3, 4)" in str(e), e
        else:
            raise AssertionError("no error for a wrong shape")
        status = tf.train.Checkpoint(model=other).read(os.path.join(DATA, "v1_adam", "ckpt"))
        try:
            status.assert_existing_objects_matched()
        except AssertionError as e:
            assert "not bound to checkpointed values" in str(e)
        else:
            raise AssertionError("a tf.Module checkpoint matched a Keras model")
        """)


@needs_keras
def test_optimizers_that_replace_their_lists_restore_on_build():
    """Keras' SGD assigns `momentums = []` in build, then the list of its
    momentum variables: the replaced list gets the saved values (TensorFlow
    restores them through its list wrappers)."""
    _run("""
        import tempfile
        for make in (lambda: keras.optimizers.SGD(0.1, momentum=0.9),
                     lambda: keras.optimizers.RMSprop(0.01)):
            model, _ = cs.build_keras_model(keras)
            opt = make()
            model.compile(optimizer=opt, loss="mse")
            cs.keras_steps(model)
            path = tf.train.Checkpoint(model=model, optimizer=opt).write(
                os.path.join(tempfile.mkdtemp(), "ck"))
            fresh, _ = cs.build_keras_model(keras)
            fresh_opt = make()
            fresh.compile(optimizer=fresh_opt, loss="mse")
            status = tf.train.Checkpoint(model=fresh, optimizer=fresh_opt).read(path)
            fresh_opt.build(fresh.trainable_variables)
            status.assert_consumed()
            for a, b in zip(opt.variables, fresh_opt.variables):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
        """)

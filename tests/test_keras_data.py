"""Keras 3 on rillflow beyond `fit` on arrays: tf.data.Dataset and tensor
inputs, shuffled epochs, Nadam on an Embedding model, class and sample
weights, train_on_batch, callbacks and the TensorBoard event files, each
trained as on TensorFlow 2.21 (tests/data/keras_data.json, from
tools/keras_data_fixture.py); `model.export` reloaded with
`tf.saved_model.load`. Each case runs in a subprocess, as in
tests/test_keras_basic.py (importing Keras fixes its backend)."""
import importlib.util
import json
import os

import numpy as np
import pytest

from test_keras_basic import ROOT, _run, needs_keras

with open(os.path.join(ROOT, "tests", "data", "keras_data.json")) as _f:
    _WANT = json.load(_f)


def _close(got, want, path=""):
    """Float32 training: the same ops in the same order, so within a few ulps."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}/{k}")
    elif want and isinstance(want, list) and isinstance(want[0], str):
        assert got == want, path
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-5, atol=1e-6, err_msg=path)


@needs_keras
@pytest.mark.parametrize("scenario", sorted(_WANT))
def test_keras_scenario_matches_tensorflow(scenario):
    if scenario in ("tensorboard", "callbacks_saving") and \
            importlib.util.find_spec("tensorboard") is None:
        pytest.skip("tensorboard not installed (pip install rillflow[tensorboard])")
    r = _run(f"""
        import json, sys
        sys.path.insert(0, "tools")
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import keras_data_fixture
        print(json.dumps(keras_data_fixture.run({scenario!r})))
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    want = _WANT[scenario]
    for key in ("epochs", "stopped_epoch"):
        if key in want:
            assert got[key] == want[key]
    _close(got, want)


@needs_keras
def test_keras_recognizes_rillflow_types_as_tensorflow_types():
    # Keras tells TensorFlow's types by class name and "tensorflow.python." in
    # the class's module; the shim gives rillflow's classes TensorFlow's
    # module and name (compat/tf_internals/python_modules.py:CLASS_ALIASES).
    r = _run("""
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import importlib
        import tensorflow as tf
        import keras
        from keras.src.trainers import data_adapters
        from keras.src.trainers.data_adapters import data_adapter_utils as u
        from keras.src.utils import dataset_utils
        ds = tf.data.Dataset.range(3).batch(2)
        dist = tf.distribute.get_strategy().experimental_distribute_dataset(ds)
        rt = tf.ragged.constant([[1], [2, 3]])
        st = tf.sparse.from_dense([[0, 1]])
        print(data_adapters.is_tf_dataset(ds), dataset_utils.is_tf_dataset(ds),
              data_adapters.is_tf_dataset(dist), u.is_tensorflow_tensor(tf.constant(1)),
              u.is_tensorflow_ragged(rt), u.is_tensorflow_sparse(st),
              u.is_tensorflow_tensor(rt), u.is_tensorflow_tensor(st),
              u.is_tensorflow_tensor(keras.Variable(1.0)),
              # True on TensorFlow, whose ResourceVariable derives from
              # types.core.Tensor; rillflow's Variable only registers with it.
              u.is_tensorflow_tensor(tf.Variable(1.0)))
        # The alias resolves like any class path.
        for cls in (tf.data.Dataset, tf.Tensor, tf.RaggedTensor, tf.SparseTensor):
            mod = importlib.import_module(cls.__module__)
            assert getattr(mod, cls.__qualname__) is cls, cls
        print(tf.data.Dataset.__name__, tf.Tensor.__module__)
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["True"] * 9 + ["False", "DatasetV2",
                                               "tensorflow.python.framework.tensor"]


def test_rillflow_classes_keep_their_names_without_the_shim():
    r = _run("""
        import rillflow as tf
        print(tf.data.Dataset.__module__, tf.data.Dataset.__name__, tf.Tensor.__module__)
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["rillflow.data.dataset_ops", "Dataset", "rillflow.framework.tensor"]

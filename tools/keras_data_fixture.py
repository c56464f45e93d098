"""Keras training paths beyond `fit` on NumPy arrays, for
tests/test_keras_data.py: `tf.data.Dataset` inputs, tensors, shuffled
epochs, Nadam on an Embedding model, class and sample weights,
`train_on_batch`, callbacks (EarlyStopping, ReduceLROnPlateau,
ModelCheckpoint, TensorBoard), `model.export` reloaded. Each scenario
returns its numbers as JSON. Run under TensorFlow 2.21 + Keras (and the
`tensorboard` package) to regenerate the fixture:

    python tools/keras_data_fixture.py > tests/data/keras_data.json

`python tools/keras_data_fixture.py --rillflow [SCENARIO...]` runs them on
rillflow (through the shim). Weights are set from NumPy (seeded here), not
from Keras' initializers, whose random streams differ between backends.
"""
import glob
import json
import os
import struct
import sys
import tempfile

os.environ["KERAS_BACKEND"] = "tensorflow"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras_basic_fixture  # noqa: E402  (the model and data of keras_basic.json)


def _floats(values):
    return [float(v) for v in values]


def _history(hist):
    return {k: _floats(v) for k, v in sorted(hist.history.items())}


def _dense_model(optimizer=None, weighted_metrics=None):
    """The Dense model of keras_basic_fixture, compiled; and its data."""
    import keras
    x, y, weights = keras_basic_fixture.data()
    model = keras.Sequential([
        keras.Input(shape=(8,)),
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dense(3, activation="softmax"),
    ])
    model.set_weights(weights)
    model.compile(optimizer=optimizer or keras.optimizers.Adam(learning_rate=0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"],
                  weighted_metrics=weighted_metrics)
    return model, x, y


def _start():
    import keras
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)


def dataset():
    """fit, with validation data, evaluate and predict on tf.data.Datasets."""
    import tensorflow as tf
    model, x, y = _dense_model()
    train = tf.data.Dataset.from_tensor_slices((x[:48], y[:48])).batch(16)
    val = tf.data.Dataset.from_tensor_slices((x[48:], y[48:])).batch(8)
    hist = model.fit(train, validation_data=val, epochs=3, verbose=0)
    return {"history": _history(hist),
            "evaluate": _floats(model.evaluate(val, verbose=0)),
            "predict": model.predict(tf.data.Dataset.from_tensor_slices(x[:4]).batch(2),
                                     verbose=0).tolist()}


def dataset_shuffled():
    """fit on a dataset shuffled with a seed, reshuffled each epoch."""
    import tensorflow as tf
    model, x, y = _dense_model()
    train = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=7).batch(16)
    hist = model.fit(train, epochs=3, verbose=0)
    return {"history": _history(hist)}


def tensors():
    """fit, evaluate and predict on tf.Tensors."""
    import tensorflow as tf
    model, x, y = _dense_model()
    hist = model.fit(tf.constant(x), tf.constant(y), batch_size=16, epochs=2, shuffle=False,
                     verbose=0)
    return {"history": _history(hist),
            "evaluate": _floats(model.evaluate(tf.constant(x), tf.constant(y), verbose=0)),
            "predict": model.predict(tf.constant(x[:4]), verbose=0).tolist()}


def shuffle():
    """fit(shuffle=True) on arrays: every epoch's order comes from
    tf.random.shuffle under keras.utils.set_random_seed."""
    model, x, y = _dense_model()
    hist = model.fit(x, y, batch_size=16, epochs=4, shuffle=True, verbose=0)
    return {"history": _history(hist)}


def _embedding_fit(optimizer, epochs=3):
    """Fits the Embedding + GlobalAveragePooling1D model with `optimizer`;
    (history, first embedding row)."""
    import keras
    import numpy as np
    rng = np.random.RandomState(1)
    tokens = rng.randint(0, 20, size=(32, 6))
    labels = (tokens[:, 0] % 3).astype("int64")
    model = keras.Sequential([
        keras.Input(shape=(6,), dtype="int32"),
        keras.layers.Embedding(20, 4),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(3, activation="softmax"),
    ])
    model.set_weights([rng.normal(scale=0.5, size=(20, 4)).astype("float32"),
                       rng.normal(scale=0.5, size=(4, 3)).astype("float32"),
                       np.zeros(3, "float32")])
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    hist = model.fit(tokens, labels, batch_size=8, epochs=epochs, shuffle=False, verbose=0)
    return _history(hist), model.get_weights()[0][0].tolist()


def nadam_embedding():
    """Nadam on Embedding + GlobalAveragePooling1D (Nadam builds a variable
    of its own while the train step is traced)."""
    import keras
    history, row = _embedding_fit(keras.optimizers.Nadam(learning_rate=0.05))
    return {"history": history, "embedding_row_0": row}


def optimizers_embedding():
    """Every Keras optimizer on the Embedding model (sparse gradients)."""
    import keras
    o = keras.optimizers
    opts = {"sgd_momentum": o.SGD(0.1, momentum=0.9, nesterov=True), "rmsprop": o.RMSprop(0.01),
            "adagrad": o.Adagrad(0.1), "adadelta": o.Adadelta(1.0), "adamax": o.Adamax(0.05),
            "adamw": o.AdamW(0.05), "ftrl": o.Ftrl(0.1), "lion": o.Lion(0.01),
            "lamb": o.Lamb(0.05), "muon": o.Muon(0.05)}
    out = {}
    for name, opt in opts.items():
        history, row = _embedding_fit(opt, epochs=2)
        out[name] = {"loss": history["loss"], "embedding_row_0": row}
    return out


def class_weight():
    """fit with class_weight."""
    model, x, y = _dense_model()
    hist = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                     class_weight={0: 1.0, 1: 2.0, 2: 0.5})
    return {"history": _history(hist)}


def sample_weight():
    """fit and evaluate with sample weights (and a weighted metric)."""
    import numpy as np
    model, x, y = _dense_model(weighted_metrics=["accuracy"])
    sw = np.linspace(0.2, 2.0, len(x)).astype("float32")
    hist = model.fit(x, y, sample_weight=sw, batch_size=16, epochs=3, shuffle=False, verbose=0)
    return {"history": _history(hist),
            "evaluate": _floats(model.evaluate(x, y, sample_weight=sw, verbose=0))}


def on_batch():
    """train_on_batch, test_on_batch, predict_on_batch."""
    import numpy as np
    model, x, y = _dense_model()
    train = [_floats(np.ravel(model.train_on_batch(x[i:i + 16], y[i:i + 16])))
             for i in range(0, 64, 16)]
    test = _floats(np.ravel(model.test_on_batch(x[:32], y[:32])))
    return {"train": train, "test": test, "predict": model.predict_on_batch(x[:4]).tolist()}


def callbacks():
    """EarlyStopping, ReduceLROnPlateau and ModelCheckpoint (best only,
    weights reloaded) on a run whose validation loss stalls."""
    import keras
    model, x, y = _dense_model(optimizer=keras.optimizers.SGD(learning_rate=0.5))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "best.weights.h5")
        cbs = [keras.callbacks.EarlyStopping(monitor="val_loss", patience=2,
                                             restore_best_weights=True),
               keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1),
               keras.callbacks.ModelCheckpoint(path, monitor="val_loss", save_best_only=True,
                                               save_weights_only=True)]
        hist = model.fit(x[:48], y[:48], validation_data=(x[48:], y[48:]), batch_size=8,
                         epochs=30, shuffle=False, verbose=0, callbacks=cbs)
        restored = _floats(model.evaluate(x[48:], y[48:], verbose=0))
        model.load_weights(path)
        reloaded = _floats(model.evaluate(x[48:], y[48:], verbose=0))
    return {"history": _history(hist), "epochs": len(hist.history["loss"]),
            "stopped_epoch": cbs[0].stopped_epoch, "restored_evaluate": restored,
            "checkpoint_evaluate": reloaded}


def _event_summaries(logdir):
    """({run/tag: [(step, value)]} of the scalar summaries, sorted
    "run/tag plugin" of all summaries) in the event files under `logdir`,
    read with tensorboard's protos only (TensorBoard's readers would import
    `tensorflow`, the library under test)."""
    import numpy as np
    from tensorboard.compat.proto import event_pb2
    out = {}
    tags = set()
    for path in sorted(glob.glob(os.path.join(logdir, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        run = os.path.relpath(os.path.dirname(path), logdir)
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos:pos + 8])
            event = event_pb2.Event.FromString(data[pos + 12:pos + 12 + n])
            pos += 12 + n + 4
            if event.graph_def:
                tags.add(f"{run}/ graph_def")
            for v in event.summary.value:
                tags.add(f"{run}/{v.tag} {v.metadata.plugin_data.plugin_name}")
                if v.HasField("tensor") and v.tensor.dtype == 1 and not v.tensor.tensor_shape.dim:
                    value = float(np.frombuffer(v.tensor.tensor_content, "<f4")[0]) \
                        if v.tensor.tensor_content else float(v.tensor.float_val[0])
                elif v.HasField("simple_value"):
                    value = float(v.simple_value)
                else:
                    continue
                out.setdefault(f"{run}/{v.tag}", []).append([int(event.step), value])
    return out, sorted(tags)


def tensorboard():
    """The TensorBoard callback's event files: the scalars written per epoch
    (train and validation runs) and the tags of all summaries (the model's
    config and graph too)."""
    import keras
    model, x, y = _dense_model()
    with tempfile.TemporaryDirectory() as tmp:
        hist = model.fit(x[:48], y[:48], validation_data=(x[48:], y[48:]), batch_size=16,
                         epochs=2, shuffle=False, verbose=0,
                         callbacks=[keras.callbacks.TensorBoard(log_dir=tmp)])
        scalars, tags = _event_summaries(tmp)
    return {"history": _history(hist), "scalars": scalars, "tags": tags}


def callbacks_saving():
    """TensorBoard with histograms, weight images and per-batch scalars,
    ModelCheckpoint of the whole model (`.keras`, reloaded with
    keras.models.load_model), LearningRateScheduler."""
    import keras
    model, x, y = _dense_model()
    with tempfile.TemporaryDirectory() as tmp:
        cbs = [keras.callbacks.TensorBoard(log_dir=os.path.join(tmp, "tb"), histogram_freq=1,
                                           update_freq="batch", write_images=True),
               keras.callbacks.ModelCheckpoint(os.path.join(tmp, "model.keras")),
               keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)]
        hist = model.fit(x[:48], y[:48], validation_data=(x[48:], y[48:]), batch_size=16,
                         epochs=2, shuffle=False, verbose=0, callbacks=cbs)
        reloaded = keras.models.load_model(os.path.join(tmp, "model.keras"))
        tags = _event_summaries(os.path.join(tmp, "tb"))[1]
    return {"history": _history(hist), "tags": tags,
            "reloaded_predict": reloaded.predict(x[:4], verbose=0).tolist()}


def export():
    """model.export (a SavedModel) reloaded with tf.saved_model.load: the
    `serve` endpoint and the default signature give the model's outputs."""
    import tensorflow as tf
    model, x, y = _dense_model()
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "exported")
        model.export(path, verbose=False)
        reloaded = tf.saved_model.load(path)
        serve = reloaded.serve(tf.constant(x[:4])).numpy().tolist()
        signature = reloaded.signatures["serving_default"](tf.constant(x[:4]))
    return {"predict": model.predict(x[:4], verbose=0).tolist(), "serve": serve,
            "serving_default": {k: v.numpy().tolist() for k, v in signature.items()}}


SCENARIOS = {f.__name__: f for f in (
    dataset, dataset_shuffled, tensors, shuffle, nadam_embedding, optimizers_embedding,
    class_weight,
    sample_weight, on_batch, callbacks, tensorboard, callbacks_saving, export)}


def run(name):
    """The numbers of one scenario, from a fresh Keras session and seed."""
    _start()
    return SCENARIOS[name]()


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--rillflow" in args:
        args.remove("--rillflow")
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
    print(json.dumps({name: run(name) for name in (args or SCENARIOS)}, indent=1))

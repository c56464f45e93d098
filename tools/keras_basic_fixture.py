"""Trains the small Keras model of tests/test_keras_basic.py and prints its
numbers as JSON. Run under TensorFlow 2.21 + Keras to regenerate the fixture:

    python tools/keras_basic_fixture.py > tests/data/keras_basic.json
    python tools/keras_basic_fixture.py --dropout > tests/data/keras_dropout.json

and with `--rillflow` to run the same on rillflow (through the shim).
The weights are set from NumPy (seeded here), not from Keras' initializers,
whose random streams differ between backends.
"""
import json
import os
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"


def data():
    """(x_train, y_train, initial weights) from a fixed NumPy seed."""
    import numpy as np
    rng = np.random.RandomState(0)
    x = rng.normal(size=(64, 8)).astype("float32")
    y = (x[:, 0] + x[:, 1] > 0).astype("int64") + (x[:, 2] > 1).astype("int64")
    weights = [rng.normal(scale=0.3, size=(8, 16)).astype("float32"),
               rng.normal(scale=0.1, size=(16,)).astype("float32"),
               rng.normal(scale=0.3, size=(16, 3)).astype("float32"),
               rng.normal(scale=0.1, size=(3,)).astype("float32")]
    return x, y, weights


def run(dropout=False):
    """Builds, compiles, fits, evaluates and predicts; returns the numbers.

    With `dropout`, a seeded Dropout layer sits between the Dense layers: its
    masks come from tf.nn.experimental.stateless_dropout under Keras' seed
    generator, so training reproduces TensorFlow's only if those masks do.
    """
    import keras
    x, y, weights = data()
    middle = [keras.layers.Dropout(0.3, seed=5)] if dropout else []
    model = keras.Sequential([
        keras.Input(shape=(8,)),
        keras.layers.Dense(16, activation="relu"),
        *middle,
        keras.layers.Dense(3, activation="softmax"),
    ])
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    hist = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    loss, acc = model.evaluate(x, y, batch_size=32, verbose=0)
    pred = model.predict(x[:4], verbose=0)
    return {"history": {k: [float(v) for v in vs] for k, vs in hist.history.items()},
            "evaluate": [float(loss), float(acc)],
            "predict": pred.tolist(),
            "final_kernel_0": model.get_weights()[0][0].tolist()}


if __name__ == "__main__":
    if "--rillflow" in sys.argv:
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
    print(json.dumps(run(dropout="--dropout" in sys.argv), indent=1))

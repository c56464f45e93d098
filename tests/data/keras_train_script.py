"""A Keras training script written for TensorFlow (no rillflow in it):
tests/test_cli_run.py runs it with `rillflow run` and compares its final
losses with TensorFlow's (tests/data/keras_train_script.json, recorded by
tools/keras_run_fixture.py)."""
import json
import sys

import numpy as np
import tensorflow as tf

keras = tf.keras
keras.utils.set_random_seed(42)
rng = np.random.RandomState(0)
x = rng.normal(size=(512, 8)).astype("float32")
y = (x[:, :4].sum(axis=1) > x[:, 4:].sum(axis=1)).astype("int32")

inputs = keras.Input((8,))
h = keras.layers.Dense(32, activation="relu")(inputs)
h = keras.layers.LayerNormalization()(h)
h = keras.layers.Dense(16, activation="tanh")(h)
outputs = keras.layers.Dense(2)(h)
model = keras.Model(inputs, outputs)
model.compile(optimizer=keras.optimizers.Adam(1e-2),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
history = model.fit(x, y, batch_size=64, epochs=4, validation_split=0.25, shuffle=False,
                    verbose=0)
result = {k: [float(v) for v in vs] for k, vs in history.history.items()}
result["evaluate"] = [float(v) for v in model.evaluate(x, y, verbose=0)]
json.dump(result, sys.stdout, sort_keys=True)

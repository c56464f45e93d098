"""Run by tests/test_distribute_jax.py in a child process (Keras installed,
four JAX CPU devices): Keras `model.fit` under a 4-replica MirroredStrategy
against the same fit on one device. Prints "OK"."""
import numpy as np

from rillflow.compat import tensorflow_shim

tensorflow_shim.install()
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402  (rillflow, through the shim)


def fit(strategy):
    keras.utils.set_random_seed(1)
    rng = np.random.RandomState(0)
    x = rng.randn(64, 5).astype(np.float32)
    y = (x @ rng.randn(5, 2)).astype(np.float32)
    with strategy.scope():
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                                  keras.layers.Dense(2)])
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    return model.get_weights(), history.history, model.evaluate(x, y, verbose=0)


def main():
    four = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"])
    assert four.num_replicas_in_sync == 4
    w4, h4, e4 = fit(four)
    w1, h1, e1 = fit(tf.distribute.MirroredStrategy())
    for a, b in zip(w4, w1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for k in ("loss", "mae"):
        np.testing.assert_allclose(h4[k], h1[k], rtol=1e-5)
    np.testing.assert_allclose(e4, e1, rtol=1e-5)
    print("OK")


if __name__ == "__main__":
    main()

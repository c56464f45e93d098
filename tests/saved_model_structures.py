"""Objects saved as SavedModels, built by the same code under TensorFlow or
rillflow (pass the module as `tf`), and the calls made on them after
loading: the fixtures in tests/data/tf_saved_models/
(tools/tf_saved_model_fixtures.py), the tests that load them with
rillflow (tests/test_tf_saved_models.py) and the check that TensorFlow
loads rillflow's SavedModels (tools/tf_saved_model_check.py)."""
import numpy as np


def build_module(tf):
    """A tf.Module with nested state and several kinds of functions;
    returns (module, signatures)."""

    class Inner(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]], name="w")

        @tf.function
        def project(self, x):
            return tf.matmul(x, self.w)

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([1.0, 2.0, 3.0], name="v")
            self.count = tf.Variable(0, dtype=tf.int64, name="count")
            self.table = [tf.Variable(0.5, name="a"), tf.Variable(-2.0, name="b")]
            self.inner = Inner()

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def __call__(self, x):
            h = x * self.v + self.table[0]
            return {"y": self.inner.project(h), "total": tf.reduce_sum(h, axis=1)}

        @tf.function
        def scale(self, x, factor=2.0):
            return x * factor * self.table[1]

        @tf.function(input_signature=[tf.TensorSpec([], tf.int64, name="n")])
        def bump(self, n):
            self.count.assign_add(n)
            return self.count.read_value()

    net = Net()
    net.scale(tf.constant([1.0, 2.0]))
    net.scale(tf.constant([[1.0], [2.0]]), factor=3.0)
    net.inner.project(tf.constant([[1.0, 2.0, 3.0]]))
    signatures = {"serving_default": net.__call__,
                  "scaled": net.scale.get_concrete_function(tf.TensorSpec([2], tf.float32,
                                                                          name="x"))}
    return net, signatures


def build_control_flow(tf):
    """A module whose function uses tf.cond, tf.while_loop (reading a
    variable in the body), AutoGraph loops and conditionals and
    tf.switch_case; returns (module, signatures)."""

    class Flow(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(0.25, name="v")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.int32, name="n")])
        def run(self, x, n):
            total = tf.constant(0.0)
            for i in tf.range(n):
                if tf.reduce_sum(x) > tf.cast(i, tf.float32):
                    total += tf.reduce_sum(x) * tf.cast(i, tf.float32)
                else:
                    total -= 1.0
            y = tf.cond(total > 10.0, lambda: x * 2.0, lambda: x - 1.0)
            _, z = tf.while_loop(lambda k, acc: k < 3,
                                 lambda k, acc: (k + 1, acc * 1.5 + self.v), (0, y))
            w = tf.switch_case(n % 3, [lambda: z + 1.0, lambda: z * 0.0, lambda: -z])
            return {"total": total, "y": y, "z": z, "w": w}

    flow = Flow()
    return flow, {"serving_default": flow.run}


def build_training(tf):
    """A module whose signature runs a training step (GradientTape, then
    variable updates): the updates must happen in the loaded function too;
    returns (module, signatures)."""

    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[0.5], [-0.25]], name="w")
            self.b = tf.Variable([0.1], name="b")

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x"),
                                      tf.TensorSpec([None, 1], tf.float32, name="y")])
        def train(self, x, y):
            with tf.GradientTape() as tape:
                pred = tf.nn.relu(tf.matmul(x, self.w) + self.b)
                loss = tf.reduce_mean(tf.square(pred - y))
            gw, gb = tape.gradient(loss, [self.w, self.b])
            self.w.assign_sub(0.1 * gw)
            self.b.assign_sub(0.1 * gb)
            return {"loss": loss, "w": self.w.read_value()}

    trainer = Trainer()
    return trainer, {"serving_default": trainer.train}


def build_keras_model(keras):
    """A functional Keras model with fixed weights: Dense(relu),
    BatchNormalization, Dropout, Dense(softmax)."""
    inp = keras.Input((4,), name="features")
    h = keras.layers.Dense(8, activation="relu")(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.Dropout(0.5)(h)
    out = keras.layers.Dense(3, activation="softmax")(h)
    model = keras.Model(inp, out)
    weights = []
    for i, w in enumerate(model.get_weights()):
        n = int(np.prod(w.shape))
        vals = np.sin(np.arange(n, dtype=np.float32) * (i + 1) * 0.7).reshape(w.shape)
        if i in (4, 5):  # BatchNormalization's moving mean and variance
            vals = vals * 0.1 + (1.0 if i == 5 else 0.0)
        weights.append(vals.astype(np.float32))
    model.set_weights(weights)
    return model


def _array(a):
    return {"dtype": str(a.dtype), "value": a.tolist()}


X_MODULE = _array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
X_KERAS = _array(np.cos(np.arange(20, dtype=np.float32)).reshape(5, 4))
X_TRAIN = _array(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32))
Y_TRAIN = _array(np.array([[1.0], [0.0], [2.0]], np.float32))

CALLS = {
    "module": [
        {"path": "__call__", "args": [X_MODULE]},
        {"path": "scale", "args": [_array(np.array([1.0, 2.0], np.float32))]},
        {"path": "scale", "args": [_array(np.array([[1.0], [2.0]], np.float32))],
         "kwargs": {"factor": 3.0}},
        {"path": "inner.project", "args": [_array(np.array([[1.0, 2.0, 3.0]], np.float32))]},
        {"signature": "serving_default", "kwargs": {"x": X_MODULE}},
        {"signature": "scaled", "kwargs": {"x": _array(np.array([3.0, 4.0], np.float32))}},
        {"path": "bump", "args": [_array(np.array(5, np.int64))]},
        {"path": "bump", "args": [_array(np.array(2, np.int64))]},
    ],
    "control_flow": [
        {"path": "run", "args": [_array(np.array([1.0, 2.0, 3.0], np.float32)),
                                 _array(np.array(4, np.int32))]},
        {"path": "run", "args": [_array(np.array([-5.0, 1.0], np.float32)),
                                 _array(np.array(2, np.int32))]},
        {"signature": "serving_default", "kwargs": {
            "x": _array(np.array([0.5], np.float32)), "n": _array(np.array(0, np.int32))}},
    ],
    "training": [
        {"path": "train", "args": [X_TRAIN, Y_TRAIN]},
        {"path": "train", "args": [X_TRAIN, Y_TRAIN]},
        {"signature": "serving_default", "kwargs": {"x": X_TRAIN, "y": Y_TRAIN}},
    ],
    "keras_export": [
        {"path": "serve", "args": [X_KERAS]},
        {"signature": "serving_default", "args": [X_KERAS]},
    ],
}


def _value(doc, tf):
    if isinstance(doc, dict) and set(doc) == {"dtype", "value"}:
        return tf.constant(np.array(doc["value"], dtype=doc["dtype"]))
    return doc


def _to_json(out):
    if isinstance(out, dict):
        return {k: _to_json(v) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return [_to_json(v) for v in out]
    return _array(np.asarray(out.numpy()))


def call(tf, obj, spec):
    """Makes the call `spec` (a CALLS entry) on loaded object `obj`."""
    args = [_value(a, tf) for a in spec.get("args", [])]
    kwargs = {k: _value(v, tf) for k, v in spec.get("kwargs", {}).items()}
    if "signature" in spec:
        fn = obj.signatures[spec["signature"]]
    else:
        fn = obj
        for part in spec["path"].split("."):
            fn = getattr(fn, part)
    return fn(*args, **kwargs)


def run_calls(tf, obj, calls):
    """The JSON form of each call's result, in order."""
    return [_to_json(call(tf, obj, spec)) for spec in calls]


def assert_matches(got, want, what, rtol=1e-5, atol=1e-6):
    """Compares a call result with its JSON form."""
    if isinstance(want, dict) and set(want) == {"dtype", "value"}:
        have = np.asarray(got.numpy())
        exp = np.array(want["value"], dtype=want["dtype"])
        assert have.dtype == exp.dtype and have.shape == exp.shape, (what, have, exp)
        np.testing.assert_allclose(have, exp, rtol=rtol, atol=atol, err_msg=what)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (what, got, want)
        for k in want:
            assert_matches(got[k], want[k], f"{what}[{k!r}]", rtol, atol)
    else:
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (what, got)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, f"{what}[{i}]", rtol, atol)

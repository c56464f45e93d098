"""Object structures saved in checkpoints, built by the same code under
TensorFlow or rillflow (pass the module as `tf`): the fixtures in
tests/data/tf_checkpoints/ (tools/tf_checkpoint_fixtures.py), the tests that
restore them (tests/test_tf_checkpoints.py) and the check that TensorFlow
restores rillflow's checkpoints (tools/tf_checkpoint_check.py)."""
import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    ml_dtypes = None


def module_values():
    """name -> NumPy value of the variables of the `module` fixture: every
    dtype a checkpoint holds (bfloat16 only with ml_dtypes)."""
    long_text = bytes(range(256)) * 2  # 512 bytes: a 2-byte varint length
    values = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 3,
        "f64": np.array(np.pi),
        "f16": np.array([1.5, -2.25, 65504.0], np.float16),
        "i8": np.array([-128, 127], np.int8),
        "i16": np.array([-32768, 5], np.int16),
        "i32": np.array([[1, -2], [3, 2 ** 31 - 1]], np.int32),
        "i64": np.array([-(2 ** 63), 2 ** 62], np.int64),
        "u8": np.array([0, 255], np.uint8),
        "u16": np.array([65535], np.uint16),
        "u32": np.array([2 ** 32 - 1], np.uint32),
        "u64": np.array([2 ** 64 - 1], np.uint64),
        "c64": np.array([1 + 2j, -0.5j], np.complex64),
        "c128": np.array(3 - 4j, np.complex128),
        "flags": np.array([True, False, True]),
        "words": np.array([b"", b"caf\xc3\xa9", b"\x00\xff", long_text], dtype=object),
        "title": np.array(b"rillflow", dtype=object),
        "empty": np.zeros((0, 3), np.float32),
        "empty_words": np.zeros((2, 0), dtype=object),
    }
    if ml_dtypes is not None:
        values["bf16"] = np.array([1.5, -3.0e38, 0.1], ml_dtypes.bfloat16)
    return values


def zeros_like(values):
    """Same dtypes and shapes, other contents (to restore into)."""
    out = {}
    for name, v in values.items():
        out[name] = np.full(v.shape, b"?", dtype=object) if v.dtype == object else \
            np.ones(v.shape, v.dtype)
    return out


def build_net(tf, values):
    """`Checkpoint(model=Net, step=...)`'s objects: a module holding a
    variable per entry of `values`, a nested module, a list, a dict whose
    keys need escaping and a tuple. Returns the dict of Checkpoint children."""

    class Inner(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0]], name="inner_w")
            self.deeper = tf.Module()
            self.deeper.count = tf.Variable(7, dtype=tf.int64, name="count")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            for name in sorted(values):
                v = values[name]
                setattr(self, name, tf.Variable(
                    v, name=name, dtype=tf.string if v.dtype == object else None))
            self.inner = Inner()
            self.layers = [tf.Variable(1.0, name="l0"), Inner()]
            self.table = {"a": tf.Variable(2.0), "b/c.d": tf.Variable([3, 4])}
            self.pair = (tf.Variable(True), tf.Variable(b"x"))

    return {"model": Net(), "step": tf.Variable(42, dtype=tf.int64)}


def build_dense_model(tf):
    """A module with one dense layer's kernel and bias."""
    model = tf.Module()
    model.dense = tf.Module()
    model.dense.kernel = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10,
                                     name="kernel")
    model.dense.bias = tf.Variable(np.zeros(2, np.float32), name="bias")
    return model


def dense_steps(tf, model, optimizer, steps=2):
    """`steps` steps of `optimizer.apply_gradients` on a fixed batch."""
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    for _ in range(steps):
        with tf.GradientTape() as tape:
            y = tf.matmul(x, model.dense.kernel) + model.dense.bias
            loss = tf.reduce_sum(y * y)
        variables = [model.dense.kernel, model.dense.bias]
        optimizer.apply_gradients(list(zip(tape.gradient(loss, variables), variables)))


def make_slot_adam(tf, slot_created):
    """A minimal Adam for rillflow with TensorFlow's v1 AdamOptimizer's
    checkpoint layout (children `beta1_power`, `beta2_power`; slots `m` and
    `v` per variable, created on first use). `slot_created` is
    rillflow.saved_model.checkpoint.slot_created, called for each new slot
    so a pending restore fills it."""

    class SlotAdam(tf.Module):
        def __init__(self, learning_rate=0.1, beta1=0.9, beta2=0.999, epsilon=1e-8):
            super().__init__()
            self.hyper = (learning_rate, beta1, beta2, epsilon)
            self.beta1_power = tf.Variable(beta1, name="beta1_power", trainable=False)
            self.beta2_power = tf.Variable(beta2, name="beta2_power", trainable=False)
            self.slot_list = []

        def _checkpoint_children(self):
            return [("beta1_power", self.beta1_power), ("beta2_power", self.beta2_power)]

        def _checkpoint_slots(self):
            # By slot name, then variable, as TensorFlow's v1 optimizers list them.
            return sorted(self.slot_list, key=lambda t: t[1])

        def get_slot(self, var, name):
            for v, n, slot in self.slot_list:
                if v is var and n == name:
                    return slot
            return None

        def _slot(self, var, name):
            slot = self.get_slot(var, name)
            if slot is None:
                slot = tf.Variable(tf.zeros_like(var), name=var.name[:-2] + "/Adam",
                                   trainable=False)
                self.slot_list.append((var, name, slot))
                slot_created(self, var, name, slot)
            return slot

        def apply_gradients(self, grads_and_vars):
            lr, b1, b2, eps = self.hyper
            grads_and_vars = list(grads_and_vars)
            for g, var in grads_and_vars:
                m, v = self._slot(var, "m"), self._slot(var, "v")
                m.assign(b1 * m + (1 - b1) * g)
                v.assign(b2 * v + (1 - b2) * g * g)
                rate = lr * tf.sqrt(1 - self.beta2_power) / (1 - self.beta1_power)
                var.assign_sub(rate * m / (tf.sqrt(v) + eps))
            self.beta1_power.assign(self.beta1_power * b1)
            self.beta2_power.assign(self.beta2_power * b2)

    return SlotAdam


# --- values as JSON --------------------------------------------------------------------------

def to_json(array):
    """`{"dtype", "shape", "values"}` of a NumPy array: floats exact, complex
    as [re, im], strings as hex."""
    flat = array.reshape(-1)
    if array.dtype == object:
        items = [bytes(x).hex() for x in flat]
    elif array.dtype.kind == "c":
        items = [[float(x.real), float(x.imag)] for x in flat]
    elif array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        items = [float(x) for x in flat.astype(np.float64)]
    elif array.dtype.kind == "b":
        items = [bool(x) for x in flat]
    else:
        items = [int(x) for x in flat]
    return {"dtype": "string" if array.dtype == object else array.dtype.name,
            "shape": list(array.shape), "values": items}


def from_json(doc):
    """The NumPy array of a `to_json` document."""
    dtype, shape, items = doc["dtype"], doc["shape"], doc["values"]
    if dtype == "string":
        flat = np.array([bytes.fromhex(x) for x in items] or [], dtype=object)
    elif dtype.startswith("complex"):
        flat = np.array([complex(a, b) for a, b in items], dtype=dtype)
    elif dtype == "bfloat16":
        flat = np.array(items, dtype=np.float64).astype(ml_dtypes.bfloat16)
    else:
        flat = np.array(items, dtype=dtype)
    return flat.reshape(shape)


def many_values(count=3000):
    """Enough variables with long names for an index of two data blocks
    (over 256 KiB of entries), a 4 MiB tensor and a long string tensor:
    name -> NumPy value."""
    values = {f"variable_{i:05d}_" + "x" * 60: np.array([i, -i], np.int32 if i % 2 else
                                                          np.float32)
              for i in range(count)}
    values["big"] = np.arange(1 << 20, dtype=np.float32) / 7
    values["texts"] = np.array([b"t%d" % i * (i % 5) for i in range(2000)], dtype=object)
    return values


def build_many(tf, values):
    """`Checkpoint(model=...)`'s objects: a module with a dict of `values`."""
    model = tf.Module()
    model.table = {name: tf.Variable(v, dtype=tf.string if v.dtype == object else None)
                   for name, v in values.items()}
    return {"model": model}


def build_keras_model(keras, functional=False, with_input=True):
    """A compiled Keras model (Dense 3->4 relu, Dense 4->2; Sequential, or
    functional with `functional`) with fixed weights, and Adam(0.1): the
    `keras_*` fixtures. Without `with_input` the Sequential builds on its
    first call (weights set then by `keras_steps`). Clears Keras' session
    first, so layers and optimizers get the same names in every process."""
    keras.backend.clear_session()
    if functional:
        inp = keras.Input((3,))
        hidden = keras.layers.Dense(4, activation="relu")(inp)
        model = keras.Model(inp, keras.layers.Dense(2)(hidden))
    else:
        layers = [keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)]
        model = keras.Sequential(([keras.Input((3,))] if with_input else []) + layers)
    if model.built:
        set_keras_weights(model)
    opt = keras.optimizers.Adam(0.1)
    model.compile(optimizer=opt, loss="mse")
    return model, opt


def set_keras_weights(model):
    """Fixed, distinct weights for `build_keras_model`'s layers."""
    weights = [np.arange(12, dtype=np.float32).reshape(3, 4) / 10 - 0.5,
               np.array([0.1, -0.1, 0.2, 0.0], np.float32),
               np.arange(8, dtype=np.float32).reshape(4, 2) / 8 - 0.3,
               np.array([0.05, -0.05], np.float32)]
    model.set_weights(weights)


def keras_batch():
    """The fixed batch `keras_steps` trains on."""
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -1.0]], np.float32)
    y = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], np.float32)
    return x, y


def keras_steps(model, steps=2):
    """`steps` calls of `train_on_batch` on `keras_batch()`."""
    x, y = keras_batch()
    if not model.built:
        model(x[:1])
        set_keras_weights(model)
    for _ in range(steps):
        model.train_on_batch(x, y)


def object_graph_nodes(nodes):
    """An object graph (TensorFlow's proto or rillflow's node dicts) as plain
    lists to compare: children, attributes (name, full name, key), slots."""
    def get(node, name):
        return node[name] if isinstance(node, dict) else getattr(node, name)

    def field(item, name):
        return item[name] if isinstance(item, dict) else getattr(item, name)

    return [[[(field(c, "node_id"), field(c, "local_name")) for c in get(n, "children")],
             [(field(a, "name"), field(a, "full_name"), field(a, "checkpoint_key"))
              for a in get(n, "attributes")],
             [(field(s, "original_variable_node_id"), field(s, "slot_name"),
               field(s, "slot_variable_node_id")) for s in get(n, "slot_variables")]]
            for n in nodes]

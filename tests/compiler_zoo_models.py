"""Model-shaped programs for the compiler's differential test
(tests/test_compiler_zoo.py): training steps and inference functions of the
shapes people write with rillflow, without Keras: dense layers, convolutions,
attention, LSTM cells, embeddings, residual blocks, batch normalization,
hand-written optimizers.

Each builder takes a `numpy.random.RandomState` and returns a `Model`: the
initial values of its variables, a step function `step(V, *args)` (V: a
dict of `tf.Variable` by name) and the arguments of each step. The harness
runs the steps eagerly and under `tf.function` on copies of the same initial
values. Sizes are small: the file's programs all run in a few seconds.
"""
import collections

import numpy as np

import rillflow as tf

Model = collections.namedtuple("Model", "variables step inputs")

MODELS = {}


def model(fn):
    """Registers a builder under its name."""
    MODELS[fn.__name__] = fn
    return fn


def _w(rng, *shape, scale=0.3):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _x(rng, *shape):
    return tf.constant(rng.standard_normal(shape).astype(np.float32))


def _sgd(V, names, grads, lr=0.1):
    for n, g in zip(names, grads):
        if isinstance(g, tf.IndexedSlices):
            # Sparse rows: the update scatters, as optimizers do.
            V[n].scatter_sub(tf.IndexedSlices(lr * g.values, g.indices, g.dense_shape))
        else:
            V[n].assign_sub(lr * g)


def _dense(V, x, name, act=None):
    y = tf.matmul(x, V[name + "_w"]) + V[name + "_b"]
    return act(y) if act is not None else y


def _layer_norm(V, x, name, eps=1e-5):
    mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
    return (x - mean) / tf.sqrt(var + eps) * V[name + "_g"] + V[name + "_beta"]


# --- dense networks -------------------------------------------------------------

@model
def mlp(rng):
    """Two hidden layers, softmax cross entropy, SGD with assign_sub."""
    v = {"l1_w": _w(rng, 12, 32), "l1_b": _w(rng, 32), "l2_w": _w(rng, 32, 16),
         "l2_b": _w(rng, 16), "out_w": _w(rng, 16, 5), "out_b": _w(rng, 5)}

    def step(V, x, y):
        names = sorted(V)
        with tf.GradientTape() as tape:
            h = _dense(V, x, "l1", tf.nn.relu)
            h = _dense(V, h, "l2", tf.tanh)
            logits = _dense(V, h, "out")
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads)
        return loss, logits, grads
    return Model(v, step, [(_x(rng, 8, 12), tf.constant(rng.randint(0, 5, 8), tf.int32))
                           for _ in range(3)])


@model
def mlp_adam(rng):
    """A dense layer trained with Adam written by hand: several assigns per
    variable, a step counter variable, bias correction with pow."""
    v = {"l_w": _w(rng, 10, 24), "l_b": _w(rng, 24), "o_w": _w(rng, 24, 1),
         "o_b": _w(rng, 1)}
    for n in list(v):
        v["m_" + n] = np.zeros_like(v[n])
        v["v_" + n] = np.zeros_like(v[n])
    v["t"] = np.float32(0.0)

    def step(V, x, y):
        params = ["l_b", "l_w", "o_b", "o_w"]
        with tf.GradientTape() as tape:
            h = _dense(V, x, "l", tf.nn.gelu)
            pred = _dense(V, h, "o")
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, [V[n] for n in params])
        V["t"].assign_add(1.0)
        t = V["t"].read_value()
        for n, g in zip(params, grads):
            m, s = V["m_" + n], V["v_" + n]
            m.assign(0.9 * m + 0.1 * g)
            s.assign(0.999 * s + 0.001 * tf.square(g))
            m_hat = m / (1.0 - tf.pow(0.9, t))
            s_hat = s / (1.0 - tf.pow(0.999, t))
            V[n].assign_sub(0.01 * m_hat / (tf.sqrt(s_hat) + 1e-7))
        return loss, grads
    return Model(v, step, [(_x(rng, 16, 10), _x(rng, 16, 1)) for _ in range(3)])


# --- attention -------------------------------------------------------------------

def _attention_vars(rng, width, bias=True):
    v = {}
    for n in ("q", "k", "v", "o"):
        v[n + "_w"] = _w(rng, width, width, scale=width ** -0.5)
        if bias:
            v[n + "_b"] = _w(rng, width, scale=0.1)
    v["ln_g"] = np.ones(width, np.float32) + _w(rng, width, scale=0.1)
    v["ln_beta"] = _w(rng, width, scale=0.1)
    return v


def _attention(V, x, heads, causal, bias=True, keep=None, seed=None):
    batch, tokens, width = x.shape
    depth = width // heads

    def proj(t, n):
        y = tf.matmul(t, V[n + "_w"])   # (batch, tokens, width) @ (width, width)
        return y + V[n + "_b"] if bias else y

    def split(t):
        return tf.transpose(tf.reshape(t, [batch, tokens, heads, depth]), [0, 2, 1, 3])
    q, k, v = split(proj(x, "q")), split(proj(x, "k")), split(proj(x, "v"))
    scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(depth).astype(np.float32)
    if causal:
        mask = tf.linalg.band_part(tf.ones([tokens, tokens]), -1, 0)
        scores = scores + (1.0 - mask) * -1e9
    attn = tf.nn.softmax(scores, axis=-1)
    if keep is not None:
        # Dropout with a stateless mask: the same in every run.
        u = tf.random.stateless_uniform(tf.shape(attn), seed=seed)
        attn = tf.where(u < keep, attn / keep, tf.zeros_like(attn))
    out = tf.reshape(tf.transpose(tf.matmul(attn, v), [0, 2, 1, 3]), [batch, tokens, width])
    return _layer_norm(V, proj(out, "o") + x, "ln")


@model
def attention(rng):
    """The issue's attention step: q/k/v/o matmuls, softmax, residual, layer
    norm by moments, SGD with assign_sub inside the tape's function."""
    v = _attention_vars(rng, 16, bias=False)

    def step(V, x):
        names = sorted(V)
        with tf.GradientTape() as tape:
            y = _attention(V, x, heads=1, causal=False, bias=False)
            loss = tf.reduce_mean(tf.square(y))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads)
        return loss, y
    return Model(v, step, [(_x(rng, 2, 8, 16),) for _ in range(3)])


@model
def attention_multihead(rng):
    """Biases, gamma/beta, four heads, a causal mask and stateless dropout."""
    v = _attention_vars(rng, 16)

    def step(V, x, seed):
        names = sorted(V)
        with tf.GradientTape() as tape:
            y = _attention(V, x, heads=4, causal=True, keep=0.9, seed=seed)
            loss = tf.reduce_sum(tf.reduce_mean(y * y, axis=[0, 1]))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads, lr=0.05)
        return loss, grads
    return Model(v, step, [(_x(rng, 2, 6, 16), tf.constant([3, s], tf.int32))
                           for s in range(3)])


@model
def attention_large(rng):
    """The issue's shapes, scaled to 65,536-element activations: large enough
    for fused elementwise chains and in-place buffer reuse (the step that
    crashed the compiler)."""
    v = _attention_vars(rng, 128)

    def step(V, x):
        names = sorted(V)
        with tf.GradientTape() as tape:
            y = _attention(V, x, heads=4, causal=True)
            loss = tf.reduce_mean(tf.square(y))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads)
        return loss, grads
    return Model(v, step, [(_x(rng, 4, 128, 128),) for _ in range(2)])


@model
def mlp_wide(rng):
    """A wide dense network: activations of 65,536 elements and weight
    gradients over 1,024 (fused chains, updates in place)."""
    v = {"l1_w": _w(rng, 64, 256, scale=0.1), "l1_b": _w(rng, 256),
         "l2_w": _w(rng, 256, 256, scale=0.05), "l2_b": _w(rng, 256)}

    def step(V, x):
        names = sorted(V)
        with tf.GradientTape() as tape:
            h = _dense(V, x, "l1", tf.nn.relu)
            h = _dense(V, h, "l2")
            h = tf.sigmoid(h) * h - 0.5 * tf.square(tf.tanh(h))
            loss = tf.reduce_sum(tf.reduce_mean(h, axis=0))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads, lr=0.01)
        return loss, h
    return Model(v, step, [(_x(rng, 256, 64),) for _ in range(3)])


@model
def attention_inference(rng):
    """Inference only: an attention block read by a classifier head."""
    v = _attention_vars(rng, 8)
    v["head_w"] = _w(rng, 8, 3)

    def step(V, x):
        y = _attention(V, x, heads=2, causal=True)
        pooled = tf.reduce_mean(y, axis=1)
        return tf.nn.log_softmax(tf.matmul(pooled, V["head_w"])), tf.argmax(pooled, axis=-1)
    return Model(v, step, [(_x(rng, 3, 5, 8),) for _ in range(2)])


# --- convolutions ------------------------------------------------------------------

@model
def cnn(rng):
    """conv2d + bias_add + relu, max and average pooling, a dense head."""
    v = {"c1_k": _w(rng, 3, 3, 2, 4), "c1_b": _w(rng, 4), "c2_k": _w(rng, 3, 3, 4, 6),
         "d_w": _w(rng, 6, 3), "d_b": _w(rng, 3)}

    def step(V, x, y):
        names = sorted(V)
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, V["c1_k"], 1, "SAME"), V["c1_b"]))
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.nn.relu(tf.nn.conv2d(h, V["c2_k"], 1, "VALID"))
            h = tf.nn.avg_pool2d(h, 2, 2, "SAME")
            h = tf.reshape(h, [tf.shape(h)[0], -1])
            logits = _dense(V, h, "d")
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads)
        return loss, grads
    return Model(v, step, [(_x(rng, 2, 8, 8, 2),
                            tf.constant(np.eye(3, dtype=np.float32)[rng.randint(0, 3, 2)]))
                           for _ in range(3)])


def _batch_norm(V, x, name, training, momentum=0.9):
    axes = list(range(len(x.shape) - 1))
    if training:
        mean, var = tf.nn.moments(x, axes)
        V[name + "_mm"].assign(momentum * V[name + "_mm"] + (1 - momentum) * mean)
        V[name + "_mv"].assign(momentum * V[name + "_mv"] + (1 - momentum) * var)
    else:
        mean, var = V[name + "_mm"], V[name + "_mv"]
    return tf.nn.batch_normalization(x, mean, var, V[name + "_beta"], V[name + "_g"], 1e-3)


def _bn_vars(v, rng, name, n):
    v[name + "_g"] = 1.0 + _w(rng, n, scale=0.1)
    v[name + "_beta"] = _w(rng, n, scale=0.1)
    v[name + "_mm"] = np.zeros(n, np.float32)
    v[name + "_mv"] = np.ones(n, np.float32)


@model
def resnet(rng):
    """Residual blocks of conv + batch norm (training: moving averages
    assigned) + relu, with an identity skip; a training flag as a tensor
    chooses the branch with tf.cond for the last block's dropout."""
    v = {"stem_k": _w(rng, 3, 3, 3, 4)}
    for b in ("b1", "b2"):
        v[b + "_k1"] = _w(rng, 3, 3, 4, 4)
        v[b + "_k2"] = _w(rng, 3, 3, 4, 4)
        _bn_vars(v, rng, b + "_bn1", 4)
        _bn_vars(v, rng, b + "_bn2", 4)
    v["fc_w"] = _w(rng, 4, 2)

    def step(V, x, y, training):
        trainable = sorted(n for n in V if not n.endswith(("_mm", "_mv")))
        with tf.GradientTape() as tape:
            h = tf.nn.conv2d(x, V["stem_k"], 1, "SAME")
            for b in ("b1", "b2"):
                r = tf.nn.relu(_batch_norm(V, tf.nn.conv2d(h, V[b + "_k1"], 1, "SAME"),
                                           b + "_bn1", True))
                r = _batch_norm(V, tf.nn.conv2d(r, V[b + "_k2"], 1, "SAME"), b + "_bn2", True)
                h = tf.nn.relu(h + r)
            h = tf.cond(training, lambda: h * 0.5, lambda: h)
            logits = tf.matmul(tf.reduce_mean(h, axis=[1, 2]), V["fc_w"])
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, [V[n] for n in trainable])
        _sgd(V, trainable, grads)
        return loss, grads
    return Model(v, step, [(_x(rng, 2, 6, 6, 3), tf.constant(rng.randint(0, 2, (2, 2)),
                                                                tf.float32),
                            tf.constant(bool(i % 2))) for i in range(3)])


@model
def batch_norm_inference(rng):
    """Batch normalization with the moving statistics (inference) after a
    depthwise convolution, on a channel-last image."""
    v = {"dw": _w(rng, 3, 3, 3, 2)}
    _bn_vars(v, rng, "bn", 6)
    v["bn_mm"] = _w(rng, 6)
    v["bn_mv"] = 1.0 + np.abs(_w(rng, 6))

    def step(V, x):
        h = tf.nn.depthwise_conv2d(x, V["dw"], [1, 1, 1, 1], "SAME")
        return tf.nn.relu6(_batch_norm(V, h, "bn", training=False))
    return Model(v, step, [(_x(rng, 2, 5, 5, 3),) for _ in range(2)])


# --- sequences ----------------------------------------------------------------------

def _lstm_cell(V, x, h, c):
    z = tf.matmul(x, V["wx"]) + tf.matmul(h, V["wh"]) + V["b"]
    i, f, g, o = tf.split(z, 4, axis=1)
    c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(g)
    return tf.sigmoid(o) * tf.tanh(c), c


def _lstm_vars(rng, n_in, n_hidden):
    return {"wx": _w(rng, n_in, 4 * n_hidden), "wh": _w(rng, n_hidden, 4 * n_hidden),
            "b": _w(rng, 4 * n_hidden, scale=0.1)}


@model
def lstm_range(rng):
    """An LSTM over timesteps with a `for t in tf.range(...)` loop (AutoGraph
    makes a while loop), tf.split/tf.concat, a tf.cond on the loss."""
    v = _lstm_vars(rng, 3, 5)
    v["out_w"] = _w(rng, 10, 1)

    def step(V, xs):
        names = sorted(V)
        with tf.GradientTape() as tape:
            batch = xs.shape[0]
            h = tf.zeros([batch, 5])
            c = tf.zeros([batch, 5])
            for t in tf.range(xs.shape[1]):
                h, c = _lstm_cell(V, xs[:, t, :], h, c)
            out = tf.matmul(tf.concat([h, c], axis=1), V["out_w"])
            loss = tf.reduce_mean(out * out)
            loss = tf.cond(loss > 1.0, lambda: tf.sqrt(loss), lambda: loss)
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads)
        return loss, grads
    return Model(v, step, [(_x(rng, 2, 4, 3),) for _ in range(3)])


@model
def lstm_while(rng):
    """The same cell in an explicit tf.while_loop reading a TensorArray of
    inputs and writing one of outputs."""
    v = _lstm_vars(rng, 2, 4)

    def step(V, xs):
        names = sorted(V)
        steps = xs.shape[0]
        with tf.GradientTape() as tape:
            inputs = tf.TensorArray(tf.float32, size=steps).unstack(xs)

            def body(t, h, c, outs):
                h, c = _lstm_cell(V, inputs.read(t), h, c)
                return t + 1, h, c, outs.write(t, h)
            _, h, c, outs = tf.while_loop(
                lambda t, *_: t < steps, body,
                (tf.constant(0), tf.zeros([3, 4]), tf.zeros([3, 4]),
                 tf.TensorArray(tf.float32, size=steps)))
            ys = outs.stack()
            loss = tf.reduce_sum(ys * ys) + tf.reduce_sum(c)
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads, lr=0.05)
        return loss, ys, grads
    return Model(v, step, [(_x(rng, 5, 3, 2),) for _ in range(3)])


@model
def embedding_pool(rng):
    """Embedding lookup (sparse IndexedSlices gradients applied with
    scatter_sub), mean and max pooling over tokens, a dense classifier."""
    v = {"emb": _w(rng, 20, 6), "w": _w(rng, 12, 4), "b": np.zeros(4, np.float32)}

    def step(V, ids, y):
        names = ["b", "emb", "w"]
        with tf.GradientTape() as tape:
            e = tf.nn.embedding_lookup(V["emb"], ids)
            mask = tf.cast(ids > 0, tf.float32)[:, :, None]
            mean = tf.reduce_sum(e * mask, axis=1) / tf.maximum(
                tf.reduce_sum(mask, axis=1), 1.0)
            pooled = tf.concat([mean, tf.reduce_max(e, axis=1)], axis=-1)
            logits = tf.matmul(pooled, V["w"]) + V["b"]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, [V[n] for n in names])
        _sgd(V, names, grads, lr=0.5)
        return loss, logits
    return Model(v, step, [(tf.constant(rng.randint(0, 20, (4, 7)), tf.int32),
                            tf.constant(rng.randint(0, 4, 4), tf.int32)) for _ in range(3)])


@model
def embedding_gather_dense(rng):
    """tf.gather of a variable, its gradient made dense with
    tf.convert_to_tensor, and an update by assign_add of the negated step."""
    v = {"table": _w(rng, 9, 4), "proj": _w(rng, 4, 4)}

    def step(V, ids):
        with tf.GradientTape() as tape:
            e = tf.gather(V["table"], ids)
            y = tf.nn.elu(tf.einsum("btd,de->bte", e, V["proj"]))
            loss = tf.reduce_logsumexp(tf.reshape(y, [-1]))
        g_table, g_proj = tape.gradient(loss, [V["table"], V["proj"]])
        V["table"].assign_add(-0.3 * tf.convert_to_tensor(g_table))
        V["proj"].assign_add(-0.3 * g_proj)
        return loss, y
    return Model(v, step, [(tf.constant(rng.randint(0, 9, (2, 3)), tf.int32),)
                           for _ in range(3)])


@model
def second_order(rng):
    """A gradient of a gradient (nested tapes) through a small network, and
    the gradient norm clipped before the update."""
    v = {"w": _w(rng, 4, 4), "b": _w(rng, 4)}

    def step(V, x):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                # tf.square, not ** 2: in graphs TensorFlow (and rillflow)
                # rewrites x ** 2 as Square, whose bits differ from eager's pow
                # (docs/numerics.md), so the sums can differ in the last bit.
                y = tf.reduce_sum(tf.square(tf.nn.softplus(tf.matmul(x, V["w"]) + V["b"])))
            gw = inner.gradient(y, V["w"])
            penalty = tf.reduce_sum(gw * gw)
        gw2, gb2 = outer.gradient(penalty, [V["w"], V["b"]])
        clipped, norm = tf.clip_by_global_norm([gw2, gb2], 1.0)
        V["w"].assign_sub(0.1 * clipped[0])
        V["b"].assign_sub(0.1 * clipped[1])
        return y, penalty, norm
    return Model(v, step, [(_x(rng, 3, 4),) for _ in range(3)])

"""Model training steps for the benchmarks (issue 16), written once against a
`tf` module parameter so that the same code runs on rillflow and on
TensorFlow.

Each builder takes the library (`rillflow` or `tensorflow`) and a size
(`"full"`: the issue's sizes, `"tiny"`: a few-millisecond version for the
smoke test) and returns a `ModelStep`: the variables, the input tensors, the
step function (forward pass and loss under `tf.GradientTape`, then plain SGD
by `assign_sub`) and a way to restore the initial weights. Weights and data
come from NumPy with a fixed seed, so both libraries start from the same
numbers and the loss of the first step can be compared.

    workloads:  cnn, attention, lstm_lm (unrolled Python loop),
                lstm_lm_while (tf.range loop with a TensorArray),
                resnet_block (batch norm by tf.nn.moments + batch_normalization)
"""
import numpy as np

LEARNING_RATE = 0.01

# The sizes; "tiny" keeps every code path (including the gradient
# through the loops) but runs in milliseconds.
SIZES = {
    "cnn": {"full": dict(batch=32, hw=28), "tiny": dict(batch=4, hw=8)},
    "attention": {"full": dict(batch=8, tokens=128, width=256, heads=4),
                  "tiny": dict(batch=2, tokens=8, width=16, heads=2)},
    "lstm_lm": {"full": dict(vocab=10000, embed=128, units=256, batch=32, steps=35),
                "tiny": dict(vocab=50, embed=8, units=16, batch=4, steps=5)},
    "resnet_block": {"full": dict(batch=32, hw=16, channels=64),
                     "tiny": dict(batch=4, hw=4, channels=8)},
}


class ModelStep:
    """One workload built on one library.

    `step(*inputs)` runs one training step and returns the loss (before the
    update); `inputs` are the step's arguments; `reset()` puts the initial
    weights (and batch-norm statistics) back, so that a step's loss can be
    compared across libraries and between eager and `tf.function`.
    """

    def __init__(self, tf, step, inputs, variables, initial):
        self.tf = tf
        self.step = step
        self.inputs = inputs
        self.variables = variables
        self._initial = initial

    def reset(self):
        """Assign every variable its initial NumPy value."""
        for v, value in zip(self.variables, self._initial):
            v.assign(value)

    def run_eager(self):
        """One step, op by op."""
        return self.step(*self.inputs)

    def make_function(self, jit_compile=None):
        """The step under `tf.function` (traced on its first call); with
        `jit_compile=True`, compiled with XLA (rillflow: through JAX)."""
        fn = self.tf.function(self.step, jit_compile=jit_compile)
        return lambda: fn(*self.inputs)


def _variables(tf, arrays):
    """Variables from NumPy arrays (copied, so reset() can reuse the arrays)."""
    return [tf.Variable(a.copy()) for a in arrays]


def _normal(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def sgd(tf, variables, grads, lr=LEARNING_RATE):
    """Plain SGD: `var.assign_sub(lr * g)`; a gather's sparse gradient
    (`tf.IndexedSlices`) updates only its rows, as TensorFlow's optimizers do,
    since a float times an IndexedSlices is not defined in TensorFlow."""
    for v, g in zip(variables, grads):
        if isinstance(g, tf.IndexedSlices):
            v.scatter_sub(tf.IndexedSlices(g.values * lr, g.indices, g.dense_shape))
        else:
            v.assign_sub(lr * g)


def _sparse_xent(tf, labels, logits):
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


# --- small CNN --------------------------------------------------------------------------------

def build_cnn(tf, size="full"):
    """conv 3x3x32 (relu), max-pool 2x2, conv 3x3x64 (relu), max-pool, dense 10,
    sparse softmax cross-entropy; batch 32 of 28x28x1."""
    p = SIZES["cnn"][size]
    b, hw = p["batch"], p["hw"]
    rng = np.random.default_rng(16)
    flat = (hw // 4) * (hw // 4) * 64
    init = [_normal(rng, (3, 3, 1, 32), (2.0 / 9) ** 0.5), np.zeros(32, np.float32),
            _normal(rng, (3, 3, 32, 64), (2.0 / 288) ** 0.5), np.zeros(64, np.float32),
            _normal(rng, (flat, 10), (1.0 / flat) ** 0.5), np.zeros(10, np.float32)]
    xs = rng.random((b, hw, hw, 1), dtype=np.float32)
    ys = rng.integers(0, 10, b).astype(np.int32)
    vs = _variables(tf, init)
    w1, b1, w2, b2, w3, b3 = vs

    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.nn.conv2d(x, w1, strides=1, padding="SAME") + b1)
            h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
            h = tf.nn.relu(tf.nn.conv2d(h, w2, strides=1, padding="SAME") + b2)
            h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
            logits = tf.matmul(tf.reshape(h, [-1, flat]), w3) + b3
            loss = _sparse_xent(tf, y, logits)
        sgd(tf, vs, tape.gradient(loss, vs))
        return loss
    return ModelStep(tf, step, [tf.constant(xs), tf.constant(ys)], vs, init)


# --- attention block --------------------------------------------------------------------------

def build_attention(tf, size="full"):
    """Multi-head self-attention (q/k/v/o matmuls, softmax), residual and layer
    norm by tf.nn.moments; mean squared error against a fixed target."""
    p = SIZES["attention"][size]
    b, n, d, heads = p["batch"], p["tokens"], p["width"], p["heads"]
    dh = d // heads
    rng = np.random.default_rng(17)
    scale = (1.0 / d) ** 0.5
    init = [_normal(rng, (d, d), scale) for _ in range(4)]
    init += [np.ones(d, np.float32), np.zeros(d, np.float32)]
    xs = _normal(rng, (b, n, d), 1.0)
    target = _normal(rng, (b, n, d), 1.0)
    vs = _variables(tf, init)
    wq, wk, wv, wo, gamma, beta = vs

    def split_heads(t):
        return tf.transpose(tf.reshape(t, [b, n, heads, dh]), [0, 2, 1, 3])

    def step(x, target):
        with tf.GradientTape() as tape:
            x2 = tf.reshape(x, [b * n, d])
            q = split_heads(tf.matmul(x2, wq))
            k = split_heads(tf.matmul(x2, wk))
            v = split_heads(tf.matmul(x2, wv))
            scores = tf.matmul(q, k, transpose_b=True) * (1.0 / dh ** 0.5)
            att = tf.matmul(tf.nn.softmax(scores, axis=-1), v)
            att = tf.reshape(tf.transpose(att, [0, 2, 1, 3]), [b * n, d])
            h = x2 + tf.matmul(att, wo)
            mean, var = tf.nn.moments(h, axes=[1], keepdims=True)
            out = (h - mean) * tf.math.rsqrt(var + 1e-5) * gamma + beta
            loss = tf.reduce_mean(tf.square(out - tf.reshape(target, [b * n, d])))
        sgd(tf, vs, tape.gradient(loss, vs))
        return loss
    return ModelStep(tf, step, [tf.constant(xs), tf.constant(target)], vs, init)


# --- LSTM language model ----------------------------------------------------------------------

def _lstm_setup(tf, size):
    p = SIZES["lstm_lm"][size]
    vocab, e, u = p["vocab"], p["embed"], p["units"]
    rng = np.random.default_rng(18)
    bias = np.zeros(4 * u, np.float32)
    bias[u:2 * u] = 1.0       # forget-gate bias 1, the usual initialization
    init = [_normal(rng, (vocab, e), 0.1), _normal(rng, (e + u, 4 * u), (1.0 / (e + u)) ** 0.5),
            bias, _normal(rng, (u, vocab), (1.0 / u) ** 0.5), np.zeros(vocab, np.float32)]
    tokens = rng.integers(0, vocab, (p["batch"], p["steps"])).astype(np.int32)
    # The language model predicts the next token.
    targets = np.roll(tokens, -1, axis=1)
    return p, init, [tf.constant(tokens), tf.constant(targets)]


def _lstm_cell(tf, x, h, c, kernel, bias):
    """One LSTM step: a single matmul of [x, h] by the 4-gate kernel."""
    z = tf.matmul(tf.concat([x, h], axis=1), kernel) + bias
    i, f, g, o = tf.split(z, 4, axis=1)
    c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
    h = tf.sigmoid(o) * tf.tanh(c)
    return h, c


def _lstm_loss(tf, outputs, targets, w_out, b_out, p):
    """Softmax cross-entropy over the vocabulary on the time-major stacked outputs."""
    flat = tf.reshape(outputs, [p["steps"] * p["batch"], p["units"]])
    logits = tf.matmul(flat, w_out) + b_out
    labels = tf.reshape(tf.transpose(targets), [-1])
    return _sparse_xent(tf, labels, logits)


def build_lstm_lm(tf, size="full"):
    """Embedding 10,000 x 128, LSTM 256 unrolled by a Python loop over 35 steps,
    batch 32, softmax cross-entropy over the vocabulary."""
    p, init, inputs = _lstm_setup(tf, size)
    vs = _variables(tf, init)
    emb, kernel, bias, w_out, b_out = vs
    b, u = p["batch"], p["units"]

    def step(tokens, targets):
        with tf.GradientTape() as tape:
            xs = tf.nn.embedding_lookup(emb, tf.transpose(tokens))   # [steps, batch, embed]
            h = tf.zeros([b, u])
            c = tf.zeros([b, u])
            outputs = []
            for t in range(p["steps"]):
                h, c = _lstm_cell(tf, xs[t], h, c, kernel, bias)
                outputs.append(h)
            loss = _lstm_loss(tf, tf.stack(outputs), targets, w_out, b_out, p)
        sgd(tf, vs, tape.gradient(loss, vs))
        return loss
    return ModelStep(tf, step, inputs, vs, init)


def build_lstm_lm_while(tf, size="full"):
    """`build_lstm_lm` with the time loop as `for t in tf.range(steps)` writing a
    TensorArray: a while loop (and its gradient) under tf.function."""
    p, init, inputs = _lstm_setup(tf, size)
    vs = _variables(tf, init)
    emb, kernel, bias, w_out, b_out = vs
    b, u, steps = p["batch"], p["units"], p["steps"]

    def step(tokens, targets):
        with tf.GradientTape() as tape:
            xs = tf.nn.embedding_lookup(emb, tf.transpose(tokens))
            h = tf.zeros([b, u])
            c = tf.zeros([b, u])
            outputs = tf.TensorArray(tf.float32, size=steps)
            for t in tf.range(steps):
                h, c = _lstm_cell(tf, xs[t], h, c, kernel, bias)
                outputs = outputs.write(t, h)
            loss = _lstm_loss(tf, outputs.stack(), targets, w_out, b_out, p)
        sgd(tf, vs, tape.gradient(loss, vs))
        return loss
    return ModelStep(tf, step, inputs, vs, init)


# --- ResNet-style block -----------------------------------------------------------------------

def build_resnet_block(tf, size="full"):
    """conv3x3-BN-relu-conv3x3-BN + identity, relu, global average pool, dense 10,
    sparse softmax cross-entropy. Batch norm in training mode by tf.nn.moments
    and tf.nn.batch_normalization, the moving averages updated by assign."""
    p = SIZES["resnet_block"][size]
    b, hw, ch = p["batch"], p["hw"], p["channels"]
    rng = np.random.default_rng(19)
    conv_scale = (2.0 / (9 * ch)) ** 0.5
    trainable = [_normal(rng, (3, 3, ch, ch), conv_scale), np.ones(ch, np.float32),
                 np.zeros(ch, np.float32), _normal(rng, (3, 3, ch, ch), conv_scale),
                 np.ones(ch, np.float32), np.zeros(ch, np.float32),
                 _normal(rng, (ch, 10), (1.0 / ch) ** 0.5), np.zeros(10, np.float32)]
    stats = [np.zeros(ch, np.float32), np.ones(ch, np.float32)] * 2
    xs = _normal(rng, (b, hw, hw, ch), 1.0)
    ys = rng.integers(0, 10, b).astype(np.int32)
    vs = _variables(tf, trainable)
    moving = _variables(tf, stats)
    k1, g1, b1, k2, g2, b2, w, bw = vs

    def batch_norm(h, gamma, beta, moving_mean, moving_var, momentum=0.99):
        mean, var = tf.nn.moments(h, axes=[0, 1, 2])
        moving_mean.assign(moving_mean * momentum + mean * (1 - momentum))
        moving_var.assign(moving_var * momentum + var * (1 - momentum))
        return tf.nn.batch_normalization(h, mean, var, beta, gamma, 1e-3)

    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.conv2d(x, k1, strides=1, padding="SAME")
            h = tf.nn.relu(batch_norm(h, g1, b1, moving[0], moving[1]))
            h = tf.nn.conv2d(h, k2, strides=1, padding="SAME")
            h = tf.nn.relu(batch_norm(h, g2, b2, moving[2], moving[3]) + x)
            pooled = tf.reduce_mean(h, axis=[1, 2])
            loss = _sparse_xent(tf, y, tf.matmul(pooled, w) + bw)
        sgd(tf, vs, tape.gradient(loss, vs))
        return loss
    return ModelStep(tf, step, [tf.constant(xs), tf.constant(ys)], vs + moving,
                     trainable + stats)


BUILDERS = {
    "cnn": build_cnn,
    "attention": build_attention,
    "lstm_lm": build_lstm_lm,
    "lstm_lm_while": build_lstm_lm_while,
    "resnet_block": build_resnet_block,
}

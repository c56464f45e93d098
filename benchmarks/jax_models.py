"""The model training steps of model_workloads.py hand-written in JAX, as a
JAX user would write them: a pure `step(params, inputs) -> (loss, params)`
under `jax.jit`, `jax.value_and_grad` for the gradients, SGD on the returned
parameters (dense gradients, `lax.scan` for the `tf.range` loop). They start
from the same weights and data as the rillflow and TensorFlow steps (the
builders of model_workloads.py run on a stand-in `tf` that keeps NumPy
arrays), so the first step's loss can be compared across the three.

The xla mode of the benchmarks (run.py --xla) times them next to rillflow's
`tf.function(jit_compile=True)` and TensorFlow's.
"""
import numpy as np

import model_workloads as mw


class _NumpyTF:
    """Just enough of `tf` for model_workloads' builders to build (not run):
    variables and constants are NumPy arrays."""

    float32 = np.float32

    @staticmethod
    def Variable(a):  # noqa: N802 - TensorFlow's name
        return np.asarray(a)

    @staticmethod
    def constant(a):
        return np.asarray(a)


def _jax():
    import jax
    jax.config.update("jax_enable_x64", False)
    return jax, jax.numpy


def _xent(jnp, jax, labels, logits):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None].astype(jnp.int32), axis=1))


class JaxStep:
    """One hand-written JAX step with the ModelStep interface the benchmark
    worker uses: `run_eager()` (here the jitted step too), `make_function()`
    and `reset()`; the parameters are threaded between calls."""

    def __init__(self, loss_fn, params, inputs, n_trainable=None, aux_update=None):
        jax, jnp = _jax()
        self.initial = [jnp.asarray(p) for p in params]
        self.inputs = [jnp.asarray(x) for x in inputs]
        n = len(params) if n_trainable is None else n_trainable
        lr = mw.LEARNING_RATE

        def step(params, *inputs):
            trainable, rest = params[:n], params[n:]
            if aux_update is None:
                loss, grads = jax.value_and_grad(lambda t: loss_fn(t, *inputs))(trainable)
                new_rest = rest
            else:
                (loss, aux), grads = jax.value_and_grad(
                    lambda t: loss_fn(t, *inputs), has_aux=True)(trainable)
                new_rest = aux_update(rest, aux)
            new = [p - lr * g for p, g in zip(trainable, grads)]
            return loss, new + list(new_rest)
        self._step = jax.jit(step)
        self.params = list(self.initial)

    def reset(self):
        """The initial parameters back."""
        self.params = list(self.initial)

    def _run(self):
        loss, self.params = self._step(self.params, *self.inputs)
        return float(loss)   # waits for the computation

    def run_eager(self):
        """One step (JAX has no separate eager form here: the jitted step)."""
        return self._run()

    def make_function(self, jit_compile=None):
        """The step as a callable returning the loss."""
        return self._run


def _built(name):
    return mw.BUILDERS[name](_NumpyTF, _SIZE[0])


_SIZE = ["full"]


def build_cnn(size):
    jax, jnp = _jax()
    _SIZE[0] = size
    m = _built("cnn")
    flat = m.variables[4].shape[0]

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                                     "VALID")

    def loss(p, x, y):
        w1, b1, w2, b2, w3, b3 = p
        h = pool(jax.nn.relu(conv(x, w1) + b1))
        h = pool(jax.nn.relu(conv(h, w2) + b2))
        return _xent(jnp, jax, y, h.reshape(-1, flat) @ w3 + b3)
    return JaxStep(loss, m.variables, m.inputs)


def build_attention(size):
    jax, jnp = _jax()
    _SIZE[0] = size
    m = _built("attention")
    p = mw.SIZES["attention"][size]
    b, n, d, heads = p["batch"], p["tokens"], p["width"], p["heads"]
    dh = d // heads

    def split(t):
        return t.reshape(b, n, heads, dh).transpose(0, 2, 1, 3)

    def loss(params, x, target):
        wq, wk, wv, wo, gamma, beta = params
        x2 = x.reshape(b * n, d)
        q, k, v = split(x2 @ wq), split(x2 @ wk), split(x2 @ wv)
        att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) * (1.0 / dh ** 0.5), axis=-1) @ v
        h = x2 + att.transpose(0, 2, 1, 3).reshape(b * n, d) @ wo
        mean = h.mean(axis=1, keepdims=True)
        var = ((h - mean) ** 2).mean(axis=1, keepdims=True)
        out = (h - mean) * jax.lax.rsqrt(var + 1e-5) * gamma + beta
        return jnp.mean((out - target.reshape(b * n, d)) ** 2)
    return JaxStep(loss, m.variables, m.inputs)


def _lstm(size, scan):
    jax, jnp = _jax()
    _SIZE[0] = size
    m = _built("lstm_lm")
    p = mw.SIZES["lstm_lm"][size]
    b, u, steps = p["batch"], p["units"], p["steps"]

    def cell(carry, x, kernel, bias):
        h, c = carry
        z = jnp.concatenate([x, h], axis=1) @ kernel + bias
        i, f, g, o = jnp.split(z, 4, axis=1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    def loss(params, tokens, targets):
        emb, kernel, bias, w_out, b_out = params
        xs = emb[tokens.T]
        carry = (jnp.zeros((b, u)), jnp.zeros((b, u)))
        if scan:
            _, outs = jax.lax.scan(lambda c, x: cell(c, x, kernel, bias), carry, xs)
        else:
            outs = []
            for t in range(steps):
                carry, h = cell(carry, xs[t], kernel, bias)
                outs.append(h)
            outs = jnp.stack(outs)
        logits = outs.reshape(steps * b, u) @ w_out + b_out
        return _xent(jnp, jax, targets.T.reshape(-1), logits)
    return JaxStep(loss, m.variables, m.inputs)


def build_lstm_lm(size):
    return _lstm(size, scan=False)


def build_lstm_lm_while(size):
    return _lstm(size, scan=True)


def build_resnet_block(size):
    jax, jnp = _jax()
    _SIZE[0] = size
    m = _built("resnet_block")

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def bn(h, gamma, beta):
        mean = h.mean(axis=(0, 1, 2))
        var = ((h - mean) ** 2).mean(axis=(0, 1, 2))
        return (h - mean) * jax.lax.rsqrt(var + 1e-3) * gamma + beta, (mean, var)

    def loss(p, x, y):
        k1, g1, b1, k2, g2, b2, w, bw = p
        h, s1 = bn(conv(x, k1), g1, b1)
        h, s2 = bn(conv(jax.nn.relu(h), k2), g2, b2)
        h = jax.nn.relu(h + x)
        return _xent(jnp, jax, y, h.mean(axis=(1, 2)) @ w + bw), (s1, s2)

    def update(moving, stats, momentum=0.99):
        (m1, v1), (m2, v2) = jax.lax.stop_gradient(stats)
        mm1, mv1, mm2, mv2 = moving
        return [mm1 * momentum + m1 * (1 - momentum), mv1 * momentum + v1 * (1 - momentum),
                mm2 * momentum + m2 * (1 - momentum), mv2 * momentum + v2 * (1 - momentum)]
    return JaxStep(loss, m.variables, m.inputs, n_trainable=8, aux_update=update)


BUILDERS = {
    "cnn": build_cnn,
    "attention": build_attention,
    "lstm_lm": build_lstm_lm,
    "lstm_lm_while": build_lstm_lm_while,
    "resnet_block": build_resnet_block,
}

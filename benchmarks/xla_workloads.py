"""The xla mode of the core benchmarks (run.py --xla): workloads of
workloads.py under rillflow's `tf.function(jit_compile=True)` (XLA through
JAX), the same computations hand-written in JAX (`jax.jit`), and, with
--compare-tensorflow, TensorFlow's `tf.function(jit_compile=True)`.

`BUILDERS[name]()` returns {"xla": rillflow's callable, "jax": JAX's,
"check": asserting that they agree}; TensorFlow's run in their own
interpreter (xla_tf_workloads.py, --tensorflow-python). Every callable waits
for its result (JAX dispatches asynchronously).
"""
import numpy as np

import rillflow as tf
import workloads as W


def _jax():
    import jax
    return jax, jax.numpy


def _close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def _call_overhead():
    jax, jnp = _jax()
    f = tf.function(lambda x: x + 1.0, jit_compile=True)
    x = tf.constant(1.0)
    j = jax.jit(lambda x: x + 1.0)
    xj = jnp.float32(1.0)

    def check():
        assert float(f(x)) == float(j(xj)) == 2.0
    return {"xla": lambda: f(x), "jax": lambda: j(xj).block_until_ready(), "check": check}


def _power(loop):
    jax, jnp = _jax()
    xn = W._power_x()
    x = tf.constant(xn)
    if loop:
        y = tf.constant(100)
        g = tf.function(W.power_loop, jit_compile=True)

        def jpow(x):
            return jax.lax.fori_loop(0, 100, lambda i, r: x @ r, jnp.eye(10, dtype=jnp.int32))
        call = (lambda: g(x, y))
    else:
        g = tf.function(W.power, jit_compile=True)

        def jpow(x):
            r = jnp.eye(10, dtype=jnp.int32)
            for _ in range(100):
                r = x @ r
            return r
        call = (lambda: g(x, 100))
    j = jax.jit(jpow)
    xj = jnp.asarray(xn)

    def check():
        np.testing.assert_array_equal(call().numpy(), W.np_power(xn, 100))
        np.testing.assert_array_equal(np.asarray(j(xj)), W.np_power(xn, 100))
    return {"xla": call, "jax": lambda: j(xj).block_until_ready(), "check": check}


def _collatz(autograph=False):
    jax, jnp = _jax()
    a = tf.constant(27)
    # The Python while/if form (AutoGraph) or the tf.while_loop/tf.cond form.
    g = tf.function(W.collatz if autograph else W.collatz_while_loop, jit_compile=True)

    def jcollatz(a):
        def body(s):
            a, n = s
            return jnp.where(a % 2 == 0, a // 2, 3 * a + 1), n + 1
        return jax.lax.while_loop(lambda s: s[0] != 1, body, (a, jnp.int32(0)))[1]
    j = jax.jit(jcollatz)
    aj = jnp.int32(27)

    def check():
        assert int(g(a)) == int(j(aj)) == 111
    return {"xla": lambda: g(a), "jax": lambda: j(aj).block_until_ready(), "check": check}


def _mlp():
    jax, jnp = _jax()
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((64, 784)).astype(np.float32)
    yb = rng.integers(0, 10, 64).astype(np.int32)
    w1_0 = (rng.standard_normal((784, 256)) * 0.05).astype(np.float32)
    w2_0 = (rng.standard_normal((256, 10)) * 0.05).astype(np.float32)
    lr = np.float32(0.1)
    w1, w2 = tf.Variable(w1_0), tf.Variable(w2_0)
    x, y = tf.constant(xb), tf.constant(yb)

    @tf.function(jit_compile=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(lr * g1)
        w2.assign_sub(lr * g2)
        return loss

    def jloss(params, x, y):
        logits = jax.nn.relu(x @ params[0]) @ params[1]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def jstep(params, x, y):
        loss, grads = jax.value_and_grad(jloss)(params, x, y)
        return loss, [p - lr * g for p, g in zip(params, grads)]
    state = {"p": [jnp.asarray(w1_0), jnp.asarray(w2_0)]}
    xj, yj = jnp.asarray(xb), jnp.asarray(yb)

    def jax_call():
        loss, state["p"] = jstep(state["p"], xj, yj)
        return loss.block_until_ready()

    def check():
        w1.assign(w1_0)
        w2.assign(w2_0)
        state["p"] = [jnp.asarray(w1_0), jnp.asarray(w2_0)]
        for _ in range(3):
            _close(float(step(x, y)), float(jax_call()))
        _close(w1.numpy(), state["p"][0], rtol=1e-3, atol=1e-5)
    return {"xla": lambda: step(x, y), "jax": jax_call, "check": check}


def _elementwise():
    jax, jnp = _jax()
    xn = np.random.default_rng(1).standard_normal(1_000_000).astype(np.float32)
    x = tf.constant(xn)

    def f(x):
        return tf.tanh(x) * 2 + tf.sin(x) ** 2 - x / 3
    g = tf.function(f, jit_compile=True)
    j = jax.jit(lambda x: jnp.tanh(x) * 2 + jnp.sin(x) ** 2 - x / 3)
    xj = jnp.asarray(xn)

    def check():
        _close(g(x).numpy(), np.asarray(j(xj)))
    return {"xla": lambda: g(x), "jax": lambda: j(xj).block_until_ready(), "check": check}


def _rnn():
    jax, jnp = _jax()
    rng = np.random.default_rng(2)
    steps, batch, units = 100, 32, 64
    xs_n = rng.standard_normal((steps, batch, units)).astype(np.float32)
    w_n = (rng.standard_normal((units, units)) * 0.1).astype(np.float32)
    u_n = (rng.standard_normal((units, units)) * 0.1).astype(np.float32)
    xs, w, u = tf.constant(xs_n), tf.constant(w_n), tf.constant(u_n)

    @tf.function(jit_compile=True)
    def rnn(xs, w, u):
        states = tf.TensorArray(tf.float32, size=steps)
        h = tf.zeros([batch, units])
        for t in tf.range(steps):
            h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u))
            states = states.write(t, h)
        return states.stack()

    @jax.jit
    def jrnn(xs, w, u):
        def cell(h, x):
            h = jnp.tanh(x @ w + h @ u)
            return h, h
        return jax.lax.scan(cell, jnp.zeros((batch, units), jnp.float32), xs)[1]
    args = [jnp.asarray(a) for a in (xs_n, w_n, u_n)]

    def check():
        _close(rnn(xs, w, u).numpy(), np.asarray(jrnn(*args)))
    return {"xla": lambda: rnn(xs, w, u), "jax": lambda: jrnn(*args).block_until_ready(),
            "check": check}


_FIRST_CALL_JAX_SRC = '''
def fifteen_lines(x, n):
    def body(carry):
        i, total = carry
        total = jax.lax.cond(i % 2 == 0, lambda t: t + jnp.sum(x) * 2.0,
                             lambda t: t - 1.0, total)
        return i + 1, total
    _, total = jax.lax.while_loop(lambda c: c[0] < n, body, (0, jnp.float32(0.0)))
    total = jax.lax.fori_loop(0, 3, lambda k, t: t + k.astype(jnp.float32), total)
    scaled = total / 2.0
    return jax.lax.cond(scaled > 100.0, lambda s: s - 100.0, lambda s: s, scaled)
'''


def _first_call():
    """A new function's first call (AutoGraph conversion, trace, lowering and
    XLA's compile) against a new `jax.jit` function's (trace and compile)."""
    jax, jnp = _jax()
    import linecache
    counter = [0]
    x, n = tf.constant([1.0, 2.0]), tf.constant(5)
    xj, nj = jnp.asarray(np.array([1.0, 2.0], np.float32)), jnp.int32(5)

    def fresh(src, namespace):
        # A new code object each time, so that nothing is cached.
        counter[0] += 1
        filename = "<first_call_xla_%d>" % counter[0]
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = dict(namespace, __name__="benchmark_first_call")
        exec(compile(src, filename, "exec"), ns)
        return filename, ns["fifteen_lines"]

    def xla_call():
        filename, fn = fresh(W._FIRST_CALL_SRC, {"tf": tf})
        out = tf.function(fn, jit_compile=True)(x, n)
        del linecache.cache[filename]
        return out

    def jax_call():
        filename, fn = fresh(_FIRST_CALL_JAX_SRC, {"jax": jax, "jnp": jnp})
        out = jax.jit(fn)(xj, nj).block_until_ready()
        del linecache.cache[filename]
        return out

    def check():
        assert abs(float(xla_call()) - 9.5) < 1e-6
        assert abs(float(jax_call()) - 9.5) < 1e-6
    return {"xla": xla_call, "jax": jax_call, "check": check}


BUILDERS = {
    "call_overhead": _call_overhead,
    "power_unrolled": lambda: _power(False),
    "power_loop": lambda: _power(True),
    "collatz": lambda: _collatz(autograph=True),
    "collatz_while_loop": _collatz,
    "mlp_train_step": _mlp,
    "elementwise_1m": _elementwise,
    "rnn_tensorarray": _rnn,
    "first_call_latency": _first_call,
}

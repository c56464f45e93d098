"""`tf.function(jit_compile=True)` on XLA through JAX (the `xla` extra):
the lowering of ops, control flow, variables, random numbers, host callbacks,
TensorFlow's error for ops without a lowering, `set_jit`, `to_jax`, and
`jit_compile=True` without JAX (rillflow's own compiled code)."""
import importlib.util

import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import xla_compile
from rillflow.compiler.codegen import CompiledGraph
from rillflow.framework import lowering
from rillflow.framework.op_registry import REGISTRY

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                                reason="needs JAX (the xla extra)")

RTOL = 1e-5


def both(fn, *args, **kw):
    """(jit_compile=True result, plain tf.function result) as NumPy."""
    def flat(r):
        return [np.asarray(t) for t in tf.nest.flatten(r)]
    return flat(tf.function(fn, jit_compile=True)(*args, **kw)), flat(tf.function(fn)(*args,
                                                                                          **kw))


def assert_both(fn, *args, rtol=RTOL, atol=1e-6):
    xla, plain = both(fn, *args)
    assert len(xla) == len(plain)
    for a, b in zip(xla, plain):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def compiled_kind(f, *args):
    return type(f.get_concrete_function(*args)._ensure_compiled())


def test_a_jit_compile_function_runs_as_one_xla_computation():
    @tf.function(jit_compile=True)
    def f(x, y):
        return tf.reduce_sum(tf.exp(x * y + 1.0), axis=1), tf.shape(x)
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    out, shape = f(x, x)
    assert compiled_kind(f, x, x) is xla_compile.XlaCompiledGraph
    np.testing.assert_allclose(out.numpy(), np.exp(x.numpy() ** 2 + 1).sum(1), rtol=RTOL)
    assert shape.dtype == tf.int32 and shape.numpy().tolist() == [2, 3]


def test_each_concrete_function_is_lowered_once(monkeypatch):
    runs = []
    original = xla_compile.LoweringContext.run

    def counting(self, *a):
        runs.append(1)
        return original(self, *a)
    monkeypatch.setattr(xla_compile.LoweringContext, "run", counting)
    f = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
    for v in (1.0, 2.0, 3.0):
        assert f(tf.constant([v, v])).numpy().tolist() == [2 * v + 1] * 2
    assert len(runs) == 1
    f(tf.constant([1.0, 2.0, 3.0]))   # a new shape: a new concrete function
    assert len(runs) == 2


def test_most_ops_have_a_lowering():
    lowered = [n for n, op in REGISTRY.items() if op.lower is not None]
    assert len(lowered) >= 316, len(lowered)
    for name in ("ResizeBilinear", "ResizeBicubicGrad", "ResizeNearestNeighborGrad",
                 "ResizeArea", "StatefulUniform", "CTCLossDense", "StatefulStandardNormalV2", "MatMul", "BatchMatMulV2", "Einsum", "Conv2D", "MaxPool", "If", "While",
                 "ReadVariableOp", "AssignVariableOp", "TensorListSetItem", "RandomUniform",
                 "StatelessRandomNormal", "PrintV2", "Assert", "PartitionedCall",
                 "SoftmaxCrossEntropyWithLogits", "GatherV2", "ScatterNd", "StridedSlice"):
        assert REGISTRY[name].lower is not None, name


def test_elementwise_reduction_shape_and_index_ops_match():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal((3, 4, 5)).astype(np.float32))
    i = tf.constant([2, 0, 1])

    def f(x, i):
        return [tf.nn.softmax(x), tf.reduce_max(x, axis=[0, 2]), tf.argmax(x, axis=1),
                tf.cumsum(x, axis=1, exclusive=True, reverse=True), tf.gather(x, i, axis=1),
                tf.gather_nd(x, [[0, 1], [2, 3]]), x[1:, ::-1, 2], tf.transpose(x, [2, 0, 1]),
                tf.concat([x, x], -1), tf.tile(x[:1], [2, 1, 1]), tf.pad(x, [[1, 0], [0, 2],
                                                                            [0, 0]]),
                tf.math.unsorted_segment_sum(x, [0, 1, 0], 2), tf.one_hot(i, 4),
                tf.tensor_scatter_nd_add(x, [[0, 0]], tf.ones([1, 5])), tf.math.top_k(x, 2)[0],
                tf.where(x > 0, x, -x), tf.cast(x * 10, tf.int32), tf.split(x, [1, 4], 2)[1],
                tf.einsum("abc,adc->abd", x, x), tf.linalg.band_part(x[0], 1, 0)]
    assert_both(f, x, i)


def test_dynamic_index_picks_one_element():
    @tf.function(jit_compile=True)
    def f(x, i):
        return x[i], x[:, i]
    x = tf.constant(np.arange(12.0).reshape(3, 4))
    a, b = f(x, tf.constant(2))
    assert a.numpy().tolist() == [8.0, 9.0, 10.0, 11.0] and b.numpy().tolist() == [2, 6, 10]


def test_a_shape_computed_at_run_time_is_tensorflows_compile_time_constant_error():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.reshape(x, [tf.random.uniform([], 2, 3, dtype=tf.int32), -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be a compile-time constant"):
        f(tf.ones([4]))


def test_an_integer_argument_giving_a_shape_is_a_compile_time_constant_per_value():
    # As TensorFlow's XLA: one program per value of the argument.
    @tf.function(jit_compile=True)
    def f(x, n):
        return tf.reshape(x, [n, -1])
    assert f(tf.range(6), tf.constant(2)).shape == (2, 3)
    assert f(tf.range(6), tf.constant(3)).shape == (3, 2)
    assert f(tf.range(6), tf.constant(2)).numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_conv_pool_batch_norm_and_their_gradients_match():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((2, 9, 9, 4)).astype(np.float32))
    w = tf.constant(rng.standard_normal((3, 3, 4, 6)).astype(np.float32))
    dw = tf.constant(rng.standard_normal((3, 3, 4, 2)).astype(np.float32))

    def f(x, w, dw):
        with tf.GradientTape() as tape:
            tape.watch([x, w, dw])
            y = tf.nn.conv2d(x, w, 2, "SAME")
            v = tf.nn.conv2d(x, w, 1, "VALID", dilations=2)
            z = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME") + tf.reduce_mean(v)
            y = tf.nn.max_pool2d(tf.nn.relu(y), 2, 1, "SAME") + tf.reduce_mean(z)
            y, _, _ = tf.compat.v1.nn.fused_batch_norm(y, tf.ones([6]), tf.zeros([6]))
            y = tf.nn.avg_pool2d(y, 3, 2, "SAME")
            loss = tf.reduce_sum(y * y)
        return [loss] + tape.gradient(loss, [x, w, dw])
    assert_both(f, x, w, dw, rtol=1e-4, atol=1e-4)


def test_grouped_and_channels_first_convolutions_compile():
    # Keras' TensorFlow backend compiles these with jit_compile=True.
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((1, 4, 6, 6)).astype(np.float32))
    w = tf.constant(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))

    @tf.function(jit_compile=True)
    def f(x, w):
        return tf.nn.convolution(x, w, padding="SAME", data_format="NCHW")
    out = f(x, w).numpy()
    nhwc = tf.transpose(x, [0, 2, 3, 1])
    groups = [tf.nn.conv2d(nhwc[..., 2 * g:2 * g + 2], w[..., 2 * g:2 * g + 2], 1, "SAME")
              for g in range(2)]
    expected = tf.transpose(tf.concat(groups, -1), [0, 3, 1, 2]).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_cond_while_and_tensor_arrays_match_with_gradients():
    x = tf.constant([0.1, 0.9, 0.7, 0.2])

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            acc = tf.constant(0.0)
            ta = tf.TensorArray(tf.float32, size=4)
            for i in tf.range(4):
                if x[i] > 0.5:
                    acc += tf.sin(x[i]) * x[i]
                else:
                    acc -= x[i] ** 2
                ta = ta.write(i, acc)
            total = acc + tf.reduce_sum(ta.stack())
        return total, ta.stack(), tape.gradient(total, x)
    assert_both(f, x)


def test_switch_case_out_of_range_runs_the_default_branch():
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)],
                              default=lambda: tf.constant(-1))
    g = tf.function(f, jit_compile=True)
    assert [int(g(tf.constant(k))) for k in (0, 1, 5, -3)] == [10, 20, -1, -1]


def test_a_loop_gradient_without_an_iteration_bound_is_tensorflows_list_size_error():
    n = tf.Variable(3)

    @tf.function(jit_compile=True)
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y)), [0, x])[1]
        return tape.gradient(y, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="fixed tensor list size"):
        f(tf.constant(1.0))


def test_variables_are_read_and_written_back_across_loops_and_branches():
    v = tf.Variable(np.ones((2, 2), np.float32))
    count = tf.Variable(0)

    @tf.function(jit_compile=True)
    def step(x):
        for i in tf.range(3):
            if tf.reduce_sum(x) > 0:
                v.assign_add(x)
            count.assign_add(1)
        v[0, 1].assign(-1.0)
        v.scatter_nd_add([[1, 1]], [10.0])
        return v.read_value() * 2
    out = step(tf.ones((2, 2)))
    np.testing.assert_array_equal(v.numpy(), [[4, -1], [4, 14]])
    np.testing.assert_array_equal(out.numpy(), 2 * v.numpy())
    assert count.numpy() == 3
    step(tf.ones((2, 2)))
    assert count.numpy() == 6 and v.numpy()[0, 0] == 7


def test_training_a_model_matches_uncompiled_training():
    rng = np.random.default_rng(4)
    x = tf.constant(rng.standard_normal((8, 5)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 8))
    init = [rng.standard_normal((5, 3)).astype(np.float32), np.zeros(3, np.float32)]
    results = []
    for jit in (True, False):
        w, b = tf.Variable(init[0]), tf.Variable(init[1])

        @tf.function(jit_compile=jit)
        def train(x, y):
            with tf.GradientTape() as tape:
                logits = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.5 * gw)
            b.assign_sub(0.5 * gb)
            return loss
        losses = [float(train(x, y)) for _ in range(5)]
        results.append((losses, w.numpy(), b.numpy()))
    (l1, w1, b1), (l2, w2, b2) = results
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b1, b2, rtol=1e-5, atol=1e-6)


def test_a_tape_around_a_jit_function_differentiates_its_xla_code():
    w = tf.Variable([1.0, 2.0])
    f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x * w)), jit_compile=True)
    x = tf.constant([0.5, -0.3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, w])
    t = np.tanh(x.numpy() * w.numpy())
    np.testing.assert_allclose(gx.numpy(), (1 - t ** 2) * w.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), (1 - t ** 2) * x.numpy(), rtol=1e-5)
    grad = f.get_concrete_function(x)._gradient()
    assert isinstance(grad.forward_compiled, xla_compile.XlaCompiledGraph)
    assert isinstance(grad.backward, xla_compile.XlaCompiledGraph)


def test_nested_function_calls_are_lowered_in_place():
    inner = tf.function(lambda x: x * 3.0)

    @tf.function(jit_compile=True)
    def outer(x):
        return inner(x) + inner(x + 1.0)
    assert outer(tf.constant(1.0)).numpy() == 9.0


def test_stateful_random_numbers_change_per_call_and_stateless_ones_equal_eager():
    f = tf.function(lambda: tf.random.uniform([4]), jit_compile=True)
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b) and (a >= 0).all() and (a < 1).all()
    seed = tf.constant([7, 11])

    def g(seed):
        return (tf.random.stateless_uniform([3, 4], seed), tf.random.stateless_normal([5], seed),
                tf.random.stateless_uniform([6], seed, minval=-5, maxval=9, dtype=tf.int64))
    xla = tf.function(g, jit_compile=True)(seed)
    eager = g(seed)
    np.testing.assert_array_equal(xla[0].numpy(), eager[0].numpy())
    np.testing.assert_allclose(xla[1].numpy(), eager[1].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(xla[2].numpy(), eager[2].numpy())


def test_seeded_random_programs_repeat():
    def draws():
        tf.random.set_seed(5)
        f = tf.function(lambda: tf.random.normal([3]), jit_compile=True)
        return f().numpy(), f().numpy()
    a, b = draws(), draws()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])


def test_print_and_assertions_run_as_host_callbacks(capsys):
    @tf.function(jit_compile=True)
    def f(x):
        tf.print("x:", x, "sum:", tf.reduce_sum(x))
        tf.debugging.assert_positive(x, message="must be positive")
        return x + 1
    f(tf.constant([1.0, 2.0]))
    assert "x: [1 2] sum: 3" in capsys.readouterr().err
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be positive"):
        f(tf.constant([-1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had NaN"):
        tf.function(lambda x: tf.debugging.check_numerics(x, "bad"), jit_compile=True)(
            tf.constant([np.nan]))


def test_an_op_without_a_lowering_is_tensorflows_unsupported_operations_error():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.py_function(lambda a: a * 2, [x], tf.float32) + 1.0
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0]))
    msg = str(info.value)
    assert msg.startswith("Detected unsupported operations when trying to compile graph "
                          "__inference_f_")
    # The device is the one the call compiles for (TensorFlow's XLA_GPU_JIT on a GPU).
    dev = xla_compile._device_name()
    assert ("on %s: EagerPyFunc (No registered 'EagerPyFunc' OpKernel for "
            "%s devices compatible with node {{node EagerPyFunc}}){{node "
            "EagerPyFunc}}\nThe op is created at: \nFile " % (dev, dev)) in msg
    assert "tf2xla conversion failed while converting __inference_f_" in msg

    @tf.function(jit_compile=True)
    def g(x):
        return tf.strings.as_string(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="AsString"):
        g(tf.constant([1.0]))


def test_set_jit_compiles_the_functions_whose_ops_all_lower():
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(True)
    try:
        assert tf.config.optimizer.get_jit() == "autoclustering"
        f = tf.function(lambda x: x * 2)
        g = tf.function(lambda x: tf.strings.as_string(x))
        h = tf.function(lambda x: x * 3, jit_compile=False)
        x = tf.constant([1.0])
        assert f(x).numpy()[0] == 2 and g(x).numpy()[0] == b"1.000000" and h(x).numpy()[0] == 3
        assert compiled_kind(f, x) is xla_compile.XlaCompiledGraph
        assert compiled_kind(g, x) is CompiledGraph
        assert compiled_kind(h, x) is CompiledGraph
    finally:
        tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() == ""


def test_without_jit_compile_nothing_changes():
    f = tf.function(lambda x: x * 2)
    assert compiled_kind(f, tf.constant([1.0])) is CompiledGraph


def test_without_jax_jit_compile_runs_rillflows_compiled_code(monkeypatch):
    monkeypatch.setattr(lowering, "available", lambda: False)
    f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32) + 1.0,
                    jit_compile=True)
    x = tf.constant([1.0])
    assert f(x).numpy()[0] == 3.0
    assert compiled_kind(f, x) is CompiledGraph


def test_to_jax_gives_a_pure_function_to_jit_grad_and_vmap():
    import jax
    import jax.numpy as jnp
    w = tf.Variable(np.ones((3, 2), np.float32))
    b = tf.Variable(np.zeros(2, np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        y = tf.nn.relu(tf.matmul(x, w) + b)
        b.assign_add(tf.ones(2))
        return tf.reduce_sum(y)
    fn = tf.experimental.to_jax(f)
    assert fn.variables == (w, b)
    values = fn.variable_values()
    x = jnp.ones((4, 3))
    out, new = fn(values, x)
    assert float(out) == 24.0 and new[1].tolist() == [1.0, 1.0]
    assert b.numpy().tolist() == [0.0, 0.0]    # pure: the variables are untouched
    gw, gb = jax.grad(lambda v, x: fn(v, x)[0])(values, x)
    assert gw.tolist() == [[4.0, 4.0]] * 3 and gb.tolist() == [4.0, 4.0]
    assert float(jax.jit(fn)(values, x)[0]) == 24.0
    per_row = jax.vmap(lambda r: fn(values, r[None])[0])(x)
    assert per_row.tolist() == [6.0] * 4


@pytest.mark.skipif(any(lowering._has_module(p) for p in lowering._GPU_PLUGINS),
                    reason="a JAX GPU plugin is installed")
def test_gpus_come_from_jax_plugins_only():
    # Without a JAX GPU plugin: only the CPU.
    assert [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
    assert tf.config.list_physical_devices("GPU") == []

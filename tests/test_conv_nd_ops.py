"""Conv3D, the transposed and dispatching convolutions, 3-D pooling and
max_pool_with_argmax: values against loop references and TensorFlow 2.21's
outputs (tests/data/tf_conv_nd.npz, from tools/tf_conv_nd_fixtures.py),
gradients against numerical ones, tf.function against eager, and
TensorFlow's errors."""
import os

import numpy as np
import pytest

import rillflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_conv_nd.npz"))
POOL3D = [((2, 4, 5, 6, 1), [2, 2, 2], [1, 1, 1], "SAME"),
          ((1, 5, 4, 6, 4), [3, 2, 3], [2, 1, 2], "VALID"),
          ((1, 3, 6, 5, 8), [2, 3, 3], [1, 2, 1], "SAME"),
          ((2, 4, 4, 4, 17), [2, 2, 2], [2, 2, 2], "SAME"),
          ((1, 6, 5, 7, 3), [3, 3, 3], [1, 1, 1], "SAME")]
ARGMAX = [([1, 2, 2, 1], [1, 1, 1, 1], "SAME"), ([1, 3, 2, 1], [1, 2, 2, 1], "VALID")]
CONV3D = [([1, 1, 1, 1, 1], "SAME", [1, 1, 1, 1, 1]), ([1, 2, 1, 2, 1], "VALID", [1, 1, 1, 1, 1]),
          ([1, 1, 1, 1, 1], "SAME", [1, 2, 1, 2, 1])]


def bits(a):
    return np.asarray(a).view(np.int32)


def ref_conv3d(x, f, s, d, pad):
    """Conv3D as plain loops over outputs and filter taps (float64)."""
    n, sizes, c = x.shape[0], x.shape[1:4], x.shape[4]
    k, o = f.shape[:3], f.shape[4]
    outs, before = [], []
    for size, kk, st, dl in zip(sizes, k, s, d):
        eff = (kk - 1) * dl + 1
        if pad == "SAME":
            out = -(-size // st)
            outs.append(out)
            before.append(max((out - 1) * st + eff - size, 0) // 2)
        else:
            outs.append((size - eff) // st + 1)
            before.append(0)
    y = np.zeros((n,) + tuple(outs) + (o,))
    for idx in np.ndindex(*outs):
        for tap in np.ndindex(*k):
            p = [idx[a] * s[a] + tap[a] * d[a] - before[a] for a in range(3)]
            if all(0 <= p[a] < sizes[a] for a in range(3)):
                y[(slice(None),) + idx] += x[:, p[0], p[1], p[2]].astype(np.float64) @ f[tap]
    return y


@pytest.mark.parametrize("s,pad,d", [([1, 1, 1], "SAME", [1, 1, 1]), ([2, 1, 3], "VALID", [1, 1, 1]),
                                     ([1, 1, 1], "SAME", [2, 1, 2]), ([2, 2, 1], "SAME", [1, 1, 1])])
def test_conv3d_against_loops(s, pad, d):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 6, 7, 3)).astype(np.float32)
    f = rng.standard_normal((2, 3, 2, 3, 4)).astype(np.float32)
    y = tf.nn.conv3d(x, f, [1] + s + [1], pad, dilations=[1] + d + [1])
    np.testing.assert_allclose(y.numpy(), ref_conv3d(x, f, s, d, pad), rtol=1e-5, atol=1e-5)
    g = tf.function(lambda a, b: tf.nn.conv3d(a, b, [1] + s + [1], pad,
                                              dilations=[1] + d + [1]))(x, f)
    np.testing.assert_array_equal(g.numpy(), y.numpy())


@pytest.mark.parametrize("i", range(len(CONV3D)))
def test_conv3d_and_its_gradients_match_tensorflow(i):
    # TensorFlow runs oneDNN: the sums' order differs, so within tolerance.
    s, pad, d = CONV3D[i]
    x, f = tf.constant(F[f"c3_{i}_x"]), tf.constant(F[f"c3_{i}_f"])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, f])
        y = tf.nn.conv3d(x, f, s, pad, dilations=d)
    dx, df = t.gradient(y, [x, f], output_gradients=tf.constant(F[f"c3_{i}_g"]))
    for got, key in ((y, "y"), (dx, "dx"), (df, "df")):
        np.testing.assert_allclose(got.numpy(), F[f"c3_{i}_{key}"], rtol=2e-5, atol=2e-4)


def test_conv3d_numerical_gradients_and_second_order():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((1, 3, 4, 3, 2)))
    f = tf.constant(rng.standard_normal((2, 2, 3, 2, 3)))
    for s, pad in (([1, 1, 2, 1, 1], "SAME"), ([1, 2, 1, 1, 1], "VALID")):
        th, tn = tf.test.compute_gradient(lambda a, b: tf.nn.conv3d(a, b, s, pad), [x, f])
        for a, b in zip(th, tn):
            np.testing.assert_allclose(a, b, atol=1e-6)
    # The backprop ops are differentiable again (their gradients are
    # convolutions): the input gradient's derivative by the filter.
    def grad_x(b):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.nn.conv3d(x, b, [1, 1, 2, 1, 1], "SAME") ** 2)
        return t.gradient(y, x)
    th, tn = tf.test.compute_gradient(grad_x, [f])
    np.testing.assert_allclose(th[0], tn[0], atol=1e-5)


def test_transposed_atrous_and_depthwise_backprop_match_tensorflow():
    tol = dict(rtol=2e-5, atol=2e-4)
    np.testing.assert_allclose(tf.nn.conv3d_transpose(F["t3_v"], F["t3_f"], [2, 6, 5, 6, 2],
                                                      [1, 2, 2, 2, 1]).numpy(), F["t3_y"], **tol)
    np.testing.assert_allclose(tf.nn.conv_transpose(F["t3_v"], F["t3_f"], [2, 6, 5, 6, 2],
                                                    2).numpy(), F["t3_y"], **tol)
    np.testing.assert_allclose(tf.nn.conv1d_transpose(F["t1_v"], F["t1_f"], [2, 10, 2],
                                                      2).numpy(), F["t1_y"], **tol)
    np.testing.assert_allclose(tf.nn.conv_transpose(F["t1_v"], F["t1_f"], [2, 11, 2], 2,
                                                    "VALID").numpy(), F["t1_yv"], **tol)
    for pad in ("SAME", "VALID"):
        np.testing.assert_allclose(tf.nn.atrous_conv2d(F["at_x"], F["at_f"], 2, pad).numpy(),
                                   F["at_" + pad.lower()], **tol)
    np.testing.assert_allclose(tf.nn.atrous_conv2d_transpose(
        F["at_x"], F["att_f"], [1, 7, 8, 2], 2, "SAME").numpy(), F["att_same"], **tol)
    np.testing.assert_allclose(tf.nn.atrous_conv2d_transpose(
        F["at_x"], F["att_f"], [1, 11, 12, 2], 2, "VALID").numpy(), F["att_valid"], **tol)
    np.testing.assert_allclose(tf.nn.depthwise_conv2d_backprop_input(
        [1, 7, 8, 3], F["dw_f"], F["dw_dy"], [1, 2, 2, 1], "SAME").numpy(), F["dw_in"], **tol)
    np.testing.assert_allclose(tf.nn.depthwise_conv2d_backprop_filter(
        F["at_x"], [3, 2, 3, 2], F["dw_dy"], [1, 2, 2, 1], "SAME").numpy(), F["dw_filt"], **tol)


def test_convolution_dispatch_and_compat_backprops():
    rng = np.random.default_rng(3)
    x2 = rng.standard_normal((1, 6, 5, 3)).astype(np.float32)
    f2 = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(tf.nn.convolution(x2, f2, 2, "SAME").numpy(),
                                  tf.nn.conv2d(x2, f2, 2, "SAME").numpy())
    x1 = rng.standard_normal((2, 7, 3)).astype(np.float32)
    f1 = rng.standard_normal((3, 3, 2)).astype(np.float32)
    assert tf.nn.convolution(x1, f1, 2, "SAME").shape == (2, 4, 2)
    x3 = rng.standard_normal((1, 4, 5, 6, 3)).astype(np.float32)
    f3 = rng.standard_normal((2, 2, 2, 3, 2)).astype(np.float32)
    np.testing.assert_array_equal(tf.nn.convolution(x3, f3, dilations=2).numpy(),
                                  tf.nn.conv3d(x3, f3, [1] * 5, "VALID",
                                               dilations=[1, 2, 2, 2, 1]).numpy())
    dy = rng.standard_normal((1, 3, 3, 4)).astype(np.float32)
    with tf.GradientTape(persistent=True) as t:
        xt, ft = tf.constant(x2), tf.constant(f2)
        t.watch([xt, ft])
        y = tf.nn.conv2d(xt, ft, 2, "SAME")
    dx, df = t.gradient(y, [xt, ft], output_gradients=tf.constant(dy))
    np.testing.assert_array_equal(tf.compat.v1.nn.conv2d_backprop_input(
        [1, 6, 5, 3], f2, dy, [1, 2, 2, 1], "SAME").numpy(), dx.numpy())
    np.testing.assert_array_equal(tf.compat.v1.nn.conv2d_backprop_filter(
        x2, [3, 2, 3, 4], dy, [1, 2, 2, 1], "SAME").numpy(), df.numpy())
    np.testing.assert_array_equal(tf.raw_ops.Conv2D(input=x2, filter=f2, strides=[1, 2, 2, 1],
                                                    padding="SAME").numpy(), y.numpy())


def test_conv_errors_as_tensorflow():
    x, f = tf.ones([1, 4, 4, 4, 2]), tf.ones([2, 2, 2, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be at least minimum 5"):
        tf.nn.conv3d(x, f, [1, 1, 1], "SAME")
    with pytest.raises(TypeError, match="Expected list for 'strides' argument to 'conv3d'"):
        tf.nn.conv3d(x, f, 2, "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="strides in the batch and depth"):
        tf.nn.conv3d(x, f, [2, 1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input and filter must have the same depth: 2 vs 3"):
        tf.nn.conv3d(x, tf.ones([2, 2, 2, 3, 3]), [1] * 5, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match='"FOO" is not in the list'):
        tf.nn.conv3d(x, f, [1] * 5, "FOO")
    with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
        tf.nn.conv3d(x, f, [1] * 5, [[0, 0]] * 5)
    with pytest.raises(ValueError, match="Depth of input"):
        tf.function(lambda a: tf.nn.conv3d(a, tf.ones([2, 2, 2, 3, 3]), [1] * 5, "SAME")) \
            .get_concrete_function(tf.TensorSpec([1, 4, 4, 4, 2]))
    with pytest.raises(ValueError, match="`output_shape` must be of length 3, 4 or 5"):
        tf.nn.conv_transpose(tf.ones([1, 2, 2, 2, 2, 3]), f, [1, 4, 4, 4, 4, 2], 2)
    with pytest.raises(ValueError, match="`num_spatial_dims` must be 1, 2, or 3"):
        tf.nn.convolution(tf.ones([1, 5, 5, 5, 5, 2]), tf.ones([2, 2, 2, 2, 2, 3]))
    with pytest.raises(ValueError, match="strides should be of length 1, 1 or 3"):
        tf.nn.convolution(tf.ones([1, 5, 2]), tf.ones([2, 2, 3]), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="`strides > 1` not supported in conjunction"):
        tf.nn.convolution(tf.ones([1, 5, 2]), tf.ones([2, 2, 3]), 2, "SAME", dilations=2)
    with pytest.raises(ValueError, match="all values of `dilation_rate` must be positive"):
        tf.nn.atrous_conv2d(tf.ones([1, 5, 5, 2]), tf.ones([2, 2, 2, 3]), 0, "SAME")
    with pytest.raises(ValueError, match="`rate` cannot be less than one"):
        tf.nn.atrous_conv2d_transpose(tf.ones([1, 3, 3, 3]), tf.ones([2, 2, 2, 3]),
                                      [1, 5, 5, 2], 0, "VALID")
    with pytest.raises(TypeError, match="only takes keyword args"):
        tf.raw_ops.Conv3D(x, f, [1] * 5, "SAME")


@pytest.mark.parametrize("i", range(len(POOL3D)))
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool3d_matches_tensorflow_bit_for_bit(i, kind):
    # Max inputs hold ties, NaN, -0, -inf, +inf and the lowest value.
    _, k, s, pad = POOL3D[i]
    fn = tf.nn.max_pool3d if kind == "max" else tf.nn.avg_pool3d
    x = tf.constant(F[f"pool{i}_{kind}_x"])
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x, k, s, pad)
    dx = t.gradient(y, x, output_gradients=tf.constant(F[f"pool{i}_{kind}_g"]))
    np.testing.assert_array_equal(bits(y), bits(F[f"pool{i}_{kind}_y"]))
    if kind == "avg" and i == 4:
        # Three windows overlap along each axis: oneDNN's order of the
        # shares is not reproduced there (docs/numerics.md).
        np.testing.assert_allclose(dx.numpy(), F[f"pool{i}_avg_dx"], rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(bits(dx), bits(F[f"pool{i}_{kind}_dx"]))
    g = tf.function(lambda a: fn(a, k, s, pad))(x)
    np.testing.assert_array_equal(bits(g), bits(y))
    if kind == "max":
        gg = tf.raw_ops.MaxPool3DGradGrad(orig_input=x, orig_output=y,
                                          grad=F[f"pool{i}_max_gg"], ksize=[1] + k + [1],
                                          strides=[1] + s + [1], padding=pad)
        np.testing.assert_array_equal(bits(gg), bits(F[f"pool{i}_max_ggout"]))


def test_max_pool3d_gradient_rule_near_ties():
    # TensorFlow 2.21 printed these: every element within 1e-5 of the max
    # gets the gradient; -inf windows give none.
    def run(vals, k, s, pad):
        x = tf.constant(np.asarray(vals, np.float32).reshape(1, 1, 1, -1, 1))
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.nn.max_pool3d(x, [1, 1, k], [1, 1, s], pad)
        return y.numpy().ravel().tolist(), t.gradient(y, x).numpy().ravel().tolist()
    y, g = run([-np.inf, -np.inf, -0., 0., 0., -0., np.nan, -np.inf, 1, 1], 2, 2, "VALID")
    assert g == [0, 0, 1, 1, 1, 1, 0, 0, 1, 1]
    assert run([1., 1.000001, 1.00002, 0.5], 2, 2, "VALID")[1] == [1, 1, 1, 0]
    assert run([3, 3, 3, 1, 2], 3, 1, "VALID")[1] == [1, 2, 3, 0, 0]


def test_pool3d_numerical_gradients_and_loops():
    rng = np.random.default_rng(4)
    x = tf.constant(rng.permutation(60).reshape(1, 3, 4, 5, 1).astype(np.float32))
    th, tn = tf.test.compute_gradient(lambda a: tf.nn.avg_pool3d(a, 2, 1, "SAME"), [x])
    np.testing.assert_allclose(th[0], tn[0], atol=1e-2)
    th, tn = tf.test.compute_gradient(lambda a: tf.nn.max_pool3d(a, 2, [1, 2, 1], "SAME"), [x])
    np.testing.assert_allclose(th[0], tn[0], atol=1e-2)
    # Loop references of the forward ops.
    xv = rng.standard_normal((2, 5, 4, 6, 3)).astype(np.float32)
    y = tf.nn.max_pool(xv, [2, 3, 2], [2, 1, 2], "VALID").numpy()
    a = tf.nn.avg_pool(xv, [2, 3, 2], [2, 1, 2], "VALID").numpy()
    for idx in np.ndindex(*y.shape[1:4]):
        win = xv[:, 2 * idx[0]:2 * idx[0] + 2, idx[1]:idx[1] + 3, 2 * idx[2]:2 * idx[2] + 2]
        np.testing.assert_array_equal(y[:, idx[0], idx[1], idx[2]], win.max(axis=(1, 2, 3)))
        np.testing.assert_allclose(a[:, idx[0], idx[1], idx[2]], win.mean(axis=(1, 2, 3)),
                                   rtol=1e-6)
    p = tf.nn.pool(xv, [2, 3, 2], "AVG", [2, 1, 2], "VALID").numpy()
    np.testing.assert_array_equal(p, a)


def test_pool_errors_as_tensorflow():
    x = tf.ones([1, 4, 4, 4, 2])
    with pytest.raises(ValueError, match="ksize should be of length 1, 3 or 5"):
        tf.nn.max_pool3d(x, [2, 2], 2, "VALID")
    with pytest.raises(tf.errors.UnimplementedError, match="on the depth dimension"):
        tf.nn.max_pool3d(x, [1, 2, 2, 2, 2], 2, "VALID")
    with pytest.raises(tf.errors.UnimplementedError, match="on the batch dimension"):
        tf.nn.avg_pool3d(x, [2, 2, 2, 2, 1], 2, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed"):
        tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 2], tf.int32), 2, 2, "VALID")
    with pytest.raises(ValueError, match="`input.shape.rank` must be 3, 4 or 5"):
        tf.nn.max_pool(tf.ones([1, 4, 4, 4, 4, 2]), 2, 2, "VALID")
    with pytest.raises(ValueError, match="1-D FOO pooling is not supported"):
        tf.nn.pool(tf.ones([1, 4, 2]), [2], "FOO")
    with pytest.raises(ValueError, match="'SAME' padding is not implemented"):
        tf.nn.pool(tf.ones([1, 4, 4, 2]), [2, 2], "MAX", padding="SAME", dilations=[2, 2])
    with pytest.raises(ValueError, match="`len\\(window_shape\\)` must be 1, 2, or 3"):
        tf.nn.pool(tf.ones([1, 4, 4, 4, 4, 2]), [2, 2, 2, 2], "MAX")
    with pytest.raises(tf.errors.UnimplementedError, match="exactly one of pooling"):
        tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 2]), [1, 2, 2, 2], 2, "SAME")
    with pytest.raises(ValueError, match="other  than 'NHWC'"):
        tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 2]), 2, 2, "SAME", data_format="NCHW")
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Targmax' of float"):
        tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 2]), 2, 2, "SAME",
                                   output_dtype=tf.float32)
    assert tf.nn.max_pool3d(x, 5, 2, "VALID").shape == (1, 0, 0, 0, 2)


@pytest.mark.parametrize("i", range(len(ARGMAX)))
@pytest.mark.parametrize("batch", [False, True])
def test_max_pool_with_argmax_matches_tensorflow(i, batch):
    k, s, pad = ARGMAX[i]
    key = f"am{i}_{batch}_"
    x = tf.constant(F[key + "x"])
    with tf.GradientTape() as t:
        t.watch(x)
        v, a = tf.nn.max_pool_with_argmax(x, k, s, pad, include_batch_in_index=batch)
    np.testing.assert_array_equal(bits(v), bits(F[key + "v"]))
    np.testing.assert_array_equal(a.numpy(), F[key + "a"])
    assert a.dtype == tf.int64
    dx = t.gradient(v, x, output_gradients=tf.constant(F[key + "g"]))
    np.testing.assert_array_equal(bits(dx), bits(F[key + "dx"]))
    raw = tf.raw_ops.MaxPoolGradWithArgmax(input=x, grad=F[key + "g"], argmax=a, ksize=k,
                                           strides=s, padding=pad, include_batch_in_index=batch)
    np.testing.assert_array_equal(bits(raw), bits(F[key + "dx"]))
    g = tf.function(lambda z: tf.nn.max_pool_with_argmax(z, k, s, pad,
                                                         include_batch_in_index=batch))(x)
    np.testing.assert_array_equal(g.argmax.numpy(), a.numpy())
    a32 = tf.nn.max_pool_with_argmax(x, k, s, pad, output_dtype=tf.int32).argmax
    assert a32.dtype == tf.int32


def test_depthwise_kernels_against_loops():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 6, 7, 3)).astype(np.float32)
    for m, s, pad, d in ((1, 1, "SAME", 1), (2, 2, "VALID", 1), (3, 1, "SAME", 2)):
        f = rng.standard_normal((3, 2, 3, m)).astype(np.float32)
        y = tf.nn.depthwise_conv2d(x, f, [1, s, s, 1], pad, dilations=[d, d]).numpy()
        ref = np.concatenate([ref_conv3d(x[:, None, :, :, c:c + 1], f[None, :, :, c:c + 1, :],
                                         (1, s, s), (1, d, d), pad)[:, 0]
                              for c in range(3)], axis=-1)
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
        xt, ft = tf.constant(x.astype(np.float64)), tf.constant(f.astype(np.float64))
        th, tn = tf.test.compute_gradient(
            lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, s, s, 1], pad, dilations=[d, d]),
            [xt[:1, :4, :5], ft])
        for a, b in zip(th, tn):
            np.testing.assert_allclose(a, b, atol=1e-6)


def test_conv1d_transpose_output_shape_list_holding_a_tensor():
    # Keras passes [tf.shape(x)[0], width, channels]; TensorFlow 2.21 sums
    # this result to 770.6 (float32 rounding of the same products).
    x = tf.constant(np.arange(2 * 5 * 3, dtype="float32").reshape(2, 5, 3) / 10)
    f = tf.constant(np.arange(3 * 4 * 3, dtype="float32").reshape(3, 4, 3) / 10)

    @tf.function
    def g(x):
        return tf.nn.conv1d_transpose(x, f, [tf.shape(x)[0], 10, 4], 2, "SAME")
    y = g(x)
    assert y.shape == (2, 10, 4)
    assert float(tf.reduce_sum(y)) == pytest.approx(770.6, rel=1e-6)
    np.testing.assert_allclose(y.numpy(), tf.nn.conv1d_transpose(x, f, [2, 10, 4], 2).numpy())

"""tf.nn: activations, softmax, cross entropies, bias_add, l2_loss, moments,
batch normalization, dropout, embedding lookup. Expected values were taken
from TensorFlow 2.21."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder

_RNG = np.random.default_rng(1234)


def _x(*shape):
    return tf.constant(_RNG.normal(size=shape))


def _ph(dtype, shape):
    return placeholder(dtype, tf.TensorShape(shape))


def _close(t, expected, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(t.numpy(), dtype=np.float64), expected,
                               rtol=rtol, atol=atol)


def _second_derivative(f):
    """x -> d(sum(f(x)^2))/dx, for checking gradients of gradients."""
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, x)
    return g


def _has(module, name):
    import importlib
    return hasattr(importlib.import_module("rillflow.ops." + module), name)


# --- activations --------------------------------------------------------------

def test_relu_keeps_integer_and_float_dtypes():
    r = tf.nn.relu([1, -2, 0])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [1, 0, 0]
    r = tf.nn.relu(tf.constant([1.5, -2.0, np.nan]))
    assert r.dtype == tf.float32
    assert r.numpy()[:2].tolist() == [1.5, 0.0] and np.isnan(r.numpy()[2])
    r = tf.nn.relu(tf.constant([-3, 4], tf.int8))
    assert r.dtype == tf.int8 and r.numpy().tolist() == [0, 4]


def test_relu_rejects_bool_and_string():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.nn.relu([True])
    with pytest.raises(tf.errors.InvalidArgumentError, match="string"):
        tf.nn.relu(["a"])


def test_relu6_clips_to_six():
    assert tf.nn.relu6([1, -2, 8]).numpy().tolist() == [1, 0, 6]
    r = tf.nn.relu6(tf.constant([7.5, 3.25, -1.0], tf.float64))
    assert r.dtype == tf.float64 and r.numpy().tolist() == [6.0, 3.25, 0.0]


def test_leaky_relu_alpha_and_integer_input_become_float32():
    _close(tf.nn.leaky_relu([1., -2.]), [1.0, -0.4])
    _close(tf.nn.leaky_relu([1., -2.], alpha=2.), [1.0, -4.0])
    r = tf.nn.leaky_relu([1, -2])
    assert r.dtype == tf.float32
    _close(r, [1.0, -0.4])
    _close(tf.nn.leaky_relu([-10.], alpha=np.array(0.5)), [-5.0])


def test_elu_and_selu_values():
    _close(tf.nn.elu([0.5, -1.5, 3.]), [0.5, -0.7768698334693909, 3.0])
    _close(tf.nn.selu([0.5, -1.5, 3.]),
           [0.5253505110740662, -1.3658143281936646, 3.1521029472351074], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.elu([1, -2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.selu([1, -2])


def test_gelu_exact_and_tanh_approximation():
    _close(tf.nn.gelu([0.5, -1.5, 3.]),
           [0.3457312285900116, -0.10021083056926727, 2.995950222015381], rtol=1e-6)
    _close(tf.nn.gelu([0.5, -1.5, 3.], approximate=True),
           [0.3457140028476715, -0.10042843222618103, 2.9963626861572266], rtol=1e-6)
    r = tf.nn.gelu(tf.constant([1., -2.], tf.float64), approximate=True)
    assert r.dtype == tf.float64
    _close(r, [0.84119199, -0.04540231], rtol=1e-7)
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.gelu([1, -2])


def test_silu_and_swish_with_beta():
    assert tf.nn.swish is tf.nn.silu
    _close(tf.nn.silu([1., -2.]), [0.7310586, -0.23840584], rtol=1e-6)
    _close(tf.nn.silu([0.5, -1.5, 3.], beta=0.5),
           [0.281088262796402, -0.4812319278717041, 2.452723503112793], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.silu([1, -2])


# --- softmax ------------------------------------------------------------------

def test_softmax_values_and_alias():
    assert tf.math.softmax is tf.nn.softmax
    assert tf.math.log_softmax is tf.nn.log_softmax
    r = tf.nn.softmax([[1., 2., 3.], [0.1, -5., 2.]])
    assert r.dtype == tf.float32 and r.shape == (2, 3)
    _close(r, [[0.09003057330846786, 0.2447284758090973, 0.6652409434318542],
               [0.130005344748497, 0.0007926096441224217, 0.8692020177841187]])
    assert tf.nn.softmax([1., 2.]).numpy().tolist() == [np.float32(0.26894143),
                                                         np.float32(0.7310586)]


def test_softmax_along_another_axis():
    x = [[1., 2.], [3., 5.]]
    _close(tf.nn.softmax(x, axis=0), [[0.11920291, 0.04742587], [0.880797, 0.95257413]])
    _close(tf.nn.log_softmax(x, axis=-2), np.log([[0.11920291, 0.04742587],
                                                  [0.880797, 0.95257413]]), rtol=1e-5)
    x3 = _RNG.normal(size=(2, 3, 4))
    e = np.exp(x3 - x3.max(axis=1, keepdims=True))
    _close(tf.nn.softmax(tf.constant(x3), axis=1), e / e.sum(axis=1, keepdims=True),
           rtol=1e-12)


def test_softmax_is_numerically_stable():
    _close(tf.nn.softmax([1000., 0.]), [1.0, 0.0])
    assert tf.nn.log_softmax([1000., 0.]).numpy().tolist() == [0.0, -1000.0]
    r = tf.nn.log_softmax(tf.constant([-1000., 1000.], tf.float64))
    assert r.numpy().tolist() == [-2000.0, 0.0]


def test_softmax_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"must be in the range \[-2, 2\)"):
        tf.nn.softmax([[1., 2.], [3., 5.]], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least rank 1|>= 1 dimension"):
        tf.nn.softmax(3.)
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.softmax([1, 2])
    assert tf.nn.softmax([]).shape == (0,)


# --- cross entropies ----------------------------------------------------------

def _np_log_softmax(x):
    x = np.asarray(x, np.float64)
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def test_softmax_cross_entropy_values_and_stability():
    r = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.2, 0.8], [0.5, 0.5]],
                                                logits=[[1000., 0.], [1., -1.]])
    assert r.dtype == tf.float32 and r.shape == (2,)
    _close(r, [800.0, 1.1269280910491943])
    r = tf.nn.softmax_cross_entropy_with_logits(labels=[0., 1.], logits=[2., -3.])
    assert r.shape == () and abs(float(r) - 5.006715297698975) < 1e-6
    labels = _RNG.dirichlet(np.ones(5), size=(2, 3))
    logits = _RNG.normal(size=(2, 3, 5))
    expected = -(labels * _np_log_softmax(logits)).sum(-1)
    _close(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits), expected,
           rtol=1e-12)


def test_softmax_cross_entropy_axis_and_label_cast():
    r = tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.], [1., 0.]],
                                                logits=[[2., -3.], [1., 1.]], axis=0)
    _close(r, [1.3132616, 4.01815], rtol=1e-6)
    r = tf.nn.softmax_cross_entropy_with_logits(labels=[0, 1], logits=[2., -3.])
    assert r.dtype == tf.float32 and abs(float(r) - 5.0067153) < 1e-6


def test_softmax_cross_entropy_shape_rules():
    # The loss has the batch shape of the logits, as in TensorFlow.
    r = tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.]], logits=[2., -3.])
    assert r.shape == ()
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be broadcastable"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.]], logits=[[2., -3., 1.]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.], [1., 0.]], logits=[[2., -3.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[0., 1.], logits=[2, -3])


def test_sparse_softmax_cross_entropy_values():
    r = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0],
                                                       logits=[[1000., 0.], [1., -1.]])
    _close(r, [1000.0, 0.12692804634571075])
    r = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=1, logits=[2., -3.])
    assert r.shape == () and abs(float(r) - 5.0067153) < 1e-6
    logits = _RNG.normal(size=(2, 3, 4))
    labels = np.array([[0, 3, 1], [2, 2, 0]], np.int64)
    expected = -np.take_along_axis(_np_log_softmax(logits), labels[..., None], -1)[..., 0]
    r = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert r.dtype == tf.float64 and r.shape == (2, 3)
    _close(r, expected, rtol=1e-12)


def test_sparse_softmax_cross_entropy_errors():
    logits = [[2., -3.], [1., 1.]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"label value of 2 which is outside the valid range of \[0, 2\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=logits)
    with pytest.raises(ValueError, match="except for the last dimension"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=logits)
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - "
                       r"1`. Received: labels.shape=\(1, 2\) of rank 2 and logits.shape=\(2, 2\) "
                       r"of rank 2"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1, 0]], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'Tlabels' of float is not in the list of allowed "
                       "values: int32, int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1., 0.], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=[[2, -3]])
    with pytest.raises(ValueError, match="cannot be a scalar"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=1, logits=2.)


def test_sigmoid_cross_entropy_is_stable():
    r = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1., 0., 0.3], logits=[100., -100., 0.5])
    _close(r, [0.0, 0.0, 0.8240770101547241])
    z = _RNG.uniform(size=6)
    x = _RNG.normal(size=6) * 3
    expected = -(z * np.log(1 / (1 + np.exp(-x))) + (1 - z) * np.log(1 - 1 / (1 + np.exp(-x))))
    _close(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), expected, rtol=1e-10)


def test_sigmoid_cross_entropy_errors():
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1., 0.], logits=[2., -3., 1.])
    with pytest.raises(ValueError, match="must be provided"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1., 0.])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1, 0], logits=[2., -3.])


def test_weighted_cross_entropy_and_log_poisson_loss():
    r = tf.nn.weighted_cross_entropy_with_logits(labels=[1., 0., 0.3],
                                                 logits=[100., -100., 0.5], pos_weight=2.)
    _close(r, [0.0, 0.0, 0.9663000106811523], rtol=1e-6)
    _close(tf.nn.weighted_cross_entropy_with_logits(labels=[1., 0.], logits=[2., -3.],
                                                    pos_weight=3.),
           [0.380784, 0.04858732], rtol=1e-6)
    _close(tf.nn.log_poisson_loss([1., 2.], [0.5, 1.]), [1.1487212, 0.71828175], rtol=1e-6)
    _close(tf.nn.log_poisson_loss([1., 2.], [0.5, 1.], compute_full_loss=True),
           [1.1487212, 1.3700882], rtol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.log_poisson_loss([1., 2.], [0.5])


# --- bias_add, l2_loss --------------------------------------------------------

def test_bias_add_data_formats():
    _close(tf.nn.bias_add([[1., 2.]], [1., 2.]), [[2., 4.]])
    for fmt in ("NCHW", "NCW", "NC", "NCDHW"):
        r = tf.nn.bias_add(tf.zeros([1, 2, 3]), [1., 2.], data_format=fmt)
        _close(r, [[[1., 1., 1.], [2., 2., 2.]]])
    r = tf.nn.bias_add(tf.zeros([2, 3, 2]), [1., 2.], data_format="NWC")
    assert r.numpy()[1, 2].tolist() == [1.0, 2.0]
    r = tf.nn.bias_add([[1, 2]], [1, 2])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[2, 4]]


def test_bias_add_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"as many biases as the last dimension .*\[3\] vs. \[1,2\]"):
        tf.nn.bias_add([[1., 2.]], [1., 2., 3.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="channel dimension"):
        tf.nn.bias_add(tf.zeros([1, 2, 3]), [1., 2., 3.], data_format="NCHW")
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 2D"):
        tf.nn.bias_add([1., 2.], [1., 2.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Biases must be 1D"):
        tf.nn.bias_add([[1., 2.]], [[1., 2.]])
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.bias_add([[1., 2.]], [1., 2.], data_format="XYZ")
    with pytest.raises(TypeError):
        tf.nn.bias_add([[1, 2]], [1., 2.])


def test_l2_loss():
    r = tf.nn.l2_loss([1., 2.])
    assert r.dtype == tf.float32 and r.shape == () and float(r) == 2.5
    assert float(tf.nn.l2_loss(tf.constant([[3.]], tf.float64))) == 4.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.l2_loss([1, 2])


# --- moments and normalization --------------------------------------------------

def test_moments():
    x = tf.constant([[1., 2.], [3., 5.]])
    mean, var = tf.nn.moments(x, [0])
    assert mean.numpy().tolist() == [2.0, 3.5] and var.numpy().tolist() == [1.0, 2.25]
    mean, var = tf.nn.moments(x, 1)
    assert mean.numpy().tolist() == [1.5, 4.0] and var.numpy().tolist() == [0.25, 1.0]
    mean, var = tf.nn.moments(x, [0, 1], keepdims=True)
    assert mean.shape == (1, 1) and float(mean[0, 0]) == 2.75 and float(var[0, 0]) == 2.1875
    mean, var = tf.nn.moments(tf.constant([[1, 2], [3, 5]]), [0])
    assert mean.dtype == tf.int32 and mean.numpy().tolist() == [2, 3]
    assert var.numpy().tolist() == [1, 2]
    mean, var = tf.nn.moments(tf.constant([[1., 2.], [3., 5.]], tf.float16), [0])
    assert mean.dtype == tf.float16 and var.numpy().tolist() == [1.0, 2.25]


def test_normalize_moments_and_sufficient_statistics():
    mean, var = tf.nn.normalize_moments(tf.constant(4.), tf.constant([4., 8.]),
                                        tf.constant([20., 80.]), None)
    assert mean.numpy().tolist() == [1.0, 2.0] and var.numpy().tolist() == [4.0, 16.0]
    x = tf.constant(_RNG.normal(size=(4, 3)))
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0])
    assert float(count) == 4.0 and shift is None
    mean, var = tf.nn.normalize_moments(count, m_ss, v_ss, shift)
    _close(mean, x.numpy().mean(0), rtol=1e-12)
    _close(var, x.numpy().var(0), rtol=1e-10)


def test_batch_normalization():
    r = tf.nn.batch_normalization(tf.constant([1., 2.]), 1., 4., 0.5, 2., 0.)
    assert r.numpy().tolist() == [0.5, 1.5]
    x = _RNG.normal(size=(5, 3))
    m, v = x.mean(0), x.var(0)
    off, sc = _RNG.normal(size=3), _RNG.normal(size=3)
    r = tf.nn.batch_normalization(tf.constant(x), m, v, off, sc, 1e-3)
    _close(r, (x - m) / np.sqrt(v + 1e-3) * sc + off, rtol=1e-10)
    r = tf.nn.batch_normalization(tf.constant(x), m, v, None, None, 1e-3)
    _close(r, (x - m) / np.sqrt(v + 1e-3), rtol=1e-10)


# --- dropout ------------------------------------------------------------------

def test_dropout_scales_kept_values():
    tf.random.set_seed(5)
    try:
        x = tf.ones([20000])
        r = tf.nn.dropout(x, rate=0.25).numpy()
        kept = r != 0
        assert np.all(r[kept] == np.float32(1 / 0.75))
        assert abs(kept.mean() - 0.75) < 0.02
        r = tf.nn.dropout(x, rate=tf.constant(0.5)).numpy()
        assert set(np.unique(r).tolist()) == {0.0, 2.0}
    finally:
        tf.random.set_seed(None)


def test_dropout_rate_zero_noise_shape_and_seed():
    x = tf.constant([[1., 2.], [3., 4.]])
    assert tf.nn.dropout(x, rate=0.).numpy().tolist() == x.numpy().tolist()
    r = tf.nn.dropout(tf.ones([50, 6]), rate=0.5, noise_shape=[50, 1]).numpy()
    # A whole row is kept or dropped together.
    assert all(len(set(row.tolist())) == 1 for row in r)
    tf.random.set_seed(3)
    a = tf.nn.dropout(tf.ones([100]), 0.5, seed=1).numpy()
    b = tf.nn.dropout(tf.ones([100]), 0.5, seed=1).numpy()
    tf.random.set_seed(3)
    a2 = tf.nn.dropout(tf.ones([100]), 0.5, seed=1).numpy()
    tf.random.set_seed(None)
    assert a.tolist() == a2.tolist() and a.tolist() != b.tolist()


def test_dropout_errors():
    for rate in (1., -0.1, 1.5):
        with pytest.raises(ValueError, match=r"range \[0, 1\)"):
            tf.nn.dropout([1., 2.], rate=rate)
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.dropout([1, 2, 3, 4], rate=0.5)
    with pytest.raises(ValueError, match="scalar"):
        tf.nn.dropout([1., 2.], rate=tf.constant([0.5, 0.5]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.dropout([[1., 2.], [3., 4.]], rate=0.5, noise_shape=[3, 1])


# --- embedding lookup and extras ------------------------------------------------

@pytest.mark.skipif(not _has("core.gather_ops", "gather"), reason="gather is not available yet")
def test_embedding_lookup():
    params = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    r = tf.nn.embedding_lookup(params, [2, 0, 2])
    assert r.numpy().tolist() == [[5., 6.], [1., 2.], [5., 6.]]
    r = tf.nn.embedding_lookup([params[:2], params[2:]], [[2], [1]])
    assert r.shape == (2, 1, 2) and r.numpy()[0, 0].tolist() == [5., 6.]
    r = tf.nn.embedding_lookup(tf.constant([[3., 4.], [0.3, 0.4]]), [0, 1], max_norm=1.0)
    _close(r, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup(params, [3])


def test_crelu_and_zero_fraction():
    r = tf.nn.crelu([[1., -2.]])
    assert r.numpy().tolist() == [[1., 0., 0., 2.]]
    assert float(tf.nn.zero_fraction([0., 1., 0., 3.])) == 0.5


# --- graph construction -------------------------------------------------------

def test_graph_op_types_and_static_shapes():
    g = tf.Graph()
    with g.as_default():
        x = _ph(tf.float32, [None, 3])
        labels = _ph(tf.int32, [None])
        outs = {
            "Relu": tf.nn.relu(x), "Relu6": tf.nn.relu6(x), "LeakyRelu": tf.nn.leaky_relu(x),
            "Elu": tf.nn.elu(x), "Selu": tf.nn.selu(x), "Softmax": tf.nn.softmax(x),
            "LogSoftmax": tf.nn.log_softmax(x), "BiasAdd": tf.nn.bias_add(x, [1., 2., 3.]),
            "SparseSoftmaxCrossEntropyWithLogits":
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x),
            "SoftmaxCrossEntropyWithLogits":
                tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x),
        }
        for op_type, t in outs.items():
            assert t.op.type == op_type
            assert t.dtype == tf.float32
        for t in list(outs.values())[:8]:
            assert t.shape.as_list() == [None, 3]
        assert outs["SoftmaxCrossEntropyWithLogits"].shape.as_list() == [None]
        assert outs["SparseSoftmaxCrossEntropyWithLogits"].shape.as_list() == [None]
        assert tf.nn.l2_loss(x).op.type == "L2Loss" and tf.nn.l2_loss(x).shape == ()
        types = {op.type for op in g.get_operations()}
        assert "BiasAdd" in types and outs["BiasAdd"].op.name == "BiasAdd"


def test_graph_shape_inference_partial_shapes():
    with tf.Graph().as_default():
        assert tf.nn.bias_add(_ph(tf.float32, [5, None, 4]), _ph(tf.float32, [3]),
                              data_format="NCHW").shape.as_list() == [5, 3, 4]
        assert tf.nn.bias_add(_ph(tf.float32, None), _ph(tf.float32, [3])).shape.rank is None
        assert tf.nn.softmax(_ph(tf.float32, None)).shape.rank is None
        r = tf.nn.softmax_cross_entropy_with_logits(labels=_ph(tf.float32, [None, 3]),
                                                    logits=_ph(tf.float32, [4, None]))
        assert r.shape.as_list() == [4]
        r = tf.nn.softmax_cross_entropy_with_logits(labels=_ph(tf.float32, [2, 3, 4]),
                                                    logits=_ph(tf.float32, [2, 3, 4]), axis=1)
        assert r.shape.as_list() == [2, 4]
        r = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=_ph(tf.int64, None),
                                                           logits=_ph(tf.float32, [2, 3, 7]))
        assert r.shape.as_list() == [2, 3]
        r = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=_ph(tf.int32, [2]),
                                                           logits=_ph(tf.float64, None))
        assert r.shape.as_list() == [2] and r.dtype == tf.float64
        mean, var = tf.nn.moments(_ph(tf.float32, [None, 3, None]), [0, 2])
        assert mean.shape.as_list() == [3] and var.shape.as_list() == [3]
        mean, var = tf.nn.moments(_ph(tf.float32, [None, 3, None]), [0, 2], keepdims=True)
        assert mean.shape.as_list() == [1, 3, 1]
        d = tf.nn.dropout(_ph(tf.float32, [None, 3]), 0.5)
        assert d.shape.as_list() == [None, 3] and d.dtype == tf.float32


def test_graph_construction_errors():
    with tf.Graph().as_default():
        x = _ph(tf.float32, [None, 3])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.nn.bias_add(x, _ph(tf.float32, [2]))
        with pytest.raises(ValueError, match="at least rank 2"):
            tf.nn.bias_add(_ph(tf.float32, [3]), _ph(tf.float32, [3]))
        with pytest.raises(ValueError, match="at least rank 1"):
            tf.nn.softmax(_ph(tf.float32, []))
        with pytest.raises(TypeError):
            tf.nn.relu(_ph(tf.bool, [2]))
        with pytest.raises(ValueError, match="except for the last dimension"):
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=_ph(tf.int32, [5]),
                                                           logits=_ph(tf.float32, [4, 3]))
        with pytest.raises(ValueError, match="partially known"):
            tf.nn.dropout(x, 0.5, noise_shape=[None, 1])


# --- gradients ------------------------------------------------------------------

_ACTIVATIONS = {
    "relu": tf.nn.relu,
    "relu6": lambda x: tf.nn.relu6(x * 4.0),
    "leaky_relu": lambda x: tf.nn.leaky_relu(x, 0.3),
    "elu": tf.nn.elu,
    "selu": tf.nn.selu,
    "gelu": tf.nn.gelu,
    "gelu_tanh": lambda x: tf.nn.gelu(x, approximate=True),
    "silu": tf.nn.silu,
    "softmax": tf.nn.softmax,
    "softmax_axis0": lambda x: tf.nn.softmax(x, axis=0),
    "log_softmax": tf.nn.log_softmax,
    "l2_loss": tf.nn.l2_loss,
}


# Spans both kinks of relu6 (0 and 6, times 4), touching neither.
_SPREAD = tf.constant(np.linspace(-2.0, 2.0, 12).reshape(3, 4))


@pytest.mark.parametrize("name", sorted(_ACTIVATIONS))
def test_activation_gradients(name):
    assert_gradients_match(_ACTIVATIONS[name], [_x(3, 4)])
    assert_gradients_match(_ACTIVATIONS[name], [_SPREAD])


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu", "selu", "softmax",
                                  "log_softmax", "gelu", "silu"])
def test_activation_second_derivatives(name):
    assert_gradients_match(_second_derivative(_ACTIVATIONS[name]), [_x(3, 4)])


def test_silu_gradient_with_respect_to_beta():
    x = _x(5)
    assert_gradients_match(lambda b: tf.nn.silu(x, beta=b), [tf.constant(1.3, tf.float64)])


def test_softmax_cross_entropy_gradients_for_logits_and_labels():
    logits = _x(3, 4)
    labels = tf.constant(_RNG.dirichlet(np.ones(4), size=3))
    assert_gradients_match(
        lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x), [logits])
    assert_gradients_match(
        lambda z: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=logits), [labels])
    assert_gradients_match(
        _second_derivative(lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                                              logits=x)),
        [logits])


def test_softmax_cross_entropy_gradient_matches_tensorflow():
    x = tf.constant([[1., 2., 3.], [0., 0., 1.]])
    lab = tf.constant([[0.1, 0.2, 0.7], [1., 0., 0.]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, lab])
        y = tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=x)
    _close(tape.gradient(y, x), [[-0.009969428181648254, 0.04472847282886505,
                                  -0.0347590446472168],
                                 [-0.7880584597587585, 0.21194155514240265,
                                  0.5761168599128723]], atol=1e-6)
    _close(tape.gradient(y, lab), [[2.4076058864593506, 1.4076058864593506,
                                    0.40760594606399536],
                                   [1.5514447689056396, 1.5514447689056396,
                                    0.5514447093009949]], rtol=1e-6)


@pytest.mark.filterwarnings("ignore:The dtype of the")
def test_sparse_softmax_cross_entropy_gradients():
    labels = tf.constant([0, 3, 1])
    f = lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
    assert_gradients_match(f, [_x(3, 4)])
    assert_gradients_match(_second_derivative(f), [_x(3, 4)])
    x = _x(3, 4)
    with tf.GradientTape() as tape:
        tape.watch([x, labels])
        y = f(x)
    assert tape.gradient(y, labels) is None


def test_sigmoid_and_weighted_cross_entropy_gradients():
    x, z = _x(2, 3), tf.constant(_RNG.uniform(size=(2, 3)))
    assert_gradients_match(
        lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), [x])
    assert_gradients_match(
        lambda z: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), [z])
    assert_gradients_match(
        lambda x: tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x,
                                                           pos_weight=2.5), [x])
    assert_gradients_match(
        lambda c: tf.nn.log_poisson_loss(z * 3.0, c, compute_full_loss=True), [x])


@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 4)),
                                       ("NHWC", (3, 4)), ("NCHW", (3, 4))])
def test_bias_add_gradients(fmt, shape):
    c = shape[1] if fmt == "NCHW" else shape[-1]
    x, b = _x(*shape), _x(c)
    assert_gradients_match(lambda x: tf.nn.bias_add(x, b, data_format=fmt), [x])
    assert_gradients_match(lambda b: tf.nn.bias_add(x, b, data_format=fmt), [b])
    assert_gradients_match(
        _second_derivative(lambda b: tf.nn.bias_add(x * x, b, data_format=fmt)), [b])


def test_moments_and_batch_normalization_gradients():
    x = _x(4, 3)
    assert_gradients_match(lambda x: tf.nn.moments(x, [0])[0], [x])
    assert_gradients_match(lambda x: tf.nn.moments(x, [0])[1], [x])
    m, v, off, sc = _x(3), tf.constant(_RNG.uniform(0.5, 2, size=3)), _x(3), _x(3)
    assert_gradients_match(lambda x: tf.nn.batch_normalization(x, m, v, off, sc, 1e-3), [x])
    assert_gradients_match(lambda v: tf.nn.batch_normalization(x, m, v, off, sc, 1e-3), [v])
    assert_gradients_match(lambda s: tf.nn.batch_normalization(x, m, v, off, s, 1e-3), [sc])


def test_dropout_gradient_is_the_mask_times_scale():
    x = tf.constant(np.arange(1., 101.))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.2)
    g = tape.gradient(y, x).numpy()
    kept = y.numpy() != 0
    np.testing.assert_allclose(g[kept], 1.25)
    assert np.all(g[~kept] == 0)


def test_graph_gradients_build_gradient_ops():
    with tf.Graph().as_default():
        x = _ph(tf.float32, [None, 3])
        labels = _ph(tf.int32, [None])
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=tf.nn.relu(tf.nn.bias_add(x, [1., 2., 3.]))))
        g = tape.gradient(loss, x)
        assert g.shape.as_list() == [None, 3] and g.dtype == tf.float32
        types = {op.type for op in x.graph.get_operations()}
        assert {"ReluGrad", "SparseSoftmaxCrossEntropyWithLogits"} <= types


def test_weighted_moments_and_average_losses():
    x = tf.constant([[1., 2.], [3., 5.]])
    mean, var = tf.nn.weighted_moments(x, [0], tf.constant([[1.], [3.]]))
    assert mean.numpy().tolist() == [2.5, 4.25] and var.numpy().tolist() == [0.75, 1.6875]
    mean, var = tf.nn.weighted_moments(x, [0, 1], 0., keepdims=True)
    assert mean.shape == (1, 1) and float(mean[0, 0]) == 0.0 and float(var[0, 0]) == 0.0
    assert float(tf.nn.compute_average_loss([1., 2., 3.])) == 2.0
    assert float(tf.nn.compute_average_loss([[1., 2.], [3., 4.]])) == 5.0
    assert float(tf.nn.compute_average_loss([1., 2., 3.], global_batch_size=4)) == 1.5
    r = tf.nn.compute_average_loss([1., 2., 3.], sample_weight=[1., 0., 2.])
    assert abs(float(r) - 7 / 3) < 1e-6
    r = tf.nn.compute_average_loss(tf.constant([1, 2, 3]))
    assert r.dtype == tf.float64 and float(r) == 2.0
    assert float(tf.nn.compute_average_loss(tf.constant([], tf.float32))) == 0.0
    with pytest.raises(TypeError, match="integer"):
        tf.nn.compute_average_loss([1., 2., 3.], global_batch_size=2.5)
    assert float(tf.nn.scale_regularization_loss([1., 2.])) == 3.0


def test_ops_run_inside_tf_function_with_gradients():
    x = _x(4, 3)
    labels = tf.constant([0, 2, 1, 1])
    b = _x(3)

    def loss_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = tf.nn.elu(tf.nn.bias_add(x, b))
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=h)) + tf.nn.l2_loss(tf.nn.softmax(h))
        return loss, tape.gradient(loss, x)

    eager = loss_and_grad(x)
    traced = tf.function(loss_and_grad)(x)
    np.testing.assert_allclose(traced[0].numpy(), eager[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(traced[1].numpy(), eager[1].numpy(), rtol=1e-12)


def test_dropout_inside_tf_function_draws_a_new_mask_each_call():
    f = tf.function(lambda x: tf.nn.dropout(x, 0.5))
    x = tf.ones([64])
    a, b = f(x).numpy(), f(x).numpy()
    assert set(np.unique(a).tolist()) <= {0.0, 2.0}
    assert a.tolist() != b.tolist()


def test_log_poisson_full_loss_follows_tensorflows_formula():
    # Stirling's term is added wherever the target is not in [0, 1] (so a
    # negative target gives NaN), and the target's gradient there is NaN: TF
    # 2.21's values (an earlier rule added it only for z > 1).
    z = tf.constant([-1.0, 0.0, 0.5, 1.0, 2.0], tf.float32)
    c = tf.constant([0.0, 0.3, 0.3, 0.3, 0.3], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(z)
        loss = tf.nn.log_poisson_loss(z, c, compute_full_loss=True)
    np.testing.assert_allclose(loss.numpy(), [np.nan, 1.3498589, 1.1998589, 1.0498588,
                                              1.4016653], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(),
                               [np.nan, np.nan, -0.3, -0.3, 0.64314723], rtol=1e-6)


def test_truncatediv_of_the_most_negative_integer():
    imin = np.iinfo(np.int32).min
    x = tf.constant([imin, imin, imin, -1, -128, 7, -7], tf.int32)
    y = tf.constant([2, -2, -7, imin, 3, -2, 2], tf.int32)
    want = [-1073741824, 1073741824, 306783378, 0, -42, -3, -3]
    assert tf.truncatediv(x, y).numpy().tolist() == want
    assert tf.function(tf.truncatediv)(x, y).numpy().tolist() == want
    assert tf.truncatediv(tf.constant([-128, -128], tf.int8),
                          tf.constant([-127, 2], tf.int8)).numpy().tolist() == [1, -64]


def test_weighted_cross_entropy_python_pos_weight_as_tensorflow():
    # TensorFlow 2.21 evaluates `pos_weight - 1` in Python (1.7 - 1 rounds
    # once to float32 0.7, not float32(1.7) - 1): these are its bits.
    x = np.array([-3.5, -1.25, -0.3, 0.0, 0.7, 1.9, 4.2, 9.0], np.float32)
    z = np.array([0.1, 0.9, 0.5, 0.3, 0.25, 0.75, 0.6, 0.05], np.float32)
    got = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=1.7)
    want = [0x3f207824, 0x4014ae66, 0x3f806ebe, 0x3f56b593, 0x3f7fada8, 0x3f300440,
            0x3fd9becf, 0x4108cd53]
    assert got.numpy().view(np.uint32).tolist() == want

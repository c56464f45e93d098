"""tf.random: seeding rules, distributions, shapes, dtypes and errors.

The numbers differ from TensorFlow's (another generator); what is checked is
TensorFlow's seeding behaviour and the distributions' properties, with
fixed seeds and loose statistical tolerances.
"""
import numpy as np
import pytest

import rillflow as tf
from rillflow.framework.execute import placeholder
from rillflow.framework.op_registry import get as get_op


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def _ph(dtype, shape):
    return placeholder(dtype, tf.TensorShape(shape))


def _u(**kw):
    return tf.random.uniform([3], **kw).numpy().tolist()


# --- seeding ------------------------------------------------------------------

def test_global_seed_makes_the_sequence_reproducible():
    tf.random.set_seed(1)
    first = [_u(), _u(), tf.random.normal([3]).numpy().tolist()]
    tf.random.set_seed(1)
    again = [_u(), _u(), tf.random.normal([3]).numpy().tolist()]
    assert first == again
    # Successive ops get different op seeds.
    assert first[0] != first[1]
    tf.random.set_seed(2)
    assert _u() != first[0]


def test_op_seed_continues_one_stream_until_set_seed():
    tf.random.set_seed(1)
    b1, b2 = _u(seed=5), _u(seed=5)
    assert b1 != b2
    tf.random.set_seed(1)
    # Ops with an explicit seed do not use up the derived op seeds.
    assert _u(seed=5) == b1
    a1 = _u()
    assert _u(seed=5) == b2
    tf.random.set_seed(1)
    assert _u() == a1


def test_set_seed_restarts_the_random_sequences_of_traced_functions():
    tf.random.set_seed(42)

    @tf.function
    def f():
        loop_draws = tf.TensorArray(tf.float32, size=2)
        for i in tf.range(2):   # ops in nested graphs restart too
            loop_draws = loop_draws.write(i, tf.random.normal([]))
        return tf.random.uniform([2]), loop_draws.stack()
    first, second = f(), f()
    assert first[0].numpy().tolist() != second[0].numpy().tolist()
    tf.random.set_seed(42)
    again = f()
    np.testing.assert_array_equal(again[0].numpy(), first[0].numpy())
    np.testing.assert_array_equal(again[1].numpy(), first[1].numpy())
    np.testing.assert_array_equal(f()[0].numpy(), second[0].numpy())


def test_op_seed_stream_is_per_op_type_and_dtype():
    tf.random.set_seed(3)
    u1 = _u(seed=7)
    tf.random.normal([3], seed=7)
    tf.random.uniform([3], seed=7, dtype=tf.float64)
    tf.random.set_seed(3)
    tf.random.normal([3], seed=7)
    assert _u(seed=7) == u1


def test_op_seed_without_global_seed_is_deterministic():
    a = _u(seed=11), _u(seed=11)
    tf.random.set_seed(None)
    b = _u(seed=11), _u(seed=11)
    assert a == b and a[0] != a[1]


def test_no_seed_is_nondeterministic():
    assert _u() != _u()
    tf.random.set_seed(4)
    x = _u()
    tf.random.set_seed(None)
    assert _u() != x


def test_get_seed_rules():
    get_seed = tf.compat.v1.random.get_seed
    assert get_seed(None) == (None, None)
    assert get_seed(5) == (87654321, 5)
    tf.random.set_seed(3)
    s1, s2 = get_seed(None), get_seed(None)
    assert s1[0] == 3 and s1[1] != s2[1]
    assert get_seed(9) == (3, 9)
    tf.random.set_seed(0)
    assert get_seed(0) == (0, 2 ** 31 - 1)
    assert tf.compat.v1.set_random_seed is tf.random.set_seed


def test_set_seed_rejects_non_integers():
    with pytest.raises(TypeError, match="integer"):
        tf.random.set_seed(1.5)
    with pytest.raises(TypeError):
        tf.random.uniform([2], seed="a")
    tf.random.set_seed(np.int64(3))
    tf.random.set_seed(2 ** 40)
    assert len(_u()) == 3


def test_graph_seed_and_seed_attrs():
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(1)
        assert g.seed == 1
        a = tf.random.uniform([2])
        b = tf.random.uniform([2], seed=5)
        c = tf.random.uniform([2])
    ra = a.op if a.op.type == "RandomUniform" else a.op.inputs[0].op
    assert ra.type == "RandomUniform"
    assert ra.get_attr("seed") == 1 and b.op.get_attr("seed2") == 5
    assert ra.get_attr("seed2") != c.op.get_attr("seed2")
    node = [n for n in g.as_graph_def().node if n.op == "RandomUniform"][0]
    assert {"seed", "seed2", "dtype"} <= set(node.attr)
    assert "_rng" not in node.attr
    # The eager global seed is untouched by a graph's.
    assert tf.compat.v1.random.get_seed(None) == (None, None)


def test_random_ops_are_stateful_and_stateless_ops_are_not():
    for name in ("RandomUniform", "RandomUniformInt", "RandomStandardNormal",
                 "TruncatedNormal", "Multinomial", "RandomShuffle", "RandomGamma",
                 "RandomPoissonV2"):
        assert get_op(name).stateful, name
    for name in ("StatelessRandomUniform", "StatelessRandomNormal",
                 "StatelessTruncatedNormal", "StatelessRandomUniformInt",
                 "StatelessMultinomial"):
        assert not get_op(name).stateful, name


def test_tf_function_nodes_own_advancing_streams():
    def body():
        return tf.random.uniform([3]), tf.random.uniform([3], seed=3)

    tf.random.set_seed(7)
    f, g = tf.function(body), tf.function(body)
    f1, f2 = f(), f()
    g1 = g()
    as_lists = lambda pair: [t.numpy().tolist() for t in pair]
    # Each run advances each node's stream; another function starts the
    # same sequence, as TensorFlow's do.
    assert as_lists(f1) != as_lists(f2)
    assert as_lists(g1) == as_lists(f1)
    assert as_lists(f1)[0] != as_lists(f1)[1]
    tf.random.set_seed(7)
    h = tf.function(body)
    assert as_lists(h()) == as_lists(f1)


# --- uniform ------------------------------------------------------------------

def test_uniform_floats():
    tf.random.set_seed(10)
    r = tf.random.uniform([200, 50])
    assert r.dtype == tf.float32 and r.shape == (200, 50)
    v = r.numpy()
    assert v.min() >= 0 and v.max() < 1
    assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.005
    r = tf.random.uniform([10000], minval=-3., maxval=5., dtype=tf.float64)
    v = r.numpy()
    assert r.dtype == tf.float64 and v.min() >= -3 and v.max() < 5
    assert abs(v.mean() - 1.0) < 0.1
    r = tf.random.uniform([1000], dtype=tf.float16)
    assert r.dtype == tf.float16 and r.numpy().max() < 1
    assert tf.random.uniform([], seed=3).shape == ()
    assert tf.random.uniform(tf.constant([2, 1], tf.int64)).shape == (2, 1)
    assert tf.random.uniform(tf.TensorShape([4])).shape == (4,)
    assert tf.random.uniform([0, 3]).shape == (0, 3)


def test_uniform_broadcasts_tensor_bounds():
    tf.random.set_seed(10)
    v = tf.random.uniform([1000, 2], minval=[0., 10.], maxval=[1., 20.]).numpy()
    assert v[:, 0].max() < 1 and v[:, 1].min() >= 10 and v[:, 1].max() < 20


def test_uniform_integers():
    tf.random.set_seed(10)
    r = tf.random.uniform([10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)
    assert r.dtype == tf.int32 and set(np.unique(r.numpy())) == {-1, 0, 1}
    v = tf.random.uniform([20000], minval=0, maxval=10, dtype=tf.int64).numpy()
    assert v.dtype == np.int64 and v.min() == 0 and v.max() == 9
    counts = np.bincount(v, minlength=10)
    assert np.all(np.abs(counts - 2000) < 200)


def test_uniform_errors():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
        tf.random.uniform([2], minval=5, maxval=5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
        tf.random.uniform([2], minval=5, maxval=3, dtype=tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval must be 0-D"):
        tf.random.uniform([2], minval=[0, 1], maxval=[1, 3], dtype=tf.int32)
    for dt in (tf.int8, tf.uint32, tf.bool, tf.complex64):
        with pytest.raises(ValueError, match="Accepted dtypes"):
            tf.random.uniform([2], maxval=4, dtype=dt)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.random.uniform([-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of float"):
        tf.random.uniform([2, 2.5])
    with pytest.raises(ValueError, match="partially known"):
        tf.random.uniform(tf.TensorShape([None, 2]))


# --- normal, truncated normal ---------------------------------------------------

def test_normal_moments():
    tf.random.set_seed(20)
    v = tf.random.normal([50000]).numpy()
    assert v.dtype == np.float32
    assert abs(v.mean()) < 0.02 and abs(v.std() - 1) < 0.02
    v = tf.random.normal([50000], mean=3., stddev=0.5, dtype=tf.float64).numpy()
    assert v.dtype == np.float64
    assert abs(v.mean() - 3) < 0.01 and abs(v.std() - 0.5) < 0.01
    r = tf.random.normal([3], mean=[0., 10., 100.], stddev=0.001)
    np.testing.assert_allclose(r.numpy(), [0., 10., 100.], atol=0.01)
    assert tf.random.normal([2], dtype=tf.float16).dtype == tf.float16


def test_normal_errors():
    with pytest.raises(TypeError):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.random.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.normal([2, -3])


def test_truncated_normal_stays_within_two_stddev():
    tf.random.set_seed(21)
    v = tf.random.truncated_normal([50000]).numpy()
    assert np.abs(v).max() <= 2
    # The standard deviation of N(0, 1) truncated to [-2, 2].
    assert abs(v.mean()) < 0.02 and abs(v.std() - 0.8796) < 0.02
    v = tf.random.truncated_normal([10000], mean=5., stddev=2., dtype=tf.float64).numpy()
    assert v.min() >= 1 and v.max() <= 9
    assert tf.random.truncated_normal([3], mean=1., stddev=0.).numpy().tolist() == [1., 1., 1.]


# --- categorical, shuffle -------------------------------------------------------

def test_categorical_frequencies():
    tf.random.set_seed(30)
    probs = np.array([0.1, 0.6, 0.3])
    logits = tf.constant([np.log(probs).tolist(), [0.0, 0.0, -np.inf]])
    r = tf.random.categorical(logits, 20000)
    assert r.dtype == tf.int64 and r.shape == (2, 20000)
    freq = np.bincount(r.numpy()[0], minlength=3) / 20000
    np.testing.assert_allclose(freq, probs, atol=0.02)
    # A class of probability zero (logit -inf) is never drawn.
    assert 2 not in set(r.numpy()[1].tolist())
    r = tf.random.categorical([[-np.inf, 0.]], 50, dtype=tf.int32)
    assert r.dtype == tf.int32 and set(r.numpy()[0].tolist()) == {1}


def test_categorical_shapes_and_errors():
    assert tf.random.categorical([[0.5, 0.5]], 0).shape == (1, 0)
    assert tf.random.categorical(tf.zeros([0, 3]), 3).shape == (0, 3)
    with pytest.raises(ValueError, match="Accepted dtypes"):
        tf.random.categorical([[0.5, 0.5]], 5, dtype=tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits should be a matrix"):
        tf.random.categorical([0.5, 0.5], 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative"):
        tf.random.categorical([[0.5, 0.5]], -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes should be positive"):
        tf.random.categorical(tf.zeros([2, 0]), 3)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.categorical([[1, 2]], 3)
    assert tf.compat.v1.multinomial([[0., 0.]], 4).shape == (1, 4)


def test_shuffle_permutes_the_first_dimension():
    tf.random.set_seed(40)
    x = np.arange(20).reshape(10, 2)
    r = tf.random.shuffle(x)
    assert r.shape == (10, 2) and r.dtype == tf.int64
    rows = r.numpy()
    assert sorted(rows[:, 0].tolist()) == list(range(0, 20, 2))
    assert np.all(rows[:, 1] == rows[:, 0] + 1)
    outs = {tuple(tf.random.shuffle(list(range(8))).numpy().tolist()) for _ in range(5)}
    assert len(outs) > 1
    assert int(tf.random.shuffle(5)) == 5
    assert sorted(tf.random.shuffle(["a", "b"]).numpy().tolist()) == [b"a", b"b"]
    tf.random.set_seed(41)
    a = tf.random.shuffle(list(range(10)), seed=2).numpy().tolist()
    tf.random.set_seed(41)
    assert tf.random.shuffle(list(range(10)), seed=2).numpy().tolist() == a


# --- gamma, poisson -------------------------------------------------------------

def test_gamma_and_poisson_moments_and_shapes():
    tf.random.set_seed(50)
    r = tf.random.gamma([20000], [2., 5.], beta=[[1.], [4.]])
    assert r.shape == (20000, 2, 2) and r.dtype == tf.float32
    means = r.numpy().mean(axis=0)
    np.testing.assert_allclose(means, [[2., 5.], [0.5, 1.25]], rtol=0.05)
    assert r.numpy().min() > 0
    r = tf.random.poisson([20000], [1., 4.])
    assert r.shape == (20000, 2) and r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy().mean(axis=0), [1., 4.], rtol=0.05)
    r = tf.random.poisson([5], 3., dtype=tf.int32)
    assert r.dtype == tf.int32 and r.shape == (5,)
    with pytest.raises(ValueError, match="Accepted dtypes"):
        tf.random.poisson([2], 1., dtype=tf.bool)


# --- stateless ----------------------------------------------------------------

def test_stateless_ops_are_functions_of_the_seed():
    a = tf.random.stateless_uniform([5], seed=[1, 2]).numpy().tolist()
    assert tf.random.stateless_uniform([5], seed=[1, 2]).numpy().tolist() == a
    assert tf.random.stateless_uniform([5], seed=[1, 3]).numpy().tolist() != a
    seed = tf.constant([1, 2], tf.int64)
    n = tf.random.stateless_normal([4], seed=seed, dtype=tf.float64)
    assert n.dtype == tf.float64
    assert tf.random.stateless_normal([4], seed=seed, dtype=tf.float64).numpy().tolist() == \
        n.numpy().tolist()
    t = tf.random.stateless_truncated_normal([1000], seed=[-5, 7]).numpy()
    assert np.abs(t).max() <= 2
    # Global seeding does not affect stateless ops.
    tf.random.set_seed(3)
    assert tf.random.stateless_uniform([5], seed=[1, 2]).numpy().tolist() == a


def test_stateless_uniform_ranges_and_dtypes():
    v = tf.random.stateless_uniform([10000], seed=[3, 4], minval=2., maxval=4.).numpy()
    assert v.dtype == np.float32 and v.min() >= 2 and v.max() < 4
    assert abs(v.mean() - 3) < 0.05
    v = tf.random.stateless_uniform([1000], seed=[3, 4], minval=0, maxval=5, dtype=tf.int32)
    assert v.dtype == tf.int32 and set(v.numpy().tolist()) == {0, 1, 2, 3, 4}
    v = tf.random.stateless_uniform([1000], seed=[3, 4], minval=None, maxval=None,
                                    dtype=tf.int64).numpy()
    assert v.dtype == np.int64 and v.min() < -2 ** 60 and v.max() > 2 ** 60
    v = tf.random.stateless_uniform([100], seed=[3, 4], minval=None, maxval=None,
                                    dtype=tf.uint32)
    assert v.dtype == tf.uint32
    logits = np.log([[0.2, 0.8]])
    c = tf.random.stateless_categorical(logits, 5000, seed=[1, 2])
    assert c.dtype == tf.int64 and c.shape == (1, 5000)
    assert abs(c.numpy().mean() - 0.8) < 0.03
    assert c.numpy().tolist() == tf.random.stateless_categorical(
        logits, 5000, seed=[1, 2]).numpy().tolist()


def test_stateless_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"seed must have shape \[2\], not \[3\]"):
        tf.random.stateless_uniform([2], seed=[1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"not \[\]"):
        tf.random.stateless_normal([2], seed=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tseed"):
        tf.random.stateless_uniform([2], seed=[1., 2.])
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
        tf.random.stateless_uniform([2], seed=[1, 2], minval=3, maxval=3, dtype=tf.int32)
    with pytest.raises(ValueError, match="Accepted dtypes"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int8, maxval=3)


def test_split_and_fold_in():
    s = tf.random.split([1, 2], 3)
    assert s.shape == (3, 2) and s.dtype == tf.int32
    assert tf.random.split([1, 2], 3).numpy().tolist() == s.numpy().tolist()
    s64 = tf.random.split(tf.constant([1, 2], tf.int64))
    assert s64.shape == (2, 2) and s64.dtype == tf.int64
    f = tf.random.fold_in([1, 2], 3)
    assert f.shape == (2,) and f.dtype == tf.int32
    assert tf.random.fold_in([1, 2], 4).numpy().tolist() != f.numpy().tolist()
    assert tf.random.fold_in([1, 2], 3).numpy().tolist() == f.numpy().tolist()


# --- graph construction -------------------------------------------------------

def test_graph_static_shapes():
    with tf.Graph().as_default():
        assert tf.random.uniform(_ph(tf.int32, [2])).shape.as_list() == [None, None]
        assert tf.random.uniform(_ph(tf.int32, [None])).shape.rank is None
        assert tf.random.uniform([2, 3]).shape.as_list() == [2, 3]
        r = tf.random.uniform([2, 3], minval=_ph(tf.float32, [])).shape
        assert r.as_list() == [2, 3]
        r = tf.random.normal([2, 3], mean=_ph(tf.float32, [4, 1, 3]))
        assert r.shape.as_list() == [4, 2, 3] and r.dtype == tf.float32
        r = tf.random.categorical(_ph(tf.float32, [None, 5]), 7)
        assert r.shape.as_list() == [None, 7] and r.dtype == tf.int64
        r = tf.random.categorical(_ph(tf.float32, [None, 5]), _ph(tf.int32, []))
        assert r.shape.as_list() == [None, None]
        r = tf.random.shuffle(_ph(tf.float32, [None, 5]))
        assert r.shape.as_list() == [None, 5] and r.op.type == "RandomShuffle"
        assert tf.random.poisson([2], _ph(tf.float32, [None, 3])).shape.as_list() == \
            [2, None, 3]
        r = tf.random.uniform([4], maxval=3, dtype=tf.int64)
        assert r.op.type == "RandomUniformInt" and r.dtype == tf.int64
        r = tf.random.stateless_uniform([2, 3], seed=_ph(tf.int64, [2]))
        assert r.shape.as_list() == [2, 3] and r.op.type == "StatelessRandomUniform"


def test_graph_construction_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="minval must be a scalar"):
            tf.random.uniform([2, 3], minval=_ph(tf.int32, [3]), maxval=2, dtype=tf.int32)
        with pytest.raises(ValueError, match="rank 2"):
            tf.random.categorical(_ph(tf.float32, [5]), 7)
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            tf.random.stateless_uniform([2, 3], seed=_ph(tf.int32, [3]))
        with pytest.raises(TypeError):
            tf.random.uniform(_ph(tf.float32, [2]))


def test_uniform_gradient_flows_to_bounds():
    lo, hi = tf.constant(1.0, tf.float64), tf.constant(3.0, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([lo, hi])
        r = tf.random.uniform([50], minval=lo, maxval=hi, dtype=tf.float64, seed=1)
        loss = tf.reduce_sum(r)
    g_lo, g_hi = tape.gradient(loss, [lo, hi])
    u = (r.numpy() - 1.0) / 2.0
    np.testing.assert_allclose(float(g_hi), u.sum(), rtol=1e-10)
    np.testing.assert_allclose(float(g_lo), (1 - u).sum(), rtol=1e-10)


# --- Generator ------------------------------------------------------------------

def test_generator_from_seed_is_reproducible_and_advances():
    g = tf.random.Generator.from_seed(1)
    assert g.state.numpy().tolist() == [1, 0, 0] and g.algorithm == 1
    assert g.state.dtype == tf.int64 and int(g.key) == 0
    a, b = g.normal([4]), g.normal([4])
    assert a.dtype == tf.float32 and a.numpy().tolist() != b.numpy().tolist()
    h = tf.random.Generator.from_seed(1)
    assert h.normal([4]).numpy().tolist() == a.numpy().tolist()
    g.reset_from_seed(1)
    assert g.normal([4]).numpy().tolist() == a.numpy().tolist()
    state = g.state.numpy()
    c = g.uniform([3]).numpy().tolist()
    g.reset(state)
    assert g.uniform([3]).numpy().tolist() == c
    assert tf.random.Generator.from_seed(2).normal([4]).numpy().tolist() != \
        a.numpy().tolist()
    copy = tf.random.Generator(copy_from=g)
    assert copy.normal([3]).numpy().tolist() == g.normal([3]).numpy().tolist()


def test_generator_inside_tf_function_continues_the_stream():
    g = tf.random.Generator.from_seed(5)
    f = tf.function(lambda: g.normal([3]))
    r1, r2 = f().numpy().tolist(), f().numpy().tolist()
    eager = g.normal([3]).numpy().tolist()
    g.reset_from_seed(5)
    assert [g.normal([3]).numpy().tolist() for _ in range(3)] == [r1, r2, eager]


def test_generator_distributions_and_dtypes():
    g = tf.random.Generator.from_seed(11)
    v = g.uniform([20000], minval=2., maxval=4.).numpy()
    assert v.min() >= 2 and v.max() < 4 and abs(v.mean() - 3) < 0.03
    v = g.uniform([5000], minval=0, maxval=3, dtype=tf.int64).numpy()
    assert v.dtype == np.int64 and set(v.tolist()) == {0, 1, 2}
    assert g.uniform([3], minval=None, maxval=None, dtype=tf.int32).dtype == tf.int32
    assert g.uniform_full_int([3]).dtype == tf.uint64
    v = g.normal([20000], mean=1., stddev=2., dtype=tf.float64).numpy()
    assert abs(v.mean() - 1) < 0.05 and abs(v.std() - 2) < 0.05
    assert np.abs(g.truncated_normal([5000]).numpy()).max() <= 2
    b = g.binomial([20000], counts=10., probs=0.3)
    assert b.dtype == tf.int32 and abs(b.numpy().mean() - 3) < 0.1
    seeds = g.make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype == tf.int64
    parts = g.split(2)
    assert len(parts) == 2
    assert parts[0].normal([3]).numpy().tolist() != parts[1].normal([3]).numpy().tolist()


def test_generator_errors_and_global_generator():
    g = tf.random.Generator.from_seed(1)
    with pytest.raises(ValueError, match="both `None` or both non-`None`"):
        g.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
        g.uniform([2], minval=3, maxval=1, dtype=tf.int32)
    with pytest.raises(ValueError, match="state"):
        tf.random.Generator(state=[1, 2])
    with pytest.raises(ValueError):
        tf.random.Generator.from_seed(1, alg="mersenne")
    assert tf.random.Generator.from_seed(1, alg="threefry").algorithm == 2
    assert tf.random.Generator.from_seed(1, alg=tf.random.Algorithm.PHILOX).algorithm == 1
    glob = tf.random.get_global_generator()
    assert isinstance(glob, tf.random.Generator)
    assert tf.random.get_global_generator() is glob
    tf.random.set_global_generator(g)
    try:
        assert tf.random.get_global_generator() is g
    finally:
        tf.random.set_global_generator(glob)
    assert tf.random.create_rng_state(7, "philox").tolist() == [7, 0, 0]
    g.skip(10)
    assert g.state.numpy().tolist() == [2561, 0, 0]  # 256 Philox calls per value, as in TF


def test_v1_sessions_replay_a_seeded_graph():
    from rillflow.ops.random.seeding import restart_random_streams
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(1234)
        a = tf.random.uniform([2])
        b = tf.random.normal([2], seed=3)
    with tf.compat.v1.Session(graph=g) as sess:
        first = [[v.tolist() for v in sess.run([a, b])] for _ in range(2)]
    assert first[0] != first[1]
    restart_random_streams(g)
    with tf.compat.v1.Session(graph=g) as sess:
        again = [[v.tolist() for v in sess.run([a, b])] for _ in range(2)]
    assert again == first

"""TensorFlow's results of the tf.nn / tf.random leftovers of issue 22
(candidate samplers, accidental hits, nce_loss, sampled_softmax_loss, ...),
recorded for tests/test_nn_extras.py with their gradients and errors,
eagerly and in `tf.function`. Seeded samplers are TensorFlow's exact
streams; each case starts with `set_seed`, which restarts them.

    /work/tfref/bin/python tools/tf_nn_extras_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

TC = np.array([[1, 2], [3, 7], [0, 9]], np.int64)


def _rng():
    return np.random.RandomState(0)


# --- candidate samplers ------------------------------------------------------------

@case
def uniform_sampler(tf):
    tf.random.set_seed(None)
    out = []
    for unique in (True, False):
        for r in (10, 1000, 2 ** 40):
            out += [tf.random.uniform_candidate_sampler(TC, 2, 6, unique, r, seed=42)
                    for _ in range(2)]
    return out


@case
def log_uniform_sampler(tf):
    tf.random.set_seed(None)
    out = []
    for unique in (True, False):
        for r in (10, 100000):
            out += [tf.random.log_uniform_candidate_sampler(TC, 2, 6, unique, r, seed=42)
                    for _ in range(2)]
    return out


@case
def learned_unigram_sampler(tf):
    tf.random.set_seed(None)
    out = []
    for unique in (True, False):
        out += [tf.random.learned_unigram_candidate_sampler(TC, 2, 6, unique, 12, seed=4)
                for _ in range(3)]
    return out


@case
def fixed_unigram_sampler(tf):
    tf.random.set_seed(None)
    uni = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.5, 3]
    out = []
    for unique in (True, False):
        out += [tf.random.fixed_unigram_candidate_sampler(TC, 2, 6, unique, 12, unigrams=uni,
                                                          distortion=0.75, seed=42)
                for _ in range(2)]
        out.append(tf.random.fixed_unigram_candidate_sampler(
            TC, 2, 6, unique, 12, unigrams=uni[:10], num_reserved_ids=2, seed=3))
        out.append(tf.random.fixed_unigram_candidate_sampler(
            TC[:, :1] // 2, 1, 3, unique, 6, unigrams=uni, num_shards=2, shard=1, seed=3))
    return out


@case
def fixed_unigram_vocab_file(tf):
    tf.random.set_seed(None)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rillflow_vocab_fixture.txt")
    with open(path, "w") as f:
        f.write("".join(f"w{i},{i % 5 + 1}\n" for i in range(12)))
    return tf.random.fixed_unigram_candidate_sampler(TC, 2, 5, True, 12, vocab_file=path,
                                                     seed=9)


@case
def all_sampler(tf):
    return [tf.random.all_candidate_sampler(TC, 2, 10, u, seed=1) for u in (True, False)]


@case
def sampler_global_seed(tf):
    tf.random.set_seed(5)
    out = [tf.random.uniform_candidate_sampler(TC, 2, 4, True, 50) for _ in range(2)]
    tf.random.set_seed(None)
    return out


@case
def sampler_in_function(tf):
    tf.random.set_seed(None)
    f = tf.function(lambda t: tf.random.log_uniform_candidate_sampler(t, 2, 4, True, 50,
                                                                      seed=7))
    return [f(tf.constant(TC)) for _ in range(2)] + [f(TC[:2])]


@case
def sampler_bad_num_true(tf):
    return tf.random.uniform_candidate_sampler(TC, 3, 4, True, 50)


@case
def sampler_range_too_small(tf):
    return tf.random.uniform_candidate_sampler(TC, 2, 60, True, 50)


@case
def sampler_class_out_of_range(tf):
    return tf.random.uniform_candidate_sampler(TC, 2, 4, True, 5)


@case
def sampler_not_matrix(tf):
    return tf.random.uniform_candidate_sampler([1, 2], 2, 4, True, 50)


@case
def sampler_zero_sampled(tf):
    return tf.random.uniform_candidate_sampler(TC, 2, 0, True, 50)


@case
def sampler_int32_classes(tf):
    return tf.random.uniform_candidate_sampler(tf.constant(TC, tf.int32), 2, 4, True, 50)


@case
def fixed_unigram_no_weights(tf):
    return tf.random.fixed_unigram_candidate_sampler(TC, 2, 4, True, 50)


@case
def fixed_unigram_wrong_range(tf):
    return tf.random.fixed_unigram_candidate_sampler(TC, 2, 4, True, 50, unigrams=[1.0] * 10)


# --- accidental hits, nce_loss, sampled_softmax_loss ---------------------------------

@case
def accidental_hits(tf):
    return [tf.nn.compute_accidental_hits(TC, [3, 5, 3, 0, 9], num_true=2),
            tf.nn.compute_accidental_hits(TC[:, :1], tf.constant([4, 4], tf.int64), 1)]


@case
def accidental_hits_bad(tf):
    return tf.nn.compute_accidental_hits(TC, [1], 3)


def _sampled_args(tf):
    rng = _rng()
    W = rng.randn(20, 4).astype(np.float32)
    b = rng.randn(20).astype(np.float32)
    x = rng.randn(3, 4).astype(np.float32)
    labels = np.array([[1, 5], [3, 3], [7, 0]], np.int64)
    sv = (tf.constant([5, 2, 3, 11, 19], tf.int64),
          tf.constant([[0.2, 0.3], [0.1, 0.1], [0.5, 0.4]]),
          tf.constant([0.3, 0.2, 0.1, 0.05, 0.6]))
    return W, b, x, labels, sv


def _loss_and_grads(tf, fn, **kw):
    W, b, x, labels, sv = _sampled_args(tf)
    Wv, bv, xv = tf.Variable(W), tf.Variable(b), tf.Variable(x)
    with tf.GradientTape() as tape:
        loss = fn(Wv, bv, labels, xv, 5, 20, num_true=2, sampled_values=sv, **kw)
    g = tape.gradient(loss, [Wv, bv, xv])
    return [loss] + [tf.convert_to_tensor(t) for t in g]


@case(rtol=1e-5)
def nce_loss_given_samples(tf):
    return (_loss_and_grads(tf, tf.nn.nce_loss) +
            _loss_and_grads(tf, tf.nn.nce_loss, remove_accidental_hits=True))


@case(rtol=1e-5)
def sampled_softmax_given_samples(tf):
    return (_loss_and_grads(tf, tf.nn.sampled_softmax_loss) +
            _loss_and_grads(tf, tf.nn.sampled_softmax_loss, remove_accidental_hits=False))


@case(rtol=1e-5)
def sampled_losses_seeded(tf):
    tf.random.set_seed(None)
    W, b, x, labels, _ = _sampled_args(tf)
    return [tf.nn.sampled_softmax_loss(W, b, labels[:, :1], x, 4, 20, seed=3),
            tf.nn.sampled_softmax_loss([W[:10], W[10:]], b, labels[:, :1], x, 4, 20, seed=3)]


@case(rtol=1e-5)
def sampled_losses_in_function(tf):
    W, b, x, labels, sv = _sampled_args(tf)
    f = tf.function(lambda w: tf.nn.nce_loss(w, b, labels, x, 5, 20, num_true=2,
                                             sampled_values=sv))
    g = tf.function(lambda w: tf.nn.sampled_softmax_loss(w, b, labels, x.astype(np.float64),
                                                         5, 20, num_true=2,
                                                         sampled_values=sv))
    return [f(W), g(W.astype(np.float64))]


# --- deterministic permutations -------------------------------------------------------

@case
def index_shuffle(tf):
    out = [tf.random.experimental.index_shuffle(tf.range(10), [5, 8], 9),
           tf.random.experimental.index_shuffle(3, [5, 8], 1000000),
           tf.random.experimental.index_shuffle(tf.range(300, dtype=tf.int64),
                                                tf.constant([-7, 2**40], tf.int64), 299)]
    big = tf.constant([0, 5, 2**40, 2**63 + 11], tf.uint64)
    out.append(tf.random.experimental.index_shuffle(
        tf.constant([0, 3, 2**39, 2**63], tf.uint64), tf.constant([1, 2], tf.uint32), big))
    out.append(tf.random.experimental.index_shuffle(
        tf.constant([1, 0], tf.uint32), [9, 9], tf.constant([1, 0], tf.uint32)))
    f = tf.function(lambda i: tf.random.experimental.index_shuffle(i, [1, 2], 99))
    out.append(f(tf.range(100)))
    return out


@case
def random_index_shuffle(tf):
    return [tf.random_index_shuffle(tf.range(6), [1, 2, 3], 5, rounds=6),
            tf.random_index_shuffle(tf.range(4), [[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1]],
                                    [3, 100, 70000, 2**30]),
            tf.random_index_shuffle(tf.constant(7, tf.int64), [1, 2, 3], 2**33)]


@case
def index_shuffle_batched_seed(tf):
    # TensorFlow pads the seed's first axis, so a batched seed fails.
    return tf.random.experimental.index_shuffle(tf.range(5), [[1, 2]] * 5, 100)


@case
def random_index_shuffle_bad_seed(tf):
    return tf.random_index_shuffle(tf.range(6), [1, 2], 5)


@case
def random_index_shuffle_bad_max(tf):
    return tf.random_index_shuffle(tf.range(6), [1, 2, 3], [5, 5])


@case
def random_index_shuffle_bad_index(tf):
    return tf.random_index_shuffle(tf.constant([[1]]), [1, 2, 3], 5)


@case
def random_index_shuffle_float(tf):
    return tf.random_index_shuffle(tf.range(6.0), [1, 2, 3], 5.0)


@case
def stateless_shuffle(tf):
    f = tf.function(lambda v: tf.random.experimental.stateless_shuffle(v, [7, -2]))
    return [tf.random.experimental.stateless_shuffle(tf.range(10), [3, 4]),
            tf.random.experimental.stateless_shuffle(tf.reshape(tf.range(12.0), [4, 3]),
                                                     [3, 4], alg="philox"),
            tf.random.experimental.stateless_shuffle(tf.constant(5), [3, 4]),
            tf.random.experimental.stateless_shuffle(tf.constant(["a", "b", "c"]),
                                                     tf.constant([1, 2], tf.int64)),
            f(tf.range(1000)), f(tf.zeros([0, 2]))]


@case
def stateless_shuffle_threefry(tf):
    return tf.random.experimental.stateless_shuffle(tf.range(10), [3, 4], alg="threefry")


@case
def stateless_shuffle_bad_seed(tf):
    return tf.random.experimental.stateless_shuffle(tf.range(10), [3, 4, 5])


# --- tf.conv, the V2 conv2d backprops, extract_volume_patches -----------------------------

def _conv_data():
    rng = np.random.RandomState(1)
    return (rng.randn(2, 5, 6, 4).astype(np.float32), rng.randn(3, 2, 4, 6).astype(np.float32),
            rng.randn(2, 4, 5, 6, 3).astype(np.float32),
            rng.randn(2, 3, 2, 3, 4).astype(np.float32))


@case(rtol=1e-5)
def conv_generic(tf):
    x4, f4, x5, f5 = _conv_data()
    f = tf.function(lambda a, b: tf.conv(a, b, [1, 1, 1, 1], "VALID"))
    return [tf.conv(x4, f4, [1, 1, 1, 1], "SAME"),
            tf.conv(x4, f4, [1, 2, 1, 1], "VALID", dilations=[1, 1, 2, 1]),
            tf.conv(x4, f4, [1, 1, 1, 1], "EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]),
            tf.conv(x5, f5, [1, 1, 2, 1, 1], "SAME"),
            tf.conv(x5.reshape(2, 1, 4, 5, 6, 3), f5, [1, 1, 2, 1, 1], "SAME", batch_dims=2),
            tf.conv(x4.astype(np.float64), f4.astype(np.float64), [1, 1, 1, 1], "SAME"),
            tf.conv((x4 * 1000).astype(np.int32), (f4 * 100).astype(np.int32), [1, 1, 1, 1],
                    "SAME"),
            f(x4, f4)]


def _conv_error(kind):
    def fn(tf):
        x4, f4, x5, f5 = _conv_data()
        return {
            "groups": lambda: tf.conv(x4, f4[:, :, :2], [1, 1, 1, 1], "VALID", groups=2),
            "depth": lambda: tf.conv(x4, f4[:, :, :2], [1, 1, 1, 1], "VALID"),
            "channels_first": lambda: tf.conv(x4.transpose(0, 3, 1, 2), f4, [1, 1, 1, 1],
                                              "SAME", data_format="CHANNELS_FIRST"),
            "channels_first_3d": lambda: tf.conv(x5, f5, [1, 1, 1, 1, 1], "SAME",
                                                 data_format="CHANNELS_FIRST"),
            "strides_length": lambda: tf.conv(x4, f4, [1, 1, 1], "SAME"),
            "spatial_rank": lambda: tf.conv(x4[0], f4, [1, 1, 1, 1], "SAME"),
            "data_format": lambda: tf.conv(x4, f4, [1, 1, 1, 1], "SAME", data_format="NHWC"),
            "dilated_3d": lambda: tf.conv(x5, f5, [1, 1, 1, 1, 1], "SAME",
                                          dilations=[1, 2, 1, 1, 1]),
            "dilations_length": lambda: tf.conv(x4, f4, [1, 1, 1, 1], "SAME",
                                                dilations=[1, 2, 1]),
            "batch_stride": lambda: tf.conv(x4, f4, [2, 1, 1, 1], "SAME"),
            "padding": lambda: tf.conv(x4, f4, [1, 1, 1, 1], "FOO"),
            "explicit_not_empty": lambda: tf.conv(x4, f4, [1, 1, 1, 1], "SAME",
                                                  explicit_paddings=[0, 0, 1, 1, 0, 1, 0, 0]),
        }[kind]()
    fn.__name__ = "conv_error_" + kind
    return fn


for _kind in ("groups", "depth", "channels_first", "channels_first_3d", "strides_length",
              "spatial_rank", "data_format", "dilated_3d", "dilations_length", "batch_stride",
              "padding", "explicit_not_empty"):
    case(_conv_error(_kind))


@case(rtol=1e-5)
def conv2d_backprop_v2(tf):
    # TensorFlow 2.21 has no CPU kernel for the V2 ops (NotFoundError); its
    # Conv2DBackpropFilter/Input on the same shapes are the values they define.
    x4, f4, _, _ = _conv_data()
    rng = np.random.RandomState(3)
    dy = rng.randn(2, 5, 6, 6).astype(np.float32)
    dy2 = rng.randn(2, 2, 3, 6).astype(np.float32)
    dy3 = rng.randn(2, 7, 8, 6).astype(np.float32)
    if tf.__name__ == "rillflow":
        bf = tf.conv2d_backprop_filter_v2
        bi = tf.conv2d_backprop_input_v2
    else:
        def bf(x, f, g, s, p, **kw):
            return tf.compat.v1.nn.conv2d_backprop_filter(x, f.shape, g, s, p, **kw)

        def bi(x, f, g, s, p, explicit_paddings=()):
            if p == "EXPLICIT":
                e = list(explicit_paddings)
                p = [e[i:i + 2] for i in range(0, 8, 2)]
            return tf.compat.v1.nn.conv2d_backprop_input(x.shape, f, g, s, p)
    return [bf(x4, f4, dy, [1, 1, 1, 1], "SAME"), bi(x4, f4, dy, [1, 1, 1, 1], "SAME"),
            bf(x4, f4, dy2, [1, 2, 2, 1], "VALID"), bi(x4, f4, dy2, [1, 2, 2, 1], "VALID"),
            bi(x4, f4, dy3, [1, 1, 1, 1], "EXPLICIT",
               explicit_paddings=[0, 0, 2, 2, 1, 2, 0, 0])]


def _volume_cases():
    return [([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"), ([1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME"),
            ([1, 3, 1, 4, 1], [1, 1, 3, 2, 1], "VALID"), ([1, 1, 1, 1, 1], [1, 2, 2, 2, 1], "SAME"),
            ([1, 5, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")]


@case(rtol=1e-5)
def extract_volume_patches(tf):
    x = np.random.RandomState(2).randn(2, 4, 5, 6, 3).astype(np.float32)
    out = []
    for k, s, p in _volume_cases():
        xv = tf.Variable(x)
        with tf.GradientTape() as t:
            y = tf.extract_volume_patches(xv, k, s, p)
            w = tf.reshape(tf.range(tf.size(y), dtype=tf.float32), tf.shape(y)) / 100
            loss = tf.reduce_sum(y * y * w)
        out += [y, t.gradient(loss, xv)]
    out.append(tf.extract_volume_patches(x.astype(np.int32), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1],
                                         "VALID"))
    f = tf.function(lambda a: tf.extract_volume_patches(a, [1, 2, 2, 2, 1], [1, 2, 1, 1, 1],
                                                        "SAME"))
    out.append(f(x))
    return out


@case
def extract_volume_patches_depth_ksize(tf):
    return tf.extract_volume_patches(np.zeros([1, 2, 2, 2, 2]), [1, 2, 2, 2, 2],
                                     [1, 1, 1, 1, 1], "VALID")


@case
def extract_volume_patches_rank(tf):
    return tf.extract_volume_patches(np.zeros([2, 2, 2, 2]), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1],
                                     "VALID")


@case
def extract_volume_patches_bool(tf):
    return tf.extract_volume_patches(np.zeros([1, 2, 2, 2, 1], bool), [1, 2, 2, 2, 1],
                                     [1, 1, 1, 1, 1], "VALID")


# --- fractional pooling -------------------------------------------------------------------

def _fractional(tf, fn):
    x = np.random.RandomState(4).randn(2, 11, 9, 3).astype(np.float32)
    out = []
    for pseudo in (False, True):
        for overlapping in (False, True):
            for ratio in ([1.0, 1.44, 1.73, 1.0], [1, 2.5, 1.3, 1]):
                xv = tf.Variable(x)
                with tf.GradientTape() as t:
                    r = fn(xv, ratio, pseudo_random=pseudo, overlapping=overlapping, seed=7)
                    w = tf.reshape(tf.range(tf.size(r[0]), dtype=tf.float32), tf.shape(r[0]))
                    loss = tf.reduce_sum(r[0] * r[0] * w)
                out += [r, t.gradient(loss, xv)]
    return out


@case(rtol=1e-5)
def fractional_max_pool(tf):
    x = np.random.RandomState(4).randn(2, 11, 9, 3)
    tf.random.set_seed(3)
    out = _fractional(tf, tf.nn.fractional_max_pool)
    out.append(tf.nn.fractional_max_pool(x, 1.5, seed=2, overlapping=True))
    out.append(tf.nn.fractional_max_pool(x.astype(np.int64), [1, 1.5, 1.5, 1], seed=2))
    tf.random.set_seed(None)
    return out


@case(rtol=1e-5)
def fractional_avg_pool(tf):
    x = np.arange(2 * 11 * 9 * 3, dtype=np.int32).reshape(2, 11, 9, 3) - 100
    f = tf.function(lambda a: tf.nn.fractional_avg_pool(a, [1, 1.5, 1.5, 1], seed=5,
                                                        pseudo_random=True))
    return _fractional(tf, tf.nn.fractional_avg_pool) + [
        tf.nn.fractional_avg_pool(x, [1, 1.5, 1.5, 1], seed=2),
        tf.nn.fractional_avg_pool(-x, [1, 1.5, 1.5, 1], seed=2, overlapping=True),
        f(x.astype(np.float64))]


def _fractional_error(kind):
    def fn(tf):
        x = np.zeros([2, 11, 9, 3], np.float32)
        return {
            "ratio_below_one": lambda: tf.nn.fractional_max_pool(x, [1, 0.5, 1.5, 1], seed=2),
            "batch_ratio": lambda: tf.nn.fractional_max_pool(x, [2, 1.5, 1.5, 1], seed=2),
            "ratio_too_large": lambda: tf.nn.fractional_max_pool(x, [1, 12, 1.5, 1], seed=2),
            "rank": lambda: tf.nn.fractional_max_pool(x[0], [1, 1.5, 1.5, 1], seed=2),
            "half": lambda: tf.nn.fractional_max_pool(x.astype(np.float16), [1, 1.5, 1.5, 1]),
            "avg_scalar_ratio": lambda: tf.nn.fractional_avg_pool(x, 1.5, seed=2),
            "avg_short_ratio": lambda: tf.nn.fractional_avg_pool(x, [1, 1.5, 1.5], seed=2),
        }[kind]()
    fn.__name__ = "fractional_error_" + kind
    return fn


for _kind in ("ratio_below_one", "batch_ratio", "ratio_too_large", "rank", "half",
              "avg_scalar_ratio", "avg_short_ratio"):
    case(_fractional_error(_kind))


# --- isotonic regression, general_dropout ---------------------------------------------

@case(rtol=1e-6)
def isotonic_regression(tf):
    x = np.round(np.random.RandomState(5).randn(3, 4, 6), 1).astype(np.float32)
    out = [tf.nn.isotonic_regression(x), tf.nn.isotonic_regression(x, decreasing=False),
           tf.nn.isotonic_regression(x, axis=1),
           tf.nn.isotonic_regression(x, axis=0, decreasing=False),
           tf.nn.isotonic_regression(x[0, 0]), tf.nn.isotonic_regression(x[0]),
           tf.nn.isotonic_regression((x * 10).astype(np.int8)),
           tf.nn.isotonic_regression((x * 10).astype(np.int64)),
           tf.nn.isotonic_regression(x.astype(np.float64)),
           tf.nn.isotonic_regression(x.astype(np.float16)),
           tf.nn.isotonic_regression(np.zeros([2, 0], np.float32))]
    f = tf.function(lambda a: tf.nn.isotonic_regression(a, axis=1))
    out.append(f(x))
    # Gradients of 2-D inputs (TensorFlow's gradient mishandles other ranks).
    xv = tf.Variable(x.reshape(12, 6))
    for kw in ({}, {"decreasing": False}):
        with tf.GradientTape() as t:
            y = tf.nn.isotonic_regression(xv, **kw)[0]
            loss = tf.reduce_sum(y * y * tf.reshape(tf.range(72.0), [12, 6]))
        out.append(t.gradient(loss, xv))
    return out


@case
def general_dropout(tf):
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)

    def sampler(shape, dtype):
        return tf.random.stateless_uniform(shape, seed=[1, 2], dtype=dtype)
    return [tf.nn.experimental.general_dropout(x, 0.5, sampler),
            tf.nn.experimental.general_dropout(x, tf.constant(0.3), sampler, noise_shape=[3, 1]),
            tf.nn.experimental.general_dropout(x, 0.0, sampler)]


@case
def general_dropout_int(tf):
    return tf.nn.experimental.general_dropout(np.ones([2], np.int32), 0.5,
                                              lambda shape, dtype: tf.zeros(shape, dtype))


# --- stateless_parameterized_truncated_normal -------------------------------------------
# TensorFlow shards large requests over its threads (then its numbers depend
# on the thread count): these stay in one shard.

@case
def stateless_parameterized_truncated_normal(tf):
    S = tf.random.stateless_parameterized_truncated_normal
    f64, f16 = np.float64, np.float16
    f = tf.function(lambda seed: S([4, 3], seed, means=[0.0, 1.0, 2.0], maxvals=[1.0, 9.0, 3.0]))
    return [S([10], [1, 2]),
            S([3, 4], [1, 2], means=[0., 1., 2., 3.], stddevs=1.5, minvals=-1.,
              maxvals=[5., 2., 3., 10.]),
            S([7], [3, 4], means=0., stddevs=1., minvals=0.1, maxvals=0.3),
            S([7], [3, 4], means=0., stddevs=1., minvals=3.0, maxvals=10.0),
            S([7], [3, 4], means=0., stddevs=1., minvals=-np.inf, maxvals=-3.0),
            S([7], [3, 4], means=5., stddevs=2., minvals=-np.inf, maxvals=np.inf),
            S([7], [3, 4], means=f64(0.), stddevs=f64(1.), minvals=f64(3.0), maxvals=f64(10.0)),
            S([9], [5, 6], means=f64(0.), stddevs=f64(1.), minvals=f64(0.1), maxvals=f64(0.5)),
            S([9], [5, 6], means=f64(0.), stddevs=f64(1.), minvals=f64(-2.), maxvals=f64(2.)),
            S([5], [5, 6], means=f16(0.), stddevs=f16(1.), minvals=f16(-2.), maxvals=f16(2.)),
            S([5], [5, 6], means=f16(0.), stddevs=f16(1.), minvals=f16(0.5), maxvals=f16(0.6)),
            S([5], [5, 6], means=f16(0.), stddevs=f16(1.), minvals=f16(2.5), maxvals=f16(9)),
            S([2, 3, 2], [7, 7], means=[[1.], [2.], [3.]], stddevs=[0.5, 2.]),
            S([300], tf.constant([8, 9], tf.int64)),
            S([0, 3], [1, 1]),
            f(tf.constant([4, 4]))]


def _ptn_error(kind):
    def fn(tf):
        S = tf.random.stateless_parameterized_truncated_normal
        return {
            "stddev": lambda: S([3], [1, 2], stddevs=-1.),
            "bounds": lambda: S([3], [1, 2], minvals=2., maxvals=1.),
            "not_trailing": lambda: S([3], [1, 2], means=[1., 2.]),
            "broadcast": lambda: S([3, 2], [1, 2], means=[1., 2., 3.]),
            "seed": lambda: S([3], [1, 2, 3]),
            "dtypes": lambda: S([3], [1, 2], means=np.float64(0.)),
        }[kind]()
    fn.__name__ = "stateless_parameterized_truncated_normal_error_" + kind
    return fn


for _kind in ("stddev", "bounds", "not_trailing", "broadcast", "seed", "dtypes"):
    case(_ptn_error(_kind))


# --- RNN cell wrappers (with a plain cell: no Keras needed) -------------------------------

class _Cell:
    """A minimal RNN cell: h' = tanh(x W + h U), W and U fixed."""

    def __init__(self, tf, units=4, lstm=False):
        self.tf = tf
        self.units = units
        self.lstm = lstm
        self.built = False
        self.state_size = [units, units] if lstm else [units]
        self.output_size = units

    def build(self, shape):
        self.w = np.linspace(-1, 1, int(shape[-1]) * self.units, dtype=np.float32).reshape(
            int(shape[-1]), self.units)
        self.u = np.linspace(0.5, -0.5, self.units * self.units, dtype=np.float32).reshape(
            self.units, self.units)
        self.built = True

    def call(self, inputs, states):
        tf = self.tf
        h = tf.tanh(tf.matmul(inputs, self.w) + tf.matmul(states[0], self.u))
        return h, ([h, states[1] + 1.0] if self.lstm else [h])

    def get_config(self):
        return {"units": self.units}


@case(rtol=1e-6)
def rnn_cell_dropout_wrapper(tf):
    tf.random.set_seed(None)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 5
    w = tf.nn.RNNCellDropoutWrapper(_Cell(tf), input_keep_prob=0.5, output_keep_prob=0.7,
                                    state_keep_prob=0.6, seed=1)
    s0 = [tf.ones([2, 4])]
    out = [w(x, s0), w(x, s0)]
    v = tf.nn.RNNCellDropoutWrapper(_Cell(tf, lstm=True), state_keep_prob=0.5,
                                    variational_recurrent=True, dtype=tf.float32, seed=3,
                                    input_keep_prob=0.8, input_size=3)
    out += [v(x, [tf.ones([2, 4]), tf.ones([2, 4])]), v(x, [tf.zeros([2, 4]), tf.ones([2, 4])])]
    return out


@case(rtol=1e-6)
def rnn_cell_residual_device_wrappers(tf):
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 5
    r = tf.nn.RNNCellResidualWrapper(_Cell(tf))
    r2 = tf.nn.RNNCellResidualWrapper(_Cell(tf), residual_fn=lambda i, o: o * 2 - i)
    d = tf.nn.RNNCellDeviceWrapper(_Cell(tf, lstm=True), "/cpu:0")
    return [r(x, [tf.ones([2, 4])]), r2(x, [tf.zeros([2, 4])]),
            d(x, [tf.zeros([2, 4]), tf.ones([2, 4])]),
            tf.constant(d.state_size), tf.constant(d.output_size)]


@case
def rnn_cell_dropout_wrapper_bad_prob(tf):
    return tf.nn.RNNCellDropoutWrapper(_Cell(tf), input_keep_prob=1.5)


@case
def rnn_cell_dropout_wrapper_no_dtype(tf):
    return tf.nn.RNNCellDropoutWrapper(_Cell(tf), variational_recurrent=True)


@case
def rnn_cell_residual_wrapper_mismatch(tf):
    return tf.nn.RNNCellResidualWrapper(_Cell(tf))(np.ones([2, 3], np.float32),
                                                  [tf.zeros([2, 4])])


# --- WebP (the files are written here with Pillow, read back by the cases) -----------------

# Not tests/data/images/: tools/tf_image_codec_fixtures.py makes cases of every file there.
_IMAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                       "webp")
# webp_animated_rgb (an animation without alpha) is not a case: TensorFlow
# 2.21 writes its RGBA frames into an RGB tensor (decode_webp gives garbage,
# decode_image corrupts the heap); tests/test_nn_extras.py checks rillflow's.
_WEBP = ("webp_rgba_lossless", "webp_rgb_lossless", "webp_rgb_lossy", "webp_rgba_lossy",
         "webp_gray_lossless", "webp_animated")


def write_webp_files():
    """Writes the WebP files the cases decode (run with TensorFlow's Python)."""
    import io
    from PIL import Image
    a = (np.arange(5 * 7 * 4).reshape(5, 7, 4) * 7 % 256).astype(np.uint8)

    def still(arr, mode, lossless):
        b = io.BytesIO()
        Image.fromarray(arr, mode).save(b, "WEBP", lossless=lossless, quality=80)
        return b.getvalue()

    def animated(frames):
        b = io.BytesIO()
        frames[0].save(b, "WEBP", save_all=True, append_images=frames[1:], lossless=True,
                       duration=100)
        return b.getvalue()
    files = {"webp_rgba_lossless": still(a, "RGBA", True),
             "webp_rgb_lossless": still(a[..., :3], "RGB", True),
             "webp_rgb_lossy": still(a[..., :3], "RGB", False),
             "webp_rgba_lossy": still(a, "RGBA", False),
             "webp_gray_lossless": still(a[..., 0], "L", True),
             "webp_animated": animated([Image.fromarray(a), Image.fromarray(255 - a)]),
             "webp_animated_rgb": animated([Image.fromarray(a[..., :3]),
                                            Image.fromarray(255 - a[..., :3])])}
    for name, data in files.items():
        with open(os.path.join(_IMAGES, name + ".webp"), "wb") as f:
            f.write(data)


def _webp_bytes(name):
    with open(os.path.join(_IMAGES, name + ".webp"), "rb") as f:
        return f.read()


def _webp_case(name):
    def fn(tf):
        d = _webp_bytes(name)
        out = [tf.io.decode_webp(d), tf.image.decode_image(d),
               tf.image.decode_image(d, expand_animations=False), tf.io.decode_png(d),
               tf.io.decode_jpeg(d), tf.io.decode_bmp(d)]
        for ch in (3, 4):
            try:
                out.append(tf.image.decode_webp(d, channels=ch))
            except tf.errors.InvalidArgumentError as e:
                out.append(tf.constant(str(e).split(" [Op:")[0].split("}} ")[-1]))
        return out
    fn.__name__ = name
    return fn


for _name in _WEBP:
    case(_webp_case(_name))


def _webp_error(kind):
    def fn(tf):
        d = _webp_bytes("webp_rgb_lossless")
        return {
            "float": lambda: tf.io.decode_webp(d, dtype=tf.float32),
            "one_channel": lambda: tf.io.decode_webp(d, channels=1),
            "two_channels": lambda: tf.io.decode_webp(d, channels=2),
            "bad_header": lambda: tf.io.decode_webp(b"RIFF\x00\x00\x00\x00WEBPVP8 "),
            "unknown": lambda: tf.io.decode_webp(b"hello"),
            "empty": lambda: tf.io.decode_webp(b""),
            "image_float": lambda: tf.image.decode_image(d, dtype=tf.float32),
            "png_uint16": lambda: tf.io.decode_png(d, dtype=tf.uint16),
            "image_one_channel": lambda: tf.io.decode_image(d, channels=1),
        }[kind]()
    fn.__name__ = "webp_error_" + kind
    return fn


for _kind in ("float", "one_channel", "two_channels", "bad_header", "unknown", "empty",
              "image_float", "png_uint16", "image_one_channel"):
    case(_webp_error(_kind))


if __name__ == "__main__":
    write_webp_files()
    CASES.main("tf_nn_extras.npz")

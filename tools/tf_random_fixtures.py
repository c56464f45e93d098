"""TensorFlow's random numbers for a set of seeded calls, recorded for
tests/test_random_tf_parity.py.

Each case below is a function of the `tf` module returning a list of
tensors; run with TensorFlow's Python, this script records every case's
outputs into tests/data/tf_random.npz (bfloat16 as its uint16 bits). The
parity test runs the same cases with rillflow and compares bit for bit:

    /work/tfref/bin/python tools/tf_random_fixtures.py
"""
import os
import sys

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- stateless ops -----------------------------------------------------------------

@case
def stateless_normal_3(tf):
    return [tf.random.stateless_normal([3], seed=[1, 2])]


@case
def stateless_uniform_dtypes(tf):
    return [tf.random.stateless_uniform([7], seed=[1, 2], dtype=d)
            for d in (tf.float32, tf.float64, tf.float16, tf.bfloat16)] + \
        [tf.random.stateless_uniform([2, 3], seed=[4, 5], minval=-2.0, maxval=3.0),
         tf.random.stateless_uniform([5], seed=[-1, 2**31 - 1], alg="philox"),
         tf.random.stateless_uniform([5], seed=tf.constant([7, -3], tf.int64))]


@case
def stateless_normal_dtypes(tf):
    return [tf.random.stateless_normal([2, 3, 5], seed=[3, 4], dtype=d)
            for d in (tf.float32, tf.float64, tf.float16, tf.bfloat16)] + \
        [tf.random.stateless_normal([1001], seed=[9, 9], mean=1.5, stddev=0.25)]


@case
def stateless_truncated_normal(tf):
    return [tf.random.stateless_truncated_normal([9], seed=[1, 2], dtype=d)
            for d in (tf.float32, tf.float64, tf.float16, tf.bfloat16)] + \
        [tf.random.stateless_truncated_normal([1003], seed=[5, 6])]


@case
def stateless_integers(tf):
    out = [tf.random.stateless_uniform([7], seed=[1, 2], minval=-5, maxval=17, dtype=d)
           for d in (tf.int32, tf.int64)]
    out += [tf.random.stateless_uniform([5], seed=[1, 2], minval=None, maxval=None, dtype=d)
            for d in (tf.int32, tf.int64, tf.uint32, tf.uint64)]
    out.append(tf.random.stateless_uniform([6], seed=[8, 1], minval=-2**31, maxval=2**31 - 1,
                                           dtype=tf.int32))
    return out


@case
def stateless_categorical(tf):
    logits = tf.math.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    return [tf.random.stateless_categorical(logits, 7, seed=[1, 2]),
            tf.random.stateless_categorical(logits, 3, seed=[3, 1], dtype=tf.int32)]


@case
def split_and_fold_in(tf):
    return [tf.random.split([1, 2], 3), tf.random.fold_in([1, 2], 3),
            tf.random.split(tf.constant([1, 2], tf.int64)),
            tf.random.fold_in(tf.constant([4, 5], tf.int64), tf.constant(7, tf.int64))]


# --- tf.random.Generator -----------------------------------------------------------

@case
def generator_from_seed(tf):
    g = tf.random.Generator.from_seed(1)
    out = [g.normal([3]), g.uniform([5]), g.truncated_normal([6]),
           g.uniform([7], minval=-3, maxval=9, dtype=tf.int64),
           g.uniform([4], minval=0, maxval=10, dtype=tf.int32),
           g.uniform_full_int([3], dtype=tf.uint64), g.normal([3], dtype=tf.float64),
           g.uniform([3], dtype=tf.float16), g.normal([3], dtype=tf.bfloat16),
           g.make_seeds(2), g.state]
    g2, g3 = g.split(2)
    out += [g2.normal([3]), g3.uniform([2]), g2.state, g.state]
    g4 = tf.random.Generator.from_seed(12345, alg="auto_select")
    out.append(g4.normal([5], mean=2.0, stddev=3.0))
    return out


@case
def stateless_dropout(tf):
    # Python and tensor rates (a multiply by the rounded 1/keep vs a divide by
    # 1 - rate), every float dtype, noise_shape broadcasting, int64 seeds and
    # each spelling of the algorithm.
    x = tf.reshape(tf.range(1, 25, dtype=tf.float32), [4, 6]) / 7
    sd = tf.nn.experimental.stateless_dropout
    out = [sd(x, 0.5, seed=[1, 0]),
           sd(x, 0.3, seed=[7, -3], rng_alg="philox"),
           sd(x, 0.9, seed=tf.constant([2**40, 5], tf.int64), rng_alg="auto_select"),
           sd(x, tf.constant(0.25), seed=[3, 4]),
           sd(x, 2 / 3, seed=[1, 0], noise_shape=[1, 6]),
           sd(x, 0.4, seed=[5, 6], noise_shape=[4, 1], rng_alg=1),
           sd(tf.ones([3, 5]), 0.8, seed=[9, 9], rng_alg=3),
           sd(x, 0.0, seed=[1, 1])]
    for d in (tf.float64, tf.float16, tf.bfloat16):
        out += [sd(tf.cast(x, d), 0.35, seed=[11, 12]),
                sd(tf.cast(x, d), tf.constant(0.35, d), seed=[11, 12])]
    out.append(sd(tf.ones([2, 3, 4]), 0.5, seed=[0, 0], noise_shape=[2, 1, 4]))
    return out


# --- stateful ops and seeding ------------------------------------------------------

@case
def global_seed_uniform_twice(tf):
    tf.random.set_seed(5)
    return [tf.random.uniform([3]), tf.random.uniform([3])]


@case
def op_seed_normal(tf):
    tf.random.set_seed(5)
    a = tf.random.normal([2], seed=3)
    b = tf.random.normal([2], seed=3)
    tf.random.set_seed(5)
    c = tf.random.normal([2], seed=3)
    return [a, b, c]


@case
def op_seed_without_global_seed(tf):
    tf.random.set_seed(None)
    return [tf.random.uniform([3], seed=7), tf.random.uniform([3], seed=7),
            tf.random.normal([5], seed=7)]


@case
def seeded_script(tf):
    tf.random.set_seed(1234)
    return [tf.random.uniform([5], minval=-1.0, maxval=2.0),
            tf.random.normal([3, 3], mean=1.0, stddev=2.0),
            tf.random.truncated_normal([7]),
            tf.random.uniform([6], minval=0, maxval=100, dtype=tf.int32),
            tf.random.uniform([3], maxval=1000, dtype=tf.int64),
            tf.random.normal([3], dtype=tf.float64),
            tf.random.uniform([3], dtype=tf.float16),
            tf.random.normal([5], dtype=tf.bfloat16),
            tf.random.truncated_normal([3], dtype=tf.float64),
            tf.random.categorical(tf.math.log([[0.3, 0.3, 0.4], [0.9, 0.05, 0.05]]), 5),
            tf.random.shuffle(tf.range(10)),
            tf.random.shuffle(tf.reshape(tf.range(12), [4, 3]), seed=4),
            tf.random.uniform([2]),
            tf.nn.dropout(tf.ones([3, 4]), 0.5, seed=2)]


@case
def function_global_seed(tf):
    tf.random.set_seed(5)

    @tf.function
    def f():
        return tf.random.uniform([3]), tf.random.normal([2]), tf.random.normal([2], seed=3)

    @tf.function
    def g():
        return tf.random.uniform([3]), tf.random.normal([2]), tf.random.normal([2], seed=3)

    return [*f(), *f(), *g()]


@case
def function_op_seeds_and_generator(tf):
    tf.random.set_seed(None)
    gen = tf.random.Generator.from_seed(3)

    @tf.function
    def f(x):
        a = tf.random.uniform([3], seed=1)
        b = tf.random.uniform([3], seed=1)
        return a, b, gen.normal([3]), tf.random.stateless_normal([3], seed=[1, 2]) + x

    return [*f(tf.constant(0.0)), *f(tf.constant(0.0))]


# --- tf.data ---------------------------------------------------------------------------

@case
def dataset_shuffle(tf):
    def epochs(ds, n=2):
        return [tf.stack([x for x in ds]) for _ in range(n)]
    tf.random.set_seed(None)
    out = epochs(tf.data.Dataset.range(20).shuffle(5, seed=7))
    out += epochs(tf.data.Dataset.range(10).shuffle(10, seed=1, reshuffle_each_iteration=False))
    tf.random.set_seed(3)
    out += epochs(tf.data.Dataset.range(12).shuffle(4).batch(3))
    tf.random.set_seed(None)
    return out


def _to_numpy(t):
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    if a.dtype.name == "bfloat16":
        return a.view(np.uint16), True
    return a, False


def record(tf):
    """{name: array} of every case's outputs."""
    out = {}
    for name, fn in CASES.items():
        for i, t in enumerate(fn(tf)):
            a, bf16 = _to_numpy(t)
            out[f"{name}__{i}" + ("__bf16" if bf16 else "")] = a
    return out


if __name__ == "__main__":
    import tensorflow as tf  # TensorFlow's Python, not rillflow
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                        "tf_random.npz")
    np.savez_compressed(path, tf_version=np.array(tf.__version__), **record(tf))
    print(f"recorded {len(CASES)} cases with TensorFlow {tf.__version__} in {path}",
          file=sys.stderr)

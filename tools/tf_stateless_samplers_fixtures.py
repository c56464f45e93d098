"""TensorFlow's `tf.random.stateless_gamma`, `stateless_poisson` and
`stateless_binomial` numbers for a set of seeds, shapes, parameters and
dtypes, recorded for tests/test_stateless_gamma.py (compared bit for bit).

    /work/tfref/bin/python tools/tf_stateless_samplers_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

ALPHAS = [0.05, 0.3, 0.999, 1.0, 1.5, 3.0, 17.0, 250.0]


@case
def gamma_alphas(tf):
    return [tf.random.stateless_gamma([200, 8], seed=[1, 2], alpha=ALPHAS),
            tf.random.stateless_gamma([3000], seed=[7, -3], alpha=0.5),
            tf.random.stateless_gamma([2000], seed=[5, 5], alpha=1.0)]


@case
def gamma_dtypes_and_beta(tf):
    return [tf.random.stateless_gamma([50, 2], seed=[3, 4], alpha=[0.7, 4.0], dtype=d)
            for d in (tf.float16, tf.float32, tf.float64)] + \
        [tf.random.stateless_gamma([10, 2, 3], seed=[9, 1], alpha=[[2.0], [0.4]],
                                   beta=[1.0, 0.5, 3.0]),
         tf.random.stateless_gamma([4, 2], seed=tf.constant([1, 2], tf.int64), alpha=2.5,
                                   beta=2.0)]


@case
def gamma_bfloat16(tf):
    return tf.random.stateless_gamma([5], seed=[3, 4], alpha=0.7, dtype=tf.bfloat16)


@case
def gamma_tiny_alpha(tf):
    # Values below float's smallest normal become it (the wrapper's maximum).
    return tf.random.stateless_gamma([100], seed=[2, 2], alpha=0.01)


@case
def gamma_bad_shape(tf):
    return tf.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[1.0, 2.0, 3.0])


@case
def gamma_in_function(tf):
    @tf.function
    def f(seed, alpha):
        return tf.random.stateless_gamma([20, 3], seed=seed, alpha=alpha)
    return f(tf.constant([4, 5]), tf.constant([0.3, 1.0, 6.0]))


@case
def poisson_rates(tf):
    return [tf.random.stateless_poisson([300, 6], seed=[1, 2],
                                        lam=[0.0, 0.3, 2.5, 9.9, 10.0, 123.4]),
            tf.random.stateless_poisson([2000], seed=[8, 9], lam=4.0),
            tf.random.stateless_poisson([500], seed=[8, 9], lam=3000.0)]


@case
def poisson_dtypes(tf):
    out = []
    for lam_dtype in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64):
        for dtype in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64):
            out.append(tf.random.stateless_poisson(
                [20, 2], seed=[6, 1], lam=tf.constant([3, 15], lam_dtype), dtype=dtype))
    return out


@case
def poisson_in_function(tf):
    @tf.function
    def f(seed):
        return tf.random.stateless_poisson([10, 2], seed=seed, lam=[1.5, 30.0])
    return f(tf.constant([4, 5]))


@case
def binomial_params(tf):
    return [tf.random.stateless_binomial([200, 7], seed=[1, 2],
                                         counts=[0.0, 5.0, 20.0, 100.0, 100.0, 1e4, 7.0],
                                         probs=[0.3, 0.0, 0.5, 0.05, 0.95, 0.3, 1.0]),
            tf.random.stateless_binomial([1000], seed=[3, 3], counts=10.0, probs=0.5),
            tf.random.stateless_binomial([800], seed=[3, 4], counts=300.0, probs=0.7,
                                         output_dtype=tf.float32)]


@case
def binomial_broadcast_and_dtypes(tf):
    out = [tf.random.stateless_binomial([5, 2, 3], seed=[2, 7],
                                        counts=[[10.0], [50.0]], probs=[0.2, 0.6, 0.9])]
    for d in (tf.float16, tf.float32, tf.float64):
        for od in (tf.float16, tf.float64, tf.int32, tf.int64):
            out.append(tf.random.stateless_binomial(
                [30, 2], seed=[5, 6], counts=tf.constant([8.0, 60.0], d),
                probs=tf.constant([0.4, 0.25], d), output_dtype=od))
    return out


@case
def binomial_bad_shape(tf):
    return tf.random.stateless_binomial([3, 2], seed=[1, 2], counts=[1.0, 2.0, 3.0],
                                        probs=0.5)


@case
def binomial_in_function(tf):
    @tf.function
    def f(seed, counts):
        return tf.random.stateless_binomial([10, 2], seed=seed, counts=counts, probs=0.3)
    return f(tf.constant([4, 5]), tf.constant([5.0, 80.0]))


@case
def raw_ops(tf):
    return [tf.raw_ops.StatelessRandomGammaV2(shape=[5], seed=[1, 2], alpha=[2.0] * 5),
            tf.raw_ops.StatelessRandomPoisson(shape=[4], seed=[1, 2], lam=[3.0] * 4,
                                              dtype=tf.int64),
            tf.raw_ops.StatelessRandomBinomial(shape=[4], seed=[1, 2], counts=[9.0] * 4,
                                               probs=[0.5] * 4)]


if __name__ == "__main__":
    CASES.main("tf_stateless_samplers.npz")

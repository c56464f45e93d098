"""Minimized programs the compiler once got wrong (crashed on, or computed
differently from eager execution), found by the model zoo
(tests/test_compiler_zoo.py) and the random op DAGs
(tests/compiler_dag_programs.py). Each is compiled with rillflow's
optimizations and compared with eager execution, bit for bit."""
import numpy as np
import pytest

import rillflow as tf

BIG = 1 << 17   # past fusion.FUSE_MIN_ELEMENTS


def _same(fn, *args):
    expected = fn(*args)
    got = tf.function(fn)(*args)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    got = got if isinstance(got, (list, tuple)) else [got]
    for g, e in zip(got, expected):
        g, e = np.asarray(g), np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def _ramp():
    return tf.constant(np.linspace(-1, 1, BIG).astype(np.float32))


def _fused_around_reduction(x):
    # `y * s` cannot join `y`'s fused chain: `s` reads `y` in between.
    y = x * x
    s = tf.reduce_sum(y)
    return y * s + 1.0


def _softmax_by_hand(x):
    # The attention step's crash (a KeyError in codegen's value()): the fused
    # plan of `y` and `z / sum` was placed after the reduction that needs `y`.
    y = x * 3.0
    z = tf.exp(y - tf.reduce_max(y, keepdims=True))
    return z / tf.reduce_sum(z)


@pytest.mark.parametrize("fn", [_fused_around_reduction, _softmax_by_hand])
def test_fusion_never_places_a_chain_after_a_reader_of_its_members(fn):
    _same(fn, _ramp())


def test_in_place_needs_the_results_shape_not_only_its_size():
    # (86, 1, 3, 4) / (1, 86, 1, 3, 4): as many elements, but the product's
    # buffer cannot hold the quotient (NumPy: non-broadcastable output).
    rng = np.random.RandomState(0)
    a = tf.constant(rng.standard_normal((86, 1, 3, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal((1, 86, 1, 3, 4)).astype(np.float32))

    def f(a, b):
        return (a * a) / b
    _same(f, a, b)


def test_a_strided_slice_is_laid_out_as_its_kernel_gives_it():
    # NumPy's float32 cosh takes another loop on a view with a negative
    # stride (even of one element) than on the kernel's contiguous copy.
    x = tf.constant(np.array([-0.84722817], np.float32))

    def f(x):
        return tf.math.cosh(x[::-2]), tf.exp(x[::-1] * 2.0)
    _same(f, x)

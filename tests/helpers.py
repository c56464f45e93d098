"""Helpers shared by tests (`from helpers import assert_gradients_match`)."""
import contextlib

import numpy as np

import rillflow as tf


def assert_gradients_match(f, inputs, rtol=1e-3, atol=1e-3, delta=None):
    """Checks the tape gradient of `f` at `inputs` against central differences.

    Use float64 inputs where the op allows it, for accurate differences.
    """
    theoretical, numerical = tf.test.compute_gradient(f, inputs, delta=delta)
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=rtol, atol=atol)


def ph(shape, dtype=tf.float32):
    """A placeholder of (partial) `shape` in the current graph."""
    from rillflow.framework.execute import placeholder
    return placeholder(dtype, tf.TensorShape(shape))


def eq(t, expected, dtype=None):
    """Asserts a tensor's value (and dtype, if given)."""
    np.testing.assert_array_equal(t.numpy(), expected)
    if dtype is not None:
        assert t.dtype == dtype


def runner(in_function):
    """Calls a thunk eagerly, or inside a tf.function."""
    def call(thunk):
        return thunk()
    return tf.function(call) if in_function else call


@contextlib.contextmanager
def passes_off(*names):
    """Compiles tf.functions with the compiler passes `names`
    (compiler/fallback.PASSES) switched off, the others on."""
    from rillflow.compiler import codegen
    saved = codegen.options.disabled
    codegen.options.disabled = saved | frozenset(names)
    try:
        yield
    finally:
        codegen.options.disabled = saved


@contextlib.contextmanager
def optimizations(on):
    """Compiles tf.functions with rillflow's compiler optimizations on or off
    (off: the plain path, one kernel call per op)."""
    from rillflow.compiler import codegen
    saved = codegen.options.optimize
    codegen.options.optimize = on
    try:
        yield
    finally:
        codegen.options.optimize = saved

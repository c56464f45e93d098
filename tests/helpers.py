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


def canonical_bits(values):
    """Each result's bytes with every NaN made the same NaN: which operand's
    NaN an instruction passes on follows the loop that computed it (NumPy's
    or a compiled one), never a promise of TensorFlow's."""
    out = []
    for v in values:
        a = np.atleast_1d(np.asarray(v.numpy() if hasattr(v, "numpy") else v))
        if a.dtype.kind == "f":
            a = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
        out.append(a.view(np.uint8))
    return out


def compare_with_pass_off(fn, args, pass_name):
    """fn's results compiled on the plain path, optimized without the
    compiler pass `pass_name`, and fully optimized: equal bit for bit (NaN
    by being NaN). Returns the fully optimized code's source."""
    import rillflow as tf
    with optimizations(False):
        plain = canonical_bits(tf.function(fn)(*args))
    with passes_off(pass_name):
        without = canonical_bits(tf.function(fn)(*args))
    f = tf.function(fn)
    full = canonical_bits(f(*args))
    for a, b, c in zip(plain, without, full):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    return f.get_concrete_function(*args).generated_source

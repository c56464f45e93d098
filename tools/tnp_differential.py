"""Differential test of `tf.experimental.numpy` (tnp): runs a table of calls
with TensorFlow and with rillflow and compares what each gives (the values,
dtype and shape of every result, or the class of the exception raised),
eagerly and inside `tf.function`.

The calls run in groups, each in a fresh process per library, since
`experimental_enable_numpy_behavior()` cannot be undone there:

    default   NumPy behavior off (TensorFlow's plain Tensor)
    numpy     after experimental_enable_numpy_behavior()
    float32   after experimental_enable_numpy_behavior(prefer_float32=True)
    all, safe after experimental_enable_numpy_behavior(dtype_conversion_mode=...):
              TensorFlow's auto dtype conversion (weak tensors, its lattice)

    python tools/tnp_differential.py                  # both libraries: the differences
    python tools/tnp_differential.py --group numpy    # one group
    /work/tfref/bin/python tools/tnp_differential.py --record
        # TensorFlow's results into tests/data/tnp_tf.json, which
        # tests/test_tnp_parity.py checks rillflow against

A case is an expression over the names SETUP defines (`tf`, `tnp`, `np`, a
few tensors); `grad(f, x)` is the gradient of `f` at `x` on a GradientTape.
A case starting with `~` compares dtypes and shapes only (values that need
not agree: the stateful Poisson sampler's numbers are not TensorFlow's).
`dyn(f, x)` / `dyn1(f, x)` run f in a tf.function whose argument has an
unknown shape (rank) / unknown sizes. KNOWN lists, with reasons, the cases
that differ for causes outside tnp (a TensorFlow function rillflow lacks, the
dtypes a core kernel accepts); they are reported apart and not tested.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "tests", "data", "tnp_tf.json")

SETUP = """
import numpy as np
tnp = tf.experimental.numpy
i32 = tf.constant([[1, -2, 3], [4, 5, -6]], tf.int32)
i64 = tf.constant([3, 0, -7, 12], tf.int64)
f32 = tf.constant([[1.5, -2.25, 3.], [0.5, 5., -6.]], tf.float32)
f64 = tf.constant([0.1, 0.7, -1.2, 2.5], tf.float64)
f16 = tf.constant([0.5, -1.5, 2.25], tf.float16)
b = tf.constant([True, False, True])
c64 = tf.constant([1 + 2j, -3 + 0.5j], tf.complex64)
u8 = tf.constant([1, 200, 3], tf.uint8)
i8 = tf.constant([-1, 100, 3], tf.int8)
nanf = tf.constant([1., float('nan'), -3., float('inf')], tf.float32)
m3 = tf.constant([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], tf.float32)
t3 = tf.reshape(tf.range(24), [2, 3, 4])
npf = np.array([1., 2., 3.], np.float32)
npi = np.array([[1, 2], [3, 4]])


def grad(f, *xs):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    g = tape.gradient(y, xs)
    return g[0] if len(g) == 1 else g


def dyn(f, *xs):
    # f in a tf.function whose arguments have unknown shapes (rank too).
    xs = [tf.constant(x) for x in xs]
    sig = [tf.TensorSpec(None, x.dtype) for x in xs]
    return tf.function(f, input_signature=sig)(*xs)


def dyn1(f, *xs):
    # f in a tf.function whose arguments have known ranks, unknown sizes.
    xs = [tf.constant(x) for x in xs]
    sig = [tf.TensorSpec([None] * len(x.shape), x.dtype) for x in xs]
    return tf.function(f, input_signature=sig)(*xs)
"""

GROUP_SETUP = {
    "default": "",
    "numpy": "tnp.experimental_enable_numpy_behavior()",
    "float32": "tnp.experimental_enable_numpy_behavior(prefer_float32=True)",
    "all": "tnp.experimental_enable_numpy_behavior(dtype_conversion_mode='all')",
    "safe": "tnp.experimental_enable_numpy_behavior(dtype_conversion_mode='safe')",
}

# Inputs for the elementwise functions: Python ints and floats, tensors of
# several dtypes, NumPy arrays.
_UNARY_INPUTS = ["[1, -2, 3]", "[0.5, -1.5, 2.]", "f32", "i32", "f64", "b", "npf", "2",
                 "1.5", "c64", "f16"]
_FLOAT_UNARY = ["log", "exp", "sqrt", "ceil", "floor", "sin", "cos", "tan", "sinh",
                "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                "arctanh", "expm1", "log1p", "isnan", "isfinite", "deg2rad", "cbrt",
                "exp2", "fix", "sinc", "log2", "log10", "angle"]
_OTHER_UNARY = ["abs", "absolute", "fabs", "conj", "conjugate", "negative", "reciprocal",
                "signbit", "square", "positive", "real", "imag", "iscomplex", "isreal",
                "iscomplexobj", "isrealobj", "sign", "around", "round", "bitwise_not",
                "rad2deg", "isinf", "isneginf", "isposinf", "diff"]
_BINARY = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "mod",
           "remainder", "divmod", "maximum", "minimum", "power", "float_power", "arctan2",
           "nextafter", "heaviside", "hypot", "logaddexp", "logaddexp2", "isclose",
           "allclose", "equal", "not_equal", "greater", "greater_equal", "less",
           "less_equal", "array_equal", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "outer", "kron",
           "inner", "dot", "vdot"]
_BINARY_INPUTS = [("[1, 2, 3]", "[3, 2, 1]"), ("[1.5, -2., 3.]", "2"), ("f32", "1.5"),
                  ("i32", "2"), ("i32", "f32"), ("i64", "f64"), ("b", "b"), ("b", "[1, 0, 1]"),
                  ("npf", "[1., 0., -1.]"), ("u8", "i8"), ("f16", "2.5"), ("i32", "1.5"),
                  ("3", "4"), ("2.5", "1.5"), ("[[1, 2], [3, 4]]", "[5, 6]")]


def _elementwise_cases():
    out = []
    for name in _FLOAT_UNARY + _OTHER_UNARY:
        out += [f"tnp.{name}({x})" for x in _UNARY_INPUTS]
    for name in _BINARY:
        out += [f"tnp.{name}({x}, {y})" for x, y in _BINARY_INPUTS]
    return out


_CREATION = [
    "tnp.array([1, 2, 3])", "tnp.array([1., 2.])", "tnp.array(1.5)", "tnp.array(7)",
    "tnp.array([True, False])", "tnp.array([1, 2.5])", "tnp.array(f32, dtype=tnp.int32)",
    "tnp.array([1, 2], dtype=float)", "tnp.array([1, 2], ndmin=3)", "tnp.array(npi)",
    "tnp.array(2**63)", "tnp.array([[1, 2], [3, 4]], dtype=tnp.int8)", "tnp.array('abc')",
    "tnp.array([1, 2], dtype=tf.float16)", "tnp.array(3, ndmin=40)",
    "tnp.asarray([1, 2])", "tnp.asarray(1.)", "tnp.asarray(f32)", "tnp.asarray(f32, 'float64')",
    "tnp.asarray(i32, dtype=tnp.int32)", "tnp.asarray(np.float32(2))", "tnp.asarray(b, int)",
    "tnp.asanyarray([1., 2.])", "tnp.ascontiguousarray(3)", "tnp.copy(f32)", "tnp.copy([1, 2])",
    "tnp.zeros([2, 3])", "tnp.zeros(3, dtype=tnp.int32)", "tnp.zeros((2,), bool)",
    "tnp.zeros([2], None)", "tnp.ones([2, 2])", "tnp.ones(4, tnp.int64)", "tnp.ones([1], None)",
    "tnp.empty([2, 1])", "tnp.empty_like(i32)", "tnp.empty_like([1., 2.])",
    "tnp.zeros_like(f32)", "tnp.zeros_like([1, 2])", "tnp.zeros_like(i32, dtype=float)",
    "tnp.ones_like(b)", "tnp.ones_like([[1.5]])", "tnp.ones_like(f64, tnp.int8)",
    "tnp.full([2, 2], 7)", "tnp.full(3, 1.5)", "tnp.full([2], 1, dtype=tnp.float32)",
    "tnp.full((2, 3), [1, 2, 3])", "tnp.full_like(i32, 4)", "tnp.full_like(f32, 2.5)",
    "tnp.full_like([1, 2], 0.5)", "tnp.full_like(i32, 1, order='F')",
    "tnp.eye(3)", "tnp.eye(2, 3)", "tnp.eye(3, k=1)", "tnp.eye(3, 4, k=-1)", "tnp.eye(4, 2, k=1)",
    "tnp.eye(2, 5, k=2)", "tnp.eye(3, k=5)", "tnp.eye(3, dtype=tnp.int32)", "tnp.identity(2)",
    "tnp.identity(3, dtype=bool)",
    "tnp.arange(5)", "tnp.arange(1, 7, 2)", "tnp.arange(0., 1., 0.25)", "tnp.arange(5, 1, -1)",
    "tnp.arange(3, dtype=tnp.float32)", "tnp.arange(5, 1)", "tnp.arange(-3)", "tnp.arange(2.5)",
    "tnp.arange(1, 2, 0)", "tnp.arange(0, 5, 1.5, dtype=int)",
    "tnp.linspace(0, 1, 5)", "tnp.linspace(0, 10, 4, endpoint=False)",
    "tnp.linspace(2., 3., 5, retstep=True)", "tnp.linspace(0, 10, 5, dtype=int)",
    "tnp.linspace(0, 1, 1)", "tnp.linspace(0, 1, 0)", "tnp.linspace(0, 1, -1)",
    "tnp.linspace([0., 1.], [2., 3.], 3, axis=1)", "tnp.linspace(1, 2, 3, dtype=tnp.float32)",
    "tnp.logspace(0, 2, 3)", "tnp.logspace(0, 1, 4, base=2.)", "tnp.logspace(1, 2, 3, endpoint=False)",
    "tnp.geomspace(1, 1000, 4)", "tnp.geomspace(-1, -100, 3)", "tnp.geomspace(1, 16, 5, dtype=int)",
    "tnp.geomspace(2., 8., 3, endpoint=False)", "tnp.geomspace([1., 2.], [4., 8.], 3, axis=1)",
    "tnp.tri(3)", "tnp.tri(3, 4, k=1)", "tnp.tri(3, k=-1, dtype=int)", "tnp.tri(2, k=-5)",
    "tnp.tri(2, 3, k=7)", "tnp.tril(m3)", "tnp.tril(m3, -1)", "tnp.triu(m3, 1)", "tnp.triu(t3)",
    "tnp.tril([1, 2])", "tnp.vander([1, 2, 3])", "tnp.vander([1., 2.], 3, increasing=True)",
    "tnp.vander([[1, 2]])", "tnp.vander([1, 2], -1)",
    "tnp.meshgrid([1, 2, 3], [4, 5])", "tnp.meshgrid([1., 2.], [3, 4, 5], indexing='ij')",
    "tnp.meshgrid([1, 2], sparse=True)", "tnp.diag([1, 2, 3])", "tnp.diag([1, 2], k=1)",
    "tnp.diag(m3)", "tnp.diag(m3, -1)", "tnp.diag(m3, 5)", "tnp.diag([])", "tnp.diag(t3)",
    "tnp.diagflat([[1, 2], [3, 4]])", "tnp.diagflat([1, 2], -1)", "tnp.diagonal(m3)",
    "tnp.diagonal(t3, 1, 1, 2)", "tnp.diagonal(t3, 0, 0, 2)", "tnp.diagonal(m3, 4)",
    "tnp.diag_indices(3)", "tnp.diag_indices(2, 3)", "tnp.diag_indices(-1)",
    "tnp.diagflat(b)", "tnp.diagonal([[True, False]])", "tnp.diag([[True, False]])",
]

_MANIP = [
    "tnp.reshape(t3, [4, 6])", "tnp.reshape(t3, -1)", "tnp.reshape([1, 2, 3, 4], (2, 2), order='F')",
    "tnp.reshape(t3, [6, -1])", "tnp.reshape(t3, [5, 5])", "tnp.reshape(t3, 24, order='A')",
    "tnp.ravel(i32)", "tnp.ravel(5)", "tnp.flatten(i32)", "tnp.flatten(i32, 'F')",
    "tnp.flatten(i32, 'X')", "tnp.transpose(t3)", "tnp.transpose(t3, (1, 0, 2))",
    "tnp.transpose([1, 2])", "tnp.swapaxes(t3, 0, 2)", "tnp.swapaxes(t3, -1, 1)",
    "tnp.moveaxis(t3, 0, -1)", "tnp.moveaxis(t3, [0, 1], [2, 0])", "tnp.moveaxis(t3, 0, [1, 2])",
    "tnp.moveaxis(t3, (), ())", "tnp.expand_dims(i32, 1)", "tnp.expand_dims([1, 2], -1)",
    "tnp.squeeze([[1], [2]])", "tnp.squeeze(tnp.ones([1, 2, 1]), 0)", "tnp.squeeze([[1, 2]], 1)",
    "tnp.atleast_1d(3)", "tnp.atleast_1d([1, 2], 5)", "tnp.atleast_2d(3.)", "tnp.atleast_2d(i32)",
    "tnp.atleast_3d(3)", "tnp.atleast_3d([1, 2])", "tnp.atleast_3d(i32)", "tnp.atleast_3d(t3)",
    "tnp.concatenate([i32, f32])", "tnp.concatenate([[1, 2], [3.]], 0)", "tnp.concatenate(i32)",
    "tnp.concatenate([i32, i32], axis=1)", "tnp.concatenate([])", "tnp.append([1, 2], [[3, 4]])",
    "tnp.append(i32, i32, axis=0)", "tnp.stack([[1, 2], [3, 4]])", "tnp.stack([i32, f32], 1)",
    "tnp.stack(i32, axis=1)", "tnp.stack(i32)", "tnp.stack([1, 2.5])", "tnp.hstack([[1, 2], [3]])",
    "tnp.hstack([i32, i32])", "tnp.vstack([[1, 2], [3, 4]])", "tnp.vstack([1, 2.])",
    "tnp.dstack([[1, 2], [3, 4]])", "tnp.dstack([i32, i32])",
    "tnp.split(tnp.arange(6), 3)", "tnp.split(tnp.arange(6), [1, 4])", "tnp.split(t3, 2, axis=2)",
    "tnp.split(tnp.arange(6), [4, 2])", "tnp.split(tnp.arange(6), [2, 10])", "tnp.split(t3, [1], 5)",
    "tnp.split(tnp.arange(5), 2)", "tnp.vsplit(t3, 2)", "tnp.hsplit(t3, 3)", "tnp.hsplit(tnp.arange(4), 2)",
    "tnp.dsplit(t3, [1, 3])", "tnp.hsplit(t3, 2)",
    "tnp.repeat([1, 2], 2)", "tnp.repeat(i32, [1, 2], axis=0)", "tnp.repeat(i32, 2, axis=1)",
    "tnp.repeat(3, 4)", "tnp.repeat(i32, 2)", "tnp.tile([1, 2], 2)", "tnp.tile(i32, [2, 1])",
    "tnp.tile(5, [2, 3])", "tnp.tile([[1, 2]], [2, 1, 2])",
    "tnp.pad([1, 2, 3], [[1, 2]], 'constant')", "tnp.pad(i32, 1, 'reflect')",
    "tnp.pad(i32, [[0, 1], [1, 1]], 'symmetric')", "tnp.pad([1., 2.], [[1, 1]], 'constant', constant_values=9)",
    "tnp.pad([1, 2], 1, 'edge')",
    "tnp.flip(i32)", "tnp.flip(t3, 1)", "tnp.flip(3)", "tnp.fliplr(3)", "tnp.flip(b, 0)", "tnp.flip(i32, -1)", "tnp.flipud(i32)", "tnp.fliplr(i32)",
    "tnp.roll(tnp.arange(5), 2)", "tnp.roll(i32, 1)", "tnp.roll(i32, -1, axis=1)",
    "tnp.roll(i32, [1, 1], axis=[0, 1])", "tnp.rot90(i32)", "tnp.rot90(i32, 2)", "tnp.rot90(i32, 3)",
    "tnp.rot90(i32, 4)", "tnp.rot90(t3, 1, (1, 2))", "tnp.rot90(t3, -1, (0, 2))",
    "tnp.broadcast_to([1, 2], [3, 2])", "tnp.broadcast_to(5., (2,))", "tnp.broadcast_to([1, 2], [3])",
    "tnp.broadcast_arrays([1, 2], [[3], [4]])", "tnp.broadcast_arrays(i32, 1.5)",
    "tnp.broadcast_arrays([1], subok=True)",
    "tnp.shape(i32)", "tnp.shape([[1, 2, 3]])", "tnp.shape(5)", "tnp.ndim(t3)", "tnp.ndim(3)",
    "tnp.ndim([[1]])", "tnp.isscalar(3)", "tnp.isscalar(i32)", "tnp.isscalar([1])",
    "tnp.isscalar(tf.constant(2.))", "tnp.size(t3)", "tnp.size(3)", "tnp.size([[1, 2]])",
    "tnp.size(np.float32(1))", "tnp.size(t3, 1)",
    "tnp.compress([True, False, True], [1, 2, 3])", "tnp.compress([False, True], i32, axis=0)",
    "tnp.compress([1, 0, 1], i32, axis=1)", "tnp.compress([True], i32)",
    "tnp.compress([[True]], i32)", "tnp.compress([True, False, True, True], i32, axis=-1)",
]

_INDEX = [
    "tnp.take([4, 3, 5, 7], [0, 1, 4])", "tnp.take(i32, [0, 2], axis=1)", "tnp.take(i32, [[0, 1]])",
    "tnp.take(i32, [5, -1], mode='wrap')", "tnp.take(i32, [1], mode='raise')",
    "tnp.take(i32, 1, axis=0)", "tnp.take(i32, [0], out=1)",
    "tnp.take_along_axis(i32, tnp.argsort(i32, axis=1), axis=1)",
    "tnp.take_along_axis(f32, [[0], [2]], 1)", "tnp.take_along_axis(t3, [[[1]]], axis=0)",
    "tnp.take_along_axis(i32, [-1, 0], None)", "tnp.take_along_axis(t3, [[[0, -1]]], axis=-1)",
    "tnp.where([True, False, True], [1, 2, 3], [4., 5., 6.])", "tnp.where(i32 > 0, i32, 0)",
    "tnp.where(b, 1, 2.5)", "tnp.where([[0, 1], [1, 0]])", "tnp.where(i32)", "tnp.where(b, 1)",
    "tnp.where(f32 > 1, f32, -1)",
    "tnp.select([i32 > 2, i32 < 0], [i32, -i32])", "tnp.select([b], [1.5], default=-1)",
    "tnp.select([], [])", "tnp.select([b], [1, 2])",
    "tnp.nonzero([0, 1, 2, 0])", "tnp.nonzero(i32)", "tnp.nonzero(5)", "tnp.nonzero(b)",
    "tnp.ix_([0, 1], [2, 0])", "tnp.ix_([True, False, True])", "tnp.ix_([1.5])",
    "tnp.ix_([[1]])",
]

_REDUCE = [
    "tnp.sum(i32)", "tnp.sum(i32, 0)", "tnp.sum(i32, axis=1, keepdims=True)", "tnp.sum(b)",
    "tnp.sum([1.5, 2])", "tnp.sum(u8)", "tnp.sum(i8)", "tnp.sum(f32, dtype=tnp.float64)",
    "tnp.sum(i32, dtype=bool)", "tnp.sum(t3, (0, 2))", "tnp.sum(f16)", "tnp.sum(c64)",
    "tnp.sum(i32, tf.constant(1))", "tnp.prod(i32)", "tnp.prod([1.5, 2.], keepdims=True)",
    "tnp.prod(b)", "tnp.prod(i32, 1, dtype=tnp.float32)", "tnp.mean(i32)", "tnp.mean(f32, 0)",
    "tnp.mean(b)", "tnp.mean([1, 2], dtype=tnp.float32)", "tnp.mean(f32, out=1)", "tnp.mean(u8)",
    "tnp.amax(i32)", "tnp.amax(f32, 1)", "tnp.amax(b)", "tnp.amax([1, 5, 2], keepdims=True)",
    "tnp.amax(i32, out=1)", "tnp.amin(i32, 0)", "tnp.amin(b)", "tnp.amin(nanf)", "tnp.max(u8)",
    "tnp.min(f64)", "tnp.max(i32, axis=-1)", "tnp.var(i32)", "tnp.var(f32, 0)", "tnp.var(f64, ddof=1)",
    "tnp.var(i32, 1, ddof=1)", "tnp.var(c64)", "tnp.var(c64, ddof=1)", "tnp.var(i32, dtype=tnp.float32)",
    "tnp.var(f32, out=1)", "tnp.var(f32, keepdims=True)", "tnp.std(i32)", "tnp.std(f32, 1)",
    "tnp.std(b)", "tnp.ptp(i32)", "tnp.ptp(f32, 0)", "tnp.ptp([3, 1, 2], keepdims=True)",
    "tnp.all(i32)", "tnp.all(b)", "tnp.all([[1, 0], [1, 1]], 1)", "tnp.any(i32 > 4, keepdims=True)",
    "tnp.any([0., 0.])", "tnp.count_nonzero(i32)", "tnp.count_nonzero([[0, 1], [2, 0]], 1)",
    "tnp.count_nonzero(b)", "tnp.cumsum(i32)", "tnp.cumsum(i32, 1)", "tnp.cumsum(u8)",
    "tnp.cumsum(b)", "tnp.cumsum(f32, -1)", "tnp.cumsum(i32, dtype=float)", "tnp.cumprod(i32)",
    "tnp.cumprod([1.5, 2., 3.])", "tnp.cumprod(i8, 0)", "tnp.cumprod(i32, axis=-2)",
    "tnp.nansum(nanf)", "tnp.nansum([1, 2])", "tnp.nanprod(nanf)", "tnp.nanmean(nanf)",
    "tnp.nanmean(i32)", "tnp.nanmean([[1., float('nan')], [3., 4.]], 0)",
    "tnp.nansum(nanf, keepdims=True)", "tnp.average(i32)", "tnp.average(f32, 1)",
    "tnp.average([1., 2., 3.], weights=[3., 1., 0.])", "tnp.average(i32, weights=[1, 2], axis=0)",
    "tnp.average(f32, weights=f32)", "tnp.average(i32, returned=True)",
    "tnp.average(i32, axis=1, returned=True)", "tnp.average(f32, weights=[1., 1., 2.], axis=1, returned=True)",
    "tnp.average(i32, axis=(0, 1))", "tnp.argmax(i32)", "tnp.argmax(i32, 1)", "tnp.argmax(5)",
    "tnp.argmin(f32, 0)", "tnp.argmin([3, 1, 2])", "tnp.argmax(b)", "tnp.argsort([3, 1, 2])",
    "tnp.argsort(i32)", "tnp.argsort(i32, axis=0)", "tnp.argsort(f32, None)", "tnp.argsort(3)",
    "tnp.argsort([2, 1, 2, 1], kind='stable')", "tnp.argsort([1], kind='heapsort')",
    "tnp.argsort(c64)", "tnp.argsort([1], order='x')", "tnp.sort([3, 1, 2])", "tnp.sort(i32, 0)",
    "tnp.sort(f32, None)", "tnp.sort(i32, kind='stable')", "tnp.sort(b)",
]

_LINALG = [
    "tnp.matmul(m3, m3)", "tnp.matmul([[1, 2], [3, 4]], [5, 6])", "tnp.matmul([1, 2], [[1], [2]])",
    "tnp.matmul([1, 2], [3, 4])", "tnp.matmul(tnp.ones([2, 2, 3]), tnp.ones([3, 2]))",
    "tnp.matmul(i32, f32)", "tnp.matmul(i32, i32)", "tnp.matmul(3, [1])", "tnp.matmul(m3, [[1.]])",
    "tnp.dot(2, [1, 2])", "tnp.dot([1, 2], [3, 4])", "tnp.dot(m3, [1, 2, 3])", "tnp.dot(t3, tnp.ones([4, 2]))",
    "tnp.dot(i32, tnp.ones([3, 2], tnp.int32))", "tnp.tensordot(t3, tnp.ones([3, 4]))",
    "tnp.tensordot(i32, i32, axes=[[0], [0]])", "tnp.tensordot([1, 2], [3, 4], 0)",
    "tnp.tensordot(m3, m3, 1)", "tnp.inner([1, 2], [3, 4])", "tnp.inner(i32, i32)", "tnp.inner(2, i32)",
    "tnp.outer([1, 2], [3, 4, 5])", "tnp.outer(i32, [1.5])", "tnp.vdot([1, 2], [3, 4])",
    "tnp.vdot(c64, c64)", "tnp.vdot(i32, f32)", "tnp.cross([1, 2, 3], [4, 5, 6])",
    "tnp.cross([1, 2], [3, 4])", "tnp.cross([1, 2], [3, 4, 5])", "tnp.cross(tnp.ones([2, 3]), [1., 0., 0.])",
    "tnp.cross([[1], [2], [3]], [[4], [5], [6]], axisa=0, axisb=0)",
    "tnp.cross([[1, 2, 3]], [[4, 5, 6]], axisc=0)", "tnp.cross(tnp.ones([3, 2]), tnp.ones([3, 2]), axis=0)",
    "tnp.kron([[1, 2], [3, 4]], [[1, 0], [0, 1]])", "tnp.kron([1, 2], [[1], [2]])", "tnp.kron(3, [1, 2])",
    "tnp.einsum('ij,jk->ik', m3, m3)", "tnp.einsum('ii', m3)", "tnp.einsum('ij->j', i32)",
    "tnp.einsum('i,i->', [1, 2], [3., 4.])", "tnp.einsum('ij,jk', i32, f32, optimize='optimal')",
    "tnp.einsum('i,i', [1, 2], [3, 4], casting='no')", "tnp.einsum('i', [1], casting='unsafe')",
    "tnp.einsum('i', [1], optimize='fast')", "tnp.trace(m3)", "tnp.trace(m3, 1)", "tnp.trace(t3)",
    "tnp.trace(t3, axis1=1, axis2=2)", "tnp.trace(i32, dtype=tnp.float32)", "tnp.trace(m3, -1, 1, 0)",
    "tnp.polyval([1, 2, 3], 2)", "tnp.polyval([1., 0.], [1, 2, 3])", "tnp.polyval(3, [1, 2])",
    "tnp.polyval([2], f32)", "tnp.polyval(f64, 0.5)",
    "tnp.clip([1, 5, 10], 2, 8)", "tnp.clip(f32, -1, None)", "tnp.clip(i32, None, 2)",
    "tnp.clip(i32, 0.5, 2)", "tnp.clip(f32, [0, 0, 0], [1, 2, 3])", "tnp.clip(i32, None, None)",
]

_DTYPES = [
    "tnp.result_type(1, 2.)", "tnp.result_type(i32, f32)", "tnp.result_type(tnp.int8, tnp.uint8)",
    "tnp.result_type(u8, 1)", "tnp.result_type(f16, 1.)", "tnp.result_type()", "tnp.result_type(b)",
    "tnp.result_type([1, 2.])", "tnp.result_type(tf.int64, 2.)", "tnp.result_type(np.float32, 1j)",
    "tnp.result_type(npi)", "tnp.result_type('float32', 'int64')", "tnp.result_type(float)",
    "tnp.promote_types(tnp.int8, tnp.uint8)", "tnp.promote_types(tf.float32, tf.int32)",
    "tnp.promote_types('int64', 'float16')", "tnp.finfo(tnp.float32).eps", "tnp.finfo(tf.float64).max",
    "tnp.finfo(tf.float16).bits", "tnp.iinfo(tnp.int8).max", "tnp.iinfo(np.uint16).max",
    "tnp.issubdtype(tnp.float32, tnp.inexact)", "tnp.issubdtype(tnp.int32, tnp.inexact)",
    "tnp.float_ is np.float64", "tnp.int_ is np.int64", "tnp.complex_ is np.complex128",
    "tnp.string_ is np.bytes_", "tnp.unicode_ is np.str_", "tnp.object_ is np.object_",
    "tnp.bool_ is np.bool_", "tnp.ndarray is tf.Tensor", "tnp.newaxis is None", "tnp.pi", "tnp.e",
    "tnp.inf", "isinstance(tnp.ones(2), tnp.ndarray)",
    "sorted(n for n in dir(tnp) if not n.startswith('_'))",
    "sorted(n for n in dir(tnp.random) if not n.startswith('_'))",
    "tnp.add.__doc__.splitlines()[0]", "tnp.sum.__doc__.splitlines()[0]",
]

_RANDOM = [
    "(tnp.random.seed(3), tnp.random.randn(2, 3))[1]", "(tnp.random.seed(5), tnp.random.rand(3))[1]",
    "(tnp.random.seed(1), tnp.random.uniform(1., 2., (2,)))[1]",
    "(tnp.random.seed(1), tnp.random.uniform([0., 1.], 3.))[1]",
    "(tnp.random.seed(2), tnp.random.random((2, 2)))[1]",
    "(tnp.random.seed(2), tnp.random.standard_normal(3))[1]",
    "(tnp.random.seed(2), tnp.random.standard_normal())[1]",
    "(tnp.random.seed(4), tnp.random.randint(5, size=4))[1]",
    "(tnp.random.seed(4), tnp.random.randint(2, 9, (2, 2), dtype=tnp.int32))[1]",
    "(tnp.random.seed(4), tnp.random.randint(2, 9, dtype=tnp.float32))[1]",
    "~(tnp.random.seed(6), tnp.random.poisson(3., 4))[1]",
    "~(tnp.random.seed(6), tnp.random.poisson(size=(2,)))[1]",
    "tnp.random.seed('x')", "tnp.random.seed(1.5)",
]

_GRADIENTS = [
    "grad(lambda x: tnp.sum(tnp.sin(x)), [1., 2.])", "grad(lambda x: tnp.prod(x), [2., 3., 4.])",
    "grad(lambda x: tnp.sum(tnp.maximum(x, 0)), [-1., 0., 2.])",
    "grad(lambda x: tnp.mean(tnp.square(x)), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.sum(tnp.matmul(x, x)), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.sum(tnp.take(x, [0, 0, 2])), [1., 2., 3.])",
    "grad(lambda x: tnp.sum(tnp.where(x > 1, x, 0)), [1., 2., 3.])",
    "grad(lambda x: tnp.std(x), [1., 2., 4.])", "grad(lambda x: tnp.var(x, ddof=1), [1., 2., 4.])",
    "grad(lambda x: tnp.sum(tnp.cumsum(x)), [1., 2., 3.])",
    "grad(lambda x: tnp.sum(tnp.tril(x)), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.logaddexp(x, 1.), [0.5, 2.])", "grad(lambda x: tnp.sum(tnp.hypot(x, 2.)), [3.])",
    "grad(lambda x, y: tnp.sum(tnp.cross(x, y)), [1., 2., 3.], [3., 1., 2.])",
    "grad(lambda x: tnp.sum(tnp.kron(x, [1., 2.])), [1., 3.])",
    "grad(lambda x: tnp.average(x, weights=[1., 3.]), [1., 2.])",
    "grad(lambda x: tnp.sum(tnp.clip(x, 0., 1.5)), [-1., 1., 2.])",
    "grad(lambda x: tnp.einsum('ij,j->', x, [1., 2.]), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.sum(tnp.sort(x) * [1., 2., 3.]), [3., 1., 2.])",
    "grad(lambda x: tnp.sum(tnp.sinc(x)), [0.5, 1.5])",
    "grad(lambda x: tnp.sum(tnp.take_along_axis(x, [[1], [0]], 1)), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.sum(tnp.linspace(x, 2 * x, 4)), 1.)",
]

# Arguments of unknown shape inside tf.function: the paths that build tf.cond.
_DYNAMIC = [f"{d}(lambda x: {body}, {arg})" for d in ("dyn", "dyn1") for body, arg in [
    ("tnp.sum(x, 0)", "i32"), ("tnp.moveaxis(x, 0, -1)", "t3"), ("tnp.swapaxes(x, 0, 1)", "i32"),
    ("tnp.atleast_2d(x)", "[1., 2.]"), ("tnp.atleast_3d(x)", "i32"), ("tnp.diag(x)", "m3"),
    ("tnp.diag(x)", "[1, 2]"), ("tnp.diagonal(x, 1)", "m3"), ("tnp.dot(x, x)", "m3"),
    ("tnp.dot(x, x)", "[1., 2.]"), ("tnp.matmul(x, x)", "m3"), ("tnp.matmul(x, [1., 2., 3.])", "m3"),
    ("tnp.inner(x, x)", "f32"), ("tnp.cross(x, x)", "[1., 2., 3.]"), ("tnp.kron(x, [1, 2])", "[3, 4]"),
    ("tnp.argsort(x)", "[3, 1, 2]"), ("tnp.hstack([x, x])", "[1, 2]"), ("tnp.tile(x, 2)", "[1, 2]"),
    ("tnp.flip(x)", "i32"), ("tnp.rot90(x)", "i32"), ("tnp.average(x, 0, [1., 2.])", "f32"),
    ("tnp.take_along_axis(x, [[0], [1]], 1)", "f32"), ("tnp.array(x, ndmin=3)", "[1, 2]"),
    ("tnp.vander(x)", "[1, 2, 3]"), ("tnp.ix_(x)", "[0, 2]"), ("tnp.nonzero(x)", "i32"),
    ("tnp.size(x)", "i32"), ("tnp.isscalar(x)", "2"), ("tnp.diff(x)", "[1, 4, 9]"),
    ("tnp.polyval(x, 2.)", "[1., 2.]"), ("tnp.trace(x)", "m3"), ("tnp.var(x, 0, ddof=1)", "f32"),
    ("tnp.cumsum(x, -1)", "i32"), ("tnp.array_equal(x, x)", "i32"), ("tnp.repeat(x, 2)", "[1, 2]"),
    ("tnp.compress([True, False], x)", "[1, 2]"), ("tnp.take(x, [0, 5])", "i32"),
    ("tnp.gcd(x, 6)", "[4, 9, 10]"), ("tnp.broadcast_to(x, [2, 3])", "[1, 2, 3]"),
    ("tnp.full(x, 1.5)", "[2, 2]"), ("tnp.split(x, 2)", "[1, 2, 3, 4]"),
    ("tnp.stack([x, x], 1)", "[1, 2]"), ("tnp.where(x > 1, x, 0)", "[1, 2, 3]")]]

# Only with NumPy behavior: Tensor methods, operators and NumPy-style indexing.
_NUMPY_ONLY = [
    "i32.T", "t3.T", "f32.ndim", "t3.size", "i32.tolist()", "f32.reshape(3, 2)",
    "t3.reshape([4, -1])", "t3.reshape(-1)", "t3.reshape((2, 12), order='F')", "i32.ravel()",
    "i32.flatten()", "i32.transpose()", "t3.transpose((2, 0, 1))", "f32.clip(0, 2)",
    "i32.astype(tnp.float32)", "i32.astype('float64')", "f32.max()", "f32.min(axis=0)",
    "f32.mean(1)", "i32.data", "+i32", "round(f32)", "round(f32, 1)",
    "i32 + f32", "i32 + 1.5", "1.5 + i32", "i32 * 2", "u8 + i8", "u8 + 300", "i8 - 1",
    "f16 + 1.", "f32 + f64", "i32 / 2", "i32 // 2.", "b + b", "b * b", "i32 & 3", "b | b",
    "i32 ** 2", "2 ** i32", "f32 @ m3.T", "[1., 2.] @ m3[:2, :2]", "m3 @ [1, 2, 3]",
    "tnp.ones(3) @ tnp.ones(3)", "i32 == 1.0", "i32 != f32", "i32 < 2.5", "f16 >= 0", "i32 % 4",
    "i32 - np.int8(1)", "i32 + np.float32(1)", "i32 + np.ones(3)", "np.ones(3) + i32",
    "i32 + [1, 2, 3]", "[1.5] * i32", "tf.constant(1) + tf.constant(1, tf.int64)",
    "tf.Variable([1, 2]) + 1.5", "tf.Variable([1., 2.]) * i32[0, :2]",
    "t3[[0, 1]]", "t3[:, [2, 0]]", "t3[0, [1, 2], 1:3]", "t3[..., [0, 3]]", "t3[[0, 1], [1, 2]]",
    "t3[[0, 1], :, [1, 2]]", "t3[:, [[0], [1]], [[1, 2]]]", "t3[b[:2]]", "t3[t3 > 20]",
    "t3[:, (True, False, True)]", "t3[1, tnp.newaxis, 1:3, ...]", "t3[1, (0, 0, 1), tnp.asarray([0, 1, 1])]",
    "t3[[-1]]", "t3[np.array([1, 0])]", "t3[tf.constant([1])]", "t3[[0, 1], ..., [0, -1]]",
    "t3[1.5]", "t3[[1.5]]", "t3[0][[True, False, True]]", "t3[:, 1, [0, 2]]", "t3[[[0]], 1]",
    "f32[[1, 0], [2, 2]]", "i32[1]", "i32[::-1, 1:]", "i32[None, 0]", "i32[tf.constant(1)]",
    "i32[np.int32(0), 1]", "t3[tnp.array([True, False])]", "f32[f32 > 1]",
    "grad(lambda x: tnp.sum(x[[0, 0, 1]]), [1., 2., 3.])",
    "grad(lambda x: tnp.sum(x[:, [1, 0]] * [[1., 2.]]), [[1., 2.], [3., 4.]])",
    "grad(lambda x: tnp.sum(x[x > 1.5]), [1., 2., 3.])",
    "grad(lambda x: (x.T @ x).sum() if False else tnp.sum(x.T @ x), [[1., 2.], [3., 4.]])",
    "tnp.add(1., 2.)", "tnp.asarray(1.)", "tnp.array([1.5])", "tnp.zeros(2)", "tnp.sqrt(2)",
    "tnp.mean(i32)", "tnp.linspace(0, 1, 3)", "tnp.true_divide(i32, 2)", "tnp.arange(2.5)",
    "tnp.random.randn(2).dtype", "tnp.average([1, 2])",
    "dyn(lambda x: x[[0, 1]], i32)", "dyn1(lambda x: x[:, [1, 0]], i32)",
    "dyn1(lambda x: x[x > 1], f32)", "dyn1(lambda x: x.T, i32)", "dyn1(lambda x: x.reshape(-1), i32)",
    "dyn1(lambda x: x.ravel().size, i32)", "dyn1(lambda x: x.ndim, i32)", "dyn(lambda x: x.ndim, i32)",
    "dyn1(lambda x: x.tolist(), i32)", "dyn1(lambda x: x + 1.5, i32)", "dyn1(lambda x: x @ x.T, f32)",
    "tf.function(lambda: i32.size)()", "tf.Variable([[1, 2]])[0, [1, 0]]", "tf.Variable([1., 2.]).T",
    "tf.Variable([1, 2]).astype(tnp.float32)", "tf.Variable([1, 2]) * 1.5",
    "tf.constant(['a', 'b'])[[1]]", "f32.astype(tnp.int8)", "f32.clip(None, 1)", "i32.clip(0.5, 2)",
    "i32.max(axis=0, keepdims=True)", "b.mean()", "i32.reshape([3, 2], order='F')",
    "i32.reshape(6, order='C')", "i32.reshape((3, 2), bad=1)", "i32.transpose(1, 0)",
    "i32.flatten('F')", "f32.T.T", "t3.T.shape", "i32.data is i32", "i32 @ [1, 2, 3]",
    "[[1, 2, 3]] @ f32.T", "i8 @ i8", "b & 1", "u8 << 1", "i32 > [0, 0, 0]", "-(u8)",
    "~i32", "~b", "abs(i8)", "i32 == None", "i32 != None", "i64 % 5.", "i64 // 5.",
    "i32 ** -1.", "(i32 > 0) * 2", "(i32 > 0) + 1",
]


# TensorFlow's auto dtype conversion ("all" and "safe" modes): weak tensors
# from Python values, the promotion lattice in the operators, the tf ops and tnp.
_WEAK = [
    "tnp.asarray(1)", "tnp.asarray(1.5)", "tnp.asarray(1j)", "tnp.asarray([1, 2])", "tnp.asarray(True)",
    "tnp.asarray(np.float32(1))", "tnp.asarray(1, dtype=tnp.int8)", "tnp.array([1., 2.])",
    "tnp.asarray(f32)", "tnp.array(2**40)", "tf.constant(1)", "tf.constant(1.5)", "tf.constant(1, tf.int8)",
    "tf.constant([1, 2])", "tf.constant(tnp.asarray(1))", "tf.constant(tnp.asarray(1), tf.float32)",
    "tf.convert_to_tensor(1)", "tf.convert_to_tensor(2.5, tf.float16)", "tf.Variable(1.5)",
    "tf.Variable(1.5).assign_add(1)", "tf.Variable([1, 2], dtype=tf.int8).assign_add(1)",
    "tf.Variable(1).assign(tnp.asarray(2))",
    "i8 + 2", "i8 + 1.5", "2 + i8", "1.5 * i8", "u8 * 2", "u8 + i8", "i32 + f32", "i32 + i64",
    "f16 + 1.5", "f16 * 2", "i32 / 2", "2 / i32", "i32 // 2", "i32 % 2", "i32 % 1.5", "i32 ** 2",
    "i32 ** 1.5", "f32 @ m3[:3, :3].T[:3, :3]", "m3 @ m3", "i32 == 1.5", "i32 == 2", "i32 != 2",
    "i32 < 2", "i8 < 1.5", "b & b", "i32 & 1", "i8 - 1", "1 - i8", "-tnp.asarray(2)",
    "abs(tnp.asarray(-2.5))", "~tnp.asarray(2)", "tnp.asarray(1) + tnp.asarray(2.5)",
    "tnp.asarray(1) + i8", "tnp.asarray(2.5) + f16", "tnp.asarray(2.5) + i32", "tnp.asarray([1, 2]) * u8",
    "tnp.asarray(1) + 2", "tnp.asarray(1.5) * 2", "tnp.asarray(1) / 2", "tnp.asarray(3) // 2",
    "tnp.asarray(2) ** 2", "tnp.asarray(2) == 2", "tnp.asarray([1., 2.]) @ tnp.asarray([3., 4.])",
    "tnp.asarray(1) + tf.constant(1, tf.int64)", "tnp.asarray(1j) + f32", "c64 * 1.5", "c64 + 1j",
    "tnp.asarray(2)[None]", "tnp.asarray([1, 2])[0]", "tnp.asarray([[1, 2]]).T", "tnp.asarray([1, 2]).reshape(2, 1)",
    "tnp.asarray([1.5]).astype(tnp.float16)", "tnp.asarray(1).ndim", "tnp.asarray([1, 2]).shape",
    "tnp.asarray(1.5).dtype", "float(tnp.asarray(1.5))", "int(tnp.asarray(3))", "len(tnp.asarray([1, 2]))",
    "isinstance(tnp.asarray(1), tf.Tensor)", "tf.is_tensor(tnp.asarray(1))", "tnp.asarray(1).numpy()",
    "tf.add(i8, 2)", "tf.add(i8, 1.5)", "tf.add(2, 3)", "tf.add(2, 3.5)", "tf.math.multiply(u8, 2)",
    "tf.subtract(f16, 1.)", "tf.math.maximum(i8, 3)", "tf.math.maximum(3, 4.5)", "tf.math.minimum(i8, 1.5)",
    "tf.math.exp(tnp.asarray(1.))", "tf.math.exp(1.)", "tf.math.exp(1)", "tf.math.sqrt(2.)", "tf.abs(-3)",
    "tf.abs(f16)", "tf.math.negative(2)", "tf.math.square(3)", "tf.nn.relu(-2.5)", "tf.math.sin(f16)",
    "tf.reduce_sum(tnp.asarray([1, 2]))", "tf.reduce_sum([1, 2])", "tf.reduce_mean([1., 2.])",
    "tf.reduce_max(i8)", "tf.reshape(tnp.asarray([1, 2]), [2, 1])", "tf.reshape([1, 2], [2, 1])",
    "tf.transpose([[1., 2.]])", "tf.expand_dims(3, 0)", "tf.squeeze([[2.]])", "tf.identity(2)",
    "tf.zeros_like(3.)", "tf.ones_like(tnp.asarray(2))", "tf.zeros_like(i8)", "tf.math.divide(i32, 2)",
    "tf.math.truediv(3, 2)", "tf.math.floordiv(7, 2)", "tf.math.floormod(i32, 3)", "tf.pow(2, 3)",
    "tf.pow(i8, 2)", "tf.matmul(m3, m3)", "tf.matmul([[1.]], [[2.]])", "tf.equal(i8, 1)", "tf.equal(i8, 1.5)",
    "tf.math.less(i8, 1)", "tf.cast(tnp.asarray(1), tf.int8)", "tf.clip_by_value(2.5, 0., 1.)",
    "tf.clip_by_value(i8, 0, 1)", "tf.math.round(2.5)", "tf.math.sign(-2)", "tf.math.real(1.5)",
    "tf.stack([tnp.asarray(1), tnp.asarray(2)])", "tf.concat([[1], [2]], 0)", "tf.range(3)",
    "tf.math.add_n([1, 2])", "tf.math.multiply_no_nan(2., 0.)", "tf.math.divide_no_nan(1., 0.)",
    "tf.nn.softplus(1.)", "tf.math.sigmoid(0.)", "tf.math.lgamma(3.)", "tf.math.erf(0.5)",
    "tnp.add(i8, 2)", "tnp.add(1, 2)", "tnp.add(1, 2.5)", "tnp.add([1, 2], 2.5)", "tnp.multiply(u8, 1.5)",
    "tnp.subtract(f16, 2)", "tnp.exp(1)", "tnp.exp(1.)", "tnp.exp([1, 2])", "tnp.sqrt(4)", "tnp.sin(f16)",
    "tnp.abs(-2)", "tnp.sum([1, 2])", "tnp.sum(i8)", "tnp.sum(u8)", "tnp.sum([1.5, 2.5])", "tnp.mean([1, 2])",
    "tnp.mean(i8)", "tnp.prod([2, 3])", "tnp.max([1, 3])", "tnp.argsort([3, 1, 2])", "tnp.argmax([1, 3])",
    "tnp.zeros(2)", "tnp.zeros(2, tnp.int32)", "tnp.ones([2])", "tnp.ones([2], tnp.int32)", "tnp.eye(2)",
    "tnp.arange(3)", "tnp.arange(1.5)", "tnp.arange(3, dtype=tnp.int8)", "tnp.linspace(0, 1, 3)",
    "tnp.full(2, 3)", "tnp.full(2, 1.5)", "tnp.full_like(i8, 2)", "tnp.zeros_like([1, 2])",
    "tnp.ones_like(2.5)", "tnp.result_type(1, 2.)", "tnp.result_type(i8, 1.5)", "tnp.result_type(u8, i8)",
    "tnp.result_type(u64 if False else tf.uint64, tf.int64)", "tnp.result_type(i32, f32)", "tnp.result_type()",
    "tnp.result_type(tnp.asarray(1), f16)", "tnp.result_type(tf.string, 1)", "tnp.result_type(2**40)",
    "tnp.result_type(np.float32(1), 1)", "tnp.result_type(npi, 2.5)", "tnp.result_type(b, 1)",
    "tnp.result_type(tf.bfloat16, tf.float16)", "tnp.result_type([1, 2.5])", "tnp.result_type(float, int)",
    "tnp.where(b, 1, 2.5)", "tnp.where(b, i8, 1)", "tnp.concatenate([[1], [2.5]])", "tnp.concatenate([i8, [1]])",
    "tnp.maximum(i8, 1)", "tnp.maximum(2, 3.)", "tnp.true_divide(1, 2)", "tnp.true_divide(i8, 2)",
    "tnp.matmul([[1]], [[2.5]])", "tnp.matmul(m3, m3)", "tnp.dot([1, 2], [3, 4])", "tnp.stack([1, 2.5])",
    "tnp.reshape(2, [1])", "tnp.transpose([[1, 2]])", "tnp.square(3)", "tnp.log(i8)", "tnp.floor(2.5)",
    "tnp.around(2.567, 1)", "tnp.clip(5, 0, 3)", "tnp.clip(i8, 0, 2.5)", "tnp.cumsum([1, 2])",
    "tnp.var([1., 2.])", "tnp.std([1, 2])", "tnp.average([1, 2])", "tnp.diag([1, 2])", "tnp.trace([[1, 2], [3, 4]])",
    "tnp.sort([3, 1])", "tnp.isclose(1, 1.)", "tnp.equal(i8, 1.5)", "tnp.less(i8, 1)", "tnp.power(2, 3)",
    "tnp.power(i8, 2.)", "tnp.divide(2, 4)", "tnp.floor_divide(7, 2)", "tnp.mod(i8, 2)", "tnp.heaviside(1, 0.5)",
    "tnp.logaddexp(1., 2.)", "tnp.hypot(3, 4)", "tnp.kron([1, 2], [1, 2])", "tnp.outer([1, 2], [1.5])",
    "tnp.tile(2, 2)", "tnp.repeat(2.5, 2)", "tnp.flip([1, 2])", "tnp.roll([1, 2], 1)", "tnp.expand_dims(1, 0)",
    "tnp.squeeze([[1.5]])", "tnp.ravel([[1, 2]])", "tnp.moveaxis([[1, 2]], 0, 1)", "tnp.diff([1, 4])",
    "tnp.nanmean([1., float('nan')])", "tnp.vander([1, 2])", "tnp.triu([[1, 2], [3, 4]])", "tnp.rot90([[1, 2]])",
    "tnp.copy(2)", "tnp.imag(1.5)", "tnp.real(2)", "tnp.sign(-2)", "tnp.positive(3)", "tnp.negative(3.)",
    "tnp.reciprocal(2.)", "tnp.fix(-2.5)", "tnp.cbrt(8)", "tnp.deg2rad(180)", "tnp.rad2deg(tnp.asarray(1.))",
    "tnp.exp2(3)", "tnp.sinc(0.5)", "tnp.log2(8)", "tnp.log10(100.)", "tnp.log1p(0)", "tnp.expm1(0)",
    "tnp.bitwise_not(2)", "tnp.bitwise_and(i8, 1)", "tnp.logical_and(1, 0)", "tnp.angle(1j)", "tnp.conj(2)",
    "grad(lambda x: tnp.sum(x * 2), [1., 2.])", "grad(lambda x: x * tnp.asarray(2.), 1.5)",
    "dyn1(lambda x: x + 1.5, i8)", "dyn1(lambda x: x + tnp.asarray(1), i8)", "tf.function(lambda: tnp.asarray(1) + 1)()",
    "tf.function(lambda: tnp.asarray(1.))()", "tf.function(lambda: tf.constant(1) + 1.5)()",
    "tnp.rad2deg(b)", "b * 2.5", "2 * b", "b * tnp.asarray(2)", "repr(tnp.asarray([1.5, 2]))", "str(tnp.asarray(1))", "f'{tnp.asarray(2.5)}'",
    "repr(tnp.asarray([[1, 2], [3, 4]]))", "repr(tnp.asarray(1) + i8)",
    "tf.function(lambda: tf.reduce_sum(tnp.asarray([1., 2.]) * 2))()",
    "tnp.asarray([[1, 2]]).T.reshape(-1)", "tnp.asarray([3, 1, 2]).max()", "round(tnp.asarray(2.567), 1)",
    "tnp.asarray([1., 2.]).mean()", "tnp.asarray([1, 2]).tolist()", "list(tnp.asarray([1, 2]))",
]


def _weak_table_cases():
    """Each public function TensorFlow's auto dtype conversion wraps, on a
    Python float, a Python int and a tensor (one-input ones), or on pairs of
    a tensor and Python numbers (two-input ones)."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    from rillflow.ops.numpy.np_weak_table import WRAPPED
    out = []
    for name, kind in sorted(WRAPPED.items()):
        if name in ("constant",) or name.startswith("image."):
            continue
        if kind[0] == "unary":
            out += [f"tf.{name}({a})" for a in ("0.5", "2", "f32", "[0.25, 0.5]")]
        else:
            out += [f"tf.{name}({a}, {b})" for a, b in (("i8", "2"), ("2", "3.5"), ("f16", "1.5"),
                                                       ("f32", "f32"), ("1", "i64"))]
    return out


def cases():
    """[(group, case)] of the table."""
    common = (_elementwise_cases() + _CREATION + _MANIP + _INDEX + _REDUCE + _LINALG + _DTYPES
              + _RANDOM + _GRADIENTS)
    common += _DYNAMIC
    out = [("default", c) for c in common]
    out += [("numpy", c) for c in common + _NUMPY_ONLY]
    out += [("float32", c) for c in _NUMPY_ONLY + _CREATION[:40] + _elementwise_cases()[::7]]
    out += [(g, c) for g in ("all", "safe") for c in _WEAK + _weak_table_cases()]
    return out


# --- evaluation ------------------------------------------------------------------

def _num(x):
    """A JSON-able number (NaN and infinities as strings)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _array(v, dtype_name):
    import numpy as np
    a = np.asarray(v)
    if a.dtype.kind == "c":
        values = [[_num(z.real), _num(z.imag)] for z in a.reshape(-1)]
    elif a.dtype.kind in "fV" or dtype_name == "bfloat16":
        values = [_num(z) for z in a.astype(np.float64).reshape(-1)]
    elif a.dtype.kind in "iub":
        values = [int(z) for z in a.reshape(-1)]
    else:
        values = [z.decode() if isinstance(z, bytes) else str(z) for z in a.reshape(-1)]
    return {"dtype": dtype_name, "shape": list(a.shape), "values": values}


def encode(tf, value):
    """A JSON description of a result: its kind, dtype, shape and values."""
    import numpy as np
    if isinstance(value, tf.Tensor):
        return dict(kind="tensor", **_array(value.numpy(), value.dtype.name))
    if "WeakTensor" in type(value).__name__:
        return dict(kind="weak", **_array(value.numpy(), value.dtype.name))
    if isinstance(value, tf.Variable):
        return dict(kind="tensor", **_array(value.numpy(), value.dtype.name))
    if isinstance(value, (list, tuple)):
        return {"kind": type(value).__name__, "items": [encode(tf, v) for v in value]}
    if isinstance(value, tf.TensorShape):
        return {"kind": "TensorShape", "value": value.as_list() if value.rank is not None else None}
    if isinstance(value, tf.DType):
        return {"kind": "DType", "value": value.name}
    if isinstance(value, (bool, np.bool_)):
        return {"kind": type(value).__name__, "value": bool(value)}
    if isinstance(value, (np.ndarray, np.generic)):
        return dict(kind="numpy", **_array(value, value.dtype.name))
    if isinstance(value, (int, float)):
        return {"kind": type(value).__name__, "value": _num(value)}
    if isinstance(value, type):
        return {"kind": "type", "value": value.__name__}
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if value is None:
        return {"kind": "None"}
    return {"kind": "other", "value": type(value).__name__}


def evaluate(tf, case, env):
    """(eager result, tf.function result) of one case, encoded."""
    expr = case.lstrip("~")
    out = []
    for traced in (False, True):
        try:
            if traced:
                value = tf.function(lambda: eval(expr, env))()
            else:
                value = eval(expr, env)
            out.append(encode(tf, value))
        except Exception as e:  # noqa: BLE001 - the case's error is its result
            out.append({"kind": "error", "type": type(e).__name__})
    return out


def make_env(tf, group):
    env = {"tf": tf}
    exec(SETUP, env)
    exec(GROUP_SETUP[group], env)
    return env


def worker(lib, group):
    """Prints JSON {case: [eager, traced]} for one group with one library."""
    if lib == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        sys.path.insert(0, os.path.join(HERE, ".."))
        import rillflow as tf
    tf.get_logger().setLevel("ERROR")  # the retracing warnings of the traced cases
    env = make_env(tf, group)
    res = {c: evaluate(tf, c, env) for g, c in cases() if g == group}
    sys.stdout.write(json.dumps(res))


# --- comparison ------------------------------------------------------------------

_RTOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 2e-6, "complex64": 2e-6}


def _close(x, y, rtol):
    if x == y:
        return True
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(
            _close(a, b, rtol) for a, b in zip(x, y))
    if isinstance(x, str) or isinstance(y, str) or x is None or y is None:
        return False
    return abs(x - y) <= rtol * max(abs(x), abs(y)) + 1e-12


def same(got, want, values=True):
    """Whether two encoded results agree (floats to a relative tolerance by
    dtype, since BLAS-backed products may round differently)."""
    if got.get("kind") != want.get("kind"):
        return False
    if "items" in want:
        return len(got["items"]) == len(want["items"]) and all(
            same(g, w, values) for g, w in zip(got["items"], want["items"]))
    if "values" in want:
        if got["dtype"] != want["dtype"] or got["shape"] != want["shape"]:
            return False
        return not values or _close(got["values"], want["values"],
                                    _RTOL.get(want["dtype"], 1e-12))
    return got == want


# Known differences of the traced result only: a kernel TensorFlow lacks for a
# dtype (Reciprocal of ints, Round of complex) is a NotFoundError eagerly in
# both; in a tf.function TensorFlow reports an InvalidArgumentError when the
# function runs, rillflow's kernel still the NotFoundError.
_KNOWN_TRACED = {("NotFoundError", "InvalidArgumentError")}


# Differences outside tnp that the table meets, by case prefix: functions
# rillflow does not have yet, and the dtypes a few core kernels accept.
KNOWN = {
    "tf.linalg.tensor_diag_part(": "tf.linalg.tensor_diag_part is not in rillflow yet",
    "tf.math.erfcinv(": "tf.math.erfcinv is not in rillflow yet",
    "tf.nn.depth_to_space(": "tf.nn.depth_to_space is not in rillflow yet",
    "tf.nn.space_to_depth(": "tf.nn.space_to_depth is not in rillflow yet",
    "tf.math.reciprocal_no_nan(2)": "rillflow's ReciprocalNoNan accepts int32",
    "tf.realdiv(i8, 2)": "TensorFlow has no RealDiv kernel for integers",
    "tf.realdiv(1, i64)": "TensorFlow has no RealDiv kernel for integers",
    "tf.truncatemod(i8, 2)": "TensorFlow's TruncateMod refuses int8",
    "tf.truncatemod(f16, 1.5)": "TensorFlow has no float16 TruncateMod kernel",
    "tf.truncatediv(1, i64)": "integer division by zero: an InternalError in TensorFlow",
    "tf.truncatemod(1, i64)": "integer division by zero: an InternalError in TensorFlow",
    "tf.math.angle(2)": "tf.math.angle of an int: TensorFlow's eager error is an "
                        "InvalidArgumentError",
}


def known(case):
    """Why `case` is a known difference, or None."""
    return next((why for prefix, why in KNOWN.items() if case.startswith(prefix)), None)


def case_agrees(case, got, want):
    """Whether a case's [eager, traced] results agree with TensorFlow's."""
    values = not case.startswith("~")
    if not same(got[0], want[0], values):
        return False
    if got[1].get("kind") == want[1].get("kind") == "error" and \
            (got[1]["type"], want[1]["type"]) in _KNOWN_TRACED:
        return True
    return same(got[1], want[1], values)


def compare(group_results, expected):
    """The cases whose results differ: [(group, case, got, want)]."""
    bad = []
    for key, want in expected.items():
        group, case = key.split(":", 1)
        got = group_results[group][case]
        if not known(case) and not case_agrees(case, got, want):
            bad.append((group, case, got, want))
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker")
    p.add_argument("--group")
    p.add_argument("--record", action="store_true",
                   help="run with TensorFlow and write tests/data/tnp_tf.json")
    p.add_argument("--tensorflow-python", default="/work/tfref/bin/python")
    p.add_argument("--show", type=int, default=40, help="how many differences to print")
    a = p.parse_args()
    if a.worker:
        worker(a.worker, a.group)
        return
    groups = [a.group] if a.group else list(GROUP_SETUP)
    if a.record:
        out = {}
        for g in groups:
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                                "tensorflow", "--group", g], capture_output=True, text=True)
            for case, res in json.loads(r.stdout).items():
                out[f"{g}:{case}"] = res
        with open(FIXTURE, "w") as f:  # one case a line
            f.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(out[k])}"
                                        for k in sorted(out)) + "\n}\n")
        print(f"wrote {len(out)} cases to {os.path.relpath(FIXTURE)}")
        return
    results = {}
    for lib, py in (("rillflow", sys.executable), ("tensorflow", a.tensorflow_python)):
        results[lib] = {}
        for g in groups:
            r = subprocess.run([py, os.path.abspath(__file__), "--worker", lib, "--group", g],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{lib} worker failed on group {g}:\n{r.stderr[-3000:]}")
            results[lib][g] = json.loads(r.stdout)
    expected = {f"{g}:{c}": v for g in groups for c, v in results["tensorflow"][g].items()}
    bad = compare(results["rillflow"], expected)
    n_known = sum(1 for k in expected if known(k.split(":", 1)[1]))
    print(f"{len(expected) - len(bad) - n_known} of {len(expected)} cases give TensorFlow's "
          f"results; {n_known} known differences (KNOWN)")
    for group, case, got, want in bad[:a.show]:
        print(f"[{group}] {case}\n  rillflow:   {json.dumps(got)[:300]}\n"
              f"  tensorflow: {json.dumps(want)[:300]}")


if __name__ == "__main__":
    main()

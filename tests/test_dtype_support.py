"""Per-dtype behaviour as TensorFlow 2.21's: which dtypes an op takes, which
of those have CPU kernels, and what the result's dtype and values are.
Found by a sweep of about 150 ops over 15 dtypes, eagerly and in
tf.function, against TensorFlow (tools/tf_dtype_sweep.py); the expected
values below are TensorFlow's."""
import numpy as np
import pytest

import rillflow as tf


def _fn(f):
    return tf.function(f, autograph=False)


# --- values --------------------------------------------------------------------------------

def test_cast_of_a_python_float_goes_through_float32():
    # TensorFlow converts the Python value to its default type first.
    assert tf.cast(0.1, tf.float64).numpy() == np.float64(np.float32(0.1))
    assert tf.cast(0.7071067811865476, tf.float64).numpy() == 0.7071067690849304
    with pytest.raises(ValueError, match="out of range"):
        tf.cast(1e40, tf.float64)       # (float32 cannot hold it)
    assert tf.cast(2 ** 40, tf.int64).numpy() == 2 ** 40
    assert tf.cast(np.float64(0.1), tf.float64).numpy() == 0.1
    assert tf.cast(tf.constant(0.1, tf.float64), tf.float64).numpy() == 0.1


def test_gelu_float64_uses_the_float32_rounded_constant():
    x = tf.constant([0.5, 2.0, 0.25], tf.float64)
    want = [0.3457312291306712, 1.9544997324075772, 0.1496765810071345]
    assert tf.nn.gelu(x).numpy().tolist() == want
    assert _fn(tf.nn.gelu)(x).numpy().tolist() == want
    approx = [0.3457140097922433, 1.9545976932119538, 0.14967535069936944]
    assert tf.nn.gelu(x, approximate=True).numpy().tolist() == approx


def test_complex_squared_difference_in_a_function_is_the_kernels():
    # (x - y) * conj(x - y), not (x - y) ** 2.
    a = tf.constant([1 + 1j, 2 - 0.5j, 0.5 + 0j])
    b = tf.constant([2 + 0j, 1 + 1j, 3 - 1j])
    want = [2 + 0j, 3.25 + 0j, 7.25 + 0j]
    assert tf.math.squared_difference(a, b).numpy().tolist() == want
    assert _fn(tf.math.squared_difference)(a, b).numpy().tolist() == want


@pytest.mark.parametrize("dt, start, stop, n, want_dtype, want", [
    # stop - start wraps around in unsigned types, as in TensorFlow.
    ("uint8", 1, 0, 3, "float32", [1.0, 128.5, 0.0]),
    ("uint16", 5, 2, 4, "float32", [5.0, 21849.333984375, 43693.66796875, 2.0]),
    ("uint32", 7, 3, 5, "float64", [7.0, 1073741830.0, 2147483653.0, 3221225476.0, 3.0]),
    ("int8", -100, 100, 7, "float32",
     [-100.0, -109.33333587646484, -118.66666412353516, -128.0, -137.3333282470703,
      -146.66665649414062, 100.0]),
    ("int32", 0, 10, 4, "float64", [0.0, 3.3333333333333335, 6.666666666666667, 10.0]),
    ("uint8", 3, 9, 1, "float32", [3.0]),
    ("uint8", 3, 9, 0, "float32", []),
])
def test_linspace_of_integers(dt, start, stop, n, want_dtype, want):
    x0, x1 = tf.constant(start, getattr(tf, dt)), tf.constant(stop, getattr(tf, dt))
    for f in (tf.linspace, _fn(lambda a, b: tf.linspace(a, b, n))):
        r = f(x0, x1, n) if f is tf.linspace else f(x0, x1)
        assert r.dtype.name == want_dtype
        assert r.numpy().tolist() == want


def test_linspace_of_integers_broadcasts_along_an_axis():
    r = tf.linspace(tf.constant([1, 5], tf.int16), tf.constant([9, -7], tf.int16), 5, axis=1)
    assert r.dtype == tf.float32
    assert r.numpy().tolist() == [[1.0, 3.0, 5.0, 7.0, 9.0], [5.0, 2.0, -1.0, -4.0, -7.0]]


def test_bfloat16_matmul_keeps_its_dtype():
    rng = np.random.default_rng(0)
    a = tf.cast(tf.constant(rng.standard_normal((4, 30)).astype(np.float32)), tf.bfloat16)
    b = tf.cast(tf.constant(rng.standard_normal((30, 3)).astype(np.float32)), tf.bfloat16)
    # float32 products rounded once to bfloat16.
    want = tf.cast(tf.matmul(tf.cast(a, tf.float32), tf.cast(b, tf.float32)), tf.bfloat16)
    for r in (tf.matmul(a, b), _fn(tf.matmul)(a, b), tf.matmul(a[None], b[None])[0],
              _fn(lambda x, y: tf.matmul(x, y, transpose_b=True))(a, tf.transpose(b))):
        assert r.dtype == tf.bfloat16
        assert np.array_equal(r.numpy().astype(np.float32), want.numpy().astype(np.float32))
    assert tf.tensordot(a[0], b[:, 0], 1).dtype == tf.bfloat16


def test_bfloat16_unsorted_segment_max_and_min():
    x = tf.constant([0.5, 2.0, 0.25], tf.bfloat16)
    top = tf.math.unsorted_segment_max(x, [0, 0, 1], 3).numpy().astype(np.float32)
    low = tf.math.unsorted_segment_min(x, [0, 0, 1], 3).numpy().astype(np.float32)
    assert top[:2].tolist() == [2.0, 0.25] and top[2] == np.float32(-3.3895314e38)
    assert low[:2].tolist() == [0.5, 0.25] and low[2] == np.float32(3.3895314e38)


def test_bfloat16_as_string_formats_as_a_float():
    x = tf.constant([0.5, 2.0, 1e-40, 1.2345678], tf.bfloat16)
    assert tf.strings.as_string(x).numpy().tolist() == [
        b"0.500000", b"2.000000", b"0.000000", b"1.234375"]
    assert tf.strings.as_string(x, shortest=True).numpy().tolist() == [
        b"0.5", b"2", b"0", b"1.23438"]


# --- dtypes an op does not take, or has no CPU kernel for ----------------------------------

def _raises(cls, pattern, f, *args):
    with pytest.raises(cls, match=pattern):
        f(*args)


@pytest.mark.parametrize("f, dt, attr_list", [
    (tf.pow, "uint8", "int8, int16, int32, int64"),
    (tf.math.squared_difference, "int8", "int32, int64"),
    (tf.math.squared_difference, "uint32", "int32, int64"),
])
def test_binary_ops_refuse_types_outside_their_lists(f, dt, attr_list):
    x = tf.constant([1, 2], getattr(tf, dt))
    _raises(tf.errors.InvalidArgumentError,
            "Value for attr 'T' of %s is not in the list of allowed values: .*, %s, complex64"
            % (dt, attr_list), f, x, x)
    _raises(TypeError, "DataType %s not in list of allowed values" % dt, _fn(f), x, x)


def test_reciprocal_no_nan_does_not_cast_integers():
    _raises(tf.errors.InvalidArgumentError, "attr 'T' of int32",
            tf.math.reciprocal_no_nan, tf.constant([1, 0]))
    _raises(TypeError, "DataType int32 not in list", _fn(tf.math.reciprocal_no_nan),
            tf.constant([1, 0]))
    assert tf.math.reciprocal_no_nan(tf.constant([2.0, 0.0])).numpy().tolist() == [0.5, 0.0]


def test_integer_division_ops_have_no_complex_kernel():
    c = tf.constant([1 + 1j, 2j])
    _raises(tf.errors.NotFoundError, r"FloorDiv\[T=DT_COMPLEX128\]", tf.math.floordiv, c, c)
    _raises(tf.errors.NotFoundError, r"TruncateDiv\[T=DT_COMPLEX128\]", tf.truncatediv, c, c)
    _raises(tf.errors.InvalidArgumentError, "No OpKernel was registered to support Op "
            "'FloorDiv'", _fn(lambda a: a // a), c)


def test_unique_has_no_complex_kernel():
    c = tf.constant([1 + 1j], tf.complex64)
    _raises(tf.errors.NotFoundError, r"Unique\[T=DT_COMPLEX64, out_idx=DT_INT64\]",
            lambda: tf.unique(c, out_idx=tf.int64))
    _raises(tf.errors.NotFoundError, r"UniqueWithCounts\[T=DT_COMPLEX64, out_idx=DT_INT32\]",
            lambda: tf.unique_with_counts(c))
    _raises(tf.errors.InvalidArgumentError, "Op 'Unique'", _fn(lambda a: tf.unique(a)[0]), c)


def test_tile_has_no_uint16_case():
    x = tf.constant([1, 2], tf.uint16)
    _raises(tf.errors.UnimplementedError, "DataType : uint16, Dimension : 1", tf.tile, x, [2])
    _raises(tf.errors.UnimplementedError, "uint16", _fn(lambda a: tf.tile(a, [2])), x)
    # Nothing tiled, or nothing to tile: TensorFlow returns without its type switch.
    assert tf.tile(x, [1]).numpy().tolist() == [1, 2]
    assert tf.tile(x, [0]).numpy().tolist() == []
    assert tf.tile(tf.constant([1, 2], tf.uint32), [2]).numpy().tolist() == [1, 2, 1, 2]


def test_bincount_takes_int32_and_int64_only():
    _raises(tf.errors.InvalidArgumentError, "attr 'Tidx' of int8 is not in the list of allowed "
            "values: int32, int64", tf.math.bincount, tf.constant([1, 2], tf.int8))
    _raises(TypeError, "DataType uint8 not in list of allowed values: int32, int64",
            _fn(tf.math.bincount), tf.constant([1, 2], tf.uint8))
    # Floats (and bools) are cast to int32 first.
    assert tf.math.bincount(tf.constant([1.0, 2.0])).numpy().tolist() == [0, 1, 1]
    assert tf.math.bincount(tf.constant([1, 2], tf.int64)).numpy().tolist() == [0, 1, 1]


def test_histogram_fixed_width_types():
    v = tf.constant([1, 2], tf.int8)
    _raises(tf.errors.InvalidArgumentError, "attr 'T' of int8", tf.histogram_fixed_width,
            v, [0, 3], 3)
    _raises(TypeError, "parameter 'values' has DataType int8",
            _fn(lambda a: tf.histogram_fixed_width(a, [0, 3], 3)), v)


def test_bitcast_refuses_bool():
    b = tf.constant([True, False])
    _raises(tf.errors.InvalidArgumentError, "attr 'T' of bool", tf.bitcast, b, tf.uint8)
    _raises(TypeError, "DataType bool not in list", _fn(lambda a: tf.bitcast(a, tf.uint8)), b)
    assert tf.bitcast(tf.constant([1.0]), tf.uint8).numpy().tolist() == [[0, 0, 128, 63]]


def test_range_of_types_outside_its_hierarchy_asserts():
    # TensorFlow's tf.range asserts the argument types (AssertionError).
    with pytest.raises(AssertionError):
        tf.range(tf.constant(1, tf.int8), tf.constant(5, tf.int8))
    with pytest.raises(AssertionError):
        tf.range(tf.constant(1, tf.uint16), 5)


def test_swish_beta_goes_through_float32():
    # TensorFlow converts beta to a tensor of its own (float32) and casts it.
    x = tf.constant(np.array([0.5, -2.0, 1.25]), tf.float64)
    want = [0.32850522865039533, -0.13827685296206554, 1.0443544111384133]
    assert tf.nn.silu(x, beta=1.3).numpy().tolist() == want
    v = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.silu(v, beta=1.3))
    assert tape.gradient(y, v).numpy().tolist() == [0.8034864675219102, -0.09819315898965598,
                                                    1.0588410736911293]

"""Elementwise unary math, complex parts, clipping and the binary atan2 /
complex / xlogy / xdivy / polygamma / zeta ops: values, dtypes, errors,
graph shape inference and gradients (against finite differences and
against the values TensorFlow 2.21 gives)."""
import math
import warnings

import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder

F64 = np.float64


def f64(*values):
    return tf.constant(np.array(values, dtype=F64))


def close(t, expected, dtype=None, rtol=1e-6, atol=0.0):
    if dtype is not None:
        assert t.dtype == dtype
    np.testing.assert_allclose(np.asarray(t.numpy()), expected, rtol=rtol, atol=atol)


def grads(f, *args):
    args = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        for a in args:
            tape.watch(a)
        y = f(*args)
    return [None if g is None else g.numpy() for g in tape.gradient(y, args)]


# --- values and dtypes --------------------------------------------------------------

UNARY_FLOAT_CASES = [
    (tf.exp, np.exp, [-2.0, 0.0, 1.5]),
    (tf.math.expm1, np.expm1, [-1e-10, 0.0, 2.0]),
    (tf.math.log, np.log, [0.5, 1.0, 3.0]),
    (tf.math.log1p, np.log1p, [-0.5, 1e-12, 3.0]),
    (tf.sin, np.sin, [-1.0, 0.0, 2.0]),
    (tf.cos, np.cos, [-1.0, 0.0, 2.0]),
    (tf.tan, np.tan, [-1.0, 0.0, 1.2]),
    (tf.asin, np.arcsin, [-0.9, 0.0, 0.5]),
    (tf.acos, np.arccos, [-0.9, 0.0, 0.5]),
    (tf.atan, np.arctan, [-3.0, 0.0, 0.5]),
    (tf.sinh, np.sinh, [-3.0, 0.0, 0.5]),
    (tf.cosh, np.cosh, [-3.0, 0.0, 0.5]),
    (tf.tanh, np.tanh, [-30.0, 0.0, 0.5]),
    (tf.asinh, np.arcsinh, [-3.0, 0.0, 0.5]),
    (tf.acosh, np.arccosh, [1.0, 2.0, 10.0]),
    (tf.atanh, np.arctanh, [-0.5, 0.0, 0.9]),
    (tf.sqrt, np.sqrt, [0.0, 2.0, 9.0]),
    (tf.math.rsqrt, lambda v: 1 / np.sqrt(v), [0.25, 2.0, 9.0]),
    (tf.square, np.square, [-3.0, 0.0, 1.5]),
    (tf.math.reciprocal, np.reciprocal, [-4.0, 0.5, 3.0]),
    (tf.floor, np.floor, [-1.5, 0.2, 2.7]),
    (tf.math.ceil, np.ceil, [-1.5, 0.2, 2.7]),
    (tf.math.softsign, lambda v: v / (1 + np.abs(v)), [-3.0, 0.0, 1.0]),
    (tf.math.erf, np.vectorize(math.erf), [-1.0, 0.0, 0.5]),
    (tf.math.erfc, np.vectorize(math.erfc), [-1.0, 0.0, 5.0]),
    (tf.math.lgamma, np.vectorize(math.lgamma), [-2.5, 0.5, 7.0]),
]


@pytest.mark.parametrize("fn,ref,values", UNARY_FLOAT_CASES)
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_unary_float_values_keep_dtype_and_shape(fn, ref, values, dtype):
    x = np.array([values, values[::-1]], dtype=dtype.as_numpy_dtype)
    y = fn(tf.constant(x))
    assert y.dtype == dtype and y.shape == (2, 3)
    close(y, ref(x.astype(F64)), rtol=1e-6 if dtype == tf.float64 else 2e-6, atol=1e-12)


def test_scalars_python_values_and_lists_are_converted():
    y = tf.sin(1.0)
    assert y.dtype == tf.float32 and y.shape == ()
    assert abs(float(y) - math.sin(1.0)) < 1e-7
    close(tf.exp([0.0, 1.0]), [1.0, math.e], tf.float32)
    assert repr(tf.abs(-2.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=2.5>"


def test_float16_inputs_stay_float16():
    x = tf.constant([0.5, 1.0, 2.0], tf.float16)
    for fn in (tf.exp, tf.sigmoid, tf.math.softplus, tf.math.erf, tf.math.lgamma,
               tf.math.digamma, tf.sqrt, tf.tanh):
        assert fn(x).dtype == tf.float16
    close(tf.math.erf(tf.constant([0.1, 1.0, 2.0], tf.float16)), [0.1124, 0.843, 0.995],
          rtol=1e-3)
    close(tf.math.softplus(tf.constant([-15.0, 9.0], tf.float16)), [2.98e-07, 9.0], rtol=1e-3)


def test_abs_of_ints_and_complex():
    y = tf.abs(tf.constant([-3, 0, 4]))
    assert y.dtype == tf.int32 and y.numpy().tolist() == [3, 0, 4]
    assert tf.abs(tf.constant([-128], tf.int8)).numpy().tolist() == [-128]  # wraps, as in TF
    z = tf.abs(tf.constant([3 + 4j, -1j], tf.complex64))
    assert z.dtype == tf.float32
    close(z, [5.0, 1.0])
    assert tf.math.abs(tf.constant([3 + 4j])).dtype == tf.float64
    assert abs(tf.constant(-2.0)).numpy() == 2.0


def test_sign_of_floats_ints_and_complex():
    close(tf.sign(tf.constant([-2.0, 0.0, 3.0, np.nan])), [-1.0, 0.0, 1.0, np.nan],
          tf.float32)
    assert tf.sign(tf.constant([-5, 0, 7])).numpy().tolist() == [-1, 0, 1]
    z = tf.sign(tf.constant([3 + 4j, 0j, np.inf + 0j]))
    np.testing.assert_allclose(z.numpy()[:2], [0.6 + 0.8j, 0j])
    assert np.isnan(z.numpy()[2].real)  # inf / inf, as TensorFlow computes it


def test_round_is_bankers_rounding_and_passes_ints_through():
    y = tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.5, 2.4]))
    assert y.numpy().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]
    assert np.signbit(y.numpy()[3])
    x = tf.constant([1, 2], tf.uint8)
    assert tf.round(x) is x
    assert tf.math.round(tf.constant([2.5, 3.5], tf.float16)).numpy().tolist() == [2.0, 4.0]
    close(tf.math.rint(tf.constant([0.5, 1.5, -2.5])), [0.0, 2.0, -2.0], tf.float32)


def test_square_accepts_all_integer_types():
    y = tf.square(tf.constant([3, 20], tf.uint8))
    assert y.dtype == tf.uint8 and y.numpy().tolist() == [9, 144]
    assert tf.square(tf.constant([1 + 1j])).numpy().tolist() == [2j]


def test_sigmoid_tanh_softplus_are_stable_at_extremes():
    x = tf.constant([-100.0, -20.0, 0.0, 20.0, 100.0])
    close(tf.sigmoid(x), [0.0, 2.0611537e-09, 0.5, 1.0, 1.0], tf.float32, rtol=1e-6)
    close(tf.nn.sigmoid(x), tf.math.sigmoid(x).numpy())
    # (TensorFlow flushes float32 denormals to zero; rillflow keeps them.)
    close(tf.math.softplus(x), [0.0, 2.0611537e-09, 0.6931472, 20.0, 100.0], tf.float32,
          atol=1e-37)
    close(tf.nn.softplus(f64(-40.0, 15.0)), [4.248354255291589e-18, 15.000000305902321])
    close(tf.math.log_sigmoid(x), [-100.0, -20.0, -0.6931472, -2.0611537e-09, 0.0],
          tf.float32, rtol=1e-6, atol=1e-37)
    close(tf.nn.tanh(f64(-800.0, 800.0)), [-1.0, 1.0])
    close(tf.sigmoid(tf.constant([1j])), [1 / (1 + np.exp(-1j))])


def test_edge_values_give_inf_and_nan_without_warnings():
    with warnings.catch_warnings(record=True) as caught:
        # The filter `import rillflow` installs (pytest drops filters set
        # while collecting): NumPy's overflow/invalid warnings raised in
        # rillflow's frames are silenced, the user's own are not.
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"rillflow(\..*)?$")
        close(tf.math.log(tf.constant([0.0, -1.0])), [-np.inf, np.nan])
        close(tf.sqrt(tf.constant([-1.0, 4.0])), [np.nan, 2.0])
        close(tf.math.rsqrt(tf.constant([0.0, 4.0])), [np.inf, 0.5])
        close(tf.math.reciprocal(tf.constant([0.0])), [np.inf])
        close(tf.math.atanh(tf.constant([1.0, 2.0])), [np.inf, np.nan])
        close(tf.math.lgamma(f64(0.0, -1.0, np.inf, -np.inf, np.nan)),
              [np.inf, np.inf, np.inf, np.inf, np.nan])
        close(tf.math.digamma(f64(0.0, -1.0, np.inf, -np.inf, np.nan)),
              [np.nan, np.nan, np.inf, np.nan, np.nan])
        close(tf.math.erf(tf.constant([-np.inf, np.nan])), [-1.0, np.nan])
        close(tf.math.erfc(tf.constant([-np.inf, 30.0])), [2.0, 0.0])
        close(tf.exp(tf.constant([1000.0])), [np.inf])
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


def test_is_nan_is_finite_is_inf():
    x = tf.constant([1.0, np.nan, np.inf, -np.inf])
    for fn, expected in ((tf.math.is_nan, [False, True, False, False]),
                         (tf.math.is_finite, [True, False, False, False]),
                         (tf.math.is_inf, [False, False, True, True])):
        y = fn(x)
        assert y.dtype == tf.bool and y.numpy().tolist() == expected
    assert tf.math.is_nan(tf.constant([1.0], tf.float16)).numpy().tolist() == [False]


def test_special_functions_match_reference_values():
    close(tf.math.lgamma(f64(1e-30, 1e30, -0.5, 1.0, 2.0)),
          [69.07755278982137, 6.8077552789821365e+31, 1.2655121234846454, 0.0, 0.0],
          rtol=1e-14)
    close(tf.math.digamma(f64(1e-8, 1.0, 0.5, -1.5, -0.5, 7.0, 1e30, -1.4244367240010083e-10)),
          [-100000000.57721566, -0.5772156649015329, -1.9635100260214235, 0.7031566406452432,
           0.03648997397857645, 1.8727843350984674, 69.07755278982137, 7020318860.559449],
          rtol=1e-13)
    close(tf.math.zeta(f64(2.0, 2.0, 4.5, 2.0, 2.0, 3.0), f64(1.0, 1e5, 3.3, -1000.5, -20.5, -0.5)),
          [math.pi ** 2 / 6, 1.0000050000166665e-05, 0.007199403311103444, 9.868605400173442,
           9.821994344649879, 0.41439832211716], rtol=1e-12)
    close(tf.math.zeta(tf.constant([0.5, 1.0, 2.0]), tf.constant([1.0, 1.0, 0.0])),
          [np.nan, np.inf, np.inf])
    close(tf.math.polygamma(f64(0.0, 1.0, 2.0, 3.0, 5.0, 10.0),
                            f64(2.0, -1.5, 0.5, -3.3, 0.01, 100.0)),
          [0.42278433509846713, 9.37924664498912, -16.828796644234316, 768.9856582554287,
           120000000000115.02, -3.813565535568148e-15], rtol=1e-11)
    close(tf.math.polygamma(tf.constant([1.5, -1.0, 1.0]), tf.constant([2.0, 2.0, 0.0])),
          [np.nan, np.nan, np.inf])
    assert tf.math.polygamma(1, tf.constant(2.0)).dtype == tf.float32


def test_real_imag_angle_complex():
    z = tf.constant([1 + 2j, -1 + 1j], tf.complex64)
    close(tf.math.real(z), [1.0, -1.0], tf.float32)
    close(tf.math.imag(z), [2.0, 1.0], tf.float32)
    close(tf.math.angle(z), [math.atan2(2, 1), 3 * math.pi / 4], tf.float32)
    x = tf.constant([-1.0, 2.0])
    assert tf.math.real(x) is x
    close(tf.math.imag(x), [0.0, 0.0], tf.float32)
    close(tf.math.angle(x), [math.pi, 0.0], tf.float32)
    assert tf.math.imag(tf.constant([1, 2])).numpy().tolist() == [0, 0]
    c = tf.complex(tf.constant([1.0]), tf.constant([2.0]))
    assert c.dtype == tf.complex64 and c.numpy().tolist() == [1 + 2j]
    assert tf.complex(f64(1.0), f64(-3.0)).dtype == tf.complex128
    assert tf.dtypes.complex(1.0, 2.0).numpy() == 1 + 2j
    inf = tf.complex(tf.constant([np.inf]), tf.constant([np.nan])).numpy()[0]
    assert inf.real == np.inf and np.isnan(inf.imag)
    b = tf.complex(tf.constant([[1.0], [2.0]]), tf.constant([3.0, 4.0]))
    assert b.shape == (2, 2)


def test_real_imag_angle_complex_errors():
    with pytest.raises(TypeError, match="input must be a numeric tensor"):
        tf.math.real(tf.constant([True]))
    with pytest.raises(TypeError, match="dtype int32"):
        tf.math.angle(tf.constant([1]))
    with pytest.raises(TypeError, match="The `real` and `imag` components have incorrect types: "
                                        "float32 float64"):
        tf.complex(tf.constant([1.0]), f64(2.0))
    with pytest.raises(TypeError, match="int32 int32"):
        tf.complex(tf.constant([1]), tf.constant([2]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.complex([1.0, 2.0], [2.0, 3.0, 4.0])


def test_atan2_xlogy_xdivy():
    close(tf.math.atan2(tf.constant([1.0, -1.0, 0.0]), tf.constant([0.0, 0.0, -1.0])),
          [math.pi / 2, -math.pi / 2, math.pi], tf.float32)
    close(tf.atan2(f64(1.0), f64(1.0)), [math.pi / 4], tf.float64)
    close(tf.math.xlogy(tf.constant([0.0, 1.0, 2.0, 0.0, 0.0]),
                        tf.constant([0.0, 0.0, 3.0, np.nan, np.inf])),
          [0.0, -np.inf, 2 * math.log(3.0), 0.0, 0.0], tf.float32)
    close(tf.math.xdivy(tf.constant([0.0, 1.0, 2.0, 0.0]), tf.constant([0.0, 0.0, 3.0, np.nan])),
          [0.0, np.inf, 2 / 3, 0.0], tf.float32)
    y = tf.math.xlogy(tf.constant([[2.0], [0.0]]), tf.constant([1.0, 4.0]))
    assert y.shape == (2, 2)
    close(y, [[0.0, 2 * math.log(4.0)], [0.0, 0.0]])
    close(tf.math.xlogy(tf.constant([0j, 1 + 1j]), tf.constant([0j, 1j])),
          [0j, (1 + 1j) * np.log(1j)])


# --- dtype and argument errors -----------------------------------------------------

@pytest.mark.parametrize("fn,op", [(tf.sin, "Sin"), (tf.math.log, "Log"), (tf.exp, "Exp"),
                                   (tf.sigmoid, "Sigmoid"), (tf.sqrt, "Sqrt"),
                                   (tf.math.is_nan, "IsNan"), (tf.floor, "Floor"),
                                   (tf.math.erf, "Erf"), (tf.math.softplus, "Softplus")])
def test_int_inputs_are_rejected_like_tensorflow(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Value for attr 'T' of int32 is not in the list of allowed "
                             rf"values(.|\n)*\[Op:{op}\]"):
        fn(tf.constant([1, 2]))


def test_other_disallowed_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint8"):
        tf.abs(tf.constant([1], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint8"):
        tf.sign(tf.constant([1], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128"):
        tf.floor(tf.constant([1j]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Op:Atan2"):
        tf.math.atan2(tf.constant([1]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Op:Xlogy"):
        tf.math.xlogy(tf.constant([1]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="string"):
        tf.math.log(tf.constant("a"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor"):
        tf.math.atan2(tf.constant([1.0]), f64(1.0))


def test_dtypes_without_cpu_kernels_raise_not_found():
    with pytest.raises(tf.errors.NotFoundError, match=r"Reciprocal\[T=DT_INT32\]"):
        tf.math.reciprocal(tf.constant([2, 0]))
    with pytest.raises(tf.errors.NotFoundError, match=r"Round\[T=DT_COMPLEX128\]"):
        tf.round(tf.constant([1.5 + 2.5j]))
    with pytest.raises(tf.errors.NotFoundError, match=r"Rint\[T=DT_HALF\]"):
        tf.math.rint(tf.constant([1.5], tf.float16))
    with pytest.raises(tf.errors.NotFoundError, match=r"Rint\[T=DT_BFLOAT16\]"):
        tf.math.rint(tf.constant([1.5], tf.bfloat16))


def test_dtypes_without_cpu_kernels_in_a_graph_raise_invalid_argument():
    # TensorFlow finds the missing kernel when it places the graph's node:
    # InvalidArgumentError, naming the op, the node and its attrs.
    f = tf.function(lambda x: tf.math.rint(x) + 1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^No OpKernel was registered to support Op 'Rint' used by "
                             r"\{\{node Rint\}\} with these attrs: \[T=DT_HALF\]"):
        f(tf.constant([1.5], tf.float16))
    g = tf.function(lambda x: tf.math.reciprocal(x))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Op 'Reciprocal'.*DT_INT32"):
        g(tf.constant([2, 3]))
    assert f(tf.constant([1.5, 2.5])).numpy().tolist() == [3.0, 3.0]


# --- clipping --------------------------------------------------------------------------

def test_clip_by_value_values_and_broadcasting():
    close(tf.clip_by_value(tf.constant([[-1.0, 0.5], [2.0, 7.0]]), 0.0, 1.0),
          [[0.0, 0.5], [1.0, 1.0]], tf.float32)
    close(tf.clip_by_value(tf.constant([1.0, 5.0, 3.0]), tf.constant([0.0, 1.0, 4.0]), 2.0),
          [1.0, 2.0, 4.0])
    y = tf.clip_by_value([1, 5, 3], 2, 3)
    assert y.dtype == tf.int32 and y.numpy().tolist() == [2, 3, 3]
    assert tf.clip_by_value(tf.constant([1, 5], tf.uint32), 2, 3).dtype == tf.uint32
    # An inverted range gives the lower bound, as min-then-max does.
    assert tf.clip_by_value(tf.constant([1, 2, 3]), 2, 1).numpy().tolist() == [2, 2, 2]
    close(tf.clip_by_value(tf.constant([np.nan, 1.0, 5.0]), 0.0, 2.0), [np.nan, 1.0, 2.0])
    close(tf.clip_by_value(tf.constant(5.0), 0.0, 2.0), 2.0, tf.float32)


def test_clip_by_value_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[3\] vs. \[2\]"):
        tf.clip_by_value(tf.constant([1.0, 2.0, 3.0]), tf.constant([0.0, 1.0]), 2.0)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are incompatible"):
        tf.clip_by_value(tf.constant([1.0, 2.0, 3.0]), 0.0, tf.constant([[2.0] * 3, [1.0] * 3]))
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.clip_by_value(tf.constant([1, 2, 3]), 0.5, 1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but "
                                                             "is a double tensor"):
        tf.clip_by_value(tf.constant([1.0]), f64(0.0), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128"):
        tf.clip_by_value(tf.constant([1 + 1j]), 2, 3)


def test_clip_by_norm():
    close(tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0), [0.6, 0.8], tf.float32)
    close(tf.clip_by_norm(tf.constant([0.3, 0.4]), 1.0), [0.3, 0.4])
    close(tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.0, 0.0]]), 1.0, axes=[1]),
          [[0.6, 0.8], [0.0, 0.0]])
    close(tf.clip_by_norm(tf.constant([3.0, 4.0]), tf.constant([1.0, 2.0])), [0.6, 1.6])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Op:Sqrt"):
        tf.clip_by_norm(tf.constant([3, 4]), 1)


def test_clip_by_global_norm():
    clipped, norm = tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None, tf.constant(12.0)], 1.0)
    close(norm, 13.0, tf.float32)
    assert clipped[1] is None
    close(clipped[0], [3 / 13, 4 / 13], rtol=1e-6)
    close(clipped[2], 12 / 13, rtol=1e-6)
    clipped, norm = tf.clip_by_global_norm((f64(3.0, 4.0),), 10.0)
    assert isinstance(clipped, list) and norm.dtype == tf.float64
    close(clipped[0], [3.0, 4.0])
    clipped, norm = tf.clip_by_global_norm([tf.constant([np.inf, 4.0])], 1.0)
    assert np.isnan(clipped[0].numpy()).all() and norm.numpy() == np.inf
    clipped, norm = tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0,
                                           use_norm=tf.constant(10.0))
    close(clipped[0], [0.3, 0.4])
    close(norm, 10.0)
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant([3.0, 4.0]), 1.0)


# --- graph construction --------------------------------------------------------------

def test_graph_shapes_dtypes_and_op_types():
    g = tf.Graph()
    with g.as_default():
        x = placeholder(tf.float32, tf.TensorShape([None, 3]))
        u = placeholder(tf.float64, tf.TensorShape(None))
        z = tf.complex(x, x)
        cases = [
            (tf.sin(x), (None, 3), tf.float32, "Sin"),
            (tf.abs(z), (None, 3), tf.float32, "ComplexAbs"),
            (tf.abs(x), (None, 3), tf.float32, "Abs"),
            (tf.math.real(z), (None, 3), tf.float32, "Real"),
            (tf.math.imag(z), (None, 3), tf.float32, "Imag"),
            (tf.math.angle(z), (None, 3), tf.float32, "Angle"),
            (z, (None, 3), tf.complex64, "Complex"),
            (tf.math.is_nan(x), (None, 3), tf.bool, "IsNan"),
            (tf.math.is_finite(u), None, tf.bool, "IsFinite"),
            (tf.math.is_inf(x), (None, 3), tf.bool, "IsInf"),
            (tf.sigmoid(u), None, tf.float64, "Sigmoid"),
            (tf.nn.tanh(x), (None, 3), tf.float32, "Tanh"),
            (tf.math.softplus(x), (None, 3), tf.float32, "Softplus"),
            (tf.nn.softsign(x), (None, 3), tf.float32, "Softsign"),
            (tf.round(x), (None, 3), tf.float32, "Round"),
            (tf.math.rint(x), (None, 3), tf.float32, "Rint"),
            (tf.math.reciprocal(x), (None, 3), tf.float32, "Reciprocal"),
            (tf.math.rsqrt(x), (None, 3), tf.float32, "Rsqrt"),
            (tf.math.erfc(x), (None, 3), tf.float32, "Erfc"),
            (tf.math.lgamma(x), (None, 3), tf.float32, "Lgamma"),
            (tf.math.digamma(x), (None, 3), tf.float32, "Digamma"),
            (tf.math.atan2(x, placeholder(tf.float32, tf.TensorShape([2, 1, None]))),
             (2, None, 3), tf.float32, "Atan2"),
            (tf.math.xlogy(x, tf.zeros([4, 1])), (4, 3), tf.float32, "Xlogy"),
            (tf.math.xdivy(x, x), (None, 3), tf.float32, "Xdivy"),
            (tf.math.polygamma(1.0, x), (None, 3), tf.float32, "Polygamma"),
            (tf.math.zeta(x, 2.0), (None, 3), tf.float32, "Zeta"),
            (tf.clip_by_value(x, 0.0, 1.0), (None, 3), tf.float32, "ClipByValue"),
            (tf.clip_by_value(x, 0.0, tf.ones([2, 3])), (2, 3), tf.float32, "ClipByValue"),
            (tf.complex(u, u), None, tf.complex128, "Complex"),
        ]
        for t, shape, dtype, op_type in cases:
            assert t.dtype == dtype, op_type
            if shape is None:
                assert t.shape.rank is None, op_type
            else:
                assert t.shape.as_list() == list(shape), op_type
            assert t.op.type == op_type
        assert tf.clip_by_norm(x, 1.0).shape.as_list() == [None, 3]
        (c,), norm = tf.clip_by_global_norm([x], 1.0)
        assert c.shape.as_list() == [None, 3] and norm.shape == ()
        assert tf.math.log_sigmoid(x).shape.as_list() == [None, 3]
        assert tf.round(placeholder(tf.int32, tf.TensorShape([2]))).op.type == "Placeholder"
    types = {n.op for n in g.as_graph_def().node}
    assert {"Sin", "ComplexAbs", "Softplus", "Neg", "ClipByValue", "Sqrt"} <= types


def test_graph_construction_errors():
    g = tf.Graph()
    with g.as_default():
        i = placeholder(tf.int32, tf.TensorShape(None))
        x = placeholder(tf.float32, tf.TensorShape([3]))
        with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType int32 not "
                                            "in list of allowed values"):
            tf.sin(i)
        with pytest.raises(TypeError, match="parameter 'features' has DataType int32"):
            tf.nn.softplus(i)
        with pytest.raises(TypeError, match="parameter 'input' has DataType float32"):
            from rillflow.ops.core.special_math_ops import _Real
            from rillflow.framework.execute import apply1
            apply1(_Real, x)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.clip_by_value(x, 0.0, placeholder(tf.float32, tf.TensorShape([2])))
        with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are incompatible"):
            tf.clip_by_value(x, 0.0, tf.ones([2, 3]))
        with pytest.raises(TypeError, match="Input 'clip_value_max' of 'ClipByValue' Op has type "
                                            "float64 that does not match type float32"):
            tf.clip_by_value(x, 0.0, tf.ones([3], tf.float64))
        with pytest.raises(TypeError, match="Input 'x' of 'Atan2' Op has type float64"):
            tf.math.atan2(x, tf.ones([3], tf.float64))
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tf.math.xlogy(x, tf.ones([2]))


def test_public_names():
    assert tf.math.tanh is tf.tanh is tf.nn.tanh
    assert tf.math.sigmoid is tf.sigmoid is tf.nn.sigmoid
    assert tf.math.softplus is tf.nn.softplus and tf.math.softsign is tf.nn.softsign
    assert tf.math.abs is tf.abs and tf.math.round is tf.round and tf.complex is tf.dtypes.complex
    for name in ("expm1", "log", "log1p", "rsqrt", "reciprocal", "ceil", "rint", "is_nan",
                 "is_finite", "is_inf", "erf", "erfc", "lgamma", "digamma", "real", "imag",
                 "angle", "log_sigmoid", "xlogy", "xdivy", "atan2", "polygamma", "zeta"):
        assert callable(getattr(tf.math, name)), name
    for name in ("clip_by_value", "clip_by_norm", "clip_by_global_norm", "exp", "sin", "acosh",
                 "square", "sqrt", "floor", "sign", "atan2"):
        assert callable(getattr(tf, name)), name


# --- gradients ---------------------------------------------------------------------------

GRAD_CASES = [
    (tf.abs, [-1.3, 0.7, 2.1]),
    (tf.sign, [-1.3, 0.7]),
    (tf.exp, [-1.0, 0.5, 2.0]),
    (tf.math.expm1, [-1.0, 0.5, 2.0]),
    (tf.math.log, [0.3, 1.0, 4.0]),
    (tf.math.log1p, [-0.5, 0.0, 4.0]),
    (tf.sin, [-1.0, 0.5, 2.0]),
    (tf.cos, [-1.0, 0.5, 2.0]),
    (tf.tan, [-1.0, 0.5, 1.2]),
    (tf.asin, [-0.7, 0.0, 0.5]),
    (tf.acos, [-0.7, 0.0, 0.5]),
    (tf.atan, [-3.0, 0.0, 0.5]),
    (tf.sinh, [-2.0, 0.0, 1.5]),
    (tf.cosh, [-2.0, 0.3, 1.5]),
    (tf.tanh, [-2.0, 0.0, 1.5]),
    (tf.asinh, [-2.0, 0.0, 1.5]),
    (tf.acosh, [1.2, 2.0, 5.0]),
    (tf.atanh, [-0.7, 0.0, 0.5]),
    (tf.sigmoid, [-5.0, 0.0, 3.0]),
    (tf.sqrt, [0.2, 1.0, 9.0]),
    (tf.math.rsqrt, [0.2, 1.0, 9.0]),
    (tf.square, [-2.0, 0.0, 1.5]),
    (tf.math.reciprocal, [-2.0, 0.4, 1.5]),
    (tf.round, [-1.3, 0.2, 2.7]),
    (tf.floor, [-1.3, 0.2, 2.7]),
    (tf.math.ceil, [-1.3, 0.2, 2.7]),
    (tf.math.rint, [-1.3, 0.2, 2.7]),
    (tf.math.erf, [-1.5, 0.0, 0.7]),
    (tf.math.erfc, [-1.5, 0.0, 0.7]),
    (tf.math.lgamma, [-2.5, 0.3, 4.0]),
    (tf.math.digamma, [-2.5, 0.3, 4.0]),
    (tf.math.softplus, [-30.0, 0.0, 3.0]),
    (tf.math.softsign, [-3.0, 0.0, 1.5]),
    (tf.math.log_sigmoid, [-30.0, 0.0, 3.0]),
    (tf.math.real, [-1.0, 2.0]),
    (tf.math.imag, [-1.0, 2.0]),
    (lambda x: tf.clip_by_value(x, -1.0, 1.0), [-1.5, 0.3, 2.0]),
    (lambda x: tf.clip_by_norm(x, 1.0), [3.0, -4.0, 1.0]),
    (lambda x: tf.clip_by_norm(x, 10.0), [3.0, -4.0, 1.0]),
    (lambda x: tf.clip_by_norm(x, 1.0, axes=[1]), [[3.0, -4.0], [0.1, 0.2]]),
    (lambda x: tf.clip_by_global_norm([x, 2 * x], 1.0)[0][1], [3.0, -4.0, 1.0]),
    # The order argument is not differentiable (TensorFlow gives None too).
    (lambda q: tf.math.zeta(f64(2.0, 3.5), q), [[0.5, 1.5], [4.0, 2.2]]),
    (lambda x: tf.math.polygamma(f64(1.0, 2.0), x), [[0.5, 1.5], [4.0, 2.2]]),
]


@pytest.mark.parametrize("fn,values", GRAD_CASES)
def test_unary_gradients_match_finite_differences(fn, values):
    assert_gradients_match(fn, [np.array(values, dtype=F64)], rtol=1e-5, atol=1e-6)


BINARY_GRAD_CASES = [
    (tf.math.atan2, [[0.5, -1.0], [2.0, 0.3]], [1.5, -0.7]),
    (tf.math.xlogy, [[0.5, -1.0], [2.0, 0.3]], [1.5, 0.7]),
    (tf.math.xdivy, [[0.5, -1.0], [2.0, 0.3]], [1.5, 0.7]),
    (lambda a, b: tf.clip_by_value(a, b, 1.0), [-1.5, 0.3, 2.0], [-1.0, 0.5, 0.0]),
    (lambda a, b: tf.clip_by_value(a, -1.0, b), [[-1.5, 0.3, 2.0], [0.5, 0.7, 0.0]],
     [1.0, 0.1, 0.4]),
    (lambda a, b: tf.math.real(tf.complex(a, b) * tf.complex(b, a)), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.math.imag(tf.complex(a, b) * tf.complex(b, b)), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.abs(tf.complex(a, b)), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.math.angle(tf.complex(a, b)), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.math.real(tf.exp(tf.complex(a, b))), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.abs(tf.sqrt(tf.complex(a, b))), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.math.imag(tf.sigmoid(tf.complex(a, b))), [1.0, -2.0], [0.5, 3.0]),
    (lambda a, b: tf.math.real(tf.math.log(tf.complex(a, b))), [1.0, -2.0], [0.5, 3.0]),
]


@pytest.mark.parametrize("fn,a,b", BINARY_GRAD_CASES)
def test_binary_gradients_match_finite_differences(fn, a, b):
    assert_gradients_match(fn, [np.array(a, dtype=F64), np.array(b, dtype=F64)],
                           rtol=1e-5, atol=1e-6)


def test_gradients_are_stable_where_tensorflows_are():
    x = tf.constant([-100.0, -20.0, 0.0, 20.0, 100.0])
    (g,) = grads(tf.sigmoid, x)
    np.testing.assert_allclose(g, [0.0, 2.0611537e-09, 0.25, 0.0, 0.0], rtol=1e-5)
    (g,) = grads(tf.tanh, x)
    np.testing.assert_allclose(g, [0.0, 0.0, 1.0, 0.0, 0.0])
    (g,) = grads(tf.math.softplus, x)
    np.testing.assert_allclose(g, [0.0, 2.0611537e-09, 0.5, 1.0, 1.0], rtol=1e-5)
    (g,) = grads(tf.math.log_sigmoid, x)
    np.testing.assert_allclose(g, [1.0, 1.0, 0.5, 2.0611537e-09, 0.0], rtol=1e-5)
    assert grads(tf.sqrt, tf.constant([0.0, 4.0]))[0].tolist() == [np.inf, 0.25]
    assert grads(tf.math.rsqrt, tf.constant([0.0, 4.0]))[0].tolist() == [-np.inf, -0.0625]
    assert grads(tf.abs, tf.constant([-1.0, 0.0, 2.0]))[0].tolist() == [-1.0, 0.0, 1.0]
    assert grads(tf.round, tf.constant([1.0])) == [None]
    assert grads(tf.sign, tf.constant([1.0, 0.0]))[0].tolist() == [0.0, 0.0]


def test_gradients_at_special_points_match_tensorflow():
    gx, gy = grads(tf.math.xlogy, tf.constant([0.0, 0.0, 1.0]), tf.constant([0.0, 1.0, 0.0]))
    assert gx.tolist() == [0.0, 0.0, -np.inf] and gy.tolist() == [0.0, 0.0, np.inf]
    gx, gy = grads(tf.math.xdivy, tf.constant([0.0, 0.0, 1.0]), tf.constant([0.0, 1.0, 0.0]))
    assert gx.tolist() == [0.0, 0.0, np.inf] and gy.tolist() == [0.0, 0.0, -np.inf]
    # Ties go to `t`; each bound gets the gradient where it clipped.
    gt, glo, ghi = grads(lambda t, lo, hi: tf.clip_by_value(t, lo, hi),
                         tf.constant([0.0, 1.0, 2.0, 3.0]), tf.constant([1.0] * 4),
                         tf.constant(2.0))
    assert gt.tolist() == [0.0, 1.0, 1.0, 0.0] and glo.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert float(ghi) == 1.0
    assert grads(lambda t, lo, hi: tf.clip_by_value(t, lo, hi), tf.constant([1.5]),
                 tf.constant([2.0]), tf.constant([1.0])) == [[0.0], [1.0], [0.0]]
    (g,) = grads(lambda z: tf.abs(z), tf.constant([0j, 3 + 4j]))
    np.testing.assert_allclose(g, [0j, 0.6 + 0.8j])
    (g,) = grads(lambda z: tf.math.angle(z), tf.constant([1 + 1j, 3 + 4j]))
    np.testing.assert_allclose(g, [-0.5 + 0.5j, -0.16 + 0.12j])
    assert grads(tf.math.real, tf.constant([1 + 1j]))[0].tolist() == [1 + 0j]
    assert grads(tf.math.imag, tf.constant([1 + 1j]))[0].tolist() == [1j]
    ga, gb = grads(tf.complex, tf.constant([1.0, 2.0]), tf.constant(3.0))
    assert ga.tolist() == [1.0, 1.0] and float(gb) == 0.0
    (g,) = grads(lambda t: tf.clip_by_norm(t, 1.0), tf.constant([0.0, 0.0]))
    assert g.tolist() == [1.0, 1.0]
    (g,) = grads(tf.math.digamma, tf.constant(np.array([1.0, 0.5, -1.5])))
    np.testing.assert_allclose(g, [math.pi ** 2 / 6, math.pi ** 2 / 2, 9.379246644989120],
                               rtol=1e-12)
    ga, gx = grads(tf.math.polygamma, tf.constant(np.array([1.0, 2.0])),
                   tf.constant(np.array([1.0, 0.5])))
    assert ga is None
    np.testing.assert_allclose(gx, [-2.4041138063191885, 97.40909103400242], rtol=1e-12)


def test_gradients_in_graph_mode_build_with_public_ops():
    g = tf.Graph()
    with g.as_default():
        x = placeholder(tf.float32, tf.TensorShape([None, 3]))
        for fn in (tf.sigmoid, tf.tanh, tf.math.softplus, tf.math.lgamma, tf.sqrt, tf.abs,
                   lambda v: tf.clip_by_value(v, 0.0, 1.0), lambda v: tf.math.xlogy(v, v)):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            dx = tape.gradient(y, x)
            assert dx.shape.as_list() == [None, 3] and dx.dtype == tf.float32


# --- float32 tanh against TensorFlow's CPU kernel ------------------------------------
# TensorFlow 2.21 computes float32 and float64 tanh with clamped rational
# approximations, so its results are not NumPy's correctly rounded ones; rillflow
# reproduces them. The bit patterns below were recorded from the reference
# (tf.tanh on CPU).

def _tanh_bits(x_bits, shape=None):
    x = np.array(x_bits, dtype=np.uint32).view(np.float32)
    if shape is not None:
        x = x.reshape(shape)
    return tf.tanh(tf.constant(x)).numpy().view(np.uint32)


TANH_F32_EDGES = [  # (input bits, TensorFlow's output bits)
    (0x00000000, 0x00000000), (0x80000000, 0x80000000),  # +-0.0 keep their sign
    (0x41400000, 0x3f800000), (0xc1400000, 0xbf800000),  # +-12 -> exactly +-1
    (0x7f7fffff, 0x3f800000), (0xff7fffff, 0xbf800000),
    (0x7f800000, 0x3f800000), (0xff800000, 0xbf800000),  # +-inf
    (0x00800000, 0x00800000), (0x80800000, 0x80800000),  # smallest normals pass
    (0x3f000000, 0x3eec9a9e), (0xbf000000, 0xbeec9a9e),  # NumPy: 0x3eec9aa0
    (0x40fd0956, 0x3f800000), (0xc0fd0956, 0xbf800000),  # exactly +-1 from 7.9073896
    (0x40fd0955, 0x3f7ffffb), (0x7fc00000, 0x7fc00000),  # just below; NaN stays NaN
]
# TensorFlow also flushes subnormal inputs to zero; rillflow, like NumPy, keeps them.


@pytest.mark.parametrize("shape", [None, (2, 8), (32,)])
def test_tanh_float32_edge_values(shape):
    xb, yb = zip(*TANH_F32_EDGES)
    if shape == (32,):
        xb, yb = xb * 2, yb * 2
    got = _tanh_bits(xb, shape)
    np.testing.assert_array_equal(got.ravel(), np.array(yb, dtype=np.uint32))


def test_tanh_float32_edge_values_as_scalars():
    for xb, yb in TANH_F32_EDGES:
        got = tf.tanh(tf.constant(np.uint32(xb).view(np.float32)))
        assert got.dtype == tf.float32 and got.shape == ()
        assert int(got.numpy().view(np.uint32)) == yb, hex(xb)


TANH_F32_REFERENCE = [  # (input bits, TensorFlow's output bits)
    (0x3f000000, 0x3eec9a9e), (0x3e800000, 0x3e7acbf5), (0x3f400000, 0x3f22991f), (0x3f800000, 0x3f42f7d6),
    (0x3e000000, 0x3dfeaccb), (0x3eec9a9e, 0x3edd15f5), (0x40000000, 0x3f76ca83), (0x40400000, 0x3f7ebbe8),
    (0x40a00000, 0x3f7ffa0c), (0x40e00000, 0x3f7fffe4), (0xbe951893, 0xbe910511), (0x40641617, 0x3f7f96e4),
    (0x3cff92d7, 0x3cff7d9f), (0x3a470b4e, 0x3a470b4c), (0x3d49b3af, 0x3d4989fc), (0x3787dfd5, 0x3787dfd5),
    (0xb9a0e30c, 0xb9a0e30c), (0xbbed9e40, 0xbbed9d30), (0xba1cc883, 0xba1cc882), (0xbe39650d, 0xbe37652f),
    (0xc04321c5, 0xbf7eda0f), (0x40116ad4, 0x3f7a9daa), (0x3804f532, 0x3804f532), (0x39ce1ae9, 0x39ce1ae7),
    (0x40ac1828, 0x3f7ffd35), (0xb9b3680b, 0xb9b3680b), (0xbf06b696, 0xbef708cf), (0x3f02ac96, 0x3ef0ca31),
    (0x3d7c5823, 0x3d7c0688), (0xbdb261a7, 0xbdb1ee86), (0x397fbd8b, 0x397fbd8b), (0x3761e5d2, 0x3761e5d2),
    (0xb873d090, 0xb873d090), (0x385ed488, 0x385ed488), (0xbb9c216f, 0xbb9c2121), (0x3bd61e48, 0x3bd61d81),
    (0x3dafa1f3, 0x3daf340c), (0x3f071799, 0x3ef79d90), (0x3b466d5b, 0x3b466d33), (0xb84673d9, 0xb84673d9),
    (0x39a9fcc8, 0x39a9fcc8), (0xbbfe1954, 0xbbfe1806), (0xb8058b5a, 0xb8058b5a), (0x3e2cc87d, 0x3e2b296f),
    (0x3a6ac9dc, 0x3a6ac9d8), (0x3d228d78, 0x3d2277a3), (0xbd0a234b, 0xbd0a15e5), (0x3f3d1deb, 0x3f20dda4),
    (0x3fd7d2fc, 0x3f6f03d2), (0x3f844a4c, 0x3f467b0f), (0x3c54dce5, 0x3c54d9d4), (0xbbaa846a, 0xbbaa8406),
    (0x376a8704, 0x376a8704), (0xc051228e, 0xbf7f4216), (0xba7ca8c4, 0xba7ca8be), (0x387dda73, 0x387dda73),
    (0x391787da, 0x391787da), (0xbab0edcf, 0xbab0edc8), (0xb9797127, 0xb9797127), (0xb8a5ec31, 0xb8a5ec31),
    (0x3b573630, 0x3b5735fd), (0x3ef176e6, 0x3ee10612), (0x3e4ec0ac, 0x3e4bfcf9), (0xb767da82, 0xb767da82),
    (0x39a46715, 0x39a46715), (0x4026327d, 0x3f7d2c5a), (0xc04ee4b6, 0xbf7f3453), (0xba32fbc3, 0xba32fbc1),
    (0x3ead45af, 0x3ea6f267), (0x379bac77, 0x379bac77), (0x40101ca0, 0x3f7a64e3), (0x38d7c0e3, 0x38d7c0e3),
    (0x3a802d76, 0x3a802d73), (0xbae04804, 0xbae047f7), (0x3c76e45b, 0x3c76df92), (0x3c1baaf8, 0x3c1ba9c4),
    (0x38700164, 0x38700164), (0xb82896a9, 0xb82896a9), (0xb88e1f85, 0xb88e1f85), (0xb7ffaf01, 0xb7ffaf01),
    (0xb95436bf, 0xb95436bf), (0xbe2dcd7b, 0xbe2c2718), (0xbe605b9e, 0xbe5cd5e0), (0xbe6de02f, 0xbe69afee),
    (0x388952ac, 0x388952ac), (0x4014cae3, 0x3f7b2654), (0xba9a4429, 0xba9a4425), (0xb8abbf6a, 0xb8abbf6a),
    (0xb80efd9f, 0xb80efd9f), (0xb8776253, 0xb8776253), (0x3f2c4e2e, 0x3f164543), (0xbd491aca, 0xbd48f176),
    (0xbb4dff2f, 0xbb4dff02), (0x3bb0e63b, 0x3bb0e5ca), (0x3bbec0dd, 0x3bbec050), (0xbc4ae9a8, 0xbc4ae700),
    (0xb79b0abd, 0xb79b0abd), (0xbdafb847, 0xbdaf4a37), (0xbc3d217f, 0xbc3d1f59), (0x37ea736d, 0x37ea736d),
    (0xb7831ffa, 0xb7831ffa), (0x3e6210b8, 0x3e5e767e), (0x3c859786, 0x3c85947e), (0xb868599a, 0xb868599a),
    (0x3ac536b3, 0x3ac536a9), (0x3d70ebbd, 0x3d70a4b6), (0x3a2cf7fb, 0x3a2cf7f9), (0x3c1813e6, 0x3c1812c7),
    (0x3925af85, 0x3925af85), (0xbd647371, 0xbd6436df), (0x3de7961d, 0x3de69ab4), (0xb95728da, 0xb95728da),
    (0x37ce826c, 0x37ce826c), (0x38d978b4, 0x38d978b4), (0x377b73ba, 0x377b73ba), (0xbc67f6ec, 0xbc67f2f4),
    (0xc0b4e005, 0xbf7ffe63), (0xbabd1df2, 0xbabd1de9), (0x3bd78b1f, 0x3bd78a53), (0xbdb37b4a, 0xbdb30605),
    (0x40a483dd, 0x3f7ffb86), (0xb936740f, 0xb936740f), (0x3a38b813, 0x3a38b811), (0xbdc1a5ec, 0xbdc112b5),
    (0x3a58212c, 0x3a582128), (0xbb7db6a6, 0xbb7db652), (0xb8304923, 0xb8304923), (0x40f3f9fa, 0x3f7ffff8),
    (0x3d796e45, 0x3d791f75), (0x3f96b918, 0x3f53a097), (0xbb723c30, 0xbb723be7), (0x39d06762, 0x39d06760),
    (0x3a02d89c, 0x3a02d89b), (0x3e437d5b, 0x3e41261c), (0xbf34884a, 0xbf1b8fac), (0x402dff7e, 0x3f7dc839),
    (0xb76c1092, 0xb76c1092), (0xbc5949fa, 0xbc5946b7), (0xbceb6e3a, 0xbceb5da4), (0xbe688cfe, 0xbe64a235),
    (0xbfa42099, 0xbf5b69b6), (0xbc3853d0, 0xbc3851d3), (0xc016739e, 0xbf7b6480), (0xbbf582c7, 0xbbf5819a),
    (0x400bcf90, 0x3f799905), (0xbea2cf4c, 0xbe9d8911), (0x3948d875, 0x3948d875), (0x39d5f57e, 0x39d5f57c),
    (0x3c23613e, 0x3c235fdb), (0xbc9c55b8, 0xbc9c50dc), (0xc06f2976, 0xbf7fb59f), (0xb7f502f2, 0xb7f502f2),
    (0xbd18ecf1, 0xbd18dac3), (0x3d363180, 0x3d3612c3), (0x3b57b7ac, 0x3b57b77a), (0xbcdbeac2, 0xbcdbdd3e),
    (0x3aed409e, 0x3aed408d), (0x37de4d24, 0x37de4d24), (0x39aaf079, 0x39aaf079), (0x3bdef5fe, 0x3bdef51c),
    (0x3c449592, 0x3c449329), (0xba37c5cb, 0xba37c5c9), (0x3c0a9aef, 0x3c0a9a16), (0xb7f98c5a, 0xb7f98c5a),
    (0xbf554ca7, 0xbf2ea412), (0xba95797c, 0xba957978), (0x3dd4fb66, 0x3dd437b0), (0xbc37c0f5, 0xbc37befc),
    (0x401ed69c, 0x3f7c728c), (0xc0190636, 0xbf7bbedb), (0x3a02e496, 0x3a02e495), (0xba2e235f, 0xba2e235d),
    (0xb91217b2, 0xb91217b2), (0xbc4ffdf6, 0xbc4ffb19), (0xb92cb9f0, 0xb92cb9f0), (0x38808094, 0x38808094),
    (0x3fc60cba, 0x3f69d02e), (0xbaaf6b9d, 0xbaaf6b96), (0x3d094327, 0x3d093601), (0xc0323519, 0xbf7e0df1),
    (0xbbd29436, 0xbbd29377), (0x3aa67b2a, 0x3aa67b24), (0xbd426bc8, 0xbd424670), (0xbc89f225, 0xbc89eecf),
    (0x3e3e4b64, 0x3e3c223e), (0xbff1aeef, 0xbf7488be), (0xb8dc9cd6, 0xb8dc9cd6), (0x3da4d59b, 0x3da47ab8),
    (0x40eb8ab7, 0x3f7ffff3), (0x3d49b5b6, 0x3d498c02), (0x3b18ee0f, 0x3b18edfd), (0x3881026f, 0x3881026f),
    (0xbe8682a7, 0xbe837fb5), (0xbf6bb374, 0xbf39ea53), (0x3e071b82, 0x3e065431), (0x40d31645, 0x3f7fffbf),
    (0x3f7c85b9, 0x3f417e0f), (0x3ba83614, 0x3ba835b4), (0x3916ed2a, 0x3916ed2a), (0xbcabf4c7, 0xbcabee50),
    (0x3dbb5f53, 0x3dbad9f0), (0xb89dadcc, 0xb89dadcc), (0x40075c5e, 0x3f78a7fe), (0xb7fb0be1, 0xb7fb0be1),
    (0x388db907, 0x388db907), (0x3b2f5a67, 0x3b2f5a4c), (0x383de100, 0x383de100), (0xb9dde8a2, 0xb9dde8a0),
    (0xbb463a67, 0xbb463a3f), (0x3a264822, 0x3a264820), (0x40f42478, 0x3f7ffff9), (0x39a7ead2, 0x39a7ead2),
    (0xbee36c20, 0xbed58f05), (0x3fc709fe, 0x3f6a2394), (0xbf1f1291, 0xbf0d5584), (0xb9dab640, 0xb9dab63e),
    (0xbac93ade, 0xbac93ad4), (0x3fceff46, 0x3f6c9926), (0xbf09d11e, 0xbefbc4cb), (0xbb7d5b3a, 0xbb7d5ae6),
    (0x3bdb0817, 0x3bdb0742), (0x3881a4f9, 0x3881a4f9), (0x37b21ab4, 0x37b21ab4), (0xbc740ebd, 0xbc740a1e),
    (0x3a577517, 0x3a577513), (0x3eb61e29, 0x3eaece95), (0x3891b070, 0x3891b070), (0xb7bfa773, 0xb7bfa773),
    (0xbda1b47f, 0xbda15eaf), (0xbb90f517, 0xbb90f4d9), (0x3ad2e817, 0x3ad2e80c), (0xc00eecc0, 0xbf7a2f45),
    (0x37b2a983, 0x37b2a983), (0xb7a5c008, 0xb7a5c008), (0xbf3b1398, 0xbf1f9ffb), (0x3f66a2f4, 0x3f377cc4),
    (0x3ec9c01b, 0x3ebfeb2c), (0x3be905ec, 0x3be904ec), (0x3cf70e6e, 0x3cf6fb43), (0x3b438d9e, 0x3b438d78),
    (0x3d0480c1, 0x3d0474ed), (0x39161025, 0x39161025), (0x3ed8189d, 0x3ecc1e0e), (0x386ebe9d, 0x386ebe9d),
    (0xba714e6d, 0xba714e69), (0xbfb4ac72, 0xbf6347d8), (0xbda8ca0a, 0xbda86878), (0xb7d6dcbe, 0xb7d6dcbe),
    (0xb9516e7f, 0xb9516e7f), (0xbce26bca, 0xbce25d08), (0x3d6b7121, 0x3d6b2ed5), (0x3a832ecf, 0x3a832ecc),
    (0x37bdf77e, 0x37bdf77e), (0x39c111b5, 0x39c111b3), (0xbe72cb42, 0xbe6e581d), (0xbca0c0c8, 0xbca0bb80),
    (0xbfb61103, 0xbf63dd6b), (0xbec6c078, 0xbebd55f2), (0x387f4bdb, 0x387f4bdb), (0xb921bfaf, 0xb921bfaf),
]


def test_tanh_float32_matches_tensorflow_bits():
    xb, yb = zip(*TANH_F32_REFERENCE)
    got = _tanh_bits(xb)
    mismatched = [(hex(a), hex(b), hex(int(c))) for a, b, c in zip(xb, yb, got) if b != c]
    assert not mismatched, mismatched[:10]


TANH_F64_REFERENCE = [  # (input bits, TensorFlow's output bits), float64
    (0x401303b6fce7a024, 0x3feffec857692ab5), (0x402e30311403ff68, 0x3feffffffffffa89),
    (0xc01e5fedf51f8f28, 0xbfeffffeefa8da71), (0xc032ccc774395201, 0xbff0000000000000),
    (0xbff37edc47179900, 0xbfeadabfd71abba6), (0xbfdf606ef023e864, 0xbfdd1545f9667779),
    (0x3f82a131f7a67f00, 0x3f82a1104b0165de), (0x3fefb646d2209ac8, 0x3fe83fcdf8f6b394),
    (0x3fe2baf90ef3b0c2, 0x3fe0d949236068bf), (0xbfed300ddc38a88a, 0xbfe71bd29447641c),
    (0x4031b6d58f246197, 0x3ff0000000000000), (0x4031b6d58f246182, 0x3feffffffffffff8),
    (0x3fe0000000000000, 0x3fdd9353d7568af4), (0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359),
]


def test_tanh_float64_matches_tensorflow_bits():
    xb, yb = zip(*TANH_F64_REFERENCE)
    x = np.array(xb, dtype=np.uint64).view(np.float64)
    # The recorded values are Eigen's packets': padded to whole packets of 4
    # (in a 14-element tensor the last two are the C library's tanh, which
    # TensorFlow 2.21 gives 1 ulp apart for x[12]; test_numerics_f64.py).
    padded = np.concatenate([x, np.zeros(-x.size % 4)])
    got = tf.tanh(tf.constant(padded)).numpy()[:x.size].view(np.uint64)
    np.testing.assert_array_equal(got, np.array(yb, dtype=np.uint64))
    # the kernel's result is not NumPy's correctly rounded tanh for most of these
    assert (np.tanh(x).view(np.uint64) != got).sum() >= 8


def test_tanh_float16_rounds_the_float32_approximation():
    x = np.array([0x3800, 0xb4cd, 0x3ecd, 0x41cd, 0xc680, 0x211f], np.uint16).view(np.float16)
    got = tf.tanh(tf.constant(x))
    assert got.dtype == tf.float16
    np.testing.assert_array_equal(got.numpy().view(np.uint16),
                                  [0x3765, 0xb4a9, 0x3b7c, 0x3bf4, 0xbc00, 0x211f])


def test_tanh_same_bits_in_graphs_and_fused_kernels():
    x = np.random.default_rng(3).uniform(-9, 9, 1 << 17).astype(np.float32)
    eager = tf.tanh(tf.constant(x)).numpy()
    fused = tf.function(lambda v: tf.tanh(v) * 1.0)(tf.constant(x)).numpy()
    np.testing.assert_array_equal(eager.view(np.uint32), fused.view(np.uint32))
    xb, yb = zip(*TANH_F32_REFERENCE[:40])
    traced = tf.function(tf.tanh)(tf.constant(np.array(xb, np.uint32).view(np.float32)))
    np.testing.assert_array_equal(traced.numpy().view(np.uint32), np.array(yb, np.uint32))


def test_tanh_float32_keeps_nans_and_saturates():
    got = tf.tanh(tf.constant([-12.0, 0.5, float("nan"), 12.0], tf.float32)).numpy()
    assert got[0] == -1.0 and got[3] == 1.0 and np.isnan(got[2])
    assert got[1].view(np.uint32) == 0x3eec9a9e


def test_round_bfloat16_half_to_even():
    # TensorFlow 2.21: tf.round on bfloat16 [1.5, 2.5, -0.5, 3.7] -> [2 2 -0 4]
    r = tf.round(tf.constant([1.5, 2.5, -0.5, 3.7], tf.bfloat16))
    assert r.dtype == tf.bfloat16
    assert r.numpy().astype("float32").tolist() == [2.0, 2.0, -0.0, 4.0]
    assert str(r) == "tf.Tensor([2 2 -0 4], shape=(4,), dtype=bfloat16)"


def test_polygamma_and_zeta_far_below_zero_are_tensorflows_without_a_pass_per_unit():
    # TensorFlow 2.21's values (Eigen sums every term up to q + k > 9: 3e6
    # passes at -3e6; rillflow folds the terms below -10 into two
    # Euler-Maclaurin sums).
    a = tf.constant([1.0, 2.0, 3.0, 1.0, 4.0], tf.float64)
    x = tf.constant([-3e6 + 0.5, -3e6 + 0.25, -20.5, -12345.6789, -99.9], tf.float64)
    np.testing.assert_allclose(
        tf.math.polygamma(a, x).numpy(),
        [9.869604067756024, -124.0251067211994, 194.81796635297297, 13.784063339655434,
         -2399973.8347577653], rtol=1e-14)
    np.testing.assert_allclose(
        tf.math.zeta(tf.constant([2.0, 3.0], tf.float64),
                     tf.constant([-1000.3, -57.7], tf.float64)).numpy(),
        [15.078414502249117, 34.418919459181446], rtol=1e-14)
    # Where q + 1 rounds to q the pass-per-unit sum would never end:
    # psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x), about pi^2 at x = k + 1/2.
    far = tf.math.polygamma(tf.constant(1.0, tf.float64), tf.constant(-1e15 + 0.5, tf.float64))
    np.testing.assert_allclose(far.numpy(), np.pi ** 2, rtol=1e-12)

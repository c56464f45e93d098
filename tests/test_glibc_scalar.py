"""rillflow/ops/kernels/glibc_scalar.py: glibc_float's functions one element at
a time in plain Python, for the few elements of a scalar tail or a 0-d tensor,
give glibc_float's bits (which are TensorFlow's) on random bit patterns,
special values, arguments near multiples of pi/2 and around each range test;
no Numba involved."""
import numpy as np
import pytest

from rillflow.ops.kernels import glibc_float, glibc_scalar

_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39,
                     1.17549435e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.5, -0.5, 2.0,
                     -3.0, 0.7853982, 120.0, -128.0, 1e9, 88.72284, -103.97208, 1e-30],
                    np.float32)
_THRESHOLDS = np.array([0.7853982, 0.75, 120.0, 2.0 ** -12, 2.0 ** -13, 88.0, 88.72283,
                        -103.97207, 0.4375, 0.6875, 1.1875, 2.4375, 2.0 ** -29, 2.0 ** 25,
                        2.0 ** -126, 1.0], np.float32)


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    random_bits = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    scaled = rng.standard_normal(n) * rng.choice([1e-6, 1e-3, 1.0, 4.0, 100.0, 3e4, 1e7], n)
    near = (rng.integers(-100_000, 100_000, n) * (np.pi / 2)).astype(np.float32)
    near = (near.view(np.int32) + rng.integers(-3, 4, n).astype(np.int32)).view(np.float32)
    steps = np.arange(-8, 8, dtype=np.int32)
    around = (_THRESHOLDS.view(np.int32)[:, None] + steps).reshape(-1).view(np.float32)
    return np.concatenate([random_bits, scaled.astype(np.float32), near, around, -around,
                           _SPECIAL])


def _bits(a):
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _in_sevens(f, *arrays):
    # As the tails come: at most glibc_scalar.SMALL elements a call.
    return np.concatenate([f(*[a[i:i + 7] for a in arrays]) for i in range(0, arrays[0].size, 7)])


@pytest.mark.parametrize("name", ["sinf", "cosf", "tanf", "expf"])
def test_unary_functions_give_glibc_floats_bits(name):
    x = _inputs(1500, 1)
    np.testing.assert_array_equal(_bits(_in_sevens(getattr(glibc_scalar, name), x)),
                                  _bits(getattr(glibc_float, name)(x)))


@pytest.mark.parametrize("name", ["powf", "atan2f"])
def test_binary_functions_give_glibc_floats_bits(name):
    rng = np.random.default_rng(2)
    a = _inputs(1000, 3)
    b = rng.permutation(a)
    if name == "powf":
        ints = rng.integers(-40, 40, a.size).astype(np.float32)
        with np.errstate(invalid="ignore"):
            b = np.where(rng.random(a.size) < 0.4, ints, b * np.float32(0.01))
        a = np.concatenate([a, np.abs(a)])
        b = np.concatenate([b, rng.permutation(b)])
    grid = np.array(np.meshgrid(_SPECIAL, _SPECIAL)).reshape(2, -1)
    a, b = np.concatenate([a, grid[0]]), np.concatenate([b, grid[1]])
    np.testing.assert_array_equal(_bits(_in_sevens(getattr(glibc_scalar, name), a, b)),
                                  _bits(getattr(glibc_float, name)(a, b)))


def test_shapes_broadcasting_and_larger_arrays():
    x = np.float32(0.7)
    assert glibc_scalar.sinf(x).shape == () and glibc_scalar.sinf(x).dtype == np.float32
    assert _bits(glibc_scalar.sinf(x)) == _bits(glibc_float.sinf(x))
    a = np.linspace(0.5, 3, 6, dtype=np.float32).reshape(2, 3)
    b = np.float32(2.5)
    np.testing.assert_array_equal(_bits(glibc_scalar.powf(a, b)), _bits(glibc_float.powf(a, b)))
    big = np.linspace(-9, 9, 100, dtype=np.float32)     # more than SMALL: glibc_float's code
    np.testing.assert_array_equal(_bits(glibc_scalar.atan2f(big, big[::-1])),
                                  _bits(glibc_float.atan2f(big, big[::-1])))


def test_no_warnings_from_the_scalar_steps():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        glibc_scalar.powf(np.array([0.0, -0.0, 1e30, np.inf], np.float32), np.float32(-3.0))
        glibc_scalar.tanf(np.array([np.inf, np.nan, 1e30, 3.0], np.float32))
        glibc_scalar.expf(np.array([100.0, -200.0, np.nan], np.float32))


def test_nan_plus_nan_keeps_the_first_operands_payload():
    # glibc's `x + y` for NaN arguments (powf; atan2f(y, x)), as x86's addss:
    # x's NaN made quiet, else y's, whatever loop NumPy's add would take.
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
    a, b = np.array(np.meshgrid(nans, nans)).reshape(2, -1)
    a, b = np.tile(a, 3), np.tile(b, 3)
    want = _bits(a) | 0x400000
    np.testing.assert_array_equal(_bits(glibc_float.powf(a, b)), want)
    np.testing.assert_array_equal(_bits(glibc_float.atan2f(b, a)), want)
    np.testing.assert_array_equal(_bits(_in_sevens(glibc_scalar.powf, a, b)), want)
    np.testing.assert_array_equal(_bits(_in_sevens(glibc_scalar.atan2f, b, a)), want)

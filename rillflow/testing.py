"""`tf.test`: a `unittest.TestCase` with TensorFlow's tensor assertions.

Tests written against `tf.test.TestCase` use `self.evaluate(t)` to get
NumPy values and `assertAllClose` / `assertAllEqual` to compare nested
structures of tensors, arrays and Python values. Sessions do not exist
eagerly, so `session()` and `cached_session()` give a small stand-in whose
`run` evaluates. `is_gpu_available()` says whether JAX sees a GPU (compiled
functions run there).

This module sits beside the ops layer and uses only the framework, ops and
eager layers.
"""
import contextlib
import math
import random
import re
import shutil
import tempfile
import unittest
import unittest.mock

import numpy as np

from .framework import dtypes as D
from .framework import errors
from .framework.api_export import export, export_value
from .framework.tensor import EagerTensor, SymbolicTensor, Tensor
from .ops.random.seeding import set_seed

__all__ = ["TestCase", "main", "is_gpu_available", "gpu_device_name"]

_DEFAULT_SEED = 87654321


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _to_value(x):
    """The NumPy value of one tensor-like leaf (other objects unchanged)."""
    if isinstance(x, EagerTensor):
        return x.numpy()
    if isinstance(x, SymbolicTensor):
        v = x._const
        if v is None:
            raise NotImplementedError(
                f"Cannot evaluate the graph tensor {x.name} here: run the graph with "
                "tf.compat.v1.Session, or write the test eagerly.")
        return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v
    if hasattr(x, "_dense_var_to_tensor") and hasattr(x, "numpy"):
        return x.numpy()
    if type(x).__name__ == "RaggedTensor" and hasattr(x, "to_list"):
        return x.to_list()
    return x


def _map(x, fn):
    if isinstance(x, dict):
        return type(x)((k, _map(v, fn)) for k, v in x.items())
    if _is_namedtuple(x):
        return type(x)(*[_map(v, fn) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_map(v, fn) for v in x)
    return fn(x)


def _array(x):
    """`x` (tensor, variable, array or Python value) as a NumPy array."""
    v = _to_value(x)
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, (str, bytes)):
        return np.asarray(v.encode("utf-8") if isinstance(v, str) else v, dtype=object)
    if isinstance(v, (list, tuple)):
        v = _map(v, _to_value)
    arr = np.asarray(v)
    if arr.dtype.kind in "SU":
        flat = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in arr.reshape(-1)]
        out = np.empty(arr.shape, dtype=object)
        out.reshape(-1)[:] = flat if flat else []
        return out
    return arr


def _is_leaf(x):
    return not (isinstance(x, (dict, list, tuple)))


class _EagerSession:
    """What `session()` yields when there is no graph to run: `run` evaluates."""

    def __init__(self, test):
        self._test = test
        self.graph = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """The NumPy values of `fetches` (a tensor or nested structure of tensors)."""
        if feed_dict:
            raise ValueError("feed_dict is not supported when executing eagerly")
        return self._test.evaluate(fetches)

    def close(self):
        """Nothing to release."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@export("test.TestCase")
class TestCase(unittest.TestCase):
    """`tf.test.TestCase`: unittest with tensor-aware assertions.

    Each test starts with Python's, NumPy's and (when available) rillflow's
    random seeds set to TensorFlow's default test seed, so random values
    repeat from run to run.
    """

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's argument name
        super().__init__(methodName)
        self._tempdir = None

    # --- set up ------------------------------------------------------------
    def setUp(self):
        """Seeds the random generators."""
        super().setUp()
        random.seed(_DEFAULT_SEED)
        np.random.seed(_DEFAULT_SEED)
        set_seed(_DEFAULT_SEED)

    def tearDown(self):
        """Removes the temporary directory, if one was made."""
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None
        super().tearDown()

    def get_temp_dir(self):
        """A temporary directory for this test, removed when it ends."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(prefix="rillflow_test_")
        return self._tempdir

    # --- running ---------------------------------------------------------------
    def evaluate(self, tensors):
        """The NumPy values of `tensors` (a tensor, variable or nested structure).

        Scalars come back as NumPy scalars (bytes for strings); non-tensor
        leaves are returned unchanged.
        """
        return _map(tensors, _to_value)

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A context whose value has `run(fetches)` (evaluation; no graph runtime here)."""
        if force_gpu:
            self.skipTest("No GPU is available")
        with _EagerSession(self) as sess:
            sess.graph = graph
            yield sess

    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Same as `session()`."""
        return self.session(graph, config, use_gpu, force_gpu)

    @property
    def test_session(self):
        """Deprecated name of `session()`.

        A property, so that test loaders do not take it for a test method.
        """
        return self.session

    # --- equality and closeness -----------------------------------------------------
    def _check_shapes(self, a, b, msg):
        if a.shape != b.shape:
            self.fail(self._formatMessage(
                msg, f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."))

    def assertAllEqual(self, a, b, msg=None):
        """Asserts that `a` and `b` have the same shape and values (NaNs match NaNs)."""
        a, b = _array(a), _array(b)
        self._check_shapes(a, b, msg)
        if a.dtype.kind == "O" or b.dtype.kind == "O":
            same = np.array([x == y for x, y in zip(a.reshape(-1), b.reshape(-1))],
                            dtype=bool).reshape(a.shape)
        else:
            same = a == b
            if a.dtype.kind in "fc" and b.dtype.kind in "fc":
                same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            bad = np.argwhere(~np.asarray(same))
            lines = [f"\nnot equal where = {tuple(bad.T.tolist())}",
                     f"not equal lhs = {a[~same] if a.ndim else a}",
                     f"not equal rhs = {b[~same] if b.ndim else b}"]
            self.fail(self._formatMessage(msg, f"Arrays are not equal: {a} != {b}" +
                                          "\n".join(lines)))

    def assertNotAllEqual(self, a, b, msg=None):
        """Asserts that `a` and `b` differ in at least one entry (or in shape)."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        self.fail(self._formatMessage(msg, f"Expected unequal values, got {_array(a)}"))

    def _assert_close_arrays(self, a, b, rtol, atol, path, msg):
        a, b = _array(a), _array(b)
        where = f" at {path}" if path else ""
        if a.shape != b.shape:
            self.fail(self._formatMessage(
                msg, f"Shape mismatch{where}: expected {a.shape}, got {b.shape} with contents "
                f"{b}."))
        if a.dtype.kind in "OSUb" or b.dtype.kind in "OSUb":
            self.assertAllEqual(a, b, msg)
            return
        a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        b64 = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
        try:
            np.testing.assert_allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"Mismatched value{where}: a is different "
                                       f"from b. {msg or ''}")
        except AssertionError as e:
            raise self.failureException(str(e)) from None

    def _assert_close(self, a, b, rtol, atol, path, msg):
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                self.fail(self._formatMessage(
                    msg, f"Structure mismatch at {path or 'top level'}: {type(a).__name__} vs "
                    f"{type(b).__name__}"))
            if set(a) != set(b):
                self.fail(self._formatMessage(
                    msg, f"mismatched keys{' at ' + path if path else ''}: a has keys "
                    f"{sorted(map(str, a))}, but b has keys {sorted(map(str, b))}"))
            for k in a:
                self._assert_close(a[k], b[k], rtol, atol, f"{path}[{k!r}]", msg)
            return
        a_seq = isinstance(a, (list, tuple)) and not _numeric_sequence(a)
        b_seq = isinstance(b, (list, tuple)) and not _numeric_sequence(b)
        if a_seq or b_seq:
            if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
                self.fail(self._formatMessage(
                    msg, f"Structure mismatch at {path or 'top level'}: {type(a).__name__} vs "
                    f"{type(b).__name__}"))
            if len(a) != len(b):
                self.fail(self._formatMessage(
                    msg, f"Length of {path or 'top level'} is {len(a)} vs {len(b)}"))
            for i, (x, y) in enumerate(zip(a, b)):
                self._assert_close(x, y, rtol, atol, f"{path}[{i}]", msg)
            return
        self._assert_close_arrays(a, b, rtol, atol, path, msg)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts `|a - b| <= atol + rtol * |b|` entrywise, through nested
        lists, tuples, namedtuples and dicts of tensors, arrays and numbers."""
        self._assert_close(self.evaluate(a), self.evaluate(b), rtol, atol, "", msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        """`assertAllClose` with tolerances loosened for float32 and float16 inputs."""
        av, bv = _array(a), _array(b)
        dtypes = {av.dtype, bv.dtype}
        if np.dtype(np.float32) in dtypes or np.dtype(np.complex64) in dtypes:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in dtypes:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if any(d.name == "bfloat16" for d in dtypes):
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(av, bv, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts that `a` and `b` are not all close."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        self.fail(self._formatMessage(msg, "The two values are close at all elements"))

    def assertNear(self, f1, f2, err, msg=None):
        """Asserts that two floats are within `err` of each other."""
        ok = f1 == f2 or math.fabs(f1 - f2) <= err
        if not ok:
            self.fail(self._formatMessage(msg, f"{f1:f} != {f2:f} +/- {err:f}"))

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        """Asserts that two float lists are entrywise within `err`."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    # --- orderings -----------------------------------------------------------------
    def _compare_all(self, a, target, op, text):
        arr = _array(a)
        if not np.all(op(arr, target)):
            self.fail(f"{arr} is not {text} {target}")

    def assertAllGreater(self, a, comparison_target):
        """Asserts every entry of `a` is greater than `comparison_target`."""
        self._compare_all(a, comparison_target, np.greater, "greater than")

    def assertAllGreaterEqual(self, a, comparison_target):
        """Asserts every entry of `a` is at least `comparison_target`."""
        self._compare_all(a, comparison_target, np.greater_equal, "greater than or equal to")

    def assertAllLess(self, a, comparison_target):
        """Asserts every entry of `a` is less than `comparison_target`."""
        self._compare_all(a, comparison_target, np.less, "less than")

    def assertAllLessEqual(self, a, comparison_target):
        """Asserts every entry of `a` is at most `comparison_target`."""
        self._compare_all(a, comparison_target, np.less_equal, "less than or equal to")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        """Asserts every entry of `target` lies between the bounds (closed unless told)."""
        arr = _array(target)
        if arr.dtype.kind not in "iuf":
            self.fail(f"The value of {arr} does not have an ordered numeric type, instead it "
                      f"has type: {arr.dtype}")
        lo = arr > lower_bound if open_lower_bound else arr >= lower_bound
        hi = arr < upper_bound if open_upper_bound else arr <= upper_bound
        bad = ~(lo & hi)
        if np.any(bad):
            interval = ("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}" + \
                (")" if open_upper_bound else "]")
            self.fail(f"{int(bad.sum())} of the {arr.size} element(s) are outside the range "
                      f"{interval}. Subscript(s) and value(s) of the offending elements:\n" +
                      "\n".join(f"{tuple(i)}: {arr[tuple(i)]}" for i in np.argwhere(bad)))

    def assertAllInSet(self, target, expected_set):
        """Asserts every entry of `target` is in `expected_set`."""
        arr = _array(target)
        diff = set(arr.reshape(-1).tolist()) - set(expected_set)
        if diff:
            self.fail(f"{sorted(diff, key=repr)} unexpected values not in {expected_set}")

    def assertAllTrue(self, a):
        """Asserts every entry of the boolean `a` is True."""
        arr = _array(a)
        self._check_bool(arr)
        if not np.all(arr):
            self.fail(f"Unexpected False value(s) at {np.argwhere(~arr).tolist()}")

    def assertAllFalse(self, a):
        """Asserts every entry of the boolean `a` is False."""
        arr = _array(a)
        self._check_bool(arr)
        if np.any(arr):
            self.fail(f"Unexpected True value(s) at {np.argwhere(arr).tolist()}")

    def _check_bool(self, arr):
        if arr.dtype != np.bool_:
            self.fail(f"Expected a bool array, got dtype {arr.dtype}")

    # --- shapes and dtypes -------------------------------------------------------------
    def assertShapeEqual(self, input_a, input_b, msg=None):
        """Asserts NumPy array `input_a` has the static shape of tensor `input_b`."""
        if not isinstance(input_a, np.ndarray):
            raise TypeError("input_a must be a np.ndarray")
        if not isinstance(input_b, Tensor):
            raise TypeError("input_b must be a Tensor")
        self.assertEqual(list(input_a.shape), input_b.shape.as_list(),
                         msg=msg if msg is not None else
                         f"Shape mismatch: {input_a.shape} vs {input_b.shape}")

    def assertDTypeEqual(self, target, expected_dtype):
        """Asserts `target` (an array, tensor or nested structure) has `expected_dtype`."""
        expected = D.as_dtype(expected_dtype)
        leaves = []
        _map(target, leaves.append)
        for leaf in leaves:
            if isinstance(leaf, Tensor):
                got = leaf.dtype
            else:
                got = D.as_dtype(np.asarray(_to_value(leaf)).dtype)
            self.assertEqual(got, expected)

    # --- exceptions --------------------------------------------------------------------
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """The block must raise `exception_type` whose message matches the regex
        (searched) or for which the predicate returns True."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, errors.OpError) else str(e)
                return re.search(expected_err_re_or_predicate, text) is not None
        try:
            yield
        except exception_type as e:
            if not predicate(e):
                raise AssertionError(
                    f"Exception of type {type(e)}: {e} does not match "
                    f"{expected_err_re_or_predicate!r}") from e
        else:
            self.fail(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """The block must raise an OpError matching the regex or predicate."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=errors.InvalidArgumentError):
        """The block must raise `exception_type` about incompatible shapes."""
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|"
                            r"required broadcastable shapes")

    # --- strings -------------------------------------------------------------------------
    def assertStartsWith(self, actual, expected_start, msg=None):
        """Asserts `actual` starts with `expected_start`."""
        if not actual.startswith(expected_start):
            self.fail(self._formatMessage(msg, f"{actual!r} does not start with "
                                               f"{expected_start!r}"))

    def assertEndsWith(self, actual, expected_end, msg=None):
        """Asserts `actual` ends with `expected_end`."""
        if not actual.endswith(expected_end):
            self.fail(self._formatMessage(msg, f"{actual!r} does not end with "
                                               f"{expected_end!r}"))

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):
        """Not supported: rillflow has no protocol buffers."""
        raise NotImplementedError("assertProtoEquals needs protocol buffers")


def _numeric_sequence(x):
    """Whether a list/tuple holds only numbers and numeric nests (an array literal)."""
    if _is_namedtuple(x):
        return False
    for v in x:
        if isinstance(v, (list, tuple)):
            if not _numeric_sequence(v):
                return False
        elif isinstance(v, (dict, Tensor)) or not isinstance(
                v, (int, float, complex, bool, np.generic)):
            return False
    return True


@export("test.main")
def main(argv=None):
    """Runs the tests of the calling module (`unittest.main`)."""
    return unittest.main(argv=argv)


@export("test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether JAX sees a GPU (where compiled functions can run; rillflow's
    eager ops run on the CPU). `min_cuda_compute_capability` (major, minor)
    also asks the first GPU for that capability."""
    from .framework import lowering
    gpus = lowering.gpu_devices()
    if not gpus:
        return False
    version = str(getattr(getattr(gpus[0], "client", None), "platform_version", ""))
    if cuda_only and "rocm" in version.lower():
        return False
    if min_cuda_compute_capability is not None:
        have = getattr(gpus[0], "compute_capability", None)
        if have is None:
            return False
        have = tuple(int(p) for p in str(have).split(".")[:2])
        return have >= tuple(min_cuda_compute_capability)
    return True


@export("test.gpu_device_name")
def gpu_device_name():
    """The first GPU's device name (`/device:GPU:0`), or '' with none."""
    from .framework import lowering
    return "/device:GPU:0" if lowering.gpu_devices() else ""


@export("test.is_built_with_cuda")
def is_built_with_cuda():
    """False: rillflow has no CUDA support."""
    return False


@export("test.is_built_with_rocm")
def is_built_with_rocm():
    """False: rillflow has no ROCm support."""
    return False


@export("test.is_built_with_gpu_support")
def is_built_with_gpu_support():
    """False: rillflow has no GPU support."""
    return False


@export("test.is_built_with_xla")
def is_built_with_xla():
    """False: rillflow does not use XLA."""
    return False


export_value(unittest.mock, "test.mock")

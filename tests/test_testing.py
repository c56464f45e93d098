"""tf.test.TestCase and the tf.test helpers."""
import collections
import os
import unittest

import numpy as np
import pytest

import rillflow as tf
from rillflow import testing
from rillflow.framework.api_export import EXPORTS


class _Case(testing.TestCase):
    def runTest(self):  # noqa: N802 - unittest's name
        pass


@pytest.fixture
def case():
    c = _Case()
    c.setUp()
    yield c
    c.tearDown()


def test_exports():
    assert EXPORTS["test.TestCase"] is testing.TestCase
    assert EXPORTS["test.main"] is testing.main
    assert EXPORTS["test.is_gpu_available"]() is False
    assert EXPORTS["test.gpu_device_name"]() == ""
    assert EXPORTS["test.is_built_with_cuda"]() is False
    assert issubclass(testing.TestCase, unittest.TestCase)


def test_evaluate_nested(case):
    Pair = collections.namedtuple("Pair", "a b")
    out = case.evaluate({"x": tf.constant([1, 2]), "y": [tf.constant(1.5), 3],
                         "p": Pair(tf.constant("s"), None)})
    assert isinstance(out["x"], np.ndarray) and out["x"].tolist() == [1, 2]
    assert out["y"][0] == np.float32(1.5) and out["y"][1] == 3
    assert out["p"] == Pair(b"s", None)
    assert case.evaluate(tf.Variable([1.0, 2.0])).tolist() == [1.0, 2.0]


def test_assert_all_equal(case):
    case.assertAllEqual(tf.constant([1, 2]), [1, 2])
    case.assertAllEqual(tf.constant(["a", "b"]), [b"a", b"b"])
    case.assertAllEqual(np.array([np.nan, 1.0]), tf.constant([np.nan, 1.0]))
    with pytest.raises(AssertionError, match="not equal"):
        case.assertAllEqual(tf.constant([1, 2]), [1, 3])
    with pytest.raises(AssertionError, match="Shape mismatch"):
        case.assertAllEqual(tf.constant([1, 2]), [[1, 2]])
    case.assertNotAllEqual(tf.constant([1, 2]), [1, 3])
    with pytest.raises(AssertionError):
        case.assertNotAllEqual([1, 2], [1, 2])


def test_assert_all_close(case):
    case.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.0000001])
    case.assertAllClose({"a": tf.constant(1.0), "b": [tf.constant([2.0]), 3.0]},
                        {"a": 1.0, "b": [np.array([2.0]), 3.0]})
    case.assertAllClose([1.0, 2.0], [1.1, 2.1], atol=0.2)
    case.assertAllClose(np.array([np.nan]), np.array([np.nan]))
    with pytest.raises(AssertionError, match="Mismatched value"):
        case.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.1])
    with pytest.raises(AssertionError, match="mismatched keys"):
        case.assertAllClose({"a": 1.0}, {"b": 1.0})
    with pytest.raises(AssertionError, match="Shape mismatch"):
        case.assertAllClose(tf.constant([1.0, 2.0]), [1.0])
    with pytest.raises(AssertionError, match="Length"):
        case.assertAllClose([np.array([1.0])], [np.array([1.0]), np.array([2.0])])
    with pytest.raises(AssertionError, match="custom"):
        case.assertAllClose(1.0, 2.0, msg="custom")
    case.assertNotAllClose(tf.constant([1.0]), [2.0])
    with pytest.raises(AssertionError):
        case.assertNotAllClose([1.0], [1.0])


def test_assert_all_close_according_to_type(case):
    case.assertAllCloseAccordingToType(tf.constant([1.0], tf.float16), np.array([1.0005]),
                                       half_rtol=1e-3)
    with pytest.raises(AssertionError):
        case.assertAllCloseAccordingToType(np.array([1.0]), np.array([1.0005]))


def test_orderings_and_bools(case):
    case.assertAllGreater(tf.constant([2, 3]), 1)
    case.assertAllGreaterEqual(tf.constant([1, 3]), 1)
    case.assertAllLess(tf.constant([2, 3]), 4)
    case.assertAllLessEqual(tf.constant([2, 4]), 4)
    with pytest.raises(AssertionError):
        case.assertAllGreater(tf.constant([1, 3]), 1)
    case.assertAllInRange(tf.constant([0.0, 1.0]), 0.0, 1.0)
    with pytest.raises(AssertionError, match="outside the range"):
        case.assertAllInRange(tf.constant([0.0, 1.0]), 0.0, 1.0, open_upper_bound=True)
    case.assertAllInSet(tf.constant([1, 2, 1]), {1, 2})
    with pytest.raises(AssertionError):
        case.assertAllInSet(tf.constant([1, 5]), {1, 2})
    case.assertAllTrue(tf.constant([True, True]))
    case.assertAllFalse(tf.constant([False]))
    with pytest.raises(AssertionError):
        case.assertAllTrue(tf.constant([True, False]))
    with pytest.raises(AssertionError):
        case.assertAllFalse(tf.constant([True]))
    case.assertNear(1.0, 1.05, 0.1)
    case.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.1)


def test_shapes_and_dtypes(case):
    case.assertShapeEqual(np.zeros((2, 3)), tf.zeros([2, 3]))
    with pytest.raises(AssertionError):
        case.assertShapeEqual(np.zeros((2, 3)), tf.zeros([3, 2]))
    with pytest.raises(TypeError):
        case.assertShapeEqual([1], tf.zeros([1]))
    case.assertDTypeEqual(tf.constant([1.0]), tf.float32)
    case.assertDTypeEqual(np.array([1], np.int64), np.int64)
    with pytest.raises(AssertionError):
        case.assertDTypeEqual(tf.constant([1]), tf.float32)


def test_raises_op_error(case):
    with case.assertRaisesOpError("Integer division by zero"):
        tf.constant(5) // 0
    with pytest.raises(AssertionError, match="does not match"):
        with case.assertRaisesOpError("something else"):
            tf.constant(5) // 0
    with pytest.raises(AssertionError, match="not raised"):
        with case.assertRaisesOpError("x"):
            pass
    with case.assertRaisesWithPredicateMatch(ValueError, lambda e: "bad" in str(e)):
        raise ValueError("bad value")
    with case.assertRaisesIncompatibleShapesError():
        tf.constant([1, 2]) + tf.constant([1, 2, 3])


def test_sessions_and_temp_dir(case):
    with case.session() as sess:
        assert sess.run(tf.constant([1, 2])).tolist() == [1, 2]
    with case.test_session() as sess:
        assert sess.run(tf.constant(1)) == 1
    with case.cached_session() as sess:
        assert sess.run({"a": tf.constant(3)}) == {"a": 3}
    path = case.get_temp_dir()
    assert os.path.isdir(path) and case.get_temp_dir() == path
    case.tearDown()
    assert not os.path.exists(path)


def test_set_up_seeds_numpy():
    c = _Case()
    c.setUp()
    first = np.random.rand()
    c.setUp()
    assert np.random.rand() == first
    c.tearDown()


def test_runs_under_unittest():
    class Sample(testing.TestCase):
        def test_ok(self):
            self.assertAllClose(tf.constant([1.0]), [1.0])

        def test_fails(self):
            self.assertAllEqual(tf.constant([1]), [2])

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Sample).run(result)
    assert result.testsRun == 2
    assert len(result.failures) == 1 and "test_fails" in str(result.failures[0][0])

"""Framework basics: dtypes, TensorShape, TensorSpec, errors, nest, tensor
protocols."""
import collections

import numpy as np
import pytest

import rillflow as tf


def test_dtypes():
    assert str(tf.float32) == "<dtype: 'float32'>" and repr(tf.float32) == "tf.float32"
    assert tf.float32 == np.float32 and tf.float32 == "float32"
    assert tf.as_dtype("float") is tf.float32 and tf.as_dtype(np.int64) is tf.int64
    assert tf.as_dtype(tf.int8.as_datatype_enum) is tf.int8
    assert tf.int32.min == -2 ** 31 and tf.int32.max == 2 ** 31 - 1
    assert tf.uint8.max == 255 and tf.float16.max == np.finfo(np.float16).max
    assert tf.float64.is_floating and tf.int16.is_integer and tf.uint16.is_unsigned
    assert tf.complex64.is_complex and tf.complex64.real_dtype is tf.float32
    assert tf.string.as_numpy_dtype is object and tf.bool.as_numpy_dtype is np.bool_
    assert tf.dtypes.double is tf.float64 and tf.half is tf.float16
    with pytest.raises(TypeError):
        tf.bool.min
    with pytest.raises(TypeError):
        tf.as_dtype("not-a-type")
    assert len({tf.float32, tf.as_dtype("float32")}) == 1


def test_tensor_shape():
    s = tf.TensorShape([2, None])
    assert repr(s) == "TensorShape([2, None])" and str(s) == "(2, None)"
    assert s[0] == 2 and s[1] is None and s.rank == 2 and s.as_list() == [2, None]
    assert str(tf.TensorShape(None)) == "<unknown>"
    with pytest.raises(ValueError):
        tf.TensorShape(None).as_list()
    assert s.is_compatible_with([2, 5]) and not s.is_compatible_with([3, 5])
    assert s.merge_with([None, 4]).as_list() == [2, 4]
    with pytest.raises(ValueError):
        s.merge_with([3, 4])
    assert tf.TensorShape([2, 3]).most_specific_compatible_shape([2, 4]).as_list() == [2, None]
    assert tf.TensorShape([2]).most_specific_compatible_shape([2, 4]).rank is None
    assert tf.TensorShape([2, 3]).num_elements() == 6 and s.num_elements() is None
    assert tf.TensorShape([1]) + [2] == tf.TensorShape([1, 2])
    assert str(tf.TensorShape([5])) == "(5,)"


def test_tensor_spec():
    spec = tf.TensorSpec([None, 3], tf.int32, name="x")
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=tf.int32, name='x')"
    assert spec.is_compatible_with(tf.constant([[1, 2, 3]]))
    assert not spec.is_compatible_with(tf.constant([[1.0, 2.0, 3.0]]))
    assert not spec.is_compatible_with(tf.constant([1, 2, 3]))
    t = tf.TensorSpec.from_tensor(tf.constant([1.0]))
    assert t == tf.TensorSpec([1], tf.float32)
    assert hash(spec) == hash(tf.TensorSpec([None, 3], tf.int32, name="x"))


def test_error_hierarchy():
    assert issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError)
    assert issubclass(tf.errors.OperatorNotAllowedInGraphError, TypeError)
    e = tf.errors.NotFoundError(None, None, "missing")
    assert str(e) == "missing" and e.message == "missing" and e.error_code == tf.errors.NOT_FOUND
    assert tf.errors.exception_type_from_error_code(11) is tf.errors.OutOfRangeError
    for name in ("CancelledError", "UnknownError", "DeadlineExceededError",
                 "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError",
                 "ResourceExhaustedError", "FailedPreconditionError", "AbortedError",
                 "UnimplementedError", "InternalError", "UnavailableError", "DataLossError"):
        assert issubclass(getattr(tf.errors, name), tf.errors.OpError)


def test_nest():
    Point = collections.namedtuple("Point", "x y")
    s = {"b": [1, (2, 3)], "a": Point(4, 5)}
    assert tf.nest.flatten(s) == [4, 5, 1, 2, 3]
    out = tf.nest.map_structure(lambda v: v * 10, s)
    assert out == {"b": [10, (20, 30)], "a": Point(40, 50)}
    assert tf.nest.pack_sequence_as(s, list(range(5)))["a"] == Point(0, 1)
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure([1, 2], [1])
    assert not tf.nest.is_nested(3) and tf.nest.is_nested([])


def test_eager_tensor_protocols():
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert len(x) == 2 and x.ndim == 2 and x.shape == (2, 3)
    assert [int(v[0]) for v in x] == [1, 4]
    assert int(tf.constant(3)) == 3 and float(tf.constant(2.5)) == 2.5
    assert [10, 20, 30][tf.constant(1)] == 20
    with pytest.raises(TypeError):
        len(tf.constant(1))
    with pytest.raises(TypeError):
        int(tf.constant([1, 2]))
    with pytest.raises(ValueError):
        bool(tf.constant([1, 2]))
    np.testing.assert_array_equal(np.asarray(x), [[1, 2, 3], [4, 5, 6]])
    assert x.device.endswith("CPU:0")
    with pytest.raises(AttributeError):
        x.name
    assert tf.constant(1).numpy().__class__ is np.int32
    assert tf.constant("x").numpy() == b"x"
    x.set_shape([2, None])
    with pytest.raises(ValueError):
        x.set_shape([3, 3])


def test_numpy_on_the_left_defers_to_tensor():
    r = np.array([3.0], dtype=np.float32) + tf.constant(1.0)
    assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [4.0]


def test_is_tensor_and_static_value():
    assert tf.is_tensor(tf.constant(1)) and not tf.is_tensor(1)
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.executing_eagerly()


def test_device_scopes_are_recorded_on_graph_ops():
    @tf.function
    def f(x):
        with tf.device("/CPU:0"):
            y = x + 1
        with tf.device("gpu:1"):
            z = y * 2
            with tf.device(None):
                w = z - 1
        return w
    g = f.get_concrete_function(tf.constant(1.0)).graph
    devices = {op.type: op.device for op in g.get_operations()}
    assert devices["AddV2"] == "/device:CPU:0" and devices["Mul"] == "/device:GPU:1"
    assert devices["Sub"] == "" and devices["Placeholder"] == ""
    assert f(tf.constant(1.0)).numpy() == 3.0
    with tf.device("/job:localhost/replica:0/task:0/device:GPU:0"):
        a = tf.constant(1.0) + 1    # runs on the CPU (soft placement)
    assert a.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    with pytest.raises(ValueError, match="Expecting a string device name"):
        with tf.device(3):
            pass


def test_config_lists_one_cpu():
    cpus = tf.config.list_physical_devices()
    assert cpus == tf.config.list_physical_devices("CPU") == tf.config.get_visible_devices()
    assert repr(cpus) == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_logical_devices()[0].name == "/device:CPU:0"
    tf.config.set_visible_devices(cpus)
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(cpus[0], True)

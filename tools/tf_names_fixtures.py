"""TensorFlow's results for the top-level names added by issue 22 (the names
tools/tf_api_diff.py listed): make_tensor_proto/make_ndarray, DeviceSpec,
RegisterGradient with gradient_override_map, CriticalSection, space/batch
reshuffles, edit_distance, the initializers, hessians and the other small
ones, recorded for tests/test_top_level_names.py.

    /work/tfref/bin/python tools/tf_names_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

# --- make_tensor_proto / make_ndarray ----------------------------------------------------------

_PROTO_INPUTS = {
    "floats": lambda tf: ([1., 2.], {}),
    "int_scalar": lambda tf: (3, {}),
    "int64_matrix": lambda tf: (np.array([[1, 2]], np.int64), {}),
    "strings": lambda tf: (["a", b"bc"], {}),
    "fill": lambda tf: (5.0, dict(shape=[2, 2])),
    "bool": lambda tf: (True, {}),
    "half": lambda tf: (np.float16(1.5), {}),
    "complex": lambda tf: ([1 + 2j, -3.5j], {}),
    "complex64": lambda tf: (np.array([1 + 2j], np.complex64), {}),
    "uint64": lambda tf: (np.array(7, np.uint64), {}),
    "as_float64": lambda tf: (1, dict(dtype=tf.float64)),
    "empty": lambda tf: ([], {}),
    "empty_2d": lambda tf: (np.zeros((0, 3)), {}),
    "int8": lambda tf: ([1, 2], dict(dtype=tf.int8)),
    "uint32": lambda tf: (np.arange(3, dtype=np.uint32), {}),
    "big_int": lambda tf: (np.int64(2 ** 40), {}),
    "negative": lambda tf: ([-1], {}),
    "pad_last": lambda tf: ([1, 2], dict(shape=[4])),
    "tensor": lambda tf: (tf.constant([[1.5, -2.25]]), {}),
    "broadcast": lambda tf: ([7], dict(shape=[3], allow_broadcast=True)),
    "double_text": lambda tf: (np.array([0.1, 1e300]), {}),
    "double_one": lambda tf: (np.array([0.1]), {}),
    "float_text": lambda tf: (np.array([0.1], np.float32), {}),
    "none": lambda tf: (None, {}),
    "ragged": lambda tf: ([[1], [1, 2]], {}),
    "too_many": lambda tf: ([1, 2, 3], dict(shape=[2])),
    "float_as_int": lambda tf: ([1.5], dict(dtype=tf.int32)),
    "str_as_float": lambda tf: ("a", dict(dtype=tf.float32)),
    "verify_shape": lambda tf: ([1, 2], dict(shape=[3], verify_shape=True)),
    "dtype_mismatch": lambda tf: (np.array([1.5], np.float32), dict(dtype=tf.float64)),
}


def _proto_case(key):
    def fn(tf):
        values, kw = _PROTO_INPUTS[key](tf)
        p = tf.make_tensor_proto(values, **kw)
        back = tf.make_tensor_proto(tf.make_ndarray(p))
        return [str(p), p.SerializeToString().hex(), tf.make_ndarray(p),
                back.SerializeToString().hex()]
    fn.__name__ = "tensor_proto_" + key
    return fn


for _k in _PROTO_INPUTS:
    case(_proto_case(_k))


# --- DeviceSpec ---------------------------------------------------------------------------------

@case
def device_spec(tf):
    d = tf.DeviceSpec
    s = d(job="ps", replica=1, task=0, device_type="gpu", device_index=0)
    out = [s.to_string(), repr(s), str(s.job), str(s.replica), str(s.device_type)]
    for spec in ["/cpu:1", "/job:w/task:3/device:CPU:*", "", "/GPU:0", "/device:XLA_CPU:2",
                 "/job:a/replica:2/task:1/cpu:0"]:
        p = d.from_string(spec)
        out += [p.to_string(), repr(p)]
    out.append(s.make_merged_spec(d(device_type="CPU")).to_string())
    out.append(s.replace(job=None, device_index=None).to_string())
    out.append(str(s == d.from_string(s.to_string())))
    out.append(str(d(job=0).to_string()))
    with tf.device(d(device_type="CPU", device_index=0)):
        out.append(tf.constant(1.).device)
    return out


@case
def device_spec_unknown_part(tf):
    return tf.DeviceSpec.from_string("/foo:1")


@case
def device_spec_two_types(tf):
    return tf.DeviceSpec.from_string("/cpu:0/gpu:0")


# --- RegisterGradient, gradient_override_map, no_gradient ---------------------------------------

_REGISTERED = {}


def _register_once(tf):
    # Fixture cases run once per Python process; the registry is process-wide.
    if tf.__name__ in _REGISTERED:
        return
    _REGISTERED[tf.__name__] = True

    @tf.RegisterGradient("Issue22TimesTen")
    def _times_ten(op, grad):
        return grad * 10.0 * op.inputs[0]

    tf.no_gradient("Issue22NoGradient")


@case
def gradient_override(tf):
    _register_once(tf)
    x = tf.constant([3.0, -1.0])

    @tf.function
    def f(x):
        with tf.compat.v1.get_default_graph().gradient_override_map(
                {"Square": "Issue22TimesTen"}):
            y = tf.square(x)
        return y

    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)

    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            with tf.compat.v1.get_default_graph().gradient_override_map(
                    {"Square": "Issue22TimesTen"}):
                y = tf.square(x)
        # The tape looks gradients up by op type; tf.gradients honours the map.
        return tape.gradient(y, x), tf.gradients(y, x)[0]

    @tf.function
    def h(x):
        with tf.compat.v1.get_default_graph().gradient_override_map(
                {"Square": "Issue22NoGradient"}):
            y = tf.square(x) + x
        return tf.gradients(y, x)[0]

    return [t.gradient(y, x), g(x), h(x)]


@case
def register_gradient_twice(tf):
    _register_once(tf)
    try:
        tf.RegisterGradient("Issue22TimesTen")(lambda op, g: g)
    except KeyError as e:
        return str(e).split("(Previous")[0]


@case
def register_gradient_builtin(tf):
    try:
        tf.RegisterGradient("Sin")(lambda op, g: g)
    except KeyError as e:
        return str(e).split("(Previous")[0]


@case
def register_gradient_not_string(tf):
    return tf.RegisterGradient(3)


@case
def no_gradient_not_string(tf):
    return tf.no_gradient(3)


if __name__ == "__main__":
    CASES.main("tf_names.npz")

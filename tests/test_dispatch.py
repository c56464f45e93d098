"""tf.experimental.dispatch_for_api and the elementwise dispatch decorators.
Expected values and messages were recorded from TensorFlow 2.21 (the same
calls run with `import tensorflow as tf`)."""
from typing import List, Optional, Union

import numpy as np
import pytest

import rillflow as tf


class M(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor


def _m(v, m):
    return M(tf.constant(v), tf.constant(m))


@pytest.fixture
def registered():
    targets = []
    yield targets
    for t in targets:
        tf.experimental.unregister_dispatch_for(t)


def test_dispatch_for_api_annotations(registered):
    @tf.experimental.dispatch_for_api(tf.math.add)
    def madd(x: M, y: Union[M, tf.Tensor], name=None):
        return "madd"
    registered.append(madd)
    m = _m([1., 2.], [True, False])
    assert tf.add(m, tf.constant(1.)) == "madd"
    assert tf.math.add(m, m) == "madd"
    assert tf.add(x=m, y=m) == "madd"
    # y=1.0 is not a tf.Tensor: no match, the op itself fails (TF 2.21's message).
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(M\(values="):
        tf.add(m, 1.)
    assert float(tf.add(1., 2.)) == 3.0


def test_unregister():
    @tf.experimental.dispatch_for_api(tf.math.add, {"x": M})
    def target(x, y, name=None):
        return "t"
    m = _m([1.], [True])
    assert tf.add(m, m) == "t"
    tf.experimental.unregister_dispatch_for(target)
    with pytest.raises(ValueError, match="was not registered using a `@dispatch_for_\\*` "
                                         "decorator."):
        tf.experimental.unregister_dispatch_for(target)
    with pytest.raises(ValueError, match="Attempt to convert"):
        tf.add(m, m)
    # With no registration left the original function is published again (no
    # wrapper cost left); tf.add keeps its wrapper for RaggedTensor's.
    @tf.experimental.dispatch_for_api(tf.linalg.det, {"input": M})
    def det_target(input, name=None):  # noqa: A002 - TensorFlow's parameter name
        return "d"
    assert tf.linalg.det(m) == "d" and hasattr(tf.linalg.det, "_tf_dispatch_target")
    tf.experimental.unregister_dispatch_for(det_target)
    assert not hasattr(tf.linalg.det, "_tf_dispatch_target")


def test_bad_registrations():
    with pytest.raises(ValueError, match="signature includes annotation for unknown "
                                         "parameter 'z'."):
        tf.experimental.dispatch_for_api(tf.math.add, {"z": M})
    with pytest.raises(ValueError, match=r"Dispatch function's signature \(a, y, name=None\) "
                                         r"does not match API's signature \(x, y, name=None\)."):
        tf.experimental.dispatch_for_api(tf.math.add, {"x": M})(lambda a, y, name=None: 1)
    with pytest.raises(ValueError, match="must be called with at least one signature, or "
                                         "applied to a function that has type annotations"):
        tf.experimental.dispatch_for_api(tf.math.add)(lambda x, y, name=None: 1)
    with pytest.raises(ValueError, match=r"Type annotation \[<class '.*M'>\] is not currently "
                                         r"supported by dispatch.  Supported annotations: type "
                                         r"objects,  List\[...\], and Union\[...\]"):
        tf.experimental.dispatch_for_api(tf.math.add, {"x": [M]})
    with pytest.raises(ValueError, match="Type annotation foo is not currently supported"):
        tf.experimental.dispatch_for_api(tf.math.add, {"x": "foo"})
    with pytest.raises(ValueError, match="does not support dispatch."):
        tf.experimental.dispatch_for_api(lambda x: x, {"x": M})


def test_ambiguous(registered):
    @tf.experimental.dispatch_for_api(tf.math.add, {"x": M})
    def a(x, y, name=None):
        return 1

    @tf.experimental.dispatch_for_api(tf.math.add, {"y": M})
    def b(x, y, name=None):
        return 2
    registered.extend([a, b])
    m = _m([1.], [True])
    assert tf.add(m, tf.constant(1.)) == 1
    with pytest.raises(ValueError, match=r"Multiple dispatch targets that were registered "
                                         r"with tf.dispatch_for \(<function .*a at .*> and "
                                         r"<function .*b at .*>\) match the arguments to add"):
        tf.add(m, m)


def test_list_and_optional(registered):
    @tf.experimental.dispatch_for_api(tf.concat, {"values": List[M]})
    def mc(values, axis, name=None):
        return "concat"

    @tf.experimental.dispatch_for_api(tf.math.reduce_sum, {"input_tensor": Optional[M]})
    def rs(input_tensor, axis=None, keepdims=False, name=None):
        return "rs"
    registered.extend([mc, rs])
    m = _m([1., 2.], [True, False])
    assert tf.concat([m, m], 0) == "concat" and tf.concat((m,), 0) == "concat"
    assert tf.concat([tf.constant([1.]), tf.constant([2.])], 0).numpy().tolist() == [1., 2.]
    assert tf.reduce_sum(m) == "rs" and tf.math.reduce_sum(m, axis=0) == "rs"
    assert float(tf.reduce_sum(tf.constant([1., 2.]))) == 3.0


def test_elementwise(registered):
    @tf.experimental.dispatch_for_unary_elementwise_apis(M)
    def un(api_func, x):
        return M(api_func(x.values), x.mask)

    @tf.experimental.dispatch_for_binary_elementwise_apis(Union[M, tf.Tensor],
                                                           Union[M, tf.Tensor])
    def bi(api_func, x, y):
        return ("bi", api_func.__name__)
    registered.extend([un, bi])
    m = _m([-1., 2.], [True, False])
    assert tf.abs(m).values.numpy().tolist() == [1., 2.]
    assert tf.cast(m, tf.int32).values.numpy().tolist() == [-1, 2]
    assert tf.math.abs(x=m, name="foo").values.numpy().tolist() == [1., 2.]
    assert tf.nn.leaky_relu(m, 0.5).values.numpy().tolist() == [-0.5, 2.]
    assert tf.clip_by_value(m, 0., 1.).values.numpy().tolist() == [0., 1.]
    assert tf.add(m, tf.constant(1.)) == ("bi", "add")
    assert tf.maximum(tf.constant(1.), m) == ("bi", "maximum")
    assert tf.math.multiply(m, m) == ("bi", "multiply")
    # Tensors only never dispatch.
    assert float(tf.add(tf.constant(1.), tf.constant(2.))) == 3.0
    with pytest.raises(ValueError, match="Attempt to convert"):
        tf.add(m, 2.)


def test_plain_class_does_not_dispatch(registered):
    class Plain:   # not a composite tensor: TensorFlow does not dispatch on it
        pass

    @tf.experimental.dispatch_for_api(tf.math.add, {"x": Plain})
    def p(x, y, name=None):
        return "p"
    registered.append(p)
    with pytest.raises((TypeError, ValueError)):
        tf.add(Plain(), 1)


def test_inside_tf_function(registered):
    @tf.experimental.dispatch_for_api(tf.math.add, {"x": M, "y": M})
    def madd(x, y, name=None):
        return M(x.values + y.values, tf.logical_and(x.mask, y.mask))
    registered.append(madd)
    f = tf.function(lambda a, b: tf.add(a, b))
    out = f(_m([1., 2.], [True, False]), _m([3., 4.], [True, True]))
    assert out.values.numpy().tolist() == [4., 6.]
    assert out.mask.numpy().tolist() == [True, False]


def test_sparse_tensor_elementwise_apis():
    # TensorFlow 2.21: these keep the sparsity; others fail converting it.
    st = tf.sparse.SparseTensor([[0, 0], [1, 2]], [-1.5, 4.0], [2, 3])
    for f, want in [(tf.abs, [1.5, 4.]), (tf.math.negative, [1.5, -4.]),
                    (tf.math.sign, [-1., 1.]), (tf.math.square, [2.25, 16.]),
                    (tf.sqrt, [np.nan, 2.])]:
        r = f(st)
        assert isinstance(r, tf.SparseTensor)
        np.testing.assert_array_equal(r.values.numpy(), want)
        np.testing.assert_array_equal(r.indices.numpy(), [[0, 0], [1, 2]])
        np.testing.assert_array_equal(r.dense_shape.numpy(), [2, 3])
    r = tf.cast(st, tf.int32)
    assert isinstance(r, tf.SparseTensor) and r.dtype == tf.int32
    np.testing.assert_array_equal(r.values.numpy(), [-1, 4])
    for f in (tf.exp, tf.nn.relu, tf.math.log1p):
        with pytest.raises(ValueError, match=r"^Attempt to convert a value \(SparseTensor"):
            f(st)
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(SparseTensor"):
        tf.math.multiply(st, 2.0)

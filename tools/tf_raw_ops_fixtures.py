"""TensorFlow's results of `tf.raw_ops` calls, recorded for tests/test_raw_ops.py:
the keyword-only calling convention, the conversion of inputs that share a
dtype attr, list inputs and outputs, namedtuple results, the errors, and the
ops Keras calls (UniqueV2, UniqueWithCountsV2, Bucketize,
ImageProjectiveTransformV3), eagerly and in `tf.function`.

    /work/tfref/bin/python tools/tf_raw_ops_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


def _in_function(tf, fn, *args):
    """`fn(*args)` traced by tf.function."""
    return tf.function(fn)(*args)


# --- the calling convention -------------------------------------------------------------

@case
def positional_call(tf):
    return tf.raw_ops.AddV2(1, 2)


@case
def missing_one(tf):
    return tf.raw_ops.AddV2(x=1)


@case
def missing_three(tf):
    return tf.raw_ops.Conv2D(input=np.zeros([1, 2, 2, 1], np.float32))


@case
def unexpected_keyword(tf):
    return tf.raw_ops.AddV2(x=1, y=2, z=3)


@case
def inferred_attr_is_no_keyword(tf):
    return tf.raw_ops.ConcatV2(values=[[1], [2]], axis=0, N=2)


@case
def python_value_follows_tensor(tf):
    return tf.raw_ops.AddV2(x=1, y=tf.constant(2.5))


@case
def python_value_cannot_convert(tf):
    return tf.raw_ops.AddV2(x=[1, 2], y=2.5)


@case
def tensors_of_different_dtypes(tf):
    return tf.raw_ops.AddV2(x=tf.constant(1), y=tf.constant(1.0))


@case
def list_of_different_dtypes(tf):
    return tf.raw_ops.ConcatV2(values=[tf.constant([1]), tf.constant([2.0])], axis=0)


@case
def index_dtype_not_allowed(tf):
    return tf.raw_ops.Sum(input=[1.0, 2.0], axis=0.5)


@case
def bad_dtype_attr(tf):
    return tf.raw_ops.Cast(x=[1], DstT="foo")


# --- values -----------------------------------------------------------------------------

@case
def sum_keep_dims(tf):
    return tf.raw_ops.Sum(input=[[1.0, 2.0], [3.0, 4.0]], axis=1, keep_dims=True)


@case
def cast_by_name(tf):
    return [tf.raw_ops.Cast(x=[1, 2], DstT="float32"),
            tf.raw_ops.Cast(x=[1.7, -2.5], DstT=tf.int64)]


@case
def concat_list_input(tf):
    return tf.raw_ops.ConcatV2(values=[[[1, 2]], [[3, 4]]], axis=1)


@case
def split_list_output(tf):
    return tf.raw_ops.Split(axis=0, value=[1, 2, 3, 4, 5, 6], num_split=3)


@case
def split_v(tf):
    return [tf.raw_ops.SplitV(value=np.arange(10.0), size_splits=[2, 3, 5], axis=0,
                              num_split=3),
            tf.raw_ops.SplitV(value=np.arange(10.0), size_splits=[2, 3, 5], split_dim=0,
                              num_split=3)]


@case
def squeeze_renamed_attr(tf):
    return tf.raw_ops.Squeeze(input=np.zeros([1, 3, 1]), axis=[0])


@case
def unique_namedtuple(tf):
    return tf.raw_ops.Unique(x=[4, 1, 4, 2, 1], out_idx=tf.int64)


@case
def topk(tf):
    return tf.raw_ops.TopKV2(input=[[1.0, 5.0, 3.0], [2.0, 2.0, 0.0]], k=2)


@case
def add_n(tf):
    return tf.raw_ops.AddN(inputs=[[1, 2], [3, 4], [5, 6]])


@case
def pack_unpack(tf):
    return [tf.raw_ops.Pack(values=[[1, 2], [3, 4]], axis=1),
            tf.raw_ops.Unpack(value=[[1, 2], [3, 4]], num=2, axis=0)]


@case
def identity_n(tf):
    return tf.raw_ops.IdentityN(input=[1, 2.5, "a"])


@case
def matmul(tf):
    a = np.arange(6.0).reshape(2, 3)
    return tf.raw_ops.MatMul(a=a, b=a, transpose_b=True)


@case
def gather(tf):
    return [tf.raw_ops.GatherV2(params=[[1, 2], [3, 4], [5, 6]], indices=[2, 0], axis=0),
            tf.raw_ops.GatherNd(params=[[1, 2], [3, 4]], indices=[[1, 0], [0, 1]])]


@case
def strided_slice(tf):
    return tf.raw_ops.StridedSlice(input=np.arange(12).reshape(3, 4), begin=[0, 1],
                                   end=[3, 4], strides=[2, 1], shrink_axis_mask=0)


@case
def reshape_fill_range(tf):
    return [tf.raw_ops.Reshape(tensor=np.arange(6), shape=[3, -1]),
            tf.raw_ops.Fill(dims=[2, 2], value=7.5),
            tf.raw_ops.Range(start=1, limit=10, delta=3)]


@case
def argmax_output_type(tf):
    return tf.raw_ops.ArgMax(input=[[1, 9, 3], [7, 2, 8]], dimension=1, output_type=tf.int32)


@case
def conv2d(tf):
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    f = np.ones([2, 2, 2, 3], np.float32)
    return tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding="VALID")


@case
def string_ops(tf):
    return [tf.raw_ops.StringJoin(inputs=[["a", "b"], ["c", "d"]], separator="-"),
            tf.raw_ops.StringToHashBucketFast(input=["x", "y"], num_buckets=10)]


@case
def no_output_op(tf):
    return tf.raw_ops.NoOp()


@case
def in_function(tf):
    def f(x):
        u = tf.raw_ops.Unique(x=x)
        parts = tf.raw_ops.Split(axis=0, value=x, num_split=2)
        return u.y, u.idx, parts
    return _in_function(tf, f, tf.constant([3, 1, 3, 2]))


# --- the ops Keras calls ----------------------------------------------------------------

@case
def unique_v2_axis(tf):
    x = [[1, 0, 0], [1, 0, 0], [2, 0, 0]]
    return [tf.raw_ops.UniqueV2(x=x, axis=[0]), tf.raw_ops.UniqueV2(x=x, axis=[1]),
            tf.raw_ops.UniqueV2(x=[3, 1, 3], axis=[]),
            tf.raw_ops.UniqueV2(x=x, axis=tf.constant([-1], tf.int64), out_idx=tf.int64)]


@case
def unique_v2_3d(tf):
    x = np.array([[[1, 2], [1, 2]], [[0, 0], [1, 2]], [[1, 2], [1, 2]]])
    return [tf.raw_ops.UniqueV2(x=x, axis=[0]), tf.raw_ops.UniqueV2(x=x, axis=[1]),
            tf.raw_ops.UniqueV2(x=x, axis=[2])]


@case
def unique_v2_floats(tf):
    return tf.raw_ops.UniqueV2(x=[0.5, -0.0, 0.0, np.nan, 0.5, np.nan], axis=[])


@case
def unique_v2_bad_axis(tf):
    return tf.raw_ops.UniqueV2(x=[[1, 2]], axis=[2])


@case
def unique_v2_two_axes(tf):
    return tf.raw_ops.UniqueV2(x=[[1, 2]], axis=[0, 1])


@case
def unique_with_counts_v2(tf):
    x = [[1, 0], [2, 0], [1, 0], [1, 0]]
    return [tf.raw_ops.UniqueWithCountsV2(x=x, axis=[0]),
            tf.raw_ops.UniqueWithCountsV2(x=x, axis=[1], out_idx=tf.int64),
            tf.raw_ops.UniqueWithCountsV2(x=["b", "a", "b"], axis=[])]


@case
def unique_v2_in_function(tf):
    def f(x):
        return tf.raw_ops.UniqueWithCountsV2(x=x, axis=[1])
    return _in_function(tf, f, tf.constant([[1, 1, 2], [3, 3, 4]]))


@case
def bucketize(tf):
    return [tf.raw_ops.Bucketize(input=[-5, 0, 1, 2, 9, 10, 11], boundaries=[0.0, 1.5, 10.0]),
            tf.raw_ops.Bucketize(input=[[0.5, np.nan], [np.inf, -np.inf]],
                                 boundaries=[0.0, 1.0]),
            tf.raw_ops.Bucketize(input=np.array([1, 3], np.int64), boundaries=[]),
            tf.raw_ops.Bucketize(input=np.array([0.1, 0.2, 0.3], np.float64),
                                 boundaries=[0.2])]


@case
def bucketize_unsorted(tf):
    return tf.raw_ops.Bucketize(input=[1.0], boundaries=[2.0, 1.0])


def _image(dtype=np.float32):
    return (np.arange(2 * 5 * 6 * 2) % 17).astype(dtype).reshape(2, 5, 6, 2)


_TRANSFORMS = np.array([[1.2, 0.3, -1.0, -0.2, 0.9, 1.5, 0.01, -0.02],
                        [0.7, -0.4, 2.0, 0.5, 1.1, -2.0, 0.0, 0.0]], np.float32)


@case
def projective_transform_modes(tf):
    out = []
    for interp in ("NEAREST", "BILINEAR"):
        for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
            out.append(tf.raw_ops.ImageProjectiveTransformV3(
                images=_image(), transforms=_TRANSFORMS, output_shape=[7, 4],
                interpolation=interp, fill_mode=mode, fill_value=-3.5))
    return out


@case
def projective_transform_large_shifts(tf):
    t = np.array([[1.0, 0.0, -13.3, 0.0, 1.0, 9.7, 0.0, 0.0],
                  [-1.0, 0.0, 5.5, 0.0, -1.0, 4.25, 0.0, 0.0],
                  [0.0, 1.0, -20.0, 1.0, 0.0, 17.0, 0.0, 0.0]], np.float32)
    img = np.concatenate([_image(), _image()[:1] * 2])
    return [tf.raw_ops.ImageProjectiveTransformV3(
        images=img, transforms=t, output_shape=[5, 6], interpolation=interp,
        fill_mode=mode, fill_value=0.0)
        for interp in ("NEAREST", "BILINEAR")
        for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST")]


@case
def projective_transform_dtypes(tf):
    t = _TRANSFORMS[:1]
    return [tf.raw_ops.ImageProjectiveTransformV3(
        images=_image(d)[:1], transforms=t, output_shape=[5, 6], interpolation="BILINEAR",
        fill_mode="CONSTANT", fill_value=1.0)
        for d in (np.uint8, np.int32, np.int64, np.float16, np.float64)]


@case
def projective_transform_in_function(tf):
    def f(img, t):
        return tf.raw_ops.ImageProjectiveTransformV3(
            images=img, transforms=t, output_shape=[5, 6], interpolation="NEAREST",
            fill_mode="WRAP", fill_value=0.0)
    return _in_function(tf, f, tf.constant(_image()), tf.constant(_TRANSFORMS))


@case
def projective_transform_bad_transforms(tf):
    return tf.raw_ops.ImageProjectiveTransformV3(
        images=_image(), transforms=np.zeros([3, 8], np.float32), output_shape=[5, 6],
        interpolation="NEAREST", fill_mode="WRAP", fill_value=0.0)


@case
def projective_transform_keras_style(tf):
    # Keras passes tf.shape(images)[1:-1] and a Python fill value, traced.
    def f(img):
        return tf.raw_ops.ImageProjectiveTransformV3(
            images=img, transforms=tf.cast(_TRANSFORMS, tf.float32),
            output_shape=tf.shape(img)[1:-1], fill_value=0.5, interpolation="BILINEAR",
            fill_mode="REFLECT")
    return _in_function(tf, f, tf.constant(_image()))


@case(rtol=1e-5)
def projective_transform_gradient(tf):
    img = tf.constant(_image())
    t = tf.constant([[0.9, -0.2, 1.5, 0.1, 1.1, -0.5, 0.0, 0.0]])
    out = []
    for interp in ("NEAREST", "BILINEAR"):
        with tf.GradientTape() as tape:
            tape.watch(img)
            y = tf.raw_ops.ImageProjectiveTransformV3(
                images=img, transforms=t, output_shape=[5, 6], fill_value=0.0,
                interpolation=interp, fill_mode="CONSTANT")
            loss = tf.reduce_sum(y * tf.reshape(tf.range(60, dtype=tf.float32) % 7,
                                                [1, 5, 6, 2]))
        out.append(tape.gradient(loss, img))
    return out


if __name__ == "__main__":
    CASES.main("tf_raw_ops.npz")

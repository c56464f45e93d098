"""What the resize ops (image_resize) and ScaleAndTranslate (image_scale_translate)
share: the float32 scalar type their arithmetic is written in, the input dtypes they
accept, the checks of the `size` input and the shape functions of the ops and their
gradient ops. Both op modules import it; tf.image.resize (in image_resize) runs on both."""
import numpy as np

from ...framework import dtypes as D
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U

_F32 = np.float32
# TensorFlow lists bfloat16 twice in these ops' allowed types.
_RESIZE_TYPES = (D.int8, D.uint8, D.int16, D.uint16, D.int32, D.int64, D.bfloat16, D.float16,
                 D.float32, D.float64, D.bfloat16)


def _sizes(op, size):
    size = np.asarray(size)
    if size.ndim != 1:
        raise U.op_error(op, f"shape_t must be 1-dimensional{_dims(size.shape)}")
    if size.shape[0] != 2:
        raise U.op_error(op, f"shape_t must have two elements{_dims(size.shape)}")
    return int(size[0]), int(size[1])


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _resize_infer(out_dtype=None):
    def infer(inputs, attrs):
        x, size = inputs[0], inputs[1]
        if x.shape.rank is not None and x.shape.rank != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
        c = U.constant_value(size)
        hw = [int(v) for v in np.reshape(c, -1)] if c is not None and np.size(c) == 2 \
            else [None, None]
        dims = [None] * 4 if x.shape.rank is None else list(x.shape)
        return [(TensorShape([dims[0]] + hw + [dims[3]]), out_dtype or x.dtype)]
    return infer


def _like_infer(index):
    """Shape function of a gradient op whose output looks like input `index`."""
    def infer(inputs, attrs):
        return [(inputs[index].shape, inputs[index].dtype)]
    return infer

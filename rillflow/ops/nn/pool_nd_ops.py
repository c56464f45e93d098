"""3-D pooling and the pooling front ends: `tf.nn.max_pool3d` and
`avg_pool3d` (MaxPool3D, AvgPool3D, NDHWC, with MaxPool3DGrad,
AvgPool3DGrad and MaxPool3DGradGrad as registry entries),
`max_pool_with_argmax` (MaxPoolWithArgmax and its gradient ops),
`max_pool`/`avg_pool` for 3-D, 4-D and 5-D input and `tf.nn.pool`.

The kernels are pool_kernels' N-D loops over window positions, with
TensorFlow's rules: MaxPool3D's forward rules are MaxPool's, but its
gradient gives each window's gradient to every element within 1e-5 of the
maximum (see pool_kernels.max_pool3d_grad).
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core.shape_ops import shape
from . import conv_nd_ops as CN
from . import conv_ops as C
from . import nn_util
from . import pool_kernels as K

__all__ = ["max_pool3d", "avg_pool3d", "max_pool", "avg_pool", "pool", "max_pool_with_argmax"]

_POOL3D_TYPES = (D.float16, D.bfloat16, D.float32)


# --- 3-D pooling ops -----------------------------------------------------------------

def _check_pool3d(x, ksize, strides):
    """The checks of TensorFlow's CPU MaxPool3D/AvgPool3D kernels."""
    if x.dtype == np.float16:
        raise errors.NotFoundError(None, None, "Could not find device for node: 3-D pooling "
                                   "has CPU kernels for float32 and bfloat16 only")
    if x.ndim != 5:
        raise errors.InvalidArgumentError(None, None,
                                          f"tensor_in must be 5-dimensional: {list(x.shape)}")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the batch dimension.")
    if ksize[4] != 1 or strides[4] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the depth dimension.")


def _max_pool3d_kernel(input, ksize, strides, padding, data_format="NDHWC", T=None):
    _check_pool3d(input, ksize, strides)
    return K.max_pool(input, ksize, strides, padding)


def _avg_pool3d_kernel(input, ksize, strides, padding, data_format="NDHWC", T=None):
    _check_pool3d(input, ksize, strides)
    return K.avg_pool(input, ksize, strides, padding)


def _max_pool3d_grad_kernel(orig_input, orig_output, grad, ksize, strides, padding,
                            data_format="NDHWC", T=None, TInput=None):
    return K.max_pool3d_grad(orig_input, orig_output, grad, ksize, strides, padding)


def _max_pool3d_grad_grad_kernel(orig_input, orig_output, grad, ksize, strides, padding,
                                 data_format="NDHWC", T=None):
    return K.max_pool3d_grad_grad(orig_input, orig_output, grad, ksize, strides, padding)


def _avg_pool3d_grad_kernel(orig_input_shape, grad, ksize, strides, padding,
                            data_format="NDHWC", T=None):
    in_shape = tuple(int(d) for d in np.reshape(orig_input_shape, -1))
    return K.avg_pool_grad(in_shape, grad, ksize, strides, padding)


def _pool_infer(rank):
    def infer(inputs, attrs):
        x = inputs[0].shape
        if x.rank is not None and x.rank != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {x.rank}")
        if x.rank is None:
            return [(TensorShape([None] * rank), inputs[0].dtype)]
        dims = [x[0]] + [None if x[1 + a] is None else K.out_and_pads(
            x[1 + a], attrs["ksize"][1 + a], attrs["strides"][1 + a], attrs["padding"])[0]
            for a in range(rank - 2)] + [x[rank - 1]]
        return [(TensorShape(dims), inputs[0].dtype)] * (2 if "Targmax" in attrs else 1)
    return infer


def _attrs(op, extra=()):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding", "data_format") + extra}


def _max_pool3d_grad(op, g):
    return [apply(_MaxPool3DGrad, [op.inputs[0], op.outputs[0], g], _attrs(op))]


def _max_pool3d_grad_grad(op, gg):
    # The routing of each window's gradient does not change with small
    # changes of the inputs: only `gg` read at the maxima flows back.
    x, y, _ = op.inputs
    return [None, None, apply(_MaxPool3DGradGrad, [x, y, gg], _attrs(op))]


def _max_pool3d_grad_grad_grad(op, g):
    x, y, _ = op.inputs
    return [None, None, apply(_MaxPool3DGrad, [x, y, g], _attrs(op))]


def _avg_pool3d_grad(op, g):
    return [apply(_AvgPool3DGrad, [shape(op.inputs[0], out_type="int32"), g], _attrs(op))]


def _avg_pool3d_grad_grad(op, gg):
    return [None, apply(_AvgPool3D, [gg], _attrs(op))]


_MaxPool3D = register("MaxPool3D", _max_pool3d_kernel, _pool_infer(5), _max_pool3d_grad,
                      allowed=_POOL3D_TYPES)
_MaxPool3DGrad = register("MaxPool3DGrad", _max_pool3d_grad_kernel,
                          lambda i, a: [(i[0].shape, i[2].dtype)], _max_pool3d_grad_grad)
_MaxPool3DGradGrad = register("MaxPool3DGradGrad", _max_pool3d_grad_grad_kernel,
                              lambda i, a: [(i[1].shape, i[1].dtype)],
                              _max_pool3d_grad_grad_grad)
_AvgPool3D = register("AvgPool3D", _avg_pool3d_kernel, _pool_infer(5), _avg_pool3d_grad,
                      allowed=_POOL3D_TYPES)
_AvgPool3DGrad = register("AvgPool3DGrad", _avg_pool3d_grad_kernel, C._sizes_infer(0, 5),
                          _avg_pool3d_grad_grad)


# --- MaxPoolWithArgmax ---------------------------------------------------------------

def _check_argmax_pool(input, ksize, strides):
    if input.ndim != 4:
        raise errors.InvalidArgumentError(None, None,
                                          f"tensor_in must be 4-dimensional ({input.ndim})")
    if ksize[0] != 1 or strides[0] != 1 or ksize[3] != 1 or strides[3] != 1:
        raise errors.UnimplementedError(
            None, None, "MaxPooling supports exactly one of pooling across depth or pooling "
            "across width/height.")


def _argmax_kernel(input, ksize, strides, padding, Targmax=None, include_batch_in_index=False,
                   T=None):
    _check_argmax_pool(input, ksize, strides)
    vals, idx = K.max_pool_with_argmax(input, ksize, strides, padding, include_batch_in_index)
    return vals, idx.astype(np.int32 if Targmax in ("int32", D.int32) else np.int64)


def _argmax_infer(inputs, attrs):
    (s, dt), = _pool_infer(4)(inputs, {k: v for k, v in attrs.items() if k != "Targmax"})
    return [(s, dt), (s, D.as_dtype(attrs.get("Targmax") or D.int64))]


def _grad_with_argmax_kernel(input, grad, argmax, ksize, strides, padding,
                             include_batch_in_index=False, T=None, Targmax=None):
    return K.max_pool_grad_with_argmax(input.shape, grad, argmax, include_batch_in_index)


def _grad_grad_with_argmax_kernel(input, grad, argmax, ksize, strides, padding,
                                  include_batch_in_index=False, T=None, Targmax=None):
    return K.max_pool_grad_grad_with_argmax(grad, argmax, include_batch_in_index, argmax.shape)


def _argmax_attrs(op):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index")}


def _argmax_grad(op, g, _g_argmax=None):
    return [apply(_MaxPoolGradWithArgmax, [op.inputs[0], g, op.outputs[1]], _argmax_attrs(op))]


def _grad_with_argmax_grad(op, gg):
    x, _, argmax = op.inputs
    return [None, apply(_MaxPoolGradGradWithArgmax, [x, gg, argmax], _argmax_attrs(op)), None]


def _grad_grad_with_argmax_grad(op, g):
    x, _, argmax = op.inputs
    return [None, apply(_MaxPoolGradWithArgmax, [x, g, argmax], _argmax_attrs(op)), None]


_MaxPoolWithArgmax = register("MaxPoolWithArgmax", _argmax_kernel, _argmax_infer,
                              _argmax_grad, allowed=C.U.REAL)
_MaxPoolGradWithArgmax = register("MaxPoolGradWithArgmax", _grad_with_argmax_kernel,
                                  lambda i, a: [(i[0].shape, i[1].dtype)],
                                  _grad_with_argmax_grad)
_MaxPoolGradGradWithArgmax = register("MaxPoolGradGradWithArgmax",
                                      _grad_grad_with_argmax_kernel,
                                      lambda i, a: [(i[2].shape, i[1].dtype)],
                                      _grad_grad_with_argmax_grad)

MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


# --- public functions ----------------------------------------------------------------

def _pool3d(opdef, input, ksize, strides, padding, data_format, name):
    CN._check_format(data_format, "NDHWC")
    x = convert_to_tensor(input)
    nn_util._check_eager_dtype(opdef, x)
    attrs = {"ksize": CN._seq(ksize, 3, "ksize"), "strides": CN._seq(strides, 3, "strides"),
             "padding": CN._string_padding(padding), "data_format": "NDHWC"}
    return apply(opdef, [x], attrs, name=name or opdef.name)


@export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The maximum of each window of NDHWC `input` (padding never wins;
    the first of equal values does, NaN never does).

    Raises:
      ValueError: for a ksize/strides list of a wrong length.
      InvalidArgumentError: for a bad padding (eagerly) or dtype.
      UnimplementedError: for pooling over the batch or channel axis.
    """
    return _pool3d(_MaxPool3D, input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The mean of each window of NDHWC `input` over its real elements."""
    return _pool3d(_AvgPool3D, input, ksize, strides, padding, data_format, name)


def _by_rank(op2d, op3d, input, ksize, strides, padding, data_format, name):
    x = convert_to_tensor(input)
    r = x.shape.rank
    if r == 5:
        return _pool3d(op3d, x, ksize, strides, padding, data_format, name)
    if r in (3, 4, None):
        return C._pool_nd(op2d, x, ksize, strides, padding, data_format, name)
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                     f"input.shape={tuple(x.shape.as_list())} of rank {r}.")


@export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling of 3-D (NWC), 4-D (NHWC) or 5-D (NDHWC) input."""
    return _by_rank(C._MaxPool, _MaxPool3D, input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling of 3-D (NWC), 4-D (NHWC) or 5-D (NDHWC) input."""
    return _by_rank(C._AvgPool, _AvgPool3D, input, ksize, strides, padding, data_format, name)


@export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None):
    """Max or average pooling ("MAX"/"AVG") over 1, 2 or 3 spatial axes.
    Dilations > 1 are not supported yet (UnimplementedError).

    Raises:
      ValueError: for a bad window, type, or dilations with SAME padding or
        strides > 1.
    """
    window_shape = [int(v) for v in window_shape]
    n = len(window_shape)
    if n not in (1, 2, 3):
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape="
                         f"{window_shape} of length {n}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank != n + 2:
        raise ValueError(f"Shape {tuple(x.shape.as_list())} must have rank {n + 2}")
    s = CN._seq(strides, n, "strides")[1:-1]
    d = CN._seq(dilations, n, "dilations")[1:-1]
    if any(v > 1 for v in d):
        if padding == "SAME":
            raise ValueError(f"pooling with 'SAME' padding is not implemented for "
                             f"`dilation_rate` > 1. Received: padding={padding} and "
                             f"dilation_rate={np.asarray(d)}")
        if any(v > 1 for v in s):
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate "
                             f"> 1`. Received: strides={np.asarray(s)} and dilation_rate="
                             f"{np.asarray(d)}")
        raise errors.UnimplementedError(
            None, None, "rillflow's tf.nn.pool does not support dilations > 1 yet")
    k = [1] + window_shape + [1]
    st = [1] + s + [1]
    if n == 3:
        fn = max_pool3d if pooling_type == "MAX" else avg_pool3d
        return fn(x, k, st, padding, data_format or "NDHWC", name)
    op = C._MaxPool if pooling_type == "MAX" else C._AvgPool
    if n == 1:
        return C._pool1d(op, x, k, st, padding, data_format, name)
    return C._pool(op, x, k, st, padding, data_format, name)


def _max_pool_with_argmax(input, ksize, strides, padding, data_format, output_dtype,
                          include_batch_in_index, name):
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    x = convert_to_tensor(input)
    dt = D.as_dtype(output_dtype)
    if dt not in (D.int32, D.int64):
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'Targmax' of {dt.name} is not in the list of allowed "
            "values: int32, int64")
    attrs = {"ksize": C._four(ksize, "ksize"), "strides": C._four(strides, "strides"),
             "padding": CN._string_padding(padding), "Targmax": dt,
             "include_batch_in_index": bool(include_batch_in_index)}
    out = apply(_MaxPoolWithArgmax, [x], attrs, name=name or "MaxPoolWithArgmax", multi=True)
    return MaxPoolWithArgmax(*out)


@export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                         output_dtype=D.int64, include_batch_in_index=False, name=None):
    """Max pooling of NHWC `input` with the flat index of each maximum:
    ((b * height + y) * width + x) * channels + c, the batch term only with
    `include_batch_in_index`. Returns (output, argmax). Each window takes
    its first element, then any later greater one (TensorFlow's rule here,
    so a leading NaN is kept)."""
    return _max_pool_with_argmax(input, ksize, strides, padding, data_format, output_dtype,
                                 include_batch_in_index, name)


@export("compat.v1.nn.max_pool_with_argmax")
def max_pool_with_argmax_v1(input, ksize, strides, padding, data_format="NHWC", Targmax=None,
                            name=None, output_dtype=None, include_batch_in_index=False):
    """TensorFlow 1's max_pool_with_argmax (`Targmax` or `output_dtype`)."""
    dt = output_dtype or Targmax or D.int64
    return _max_pool_with_argmax(input, ksize, strides, padding, data_format, dt,
                                 include_batch_in_index, name)

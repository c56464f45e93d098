"""`tf.experimental.numpy`'s evenly spaced values: `linspace`, `logspace`,
`geomspace` (`arange` is with the other creation functions)."""
import numpy as np

from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..core import creation_ops, math_ops, unary_ops
from . import np_array_core as A
from . import np_dtypes
from .np_math_unary import log10, real, sign
from .np_utils import np_doc


@export("experimental.numpy.linspace")
@np_doc("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """`num` values from `start` to `stop` (inclusive with `endpoint`); with
    `retstep`, also the step.

    As in TensorFlow with NumPy 2, the dtype is that of `start * 1.0` and
    `stop * 1.0` whatever `dtype` is given (unless it is None or empty).
    """
    if dtype:
        dtype = np_dtypes.result_type([start * 1.0, stop * 1.0])
    start = A.array(start, dtype=dtype)
    stop = A.array(stop, dtype=dtype)
    if num < 0:
        raise ValueError("Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    step = convert_to_tensor(np.nan)
    if endpoint:
        result = creation_ops.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        # tf.linspace always includes the end: stop one step earlier.
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = math_ops.cast(stop, step.dtype) - step
            start = math_ops.cast(start, new_stop.dtype)
            result = creation_ops.linspace(start, new_stop, num, axis=axis)
        else:
            result = creation_ops.linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.is_integer:
            # Round toward -inf, as NumPy does.
            result = unary_ops.floor(result)
        result = math_ops.cast(result, dtype)
    if retstep:
        return (result, step)
    return result


@export("experimental.numpy.logspace")
@np_doc("logspace")
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base` to the powers `linspace(start, stop, num)`."""
    dtype = np_dtypes.result_type([start * 1.0, stop * 1.0])
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    result = math_ops.pow(math_ops.cast(base, result.dtype), result)
    if dtype:
        result = math_ops.cast(result, dtype)
    return result


@export("experimental.numpy.geomspace")
@np_doc("geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values from `start` to `stop` evenly spaced on a log scale."""
    dtype = np_dtypes.as_tf_dtype(dtype) if dtype else np_dtypes.result_type(
        start, stop, float(num), A.zeros((), dtype))
    computation_dtype = np.promote_types(dtype.as_numpy_dtype, np.float32)
    start = A.asarray(start, dtype=computation_dtype)
    stop = A.asarray(stop, dtype=computation_dtype)
    # NumPy computes with positive values and flips the sign back.
    start_sign = 1 - sign(real(start))
    stop_sign = 1 - sign(real(stop))
    signflip = 1 - start_sign * stop_sign // 2
    res = signflip * logspace(log10(signflip * start), log10(signflip * stop), num,
                              endpoint=endpoint, base=10.0, dtype=computation_dtype, axis=0)
    if axis != 0:
        res = A.moveaxis(res, 0, axis)
    return math_ops.cast(res, dtype)

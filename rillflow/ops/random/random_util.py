"""What the random op modules share: argument checks and their errors, the
shape functions, and the samplers that turn a Philox generator position
(philox.py) into values of a TensorFlow dtype and shape (uniform, normal,
truncated normal, bounded and full-range integers, multinomial): the same
numbers as TensorFlow's CPU kernels (distributions.py)."""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import FLOATS
from ..core.join_ops import stack
from ..core.math_ops import add, multiply
from . import distributions as _dist

_state = _context.state
_NULL_SCOPE = contextlib.nullcontext()

_INT32_LIMIT = 2 ** 31

_INTS = U.INDEX
_UNIFORM_DTYPES = FLOATS + _INTS
_STATELESS_UNIFORM_DTYPES = FLOATS + _INTS + (D.uint32, D.uint64)
_POISSON_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


# --- shared helpers -------------------------------------------------------------

def _scope(name):
    g = _state.graph
    return _NULL_SCOPE if g is None else g.name_scope(name)


def _dims(shape):
    """A runtime shape tensor's value as a tuple of ints.

    Raises:
      InvalidArgumentError: if it is not a vector or has a negative entry.
    """
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape "
            f"{dims_text(shape.shape)}")
    dims = tuple(shape.tolist())
    if dims and min(dims) < 0:
        raise errors.InvalidArgumentError(None, None, f"Dimension {min(dims)} must be >= 0")
    return dims


def _shape_tensor(shape):
    """A shape argument (list, tuple, TensorShape, tensor) as an int tensor."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a "
                             "Tensor.")
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, (list, tuple)):
        if not shape:
            return convert_to_tensor(np.zeros(0, np.int32), name="shape")
        if _state.graph is None and all(d.__class__ is int for d in shape):
            fits = all(-_INT32_LIMIT <= d < _INT32_LIMIT for d in shape)
            return EagerTensor(np.array(shape, dtype=np.int32 if fits else np.int64))
        if any(isinstance(d, Tensor) for d in shape):
            return stack([d if isinstance(d, Tensor) else convert_to_tensor(d, dtype=D.int32)
                          for d in shape])
    return convert_to_tensor(shape, name="shape")


def _check_shape_dtype(op_name, shape_t, arg="T"):
    """The error for a shape tensor that is not int32/int64."""
    if shape_t.dtype in _INTS:
        return
    msg = (f"Value for attr '{arg}' of {U.tf_type_name(shape_t.dtype)} is not in the list of "
           "allowed values: int32, int64")
    if _state.graph is None:
        raise errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
    raise TypeError(msg)


def _shape_infer_from(shape_t):
    """The static output shape described by a shape tensor."""
    s = shape_t.shape
    if s.rank is not None and s.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.rank}")
    return U.constant_shape(shape_t)


def _invalid_dtype(dtype, accepted):
    names = ", ".join("tf." + d.name for d in accepted)
    return ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                      f"({names}).")


def _float_dtype_error(op_name, dtype):
    msg = (f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: "
           f"{', '.join(d.name for d in FLOATS)}")
    if _state.graph is None:
        return errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
    return TypeError(msg)


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


def _count(dims):
    return int(np.prod(dims, dtype=np.int64))


def _uniform01(pos, dims, np_dtype):
    """Uniform [0, 1) floats of `np_dtype` (never 1)."""
    return _dist.uniform(pos, _count(dims), np_dtype).reshape(dims)


def _normal(pos, dims, np_dtype):
    return _dist.normal(pos, _count(dims), np_dtype).reshape(dims)


def _truncated(pos, dims, np_dtype):
    """Standard normal values redrawn until within two standard deviations."""
    return _dist.truncated_normal(pos, _count(dims), np_dtype).reshape(dims)


def _full_int(pos, dims, np_dtype):
    """Integers over the whole range of a 32- or 64-bit integer type."""
    return _dist.full_int(pos, _count(dims), np_dtype).reshape(dims)


def _numpy_rng(pos):
    """A NumPy generator at a Philox position, for the distributions whose
    TensorFlow algorithms are not reproduced (gamma, Poisson, binomial):
    deterministic per position, but not TensorFlow's numbers."""
    key, counter = pos
    return np.random.Generator(np.random.Philox(
        counter=[(counter >> (64 * i)) & (2 ** 64 - 1) for i in range(4)], key=[key, 0]))


def _check_bounds(lo, hi):
    if np.ndim(lo) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"minval must be 0-D, got shape {dims_text(np.shape(lo))}")
    if np.ndim(hi) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"maxval must be 0-D, got shape {dims_text(np.shape(hi))}")


def _int_bounds(lo, hi):
    """Integer bounds as ints, checked: scalars with lo < hi."""
    _check_bounds(lo, hi)
    lo, hi = int(lo), int(hi)
    if not lo < hi:
        raise errors.InvalidArgumentError(None, None,
                                          f"Need minval < maxval, got {lo} >= {hi}")
    return lo, hi


def _uniform_int(pos, dims, lo, hi, np_dtype):
    """Integers in [lo, hi) as TensorFlow draws them (lo + bits % range)."""
    lo, hi = _int_bounds(lo, hi)
    return _dist.uniform_int(pos, _count(dims), lo, hi, np_dtype).reshape(dims)


def _check_multinomial(logits, num_samples):
    """The checks of TensorFlow's multinomial kernel; returns num_samples."""
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape {dims_text(logits.shape)}")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and batch > 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_classes should be positive, got {classes}")
    return n


def _multinomial(pos, logits, n, np_dtype):
    """Class indices per row of [batch, classes] logits (n checked)."""
    return _dist.multinomial(pos, logits, n, np_dtype)


def _multinomial_reserve(logits, n):
    """The Philox calls TensorFlow's stateful multinomial kernel reserves:
    256 per double drawn, counting samples rounded up to 4, two words per
    double; nothing when the output is empty."""
    batch = logits.shape[0]
    if batch == 0 or n == 0:
        return 0
    return batch * ((n + 3) // 4 * 4 * 2) * 256


# --- shape functions ------------------------------------------------------------

def _random_infer(inputs, attrs):
    return [(_shape_infer_from(inputs[0]), attrs["dtype"])]


def _random_int_infer(inputs, attrs):
    shape_t, lo, hi = inputs
    for t, n in ((lo, "minval"), (hi, "maxval")):
        if t.shape.rank is not None and t.shape.rank != 0:
            raise ValueError(f"{n} must be a scalar; got a tensor of shape {dims_text(t.shape)}")
    return [(_shape_infer_from(shape_t), attrs["Tout"])]


def _shape_arg(op_name, shape):
    t = _shape_tensor(shape)
    _check_shape_dtype(op_name, t)
    return t


def _scaled(rnd, mean, stddev, dtype):
    """rnd * stddev + mean, skipping the identity cases (0 and 1 as numbers)."""
    plain_std = not isinstance(stddev, Tensor) and np.ndim(stddev) == 0 and stddev == 1
    plain_mean = not isinstance(mean, Tensor) and np.ndim(mean) == 0 and mean == 0
    if plain_std and plain_mean:
        return rnd
    if not plain_std:
        rnd = multiply(rnd, convert_to_tensor(stddev, dtype=dtype, name="stddev"))
    if not plain_mean:
        rnd = add(rnd, convert_to_tensor(mean, dtype=dtype, name="mean"))
    return rnd

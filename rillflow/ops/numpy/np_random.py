"""`tf.experimental.numpy.random`: NumPy's random functions on TensorFlow's
stateful random ops (`tf.random.normal`, `uniform`, `poisson`), seeded by
`seed` through `tf.random.set_seed`, so a seed gives TensorFlow's numbers."""
import numpy as np

from ...framework.api_export import export
from ..core import broadcast_ops
from ..random import seeding, stateful_ops
from . import np_array_core as A
from . import np_dtypes, np_utils
from .np_utils import np_doc

DEFAULT_RANDN_DTYPE = np.float32


@export("experimental.numpy.random.seed")
@np_doc("random.seed")
def seed(s):
    """Sets the global seed (`tf.random.set_seed`); `s` must be an integer."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are "
                         "supported.") from None
    seeding.set_seed(s)


@export("experimental.numpy.random.standard_normal")
@np_doc("random.standard_normal")
def standard_normal(size=None):
    """Samples of the standard normal distribution (the default float type)."""
    if size is None:
        size = ()
    elif np_utils.isscalar(size):
        size = (size,)
    dtype = np_dtypes.result_type(float)
    return stateful_ops.normal(size, dtype=dtype)


@export("experimental.numpy.random.randn")
@np_doc("random.randn")
def randn(*args):
    """`standard_normal` of shape `args`."""
    return standard_normal(size=args)


@export("experimental.numpy.random.uniform")
@np_doc("random.uniform")
def uniform(low=0.0, high=1.0, size=None):
    """Samples uniform on [low, high) (the default float type)."""
    dtype = np_dtypes.result_type(float)
    low = A.asarray(low, dtype=dtype)
    high = A.asarray(high, dtype=dtype)
    if size is None:
        size = broadcast_ops.broadcast_dynamic_shape(low.shape, high.shape)
    return stateful_ops.uniform(shape=size, minval=low, maxval=high, dtype=dtype)


@export("experimental.numpy.random.poisson")
@np_doc("random.poisson")
def poisson(lam=1.0, size=None):
    """Poisson samples of rate `lam` (int64)."""
    if size is None:
        size = ()
    elif np_utils.isscalar(size):
        size = (size,)
    return stateful_ops.poisson(shape=size, lam=lam, dtype=np_dtypes.int_)


@export("experimental.numpy.random.random")
@np_doc("random.random")
def random(size=None):
    """Samples uniform on [0, 1)."""
    return uniform(0.0, 1.0, size)


@export("experimental.numpy.random.rand")
@np_doc("random.rand")
def rand(*size):
    """Samples uniform on [0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


@export("experimental.numpy.random.randint")
@np_doc("random.randint")
def randint(low, high=None, size=None, dtype=np.int64):
    """Integers uniform on [low, high) ([0, low) without `high`); int32 or int64."""
    low = int(low)
    if high is None:
        high = low
        low = 0
    if size is None:
        size = ()
    elif isinstance(size, int):
        size = (size,)
    dtype_orig = dtype
    dtype = np_dtypes.result_type(dtype)
    accepted_dtypes = (np.int32, np.int64)
    if dtype not in accepted_dtypes:
        raise ValueError(f"Argument `dtype` got an invalid value {dtype_orig}. Only those "
                         f"convertible to {accepted_dtypes} are supported.")
    return stateful_ops.uniform(shape=size, minval=low, maxval=high, dtype=dtype)

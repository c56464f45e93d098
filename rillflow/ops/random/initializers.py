"""TensorFlow 2's initializer objects of the top-level namespace
(`tf.zeros_initializer`, `tf.ones_initializer`, `tf.constant_initializer`,
`tf.random_uniform_initializer`, `tf.random_normal_initializer`:
tensorflow/python/ops/init_ops_v2.py). Called with a shape and dtype they
return a tensor; a seeded random initializer draws from the stateless ops with
seed `[seed, 0]`, so it gives the same values on every call, as TensorFlow's."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ..core.constant_ops import constant, ones, zeros
from . import stateful_ops, stateless_ops

_PARTITION_SHAPE = "partition_shape"
_PARTITION_OFFSET = "partition_offset"


class Initializer:
    """Base class of the initializers: `__call__(shape, dtype=None, **kwargs)`
    returns the initial tensor; `get_config`/`from_config` round-trip it."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        """The initializer's arguments, as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer made from `get_config`'s dict."""
        config.pop("dtype", None)
        return cls(**config)

    def _validate_kwargs(self, kwargs, support_partition=True):
        for kwarg in kwargs:
            if kwarg not in [_PARTITION_SHAPE, _PARTITION_OFFSET]:
                raise TypeError("Keyword argument should be one of "
                                f"{[_PARTITION_SHAPE, _PARTITION_OFFSET]}. Received: {kwarg}")
            if not support_partition:
                raise ValueError(f"{self.__class__.__name__} initializer doesn't support "
                                 "partition-related arguments")


def _numeric_or_bool(dtype):
    dtype = D.as_dtype(dtype)
    if not dtype.is_numpy_compatible or dtype == D.string:
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
    return dtype


@export("zeros_initializer")
class Zeros(Initializer):
    """Makes tensors of zeros (`tf.zeros_initializer()(shape, dtype)`)."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        """Zeros of `shape` and `dtype` (numeric or bool).

        Raises:
          ValueError: for a dtype that is not numeric or boolean.
        """
        self._validate_kwargs(kwargs)
        dtype = _numeric_or_bool(dtype)
        if _PARTITION_SHAPE in kwargs:
            shape = kwargs[_PARTITION_SHAPE]
        return zeros(shape, dtype)


@export("ones_initializer")
class Ones(Initializer):
    """Makes tensors of ones (`tf.ones_initializer()(shape, dtype)`)."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        """Ones of `shape` and `dtype` (numeric or bool).

        Raises:
          ValueError: for a dtype that is not numeric or boolean.
        """
        self._validate_kwargs(kwargs)
        dtype = _numeric_or_bool(dtype)
        if _PARTITION_SHAPE in kwargs:
            shape = kwargs[_PARTITION_SHAPE]
        return ones(shape, dtype)


@export("constant_initializer")
class Constant(Initializer):
    """Makes tensors of `value`: a scalar filling the shape, or as many values
    as the shape holds.

    Raises:
      TypeError: for a value that is not a scalar, list, tuple or array.
    """

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        """A constant tensor of `shape` (dtype: `dtype`, else the value's).

        Raises:
          TypeError: when the value does not fit the shape or dtype.
        """
        self._validate_kwargs(kwargs, support_partition=self.support_partition)
        if dtype is not None:
            dtype = D.as_dtype(dtype)
        return constant(self.value, dtype=dtype, shape=shape)

    def get_config(self):
        return {"value": self.value}


class _RandomGenerator:
    """Stateless ops with seed `[seed, 0]` when seeded, else the stateful ops."""

    def __init__(self, seed=None):
        self.seed = [seed, 0] if seed is not None else None

    def random_normal(self, shape, mean, stddev, dtype):
        if self.seed:
            return stateless_ops.stateless_normal(shape=shape, mean=mean, stddev=stddev,
                                                  dtype=dtype, seed=self.seed)
        return stateful_ops.normal(shape=shape, mean=mean, stddev=stddev, dtype=dtype)

    def random_uniform(self, shape, minval, maxval, dtype):
        if self.seed:
            return stateless_ops.stateless_uniform(shape=shape, minval=minval, maxval=maxval,
                                                   dtype=dtype, seed=self.seed)
        return stateful_ops.uniform(shape=shape, minval=minval, maxval=maxval,
                                           dtype=dtype)


@export("random_uniform_initializer")
class RandomUniform(Initializer):
    """Makes tensors of values uniform in [`minval`, `maxval`); seeded ones
    repeat the same values on every call."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self._random_generator = _RandomGenerator(seed)

    def __call__(self, shape, dtype=D.float32, **kwargs):
        """Uniform values of `shape` and `dtype` (floating or integer).

        Raises:
          ValueError: for another dtype.
        """
        self._validate_kwargs(kwargs)
        dtype = D.as_dtype(dtype)
        if not dtype.is_floating and not dtype.is_integer:
            raise ValueError("Argument `dtype` expected to be numeric or boolean. "
                             f"Received {dtype}.")
        if _PARTITION_SHAPE in kwargs:
            shape = kwargs[_PARTITION_SHAPE]
        return self._random_generator.random_uniform(shape, self.minval, self.maxval, dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


@export("random_normal_initializer")
class RandomNormal(Initializer):
    """Makes tensors of normally distributed values (`mean`, `stddev`);
    seeded ones repeat the same values on every call."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self._random_generator = _RandomGenerator(seed)

    def __call__(self, shape, dtype=D.float32, **kwargs):
        """Normal values of `shape` and floating `dtype`.

        Raises:
          ValueError: for a dtype that is not floating point.
        """
        self._validate_kwargs(kwargs)
        dtype = D.as_dtype(dtype)
        if not dtype.is_floating:
            raise ValueError("Argument `dtype` is expected to be floating point. "
                             f"Received: {dtype}.")
        if _PARTITION_SHAPE in kwargs:
            shape = kwargs[_PARTITION_SHAPE]
        return self._random_generator.random_normal(shape, self.mean, self.stddev, dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}

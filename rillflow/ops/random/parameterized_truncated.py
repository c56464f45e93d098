"""`tf.random.stateless_parameterized_truncated_normal`: normal samples
truncated to [minval, maxval] with per-batch parameters, as TensorFlow's
StatelessParameterizedTruncatedNormal CPU kernel draws them.

The kernel walks the outputs batch by batch (a batch is one element of the
broadcast parameters; its samples are strided by the batch count in the
output) on one Philox stream from the scrambled seed, and picks a sampler
per batch: rejection from normals when a bound is more than 1.3 standard
deviations from the mean on the mean's side, rejection from uniforms on a
narrow interval, or an exponential proposal in a tail. Each proposal call
yields a group of values (4 for float32/float16, 2 for float64); a batch's
leftover values are dropped. Arithmetic is in the dtype, with glibc's
expf/logf for float32 (kernels/glibc_float.py, libm_float.py).

TensorFlow splits large requests across its worker threads, each shard
skipping ahead in the stream, so its numbers then depend on its thread
count; this is its single-shard stream, which its numbers equal while the
work is small (a few hundred values).
"""
import math

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import dims_text
from ...framework import context as _context
from ..core import op_util as U
from ..kernels import glibc_float
from . import distributions as _dist
from . import libm_float
from . import philox
from .random_util import _dims, _no_grad, _scope, _shape_arg, _shape_infer_from
from .seeding import _stateless_rng

_state = _context.state
_MAX_ITERATIONS = 1000
_IAE = errors.InvalidArgumentError


class _Stream:
    """Philox calls turned into TensorFlow's uniform and normal groups."""

    def __init__(self, pos, dt):
        self.key, self.counter = pos
        self.dt = dt
        self.buf = None
        self.i = 0

    def _call(self):
        if self.buf is None or self.i == len(self.buf):
            self.buf = philox.blocks(self.key, self.counter, 64)
            self.counter = (self.counter + 64) & ((1 << 128) - 1)
            self.i = 0
        w = self.buf[self.i]
        self.i += 1
        return w

    def uniform(self):
        w = self._call()
        if self.dt == np.float64:
            return _dist._u64_to_double(w[0::2], w[1::2])
        if self.dt == np.float16:
            return ((w & np.uint32(0x3FF)).astype(np.float32) * np.float32(2.0 ** -10)
                    ).astype(np.float16)
        return _dist._u32_to_float(w)

    def normal(self):
        w = self._call()
        if self.dt == np.float64:
            s, c = _dist._box_muller64(w[0:1], w[1:2], w[2:3], w[3:4])
            return np.array([s[0], c[0]])
        s, c = _dist._box_muller32(w[0::2], w[1::2])
        out = np.empty(4, np.float32)
        out[0::2], out[1::2] = s, c
        return out.astype(self.dt)


def _exp(x, dt):
    if dt == np.float64:
        return np.float64(math.exp(x))
    y = glibc_float.expf(np.array([x], np.float32))[0]
    return dt.type(y)


def _log(x, dt):
    if dt == np.float64:
        return np.float64(math.log(x))
    return dt.type(libm_float.logf(np.array([x], np.float32))[0])


def _sqrt(x, dt):
    return dt.type(np.sqrt(x.astype(np.float64 if dt == np.float64 else np.float32)))


def _internal(msg):
    return errors.InternalError(None, None, msg)


def _batch(stream, dt, mean, stddev, minval, maxval, count):
    """The `count` samples of one batch."""
    T = dt.type
    if not (stddev > T(0) and minval < maxval and
            (np.isfinite(minval) or np.isfinite(maxval))):
        raise _IAE(None, None, "Invalid parameters")
    if (np.isinf(minval) and minval < T(0)) or maxval < mean:
        minval, maxval = maxval, minval
        stddev = -stddev
    norm_min = T((minval - mean) / stddev)
    norm_max = T((maxval - mean) / stddev)
    sqrt_factor = _sqrt(T(norm_min * norm_min + T(4)), dt)
    cutoff = T(T(T(2) * _exp(T(T(0.5) + T(norm_min * T(norm_min - sqrt_factor)) / T(4)), dt))
               / T(norm_min + sqrt_factor))
    diff = T(norm_max - norm_min)
    inside = T(1.3)
    out = []
    iterations = 0
    if (norm_min < -inside and norm_max >= T(0)) or (norm_max > inside and norm_min <= T(0)):
        while len(out) < count:
            for v in stream.normal():
                if norm_min <= v <= norm_max:
                    out.append(T(T(v * stddev) + mean))
                    if len(out) >= count:
                        break
                    iterations = 0
                else:
                    iterations += 1
                    if iterations > _MAX_ITERATIONS:
                        raise _internal("TruncatedNormal randn rejection sampler failed to "
                                        "accept a sample.")
    elif diff < cutoff:
        plus = T(0) if norm_min < T(0) else T(norm_min * norm_min)
        while len(out) < count:
            z = [T(T(r * diff) + norm_min) for r in stream.uniform()]
            g = [T(T(plus - T(zi * zi)) / T(2)) for zi in z]
            u = stream.uniform()
            for zi, gi, ui in zip(z, g, u):
                accept = ui <= _exp(gi, dt)
                if accept or iterations + 1 >= _MAX_ITERATIONS:
                    if not accept:
                        raise _internal("TruncatedNormal uniform rejection sampler failed to  "
                                        "accept a sample.")
                    out.append(T(T(zi * stddev) + mean))
                    if len(out) >= count:
                        break
                    iterations = 0
                else:
                    iterations += 1
    else:
        alpha = T(T(norm_min + _sqrt(T(norm_min * norm_min + T(4)), dt)) / T(2))
        while len(out) < count:
            rand = stream.uniform()
            for i in range(0, len(rand), 2):
                z = T(T(-_log(rand[i], dt)) / alpha + norm_min)
                x = T(alpha - z) if norm_min < alpha else T(norm_min - alpha)
                g = _exp(T(T(-x * x) / T(2)), dt)
                accept = rand[i + 1] <= g and z < norm_max
                if accept or iterations + 1 >= _MAX_ITERATIONS:
                    if not accept:
                        raise _internal("TruncatedNormal exponential distribution rejection "
                                        "sampler failed to accept a sample.")
                    out.append(T(T(z * stddev) + mean))
                    if len(out) >= count:
                        break
                    iterations = 0
                else:
                    iterations += 1
    return out


def _broadcast_shape(shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _kernel(shape, seed, means, stddevs, minvals, maxvals, dtype=None, S=None, Tseed=None):
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise _IAE(None, None, f"seed must have shape [2], not {dims_text(seed.shape)}")
    params = (means, stddevs, minvals, maxvals)
    bshape = _broadcast_shape([p.shape for p in params])
    if bshape is None:
        raise _IAE(None, None, "means, stddevs, minvals, maxvals must have compatible batch "
                   "dimensions: " + " vs. ".join(dims_text(p.shape) for p in params))
    dims = _dims(shape)
    k = len(bshape)
    if k > len(dims) or tuple(dims[len(dims) - k:]) != tuple(bshape):
        raise _IAE(None, None, "Shape passed in must end with broadcasted shape.")
    dt = np.dtype(means.dtype)
    num_batches = int(np.prod(bshape, dtype=np.int64))
    samples = int(np.prod(dims[:len(dims) - k], dtype=np.int64))
    flat = [np.broadcast_to(p, bshape).reshape(-1) for p in params]
    out = np.empty((samples, num_batches), dt)
    if samples and num_batches:
        stream = _Stream(_stateless_rng(seed), dt)
        for b in range(num_batches):
            out[:, b] = _batch(stream, dt, *(f[b] for f in flat), samples)
    return out.reshape(dims)


def _infer(inputs, attrs):
    return [(_shape_infer_from(inputs[0]), inputs[2].dtype)]


_DTYPES = (D.float16, D.float32, D.float64)
_StatelessParameterizedTruncatedNormal = register(
    "StatelessParameterizedTruncatedNormal", _kernel, _infer, _no_grad, allowed=_DTYPES)


@export("random.stateless_parameterized_truncated_normal",
        "compat.v1.random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0,
                                             maxvals=2.0, name=None):
    """Samples of a normal distribution truncated to [minvals, maxvals], a
    pure function of the [2] int `seed`. The parameters broadcast together
    to the trailing dimensions of `shape`, each element a batch of its own.

    Raises:
      InvalidArgumentError: for a stddev <= 0, minval >= maxval, two infinite
        bounds, or parameters that do not broadcast to the end of `shape`.
    """
    with _scope(name or "stateless_parameterized_truncated_normal"):
        shape_t = _shape_arg("StatelessParameterizedTruncatedNormal", shape)
        params = [convert_to_tensor(v, name=n) for v, n in
                  ((means, "means"), (stddevs, "stddevs"), (minvals, "minvals"),
                   (maxvals, "maxvals"))]
        seed_t = convert_to_tensor(seed, name="seed")
        names = ("means", "stddevs", "minvals", "maxvals")
        for i, p in enumerate(params[1:], 1):
            if p.dtype != params[0].dtype:
                op = "StatelessParameterizedTruncatedNormal"
                if _state.graph is None:
                    raise _IAE(None, None, f"cannot compute {op} as input #{i + 2}(zero-based) "
                               f"was expected to be a {U.tf_type_name(params[0].dtype)} tensor "
                               f"but is a {U.tf_type_name(p.dtype)} tensor [Op:{op}]")
                raise TypeError(f"Input '{names[i]}' of '{op}' Op has type {p.dtype.name} that "
                                f"does not match type {params[0].dtype.name} of argument "
                                "'means'.")
        return apply(_StatelessParameterizedTruncatedNormal, [shape_t, seed_t] + params,
                     {"dtype": params[0].dtype}, name="StatelessParameterizedTruncatedNormal")


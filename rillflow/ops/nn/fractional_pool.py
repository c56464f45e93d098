"""Fractional max and average pooling (`tf.nn.fractional_max_pool`,
`fractional_avg_pool`; Graham, arXiv:1412.6071) with their gradient ops.

The pooling regions of each of the two spatial axes come from TensorFlow's
GeneratePoolingSequence on the op's Philox generator (made from its seed
attrs as the stateful random ops' are): "random" shuffles the steps
(k or k + 1) with one word per swap, "pseudo_random" places them at
ceil(alpha * (i + u)) with one double u; rows draw first, then columns. With
a nonzero `seed` the sequences are TensorFlow's; with seed 0 they are
random. A region spans [start, next start) or, `overlapping`, through the
next start. The kernels loop over the offsets inside a region (a few), each
step vectorized over every output cell, batch and channel.
"""
import collections

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.shape_ops import shape as shape_of
from ..random import distributions as _dist
from ..random import philox
from ..random.seeding import get_seed
from .nn_util import _scope

_state = _context.state
_IAE = errors.InvalidArgumentError
_DTYPES = (D.float32, D.float64, D.int32, D.int64)


# --- pooling sequences ------------------------------------------------------------------

def _words(rng, count):
    """`count` words from the start of a reservation of that many."""
    key, counter = rng.reserve32(count)
    return philox.words(key, counter, count)


def _sequence(n_in, n_out, rng, pseudo_random):
    """The cumulative pooling sequence (n_out + 1 starts, the last n_in)."""
    if pseudo_random:
        alpha = n_in / n_out
        k = n_in // n_out
        u_max1 = (k + 2) / alpha - 1
        u_max2 = (n_in + 1 - k) / alpha - (n_out - 1)
        w = [int(x) for x in _words(rng, 2)]
        u = ((((w[0] & 0xFFFFF) << 32) | w[1]) * 2.0 ** -52) * min(u_max1, u_max2)
        cum = [1] + [int(np.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
        diff = np.diff(np.array(cum, np.int64))
    else:
        k, extra = divmod(n_in, n_out)
        diff = np.full(n_out, k, np.int64)
        diff[:extra] += 1
        # TensorFlow's shuffle: swap i with i + word % (n - i), front to back.
        perm = _dist.shuffle_permutation(rng.reserve32(n_out), n_out)
        diff = diff[perm]
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _regions(seq, n_in, overlapping):
    """(starts, ends inclusive) of the regions of a cumulative sequence."""
    starts = seq[:-1]
    ends = np.minimum(seq[1:] if overlapping else seq[1:] - 1, n_in - 1)
    return starts, ends


def _output_size(n, ratio):
    return int(np.floor(np.float32(n) / np.float32(ratio)))


def _check_ratio(pooling_ratio, kind):
    if len(pooling_ratio) != 4:
        raise _IAE(None, None, "pooling_ratio field must specify 4 dimensions")
    if pooling_ratio[0] != 1 and pooling_ratio[3] != 1:
        raise errors.UnimplementedError(
            None, None, f"Fractional {kind} pooling is not yet supported on the batch nor "
            "channel dimension.")


def _sequences(x, pooling_ratio, pseudo_random, seed, seed2, _rng, kind):
    _check_ratio(pooling_ratio, kind)
    if x.ndim != 4:
        raise _IAE(None, None, "tensor_in must be 4-dimensional")
    out = [_output_size(x.shape[i], pooling_ratio[i]) for i in range(4)]
    for i in range(4):
        if out[i] <= 0:
            raise _IAE(None, None, f"Pooling ratio is higher than input dimension size for "
                       f"dimension {i}. Input dim size: {x.shape[i]} pooling ratio: "
                       f"{pooling_ratio[i]:g}")
    rng = philox.GuardedPhilox(seed, seed2) if _rng is None else _rng
    rows = _sequence(x.shape[1], out[1], rng, pseudo_random)
    cols = _sequence(x.shape[2], out[2], rng, pseudo_random)
    return out, rows, cols


def _windows(shape, rows, cols, overlapping):
    """Yields (valid mask [R, C], input rows [R], input cols [C]) for each
    offset inside the regions, in the kernel's (row, column) order."""
    rs, re = _regions(rows, shape[1], overlapping)
    cs, ce = _regions(cols, shape[2], overlapping)
    for dh in range(int((re - rs).max()) + 1):
        r = rs + dh
        for dw in range(int((ce - cs).max()) + 1):
            c = cs + dw
            valid = (r <= re)[:, None] & (c <= ce)[None, :]
            yield valid, np.minimum(r, shape[1] - 1), np.minimum(c, shape[2] - 1)


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _max_pool(x, rows, cols, overlapping, with_argmax=False):
    n, h, w, d = x.shape
    best = np.full((n, len(rows) - 1, len(cols) - 1, d), _lowest(x.dtype), x.dtype)
    arg = np.full(best.shape, -1, np.int64)
    seen = np.zeros(best.shape, bool)
    flat_index = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    for valid, r, c in _windows(x.shape, rows, cols, overlapping):
        v = x[:, r][:, :, c]
        # The first of equal values wins; a NaN never replaces a value.
        take = (best < v) & valid[None, :, :, None]
        if with_argmax:
            take |= ~seen & valid[None, :, :, None]
            seen |= valid[None, :, :, None]
        best = np.where(take, v, best)
        if with_argmax:
            arg = np.where(take, flat_index[:, r][:, :, c], arg)
    return (best, arg) if with_argmax else best


def _max_kernel(value, pooling_ratio, pseudo_random=False, overlapping=False,
                deterministic=False, seed=0, seed2=0, T=None, _rng=None):
    _, rows, cols = _sequences(value, pooling_ratio, pseudo_random, seed, seed2, _rng, "max")
    return _max_pool(value, rows, cols, overlapping), rows, cols


def _avg_kernel(value, pooling_ratio, pseudo_random=False, overlapping=False,
                deterministic=False, seed=0, seed2=0, T=None, _rng=None):
    _, rows, cols = _sequences(value, pooling_ratio, pseudo_random, seed, seed2, _rng,
                               "average")
    n, h, w, d = value.shape
    total = np.zeros((n, len(rows) - 1, len(cols) - 1, d), value.dtype)
    count = np.zeros((len(rows) - 1, len(cols) - 1), value.dtype)
    for valid, r, c in _windows(value.shape, rows, cols, overlapping):
        total = np.where(valid[None, :, :, None], total + value[:, r][:, :, c], total)
        count = count + valid.astype(value.dtype)
    count = count[None, :, :, None]
    if value.dtype.kind == "f":
        return total / count, rows, cols
    # C++ integer division truncates toward zero.
    q = np.abs(total) // count
    return (np.sign(total) * q).astype(value.dtype), rows, cols


def _check_sequence(seq, name, n_out):
    if seq.ndim != 1 or seq.shape[0] < n_out + 1:
        raise _IAE(None, None, f"{name} must have at least {n_out + 1} elements")


def _max_grad_kernel(orig_input, orig_output, out_backprop, row_pooling_sequence,
                     col_pooling_sequence, overlapping=False, T=None):
    rows, cols = row_pooling_sequence, col_pooling_sequence
    _check_sequence(rows, "row_pooling_sequence", out_backprop.shape[1])
    _check_sequence(cols, "col_pooling_sequence", out_backprop.shape[2])
    rows = rows[:out_backprop.shape[1] + 1]
    cols = cols[:out_backprop.shape[2] + 1]
    _, arg = _max_pool(orig_input, rows, cols, overlapping, with_argmax=True)
    grad = np.zeros(orig_input.size, out_backprop.dtype)
    np.add.at(grad, arg.reshape(-1), out_backprop.reshape(-1))
    return grad.reshape(orig_input.shape)


def _avg_grad_kernel(orig_input_tensor_shape, out_backprop, row_pooling_sequence,
                     col_pooling_sequence, overlapping=False, T=None):
    shape = np.asarray(orig_input_tensor_shape)
    if shape.ndim != 1 or shape.size != 4:
        raise _IAE(None, None, "original input tensor shape must be1-dimensional and 4 "
                   "elements")
    shape = tuple(int(v) for v in shape)
    n, r_out, c_out, d = out_backprop.shape
    _check_sequence(row_pooling_sequence, "row_pooling_sequence", r_out)
    _check_sequence(col_pooling_sequence, "col_pooling_sequence", c_out)
    rows = row_pooling_sequence[:r_out + 1]
    cols = col_pooling_sequence[:c_out + 1]
    rs, re = _regions(rows, shape[1], overlapping)
    cs, ce = _regions(cols, shape[2], overlapping)
    cells = ((re - rs + 1)[:, None] * (ce - cs + 1)[None, :]).astype(np.float64)
    share = out_backprop.astype(np.float64) / cells[None, :, :, None]
    acc = np.zeros(shape, np.float64)
    for valid, r, c in _windows(shape, rows, cols, overlapping):
        contrib = np.where(valid[None, :, :, None], share, 0.0)
        np.add.at(acc, (slice(None), r[:, None], c[None, :]), contrib)
    return acc.astype(out_backprop.dtype)


def _pool_infer(inputs, attrs):
    x = inputs[0].shape
    if x.rank is not None and x.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.rank}")
    ratio = attrs["pooling_ratio"]
    if x.rank is None:
        dims = [None] * 4
    else:
        dims = [None if x[i] is None else _output_size(x[i], ratio[i]) for i in range(4)]
    seq = lambda i: TensorShape([None if dims[i] is None else dims[i] + 1])  # noqa: E731
    return [(TensorShape(dims), inputs[0].dtype), (seq(1), D.int64), (seq(2), D.int64)]


def _shape_value(t):
    c = U.constant_value(t)
    return TensorShape(None if c is None else [int(v) for v in np.reshape(c, -1)])


def _max_pool_grad(op, grad, *unused):
    return [apply(_FractionalMaxPoolGrad,
                  [op.inputs[0], op.outputs[0], grad, op.outputs[1], op.outputs[2]],
                  {"overlapping": op.attrs["overlapping"]})]


def _avg_pool_grad(op, grad, *unused):
    return [apply(_FractionalAvgPoolGrad,
                  [shape_of(op.inputs[0], out_type=D.int64), grad, op.outputs[1],
                   op.outputs[2]], {"overlapping": op.attrs["overlapping"]})]


def _max_grad_grad(op, grad):
    # The gradient is a gather of `grad` at each region's arg max.
    x, y, dy, rows, cols = op.inputs
    return [None, None, _gather_argmax(x, rows, cols, grad, op.attrs["overlapping"]),
            None, None]


def _argmax_gather_kernel(orig_input, grad, row_pooling_sequence, col_pooling_sequence,
                          overlapping=False, T=None):
    _, arg = _max_pool(orig_input, row_pooling_sequence, col_pooling_sequence, overlapping,
                       with_argmax=True)
    return grad.reshape(-1)[arg]


def _gather_argmax(x, rows, cols, grad, overlapping):
    return apply(_FractionalMaxPoolGradGrad, [x, grad, rows, cols],
                 {"overlapping": overlapping})


def _avg_grad_grad(op, grad):
    _, dy, rows, cols = op.inputs
    return [None, apply(_FractionalAvgPoolMean, [grad, rows, cols],
                        {"overlapping": op.attrs["overlapping"]}), None, None]


def _mean_kernel(value, row_pooling_sequence, col_pooling_sequence, overlapping=False, T=None):
    total = np.zeros((value.shape[0], len(row_pooling_sequence) - 1,
                      len(col_pooling_sequence) - 1, value.shape[3]), np.float64)
    count = np.zeros(total.shape[1:3])
    for valid, r, c in _windows(value.shape, row_pooling_sequence, col_pooling_sequence,
                                overlapping):
        total = np.where(valid[None, :, :, None], total + value[:, r][:, :, c], total)
        count = count + valid
    return (total / count[None, :, :, None]).astype(value.dtype)


_FractionalMaxPool = register("FractionalMaxPool", _max_kernel, _pool_infer, _max_pool_grad,
                              stateful=True, allowed=_DTYPES)
_FractionalAvgPool = register("FractionalAvgPool", _avg_kernel, _pool_infer, _avg_pool_grad,
                              stateful=True, allowed=_DTYPES)
_FractionalMaxPoolGrad = register(
    "FractionalMaxPoolGrad", _max_grad_kernel,
    lambda inputs, attrs: [(inputs[0].shape, inputs[0].dtype)], _max_grad_grad)
_FractionalAvgPoolGrad = register(
    "FractionalAvgPoolGrad", _avg_grad_kernel,
    lambda inputs, attrs: [(_shape_value(inputs[0]), inputs[1].dtype)], _avg_grad_grad)
# The second-order gradients, ops of rillflow's own (TensorFlow has none).
_FractionalMaxPoolGradGrad = register(
    "FractionalMaxPoolGradGrad", _argmax_gather_kernel,
    lambda inputs, attrs: [(TensorShape(None), inputs[1].dtype)])
_FractionalAvgPoolMean = register(
    "FractionalAvgPoolMean", _mean_kernel,
    lambda inputs, attrs: [(TensorShape(None), inputs[0].dtype)])


# --- public functions ---------------------------------------------------------------------

def _ratio(pooling_ratio):
    if isinstance(pooling_ratio, (list, tuple)):
        if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
            raise ValueError("`pooling_ratio` should have first and last elements with value "
                             f"1.0. Received: pooling_ratio={pooling_ratio}")
        for element in pooling_ratio:
            if element < 1.0:
                raise ValueError("`pooling_ratio` elements should be >= 1.0. "
                                 f"Received: pooling_ratio={pooling_ratio}")
    elif isinstance(pooling_ratio, (int, float)):
        if pooling_ratio < 1.0:
            raise ValueError(f"`pooling_ratio` should be >= 1.0. "
                             f"Received: pooling_ratio={pooling_ratio}")
    else:
        raise ValueError("`pooling_ratio` should be an int or a list of ints. "
                         f"Received: pooling_ratio={pooling_ratio}")
    return _sequence_arg(pooling_ratio)


def _sequence_arg(v):
    """TensorFlow's _get_sequence for 2 spatial axes and channel axis 3."""
    if isinstance(v, (int, float)):
        return [1.0, float(v), float(v), 1.0]
    v = [float(x) for x in v]
    if len(v) == 1:
        return [1.0, v[0], v[0], 1.0]
    if len(v) == 2:
        return [1.0, v[0], v[1], 1.0]
    if len(v) == 4:
        return v
    raise ValueError(f"pooling_ratio should be of length 1, 2 or 4 but was {len(v)}")


def _pool(opdef, value, pooling_ratio, pseudo_random, overlapping, seed, name, result):
    if len(pooling_ratio) < 4:
        msg = (f"Length for attr 'pooling_ratio' of {len(pooling_ratio)} must be at least "
               "minimum 4")
        if _state.graph is None:
            raise _IAE(None, None, msg)
        raise ValueError(msg)
    with _scope(name or opdef.name):
        x = convert_to_tensor(value, name="value")
        U.check_dtype(opdef.name, x, _DTYPES, param="value")
        if seed == 0:
            s1 = s2 = 0
            deterministic = False
        else:
            s1, s2 = get_seed(seed)
            deterministic = True
        attrs = {"pooling_ratio": pooling_ratio, "pseudo_random": bool(pseudo_random),
                 "overlapping": bool(overlapping), "deterministic": deterministic,
                 "seed": s1, "seed2": s2}
        return result(*apply(opdef, [x], attrs, name=opdef.name, multi=True))


_MaxResult = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])
_AvgResult = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])


@export("nn.fractional_max_pool")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None):
    """Fractional max pooling of NHWC `value` by `pooling_ratio` (>= 1 per
    axis, a float or a list; 1 on batch and channels): each output is the
    max of a region of about ratio x ratio inputs, the regions' sizes chosen
    at random (`pseudo_random`: evenly spread) for each call.

    Returns:
      (output, row_pooling_sequence, col_pooling_sequence): the pooled
      values and the int64 region boundaries (start of each region, then
      the input size) of the rows and columns.

    Raises:
      ValueError: for a pooling_ratio below 1 or not 1 on batch and channels.
    """
    return _pool(_FractionalMaxPool, value, _ratio(pooling_ratio), pseudo_random, overlapping,
                 seed, name, _MaxResult)


@export("nn.fractional_avg_pool")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None):
    """Fractional average pooling: as `fractional_max_pool`, each output the
    mean of its region. Returns (output, row_pooling_sequence,
    col_pooling_sequence)."""
    if not isinstance(pooling_ratio, (list, tuple)):
        raise TypeError(f"Expected list for 'pooling_ratio' argument to 'fractional_avg_pool' "
                        f"Op, not {pooling_ratio!r}.")
    return _pool(_FractionalAvgPool, value, [float(r) for r in pooling_ratio], pseudo_random,
                 overlapping, seed, name, _AvgResult)

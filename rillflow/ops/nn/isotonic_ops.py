"""`tf.nn.isotonic_regression`: the best non-increasing (or, with
`decreasing=False`, non-decreasing) fit in squared error of each row along
`axis`, by pooling adjacent violators, and its gradient (the mean of the
incoming gradient over each pooled segment, as TensorFlow's)."""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ..core.dim_ops import transpose
from ..core.math_ops import negative
from ..core.shape_ops import reshape, shape as shape_of
from .nn_util import _scope

# Float dtypes map to themselves, int8/int16 to float32, the rest to float64.
_PROMOTIONS = {D.float32: D.float32, D.float16: D.float16, D.bfloat16: D.bfloat16,
               D.int8: D.float32, D.int16: D.float32}


def _pav_row(row, dt):
    """(fitted values, segment ids) of one row, non-increasing: the last two
    blocks merge while the later one's mean exceeds the earlier one's. Sums
    and means are in the output dtype `dt`, as TensorFlow's kernel keeps
    them (its rounding decides near-ties)."""
    sums, counts, means = [], [], []
    for v in row:
        v = dt.type(v)
        sums.append(v)
        counts.append(1)
        means.append(v)
        while len(sums) > 1 and means[-1] > means[-2]:
            s, c = sums.pop(), counts.pop()
            means.pop()
            sums[-1] = dt.type(sums[-1] + s)
            counts[-1] += c
            means[-1] = dt.type(sums[-1] / dt.type(counts[-1]))
    return (np.repeat(np.array(means, dt), counts),
            np.repeat(np.arange(len(counts), dtype=np.int32), counts))


def _isotonic_kernel(input, output_dtype=D.float32, T=None):
    dt = np.dtype(output_dtype.as_numpy_dtype)
    if input.ndim == 0:
        rows = input.reshape(1, 1)
    else:
        rows = input.reshape(-1, input.shape[-1]) if input.size else \
            np.zeros((0, 0), input.dtype)
    out = np.empty(rows.shape, dt)
    seg = np.empty(rows.shape, np.int32)
    for i, row in enumerate(rows):
        out[i], seg[i] = _pav_row(row.tolist() if dt.kind == "f" and dt.itemsize >= 4
                                  else row, dt)
    return out.reshape(input.shape), seg.reshape(input.shape)


def _segment_mean_kernel(grad, segments, T=None):
    g = grad.reshape(-1, grad.shape[-1]) if grad.ndim else grad.reshape(1, 1)
    s = segments.reshape(g.shape)
    out = np.empty_like(g)
    for i in range(g.shape[0]):
        n = int(s[i].max()) + 1 if s.shape[1] else 0
        total = np.zeros(n, g.dtype)
        np.add.at(total, s[i], g[i])
        count = np.bincount(s[i], minlength=n).astype(g.dtype)
        out[i] = (total / np.maximum(count, 1))[s[i]]
    return out.reshape(grad.shape)


def _isotonic_infer(inputs, attrs):
    return [(inputs[0].shape, attrs["output_dtype"]), (inputs[0].shape, D.int32)]


def _isotonic_grad(op, grad_output, grad_segments):
    return [apply(_IsotonicSegmentMean, [grad_output, op.outputs[1]])]


def _segment_mean_grad(op, grad):
    # A linear map whose matrix (segment averaging) is symmetric.
    return [apply(_IsotonicSegmentMean, [grad, op.inputs[1]]), None]


_IsotonicRegression = register("IsotonicRegression", _isotonic_kernel, _isotonic_infer,
                               _isotonic_grad)
# The gradient: rillflow's own op (TensorFlow composes split, segment means
# and gather per row).
_IsotonicSegmentMean = register("IsotonicSegmentMean", _segment_mean_kernel,
                                lambda inputs, attrs: [(inputs[0].shape, inputs[0].dtype)],
                                _segment_mean_grad)

_Result = collections.namedtuple("IsotonicRegression", ["output", "segments"])


@export("nn.isotonic_regression")
def isotonic_regression(inputs, decreasing=True, axis=-1):
    """The isotonic regression of each vector of `inputs` along `axis`: the
    non-increasing (or non-decreasing, `decreasing=False`) sequence closest
    in squared error, each value the mean of a segment of the input.

    Returns:
      (output, segments): the fitted values (float32 for float32, int8 and
      int16 inputs, float16/bfloat16 kept, float64 otherwise) and the int32
      segment index of each element.
    """
    x = convert_to_tensor(inputs)
    out_dtype = _PROMOTIONS.get(x.dtype, D.float64)
    with _scope("IsotonicRegression"):
        rank = x.shape.rank
        ax = axis % rank if rank else axis
        perm = None
        if rank and ax != rank - 1:
            perm = list(range(rank))
            perm[ax], perm[-1] = perm[-1], perm[ax]
            x = transpose(x, perm)
        matrix = x if rank == 2 else reshape(x, [-1, shape_of(x)[-1]]) if rank else x
        if not decreasing:
            matrix = negative(matrix)
        output, segments = apply(_IsotonicRegression, [matrix], {"output_dtype": out_dtype},
                                 name="IsotonicRegression", multi=True)
        if not decreasing:
            output = negative(output)
        if rank != 2 and rank:
            output = reshape(output, shape_of(x))
            segments = reshape(segments, shape_of(x))
        if perm is not None:
            output = transpose(output, perm)
            segments = transpose(segments, perm)
        # TensorFlow returns the op's named outputs only when it calls the op
        # directly (decreasing, along the last axis).
        if decreasing and perm is None:
            return _Result(output, segments)
        return output, segments


"""Binning values: `tf.searchsorted` (insertion points in sorted rows),
the Bucketize op (`tf.raw_ops.Bucketize`: buckets among sorted boundaries),
`tf.histogram_fixed_width` (counts in equal-width bins) and
`tf.histogram_fixed_width_bins` (the bin of each value)."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from . import op_util as U
from .clip_ops import clip_by_value
from .math_ops import cast, multiply, subtract, truediv
from .shape_ops import reshape, shape as _shape
from .slicing import getitem
from .unary_ops import _scope, floor

__all__ = ["searchsorted", "histogram_fixed_width", "histogram_fixed_width_bins"]


def _bound_kernel(side):
    def kernel(sorted_inputs, values, out_type=D.int32):
        rows_s = sorted_inputs.reshape(-1, sorted_inputs.shape[-1])
        rows_v = values.reshape(-1, values.shape[-1])
        if rows_s.shape[0] != rows_v.shape[0]:
            raise U.op_error("LowerBound" if side == "left" else "UpperBound",
                             "Leading dim_size of both tensors must match.")
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v)]) \
            if rows_s.shape[0] else np.zeros(rows_v.shape, np.int64)
        return out.reshape(values.shape).astype(out_type.as_numpy_dtype)
    return kernel


def _bound_infer(inputs, attrs):
    return [(inputs[1].shape, attrs["out_type"])]


_LowerBound = register("LowerBound", _bound_kernel("left"), _bound_infer, allowed=U.REAL)
_UpperBound = register("UpperBound", _bound_kernel("right"), _bound_infer, allowed=U.REAL)


@export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=D.int32, name=None):
    """For each value, the index where it would be inserted into its row of
    `sorted_sequence` (the innermost dimension; leading dimensions match) to
    keep the row sorted: before equal elements (`side="left"`) or after.

    Raises:
      ValueError: for a `side` other than "left" or "right".
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    s = convert_to_tensor(sorted_sequence)
    v = convert_to_tensor(values, dtype_hint=s.dtype)
    opdef = _LowerBound if side == "left" else _UpperBound
    return apply(opdef, [s, v], {"out_type": D.as_dtype(out_type)},
                 name=name or ("LowerBound" if side == "left" else "UpperBound"))


# --- Bucketize: the bucket of each value among sorted boundaries -------------------------

def _bucketize_kernel(input, boundaries):  # noqa: A002
    b = np.asarray(boundaries, np.float32)
    if np.any(b[1:] < b[:-1]):
        raise U.op_error("Bucketize", "Expected sorted boundaries")
    # std::upper_bound with `value < boundary`: an int or float32 value is
    # compared as a float32, a float64 value with the boundary widened.
    v = input.astype(np.float64 if input.dtype == np.float64 else np.float32)
    return np.searchsorted(b.astype(v.dtype), v, side="right").astype(np.int32)


_Bucketize = register("Bucketize", _bucketize_kernel,
                      lambda inputs, attrs: [(inputs[0].shape, D.int32)],
                      allowed=(D.int32, D.int64, D.float32, D.float64))


def _histogram_kernel(values, value_range, nbins, dtype=D.int32):
    n = int(nbins)
    if n <= 0:
        raise U.op_error("HistogramFixedWidth", f"nbins should be a positive number, but got "
                         f"'{n}'")
    lo, hi = (float(v) for v in np.reshape(value_range, -1))
    if not lo < hi:
        raise U.op_error("HistogramFixedWidth", f"value_range should satisfy "
                         f"value_range[0] < value_range[1], but got '[{lo}, {hi}]'")
    v = values.astype(np.float64).reshape(-1)
    # TensorFlow's binning: floor((v - lo) / (hi - lo) * nbins), clipped to the bins.
    index = np.clip(np.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(np.int64)
    return np.bincount(index, minlength=n).astype(dtype.as_numpy_dtype)


def _histogram_infer(inputs, attrs):
    c = U.constant_value(inputs[2])
    return [(TensorShape([None if c is None else int(c)]), attrs["dtype"])]


_Histogram = register("HistogramFixedWidth", _histogram_kernel, _histogram_infer,
                      allowed=U.REAL)


_HISTOGRAM_T = (D.int32, D.int64, D.float32, D.float64)


@export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """Counts of `values` in `nbins` equal-width bins spanning `value_range`;
    values below the range count in the first bin, above it in the last."""
    v = convert_to_tensor(values)
    U.check_dtype("HistogramFixedWidth", v, _HISTOGRAM_T, param="values")
    r = convert_to_tensor(value_range, dtype_hint=v.dtype)
    n = convert_to_tensor(nbins, dtype=D.int32)
    return apply(_Histogram, [v, r, n], {"dtype": D.as_dtype(dtype)},
                 name=name or "HistogramFixedWidth")


def _check_nbins(nbins):
    """TensorFlow asserts nbins > 0 with an Assert op; rillflow checks a
    known nbins now (eagerly, or while tracing), with TensorFlow's message
    (a nbins only known at run time goes unchecked)."""
    n = U.constant_value(nbins)
    if n is None or int(n) > 0:
        return
    if _context.state.graph is None:
        raise errors.InvalidArgumentError(
            None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
            f"Summarized data: b'nbins tf.Tensor({int(n)}, shape=(), dtype=int32) must > 0'")
    raise errors.InvalidArgumentError(
        None, None, f"assertion failed: [nbins Tensor(\"{nbins.name}\", shape=(), "
        "dtype=int32) must > 0]")


@export("histogram_fixed_width_bins", "compat.v1.histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=D.int32, name=None):
    """The bin index of each value among `nbins` equal-width bins spanning
    `value_range` (shape of `values`): floor(nbins * (v - lo) / (hi - lo))
    clipped to [0, nbins - 1]. As in TensorFlow, `dtype` is ignored: the
    result is always int32 (NaN gives int32's minimum)."""
    del dtype  # TensorFlow's function ignores it too
    with _scope(name, "histogram_fixed_width_bins"):
        values = convert_to_tensor(values, name="values")
        shape = _shape(values)
        values = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=D.int32, name="nbins")
        _check_nbins(nbins)
        nbins_float = cast(nbins, values.dtype)
        scaled = truediv(subtract(values, getitem(value_range, 0)),
                         subtract(getitem(value_range, 1), getitem(value_range, 0)),
                         name="scaled_values")
        indices = floor(multiply(nbins_float, scaled), name="indices")
        indices = cast(clip_by_value(indices, 0, subtract(nbins_float, 1)), D.int32)
        return reshape(indices, shape)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_bound(ctx, op, sorted_inputs, values):
    side = "left" if op.type == "LowerBound" else "right"
    s = XL.jnp.reshape(sorted_inputs, (-1, XL.jnp.shape(sorted_inputs)[-1]))
    v = XL.jnp.reshape(values, (-1, XL.jnp.shape(values)[-1]))
    out = XL.jax.vmap(lambda a, b: XL.jnp.searchsorted(a, b, side=side))(s, v)
    return XL.jnp.reshape(out, XL.jnp.shape(values))


def _lower_bucketize(ctx, op, x):
    dt = np.float64 if x.dtype == np.float64 else np.float32
    b = np.asarray(op.attrs["boundaries"], np.float32).astype(dt)
    return XL.jnp.searchsorted(b, XL.jnp.asarray(x).astype(dt), side="right")


def _lower_histogram(ctx, op, values, value_range, nbins):
    n = XL.ints(ctx.static(op, 2, nbins))[0]
    v = XL.jnp.reshape(values, -1).astype(np.float64)
    lo, hi = value_range[0].astype(np.float64), value_range[1].astype(np.float64)
    index = XL.jnp.clip(XL.jnp.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(np.int64)
    return XL.jnp.zeros((n,), np.int64).at[index].add(1)


XL.set_lowerings({"LowerBound": _lower_bound, "UpperBound": _lower_bound,
                  "Bucketize": _lower_bucketize, "HistogramFixedWidth": _lower_histogram})

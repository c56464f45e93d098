"""Ops that move elements without computing on them: `tf.reverse_sequence`
(ReverseSequence, which RNNs use to run backwards over padded batches) and
`tf.nn.depth_to_space` / `tf.nn.space_to_depth` (DepthToSpace, SpaceToDepth:
pixel shuffles), each the other's gradient.

TensorFlow's CPU kernels of the two pixel shuffles handle NHWC only: NCHW is
accepted while building a graph (its shapes are inferred) and fails when it
runs, with TensorFlow's error classes (NotFoundError eagerly,
InvalidArgumentError from a tf.function).
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U

__all__ = ["reverse_sequence", "depth_to_space", "space_to_depth"]

_state = _context.state
_IAE = errors.InvalidArgumentError
_LEN_TYPES = (D.int32, D.int64)


# --- reverse_sequence -------------------------------------------------------------

def _reverse_sequence_kernel(x, seq_lengths, seq_dim, batch_dim, Tlen=None):
    # The checks of TensorFlow's kernel, in its order (constructor, then Compute).
    if batch_dim < 0:
        raise _IAE(None, None, f"Invalid batch_dim {batch_dim}")
    if seq_dim < 0:
        raise _IAE(None, None, f"Invalid seq_dim {seq_dim}")
    if seq_lengths.ndim != 1:
        raise _IAE(None, None, f"seq_lengths must be 1-dim, not {seq_lengths.ndim}")
    if batch_dim == seq_dim:
        raise _IAE(None, None, f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= x.ndim:
        raise _IAE(None, None, f"seq_dim must be < input rank ( {seq_dim} vs. {x.ndim})")
    if batch_dim >= x.ndim:
        raise _IAE(None, None, f"batch_dim must be < input rank ( {batch_dim} vs. {x.ndim})")
    if seq_lengths.size != x.shape[batch_dim]:
        raise _IAE(None, None, f"Length of seq_lengths != input.dims({batch_dim}), "
                   f"({seq_lengths.size} vs. {x.shape[batch_dim]})")
    for d, n in enumerate(seq_lengths.tolist()):
        if n < 0:
            raise _IAE(None, None, f"seq_lens({d}) < 0")
        if n > x.shape[seq_dim]:
            raise _IAE(None, None, f"seq_lens({d}) > input.dims({seq_dim})")
    if not 2 <= x.ndim <= 5:
        raise _IAE(None, None, f"ReverseSequenceOp : Unhandled input dimensions: {x.ndim}")
    # Position j < len of each row reads len-1-j; later positions stay.
    j = np.arange(x.shape[seq_dim])
    lens = seq_lengths.astype(np.int64)[:, None]
    src = np.where(j < lens, lens - 1 - j, j)        # [batch, seq]
    shape = [1] * x.ndim
    shape[batch_dim], shape[seq_dim] = src.shape
    if batch_dim > seq_dim:
        src = src.T
    return np.take_along_axis(x, src.reshape(shape), axis=seq_dim)


def _reverse_sequence_infer(inputs, attrs):
    x, lens = inputs
    if lens.dtype not in _LEN_TYPES:
        raise U.graph_dtype_error("seq_lengths", lens.dtype, _LEN_TYPES)
    if lens.shape.rank is not None and lens.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {lens.shape.rank}")
    seq_dim, batch_dim = attrs["seq_dim"], attrs["batch_dim"]
    r = x.shape.rank
    if r is None or seq_dim < 0 or batch_dim < 0:
        return [(x.shape, x.dtype)]   # the kernel reports negative dims when it runs
    if batch_dim >= r:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {r}")
    if seq_dim >= r:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {r}")
    dims = x.shape.as_list()
    n = lens.shape[0] if lens.shape.rank == 1 else None
    if dims[batch_dim] is not None and n is not None and dims[batch_dim] != n:
        raise ValueError(f"Dimensions must be equal, but are {dims[batch_dim]} and {n}")
    if dims[batch_dim] is None:
        dims[batch_dim] = n
    return [(TensorShape(dims), x.dtype)]


def _reverse_sequence_grad(op, g):
    # Reversing the same prefixes again puts each gradient back in place.
    return [apply(_ReverseSequence, [g, op.inputs[1]],
                  {"seq_dim": op.get_attr("seq_dim"), "batch_dim": op.get_attr("batch_dim"),
                   "Tlen": op.inputs[1].dtype}), None]


_ReverseSequence = register("ReverseSequence", _reverse_sequence_kernel,
                            _reverse_sequence_infer, _reverse_sequence_grad)


def _int_attr(v, name):
    if v is None or isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"Expected int for argument '{name}' not {v!r}.")
    return int(v)


@export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                     name=None):
    """Reverses the first `seq_lengths[i]` elements along `seq_axis` of each
    slice `i` along `batch_axis` (default 0); the rest of each slice stays.

    Raises:
      TypeError: if `seq_axis` is not given or `seq_lengths` is not integer.
      InvalidArgumentError: (eager) for a length below 0 or above the
        sequence size, equal or out-of-range axes; ValueError in graphs.
    """
    seq_dim = _int_attr(seq_axis, "seq_dim")
    batch_dim = 0 if batch_axis is None else _int_attr(batch_axis, "batch_dim")
    x = convert_to_tensor(input, name="input")
    lens = convert_to_tensor(seq_lengths, name="seq_lengths")
    if lens.dtype not in _LEN_TYPES and _state.graph is None:
        raise U.eager_dtype_error("ReverseSequence", "Tlen", lens.dtype, _LEN_TYPES)
    return apply(_ReverseSequence, [x, lens],
                 {"seq_dim": seq_dim, "batch_dim": batch_dim, "Tlen": lens.dtype},
                 name=name or "ReverseSequence")


@export("compat.v1.reverse_sequence")
def reverse_sequence_v1(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                        name=None, seq_dim=None, batch_dim=None):
    """TensorFlow 1's `reverse_sequence`: `seq_dim` and `batch_dim` are the
    deprecated spellings of `seq_axis` and `batch_axis`.

    Raises:
      ValueError: if both spellings of one argument are given.
    """
    if seq_dim is not None:
        if seq_axis is not None:
            raise ValueError("Cannot specify both 'seq_dim' and 'seq_axis'.")
        seq_axis = seq_dim
    if batch_dim is not None:
        if batch_axis is not None:
            raise ValueError("Cannot specify both 'batch_dim' and 'batch_axis'.")
        batch_axis = batch_dim
    return reverse_sequence(input, seq_lengths, seq_axis, batch_axis, name)


# --- depth_to_space, space_to_depth -------------------------------------------------

_FORMATS = ("NHWC", "NCHW", "NCHW_VECT_C")


def _no_cpu_kernel(op_name, dtype, block_size, data_format):
    """TensorFlow's CPU kernels of the pixel shuffles are NHWC only: the
    NotFoundError of an eager call (its kernel list shortened)."""
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
        f"[T=DT_{U.tf_type_name(dtype).upper()}, block_size={block_size}, "
        f"data_format=\"{data_format}\"]\nAll kernels registered for op {op_name}:\n"
        f"  device='CPU'; data_format in [\"NHWC\"] [Op:{op_name}]")


def _not_registered(op_name, dtype, block_size, data_format):
    """The same failure when a graph runs: TensorFlow's InvalidArgumentError."""
    return _IAE(None, None, f"No OpKernel was registered to support Op '{op_name}' used by "
                f"{{{{node {op_name}}}}} with these attrs: [T=DT_"
                f"{U.tf_type_name(dtype).upper()}, data_format=\"{data_format}\", "
                f"block_size={block_size}]\nRegistered devices: [CPU]\nRegistered kernels:\n"
                f"  device='CPU'; data_format in [\"NHWC\"]")


def _shuffle_check(op_name, x, block_size, data_format):
    if data_format != "NHWC":
        raise _not_registered(op_name, D.from_numpy(x.dtype), block_size, data_format)


def _depth_to_space_kernel(x, block_size, data_format="NHWC"):
    _shuffle_check("DepthToSpace", x, block_size, data_format)
    if x.ndim != 4:
        raise _IAE(None, None, f"Input rank should be: 4 instead of: {x.ndim}")
    n, h, w, c = x.shape
    b = block_size
    if c % (b * b):
        raise _IAE(None, None, f"Input depth dimension {c} should be divisible by: {b * b}")
    # Depth index (i * b + j) * c' + k goes to row offset i, column offset j, channel k.
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h * b, w * b, c // (b * b))


def _space_to_depth_kernel(x, block_size, data_format="NHWC"):
    _shuffle_check("SpaceToDepth", x, block_size, data_format)
    if x.ndim != 4:
        raise _IAE(None, None, f"Input rank should be 4 instead of {x.ndim}")
    n, h, w, c = x.shape
    b = block_size
    if h % b or w % b:
        raise _IAE(None, None, f"Image width {w} and height {h} should be divisible by "
                   f"block_size: {b}")
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h // b, w // b, b * b * c)


def _shuffle_infer(to_space):
    def infer(inputs, attrs):
        x = inputs[0]
        fmt, b = attrs["data_format"], attrs["block_size"]
        rank = 5 if fmt == "NCHW_VECT_C" else 4
        s = x.shape
        if s.rank is None:
            return [(TensorShape([None] * rank), x.dtype)]
        if s.rank != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {s.rank} for "
                             f"'{{{{node {'DepthToSpace' if to_space else 'SpaceToDepth'}}}}}'"
                             f" with input shapes: {dims_text(s.as_list())}.")
        dims = s.as_list()
        hi, wi, ci = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
        h, w, c = dims[hi], dims[wi], dims[ci]
        if fmt == "NCHW_VECT_C" and c is not None and dims[4] is not None:
            c *= dims[4]
        if to_space:
            if c is not None and c % (b * b):
                raise ValueError(f"Dimension size must be evenly divisible by {b * b} but is {c}")
            out = (None if h is None else h * b, None if w is None else w * b,
                   None if c is None else c // (b * b))
        else:
            for d in (h, w):
                if d is not None and d % b:
                    raise ValueError(f"Dimension size must be evenly divisible by {b} but is {d}")
            out = (None if h is None else h // b, None if w is None else w // b,
                   None if c is None else c * b * b)
        dims[hi], dims[wi], dims[ci] = out
        if fmt == "NCHW_VECT_C":
            dims[ci] = None if out[2] is None or dims[4] is None else out[2] // dims[4]
        return [(TensorShape(dims), x.dtype)]
    return infer


def _shuffle_grad(other):
    def grad(op, g):
        return [apply1(other(), g, {"block_size": op.get_attr("block_size"),
                                    "data_format": op.get_attr("data_format")})]
    return grad


_DepthToSpace = register("DepthToSpace", _depth_to_space_kernel, _shuffle_infer(True),
                         _shuffle_grad(lambda: _SpaceToDepth))
_SpaceToDepth = register("SpaceToDepth", _space_to_depth_kernel, _shuffle_infer(False),
                         _shuffle_grad(lambda: _DepthToSpace))


def _shuffle(opdef, input, block_size, data_format, name):  # noqa: A002
    op = opdef.name
    if isinstance(block_size, Tensor):
        block_size = U.constant_value(block_size)
    block_size = _int_attr(block_size, "block_size")
    if not isinstance(data_format, str):
        raise TypeError(f"Expected string for argument 'data_format' not {data_format!r}.")
    eager = _state.graph is None
    if data_format not in _FORMATS:
        if eager:
            raise _IAE(None, None, f"Value for attr 'data_format' of \"{data_format}\" is not in "
                       "the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"\n\t; "
                       f"NodeDef: {{{{node {op}}}}} [Op:{op}]")
        raise ValueError(f"Attr 'data_format' of '{op}' Op passed string '{data_format}' not "
                         "in: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\".")
    if block_size < 2:
        if eager:
            raise _IAE(None, None, f"Value for attr 'block_size' of {block_size} must be at "
                       f"least minimum 2\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]")
        raise ValueError(f"Attr 'block_size' of '{op}' Op passed {block_size} less than "
                         "minimum 2.")
    x = convert_to_tensor(input, name="input")
    if eager and data_format != "NHWC":
        raise _no_cpu_kernel(op, x.dtype, block_size, data_format)
    return apply1(opdef, x, {"block_size": block_size, "data_format": data_format},
                  name=name or op)


@export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves blocks of `block_size**2` channels into `block_size` x
    `block_size` spatial blocks: `[n, h, w, c]` becomes
    `[n, h*bs, w*bs, c/bs**2]` (the inverse of `space_to_depth`).

    Raises:
      InvalidArgumentError: (eager) if the depth is not divisible by
        `block_size**2`, the input is not 4-D, `block_size` < 2;
        NotFoundError for NCHW (TensorFlow's CPU kernel is NHWC only);
        ValueError in graphs.
    """
    return _shuffle(_DepthToSpace, input, block_size, data_format, name)


@export("compat.v1.depth_to_space", "compat.v1.nn.depth_to_space")
def depth_to_space_v1(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """TensorFlow 1's `depth_to_space` (`name` before `data_format`)."""
    return depth_to_space(input, block_size, data_format, name)


@export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves each `block_size` x `block_size` spatial block into channels:
    `[n, h, w, c]` becomes `[n, h/bs, w/bs, c*bs**2]` (the inverse of
    `depth_to_space`).

    Raises:
      InvalidArgumentError: (eager) if the height or width is not divisible
        by `block_size`, the input is not 4-D, `block_size` < 2;
        NotFoundError for NCHW; ValueError in graphs.
    """
    return _shuffle(_SpaceToDepth, input, block_size, data_format, name)


@export("compat.v1.space_to_depth", "compat.v1.nn.space_to_depth")
def space_to_depth_v1(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """TensorFlow 1's `space_to_depth` (`name` before `data_format`)."""
    return space_to_depth(input, block_size, data_format, name)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_reverse_sequence(ctx, op, x, seq_lengths):
    seq, batch = op.attrs["seq_dim"], op.attrs["batch_dim"]
    j = XL.jnp.arange(XL.jnp.shape(x)[seq])
    lens = XL.jnp.asarray(seq_lengths).astype(np.int64)[:, None]
    src = XL.jnp.where(j < lens, lens - 1 - j, j)        # [batch, seq]
    # Broadcast the per-(batch, position) source index along the other axes.
    shape = [1] * XL.jnp.ndim(x)
    shape[batch], shape[seq] = src.shape[0], src.shape[1]
    order = sorted([batch, seq])
    src = src if order == [batch, seq] else src.T
    return XL.jnp.take_along_axis(x, XL.jnp.broadcast_to(src.reshape(shape), x.shape),
                                  axis=seq)


def _lower_depth_to_space(ctx, op, x):
    n, h, w, c = x.shape
    b = op.attrs["block_size"]
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h * b, w * b, c // (b * b))


def _lower_space_to_depth(ctx, op, x):
    n, h, w, c = x.shape
    b = op.attrs["block_size"]
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h // b, w // b, b * b * c)


def _nhwc_only(rule):
    def lowered(ctx, op, x):
        if op.attrs.get("data_format", "NHWC") != "NHWC":
            raise _IAE(None, op, "%s lowers to XLA for NHWC data only" % op.type)
        return rule(ctx, op, x)
    return lowered


XL.set_lowerings({"ReverseSequence": _lower_reverse_sequence,
                  "DepthToSpace": _nhwc_only(_lower_depth_to_space),
                  "SpaceToDepth": _nhwc_only(_lower_space_to_depth)})

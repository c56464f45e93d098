"""Ops that add, remove or permute dimensions: expand_dims, squeeze, transpose.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from . import op_util as U
from .. import late
from .array_util import _index_input
from .shape_ops import rank, reshape, shape


# --- expand_dims / squeeze ---------------------------------------------------

def _expand_dims_kernel(x, axis):
    if axis.size != 1:
        raise U.op_error("ExpandDims", "'dim' must be a tensor with a single value")
    a = int(np.reshape(axis, -1)[0])
    r = x.ndim
    if not -r - 1 <= a <= r:
        raise U.op_error("ExpandDims", f"Tried to expand dim index {a} for tensor with {r} "
                                       "dimensions.")
    return np.expand_dims(x, a)


def _expand_dims_infer(inputs, attrs):
    x, a = inputs
    n = a.shape.num_elements()
    if n is not None and n != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    axis = U.constant_value(a)
    s = x.shape
    if s.rank is None or axis is None:
        return [(TensorShape(None), x.dtype)]
    axis = int(np.reshape(axis, -1)[0])
    r = s.rank
    if not -r - 1 <= axis <= r:
        raise ValueError(f"dim {axis} not in the interval [{-r - 1}, {r}].")
    dims = s.as_list()
    dims.insert(axis % (r + 1), 1)
    return [(TensorShape(dims), x.dtype)]


_ExpandDims = register("ExpandDims", _expand_dims_kernel, _expand_dims_infer,
                       lambda op, g: [reshape(g, shape(op.inputs[0])), None])


@export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002
    """Inserts a dimension of size 1 at `axis` (negative counts from the end)."""
    x = convert_to_tensor(input)
    if isinstance(axis, float):
        axis = convert_to_tensor(axis, dtype=D.int32)  # raises TypeError, as TensorFlow does
    a = _index_input(axis, "ExpandDims", "dim", "Tdim")
    return apply2(_ExpandDims, x, a, name=name or "ExpandDims")


def _squeeze_kernel(x, squeeze_dims):
    r = x.ndim
    if not squeeze_dims:
        return np.reshape(x, [d for d in x.shape if d != 1])
    axes = set()
    for a in squeeze_dims:
        if not -r <= a < r:
            raise U.op_error("Squeeze", f"Tried to squeeze dim index {a} for tensor with {r} "
                                        "dimensions.")
        a %= r
        if x.shape[a] != 1:
            raise U.op_error("Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, "
                                        f"got {x.shape[a]}")
        axes.add(a)
    return np.reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def _squeeze_infer(inputs, attrs):
    x = inputs[0]
    s = x.shape
    axes = attrs["squeeze_dims"]
    if s.rank is None:
        return [(TensorShape(None), x.dtype)]
    r = s.rank
    if not axes:
        if any(d is None for d in s):
            return [(TensorShape(None), x.dtype)]
        return [(TensorShape([d for d in s if d != 1]), x.dtype)]
    norm = set()
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise ValueError(f"squeeze_dims[{i}] not in [{-r},{r}).")
        a %= r
        if s[a] is not None and s[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {s[a]}")
        norm.add(a)
    return [(TensorShape([d for i, d in enumerate(s) if i not in norm]), x.dtype)]


_Squeeze = register("Squeeze", _squeeze_kernel, _squeeze_infer,
                    lambda op, g: [reshape(g, shape(op.inputs[0]))])


@export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those listed in `axis`).

    Raises:
      InvalidArgumentError (eager) / ValueError (graph): if a listed
        dimension is not 1 or out of range.
    """
    x = convert_to_tensor(input)
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    axes = [int(a) for a in axis] if axis is not None else []
    return apply1(_Squeeze, x, {"squeeze_dims": axes}, name=name or "Squeeze")


# --- transpose ---------------------------------------------------------------

def _transpose_check(x, perm, op_name):
    r = x.ndim
    if perm.ndim != 1 or perm.size != r:
        raise U.op_error(op_name, f"transpose expects a vector of size {r}. But input(1) is a "
                                  f"vector of size {perm.size}")
    p = [int(v) for v in perm]
    seen = [False] * r
    for v in p:
        if not -r <= v < r:
            raise U.op_error(op_name, f"{v} is out of range [0 .. {r})")
        seen[v % r] = True
    for i, ok in enumerate(seen):
        if not ok:
            raise U.op_error(op_name, f"{i} is missing from {{{','.join(str(v) for v in p)}}}.")
    return p


def _transpose_kernel(x, perm):
    return np.transpose(x, _transpose_check(x, perm, "Transpose"))


def _conjugate_transpose_kernel(x, perm):
    return np.conj(np.transpose(x, _transpose_check(x, perm, "ConjugateTranspose")))


def _transpose_infer(inputs, attrs):
    x, p = inputs
    s = x.shape
    if p.shape.rank is not None and p.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {p.shape.rank}")
    perm = U.constant_value(p)
    n = p.shape[0] if p.shape.rank == 1 else None
    if s.rank is not None and n is not None and n != s.rank:
        raise ValueError(f"Dimension must be {s.rank} but is {n}")
    if perm is None:
        r = s.rank if s.rank is not None else n
        return [(TensorShape(None) if r is None else TensorShape([None] * r), x.dtype)]
    perm = [int(v) for v in np.reshape(perm, -1)]
    if s.rank is None:
        return [(TensorShape([None] * len(perm)), x.dtype)]
    r = s.rank
    for v in perm:
        if not -r <= v < r:
            raise ValueError(f"perm dim {v} is out of range of input rank {r}")
    return [(TensorShape([s[v % r] for v in perm]), x.dtype)]


def _inverse_permutation(perm):
    p = U.constant_value(perm)
    if p is not None:
        p = np.reshape(p, -1).astype(np.int64)
        p = p % max(len(p), 1)
        return convert_to_tensor(np.argsort(p).astype(np.int32))
    return late.invert_permutation(perm)


def _transpose_grad(op, g):
    return [transpose(g, _inverse_permutation(op.inputs[1]),
                      conjugate=op.type == "ConjugateTranspose"), None]


_Transpose = register("Transpose", _transpose_kernel, _transpose_infer, _transpose_grad)
_ConjugateTranspose = register("ConjugateTranspose", _conjugate_transpose_kernel,
                               _transpose_infer, _transpose_grad)


@export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (reverses them when `perm` is None); with
    `conjugate`, complex values are also conjugated."""
    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.rank
        if r is None:
            perm = late.range(rank(x) - 1, -1, -1)
        else:
            perm = np.arange(r - 1, -1, -1, dtype=np.int32)
    p = _index_input(perm, "Transpose", "perm", "Tperm")
    op = _ConjugateTranspose if conjugate and x.dtype.is_complex else _Transpose
    return apply2(op, x, p, name=name)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_squeeze(ctx, op, x):
    dims = op.attrs.get("squeeze_dims") or None
    return XL.jnp.squeeze(x, axis=None if dims is None else tuple(dims))


XL.set_lowerings({
    "ExpandDims": lambda ctx, op, x, axis: XL.jnp.expand_dims(
        x, XL.ints(ctx.static(op, 1, axis))[0]),
    "Squeeze": _lower_squeeze,
    "Transpose": lambda ctx, op, x, perm: XL.jnp.transpose(x, XL.ints(ctx.static(op, 1, perm))),
    "ConjugateTranspose": lambda ctx, op, x, perm: XL.jnp.conj(
        XL.jnp.transpose(x, XL.ints(ctx.static(op, 1, perm))))})

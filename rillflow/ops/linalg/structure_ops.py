"""Ops that pick out or rearrange the entries of (batches of) matrices:
diagonals (`diag`, `diag_part`, `set_diag`: MatrixDiagV3, MatrixDiagPartV3,
MatrixSetDiagV3), `trace`, bands (`band_part`: MatrixBandPart) and transposes
(`matrix_transpose`, `adjoint`)."""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from .linalg_util import _scope, _invalid
from ..core.constant_ops import zeros_like
from ..core.creation_ops import range as range_
from ..core.dim_ops import transpose
from ..core.join_ops import concat, stack
from ..core.reduction_ops import reduce_sum
from ..core.shape_ops import rank as rank_


# =============================================================================
# diagonals
# =============================================================================

def _k_pair(k):
    k = np.reshape(np.asarray(k), -1)
    if k.size == 1:
        return int(k[0]), int(k[0])
    if k.size != 2:
        raise _invalid(f"k must have at most two elements, got {k.size}")
    lo, hi = int(k[0]), int(k[1])
    if lo > hi:
        raise _invalid(f"lower_diag_index must not be larger than upper_diag_index: "
                       f"{lo} > {hi}")
    return lo, hi


def _diag_len(d, rows, cols):
    return max(0, min(rows + min(d, 0), cols - max(d, 0)))


def _align_offset(d, length, max_len, align):
    """Where diagonal d starts within its padded row."""
    upper, _, lower = align.partition("_")
    side = upper if d >= 0 else lower
    return max_len - length if side == "RIGHT" else 0


def _diag_indices(d, length):
    i = np.arange(length)
    return (i, i + d) if d >= 0 else (i - d, i)


def _check_align(align):
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(f"align must be one of RIGHT_LEFT, LEFT_RIGHT, LEFT_LEFT, RIGHT_RIGHT; "
                         f"got {align!r}")


def _diagonals(lo, hi, rows, cols, max_len, align):
    """Where each non-empty diagonal d = hi..lo of a rows x cols matrix sits:
    its row in the packed [.., hi - lo + 1, max_len] form, its matrix indices
    and its slice of that packed row."""
    for row, d in enumerate(range(hi, lo - 1, -1)):
        n = _diag_len(d, rows, cols)
        if n:
            r, c = _diag_indices(d, n)
            off = _align_offset(d, n, max_len, align)
            yield row, r, c, slice(off, off + n)


def _diag_part_kernel(x, k, padding_value, align="RIGHT_LEFT"):
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}",
                       "MatrixDiagPartV3")
    lo, hi = _k_pair(k)
    rows, cols = x.shape[-2:]
    if rows or cols:
        for which, d in (("lower", lo), ("upper", hi)):
            # Diagonal 0 of an empty matrix is empty, not out of bounds.
            if not (-rows < d < cols or d == 0):
                raise _invalid(f"{which}_diag_index is out of bound: {d}. It must be between "
                               f"{-rows} and {cols}")
    max_len = max(_diag_len(d, rows, cols) for d in range(lo, hi + 1))
    batch = x.shape[:-2]
    out = np.full(batch + (hi - lo + 1, max_len), padding_value, dtype=x.dtype)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., row, span] = x[..., r, c]
    return out[..., 0, :] if lo == hi else out


def _k_static(k):
    v = U.constant_value(k)
    if v is None:
        return None
    v = np.reshape(v, -1)
    return (int(v[0]), int(v[-1]))


def _diag_part_infer(inputs, attrs):
    x, k, pad = inputs
    s = x.shape
    if s.rank is not None and s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if pad.dtype is not x.dtype:
        raise TypeError(f"Input 'padding_value' of 'MatrixDiagPartV3' Op has type "
                        f"{pad.dtype.name} that does not match type {x.dtype.name} of "
                        "argument 'input'.")
    ks = _k_static(k)
    if s.rank is None:
        return [(TensorShape(None), x.dtype)]
    dims = s.as_list()
    rows, cols = dims[-2], dims[-1]
    if ks is None:
        return [(TensorShape(None), x.dtype)]
    lo, hi = ks
    if rows is None or cols is None:
        max_len = None
    else:
        max_len = max(_diag_len(d, rows, cols) for d in range(lo, hi + 1))
    tail = [max_len] if lo == hi else [hi - lo + 1, max_len]
    return [(TensorShape(dims[:-2] + tail), x.dtype)]


def _diag_part_grad(op, g):
    x, k, _ = op.inputs
    return [set_diag(zeros_like(x), g, k=k, align=op.get_attr("align")), None, None]


_MatrixDiagPartV3 = register("MatrixDiagPartV3", _diag_part_kernel, _diag_part_infer,
                             _diag_part_grad)


def _diag_out_dims(lo, hi, max_len, num_rows, num_cols):
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    return num_rows, num_cols


def _diag_kernel(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
    lo, hi = _k_pair(k)
    nd = hi - lo + 1
    if lo == hi:
        if diagonal.ndim < 1:
            raise _invalid("diagonal must be at least 1-dim, received shape: []",
                           "MatrixDiagV3")
        diagonal = diagonal[..., None, :]
    elif diagonal.ndim < 2 or diagonal.shape[-2] != nd:
        raise _invalid("The number of diagonals provided in the input does not match the "
                       "lower_diag_index and upper_diag_index range.")
    max_len = diagonal.shape[-1]
    num_rows, num_cols = int(num_rows), int(num_cols)
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if num_rows != -1 and num_rows < min_rows:
        raise _invalid("The number of rows is too small.")
    if num_cols != -1 and num_cols < min_cols:
        raise _invalid("The number of columns is too small.")
    rows, cols = _diag_out_dims(lo, hi, max_len, num_rows, num_cols)
    if rows != min_rows and cols != min_cols:
        raise _invalid("The number of rows or columns is not consistent with the specified "
                       "d_lower, d_upper, and diagonal.")
    batch = diagonal.shape[:-2]
    out = np.full(batch + (rows, cols), padding_value, dtype=diagonal.dtype)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., r, c] = diagonal[..., row, span]
    return out


def _diag_infer(inputs, attrs):
    diag_t, k, nr, nc, pad = inputs
    s = diag_t.shape
    ks = _k_static(k)
    nrv, ncv = U.constant_value(nr), U.constant_value(nc)
    if s.rank is None or ks is None or nrv is None or ncv is None:
        return [(TensorShape(None), diag_t.dtype)]
    lo, hi = ks
    dims = s.as_list()
    if lo == hi:
        if s.rank < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        batch, max_len = dims[:-1], dims[-1]
    else:
        if s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
        batch, max_len = dims[:-2], dims[-1]
    if max_len is None:
        rows = None if int(nrv) == -1 else int(nrv)
        cols = None if int(ncv) == -1 else int(ncv)
    else:
        rows, cols = _diag_out_dims(lo, hi, max_len, int(nrv), int(ncv))
    return [(TensorShape(batch + [rows, cols]), diag_t.dtype)]


def _diag_grad(op, g):
    k = op.inputs[1]
    return [diag_part(g, k=k, align=op.get_attr("align")), None, None, None, None]


_MatrixDiagV3 = register("MatrixDiagV3", _diag_kernel, _diag_infer, _diag_grad)


def _set_diag_kernel(x, diagonal, k, align="RIGHT_LEFT"):
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}",
                       "MatrixDiagPartV3")
    lo, hi = _k_pair(k)
    rows, cols = x.shape[-2:]
    max_len = max(_diag_len(d, rows, cols) for d in range(lo, hi + 1))
    expected = x.shape[:-2] + ((max_len,) if lo == hi else (hi - lo + 1, max_len))
    if diagonal.shape != expected:
        raise _invalid(
            "Either first dimensions of diagonal don't match input.shape[:-2], or "
            "diagonal.shape[:-1] is not equal to the longests diagonal in range "
            f"[lower_diag_index:upper_diag_index].\nInput shape: {dims_text(x.shape)}\n"
            f"Diagonal shape: {dims_text(diagonal.shape)}\nExpected diagonal shape: "
            f"{dims_text(expected)}", "MatrixSetDiagV3")
    if lo == hi:
        diagonal = diagonal[..., None, :]
    out = np.array(x, copy=True)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, align):
        out[..., r, c] = diagonal[..., row, span]
    return out


def _set_diag_infer(inputs, attrs):
    x, diag_t, k = inputs
    if diag_t.dtype is not x.dtype:
        raise TypeError(f"Input 'diagonal' of 'MatrixSetDiagV3' Op has type {diag_t.dtype.name} "
                        f"that does not match type {x.dtype.name} of argument 'input'.")
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank}")
    return [(x.shape, x.dtype)]


def _set_diag_grad(op, g):
    x, diag_t, k = op.inputs
    align = op.get_attr("align")
    return [set_diag(g, zeros_like(diag_t), k=k, align=align),
            diag_part(g, k=k, align=align), None]


_MatrixSetDiagV3 = register("MatrixSetDiagV3", _set_diag_kernel, _set_diag_infer,
                            _set_diag_grad)


@export("linalg.diag", "compat.v1.matrix_diag", "compat.v1.linalg.diag")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """A (batch of) matrix with the given diagonal(s), padding elsewhere.

    `k` is one diagonal offset or a (low, high) band; `num_rows`/`num_cols`
    default to the smallest square that holds the diagonals.
    """
    _check_align(align)
    d = convert_to_tensor(diagonal)
    ins = [d, convert_to_tensor(k, dtype=D.int32),
           convert_to_tensor(num_rows, dtype=D.int32),
           convert_to_tensor(num_cols, dtype=D.int32),
           _padding(padding_value, d.dtype)]
    return apply(_MatrixDiagV3, ins, {"align": align}, name=name or "diag")


def _padding(padding_value, dtype):
    """The padding value as a tensor of `dtype`; the default 0 pads a bool
    matrix with False, as in TensorFlow."""
    if dtype is D.bool_ and isinstance(padding_value, (int, float)) and \
            not isinstance(padding_value, bool):
        padding_value = bool(padding_value)
    return convert_to_tensor(padding_value, dtype=dtype)


@export("linalg.diag_part", "compat.v1.matrix_diag_part", "compat.v1.linalg.diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
              align="RIGHT_LEFT"):
    """The diagonal(s) of a (batch of) matrix; `k` as in `diag`."""
    _check_align(align)
    x = convert_to_tensor(input)
    ins = [x, convert_to_tensor(k, dtype=D.int32), _padding(padding_value, x.dtype)]
    return apply(_MatrixDiagPartV3, ins, {"align": align}, name=name or "diag_part")


@export("linalg.set_diag", "compat.v1.matrix_set_diag", "compat.v1.linalg.set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """`input` with its diagonal(s) replaced by `diagonal`; `k` as in `diag`."""
    _check_align(align)
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype_hint=x.dtype)
    return apply(_MatrixSetDiagV3, [x, d, convert_to_tensor(k, dtype=D.int32)],
                 {"align": align}, name=name or "set_diag")


@export("linalg.trace", "compat.v1.trace")
def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    with _scope(name or "Trace"):
        x = convert_to_tensor(x)
        return reduce_sum(diag_part(x), [-1])


# =============================================================================
# bands
# =============================================================================

def _band_part_kernel(x, num_lower, num_upper):
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}",
                       "MatrixBandPart")
    rows, cols = x.shape[-2:]
    lo, up = int(num_lower), int(num_upper)
    if lo > rows:
        raise _invalid(f"num_lower must be negative or less or equal to number of rows "
                       f"({rows}) got: {lo}")
    if up > cols:
        raise _invalid(f"num_upper must be negative or less or equal to number of columns "
                       f"({cols}) got: {up}")
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    mask = np.ones((rows, cols), dtype=bool)
    if lo >= 0:
        mask &= (i - j) <= lo
    if up >= 0:
        mask &= (j - i) <= up
    return np.where(mask, x, np.zeros((), dtype=x.dtype))


def _band_part_infer(inputs, attrs):
    x, lo, up = inputs
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank}")
    for t, n in ((lo, "num_lower"), (up, "num_upper")):
        U.check_graph_dtype(t, U.INDEX, n)
    return [(x.shape, x.dtype)]


_MatrixBandPart = register(
    "MatrixBandPart", _band_part_kernel, _band_part_infer,
    lambda op, g: [band_part(g, op.inputs[1], op.inputs[2]), None, None])


@export("linalg.band_part", "compat.v1.matrix_band_part", "compat.v1.linalg.band_part")
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps a band of each innermost matrix and zeroes the rest.

    Entry (i, j) is kept when (num_lower < 0 or i - j <= num_lower) and
    (num_upper < 0 or j - i <= num_upper).
    """
    x = convert_to_tensor(input)
    lo = num_lower if isinstance(num_lower, Tensor) else convert_to_tensor(num_lower,
                                                                          dtype=D.int64)
    up = num_upper if isinstance(num_upper, Tensor) else convert_to_tensor(num_upper,
                                                                          dtype=lo.dtype)
    return apply(_MatrixBandPart, [x, lo, up], name=name or "MatrixBandPart")


# =============================================================================
# transposes
# =============================================================================

@export("linalg.matrix_transpose", "compat.v1.matrix_transpose", "compat.v1.linalg.transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the two innermost dimensions (conjugating if asked).

    Raises:
      ValueError: if `a` has known rank below 2.
    """
    with _scope(name or "matrix_transpose"):
        x = convert_to_tensor(a)
        r = x.shape.rank
        if r is not None:
            if r < 2:
                raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                                 f"Received `a` = {a} with shape: {x.shape}")
            perm = list(range(r - 2)) + [r - 1, r - 2]
        else:
            n = rank_(x)
            perm = concat([range_(n - 2), stack([n - 1, n - 2])], 0)
        return transpose(x, perm, conjugate=conjugate)


@export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of the two innermost dimensions."""
    with _scope(name or "adjoint"):
        return matrix_transpose(matrix, conjugate=True)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------
# The diagonals' positions are static (k and the shapes are): the kernels'
# index arithmetic (`_diagonals`) drives gathers and `.at[]` updates.

def _lower_diag_part(ctx, op, x, k, padding_value):
    lo, hi = _k_pair(ctx.static(op, 1, k))
    rows, cols = XL.jnp.shape(x)[-2:]
    max_len = max(_diag_len(d, rows, cols) for d in range(lo, hi + 1))
    out = XL.jnp.full(XL.jnp.shape(x)[:-2] + (hi - lo + 1, max_len), padding_value, x.dtype)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, op.attrs.get("align",
                                                                               "RIGHT_LEFT")):
        out = out.at[..., row, span].set(x[..., r, c])
    return out[..., 0, :] if lo == hi else out


def _lower_diag(ctx, op, diagonal, k, num_rows, num_cols, padding_value):
    lo, hi = _k_pair(ctx.static(op, 1, k))
    if lo == hi:
        diagonal = diagonal[..., None, :]
    max_len = XL.jnp.shape(diagonal)[-1]
    rows, cols = _diag_out_dims(lo, hi, max_len, XL.ints(ctx.static(op, 2, num_rows))[0],
                                XL.ints(ctx.static(op, 3, num_cols))[0])
    out = XL.jnp.full(XL.jnp.shape(diagonal)[:-2] + (rows, cols), padding_value,
                      diagonal.dtype)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, op.attrs.get("align",
                                                                               "RIGHT_LEFT")):
        out = out.at[..., r, c].set(diagonal[..., row, span])
    return out


def _lower_set_diag(ctx, op, x, diagonal, k):
    lo, hi = _k_pair(ctx.static(op, 2, k))
    rows, cols = XL.jnp.shape(x)[-2:]
    max_len = max(_diag_len(d, rows, cols) for d in range(lo, hi + 1))
    if lo == hi:
        diagonal = diagonal[..., None, :]
    out = XL.jnp.asarray(x)
    for row, r, c, span in _diagonals(lo, hi, rows, cols, max_len, op.attrs.get("align",
                                                                               "RIGHT_LEFT")):
        out = out.at[..., r, c].set(diagonal[..., row, span])
    return out


def _lower_band_part(ctx, op, x, num_lower, num_upper):
    rows, cols = XL.jnp.shape(x)[-2:]
    i = XL.jnp.arange(rows)[:, None]
    j = XL.jnp.arange(cols)[None, :]
    mask = XL.jnp.logical_and(XL.jnp.logical_or(num_lower < 0, (i - j) <= num_lower),
                              XL.jnp.logical_or(num_upper < 0, (j - i) <= num_upper))
    return XL.jnp.where(mask, x, XL.jnp.zeros((), x.dtype))


XL.set_lowerings({"MatrixDiagPartV3": _lower_diag_part, "MatrixDiagV3": _lower_diag,
                  "MatrixSetDiagV3": _lower_set_diag, "MatrixBandPart": _lower_band_part})

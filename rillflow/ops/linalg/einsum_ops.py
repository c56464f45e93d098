"""Contractions over named axes: `einsum` (Einsum: equation parsing, shape
checks, the kernel and its gradient) and `tensordot`, which is built from the
public ops (transpose/reshape/`matmul`, or an einsum for partially known
shapes, or for unknown ranks the axes computed in the graph), as in
TensorFlow, so its gradient comes for free."""
import collections
import functools
import re

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import COMPLEX, FLOATS
from .linalg_util import _state, _INTS_BIG, _F16, _scope, _invalid
from .matmul_ops import matmul
from .structure_ops import band_part
from ..core.broadcast_ops import broadcast_to, where
from ..core.creation_ops import range as crange
from ..core.gather_ops import boolean_mask, gather
from ..core.join_ops import concat, stack
from ..core.constant_ops import ones_like
from ..core.dim_ops import expand_dims, transpose
from ..core.math_ops import _sum_to, conj, not_equal
from ..core.reduction_ops import reduce_all, reduce_prod, reduce_sum
from ..core.shape_ops import rank, reshape, shape


_EINSUM_NP = frozenset(d._np for d in FLOATS + _INTS_BIG + COMPLEX)

# Two-operand einsums above this many multiply-adds go through BLAS
# (`optimize=True` costs ~40us of planning, which small products cannot repay).
_EINSUM_OPT_WORK = 100000


# =============================================================================
# einsum
# =============================================================================

_EQ_RE = re.compile(r"^(?:[a-zA-Z]|\.\.\.)*(?:,(?:[a-zA-Z]|\.\.\.)*)*(?:->(?:[a-zA-Z]|\.\.\.)*)?$")


def _labels(sub):
    return sub.replace("...", "")


@functools.lru_cache(maxsize=512)
def _parse_equation(equation, n):
    """(input subscripts, output subscripts, normalized equation) of an einsum.

    In implicit mode the output is the labels that occur once, sorted, and
    (as in TensorFlow) no ellipsis.
    """
    eq = "".join(equation.split())
    if not _EQ_RE.match(eq) or any(s.count("...") > 1 for s in re.split(",|->", eq)):
        raise ValueError(f"Subscripts have incorrect format: {equation}")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != n:
        raise ValueError(f'Got {n} inputs for equation "{equation}", expecting {len(subs)}')
    counts = collections.Counter(_labels(lhs.replace(",", "")))
    if not arrow:
        out = "".join(sorted(l for l, c in counts.items() if c == 1))
    out_labels = _labels(out)
    if len(set(out_labels)) != len(out_labels):
        raise ValueError(f"Output subscripts contain a label appearing more than once: "
                         f"{equation}")
    for l in out_labels:
        if l not in counts:
            raise ValueError(f"Output subscripts contain the label {l} not present in the "
                             "input subscripts.")
    if "..." in out and not any("..." in s for s in subs):
        raise ValueError(f"Output subscripts contain an ellipsis (...) but no input does: "
                         f"{equation}")
    return tuple(subs), out, ",".join(subs) + "->" + out


def _split_ellipsis(sub, dims):
    """(label dims, ellipsis dims) of one operand's dims for subscripts `sub`."""
    if "..." not in sub:
        return list(dims), []
    pre, post = sub.split("...")
    end = len(dims) - len(post)
    return list(dims[:len(pre)]) + list(dims[end:]), list(dims[len(pre):end])


@functools.lru_cache(maxsize=512)
def _operand_layout(equation, n):
    """Per operand: (labels, has ellipsis, number of labels before it)."""
    subs, _, _ = _parse_equation(equation, n)
    return tuple((_labels(s), "..." in s, s.find("...") if "..." in s else len(s))
                 for s in subs)


@functools.lru_cache(maxsize=1024)
def _einsum_check(equation, shapes):
    """Validates concrete operand shapes (a tuple of tuples); returns the total
    multiply-add count. Cached: eager code repeats the same shapes."""
    label_dim = {}
    ells = []
    for i, ((labels, has_ell, npre), shp) in enumerate(zip(_operand_layout(equation,
                                                                           len(shapes)),
                                                           shapes)):
        nl = len(labels)
        ne = len(shp) - nl
        if has_ell:
            if ne < 0:
                raise _invalid(f"Expected input {i} to have rank at least {nl} but got: "
                               f"{len(shp)}")
            if ne:
                ells.append(shp[npre:npre + ne])
                shp_l = shp[:npre] + shp[npre + ne:]
            else:
                shp_l = shp
        elif ne:
            raise _invalid(f"Expected input {i} to have rank {nl} but got: {len(shp)}")
        else:
            shp_l = shp
        for j, (l, d) in enumerate(zip(labels, shp_l)):
            prev = label_dim.setdefault(l, d)
            if prev != d:
                axis = j if j < npre else j + ne
                raise _invalid(f"Expected dimension {prev} at axis {axis} of the input shaped "
                               f"{dims_text(shp)} but got dimension {d}", "Einsum")
    work = 1
    for d in label_dim.values():
        work *= d
    if ells:
        try:
            bshape = np.broadcast_shapes(*ells)
        except ValueError:
            raise _invalid("Invalid broadcasting dimensions: " + " vs. ".join(
                dims_text(s) for s in shapes), "Einsum") from None
        if bshape and "..." not in equation.partition("->")[2]:
            raise _invalid(f"Output contains {len(bshape)} broadcasting dimension(s) but no "
                           "ellipsis (...) was found in the output subscripts.")
        for d in bshape:
            work *= d
    return work


def _einsum_kernel(*xs, equation, N=None):
    dt = xs[0].dtype
    if dt not in _EINSUM_NP:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node Einsum}}}} = Einsum"
            f"[T=DT_{D.from_numpy(dt).name.upper()}]: no CPU kernel for this dtype")
    eq = _parse_equation(equation, len(xs))[2]
    work = _einsum_check(eq, tuple([x.shape for x in xs]))
    if dt == _F16 or dt.name == "bfloat16":
        # half types accumulate in float32 (NumPy's einsum has no bfloat16 loop)
        return np.einsum(eq, *[x.astype(np.float32) for x in xs]).astype(dt)
    if len(xs) == 2 and work > _EINSUM_OPT_WORK:
        res = np.einsum(eq, *xs, optimize=True)
    else:
        res = np.einsum(eq, *xs)
    if res.dtype != dt:  # optimized paths may promote integer products
        res = res.astype(dt)
    return res


def _einsum_infer(inputs, attrs):
    eq = attrs["equation"]
    subs, out, _ = _parse_equation(eq, len(inputs))
    dtype = inputs[0].dtype
    if any(t.dtype is not dtype for t in inputs):
        raise TypeError(f"Tensors in list passed to 'inputs' of 'Einsum' Op have types "
                        f"[{', '.join(t.dtype.name for t in inputs)}] that don't all match.")
    label_dim = {}
    ell = TensorShape([])
    ell_unknown = False
    for i, (sub, t) in enumerate(zip(subs, inputs)):
        labels = _labels(sub)
        s = t.shape
        if s.rank is None:
            ell_unknown = ell_unknown or "..." in sub
            continue
        if "..." in sub:
            if s.rank < len(labels):
                raise ValueError(f"Shape must be at least rank {len(labels)} but is rank "
                                 f"{s.rank} for {i}th input and equation: {eq}")
        elif s.rank != len(labels):
            raise ValueError(f"Shape must be rank {len(labels)} but is rank {s.rank} for "
                             f"{i}th input and equation: {eq}")
        dims, e = _split_ellipsis(sub, s.as_list())
        ell = U.broadcast_shapes(ell, TensorShape(e))
        for l, d in zip(labels, dims):
            prev = label_dim.get(l)
            if prev is None:
                label_dim[l] = d
            elif d is not None and d != prev:
                raise ValueError(f"Dimensions must be equal, but are {prev} and {d}")
    if "..." in out:
        if ell_unknown:
            return [(TensorShape(None), dtype)]
        pre, post = out.split("...")
        dims = ([label_dim.get(l) for l in pre] + ell.as_list()
                + [label_dim.get(l) for l in post])
    else:
        if not ell_unknown and ell.rank:
            raise ValueError(f"Output contains {ell.rank} broadcasting dimension(s) but no "
                             "ellipsis (...) was found in the output subscripts.")
        dims = [label_dim.get(l) for l in out]
    return [(TensorShape(dims), dtype)]


def _einsum_op(equation, xs, name=None):
    """One Einsum op (one or two operands) for a normalized equation."""
    return apply(_Einsum, list(xs), {"equation": equation, "N": len(xs)}, name=name or "Einsum")


def _unique(seq):
    out = []
    for c in seq:
        if c not in out:
            out.append(c)
    return out


def _tokens(sub):
    """The subscripts as a list of labels, the ellipsis being one token."""
    out = []
    i = 0
    while i < len(sub):
        if sub.startswith("...", i):
            out.append("...")
            i += 3
        else:
            out.append(sub[i])
            i += 1
    return out


def _einsum_grad(op, g):
    subs, out, _ = _parse_equation(op.get_attr("equation"), len(op.inputs))
    return [_einsum_operand_grad(subs, out, op.inputs, k, g) for k in range(len(op.inputs))]


def _einsum_operand_grad(subs, out, inputs, k, g):
    """The gradient for operand `k`: contract the output gradient with the
    other operands, then undo what the forward pass did to the operand
    (summed-out labels are broadcast back, repeated labels become a
    diagonal, broadcast ellipsis dimensions are summed)."""
    x = inputs[k]
    if not (x.dtype.is_floating or x.dtype.is_complex):
        return None
    sub = subs[k]
    others = [(s, conj(t)) for j, (s, t) in enumerate(zip(subs, inputs)) if j != k]
    other_labels = set(_labels(out)).union(*[set(_labels(s)) for s, _ in others])
    toks = _tokens(sub)
    keep = [l for l in _unique(_labels(sub)) if l in other_labels]
    ell_out = "..." in out or any("..." in s for s, _ in others)
    lhs = ",".join([out] + [s for s, _ in others])
    rhs = ("..." if ell_out else "") + "".join(keep)
    grad = g if lhs == rhs else _einsum_op(lhs + "->" + rhs, [g] + [t for _, t in others])
    rank = x.shape.rank
    has_ell = "..." in sub
    # How many dimensions x's ellipsis covers (None: unknown rank).
    if not has_ell:
        e_x = 0
    elif rank is not None:
        e_x = rank - len(_labels(sub))
    else:
        e_x = None
    if ell_out:
        grad = _reduce_ellipsis(grad, x, sub, keep, e_x)
    # Now `grad` holds [x's ellipsis dims..., keep...]; lay it out as x.
    order = [t for t in _unique(toks) if t == "..." or t in keep]
    current = (["..."] if has_ell else []) + keep
    if order != current:
        if e_x is None:
            raise ValueError("The gradient of this einsum needs the rank of its operands.")
        pos, p = {}, 0
        for t in current:
            n = e_x if t == "..." else 1
            pos[t] = list(range(p, p + n))
            p += n
        grad = transpose(grad, [i for t in order for i in pos[t]])
    seen = set()
    axis = 0
    expanded = False
    pairs = []
    first_axis = {}
    for t in toks:
        n = (e_x or 0) if t == "..." else 1
        if t != "..." and (t in seen or t not in keep):
            if e_x is None:
                raise ValueError("The gradient of this einsum needs the rank of its operands.")
            grad = expand_dims(grad, axis)
            expanded = True
            if t in seen:
                pairs.append((first_axis[t], axis))
        if t != "...":
            seen.add(t)
            first_axis.setdefault(t, axis)
        axis += n
    if pairs:
        return grad * _diagonal_mask(x, pairs)
    if expanded:
        s = x.shape
        return broadcast_to(grad, s.as_list() if s.is_fully_defined() else shape(x))
    return grad


def _reduce_ellipsis(grad, x, sub, keep, e_x):
    """Sums the broadcast ellipsis dimensions of `grad` ([ell..., keep...]) to x's."""
    s = x.shape
    target = None
    if s.rank is not None:
        dims, ell = _split_ellipsis(sub, s.as_list())
        label_dim = dict(zip(_labels(sub), dims))
        target = TensorShape(ell + [label_dim[l] for l in keep])
    gs = grad.shape
    if target is not None and target.is_fully_defined() and gs.is_fully_defined():
        gt, tt = gs.as_list(), target.as_list()
        if gt == tt:
            return grad
        lead = len(gt) - len(tt)
        axes = list(range(lead)) + [i + lead for i, d in enumerate(tt)
                                    if d == 1 and gt[i + lead] != 1]
        if axes:
            grad = reduce_sum(grad, axis=axes)
        return reshape(grad, tt)
    ref = _einsum_op(sub + "->" + ("..." if "..." in sub else "") + "".join(keep), [x])
    return _sum_to(grad, ref)


def _diagonal_mask(x, pairs):
    """1 where the index of axis p equals that of axis q for every pair, else 0,
    in x's shape and dtype."""
    s = x.shape
    if s.is_fully_defined():
        dims = s.as_list()
        m = np.ones(dims, dtype=bool)
        for p, q in pairs:
            sh = [1] * len(dims)
            sh[p] = dims[p]
            sh[q] = dims[q]
            m &= np.eye(dims[p], dims[q], dtype=bool).reshape(sh)
        return constant_value_tensor(m.astype(x.dtype.as_numpy_dtype))
    r = s.rank
    mask = None
    for p, q in pairs:
        perm = [i for i in range(r) if i not in (p, q)] + [p, q]
        inv = [perm.index(i) for i in range(r)]
        eye = transpose(band_part(transpose(ones_like(x), perm), 0, 0), inv)
        mask = eye if mask is None else mask * eye
    return mask


_Einsum = register("Einsum", _einsum_kernel, _einsum_infer, _einsum_grad)


def _pairwise_plan(subs, out):
    """Equations contracting operands left to right, two at a time."""
    plan = []
    cur = subs[0]
    for j in range(1, len(subs)):
        nxt = subs[j]
        if j == len(subs) - 1:
            res = out
        else:
            later = set(_labels(out)).union(*[set(_labels(s)) for s in subs[j + 1:]])
            keep = [l for l in _unique(_labels(cur) + _labels(nxt)) if l in later]
            ell = "..." in cur or "..." in nxt
            res = ("..." if ell else "") + "".join(keep)
        plan.append(cur + "," + nxt + "->" + res)
        cur = res
    return plan


@export("einsum", "linalg.einsum", "compat.v1.einsum")
def einsum(equation, *inputs, **kwargs):
    """Tensor contraction over subscripts (`tf.einsum`), e.g. 'ij,jk->ik'.

    Supports the ellipsis (broadcast batch dimensions), repeated labels
    (diagonals) and implicit outputs; more than two operands are contracted
    two at a time. Keyword arguments: `name`, `optimize` (ignored).

    Raises:
      ValueError: malformed subscripts, wrong number of operands, or (graph)
        shapes that do not fit the subscripts.
      InvalidArgumentError: (eager) shapes that do not fit the subscripts.
    """
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. Valid "
                        "arguments: name, optimize, greedy.")
    if all(t.__class__ is EagerTensor for t in inputs):
        xs = list(inputs)
    else:
        hint = next((t.dtype for t in inputs if isinstance(t, Tensor)), None)
        xs = [convert_to_tensor(t, dtype_hint=hint) for t in inputs]
    subs, out, eq = _parse_equation(equation, len(xs))
    if _state.graph is None:
        for i, t in enumerate(xs[1:], 1):
            if t.dtype is not xs[0].dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute Einsum as input #{i}(zero-based) was expected "
                    f"to be a {U.tf_type_name(xs[0].dtype)} tensor but is a "
                    f"{U.tf_type_name(t.dtype)} tensor [Op:Einsum]")
        if len(xs) <= 2:
            return apply(_Einsum, xs, {"equation": eq, "N": len(xs)})
    with _scope(name or "einsum"):
        if len(xs) <= 2:
            return _einsum_op(eq, xs)
        cur = xs[0]
        for step, x in zip(_pairwise_plan(subs, out), xs[1:]):
            cur = _einsum_op(step, [cur, x])
        return cur


# =============================================================================
# tensordot
# =============================================================================

def _tensordot_axes(a, b, axes):
    """The contraction axes of a and b as two lists of ints."""
    if isinstance(axes, Tensor):
        v = U.constant_value(axes)
        if v is None:
            raise ValueError("tensordot needs `axes` known while building the graph.")
        axes = v.tolist()
    if isinstance(axes, np.ndarray):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {n}.")
        ra, rb = a.shape.rank, b.shape.rank
        if ra is None or rb is None:
            raise ValueError("tensordot with an integer `axes` needs operands of known rank.")
        if n > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {a}.  Received {n}, vs tensor dimensions {ra}.")
        if n > rb:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {b}.  Received {n}, vs tensor dimensions {rb}.")
        return list(range(ra - n, ra)), list(range(n))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    a_axes, b_axes = axes
    a_axes = [int(v) for v in (a_axes if isinstance(a_axes, (list, tuple)) else [a_axes])]
    b_axes = [int(v) for v in (b_axes if isinstance(b_axes, (list, tuple)) else [b_axes])]
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != "
                         f"{len(b_axes)}.")
    return a_axes, b_axes


def _norm_axes(axes, rank, which):
    out = []
    for v in axes:
        if rank is not None:
            if not -rank <= v < rank:
                raise ValueError(f"Invalid axis {v} for tensor `{which}` of rank {rank}.")
            v %= rank
        out.append(v)
    return out


@export("tensordot", "linalg.tensordot", "compat.v1.tensordot")
def tensordot(a, b, axes, name=None):
    """Sums the products of `a` and `b` over the given axes (`tf.tensordot`).

    `axes` is an int N (the last N axes of a with the first N of b) or a
    pair of axis lists. Static shapes give TensorFlow's transpose/reshape/
    MatMul graph; partially known shapes are contracted with an einsum.
    """
    with _scope(name or "Tensordot"):
        a, b = U.binary_operands(a, b)
        if a.shape.rank is None or b.shape.rank is None:
            return _tensordot_dynamic(a, b, axes)
        a_axes, b_axes = _tensordot_axes(a, b, axes)
        ra, rb = a.shape.rank, b.shape.rank
        a_axes = _norm_axes(a_axes, ra, "a")
        b_axes = _norm_axes(b_axes, rb, "b")
        if a.shape.is_fully_defined() and b.shape.is_fully_defined():
            return _tensordot_static(a, b, a_axes, b_axes)
        if ra is None or rb is None or any(v < 0 for v in a_axes + b_axes):
            raise ValueError("tensordot needs operands of known rank.")
        letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        la = [next(letters) for _ in range(ra)]
        lb = [next(letters) for _ in range(rb)]
        for i, j in zip(a_axes, b_axes):
            lb[j] = la[i]
        free = [l for i, l in enumerate(la) if i not in a_axes] + \
               [l for j, l in enumerate(lb) if j not in b_axes]
        return einsum("".join(la) + "," + "".join(lb) + "->" + "".join(free), a, b)


def _tensordot_dynamic(a, b, axes):
    """tensordot of operands of unknown rank, as TensorFlow builds it: the
    free and contracted axes computed in the graph, each operand transposed
    and reshaped to a matrix, one MatMul, the product reshaped back."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        rank_a = rank(a)
        a_axes = crange(rank_a - axes, rank_a, dtype=D.int32)
        b_axes = crange(axes, dtype=D.int32)
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        a_axes, b_axes = axes
    elif isinstance(axes, (Tensor, np.ndarray)):
        axes = convert_to_tensor(axes, dtype=D.int32)
        a_axes, b_axes = axes[0], axes[1]
    else:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")

    def as_matrix(t, t_axes, flipped):
        shape_t = shape(t)
        rank_t = rank(t)
        t_axes = convert_to_tensor(t_axes, dtype=D.int32)
        t_axes = where(t_axes >= 0, t_axes, t_axes + rank_t)
        everything = crange(rank_t)
        # The axes not contracted, in order (TensorFlow's ListDiff).
        free = boolean_mask(everything, reduce_all(
            not_equal(expand_dims(everything, 1), expand_dims(t_axes, 0)), axis=1))
        free_dims = gather(shape_t, free)
        prod_free = reduce_prod(free_dims)
        prod_axes = reduce_prod(gather(shape_t, t_axes))
        if flipped:
            perm, new_shape = concat([t_axes, free], 0), stack([prod_axes, prod_free])
        else:
            perm, new_shape = concat([free, t_axes], 0), stack([prod_free, prod_axes])
        return reshape(transpose(t, perm), new_shape), free_dims

    a_matrix, a_free_dims = as_matrix(a, a_axes, False)
    b_matrix, b_free_dims = as_matrix(b, b_axes, True)
    return reshape(matmul(a_matrix, b_matrix), concat([a_free_dims, b_free_dims], 0))


def _tensordot_static(a, b, a_axes, b_axes):
    sa, sb = a.shape.as_list(), b.shape.as_list()
    free_a = [i for i in range(len(sa)) if i not in a_axes]
    free_b = [i for i in range(len(sb)) if i not in b_axes]
    perm_a = free_a + a_axes
    perm_b = b_axes + free_b
    fa = [sa[i] for i in free_a]
    fb = [sb[i] for i in free_b]
    ka = int(np.prod([sa[i] for i in a_axes], dtype=np.int64))
    kb = int(np.prod([sb[i] for i in b_axes], dtype=np.int64))
    m = int(np.prod(fa, dtype=np.int64))
    n = int(np.prod(fb, dtype=np.int64))
    if perm_a != list(range(len(sa))):
        a = transpose(a, perm_a)
    if [sa[i] for i in perm_a] != [m, ka]:
        a = reshape(a, [m, ka])
    if perm_b != list(range(len(sb))):
        b = transpose(b, perm_b)
    if [sb[i] for i in perm_b] != [kb, n]:
        b = reshape(b, [kb, n])
    out = matmul(a, b)
    if fa + fb != [m, n]:
        out = reshape(out, fa + fb)
    return out


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({"Einsum": lambda ctx, op, *xs: XL.jnp.einsum(op.attrs["equation"], *xs)})

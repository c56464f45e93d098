"""Linear algebra: matmul, einsum, tensordot, norms and `tf.linalg`.

Matrix products are the hot path of most models, so `matmul` has a short
eager path and integer products avoid NumPy's slow non-BLAS integer matmul
where an exact float64 product is possible. Composite functions (`norm`,
`tensordot`, `matvec`, `l2_normalize`) are built from the public ops, as in
TensorFlow, so their gradients come for free.
"""
import collections
import contextlib
import functools
import re

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply, apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import COMPLEX, FLOATS

_state = _context.state

_INTS_BIG = U.INDEX
_UINTS = (D.uint8, D.uint16, D.uint32, D.uint64)
# The dtypes TensorFlow's op definitions accept; the kernels TensorFlow ships
# for CPU are narrower (no unsigned matmul), see `_KERNEL_NP`.
_MATMUL_T = FLOATS + _INTS_BIG + _UINTS + COMPLEX
_BMM_T = FLOATS + (D.int16,) + _INTS_BIG + _UINTS + COMPLEX
_KERNEL_T = FLOATS + (D.int16,) + _INTS_BIG + COMPLEX
_KERNEL_NP = frozenset(d._np for d in _KERNEL_T)
_EINSUM_NP = frozenset(d._np for d in FLOATS + _INTS_BIG + COMPLEX)
_LINALG_T = tuple(d for d in (D.float64, D.float32, D.float16) if d is not None) + COMPLEX
_CROSS_T = tuple(d for d in (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64,
                             D.bfloat16, D.uint16, D.float16, D.uint32, D.uint64)
                 if d is not None)
_F16 = np.dtype(np.float16)
# Integer products up to this many multiply-adds use np.matmul directly; above
# it an exact float64 (BLAS) product is much faster when the values allow it.
_SMALL_INT_WORK = 27000
_EXACT_F64 = 2.0 ** 53
# Two-operand einsums above this many multiply-adds go through BLAS
# (`optimize=True` costs ~40us of planning, which small products cannot repay).
_EINSUM_OPT_WORK = 100000


def _scope(name):
    """A graph name scope for the ops of a composite function (nothing eagerly)."""
    g = _state.graph
    if g is None:
        return contextlib.nullcontext()
    return g.name_scope(name)


def _invalid(msg, op=None):
    # `kernel_error` appends " [Op:X]" only to messages not ending in "]";
    # messages ending with a shape need it added here.
    if op is not None and msg.endswith("]"):
        msg += f" [Op:{op}]"
    return errors.InvalidArgumentError(None, None, msg)


# =============================================================================
# matmul
# =============================================================================

def _int_matmul(a, b):
    """Exact integer matrix product with TensorFlow's wrap-around on overflow.

    NumPy's integer matmul is a naive loop; for larger products a float64
    BLAS product is exact whenever |a|max * |b|max * k < 2**53, and the
    int64 -> int32 cast then wraps exactly as int32 accumulation would.
    """
    k = a.shape[-1]
    work = max(a.size, 1) * b.shape[-1]
    if work <= _SMALL_INT_WORK or a.size == 0 or b.size == 0:
        return np.matmul(a, b)
    af = a.astype(np.float64)
    bf = b.astype(np.float64)
    bound = float(np.max(np.abs(af))) * float(np.max(np.abs(bf))) * k
    if bound < _EXACT_F64:
        out = np.matmul(af, bf).astype(np.int64)
        return out if a.dtype == out.dtype else out.astype(a.dtype)
    return np.einsum("...ij,...jk->...ik", a, b)


def _mm(a, b):
    k = a.dtype.kind
    if k == "f":
        if a.dtype == _F16:
            return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(_F16)
        return np.matmul(a, b)
    if k == "c":
        return np.matmul(a, b)
    return _int_matmul(a, b)


def _no_kernel(opname, dtype):
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {opname}}}}} = {opname}"
        f"[T={'DT_' + D.from_numpy(dtype).name.upper()}]: no CPU kernel for this dtype "
        f"(supported: {', '.join(d.name for d in _KERNEL_T)})")


def _matmul_kernel(a, b, transpose_a=False, transpose_b=False):
    if a.ndim != 2 or b.ndim != 2:
        if a.ndim != b.ndim:
            raise _invalid(f"In[0] and In[1] has different ndims: {dims_text(a.shape)} vs. "
                           f"{dims_text(b.shape)}", "MatMul")
        raise _invalid(f"In[0] and In[1] ndims must be == 2: {a.ndim}")
    if a.dtype not in _KERNEL_NP:
        raise _no_kernel("MatMul", a.dtype)
    x = a.T if transpose_a else a
    y = b.T if transpose_b else b
    if x.shape[1] != y.shape[0]:
        raise _invalid(f"Matrix size-incompatible: In[0]: {dims_text(a.shape)}, In[1]: "
                       f"{dims_text(b.shape)}", "MatMul")
    return _mm(x, y)


def _same_dtype(opname, inputs, arg_a, arg_b):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise TypeError(f"Input '{arg_b}' of '{opname}' Op has type {b.dtype.name} that does not "
                        f"match type {a.dtype.name} of argument '{arg_a}'.")


def _matrix_dims(shape, adjoint):
    r, c = shape[-2], shape[-1]
    return (c, r) if adjoint else (r, c)


def _matmul_infer(inputs, attrs):
    a, b = inputs
    _same_dtype("MatMul", inputs, "a", "b")
    U.check_allowed(_MatMul, a, "a")
    for s in (a.shape, b.shape):
        if s.rank is not None and s.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.rank}")
    m = k1 = k2 = n = None
    if a.shape.rank is not None:
        m, k1 = _matrix_dims(a.shape, attrs.get("transpose_a", False))
    if b.shape.rank is not None:
        k2, n = _matrix_dims(b.shape, attrs.get("transpose_b", False))
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2}")
    return [(TensorShape([m, n]), a.dtype)]


def _matmul_grad(op, g):
    from ..core.math_ops import conj
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = conj(a), conj(b)
    if not ta and not tb:
        return matmul(g, b, transpose_b=True), matmul(a, g, transpose_a=True)
    if not ta:
        return matmul(g, b), matmul(g, a, transpose_a=True)
    if not tb:
        return matmul(b, g, transpose_b=True), matmul(a, g)
    return (matmul(b, g, transpose_a=True, transpose_b=True),
            matmul(g, a, transpose_a=True, transpose_b=True))


_MatMul = register("MatMul", _matmul_kernel, _matmul_infer, _matmul_grad, allowed=_MATMUL_T)


def _adjoint_last2(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if x.dtype.kind == "c" else x


def _bmm_kernel(x, y, adj_x=False, adj_y=False):
    for i, t in enumerate((x, y)):
        if t.ndim < 2:
            raise _invalid(f"In[{i}] ndims must be >= 2: {t.ndim}")
    if x.dtype not in _KERNEL_NP:
        raise _no_kernel("BatchMatMulV2", x.dtype)
    if x.ndim > 2 or y.ndim > 2:
        try:
            np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise _invalid(f"In[0] and In[1] must have compatible batch dimensions: "
                           f"{dims_text(x.shape)} vs. {dims_text(y.shape)}",
                           "BatchMatMulV2") from None
    a = _adjoint_last2(x) if adj_x else x
    b = _adjoint_last2(y) if adj_y else y
    if a.shape[-1] != b.shape[-2]:
        raise _invalid(f"Matrix size-incompatible: In[0]: {dims_text(x.shape)}, In[1]: "
                       f"{dims_text(y.shape)}", "BatchMatMulV2")
    return _mm(a, b)


def _batch_matmul_shape(x, y, adj_x, adj_y):
    sx, sy = x.shape, y.shape
    for s in (sx, sy):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if sx.rank is None or sy.rank is None:
        return TensorShape(None)
    batch = U.broadcast_shapes(TensorShape(sx.as_list()[:-2]), TensorShape(sy.as_list()[:-2]))
    m, k1 = _matrix_dims(sx, adj_x)
    k2, n = _matrix_dims(sy, adj_y)
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2}")
    return TensorShape(batch.as_list() + [m, n])


def _bmm_infer(inputs, attrs):
    x, y = inputs
    _same_dtype("BatchMatMulV2", inputs, "x", "y")
    U.check_allowed(_BatchMatMulV2, x, "x")
    return [(_batch_matmul_shape(x, y, attrs.get("adj_x", False), attrs.get("adj_y", False)),
             x.dtype)]


def _bmm_grad(op, g):
    from ..core.math_ops import _sum_to
    x, y = op.inputs
    ax, ay = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not ax and not ay:
        gx, gy = matmul(g, y, adjoint_b=True), matmul(x, g, adjoint_a=True)
    elif not ax:
        gx, gy = matmul(g, y), matmul(g, x, adjoint_a=True)
    elif not ay:
        gx, gy = matmul(y, g, adjoint_b=True), matmul(x, g)
    else:
        gx = matmul(y, g, adjoint_a=True, adjoint_b=True)
        gy = matmul(g, x, adjoint_a=True, adjoint_b=True)
    return _sum_to(gx, x), _sum_to(gy, y)


_BatchMatMulV2 = register("BatchMatMulV2", _bmm_kernel, _bmm_infer, _bmm_grad, allowed=_BMM_T)

_V3_IN = frozenset(np.dtype(t) for t in (np.int8, np.uint8))


def _bmm_v3_kernel(x, y, Tout, Ta=None, Tb=None, adj_x=False, adj_y=False):
    if x.dtype not in _V3_IN or y.dtype not in _V3_IN or not Tout.is_integer:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node BatchMatMulV3}}}} = "
            f"BatchMatMulV3[Ta=DT_{D.from_numpy(x.dtype).name.upper()}, "
            f"Tb=DT_{D.from_numpy(y.dtype).name.upper()}, Tout=DT_{Tout.name.upper()}]: "
            "only int8/uint8 inputs with an integer output have a CPU kernel")
    return _bmm_kernel(x.astype(np.int64), y.astype(np.int64), adj_x, adj_y).astype(Tout._np)


def _bmm_v3_infer(inputs, attrs):
    x, y = inputs
    return [(_batch_matmul_shape(x, y, attrs.get("adj_x", False), attrs.get("adj_y", False)),
             attrs["Tout"])]


_BatchMatMulV3 = register("BatchMatMulV3", _bmm_v3_kernel, _bmm_v3_infer,
                          lambda op, g: [None, None])

_MM_ATTRS = {(ta, tb): {"transpose_a": ta, "transpose_b": tb}
             for ta in (False, True) for tb in (False, True)}
_BMM_ATTRS = {(ta, tb): {"adj_x": ta, "adj_y": tb}
              for ta in (False, True) for tb in (False, True)}


@export("linalg.matmul", "matmul", "compat.v1.matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False,
           name=None):
    """The matrix product `a @ b` (batched over leading dimensions).

    Rank-2 operands give a `MatMul` op; higher (or unknown) ranks a
    `BatchMatMulV2`, whose batch dimensions broadcast. `adjoint_*` also
    conjugates complex values. The sparsity and `grad_*` hints are accepted
    and ignored. `output_type` (int8/uint8 inputs) gives a wider result.

    Raises:
      ValueError: both the transpose and adjoint flag of one operand are set,
        or (graph) the shapes cannot multiply.
      InvalidArgumentError: (eager) the shapes cannot multiply, or the
        dtypes differ or are not supported.
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True. Received "
                         "`transpose_a`=True, `adjoint_a`=True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of `transpose_b` and `adjoint_b` can be True. Received "
                         "`transpose_b`=True, `adjoint_b`=True.")
    if (_state.graph is None and a.__class__ is EagerTensor and b.__class__ is EagerTensor
            and output_type is None):
        av, bv = a._v, b._v
        if (av.ndim == 2 and bv.ndim == 2 and av.dtype == bv.dtype and av.dtype.kind != "c"
                and av.dtype in _MatMul.allowed_np):
            return apply2(_MatMul, a, b, _MM_ATTRS[(transpose_a or adjoint_a,
                                                    transpose_b or adjoint_b)])
    a, b = U.binary_operands(a, b)
    eager = _state.graph is None
    if output_type is not None:
        output_type = D.as_dtype(output_type)
        if output_type is not a.dtype or a.dtype is not b.dtype:
            return apply2(_BatchMatMulV3, a, b,
                          {"Ta": a.dtype, "Tb": b.dtype, "Tout": output_type,
                           "adj_x": bool(transpose_a or adjoint_a),
                           "adj_y": bool(transpose_b or adjoint_b)}, name=name or "MatMul")
    ra, rb = a.shape.rank, b.shape.rank
    batch = ra is None or rb is None or ra > 2 or rb > 2
    opdef = _BatchMatMulV2 if batch else _MatMul
    if eager:
        if a.dtype is not b.dtype:
            raise U._mismatch(opdef, a, b)
        if a._v.dtype not in opdef.allowed_np:
            raise U._eager_disallowed(opdef, a)
    if batch:
        return apply2(_BatchMatMulV2, a, b,
                      _BMM_ATTRS[(bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b))],
                      name=name or "MatMul")
    if a.dtype.is_complex and (adjoint_a or adjoint_b):
        # MatMul only transposes: conjugate first (TensorFlow does the same).
        from ..core.math_ops import conj
        if adjoint_a:
            a = conj(a)
        if adjoint_b:
            b = conj(b)
    return apply2(_MatMul, a, b,
                  _MM_ATTRS[(bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b))],
                  name=name or "MatMul")


@export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """The matrix-vector product `a @ b` for a (batch of) matrix `a` and vector `b`."""
    from ..core.array_ops import expand_dims, squeeze
    with _scope(name or "MatVec"):
        a, b = U.binary_operands(a, b)
        out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
        return squeeze(out, axis=-1)


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
    if dt == _F16:
        return np.einsum(eq, *[x.astype(np.float32) for x in xs]).astype(_F16)
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
    from ..core.array_ops import broadcast_to, expand_dims, shape, transpose
    from ..core.math_ops import conj
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
    from ..core.math_ops import _sum_to
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
        from ..core.array_ops import reshape
        from ..core.reduction_ops import reduce_sum
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
    from ..core.array_ops import ones_like, transpose
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


def _tensordot_static(a, b, a_axes, b_axes):
    from ..core.array_ops import reshape, transpose
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


# =============================================================================
# norms
# =============================================================================

def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _ord_in(ord, options):  # noqa: A002 - TensorFlow's argument name
    """Whether `ord` is one of `options`, never comparing strings with numbers."""
    for o in options:
        if isinstance(ord, str) != isinstance(o, str):
            continue
        try:
            if ord == o:
                return True
        except (TypeError, ValueError):
            pass
    return False


@export("norm", "linalg.norm", "compat.v1.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector or matrix norm of a tensor (`tf.norm`).

    Vector norms (axis None or an int): 'euclidean', 1, 2, np.inf or any
    p > 0. Matrix norms (axis a pair of ints): 'euclidean'/'fro', 1, 2
    (largest singular value) and np.inf. The Euclidean norm of a complex
    tensor is complex, as in TensorFlow.

    Raises:
      ValueError: for an unsupported `ord` or `axis`.
    """
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not (_is_int(axis[0]) and _is_int(axis[1])) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if not _ord_in(ord, supported):
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
        axis = (int(axis[0]), int(axis[1]))
    else:
        if not (axis is None or _is_int(axis)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        ok = _ord_in(ord, ["euclidean", 1, 2, np.inf])
        if not ok and not isinstance(ord, str):
            try:
                ok = bool(np.isreal(ord)) and ord > 0
            except TypeError:
                ok = False
        if not ok:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (int(axis),)
    from ..core.array_ops import squeeze
    from ..core.math_ops import conj, pow as pow_
    from ..core.reduction_ops import reduce_max, reduce_sum
    from ..core.unary_ops import abs as abs_, sqrt
    with _scope(name or "norm"):
        x = convert_to_tensor(tensor)
        if _ord_in(ord, ["fro", "euclidean", 2]) and not (is_matrix and _ord_in(ord, [2])):
            result = sqrt(reduce_sum(x * conj(x), axis, keepdims=True))
        elif is_matrix and _ord_in(ord, [2]):
            result = _spectral_norm(x, axis)
        else:
            result = abs_(x)
            if _ord_in(ord, [1]):
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix:
                    result = reduce_max(result, axis[1], keepdims=True)
            elif _ord_in(ord, [np.inf]):
                if is_matrix:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                p = convert_to_tensor(ord, dtype=result.dtype)
                inv = convert_to_tensor(1.0 / ord, dtype=result.dtype)
                result = pow_(reduce_sum(pow_(result, p), axis, keepdims=True), inv)
        if not keepdims:
            result = squeeze(result, axis)
        return result


def _spectral_norm(x, axis):
    """The largest singular value over the two axes, keeping them as size 1."""
    from ..core.array_ops import expand_dims, transpose
    from ..core.reduction_ops import reduce_max
    r = x.shape.rank
    if r is None:
        raise ValueError("The matrix 2-norm needs a tensor of known rank.")
    a0, a1 = axis[0] % r, axis[1] % r
    perm = [i for i in range(r) if i not in (a0, a1)] + [a0, a1]
    s = svd(transpose(x, perm) if perm != list(range(r)) else x, compute_uv=False)
    top = reduce_max(s, -1, keepdims=True)
    top = expand_dims(top, -1)
    # `top` has the reduced axes last; move them back to their places.
    inv = [perm.index(i) for i in range(r)]
    if inv != list(range(r)):
        top = transpose(top, inv)
    if top.dtype is not x.dtype:
        from ..core.math_ops import cast
        top = cast(top, x.dtype)
    return top


@export("math.l2_normalize", "nn.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)): scales to unit L2 norm along `axis`.

    Raises:
      ValueError: if both `axis` and its deprecated alias `dim` are given.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    from ..core.math_ops import maximum, multiply
    from ..core.reduction_ops import reduce_sum
    from ..core.special_math_ops import complex as complex_, imag, real
    from ..core.unary_ops import rsqrt, square
    with _scope(name or "l2_normalize"):
        x = convert_to_tensor(x)
        if x.dtype.is_complex:
            sq = reduce_sum(square(real(x)) + square(imag(x)), axis, keepdims=True)
            inv = rsqrt(maximum(sq, convert_to_tensor(epsilon, dtype=sq.dtype)))
            return complex_(real(x) * inv, imag(x) * inv)
        sq = reduce_sum(square(x), axis, keepdims=True)
        inv = rsqrt(maximum(sq, convert_to_tensor(epsilon, dtype=sq.dtype)))
        return multiply(x, inv)


# =============================================================================
# diagonals, bands, transposes
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
            if not -rows < d < cols:
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
    from ..core.array_ops import zeros_like
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
    from ..core.array_ops import zeros_like
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
           convert_to_tensor(padding_value, dtype=d.dtype)]
    return apply(_MatrixDiagV3, ins, {"align": align}, name=name or "diag")


@export("linalg.diag_part", "compat.v1.matrix_diag_part", "compat.v1.linalg.diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
              align="RIGHT_LEFT"):
    """The diagonal(s) of a (batch of) matrix; `k` as in `diag`."""
    _check_align(align)
    x = convert_to_tensor(input)
    ins = [x, convert_to_tensor(k, dtype=D.int32), convert_to_tensor(padding_value, dtype=x.dtype)]
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
    from ..core.reduction_ops import reduce_sum
    with _scope(name or "Trace"):
        x = convert_to_tensor(x)
        return reduce_sum(diag_part(x), [-1])


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


@export("linalg.matrix_transpose", "compat.v1.matrix_transpose", "compat.v1.linalg.transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the two innermost dimensions (conjugating if asked).

    Raises:
      ValueError: if `a` has known rank below 2.
    """
    from ..core.array_ops import rank as rank_, transpose
    with _scope(name or "matrix_transpose"):
        x = convert_to_tensor(a)
        r = x.shape.rank
        if r is not None:
            if r < 2:
                raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                                 f"Received `a` = {a} with shape: {x.shape}")
            perm = list(range(r - 2)) + [r - 1, r - 2]
        else:
            from ..core.array_ops import concat, stack
            from ..core.creation_ops import range as range_
            n = rank_(x)
            perm = concat([range_(n - 2), stack([n - 1, n - 2])], 0)
        return transpose(x, perm, conjugate=conjugate)


@export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of the two innermost dimensions."""
    with _scope(name or "adjoint"):
        return matrix_transpose(matrix, conjugate=True)


# =============================================================================
# cross
# =============================================================================

def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise _invalid(f"Both inputs must be of same shape: {dims_text(a.shape)} vs. "
                       f"{dims_text(b.shape)}", "Cross")
    if a.ndim == 0 or a.shape[-1] != 3:
        raise errors.FailedPreconditionError(
            None, None, "Cross-products are only defined for 3-element vectors.")
    return np.cross(a, b).astype(a.dtype, copy=False)


def _cross_infer(inputs, attrs):
    a, b = inputs
    _same_dtype("Cross", inputs, "a", "b")
    U.check_allowed(_Cross, a, "a")
    s = a.shape
    if not s.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")
    s = s.merge_with(b.shape)
    if s.rank is not None:
        if s.rank < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        if s[-1] is not None and s[-1] != 3:
            raise ValueError(f"Dimension must be 3 but is {s[-1]}")
    return [(s, a.dtype)]


_Cross = register("Cross", _cross_kernel, _cross_infer,
                  lambda op, g: [cross(op.inputs[1], g), cross(g, op.inputs[0])],
                  allowed=_CROSS_T)


@export("linalg.cross", "compat.v1.cross")
def cross(a, b, name=None):
    """The pairwise cross product of 3-element vectors (last dimension)."""
    a, b = U.binary_operands(a, b)
    if _state.graph is None:
        if a.dtype is not b.dtype:
            raise U._mismatch(_Cross, a, b)
        if a._v.dtype not in _Cross.allowed_np:
            raise U._eager_disallowed(_Cross, a)
    return apply2(_Cross, a, b, name=name or "Cross")


# =============================================================================
# inverse, determinants, decompositions, solvers
# =============================================================================

def _square_check(x, what="Input matrix must be square."):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid(what)


def _compute_dtype(x):
    """LAPACK has no half precision: compute float16 in float32."""
    return x.astype(np.float32) if x.dtype == _F16 else x


def _square_infer(opname, out_shape_fn=None):
    def infer(inputs, attrs):
        from ...framework.op_registry import get
        x = inputs[0]
        U.check_allowed(get(opname), x, "input")
        s = x.shape
        if s.rank is not None:
            if s.rank < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
            r, c = s[-2], s[-1]
            if r is not None and c is not None and r != c:
                raise ValueError(f"Dimensions must be equal, but are {r} and {c}")
        if out_shape_fn is None:
            return [(s, x.dtype)]
        return out_shape_fn(s, x.dtype)
    return infer


def _batch_shape(s):
    return TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])


def _inv_kernel(x, adjoint=False):
    _square_check(x)
    a = _compute_dtype(x)
    if adjoint:
        a = _adjoint_last2(a)
    if a.size == 0:
        return np.array(x, copy=True)
    try:
        out = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise _invalid("Input is not invertible.") from None
    if not np.all(np.isfinite(out)) and np.all(np.isfinite(a)):
        raise _invalid("Input is not invertible.")
    return out.astype(x.dtype, copy=False)


def _inv_grad(op, g):
    y = op.outputs[0]
    if op.get_attr("adjoint"):
        return [-matmul(y, matmul(g, y, adjoint_a=True))]
    return [-matmul(y, matmul(g, y, adjoint_b=True), adjoint_a=True)]


_MatrixInverse = register("MatrixInverse", _inv_kernel, _square_infer("MatrixInverse"),
                          _inv_grad, allowed=_LINALG_T)


def _linalg_unary(opdef, x, attrs, name):
    x = convert_to_tensor(x)
    if _state.graph is None and x._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, x)
    return apply1(opdef, x, attrs, name=name)


@export("linalg.inv", "compat.v1.matrix_inverse", "compat.v1.linalg.inv")
def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each innermost square matrix (of its adjoint if asked).

    Raises:
      InvalidArgumentError: (eager) a matrix is not square or not invertible.
    """
    return _linalg_unary(_MatrixInverse, input, {"adjoint": bool(adjoint)},
                         name or "MatrixInverse")


def _det_kernel(x):
    _square_check(x)
    return np.asarray(np.linalg.det(_compute_dtype(x))).astype(x.dtype)


def _det_grad(op, g):
    from ..core.array_ops import expand_dims
    from ..core.math_ops import conj
    x = op.inputs[0]
    scale = expand_dims(expand_dims(g * conj(op.outputs[0]), -1), -1)
    return [scale * inv(x, adjoint=True)]


_MatrixDeterminant = register(
    "MatrixDeterminant", _det_kernel,
    _square_infer("MatrixDeterminant", lambda s, d: [(_batch_shape(s), d)]), _det_grad,
    allowed=_LINALG_T)


@export("linalg.det", "compat.v1.matrix_determinant", "compat.v1.linalg.det")
def det(input, name=None):  # noqa: A002
    """The determinant of each innermost square matrix."""
    return _linalg_unary(_MatrixDeterminant, input, {}, name or "MatrixDeterminant")


def _slogdet_kernel(x):
    _square_check(x)
    sign, logabs = np.linalg.slogdet(_compute_dtype(x))
    return [np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)]


def _slogdet_grad(op, g_sign, g_logabs):
    from ..core.array_ops import expand_dims
    x = op.inputs[0]
    scale = expand_dims(expand_dims(g_logabs, -1), -1)
    return [scale * inv(x, adjoint=True)]


_LogMatrixDeterminant = register(
    "LogMatrixDeterminant", _slogdet_kernel,
    _square_infer("LogMatrixDeterminant",
                  lambda s, d: [(_batch_shape(s), d), (_batch_shape(s), d)]),
    _slogdet_grad, allowed=_LINALG_T)

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])


@export("linalg.slogdet")
def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of each innermost square matrix, as a namedtuple.

    Stable where `det` over- or underflows; a singular matrix gives sign 0
    and log|det| = -inf.
    """
    x = convert_to_tensor(input)
    if _state.graph is None and x._v.dtype not in _LogMatrixDeterminant.allowed_np:
        raise U._eager_disallowed(_LogMatrixDeterminant, x)
    sign, logabs = apply(_LogMatrixDeterminant, [x], name=name or "LogMatrixDeterminant",
                         multi=True)
    return LogMatrixDeterminant(sign, logabs)


@export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, via Cholesky."""
    from ..core.reduction_ops import reduce_sum
    from ..core.special_math_ops import real
    from ..core.unary_ops import log
    with _scope(name or "logdet"):
        chol = cholesky(matrix)
        two = convert_to_tensor(2, dtype=chol.dtype)
        d = diag_part(chol)
        if d.dtype.is_complex:
            d = real(d)
            two = convert_to_tensor(2, dtype=d.dtype)
        return two * reduce_sum(log(d), axis=[-1])


def _cholesky_kernel(x):
    _square_check(x)
    a = _compute_dtype(x)
    try:
        out = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        # TensorFlow leaves NaNs for matrices that are not positive definite.
        out = np.empty_like(a)
        flat_in = a.reshape((-1,) + a.shape[-2:])
        flat_out = out.reshape(flat_in.shape)
        for i, m in enumerate(flat_in):
            try:
                flat_out[i] = np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                flat_out[i] = np.tril(np.full(m.shape, np.nan, dtype=m.dtype))
    return out.astype(x.dtype, copy=False)


def _cholesky_grad(op, g):
    """The gradient of A = L L^H w.r.t. the (symmetric) A: with
    P = Phi(L^H G) (lower triangle, halved diagonal), grad = sym(L^-H P L^-1)."""
    from ..core.array_ops import ones_like
    from ..core.math_ops import cast
    l = op.outputs[0]
    eye = band_part(ones_like(l), 0, 0)
    l_inv = triangular_solve(l, eye, lower=True)
    middle = matmul(l, g, adjoint_a=True)
    middle = band_part(middle, -1, 0) - cast(0.5, middle.dtype) * band_part(middle, 0, 0)
    grad = matmul(matmul(l_inv, middle, adjoint_a=True), l_inv)
    return [cast(0.5, grad.dtype) * (grad + adjoint(grad))]


_Cholesky = register("Cholesky", _cholesky_kernel, _square_infer("Cholesky"), _cholesky_grad,
                     allowed=_LINALG_T)


@export("linalg.cholesky", "compat.v1.cholesky")
def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor L (A = L L^H) of each innermost
    Hermitian positive definite matrix; only A's lower triangle is read.
    Matrices that are not positive definite give NaNs, as in TensorFlow."""
    return _linalg_unary(_Cholesky, input, {}, name or "Cholesky")


def _solve_kernel(matrix, rhs, adjoint=False):
    if matrix.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {matrix.ndim}")
    if rhs.ndim != matrix.ndim:
        raise _invalid("All input tensors must have the same rank.")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _invalid("Input matrix must be square.")
    if matrix.shape[:-2] != rhs.shape[:-2]:
        raise _invalid("All input tensors must have the same outer dimensions.")
    if rhs.shape[-2] != matrix.shape[-1]:
        raise _invalid("Input matrix and rhs are incompatible.")
    a = _compute_dtype(matrix)
    b = _compute_dtype(rhs)
    if adjoint:
        a = _adjoint_last2(a)
    if a.size == 0 or b.size == 0:
        return np.zeros(rhs.shape, dtype=rhs.dtype)
    try:
        out = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise _invalid("Input matrix is not invertible.") from None
    return out.astype(rhs.dtype, copy=False)


def _solve_infer(inputs, attrs):
    m, r = inputs
    _same_dtype("MatrixSolve", inputs, "matrix", "rhs")
    U.check_allowed(_MatrixSolve, m, "matrix")
    sm, sr = m.shape, r.shape
    for s in (sm, sr):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if sm.rank is not None and sr.rank is not None:
        if sm.rank != sr.rank:
            raise ValueError(f"Shape must be rank {sm.rank} but is rank {sr.rank}")
        if sm[-1] is not None and sm[-2] is not None and sm[-1] != sm[-2]:
            raise ValueError(f"Dimensions must be equal, but are {sm[-2]} and {sm[-1]}")
        n = sm[-1] if sm[-1] is not None else sm[-2]
        if n is not None and sr[-2] is not None and n != sr[-2]:
            raise ValueError(f"Dimensions must be equal, but are {n} and {sr[-2]}")
        batch = TensorShape(sm.as_list()[:-2]).merge_with(TensorShape(sr.as_list()[:-2]))
        return [(TensorShape(batch.as_list() + [n if n is not None else sr[-2], sr[-1]]),
                 m.dtype)]
    if sr.rank is not None:
        return [(sr, m.dtype)]
    return [(TensorShape(None), m.dtype)]


def _solve_grad(op, g):
    a, _ = op.inputs
    c = op.outputs[0]
    adj = op.get_attr("adjoint")
    gb = solve(a, g, adjoint=not adj)
    if adj:
        ga = -matmul(c, gb, adjoint_b=True)
    else:
        ga = -matmul(gb, c, adjoint_b=True)
    return [ga, gb]


_MatrixSolve = register("MatrixSolve", _solve_kernel, _solve_infer, _solve_grad,
                        allowed=_LINALG_T)


def _binary_linalg(opdef, matrix, rhs, attrs, name):
    m = convert_to_tensor(matrix)
    r = convert_to_tensor(rhs, dtype_hint=m.dtype)
    if _state.graph is None:
        if m.dtype is not r.dtype:
            raise U._mismatch(opdef, m, r)
        if m._v.dtype not in opdef.allowed_np:
            raise U._eager_disallowed(opdef, m)
    return apply2(opdef, m, r, attrs, name=name)


@export("linalg.solve", "compat.v1.matrix_solve", "compat.v1.linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """Solves matrix @ X = rhs (or adjoint(matrix) @ X = rhs) for X.

    Raises:
      InvalidArgumentError: (eager) shapes do not fit or a matrix is singular.
    """
    return _binary_linalg(_MatrixSolve, matrix, rhs, {"adjoint": bool(adjoint)},
                          name or "MatrixSolve")


def _tri_solve_kernel(matrix, rhs, lower=True, adjoint=False):
    for i, t in enumerate((matrix, rhs)):
        if t.ndim < 2:
            raise _invalid(f"Input tensor {i} must have rank >= 2, got {t.ndim}")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _invalid("Input matrix must be square.")
    if rhs.shape[-2] != matrix.shape[-1]:
        raise _invalid("Input matrix and rhs are incompatible.")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise _invalid(f"Incompatible shapes: {dims_text(matrix.shape)} vs. "
                       f"{dims_text(rhs.shape)}", "MatrixTriangularSolve") from None
    a = _compute_dtype(matrix)
    b = _compute_dtype(rhs)
    a = np.tril(a) if lower else np.triu(a)
    if adjoint:
        a = _adjoint_last2(a)
        lower = not lower
    n = a.shape[-1]
    a = np.broadcast_to(a, batch + (n, n))
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(batch + rhs.shape[-2:], dtype=rhs.dtype)
    diag = np.diagonal(a, axis1=-2, axis2=-1)
    if np.all(diag != 0):
        out = np.linalg.solve(a, b)
    else:
        out = _substitute(a, b, lower)
    return out.astype(rhs.dtype, copy=False)


def _substitute(a, b, lower):
    """Forward/back substitution; zero pivots give inf/nan as in TensorFlow."""
    n = a.shape[-1]
    out = np.zeros(np.broadcast_shapes(b.shape, b.shape), dtype=np.result_type(a, b))
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, :], out)
            out[..., i, :] = acc / a[..., i, i][..., None]
    return out


def _tri_solve_infer(inputs, attrs):
    m, r = inputs
    _same_dtype("MatrixTriangularSolve", inputs, "matrix", "rhs")
    U.check_allowed(_MatrixTriangularSolve, m, "matrix")
    sm, sr = m.shape, r.shape
    for s in (sm, sr):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if sm.rank is None or sr.rank is None:
        return [(TensorShape(None), m.dtype)]
    if sm[-1] is not None and sm[-2] is not None and sm[-1] != sm[-2]:
        raise ValueError(f"Dimensions must be equal, but are {sm[-2]} and {sm[-1]}")
    n = sm[-1] if sm[-1] is not None else sm[-2]
    if n is not None and sr[-2] is not None and n != sr[-2]:
        raise ValueError(f"Dimensions must be equal, but are {n} and {sr[-2]}")
    batch = U.broadcast_shapes(TensorShape(sm.as_list()[:-2]), TensorShape(sr.as_list()[:-2]))
    return [(TensorShape(batch.as_list() + [n if n is not None else sr[-2], sr[-1]]), m.dtype)]


def _tri_solve_grad(op, g):
    from ..core.math_ops import _sum_to
    a, b = op.inputs
    c = op.outputs[0]
    lower, adj = op.get_attr("lower"), op.get_attr("adjoint")
    gb = triangular_solve(a, g, lower=lower, adjoint=not adj)
    if adj:
        ga = -matmul(c, gb, adjoint_b=True)
    else:
        ga = -matmul(gb, c, adjoint_b=True)
    ga = band_part(ga, -1, 0) if lower else band_part(ga, 0, -1)
    return [_sum_to(ga, a), _sum_to(gb, b)]


_MatrixTriangularSolve = register("MatrixTriangularSolve", _tri_solve_kernel, _tri_solve_infer,
                                  _tri_solve_grad, allowed=_LINALG_T)


@export("linalg.triangular_solve", "compat.v1.matrix_triangular_solve",
        "compat.v1.linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves matrix @ X = rhs for a (batch of) triangular matrix.

    Only the lower (or, with lower=False, upper) triangle is read; batch
    dimensions broadcast. A zero on the diagonal gives inf/nan.
    """
    with _scope(name or "triangular_solve"):
        return _binary_linalg(_MatrixTriangularSolve, matrix, rhs,
                              {"lower": bool(lower), "adjoint": bool(adjoint)},
                              "MatrixTriangularSolve")


# --- QR and SVD --------------------------------------------------------------

def _qr_kernel(x, full_matrices=False):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    a = _compute_dtype(x)
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)]


def _qr_infer(inputs, attrs):
    x = inputs[0]
    U.check_allowed(_Qr, x, "input")
    s = x.shape
    if s.rank is None:
        return [(TensorShape(None), x.dtype)] * 2
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    dims = s.as_list()
    m, n = dims[-2], dims[-1]
    k = None if m is None or n is None else min(m, n)
    if attrs.get("full_matrices"):
        return [(TensorShape(dims[:-2] + [m, m]), x.dtype),
                (TensorShape(dims[:-2] + [m, n]), x.dtype)]
    return [(TensorShape(dims[:-2] + [m, k]), x.dtype),
            (TensorShape(dims[:-2] + [k, n]), x.dtype)]


def _copy_lower_to_upper(m):
    """The Hermitian matrix with m's strictly lower part and the real part of
    its diagonal (R's diagonal is real, so its imaginary part has no effect)."""
    from ..core.math_ops import conj
    d = band_part(m, 0, 0)
    strict = band_part(m, -1, 0) - d
    if m.dtype.is_complex:
        d = (d + conj(d)) * convert_to_tensor(0.5, dtype=m.dtype)
    return strict + adjoint(strict) + d


def _qr_grad(op, gq, gr):
    """For A = QR with m >= n (reduced): with M = R gR^H - gQ^H Q,
    grad = (gQ + Q copyltu(M)) R^-H."""
    x = op.inputs[0]
    q, r = op.outputs
    s = x.shape
    if s.rank is None or s[-2] is None or s[-1] is None or s[-2] < s[-1] \
            or op.get_attr("full_matrices"):
        raise NotImplementedError("QrGrad is implemented only for full_matrices=False and "
                                  "matrices with at least as many rows as columns (known "
                                  "statically).")
    m = matmul(r, gr, adjoint_b=True) - matmul(gq, q, adjoint_a=True)
    b = gq + matmul(q, _copy_lower_to_upper(m))
    # b @ R^-H: solve R X^H = b^H for the upper-triangular R.
    return [adjoint(triangular_solve(r, adjoint(b), lower=False))]


_Qr = register("Qr", _qr_kernel, _qr_infer, _qr_grad, allowed=_LINALG_T)

Qr = collections.namedtuple("Qr", ["q", "r"])


@export("linalg.qr", "compat.v1.qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002
    """The QR decomposition of each innermost matrix, as a namedtuple (q, r)."""
    x = convert_to_tensor(input)
    if _state.graph is None and x._v.dtype not in _Qr.allowed_np:
        raise U._eager_disallowed(_Qr, x)
    q, r = apply(_Qr, [x], {"full_matrices": bool(full_matrices)}, name=name or "Qr",
                 multi=True)
    return Qr(q, r)


def _svd_kernel(x, compute_uv=True, full_matrices=False):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    a = _compute_dtype(x)
    real = np.dtype(x.dtype.char.lower()) if x.dtype.kind == "c" else x.dtype
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False)
        empty = np.zeros((0,), dtype=x.dtype)
        return [s.astype(real, copy=False), empty, empty]
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [s.astype(real, copy=False), u.astype(x.dtype, copy=False),
            _adjoint_last2(vh).astype(x.dtype, copy=False)]


def _real_dtype(d):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(d, d)


def _svd_infer(inputs, attrs):
    x = inputs[0]
    U.check_allowed(_Svd, x, "input")
    s = x.shape
    rd = _real_dtype(x.dtype)
    if s.rank is None:
        return [(TensorShape(None), rd), (TensorShape(None), x.dtype),
                (TensorShape(None), x.dtype)]
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    dims = s.as_list()
    m, n = dims[-2], dims[-1]
    k = None if m is None or n is None else min(m, n)
    batch = dims[:-2]
    if not attrs.get("compute_uv", True):
        return [(TensorShape(batch + [k]), rd), (TensorShape([0]), x.dtype),
                (TensorShape([0]), x.dtype)]
    if attrs.get("full_matrices"):
        return [(TensorShape(batch + [k]), rd), (TensorShape(batch + [m, m]), x.dtype),
                (TensorShape(batch + [n, n]), x.dtype)]
    return [(TensorShape(batch + [k]), rd), (TensorShape(batch + [m, k]), x.dtype),
            (TensorShape(batch + [n, k]), x.dtype)]


def _is_zero(t):
    """Whether gradient `t` is known to be zero (None, a constant or zeros_like)."""
    if t is None:
        return True
    v = U.constant_value(t)
    if v is not None:
        return not np.any(v)
    op = getattr(t, "op", None)
    return op is not None and getattr(op, "type", None) == "ZerosLike"


def _svd_grad(op, gs, gu, gv):
    """Gradient of the reduced SVD A = U diag(s) V^H.

    With F_ij = 1 / (s_j^2 - s_i^2) (0 on the diagonal), for real A:
    grad = U [diag(gs) + (F o (U^T gU - gU^T U)) S + S (F o (V^T gV - gV^T V))] V^T
           + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
    Complex A is supported for gradients through s only.
    """
    from ..core.array_ops import expand_dims, ones_like
    from ..core.math_ops import cast, div_no_nan
    x = op.inputs[0]
    s, u, v = op.outputs
    if op.get_attr("full_matrices"):
        raise NotImplementedError("SVD gradient is implemented only for full_matrices=False.")
    vectors = not (_is_zero(gu) and _is_zero(gv))
    if vectors and x.dtype.is_complex:
        raise NotImplementedError("The gradient through the singular vectors of a complex "
                                  "matrix is not implemented (only through s).")
    sm = diag(cast(s, x.dtype))
    grad = matmul(u, matmul(diag(cast(gs, x.dtype)), v, adjoint_b=True))
    if not vectors:
        return [grad]
    s2 = expand_dims(s * s, -2) - expand_dims(s * s, -1)  # [i, j] = s_j^2 - s_i^2
    f = div_no_nan(ones_like(s2), s2)
    s_inv_m = diag(div_no_nan(ones_like(s), s))
    if not _is_zero(gu):
        utgu = matmul(u, gu, adjoint_a=True)
        j = f * (utgu - matrix_transpose(utgu))
        uut = matmul(u, u, adjoint_b=True)
        grad = grad + matmul(u, matmul(matmul(j, sm), v, adjoint_b=True))
        grad = grad + matmul(matmul(band_part(ones_like(uut), 0, 0) - uut, gu),
                             matmul(s_inv_m, v, adjoint_b=True))
    if not _is_zero(gv):
        vtgv = matmul(v, gv, adjoint_a=True)
        k = f * (vtgv - matrix_transpose(vtgv))
        vvt = matmul(v, v, adjoint_b=True)
        grad = grad + matmul(u, matmul(matmul(sm, k), v, adjoint_b=True))
        grad = grad + matmul(matmul(u, s_inv_m),
                             matmul(gv, band_part(ones_like(vvt), 0, 0) - vvt, adjoint_a=True))
    return [grad]


_Svd = register("Svd", _svd_kernel, _svd_infer, _svd_grad, allowed=_LINALG_T)


@export("linalg.svd", "compat.v1.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (and vectors) of each innermost matrix.

    Returns s, or (s, u, v) with tensor = u @ diag(s) @ adjoint(v) when
    `compute_uv`. s is real and in decreasing order.
    """
    x = convert_to_tensor(tensor)
    if _state.graph is None and x._v.dtype not in _Svd.allowed_np:
        raise U._eager_disallowed(_Svd, x)
    # The singular vectors are always computed: the gradient of s needs them.
    s, u, v = apply(_Svd, [x], {"compute_uv": True, "full_matrices": bool(full_matrices)},
                    name=name or "Svd", multi=True)
    if compute_uv:
        return s, u, v
    return s


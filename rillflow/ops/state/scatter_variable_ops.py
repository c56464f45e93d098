"""Row updates of variables: `Variable.scatter_add` and friends, and
`tf.compat.v1.scatter_*`.

`v.scatter_sub(slices)` changes only the rows an IndexedSlices names
(`ResourceScatterSub`), which is how a sparse gradient (of an embedding
lookup, say) is applied without building a dense update the size of the
variable. The row arithmetic is scatter_ops' `_scatter_into`.

Variables keep the rule of variables.py: a value read earlier never
changes. The update is made in place only when nothing but the variable
holds its array (no tensor, view or NumPy user sees it: its reference
count says so); otherwise the rows are written into a copy, as any other
write would.
"""
import sys

import numpy as np

from ...framework import context as _context
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply_op, kernel_error
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_registry import register
from ...framework.tensor_shape import dims_text
from ..core import op_util as U
from ..core.scatter_ops import _scatter_into
from .variables import _ROW_UPDATES, _UnreadVariable, _uninitialized
from ..core.creation_ops import meshgrid, range as range_
from ..core.dim_ops import expand_dims
from ..core.join_ops import concat, stack
from ..core.math_ops import cast
from ..core.shape_ops import shape

__all__ = ["scatter", "resource_scatter", "batch_scatter_update"]

_state = _context.state


def _writable_value(h):
    """The array of variable storage `h`, to be changed in place: the array
    itself when no one else can see it, else a copy."""
    v = h.value
    # The references counted: h.value, `v`, and getrefcount's argument.
    if v.__class__ is np.ndarray and v.base is None and v.flags.writeable and \
            sys.getrefcount(v) <= 3:
        return v
    return v.copy()


def _check_shapes(params_shape, indices, updates, op_name):
    """TensorFlow's ResourceScatter* argument checks."""
    ishape, ushape = indices.shape, updates.shape
    if updates.ndim and ushape[:len(ishape)] != ishape:
        raise U.op_error(op_name, f"The shape of indices ({dims_text(ishape)}) must be a prefix "
                                  f"of the shape of updates ({dims_text(ushape)})")
    if not params_shape or (updates.ndim and ushape != ishape + tuple(params_shape[1:])):
        raise U.op_error(op_name, f"Must have updates.shape = indices.shape + params.shape[1:] "
                                  f"or updates.shape = [], got updates.shape "
                                  f"{dims_text(ushape)}, indices.shape {dims_text(ishape)}, "
                                  f"params.shape {dims_text(params_shape)}")
    rows = params_shape[0]
    flat = indices.reshape(-1)
    bad = (flat < 0) | (flat >= rows)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise U.op_error(op_name, f"indices[{k}] = {int(flat[k])} is not in [0, {rows})")


def _trunc_div_at(out, idx, upd):
    """out[idx[k]] /= upd[k] in turn, integer division rounding toward zero
    (C++'s, TensorFlow's kernel's)."""
    for k in range(len(idx)):
        a, b = out[idx[k]], upd[k]
        q = np.abs(a) // np.abs(b)
        out[idx[k]] = np.where((a < 0) != (b < 0), -q, q)


def _add_rows(out, idx, upd, subtract):
    """out[idx[k]] += upd[k] (or -=) for k in turn, as TensorFlow's kernel
    (and np.add.at) applies them, by buffered updates: the first update of
    every row at once, then every row's second, and so on, so that each
    row still takes its updates in their order (the same bits). An
    embedding's gradient repeats a few rows (a batch's repeated tokens):
    a few rounds, several times faster than np.add.at's row by row."""
    order = np.argsort(idx, kind="stable")
    ranked = idx[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    # rank[k]: how many earlier updates go to the row of update k.
    rank = np.empty(idx.size, np.intp)
    rank[order] = np.arange(idx.size) - np.repeat(starts, np.diff(np.r_[starts, idx.size]))
    for r in range(int(rank.max()) + 1):
        sel = np.flatnonzero(rank == r) if r or rank.any() else slice(None)
        if subtract:
            out[idx[sel]] -= upd[sel]
        else:
            out[idx[sel]] += upd[sel]


def _scatter_kernel(mode, op_name):
    def kernel(h, indices, updates, dtype=None, Tindices=None):
        if h.value is None:
            raise _uninitialized(h)
        shape = h.value.shape
        _check_shapes(shape, indices, updates, op_name)
        if mode == "div" and not np.all(updates != 0):
            raise U.op_error(op_name, "updates must not contain 0")
        if updates.ndim == 0:
            updates = np.broadcast_to(updates, indices.shape + shape[1:])
        out = _writable_value(h)
        idx = indices.reshape(-1).astype(np.intp, copy=False)
        upd = updates.reshape((idx.size,) + shape[1:])
        if mode == "mul":
            np.multiply.at(out, idx, upd)
        elif mode == "div":
            if out.dtype.kind in "iu":
                _trunc_div_at(out, idx, upd)
            else:
                np.true_divide.at(out, idx, upd)
        elif mode in ("add", "sub") and idx.size and out.dtype.kind in "fciu":
            _add_rows(out, idx, upd, mode == "sub")
        else:
            _scatter_into(out, idx[:, None], upd, op_name, mode)
        h.value = out
        return []
    return kernel


def _scatter_infer(op_name):
    def infer(inputs, attrs):
        h, i, u = inputs
        U.check_graph_dtype(i, U.INDEX, "indices")
        var_shape = attrs.get("_var_shape")
        if var_shape is not None and var_shape.rank is not None and \
                i.shape.rank is not None and u.shape.rank not in (None, 0):
            want = i.shape.concatenate(var_shape[1:])
            if not u.shape.is_compatible_with(want):
                for k, (a, b) in enumerate(zip(u.shape.as_list(), want.as_list())):
                    if a is not None and b is not None and a != b:
                        raise ValueError(f"Dimension {k} in both shapes must be equal, but are "
                                         f"{a} and {b}. Shapes are {dims_text(u.shape)} and "
                                         f"{dims_text(want)}.")
                raise ValueError(f"Shapes must be equal rank, but are {u.shape.rank} and "
                                 f"{want.rank}")
        return []
    return infer


_ALLOWED = {"add": U.NUMERIC, "sub": U.NUMERIC, "mul": U.NUMERIC, "div": U.NUMERIC,
            "max": U.REAL, "min": U.REAL, "update": None}
_OPS = {}
for _mode, _name in (("add", "ResourceScatterAdd"), ("sub", "ResourceScatterSub"),
                     ("mul", "ResourceScatterMul"), ("div", "ResourceScatterDiv"),
                     ("max", "ResourceScatterMax"), ("min", "ResourceScatterMin"),
                     ("update", "ResourceScatterUpdate")):
    _OPS[_mode] = register(_name, _scatter_kernel(_mode, _name), _scatter_infer(_name),
                           stateful=True)


def resource_scatter(var, mode, indices, updates, name=None):
    """Applies `updates` to the rows `indices` of resource variable `var`
    (`mode`: add, sub, mul, div, max, min or update); returns the variable
    as TensorFlow does (reads give the new value).

    Raises:
      InvalidArgumentError: (eager) for an index out of range, mismatched
        shapes, a dtype the op does not take, or a zero divisor.
      TypeError/ValueError: (graph) for wrong dtypes or static shapes.
    """
    opdef = _OPS[mode]
    u = convert_to_tensor(updates, dtype=var.dtype)
    i = convert_to_tensor(indices)
    allowed = _ALLOWED[mode]
    eager = _state.graph is None
    if i.dtype not in U.INDEX:
        raise U.eager_dtype_error(opdef.name, "Tindices", i.dtype, U.INDEX) if eager else \
            U.graph_dtype_error("indices", i.dtype, U.INDEX)
    if allowed is not None and var.dtype not in allowed:
        raise U.eager_dtype_error(opdef.name, "dtype", var.dtype, allowed) if eager else \
            U.graph_dtype_error("updates", var.dtype, allowed)
    attrs = {"dtype": var.dtype, "Tindices": i.dtype}
    if eager:
        try:
            opdef.kernel(var._storage, i._v, u._v, **attrs)
        except errors.OpError:
            raise
        except Exception as e:
            raise kernel_error(opdef, (var._handle, i, u), attrs, e) from None
        return _UnreadVariable(var)
    op = apply_op(opdef, [var._graph_handle(), i, u], dict(attrs, _var_shape=var.shape),
                  name=name or opdef.name)
    return _UnreadVariable(var, op)


def scatter(var, mode, sparse_delta, name=None):
    """`var.scatter_<mode>(sparse_delta)`: the IndexedSlices' rows applied.

    Raises:
      TypeError: if `sparse_delta` is not an IndexedSlices.
    """
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError("Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: "
                        f"{sparse_delta}")
    return resource_scatter(var, mode, sparse_delta.indices, sparse_delta.values, name)


def batch_scatter_update(var, indices, updates, name=None):
    """Writes `updates` at `indices` along the last index dimension, for each
    position of the leading (batch) dimensions of `indices`: with indices
    [B..., K] and updates [B..., K, rest...], var[b..., indices[b..., k]] =
    updates[b..., k]. Returns the variable."""
    i = convert_to_tensor(indices)
    u = convert_to_tensor(updates, dtype=var.dtype)
    rank = i.shape.rank
    if rank is not None and rank <= 1:
        return resource_scatter(var, "update", i, u, name)
    # Coordinates of every index: its batch position, then the index itself.
    dims = [range_(shape(i, out_type=i.dtype)[k], dtype=i.dtype) for k in range(rank)]
    grids = meshgrid(*dims, indexing="ij")
    batch = stack(grids[:-1], axis=-1)
    nd = concat([batch, expand_dims(cast(i, i.dtype), -1)], -1)
    return var.scatter_nd_update(nd, u, name=name)


# --- tf.compat.v1.scatter_* ---------------------------------------------------

def _v1(mode, doc):
    def fn(ref, indices, updates, use_locking=None, name=None):
        return resource_scatter(ref, mode, indices, updates, name)
    fn.__name__ = "scatter_" + mode
    fn.__doc__ = doc + "\n\n    Returns the variable (reads give the new value)."
    return export("compat.v1.scatter_" + mode)(fn)


scatter_add_v1 = _v1("add", "Adds `updates` to the rows `indices` of variable `ref`.")
scatter_sub_v1 = _v1("sub", "Subtracts `updates` from the rows `indices` of variable `ref`.")
scatter_mul_v1 = _v1("mul", "Multiplies the rows `indices` of variable `ref` by `updates`.")
scatter_div_v1 = _v1("div", "Divides the rows `indices` of variable `ref` by `updates`.")
scatter_max_v1 = _v1("max", "Takes the maximum of the rows `indices` of `ref` and `updates`.")
scatter_min_v1 = _v1("min", "Takes the minimum of the rows `indices` of `ref` and `updates`.")
scatter_update_v1 = _v1("update", "Writes `updates` into the rows `indices` of variable `ref`.")


def _v1_nd(mode):
    def fn(ref, indices, updates, use_locking=True, name=None):
        return getattr(ref, "scatter_nd_" + mode)(indices, updates, name=name)
    fn.__name__ = "scatter_nd_" + mode
    fn.__doc__ = (f"`ref.scatter_nd_{mode}(indices, updates)`: the slices of `ref` that "
                  "`indices` names (tf.scatter_nd's indices) updated; returns the variable.")
    return export("compat.v1.scatter_nd_" + mode)(fn)


scatter_nd_update_v1 = _v1_nd("update")
scatter_nd_add_v1 = _v1_nd("add")
scatter_nd_sub_v1 = _v1_nd("sub")


@export("compat.v1.batch_scatter_update")
def batch_scatter_update_v1(ref, indices, updates, use_locking=True, name=None):
    """`ref.batch_scatter_update` with separate indices and updates."""
    return batch_scatter_update(ref, indices, updates, name)


# Variable.scatter_* and Variable.batch_scatter_update call these (see variables._ROW_UPDATES).
_ROW_UPDATES.update(scatter=scatter, batch_scatter_update=batch_scatter_update)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

_AT_METHODS = {"add": "add", "sub": "add", "mul": "multiply", "div": "divide", "max": "max",
               "min": "min", "update": "set"}


def _lower_scatter(mode):
    def rule(ctx, op, ref, indices, updates):
        value = ctx.read(ref)
        updates = XL.jnp.broadcast_to(updates, XL.jnp.shape(indices) + value.shape[1:])
        if mode == "sub":
            updates = -updates
        ctx.write(ref, getattr(value.at[indices], _AT_METHODS[mode])(updates))
        return []
    return rule


XL.set_lowerings({op.name: _lower_scatter(mode) for mode, op in _OPS.items()})

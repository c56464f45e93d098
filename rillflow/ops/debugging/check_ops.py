"""Runtime checks (`tf.debugging.assert_*`, `tf.debugging.check_numerics`).

Every assertion works in three ways, as in TensorFlow:

- eagerly it checks now, raises InvalidArgumentError with a report of the
  offending values, and returns None;
- while building a graph, a check that can be decided from static shapes,
  dtypes or constant values is decided at once (raising, or returning a
  `NoOp`);
- otherwise it adds an `Assert` op (see `logging_ops.Assert`) that fails
  when the graph runs, and returns it for use in control dependencies.
"""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ..core import op_util as U
from .logging_ops import Assert
from ..control_flow.control_ops import group, no_op
from ..core import math_ops
from ..core.join_ops import stack
from ..core.math_ops import add, equal, greater_equal, less_equal, multiply, subtract
from ..core.reduction_ops import reduce_all, reduce_any
from ..core.shape_ops import rank as rank_op, reshape, shape as shape_op
from ..core.slicing import getitem
from ..core.unary_ops import abs as abs_

_state = _context.state

_NUMERIC = U.NUMERIC


# --- shared pieces ---------------------------------------------------------------

@contextlib.contextmanager
def _scope(name, default):
    g = _state.graph
    if g is None:
        yield
    else:
        with g.name_scope(name or default):
            yield


def _prefix(message):
    return f"{message}.  " if message else ""


def _tensor_name(t):
    """How messages name a tensor: its graph name, or its shape and dtype eagerly."""
    if isinstance(t, EagerTensor):
        return f"shape={t.shape} dtype={t.dtype.name}"
    return t.name


def _no_op():
    return no_op()


def _pretty(item, summarize):
    """One entry of an eager failure report."""
    if isinstance(item, Tensor):
        arr = item.numpy()
        if np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _static_text(item):
    if isinstance(item, Tensor):
        v = U.constant_value(item)
        return str(item) if v is None else str(v)
    return str(item)


def _raise_static(data):
    raise errors.InvalidArgumentError(None, None, "\n".join(_static_text(d) for d in data))


def _mismatch_report(sym, x, y, summarize, ok):
    """What an eager comparison failure lists: differing entries and leading values."""
    data = [f"Condition x {sym} y did not hold."]
    if summarize <= 0:
        return data
    xv, yv = np.asarray(x.numpy()), np.asarray(y.numpy())
    if x.shape == y.shape and x.shape.rank:
        bad = ~np.asarray(ok, dtype=bool)
        where = np.argwhere(bad)
        n = min(summarize, where.shape[0])
        data += [f"Indices of first {n} different values:", where[:n],
                 "Corresponding x values:", xv[bad].reshape(-1)[:n],
                 "Corresponding y values:", yv[bad].reshape(-1)[:n]]
    xf, yf = xv.reshape(-1), yv.reshape(-1)
    nx, ny = min(xf.size, summarize), min(yf.size, summarize)
    data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return data


def _binary_assert(sym, opname, op_func, np_func, x, y, data, summarize, message, name):
    with _scope(name, opname):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if executing_eagerly():
            test = op_func(x, y)
            ok = test.numpy()
            if np.all(ok):
                return None
            if summarize is None:
                summarize = 3
            elif summarize < 0:
                summarize = max(x.shape.num_elements(), y.shape.num_elements(), 1)
            if data is None:
                data = _mismatch_report(sym, x, y, summarize, ok)
            if message is not None:
                data = [message] + list(data)
            raise errors.InvalidArgumentError(
                None, None, "\n".join(_pretty(d, summarize) for d in data))
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        test = op_func(x, y)
        xs, ys = U.constant_value(x), U.constant_value(y)
        if xs is not None and ys is not None and not np.all(np_func(xs, ys)):
            _raise_static(data)
        return Assert(reduce_all(test), data, summarize=summarize)


def _same_tensor(name):
    """assert_equal(x, x): nothing to check."""
    if executing_eagerly():
        return None
    with _scope(name, "assert_equal"):
        return _no_op()


def _math(fn_name):
    def call(x, y):
        return getattr(math_ops, fn_name)(x, y)
    return call


# --- comparisons ---------------------------------------------------------------------

def _v1_binary(sym, opname, fn_name, np_func, doc):
    def v1(x, y, data=None, summarize=None, message=None, name=None):
        if x is y and sym == "==":
            return _same_tensor(name)
        return _binary_assert(sym, opname, _math(fn_name), np_func, x, y, data, summarize,
                              message, name)

    def v2(x, y, message=None, summarize=None, name=None):
        if x is y and sym == "==":
            return _same_tensor(name)
        return _binary_assert(sym, opname, _math(fn_name), np_func, x, y, None, summarize,
                              message, name)
    v1.__name__ = v2.__name__ = opname
    v2.__doc__ = (f"Checks that `x {sym} y` holds elementwise ({doc}).\n\n"
                  "Eagerly raises InvalidArgumentError listing the differing values and "
                  "returns None;\nin a graph returns the `Assert` op (or a `NoOp` when "
                  "decided statically).")
    v1.__doc__ = v2.__doc__ + "\n\n`data` replaces the default failure report."
    return v1, v2


_assert_equal_v1, assert_equal = _v1_binary("==", "assert_equal", "equal", np.equal,
                                            "`tf.debugging.assert_equal`")
_assert_none_equal_v1, _none_equal_v2 = _v1_binary(
    "!=", "assert_none_equal", "not_equal", np.not_equal, "`tf.debugging.assert_none_equal`")


def assert_none_equal(x, y, summarize=None, message=None, name=None):
    # TensorFlow's argument order differs from the other comparisons here.
    return _none_equal_v2(x, y, message=message, summarize=summarize, name=name)


assert_none_equal.__doc__ = _none_equal_v2.__doc__
_assert_less_v1, assert_less = _v1_binary("<", "assert_less", "less", np.less,
                                          "`tf.debugging.assert_less`")
_assert_less_equal_v1, assert_less_equal = _v1_binary(
    "<=", "assert_less_equal", "less_equal", np.less_equal, "`tf.debugging.assert_less_equal`")
_assert_greater_v1, assert_greater = _v1_binary(">", "assert_greater", "greater", np.greater,
                                                "`tf.debugging.assert_greater`")
_assert_greater_equal_v1, assert_greater_equal = _v1_binary(
    ">=", "assert_greater_equal", "greater_equal", np.greater_equal,
    "`tf.debugging.assert_greater_equal`")

export("debugging.assert_equal", "assert_equal")(assert_equal)
export("debugging.assert_none_equal")(assert_none_equal)
export("debugging.assert_less", "assert_less")(assert_less)
export("debugging.assert_less_equal")(assert_less_equal)
export("debugging.assert_greater", "assert_greater")(assert_greater)
export("debugging.assert_greater_equal")(assert_greater_equal)
for _n, _f in (("assert_equal", _assert_equal_v1), ("assert_none_equal", _assert_none_equal_v1),
               ("assert_less", _assert_less_v1), ("assert_less_equal", _assert_less_equal_v1),
               ("assert_greater", _assert_greater_v1),
               ("assert_greater_equal", _assert_greater_equal_v1)):
    export("compat.v1." + _n, "compat.v1.debugging." + _n)(_f)


# --- signs --------------------------------------------------------------------------------

def _sign_assert(x, data, summarize, message, name, opname, condition, zero_left, sym,
                 fn_name, np_func):
    with _scope(name, opname):
        x = convert_to_tensor(x, name="x")
        if data is None:
            # TensorFlow's report for x <= 0 runs its two middle lines together.
            lines = [f"Condition {condition} did not hold element-wise:",
                     f"x ({_tensor_name(x)}) = "]
            if condition == "x <= 0":
                lines = [lines[0] + lines[1]]
            data = [_prefix(message)] + lines + [x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_left else (x, zero)
        return _binary_assert(sym, "assert_" + fn_name, _math(fn_name), np_func, a, b, data,
                              summarize, None, None)


def _sign_pair(opname, condition, zero_left, sym, fn_name, np_func):
    def v1(x, data=None, summarize=None, message=None, name=None):
        return _sign_assert(x, data, summarize, message, name, opname, condition, zero_left,
                            sym, fn_name, np_func)

    def v2(x, message=None, summarize=None, name=None):
        return _sign_assert(x, None, summarize, message, name, opname, condition, zero_left,
                            sym, fn_name, np_func)
    v1.__name__ = v2.__name__ = opname
    v2.__doc__ = (f"Checks that `{condition}` holds for every element of `x`.\n\n"
                  "Eagerly raises InvalidArgumentError (and returns None otherwise); in a "
                  "graph returns the `Assert` op.")
    v1.__doc__ = v2.__doc__
    export("debugging." + opname)(v2)
    export("compat.v1." + opname, "compat.v1.debugging." + opname)(v1)
    return v1, v2


_assert_positive_v1, assert_positive = _sign_pair(
    "assert_positive", "x > 0", True, "<", "less", np.less)
_assert_negative_v1, assert_negative = _sign_pair(
    "assert_negative", "x < 0", False, "<", "less", np.less)
_assert_non_negative_v1, assert_non_negative = _sign_pair(
    "assert_non_negative", "x >= 0", True, "<=", "less_equal", np.less_equal)
_assert_non_positive_v1, assert_non_positive = _sign_pair(
    "assert_non_positive", "x <= 0", False, "<=", "less_equal", np.less_equal)


# --- assert_near ---------------------------------------------------------------------------

def _assert_near(x, y, rtol, atol, data, summarize, message, name):
    with _scope(name, "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        real = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(real.as_numpy_dtype).eps  # ValueError for integers, as in TensorFlow
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=real)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=real)
        if data is None:
            data = [_prefix(message),
                    f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
                    f"x ({_tensor_name(x)}) = ", x, f"y ({_tensor_name(y)}) = ", y]
        tol = add(atol, multiply(rtol, abs_(y)))
        diff = abs_(subtract(x, y))
        return Assert(reduce_all(less_equal(diff, tol)), data, summarize=summarize)


@export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Checks that `|x - y| <= atol + rtol * |y|` elementwise.

    The tolerances default to 10 times the machine epsilon of the dtype.
    Eagerly raises InvalidArgumentError (returns None when it holds); in a
    graph returns the `Assert` op.

    Raises:
      ValueError: for integer tensors (they have no epsilon).
    """
    return _assert_near(x, y, rtol, atol, None, summarize, message, name)


@export("compat.v1.assert_near", "compat.v1.debugging.assert_near")
def _assert_near_v1(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                    name=None):
    """`assert_near` with an explicit failure report `data`."""
    return _assert_near(x, y, rtol, atol, data, summarize, message, name)


# --- rank ------------------------------------------------------------------------------------

def _rank_value(rank, message, what="Rank"):
    """The rank argument as an int32 tensor and its value if known."""
    r = convert_to_tensor(rank, dtype_hint=D.int32, name="rank")
    if r.dtype is not D.int32:
        raise TypeError(f"{_prefix(message)}tensor must be of type tf.int32; got "
                        f"{r.dtype!r}")
    return r, U.constant_value(r)


def _x_name(x):
    return "" if isinstance(x, EagerTensor) else x.name


def _rank_assert(x, rank, message, name, opname, static_ok, describe, dynamic_cond, data):
    with _scope(name, opname):
        x = convert_to_tensor(x, name="x")
        r, rv = _rank_value(rank, message)
        if r.shape.rank != 0:
            raise ValueError(f"{_prefix(message)}Rank must be a scalar.")
        xr = x.shape.rank
        if rv is not None and xr is not None:
            if not static_ok(xr, int(rv)):
                raise ValueError(f"{_prefix(message)}Tensor {_x_name(x)} must have "
                                 f"{describe(int(rv))}.  Received rank {xr}, shape {x.shape}")
            return None if executing_eagerly() else _static_ok_op()
        if data is None:
            data = [_prefix(message), f"Tensor {_x_name(x)} must have {describe(None)}", r,
                    "Received shape: ", shape_op(x)]
        return Assert(dynamic_cond(rank_op(x), r), data)


def _static_ok_op():
    return no_op(name="static_checks_determined_all_ok")


def _rank_eq(x, rank, message, name, data=None):
    return _rank_assert(x, rank, message, name, "assert_rank", lambda a, b: a == b,
                        lambda r: "rank" if r is None else f"rank {r}", equal, data)


@export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, message=None, name=None):
    """Checks that `x` has rank `rank`.

    Raises:
      ValueError: if the static rank is known and differs (eagerly and in graphs).
    """
    return _rank_eq(x, rank, message, name)


@export("compat.v1.assert_rank", "compat.v1.debugging.assert_rank")
def _assert_rank_v1(x, rank, data=None, summarize=None, message=None, name=None):
    """`assert_rank` with an explicit failure report `data`."""
    return _rank_eq(x, rank, message, name, data)


def _rank_at_least(x, rank, message, name, data=None):
    return _rank_assert(x, rank, message, name, "assert_rank_at_least", lambda a, b: a >= b,
                        lambda r: "rank at least" if r is None else f"rank at least {r}",
                        greater_equal, data)


@export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None):
    """Checks that `x` has rank `rank` or more.

    Raises:
      ValueError: if the static rank is known and too small.
    """
    return _rank_at_least(x, rank, message, name)


@export("compat.v1.assert_rank_at_least", "compat.v1.debugging.assert_rank_at_least")
def _assert_rank_at_least_v1(x, rank, data=None, summarize=None, message=None, name=None):
    """`assert_rank_at_least` with an explicit failure report `data`."""
    return _rank_at_least(x, rank, message, name, data)


def _rank_in(x, ranks, message, name, data=None):
    with _scope(name, "assert_rank_in"):
        x = convert_to_tensor(x, name="x")
        rs = [convert_to_tensor(r, dtype_hint=D.int32) for r in ranks]
        for r in rs:
            if r.dtype is not D.int32:
                raise TypeError(f"{_prefix(message)}tensor must be of type tf.int32; got "
                                f"{r.dtype!r}")
            if r.shape.rank != 0:
                raise ValueError(f"{_prefix(message)}Rank must be a scalar.")
        values = [U.constant_value(r) for r in rs]
        xr = x.shape.rank
        if xr is not None and all(v is not None for v in values):
            allowed = tuple(int(v) for v in values)
            if xr not in allowed:
                raise ValueError(f"{_prefix(message)}Tensor {_x_name(x)} must have rank in "
                                 f"{allowed}.  Received rank {xr}, shape {x.shape}")
            return None if executing_eagerly() else _static_ok_op()
        cond = reduce_any(stack([equal(rank_op(x), r) for r in rs]))
        if data is None:
            data = [_prefix(message), f"Tensor {_x_name(x)} must have rank in"] + rs + \
                ["Received shape: ", shape_op(x)]
        return Assert(cond, data)


@export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None):
    """Checks that the rank of `x` is one of `ranks`.

    Raises:
      ValueError: if the static rank is known and not among them.
    """
    return _rank_in(x, ranks, message, name)


@export("compat.v1.assert_rank_in", "compat.v1.debugging.assert_rank_in")
def _assert_rank_in_v1(x, ranks, data=None, summarize=None, message=None, name=None):
    """`assert_rank_in` with an explicit failure report `data`."""
    return _rank_in(x, ranks, message, name, data)


# --- dtypes and shapes -----------------------------------------------------------------------------

def _type_check(tensor, tf_type, message):
    tf_type = D.as_dtype(tf_type)
    t = tensor if isinstance(tensor, Tensor) or hasattr(tensor, "dtype") \
        else convert_to_tensor(tensor)
    if t.dtype is not tf_type:
        who = "tensor" if isinstance(t, EagerTensor) else getattr(t, "name", "tensor")
        raise TypeError(f"{_prefix(message)}{who} must be of type {tf_type!r}; got "
                        f"{t.dtype!r}")


@export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """Checks statically that `tensor` has dtype `tf_type`; returns None.

    Raises:
      TypeError: if it does not.
    """
    _type_check(tensor, tf_type, message)
    return None


@export("compat.v1.assert_type", "compat.v1.debugging.assert_type")
def _assert_type_v1(tensor, tf_type, message=None, name=None):
    """`assert_type`; in a graph returns a `NoOp` when the check passes."""
    _type_check(tensor, tf_type, message)
    if executing_eagerly():
        return None
    return no_op(name="statically_determined_correct_type")


def _integer_check(x, message):
    x = convert_to_tensor(x, name="x")
    if not x.dtype.is_integer:
        who = "tensor" if isinstance(x, EagerTensor) else x.name
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: {who} of '
                        f"dtype {x.dtype}")
    return x


@export("debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """Checks statically that `x` has an integer dtype; returns None.

    Raises:
      TypeError: if it does not.
    """
    _integer_check(x, message)
    return None


@export("compat.v1.assert_integer", "compat.v1.debugging.assert_integer")
def _assert_integer_v1(x, message=None, name=None):
    """`assert_integer`; in a graph returns a `NoOp` when the check passes."""
    _integer_check(x, message)
    return None if executing_eagerly() else _no_op()


def _scalar_check(tensor, message):
    t = convert_to_tensor(tensor)
    s = t.shape
    if s.rank is not None and s.rank != 0:
        if isinstance(t, EagerTensor):
            raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {s}.")
        raise ValueError(f"{_prefix(message)}Expected scalar shape for {t.name}, saw shape: "
                         f"{s}.")
    return t


@export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None):
    """Checks statically that `tensor` is a scalar; returns None.

    Raises:
      ValueError: if its static shape is not scalar.
    """
    _scalar_check(tensor, message)
    return None


@export("compat.v1.assert_scalar", "compat.v1.debugging.assert_scalar")
def _assert_scalar_v1(tensor, name=None, message=None):
    """`assert_scalar` returning the tensor (TensorFlow 1's form)."""
    return _scalar_check(tensor, message)


@export("debugging.assert_proper_iterable", "compat.v1.assert_proper_iterable")
def assert_proper_iterable(values):
    """Checks that `values` is an iterable other than a tensor, array or string.

    Raises:
      TypeError: for tensors, NumPy arrays, str and bytes, or non-iterables.
    """
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """Whether `tensor` is a tensor of a numeric (int, float or complex) dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype in _NUMERIC


@export("debugging.assert_same_float_dtype", "compat.v1.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of `tensors` (and `dtype`); float32 if none is given.

    Raises:
      ValueError: if the dtypes differ or are not floating point.
    """
    if tensors:
        first = None
        for t in tensors:
            if t is None or not hasattr(t, "dtype"):
                continue
            td = t.dtype
            if dtype is None:
                dtype, first = td, t
            elif td is not D.as_dtype(dtype):
                against = f" as {first!s}" if first is not None else ""
                raise ValueError(f"{t!s}, type={td}, must be of the same type "
                                 f"({D.as_dtype(dtype)}){against}.")
    if dtype is None:
        return D.float32
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _symbol_dims(spec):
    if isinstance(spec, str):
        return tuple(spec)
    return tuple(spec)


@export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks the shapes of several tensors against symbolic specs.

    `shapes` pairs tensors with specs like `('N', 3)`: ints fix a size,
    strings name sizes that must agree across all tensors, None or '.'
    allow any size, and a leading '*' allows any number of leading
    dimensions. Specs of length 0 or 1 also accept scalars.

    Raises:
      ValueError: when the static shapes already violate the specs.
    """
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = _prefix(message)
    known = {}  # symbol -> (size or tensor, description)
    asserts = []
    with _scope(name, "assert_shapes"):
        for x, spec in items:
            x = convert_to_tensor(x)
            dims = _symbol_dims(spec)
            tname = _tensor_name(x)
            any_leading = bool(dims) and dims[0] == "*"
            if any_leading:
                dims = dims[1:]
            r = x.shape.rank
            if any_leading:
                if r is not None and r < len(dims):
                    raise ValueError(f"{prefix}Tensor {_x_name(x)} must have rank at least "
                                     f"{len(dims)}.  Received rank {r}, shape {x.shape}")
            elif len(dims) <= 1:
                if r is not None and r not in (0, 1):
                    raise ValueError(f"{prefix}Tensor {_x_name(x)} must have rank in (0, 1).  "
                                     f"Received rank {r}, shape {x.shape}")
                if r == 0:
                    continue
                if not dims:
                    dims = (1,)
            elif r is not None and r != len(dims):
                raise ValueError(f"{prefix}Tensor {_x_name(x)} must have rank {len(dims)}.  "
                                 f"Received rank {r}, shape {x.shape}")
            if r is None:
                continue
            for j, sym in enumerate(dims):
                i = j - len(dims) if any_leading else j
                actual = x.shape[i]
                if sym is None or sym == ".":
                    continue
                if isinstance(sym, str):
                    if sym not in known:
                        known[sym] = (actual if actual is not None else getitem(shape_op(x), i),
                                      f"Specified by tensor {tname} dimension {i}")
                        continue
                    want, origin = known[sym]
                else:
                    want, origin = int(sym), "Specified explicitly"
                want_v = want if isinstance(want, int) else U.constant_value(want)
                if actual is not None and want_v is not None:
                    if actual != int(want_v):
                        raise ValueError(
                            f"{prefix}{origin}.  Tensor {tname} dimension {i} must have size "
                            f"{int(want_v)}.  Received size {actual}, shape {x.shape}")
                    continue
                got = getitem(shape_op(x), i)
                cond = equal(got, want)
                asserts.append(Assert(cond, data or [
                    prefix + origin + ".", f"Tensor {tname} dimension {i} must have size",
                    want, "Received shape: ", shape_op(x)], summarize=summarize))
    if executing_eagerly() or not asserts:
        return None
    return group(*asserts)


# --- numerics -------------------------------------------------------------------------------------

_NUMERICS_TYPES = tuple(d for d in U.FLOATS)


def _check_numerics_kernel(x, message=""):
    nan = np.isnan(x).any()
    inf = np.isinf(x).any()
    if nan or inf:
        what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return x


def _check_numerics_infer(inputs, attrs):
    x = inputs[0]
    U.check_graph_dtype(x, _NUMERICS_TYPES, "tensor")
    return [(x.shape, x.dtype)]


def _check_numerics_grad(op, g):
    return [check_numerics(g, "Not a number (NaN) or infinity (Inf) values detected in "
                              "gradient. " + op.get_attr("message"))]


_CheckNumerics = register("CheckNumerics", _check_numerics_kernel, _check_numerics_infer,
                          _check_numerics_grad, stateful=True, allowed=_NUMERICS_TYPES)


@export("debugging.check_numerics", "compat.v1.check_numerics",
        "compat.v1.debugging.check_numerics")
def check_numerics(tensor, message, name=None):
    """Returns `tensor`, failing if it holds NaN or Inf values.

    Raises:
      InvalidArgumentError: '<message> : Tensor had NaN values' (or Inf).
    """
    x = convert_to_tensor(tensor)
    if executing_eagerly() and x.dtype not in _NUMERICS_TYPES:
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
            "values: bfloat16, half, float, double [Op:CheckNumerics]")
    return apply1(_CheckNumerics, x, {"message": message}, name=name or "CheckNumerics")


@export("debugging.assert_all_finite")
def assert_all_finite(x, message, name=None):
    """Returns `x`, failing if it holds NaN or Inf values (`check_numerics`)."""
    return check_numerics(x, message, name=name)


@export("compat.v1.verify_tensor_all_finite", "compat.v1.debugging.assert_all_finite")
def _verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """TensorFlow 1's `verify_tensor_all_finite(t, msg)`."""
    return check_numerics(x if t is None else t, message if msg is None else msg, name=name)


def _monotonic(x, compare):
    """compare(x[1:], x[:-1]) of the flattened x ([] with fewer than 2 elements)."""
    x = reshape(x, [-1])
    if not (x.dtype.is_integer or x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError("Expected x to be numeric, instead found: %s" % x)
    n = int(x.shape[0]) if x.shape[0] is not None else None
    if n is not None and n < 2:
        return convert_to_tensor(np.zeros([0], bool))
    return compare(x[1:], x[:-1])


@export("math.is_non_decreasing")
def is_non_decreasing(x, name=None):
    """Whether each element of x (flattened) is >= the one before (True for
    fewer than two elements).

    Raises:
      TypeError: for a non-numeric x.
    """
    with _scope(name, "is_non_decreasing"):
        return reduce_all(_monotonic(convert_to_tensor(x), greater_equal))


@export("math.is_strictly_increasing")
def is_strictly_increasing(x, name=None):
    """Whether each element of x (flattened) is > the one before (True for
    fewer than two elements).

    Raises:
      TypeError: for a non-numeric x.
    """
    with _scope(name, "is_strictly_increasing"):
        return reduce_all(_monotonic(convert_to_tensor(x), math_ops.greater))


def _check_pinned_kernel(tensor, **_):
    raise errors.FailedPreconditionError(
        None, None, "to check pinnedness, must be built with `--config=cuda`")


_CheckPinned = register("CheckPinned", _check_pinned_kernel,
                        lambda i, a: [(i[0].shape, i[0].dtype)], stateful=True)


@export("check_pinned")
def check_pinned(tensor, name=None):
    """Checks that `tensor` is in GPU-pinned host memory: a CPU-only build
    cannot tell, so it fails as TensorFlow's CPU build does.

    Raises:
      FailedPreconditionError: always (no CUDA here).
    """
    return apply(_CheckPinned, [convert_to_tensor(tensor)], name=name or "CheckPinned")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_check_numerics(ctx, op, x):
    message = op.attrs.get("message", "")
    XL.host_callback(ctx, lambda v: _check_numerics_kernel(v, message), x)
    return x


XL.set_lowerings({"CheckNumerics": _lower_check_numerics})

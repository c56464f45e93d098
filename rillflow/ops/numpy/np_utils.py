"""Helpers of `tf.experimental.numpy`: its docstrings (NumPy's name, the
arguments it leaves out, a link to NumPy's page), and the "evaluate now if
you can" versions of a few ops (`cond`, `add`, comparisons) that let one
function serve eagerly, in graphs with known values, and in graphs without:
a value known while building (e.g. a static rank) takes the Python branch,
so no `tf.cond` is built, as in TensorFlow."""
import inspect

import numpy as np

from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..control_flow import cond as _cond
from ..core import broadcast_ops, reduction_ops, shape_ops

_DOC_LINK = "https://numpy.org/doc/stable/reference/generated/numpy.%s.html"


def _np_signature(f):
    """inspect.signature of a NumPy function; ufuncs get theirs spelled out."""
    if f is None:
        return None
    if not isinstance(f, np.ufunc):
        try:
            return inspect.signature(f)
        except (ValueError, TypeError):
            return None
    names = ["x"] if f.nin == 1 else ["x%d" % (i + 1) for i in range(f.nin)]
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names]
    params.append(inspect.Parameter("out", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    default=None))
    for n, d in (("where", True), ("casting", "same_kind"), ("order", "K"), ("dtype", None),
                 ("subok", True), ("signature", None)):
        params.append(inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d))
    return inspect.Signature(params)


def _numpy_function(name):
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def np_doc(np_fun_name, link=None, check_signature=True):
    """Decorator: the function's docstring becomes TensorFlow's form, "TensorFlow
    variant of NumPy's `name`.", the NumPy arguments it does not take, its own
    docstring, and a link to NumPy's page (`link`: another NumPy name, or
    False for none)."""
    np_fun = _numpy_function(np_fun_name)
    np_sig = _np_signature(np_fun) if check_signature else None

    def decorator(f):
        doc = "TensorFlow variant of NumPy's `%s`.\n\n" % np_fun_name
        if np_sig is not None:
            try:
                own = inspect.signature(f).parameters
            except ValueError:
                own = None
            if own is not None:
                missing = [n for n in np_sig.parameters if n not in own]
                if missing:
                    doc += "Unsupported arguments: %s.\n\n" % ", ".join(
                        "`%s`" % n for n in missing)
        if f.__doc__:
            doc += inspect.cleandoc(f.__doc__) + "\n\n"
        if link is not False:
            doc += "See the NumPy documentation for [`numpy.%s`](%s)." % (
                np_fun_name, _DOC_LINK % (link or np_fun_name))
        f.__doc__ = doc
        return f
    return decorator


def get_static_value(x):
    """`x`'s value if known now (eagerly, or a constant while building), but
    None for float and complex tensors (using their values would cut their
    gradients)."""
    if isinstance(x, Tensor):
        if x.dtype.is_floating or x.dtype.is_complex:
            return None
        if isinstance(x, EagerTensor):
            return x.numpy()
        if isinstance(x, SymbolicTensor):
            return x._const
        return None
    if hasattr(x, "_dense_var_to_tensor"):
        return None
    return x  # a Python or NumPy value is its own value


def maybe_static(x):
    """`x`'s static value if it has one, else `x`."""
    value = get_static_value(x)
    return x if value is None else value


def cond(pred, true_fn, false_fn):
    """`tf.cond` that takes the branch now when `pred` is known."""
    v = get_static_value(pred)
    if v is None:
        return _cond.cond(pred, true_fn, false_fn)
    return true_fn() if v else false_fn()


def add(a, b):
    return maybe_static(a) + maybe_static(b)


def subtract(a, b):
    return maybe_static(a) - maybe_static(b)


def greater(a, b):
    return maybe_static(a) > maybe_static(b)


def greater_equal(a, b):
    return maybe_static(a) >= maybe_static(b)


def less_equal(a, b):
    return maybe_static(a) <= maybe_static(b)


def logical_and(a, b):
    a_value = get_static_value(a)
    if a_value is None:
        return a & maybe_static(b)
    if np.isscalar(a_value) or np.ndim(a_value) == 0:
        return maybe_static(b) if a_value else a_value
    return a_value & maybe_static(b)


def logical_or(a, b):
    a_value = get_static_value(a)
    if a_value is None:
        return a | maybe_static(b)
    if np.isscalar(a_value) or np.ndim(a_value) == 0:
        return a_value if a_value else maybe_static(b)
    return a_value | maybe_static(b)


def getitem(a, slice_spec):
    return maybe_static(a)[slice_spec]


def reduce_all(input_tensor, axis=None, keepdims=False):
    v = get_static_value(input_tensor)
    if v is None:
        return reduction_ops.reduce_all(input_tensor, axis=axis, keepdims=keepdims)
    return v.all(axis=axis, keepdims=keepdims)


def tf_rank(t):
    """The static rank, else the `tf.rank` tensor."""
    r = t.shape.rank
    return r if r is not None else shape_ops.rank(t)


def canonicalize_axes(axes, rank):
    """Negative axes counted from the end of `rank` dimensions."""
    rank = maybe_static(rank)
    if isinstance(rank, Tensor):
        return [cond(axis < 0, lambda a=axis: a + rank, lambda a=axis: a) for axis in axes]
    return [axis + rank if axis < 0 else axis for axis in axes]


def canonicalize_axis(axis, rank):
    return canonicalize_axes([axis], rank)[0]


def tf_broadcast(*args):
    """The tensors broadcast to their common shape."""
    if len(args) <= 1:
        return args
    sh = shape_ops.shape(args[0])
    for arg in args[1:]:
        sh = broadcast_ops.broadcast_dynamic_shape(sh, shape_ops.shape(arg))
    return [broadcast_ops.broadcast_to(arg, sh) for arg in args]


def isscalar(val):
    """Whether `val` is a scalar value or a rank-0 tensor."""
    if isinstance(val, Tensor):
        ndims = val.shape.ndims
        if ndims is not None:
            return ndims == 0
        return shape_ops.rank(val) == 0
    return np.isscalar(val)

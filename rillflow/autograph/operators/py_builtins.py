"""Builtins that behave differently on tensors in converted code: `range` with
tensor arguments is `tf.range`, `len` of a tensor is its first dimension,
`int`/`float` cast, and so on. `print` stays Python's (it runs while
tracing, as in TensorFlow 2), unless the function asks for AutoGraph's
BUILTIN_FUNCTIONS feature: then `print` of graph tensors prints their
values each time the function runs (`print_`)."""
import builtins

from ...framework import dtypes as D
from ...framework.tensor import Tensor
from .dispatch import is_graph_tensor
from . import data_structures as DS
from ...framework.convert import convert_to_tensor
from ...ops.control_flow.script_ops import numpy_function
from ...ops.core.creation_ops import range as tf_range
from ...ops.core.math_ops import cast
from ...ops.core.shape_ops import shape
from ...ops.core.unary_ops import abs as tf_abs


def _any_tensor(*xs):
    return any(isinstance(x, Tensor) or hasattr(x, "_dense_var_to_tensor") for x in xs)


def range_(start_or_stop, stop=None, step=None):
    """`range`, or `tf.range` when an argument is a tensor."""
    args = [a for a in (start_or_stop, stop, step) if a is not None]
    if _any_tensor(*args):
        if stop is None:
            return tf_range(start_or_stop)
        return tf_range(start_or_stop, stop, 1 if step is None else step)
    return builtins.range(*args)


def len_(s):
    """`len`, for tensors the first dimension (a tensor if not known statically)."""
    if isinstance(s, DS.TensorListLoopVar):
        return s.size()
    if hasattr(s, "stack") and hasattr(s, "size") and hasattr(s, "write"):
        return s.size()
    if is_graph_tensor(s):
        t = convert_to_tensor(s)
        if t.shape.rank == 0:
            raise ValueError("len requires a non-scalar tensor, got one of shape []")
        if t.shape.rank is not None and t.shape[0] is not None:
            return t.shape[0]
        return shape(t)[0]
    return builtins.len(s)


def int_(x=0, base=None):
    """`int`, a cast to int32 for tensors."""
    if is_graph_tensor(x):
        return cast(x, D.int32)
    return builtins.int(x) if base is None else builtins.int(x, base)


def float_(x=0.0):
    """`float`, a cast to float32 for tensors."""
    if is_graph_tensor(x):
        return cast(x, D.float32)
    return builtins.float(x)


def abs_(x):
    """`abs`, `tf.abs` for tensors."""
    if is_graph_tensor(x):
        return tf_abs(x)
    return builtins.abs(x)


def enumerate_(s, start=0):
    """`enumerate`, `Dataset.enumerate` for datasets."""
    if hasattr(s, "element_spec") and hasattr(s, "enumerate"):
        return s.enumerate(start)
    return builtins.enumerate(s, start)


def zip_(*iterables, strict=False):
    """`zip`, `Dataset.zip` for datasets."""
    if iterables and all(hasattr(i, "element_spec") for i in iterables):
        return type(iterables[0]).zip(tuple(iterables))
    return builtins.zip(*iterables)


def map_(fn, *iterables):
    """`map`, `Dataset.map` for a dataset."""
    if len(iterables) == 1 and hasattr(iterables[0], "element_spec"):
        return iterables[0].map(fn)
    return builtins.map(fn, *iterables)


def filter_(fn, iterable):
    """`filter`, `Dataset.filter` for a dataset."""
    if hasattr(iterable, "element_spec") and hasattr(iterable, "filter"):
        return iterable.filter(fn)
    return builtins.filter(fn, iterable)


def next_(iterator, default=None, *rest):
    """`next`, the iterator's `get_next` for dataset iterators in graphs."""
    if hasattr(iterator, "get_next") and hasattr(iterator, "element_spec"):
        return next(iterator)
    return builtins.next(iterator) if default is None and not rest else \
        builtins.next(iterator, default)


def print_(*objects, **kwargs):
    """`print`, printing graph tensors' values when the function runs (as
    Python prints them: NumPy values, bytes decoded)."""
    unknown = set(kwargs) - {"sep", "end", "file", "flush"}
    if unknown:
        raise ValueError("invalid keyword arguments: {}".format(tuple(unknown)))
    positions = [i for i, o in enumerate(objects) if is_graph_tensor(o)]
    if not positions:
        return builtins.print(*objects, **kwargs)
    kwargs.setdefault("flush", True)

    def printer(*values):
        out = list(objects)
        for i, v in zip(positions, values):
            out[i] = v.decode("utf-8") if isinstance(v, bytes) else v
        builtins.print(*out, **kwargs)
    numpy_function(printer, [objects[i] for i in positions], [])
    return None


OVERLOADS = {
    builtins.range: range_, builtins.len: len_, builtins.int: int_,
    builtins.float: float_, builtins.abs: abs_, builtins.enumerate: enumerate_,
    builtins.zip: zip_, builtins.map: map_, builtins.filter: filter_, builtins.next: next_,
}

"""`tf.py_function` and `tf.numpy_function`: call back into Python at run time.

In a graph these are stateful ops, so they run on every call of the
function (unlike Python code in the function body, which runs only while
tracing). Their kernels run user code eagerly.
"""
import functools

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors, nest
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor, to_numpy
from ...framework.execute import apply, apply_op
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape

_state = _context.state


def _as_output(value, dtype, fn_name):
    if isinstance(value, EagerTensor):
        arr = value._v
    elif hasattr(value, "_dense_var_to_tensor"):
        arr = value._dense_var_to_tensor()._v
    else:
        try:
            arr = to_numpy(value, dtype)
        except (TypeError, ValueError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"{fn_name} returned a value that is not a {dtype.name} tensor: "
                f"{value!r} ({e})") from None
    if D.from_numpy(arr.dtype) is not dtype:
        raise errors.InvalidArgumentError(
            None, None, f"{fn_name}: expected return value of dtype {dtype.name}, got "
            f"{D.from_numpy(arr.dtype).name}")
    return arr


def _run_python(func, args, touts, single, eager_args, fn_name):
    with _context.eager_mode():
        saved = _state.tapes
        _state.tapes = []
        try:
            ins = [EagerTensor(a) for a in args] if eager_args else [
                a if not (isinstance(a, np.ndarray) and a.ndim == 0) else a[()] for a in args]
            result = func(*ins)
        finally:
            _state.tapes = saved
    if not touts:
        return []
    results = [result] if single else list(result) if isinstance(result, (list, tuple)) \
        else [result]
    if len(results) != len(touts):
        raise errors.InvalidArgumentError(
            None, None, f"{fn_name} returned {len(results)} values, but Tout has "
            f"{len(touts)} dtypes")
    return [_as_output(r, t, fn_name) for r, t in zip(results, touts)]


def _py_kernel(*args, func, Tout, _single, _eager_args):
    return _run_python(func, args, Tout, _single, _eager_args,
                       getattr(func, "__name__", "py_function"))


def _py_infer(inputs, attrs):
    return [(TensorShape(None), t) for t in attrs["Tout"]]


_EagerPyFunc = register("EagerPyFunc", _py_kernel, _py_infer, stateful=True)
_PyFunc = register("PyFunc", _py_kernel, _py_infer, stateful=True)


def _call(opdef, func, inp, Tout, name, eager_args):
    single = not isinstance(Tout, (list, tuple))
    touts = [D.as_dtype(Tout)] if single else [D.as_dtype(t) for t in Tout]
    ins = [convert_to_tensor(x) for x in nest.flatten(inp)] if inp is not None else []
    if _state.graph is None:
        if eager_args:
            out = func(*ins)
            if not touts:
                return []
            outs = [out] if single else list(out)
            res = [convert_to_tensor(o, dtype=t) if not isinstance(o, Tensor) else o
                   for o, t in zip(outs, touts)]
            return res[0] if single else res
        vals = _run_python(func, [t._v for t in ins], touts, single, False,
                           getattr(func, "__name__", "numpy_function"))
        res = [EagerTensor(v) for v in vals]
        return res[0] if single else res
    attrs = {"func": func, "Tout": touts, "_single": single, "_eager_args": eager_args}
    if not touts:
        apply_op(opdef, ins, attrs, name=name or opdef.name)
        return []
    outs = apply(opdef, ins, attrs, name=name or opdef.name, multi=True)
    return outs[0] if single else outs


def _decorator_or_call(api_name, func, inp, Tout, name, call):
    """As TensorFlow: with `func=None` a decorator whose calls pass their
    positional arguments as `inp`; otherwise `inp` is required."""
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {api_name} as a "
                            f"decorator (`func=None`).")

        def decorator(f):
            @functools.wraps(f)
            def wrapper(*args):
                return call(f, list(args), Tout, name)
            return wrapper
        return decorator
    if inp is None:
        raise TypeError(f"Missing argument `inp`:\n  You must set the `inp` argument (the "
                        f"list of arguments to the\n  function), unless you use `{api_name}` "
                        f"as a decorator(`func=None`).")
    return call(func, inp, Tout, name)


@export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):
    """Wraps a Python function as an op that runs it at run time, eagerly,
    with tensors as arguments (`tf.py_function`).

    As a decorator (`@tf.py_function(Tout=...)`), the decorated function's
    positional arguments are the inputs.

    Args:
      func: the Python callable (None to make a decorator).
      inp: list of input tensors (not given to the decorator form).
      Tout: a dtype (the result is one tensor) or a list of dtypes.
    """
    return _decorator_or_call(
        "tf.py_function", func, inp, Tout, name,
        lambda f, i, t, n: _call(_EagerPyFunc, f, i, t, n, eager_args=True))


@export("numpy_function", "compat.v1.py_func")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Like `py_function`, but `func` receives and returns NumPy arrays
    (also usable as a decorator, `@tf.numpy_function(Tout=...)`)."""
    return _decorator_or_call(
        "tf.numpy_function", func, inp, Tout, name,
        lambda f, i, t, n: _call(_PyFunc, f, i, t, n, eager_args=False))

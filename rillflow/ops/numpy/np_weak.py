"""TensorFlow's auto dtype conversion: the "safe" and "all" modes of
`experimental_enable_numpy_behavior(dtype_conversion_mode=...)`.

A Python value given to a wrapped op becomes a *weak* tensor (`WeakTensor`,
of int32, float32 or complex128) whose dtype gives way to the other
operand's: `int8 tensor + 1` stays int8. Two operands promote by
TensorFlow's lattice (np_weak_table.py, read from TensorFlow by
tools/gen_weak_table.py), which also says which promotions only the "all"
mode allows (in "safe" mode they raise TypeError).

As in TensorFlow, only the functions TensorFlow wraps get the new rules:
enabling the mode replaces the public functions its table names (`tf.add`,
`tf.math.exp`, `tf.constant`, ... and the tnp functions, also inside this
package, where they call each other) with wrappers, and the Tensor
operators (ops/tensor_operators.py) promote `+ - * / // % ** @` and `==`,
`!=` through `binary_operator`.
"""
import inspect
import numbers

import numpy as np

from ...framework import dtypes as D
from ...framework import func_graph
from ...framework.api_export import EXPORTS
from ...framework.convert import convert_to_tensor
from ...framework.extension_type import BatchableExtensionType
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape
from ..core import math_ops, unary_ops
from . import np_array_core as A
from . import np_dtypes
from . import np_math_binary as B
from . import np_math_unary as U
from . import np_reductions as R
from .np_weak_table import LATTICE, TNP_WRAPPED, WRAPPED

_ALLOWED_WEAK = (D.int32, D.int64, D.float32, D.float64, D.complex128)
_MODE_VALUE = {np_dtypes.PromoMode.SAFE: 2, np_dtypes.PromoMode.ALL: 3}


class WeakTensor(BatchableExtensionType):
    """A weakly typed tensor: its dtype was inferred from a Python value and
    gives way to the dtype of a tensor it meets (TensorFlow's WeakTensor).
    It is not a `tf.Tensor` (`isinstance` says False; `tf.is_tensor` True),
    but converts to one, and reads like the tensor it holds."""
    __name__ = "tf.WeakTensor"
    tensor: Tensor
    _is_tensor_like = True
    _is_weak_tensor = True

    def __validate__(self):
        if self.tensor.dtype not in _ALLOWED_WEAK:
            raise TypeError(f"{self.tensor.dtype} not allowed as a weak type. The allowed "
                            f"types are {_ALLOWED_WEAK}.")

    @classmethod
    def from_tensor(cls, tensor):
        """The weak form of `tensor`."""
        return cls(tensor)

    def to_tensor(self):
        """The `tf.Tensor` it holds."""
        return self.tensor

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def shape(self):
        return self.tensor.shape

    def __getattr__(self, name):
        # Only reached for a missing attribute: the held tensor's methods.
        if name == "tensor" or name.startswith("_tf"):
            raise AttributeError(name)
        return getattr(self.tensor, name)

    def _format(self, text):
        # The tensor's text with ", weak=True" before its closing character.
        last = text.rfind(text[-1])
        return text[:last] + ", weak=True" + text[-1]

    def __repr__(self):
        return self._format(repr(self.tensor))

    def __str__(self):
        return self._format(str(self.tensor))

    def __format__(self, format_spec):
        if not isinstance(self.tensor, EagerTensor):
            return format(str(self), format_spec)  # a graph weak tensor formats as its str
        return f"{self.tensor.__format__(format_spec)} weakly typed"

    def __tf_tensor__(self, dtype=None, name=None):
        return convert_to_tensor(self.tensor, dtype=dtype, name=name)

    def numpy(self):
        return self.tensor.numpy()

    def __array__(self, dtype=None, copy=None):
        return np.array(self.tensor.__array__(dtype))

    def __bool__(self):
        return bool(self.tensor)

    def __int__(self):
        return int(self.tensor)

    def __float__(self):
        return float(self.tensor)

    def __complex__(self):
        return complex(self.tensor)

    def __index__(self):
        return self.tensor.__index__()

    def __len__(self):
        return len(self.tensor)

    def __iter__(self):
        return (WeakTensor(t) for t in self.tensor)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def to_weak_or_tensor(t, to_weak):
    """`t` as a WeakTensor (to_weak) or a plain tensor."""
    if isinstance(t, WeakTensor):
        t = t.tensor
    if to_weak and isinstance(t, Tensor):
        return WeakTensor(t)
    return t


# --- the lattice ---------------------------------------------------------------

# NumPy's scalar types and their dtypes (TensorFlow's _NP_TO_TF).
_NP_TO_TF = {d.as_numpy_dtype: d.name for d in (
    D.float16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16,
    D.uint32, D.uint64, D.complex64, D.complex128, D.bool_, D.bfloat16) if d is not None}
_NP_TO_TF.update({np.object_: "string", np.bytes_: "string", np.str_: "string"})
_STRING_NP = (np.dtype("object"), np.dtype("bytes"), np.dtype("str"))


def _equals(x, t):
    """`x == t` as TensorFlow tests it: NumPy's dtype('int64') == int is True,
    so a NumPy dtype object equal to a Python type reads as that type."""
    try:
        return bool(x == t)
    except Exception:  # noqa: BLE001 - not comparable: not that type
        return False


def _dtype_and_weakness(x):
    """(dtype name, weak) of one argument, tested in TensorFlow's order.

    Raises:
      OverflowError: for a Python int outside int32.
      NotImplementedError: for a type the new semantics do not cover.
    """
    if isinstance(x, WeakTensor):
        return (x.dtype.name, True)
    if isinstance(x, D.DType):
        return (x.name, False)
    dt = getattr(x, "dtype", None)
    if isinstance(dt, D.DType):
        return (dt.name, False)
    if isinstance(x, (np.ndarray, np.generic)) or isinstance(dt, np.dtype):
        return (D.as_dtype(dt).name, False)
    if isinstance(x, (bytes, str)) or any(dt is s for s in _STRING_NP):
        return ("string", False)
    try:
        if x in _NP_TO_TF:
            return (_NP_TO_TF[x], False)
    except TypeError:  # unhashable
        pass
    if isinstance(x, bool) or _equals(x, bool):
        return ("bool", False)
    if isinstance(x, int):
        if not -2**31 <= x < 2**31:
            raise OverflowError(f"Python int {x} too large to convert to np.int32")
        return ("int32", True)
    if _equals(x, int):
        return ("int32", True)
    if isinstance(x, float) or _equals(x, float):
        return ("float32", True)
    if isinstance(x, complex) or _equals(x, complex):
        return ("complex128", True)
    if isinstance(x, TensorShape):
        return ("int32", False)
    if isinstance(x, np.dtype):
        try:
            return (D.as_dtype(x).name, False)
        except TypeError as exc:
            raise NotImplementedError(f"Auto dtype conversion semantics does not support {x}. "
                                      "Try using a NumPy built-in dtype objects or cast them "
                                      "explicitly.") from exc
    raise NotImplementedError(f"Auto dtype conversion semantics does not support {type(x)} type.")


def _flatten(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


def result_type(*arrays_and_dtypes):
    """(tf.DType, weak) of the arguments by TensorFlow's lattice.

    Raises:
      TypeError: in "safe" mode, for a promotion only "all" allows.
      NotImplementedError: for arguments the new semantics do not cover.
    """
    mode = _MODE_VALUE.get(np_dtypes.get_dtype_conversion_mode(), 3)
    values = []
    for v in arrays_and_dtypes:
        if v is None:
            continue
        if getattr(v, "_is_composite_tensor", False) and not isinstance(
                v, (WeakTensor, IndexedSlices)):
            raise NotImplementedError(
                f"Auto dtype conversion semantics does not support {type(v)} type.")
        values.append(v)
    kinds = [_dtype_and_weakness(x) for x in _flatten(values)] or [("float32", True)]
    res = kinds[0]
    for arg in kinds[1:]:
        try:
            res_next, allowed = LATTICE[res][arg]
        except KeyError:
            raise NotImplementedError(f"Implicit Conversion between {res[0]} and {arg[0]} is "
                                      "not allowed. Please convert the input manually if you "
                                      "need to.") from None
        if allowed > mode:
            name = np_dtypes.get_dtype_conversion_mode()
            raise TypeError(f"In promotion mode {name}, implicit dtype promotion between "
                            f"({res[0]}, weak={res[1]}) and ({arg[0]}, weak={arg[1]}) is "
                            "disallowed. You need to explicitly specify the dtype in your op, "
                            "or relax your dtype promotion rules (such as from SAFE mode to "
                            "ALL mode).")
        res = tuple(res_next)
    return D.as_dtype(res[0]), res[1]


def _tnp_result_type(*arrays_and_dtypes):
    return result_type(*arrays_and_dtypes)[0]


np_dtypes._weak_result_type = _tnp_result_type


def _convert_or_cast(x, dtype, name):
    if isinstance(x, WeakTensor):
        x = x.tensor
    if isinstance(x, Tensor) or getattr(x, "_is_composite_tensor", False):
        return math_ops.cast(x, dtype=dtype, name=name)
    return convert_to_tensor(x, dtype=dtype, name=name)


# --- the wrappers ----------------------------------------------------------------

def _call(op, bound):
    return op(*bound.args, **bound.kwargs)


def unary_wrapper(op, x_arg_name=None):
    """`op` with its input `x_arg_name` typed by the lattice: a Python value
    (or WeakTensor) gives a WeakTensor result unless a dtype is asked for."""
    sig = inspect.signature(op)
    x_arg_name = x_arg_name or next(iter(sig.parameters))

    def wrapper(*args, **kwargs):
        if not np_dtypes.auto_dtype_conversion():
            return op(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        x = bound.arguments.get(x_arg_name)
        if isinstance(x, Tensor) or bound.arguments.get("dtype") is not None:
            return _call(op, bound)
        try:
            target, weak = result_type(x)
        except NotImplementedError:
            return _call(op, bound)
        bound.arguments[x_arg_name] = _convert_or_cast(x, target, "x")
        return to_weak_or_tensor(_call(op, bound), weak)
    return _wrap(op, wrapper)


def binary_wrapper(op, x_arg_name=None, y_arg_name=None, special_handling=None):
    """`op` with its two inputs promoted by the lattice (a weak result when
    the promoted type is weak; never for comparisons)."""
    sig = inspect.signature(op)
    names = iter(sig.parameters)
    x_arg_name = x_arg_name or next(names)
    y_arg_name = y_arg_name or next(names)

    def wrapper(*args, **kwargs):
        if not np_dtypes.auto_dtype_conversion():
            return op(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        x = bound.arguments.get(x_arg_name)
        y = bound.arguments.get(y_arg_name)
        try:
            target, weak = result_type(x, y)
        except NotImplementedError:
            return _call(op, bound)
        if special_handling == "constant":
            # tf.constant(x, dtype): the dtype wins; without one, x's type.
            if isinstance(x, WeakTensor):
                bound.arguments[x_arg_name] = x = x.tensor
            if y is not None:
                if target != y:
                    return _call(op, bound)
                if isinstance(x, Tensor):
                    bound.arguments[x_arg_name] = _convert_or_cast(x, target, "x")
                return _call(op, bound)
            bound.arguments["dtype"] = target
            return to_weak_or_tensor(_call(op, bound), weak)
        bound.arguments[x_arg_name] = _convert_or_cast(x, target, "x")
        bound.arguments[y_arg_name] = _convert_or_cast(y, target, "y")
        if special_handling == "comparison-method":
            weak = False
        return to_weak_or_tensor(_call(op, bound), weak)
    return _wrap(op, wrapper)


def _wrap(op, wrapper):
    wrapper.__name__ = getattr(op, "__name__", "wrapper")
    wrapper.__qualname__ = getattr(op, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = op.__doc__
    wrapper.__wrapped__ = op
    wrapper.__signature__ = inspect.signature(op)
    return wrapper


# Public functions TensorFlow routes through wrapped internals (tf.subtract
# calls its wrapped Sub, tf.pow its wrapped Pow, ...), so they act wrapped.
_ROUTED = {"subtract": ("binary", "x", "y", None), "math.subtract": ("binary", "x", "y", None),
           "math.truediv": ("binary", "x", "y", None), "truediv": ("binary", "x", "y", None),
           "math.floordiv": ("binary", "x", "y", None), "floordiv": ("binary", "x", "y", None),
           "pow": ("binary", "x", "y", None), "math.pow": ("binary", "x", "y", None),
           "equal": ("binary", "x", "y", "comparison-method"),
           "math.equal": ("binary", "x", "y", "comparison-method")}


def binary_operator(fn, x, y, name):
    """A Tensor operator (`+`, `*`, ...) under auto dtype conversion: both
    operands promoted by the lattice, a WeakTensor result when weak."""
    target, weak = result_type(x, y)
    out = fn(_convert_or_cast(x, target, "x"), _convert_or_cast(y, target, "y"), name=name)
    return to_weak_or_tensor(out, weak)


def comparison_operator(fn, x, y):
    """`==`/`!=` under auto dtype conversion: promoted, never weak."""
    try:
        target, _ = result_type(x, y)
    except NotImplementedError:
        return fn(x, y)
    return fn(_convert_or_cast(x, target, "x"), _convert_or_cast(y, target, "y"))


_installed = False


def install(tnp_modules, namespaces):
    """Replaces the functions TensorFlow wraps with their wrappers: the
    public names (in `EXPORTS` and the namespace modules `namespaces(name)`
    gives) and, for tnp, every module of `tnp_modules` that refers to them.
    Done once, when a mode with auto dtype conversion is first enabled."""
    global _installed
    if _installed:
        return
    _installed = True
    made = {}

    def wrapped(fn, kind):
        key = (id(fn), kind)
        if key not in made:
            made[key] = binary_wrapper(fn, *kind[1:]) if kind[0] == "binary" \
                else unary_wrapper(fn, *kind[1:])
        return made[key]

    def replace(name, new):
        EXPORTS[name] = new
        ns, _, leaf = name.rpartition(".")
        mod = namespaces(ns)
        if mod is not None:
            setattr(mod, leaf, new)

    def in_tnp_modules(fn, new):
        # tnp's functions call each other (and a few tf ones) by module names;
        # a public function may be a dispatch wrapper of the one they name.
        olds = (fn, getattr(fn, "__wrapped__", fn))
        for mod in tnp_modules:
            for attr, value in list(vars(mod).items()):
                if any(value is old for old in olds):
                    setattr(mod, attr, new)

    for name, kind in list(WRAPPED.items()) + list(_ROUTED.items()):
        fn = EXPORTS.get(name)
        if fn is not None and callable(fn) and not isinstance(fn, type):
            try:
                new = wrapped(fn, kind)
            except (TypeError, ValueError):  # no signature to bind
                continue
            replace(name, new)
            in_tnp_modules(fn, new)
    func_graph.OUTPUT_CONVERSION[0] = unary_wrapper(convert_to_tensor)
    for name, kind in TNP_WRAPPED.items():
        full = "experimental.numpy." + name
        fn = EXPORTS.get(full)
        if fn is None:
            continue
        new = wrapped(fn, (kind,))
        replace(full, new)
        in_tnp_modules(fn, new)


def install_operators(tensor_class):
    """Gives WeakTensor the operators of `tensor_class` (ops/tensor_operators.py
    calls this once they are installed) and TensorFlow's NumPy methods: the
    unary operators and the methods keep a weak value weak."""
    for op in tensor_class.OVERLOADABLE_OPERATORS:
        if op not in ("__invert__", "__neg__", "__abs__") and hasattr(tensor_class, op):
            setattr(WeakTensor, op, getattr(tensor_class, op))
    WeakTensor.__neg__ = lambda self: to_weak_or_tensor(math_ops.negative(self.tensor), True)
    WeakTensor.__abs__ = lambda self: to_weak_or_tensor(unary_ops.abs(self.tensor), True)
    WeakTensor.__invert__ = lambda self: to_weak_or_tensor(math_ops.invert(self.tensor), True)
    WeakTensor.__pos__ = lambda self: self
    # Looked up when called: after `install` they are the wrapped functions.
    WeakTensor.T = property(lambda self: A.transpose(self))
    WeakTensor.transpose = lambda self, axes=None: A.transpose(self, axes)
    WeakTensor.reshape = lambda self, *shape, **kw: A.reshape_method(self, *shape, **kw)
    WeakTensor.ravel = lambda self: A.ravel(self)
    WeakTensor.flatten = lambda self, order="C": A.flatten(self, order)
    WeakTensor.astype = lambda self, dtype: math_ops.cast(self, dtype)
    WeakTensor.__round__ = lambda self, decimals=0: U.around(self, decimals)
    WeakTensor.ndim = property(lambda self: self.tensor.shape.ndims)
    WeakTensor.max = lambda self, axis=None, keepdims=None: R.amax(self, axis, keepdims=keepdims)
    WeakTensor.min = lambda self, axis=None, keepdims=None: R.amin(self, axis, keepdims=keepdims)
    WeakTensor.mean = lambda self, *args, **kwargs: R.mean(self, *args, **kwargs)
    WeakTensor.clip = lambda self, a_min, a_max: B.clip(self, a_min, a_max)
    WeakTensor.size = property(lambda self: np.prod(self.shape.as_list())
                               if self.shape.is_fully_defined() else None)
    WeakTensor.data = property(lambda self: self)
    WeakTensor.tolist = _weak_tolist


def _weak_tolist(self):
    """The value as nested lists; a graph weak tensor has none (TensorFlow's
    AttributeError, from its missing `_numpy`)."""
    if not isinstance(self.tensor, EagerTensor):
        raise AttributeError(f"'{type(self.tensor).__name__}' object has no attribute '_numpy'")
    return self.tensor._numpy().tolist()

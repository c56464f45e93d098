"""`tf.Tensor` and its two kinds: eager (holds a NumPy value) and symbolic.

Both share one base class, on which the ops layer installs the Python
operators (`+`, `[]`, `==`, ...), so eager code and graph building use the
same overloads. This module knows nothing of the ops themselves.
"""
import numpy as np

from . import dtypes as _dtypes
from .errors import OperatorNotAllowedInGraphError
from .tensor_shape import TensorShape, as_shape

__all__ = ["Tensor", "EagerTensor", "SymbolicTensor", "Reference", "is_tensor"]

_NP_TO_DTYPE = _dtypes.NP_TO_DTYPE
_from_tuple = TensorShape._from_tuple

_GRAPH_ADVICE = (
    " You can attempt the following resolutions to the problem: If you are running in "
    "Graph mode, use Eager execution mode or decorate this function with @tf.function. "
    "If you are using AutoGraph, you can try decorating this function with @tf.function. "
    "If that does not work, then you may be using an unsupported feature or your source "
    "code may not be visible to AutoGraph. See "
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
    "g3doc/reference/limitations.md#access-to-source-code for more information.")


class Tensor:
    """A multi-dimensional array of one dtype: `tf.Tensor`.

    Eager tensors (`EagerTensor`) hold a value; symbolic tensors
    (`SymbolicTensor`) are outputs of operations in a graph and have a static,
    possibly partial shape. Operators are installed by `rillflow.ops`.
    """

    __slots__ = ()
    # Makes NumPy defer `ndarray + tensor` to Tensor.__radd__.
    __array_priority__ = 100

    OVERLOADABLE_OPERATORS = frozenset((
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
        "__div__", "__rdiv__", "__truediv__", "__rtruediv__", "__floordiv__",
        "__rfloordiv__", "__mod__", "__rmod__", "__lt__", "__le__", "__gt__",
        "__ge__", "__ne__", "__eq__", "__and__", "__rand__", "__or__", "__ror__",
        "__xor__", "__rxor__", "__getitem__", "__pow__", "__rpow__", "__invert__",
        "__neg__", "__abs__", "__matmul__", "__rmatmul__"))

    def get_shape(self):
        """The static shape (`self.shape`)."""
        return self.shape

    @property
    def ndim(self):
        """The rank, or None if unknown."""
        return self.shape.rank

    @property
    def rank(self):
        """The rank, or None if unknown (property form of `tf.rank`'s static value)."""
        return self.shape.rank

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self):
        """A hashable reference to this tensor, for use as a dict key or set member."""
        return Reference(self)

    experimental_ref = ref

    def __copy__(self):
        return self  # tensors are immutable

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return _rebuild_eager, (self.numpy(),)


def _rebuild_eager(value):
    return EagerTensor(value)


# framework/placement.py's device_name, installed when it is imported (device
# copies exist only after that).
device_name_hook = [None]
# compiler/xla_compile.py's host value of a result's device array (`_d`),
# installed when it is imported (such results exist only after that).
device_value_hook = [None]


class EagerTensor(Tensor):
    """A tensor with a concrete value (a NumPy array or NumPy scalar)."""

    # __dict__: TensorFlow's tensors take arbitrary attributes (Keras marks
    # activation outputs with `_keras_logits`); the dict is made on first use.
    # `_d`: the tensor's device array (XLA through JAX), where it has one: a
    # compiled call's result, or the copy made when it was first passed to one.
    __slots__ = ("_v", "_d", "__weakref__", "__dict__")

    def __init__(self, value):
        self._v = value

    # --- properties -------------------------------------------------------
    @property
    def dtype(self):
        """The element type (a `tf.DType`)."""
        return _NP_TO_DTYPE[self._v.dtype]

    @property
    def shape(self):
        """The shape (always fully defined)."""
        return _from_tuple(self._v.shape)

    @property
    def ndim(self):
        """The rank."""
        return self._v.ndim

    @property
    def device(self):
        """The device the tensor lives on: that of its device copy (a GPU's
        for results of compiled calls that ran there and tensors placed
        with `tf.device`), else the CPU (framework/placement.py)."""
        hook = device_name_hook[0]
        return "/job:localhost/replica:0/task:0/device:CPU:0" if hook is None \
            else hook(self._v)

    @property
    def backing_device(self):
        """Same as `device`."""
        return self.device

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar or bytes for rank 0)."""
        v = self._v
        if v.dtype.kind == "O" and v.ndim == 0:
            return v[()]
        if v.dtype.kind == "V":
            v = _dtypes.plain(v)   # quantized values come back as plain integers
        if v.__class__ is np.ndarray and v.ndim == 0:
            return v[()]
        # As TensorFlow: a copy the caller may write into without changing
        # the tensor (`np.asarray(t)` is the read-only view).
        return v.copy() if isinstance(v, np.ndarray) else v

    def _numpy(self):
        return self._v

    def set_shape(self, shape):
        """Checks that `shape` is compatible with this tensor's shape.

        Raises:
          ValueError: if it is not.
        """
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {as_shape(shape)}.")

    def _shape_tuple(self):
        return self._v.shape

    # --- Python protocols -------------------------------------------------
    def __bool__(self):
        return bool(self._v)

    def __int__(self):
        return int(self._v)

    def __float__(self):
        return float(self._v)

    def __complex__(self):
        return complex(self._v)

    def __index__(self):
        v = self._v
        if v.dtype.kind not in "iu" or v.ndim != 0:
            raise TypeError(f"Only integer scalar tensors can be used as an index; got "
                            f"dtype {self.dtype.name} and shape {self.shape}")
        return int(v)

    def __len__(self):
        if self._v.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._v.shape[0]

    def __iter__(self):
        if self._v.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        for i in range(self._v.shape[0]):
            yield EagerTensor(_as_value(self._v[i]))

    def __array__(self, dtype=None, copy=None):
        a = _dtypes.plain(np.asarray(self._v))
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        if copy:
            return a.copy()
        if a.flags.writeable and a.ndim:
            # As TensorFlow: a read-only view of the tensor's buffer.
            a = a.view()
            a.flags.writeable = False
        return a

    def __format__(self, format_spec):
        # As TensorFlow: f"{t}" formats the NumPy value ('2.5', '[1 2]'), not
        # str(t); "%s" % t and str(t) keep the tf.Tensor(...) form.
        return format(self.numpy(), format_spec)

    def __repr__(self):
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            self.shape, self.dtype.name, numpy_text(self._v, is_repr=True))

    def __str__(self):
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (
            numpy_text(self._v), self.shape, self.dtype.name)


def _as_value(v):
    """Turns a NumPy indexing result into what an EagerTensor holds."""
    if isinstance(v, (np.ndarray, np.generic)):
        return v
    return np.asarray(v, dtype=object)


def numpy_text(v, is_repr=False):
    """How TensorFlow prints an eager tensor's value inside its repr/str."""
    if v.dtype.names is not None:
        v = _dtypes.plain(v)
    if v.dtype.kind == "V" and not v.dtype.type.__module__.startswith("ml_dtypes"):
        return "<unprintable>"   # opaque values (resources, variants), not bfloat16
    if v.ndim == 0:
        item = v[()] if v.__class__ is np.ndarray else v
        if is_repr:
            text = repr(item.item() if isinstance(item, np.generic) else item)
        else:
            text = str(item)
    else:
        text = repr(v) if is_repr else str(v)
    if "\n" in text:
        text = "\n" + text
    return text


_set_class = object.__dict__["__class__"].__set__


class DeviceResult(EagerTensor):
    """An eager tensor returned by a compiled (XLA) call before its host value
    is made: only `_d`, the device array, is set. The first look at it
    (its `__class__`, which every type test reads, or any attribute) makes
    `_v` and turns it into a plain EagerTensor, so no other code sees this
    class; a result that is never looked at costs no copy to the host."""

    __slots__ = ()

    def _materialize(self):
        self._v = device_value_hook[0](self._d)
        _set_class(self, EagerTensor)

    @property
    def __class__(self):
        self._materialize()
        return EagerTensor

    def __getattr__(self, name):
        # (called for `_v`, not yet set, and for attributes tensors lack)
        if name == "_d":
            raise AttributeError(name)
        self._materialize()
        return getattr(self, name)


class SymbolicTensor(Tensor):
    """An output of an Operation in a graph: no value, a static partial shape."""

    __slots__ = ("_op", "_index", "_shape", "_dtype", "_const", "__weakref__", "__dict__")

    def __init__(self, op, index, shape, dtype):
        self._op = op
        self._index = index
        self._shape = shape
        self._dtype = dtype
        # The value when it is known while building (constants and what
        # folds from them); shape inference reads it.
        self._const = None

    @property
    def op(self):
        """The Operation that produces this tensor."""
        return self._op

    @property
    def value_index(self):
        """Which output of its operation this tensor is."""
        return self._index

    @property
    def graph(self):
        """The graph this tensor belongs to."""
        return self._op.graph

    @property
    def name(self):
        """`"<op name>:<output index>"`, e.g. `"add:0"`."""
        return "%s:%d" % (self._op.name, self._index)

    @property
    def dtype(self):
        """The element type."""
        return self._dtype

    @property
    def shape(self):
        """The static shape, possibly partial."""
        return self._shape

    @property
    def ndim(self):
        """The static rank, -1 if unknown (TensorFlow's graph tensors say -1)."""
        r = self._shape.rank
        return -1 if r is None else r

    @property
    def device(self):
        """The requested device of the producing op ('' if none)."""
        return self._op.device

    def set_shape(self, shape):
        """Refines the static shape.

        Raises:
          ValueError: if `shape` is incompatible with the current shape.
        """
        shape = as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied "
                             f"shape {shape}.")
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        """The operations that take this tensor as an input."""
        return [op for op in self._op.graph.get_operations() if any(t is self for t in op.inputs)]

    def eval(self, feed_dict=None, session=None):
        """Evaluates the tensor in a `tf.compat.v1.Session`."""
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session "
                             "is registered.")
        return session.run(self, feed_dict)

    # No `numpy()`: as in TensorFlow, `t.numpy()` on a graph tensor raises
    # AttributeError ("'SymbolicTensor' object has no attribute 'numpy'").

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error "
            "may indicate that you're trying to pass a Tensor to a NumPy call, which is not "
            "supported.")

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed." + _GRAPH_ADVICE)

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed." + _GRAPH_ADVICE)

    def __len__(self):
        raise TypeError(
            f"len is not well defined for a symbolic Tensor ({self.name}). Please call "
            "`x.shape` rather than `len(x)` for shape information.")

    def __index__(self):
        raise TypeError(f"Cannot use a symbolic tensor ({self.name}) as a Python index.")

    def __int__(self):
        raise TypeError(f"int() argument must not be a symbolic tensor ({self.name}).")

    def __float__(self):
        raise TypeError(f"float() argument must not be a symbolic tensor ({self.name}).")

    def __reduce__(self):
        raise TypeError(f"Cannot pickle a symbolic tensor ({self.name}).")

    def __hash__(self):
        # Tensors of v1 graphs are hashable (feed_dict keys); in functions they
        # compare elementwise and so cannot be.
        if self._op.graph.building_function:
            raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")
        return id(self)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):
        if self._shape.rank is None:
            return 'Tensor("%s", dtype=%s)' % (self.name, self._dtype.name)
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self._dtype.name)


class Reference:
    """A hashable reference to a tensor or variable (`Tensor.ref()`)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        """The referenced object."""
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return "<Reference wrapping %r>" % (self._wrapped,)


def is_tensor(x):
    """Whether `x` is a tensor or tensor-like object (`tf.is_tensor`)."""
    return isinstance(x, Tensor) or getattr(x, "_is_tensor_like", False)

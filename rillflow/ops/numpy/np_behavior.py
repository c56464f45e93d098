"""`tf.experimental.numpy.experimental_enable_numpy_behavior`: NumPy's
methods on `tf.Tensor` (`T`, `reshape`, `ravel`, `astype`, `clip`, `tolist`,
`ndim`, `size`, ...), NumPy-style indexing (`x[[0, 2]]`, `x[mask]`,
`x[:, idx]`), and NumPy's dtype promotion in the Tensor operators
(`ops/tensor_operators.py` reads the mode from np_dtypes).

Whether or not it is called, tensors get `round(x)` (`tnp.around`) and
TensorFlow's hint on the NumPy method names they lack.
"""
import logging
import sys

import numpy as np

from ...framework.api_export import export
from ...framework.convert import convert_to_tensor as _convert
from ...framework.tensor import SymbolicTensor, Tensor
from ..core import math_ops
from ..core import slicing as _slicing
from . import np_array_core as A
from . import np_array_manip, np_dtypes, np_indexing, np_linalg, np_math_binary
from . import np_math_unary, np_random, np_reductions, np_spacing, np_weak
from .np_indexing import getitem as _np_getitem

_logger = logging.getLogger("rillflow")

_NUMPY_ONLY = frozenset(("T", "astype", "ravel", "transpose", "reshape", "clip", "size",
                         "tolist", "data"))


def _numpy_hint(name):
    """A property for a NumPy method name tensors lack: reading it raises
    TensorFlow's AttributeError advising to enable NumPy behavior (a
    property, not `__getattr__`, so other missing attributes cost nothing)."""
    def get(self):
        raise AttributeError(
            f"{type(self).__name__} object has no attribute '{name}'. " + """
        If you are looking for numpy-related methods, please run the following:
        tf.experimental.numpy.experimental_enable_numpy_behavior()
      """)
    return property(get)


for _name in _NUMPY_ONLY:
    setattr(Tensor, _name, _numpy_hint(_name))
Tensor.__round__ = np_math_unary.around


def _tensor_t(self):
    """The transpose."""
    return self.transpose()


def _tensor_ndim(self):
    """The rank (None if unknown)."""
    return self.shape.ndims


def _tensor_pos(self):
    """Unary `+`: the tensor itself."""
    return self


def _tensor_size(self):
    """The number of elements, if the shape is fully known (else None)."""
    if not self.shape.is_fully_defined():
        return None
    return np.prod(self.shape.as_list())


def _tensor_tolist(self):
    """The value as nested Python lists (eager tensors only)."""
    if isinstance(self, SymbolicTensor):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self._numpy().tolist()


def _basic_key(key):
    """Whether `key` holds only Python ints, slices of ints, `...` and None:
    the keys both indexings read alike, left to the plain `__getitem__`."""
    items = key if key.__class__ is tuple else (key,)
    for k in items:
        c = k.__class__
        if c is int or k is None or k is Ellipsis:
            continue
        if c is slice and all(v is None or v.__class__ is int
                              for v in (k.start, k.stop, k.step)):
            continue
        return False
    return True


def _numpy_style_getitem(self, key):
    """`Tensor.__getitem__` with NumPy behavior: integer and boolean arrays
    index too."""
    if _basic_key(key):
        return _slicing.getitem(self, key)
    return _np_getitem(self, key)


_TNP_MODULES = (A, np_array_manip, np_indexing, np_linalg, np_math_binary, np_math_unary,
                np_random, np_reductions, np_spacing)


def _namespace(ns):
    """The module of a public namespace ('math', '' for tf itself), as
    rillflow/_api.py registered it, or None."""
    return sys.modules.get("rillflow." + ns if ns else "rillflow")


def enable_numpy_methods_on_tensor():
    """Adds NumPy's methods and properties to `tf.Tensor`."""
    Tensor.T = property(_tensor_t)
    Tensor.ndim = property(_tensor_ndim)
    Tensor.size = property(_tensor_size)
    Tensor.__pos__ = _tensor_pos
    Tensor.tolist = _tensor_tolist
    Tensor.transpose = A.transpose
    Tensor.flatten = A.flatten
    Tensor.reshape = A.reshape_method
    Tensor.ravel = A.ravel
    Tensor.clip = np_math_binary.clip
    Tensor.astype = math_ops.cast
    Tensor.__round__ = np_math_unary.around
    Tensor.max = np_reductions.amax
    Tensor.mean = np_reductions.mean
    Tensor.min = np_reductions.amin
    Tensor.data = property(lambda self: self)


@export("experimental.numpy.experimental_enable_numpy_behavior")
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Enables NumPy behavior on Tensors.

    It adds to `tf.Tensor` NumPy's methods (`T`, `reshape`, `ravel`, ...),
    makes the Tensor operators promote dtypes as NumPy does (an int32 tensor
    plus a float32 tensor is float64, instead of an error), and lets tensors
    be indexed as NumPy arrays are (integer and boolean arrays).

    Args:
      prefer_float32: whether Python floats become float32 (else float64, as
        in NumPy) when a dtype is inferred.
      dtype_conversion_mode: 'off', 'legacy' (NumPy's promotion), 'safe' or
        'all' (TensorFlow's auto dtype conversion).
    """
    if dtype_conversion_mode in ("safe", "all"):
        _logger.warning("UserWarning: enabling the new type promotion must happen at the "
                        "beginning of the program. Please ensure no TF APIs have been used yet.")
    np_dtypes.set_dtype_conversion_mode(dtype_conversion_mode)
    if np_dtypes.auto_dtype_conversion():
        # TensorFlow's wrapped functions, before the methods take them.
        np_weak.install(_TNP_MODULES + (sys.modules[__name__],), _namespace)
    Tensor.__getitem__ = _numpy_style_getitem
    enable_numpy_methods_on_tensor()
    np_dtypes.set_prefer_float32(prefer_float32)


def promote_operands(*operands):
    """The operands of a Tensor operator cast to their NumPy result type
    (TensorFlow's `maybe_promote_tensors` in the "legacy" mode): a tensor
    through a Cast, anything else converted to that dtype."""
    dtype = np_dtypes._result_type(
        *[np_dtypes.operator_dtype(x) for x in np_dtypes._flatten(operands)])
    return [math_ops.cast(x, dtype) if isinstance(x, Tensor)
            else _convert(x, dtype) for x in operands]

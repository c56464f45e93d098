"""Dataset sources: `range`, `from_tensors`, `from_tensor_slices`,
`from_generator`, `list_files`."""
import glob as _glob
import itertools
import traceback

import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.component_batching import slice_iter
from ..framework.convert import convert_to_tensor, to_numpy
from ..framework.api_export import export
from ..framework.execute import apply
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_spec import TensorSpec
from ..ops.state.variables import Variable
from . import dataset_ops as DS
from . import registry
from . import runtime as R
from . import structure as S

_CHUNK = 4096


# --- range ------------------------------------------------------------------------

class RangeNode(R.Node):
    """`range(start, stop, step)` as elements of one NumPy dtype."""

    __slots__ = ("start", "stop", "step", "np_dtype")

    def __init__(self, start, stop, step, np_dtype):
        self.start, self.stop, self.step, self.np_dtype = start, stop, step, np_dtype

    def __iter__(self):
        # NumPy makes the scalars a chunk at a time, much faster than one by one.
        for chunk in self._arrays(_CHUNK, False):
            yield from zip(chunk)

    def _arrays(self, size, drop_remainder):
        r = range(self.start, self.stop, self.step)
        dt = self.np_dtype
        for k in range(0, len(r), size):
            sub = r[k:k + size]
            if len(sub) < size and drop_remainder:
                return
            yield np.arange(sub.start, sub.stop, sub.step, dtype=dt)

    def batches(self, size, drop_remainder):
        return zip(self._arrays(size, drop_remainder))

    def cardinality(self):
        return len(range(self.start, self.stop, self.step))


def _range_kernel(start, stop, step, output_types=None, **_):
    step = int(step)
    if step == 0:
        raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
    return RangeNode(int(start), int(stop), step, output_types[0]._np)


_Range = DS.register_dataset_op("RangeDataset", _range_kernel)


@registry.implements("Dataset.range")
def range_(*args, **kwargs):
    """See `Dataset.range`."""
    output_type = D.as_dtype(kwargs.pop("output_type", D.int64))
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"range() got unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    elif len(args) == 2:
        (start, stop), step = args, 1
    elif len(args) == 3:
        start, stop, step = args
    else:
        raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 "
                         f"but was {len(args)}.")
    ins = [DS.scalar(v, D.int64, n) for v, n in ((start, "start"), (stop, "stop"),
                                                  (step, "step"))]
    return DS.build("_RangeDataset", _Range, ins, {}, TensorSpec([], output_type), name)


# --- from_tensors / from_tensor_slices ------------------------------------------------

class TensorNode(R.Node):
    """One element."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = tuple(values)

    def __iter__(self):
        yield self.values

    def cardinality(self):
        return 1


class ListNode(R.Node):
    """A fixed list of elements (also the windows of `window()`)."""

    __slots__ = ("elements",)

    def __init__(self, elements):
        self.elements = elements

    def __iter__(self):
        return iter(self.elements)

    def cardinality(self):
        return len(self.elements)


class SliceNode(R.Node):
    """The slices of arrays along their (common) first dimension."""

    __slots__ = ("arrays",)

    def __init__(self, arrays):
        self.arrays = tuple(arrays)

    def __iter__(self):
        return zip(*[slice_iter(a) for a in self.arrays])

    def batches(self, size, drop_remainder):
        n = self.cardinality()
        stop = n - n % size if drop_remainder else n
        return (tuple(a[k:k + size] for a in self.arrays) for k in range(0, stop, size))

    def cardinality(self):
        return int(np.shape(self.arrays[0])[0])


def _tensor_kernel(*components, **_):
    return TensorNode(components)


def _slice_kernel(*components, _spec=None, **_):
    unbatch = S.unbatcher(_spec) if _spec is not None else None
    if unbatch is not None:
        # Composite leaves: their specs split them into rows (checking the
        # lengths agree) once, when the dataset is made.
        return ListNode(unbatch(components))
    sizes = [np.shape(c)[0] if np.ndim(c) else None for c in components]
    if any(s is None for s in sizes):
        raise errors.InvalidArgumentError(None, None, "Unbatching a tensor is only supported "
                                          "for rank >= 1")
    if len(set(sizes)) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"All components must have the same size in the 0th dimension, got "
            f"{sizes}")
    return SliceNode(components)


_Tensor = DS.register_dataset_op("TensorDataset", _tensor_kernel)
_Slice = DS.register_dataset_op("TensorSliceDataset", _slice_kernel)


@registry.implements("Dataset.from_tensors")
def from_tensors(tensors, name=None):
    """See `Dataset.from_tensors`."""
    element = S.normalize_element(tensors)
    spec = S.element_spec_of(element)
    return DS.build("_TensorDataset", _Tensor, S.flat_tensors(element), {}, spec, name)


@registry.implements("Dataset.from_tensor_slices")
def from_tensor_slices(tensors, name=None):
    """See `Dataset.from_tensor_slices`."""
    element = S.normalize_element(tensors)
    leaves = nest.flatten(element)
    if any(hasattr(v, "_variant_tensor") for v in leaves):
        raise TypeError("from_tensor_slices does not support datasets as components.")
    whole = S.element_spec_of(element)
    spec = S.unbatch_spec(whole, what="slice")
    first = TensorShape([None])
    for leaf in S.leaf_specs(whole):
        shape = getattr(leaf, "shape", TensorShape(None))
        dim = TensorShape([shape[0] if shape.rank else None])
        if not first.is_compatible_with(dim):
            raise ValueError(f"Dimensions {first[0]} and {dim[0]} are not compatible")
        first = first.merge_with(dim)
    attrs = {} if S.all_tensors(whole) else {"_spec": whole}
    return DS.build("_TensorSliceDataset", _Slice, S.flat_tensors(element), attrs, spec, name)


# --- from_generator -------------------------------------------------------------------

class GeneratorNode(R.Node):
    """The elements a Python generator yields; the generator is called anew
    for each iteration, and each element is checked against the spec."""

    __slots__ = ("generator", "args", "spec", "converters", "nested")

    def __init__(self, generator, args, spec):
        self.generator = generator
        self.args = args
        self.spec = spec
        self.converters = [_leaf_converter(s) if isinstance(s, TensorSpec) else
                           _composite_converter(s) for s in S.leaf_specs(spec)]
        # A composite leaf gives a tuple of components: the general path.
        self.nested = nest.is_nested(spec) or not isinstance(spec, TensorSpec)

    def __iter__(self):
        try:
            with R.in_eager():
                it = iter(self.generator(*self.args))
        except Exception as e:
            raise _python_error(e) from e
        convert = self.converters[0] if not self.nested else None
        convert_nested = self._convert
        state = R._state
        while True:
            try:
                if state.graph is not None:
                    with R.in_eager():
                        item = next(it, _END)
                else:
                    item = next(it, _END)
            except Exception as e:
                raise _python_error(e) from e
            if item is _END:
                return
            yield (convert(item),) if convert is not None else convert_nested(item)

    def batches(self, size, drop_remainder):
        # Python numbers for a scalar spec: a whole batch converts in one
        # NumPy call, after one type check of its values.
        if self.nested:
            return None
        leaf = self.spec
        np_dtype = leaf.dtype._np
        if np_dtype is None or leaf.shape.rank != 0 or np_dtype.kind not in "iuf":
            return None
        python_types = {int} if np_dtype.kind in "iu" else {int, float}
        return self._bulk_batches(size, drop_remainder, np_dtype, python_types)

    def _bulk_batches(self, size, drop_remainder, np_dtype, python_types):
        try:
            with R.in_eager():
                it = iter(self.generator(*self.args))
        except Exception as e:
            raise _python_error(e) from e
        convert = self.converters[0]
        state = R._state
        while True:
            try:
                if state.graph is not None:
                    with R.in_eager():
                        rows = list(itertools.islice(it, size))
                else:
                    rows = list(itertools.islice(it, size))
            except Exception as e:
                raise _python_error(e) from e
            if not rows or (len(rows) < size and drop_remainder):
                return
            arr = None
            if set(map(type, rows)) <= python_types:
                try:
                    arr = np.array(rows, np_dtype)
                except OverflowError:
                    arr = None   # the per-value path names the value
            if arr is None:
                arr = np.stack([convert(v) for v in rows])
            yield (arr,)
            if len(rows) < size:
                return

    def _convert(self, item):
        spec = self.spec
        if not self.nested:
            return (self.converters[0](item),)
        try:
            flat = _flatten_like(spec, item)
        except (TypeError, ValueError):
            raise _structure_error(spec, item) from None
        out = []
        for c, leaf, v in zip(self.converters, S.leaf_specs(spec), flat):
            if isinstance(leaf, TensorSpec):
                out.append(c(v))
            else:
                comps = c(v)
                if comps is None:
                    raise _structure_error(spec, item)
                out.extend(comps)
        return tuple(out)


def _structure_error(spec, item):
    # TensorFlow names the expected dtypes (composite leaves by their spec).
    types = nest.map_structure(
        lambda leaf: leaf.dtype if isinstance(leaf, TensorSpec) else leaf, spec)
    return _gen_error(f"`generator` yielded an element that did not match the expected "
                      f"structure. The expected structure was {types!r}, but the "
                      f"yielded element was {item}.")


def _composite_converter(leaf):
    """A function checking a yielded composite value (a SparseTensor, a
    RaggedTensor, or what its class's `from_value` accepts) against `leaf`
    and giving its component values; None when it is not such a value."""
    value_type = leaf.value_type
    from_value = getattr(value_type, "from_value", None)

    def convert(v):
        if not isinstance(v, value_type):
            if from_value is not None:
                try:
                    v = from_value(v)
                except (TypeError, ValueError, AttributeError):
                    return None
            else:
                # A plain tensor, where the spec allows one (a RaggedTensorSpec
                # of ragged_rank 0).
                try:
                    v = convert_to_tensor(v, dtype=leaf.dtype)
                except (TypeError, ValueError):
                    return None
                if not leaf.is_compatible_with(v):
                    return None
                return (v._v,)
        spec = S.spec_of(v)
        if not leaf.is_compatible_with(spec):
            raise _gen_error(f"`generator` yielded an element of {spec!r} where an element "
                             f"of {leaf!r} was expected.")
        return tuple(c._v if isinstance(c, EagerTensor) else np.asarray(c)
                     for c in v._to_components())
    return convert


def _leaf_converter(leaf):
    """A function checking and converting one yielded value to `leaf`'s dtype
    and shape (fast for Python numbers and matching NumPy values)."""
    dtype = leaf.dtype
    np_dtype = dtype._np
    scalar_type = np_dtype.type if np_dtype is not None else None
    kind = np_dtype.kind if np_dtype is not None else "O"
    python_ok = (int,) if kind in "iu" else (int, float) if kind in "fc" else ()
    want = leaf.shape
    rank = want.rank
    dims = None if rank is None else tuple(want.as_list())

    scalar_ok = rank is None or rank == 0
    numeric = kind in "biufc"

    def convert(v):
        cls = v.__class__
        arr = None
        if cls in python_ok:
            try:
                arr = scalar_type(v)
            except OverflowError:
                arr = None
            if arr is not None and scalar_ok:
                return arr
        elif cls is EagerTensor:
            arr = v._v
        elif (cls is np.ndarray or isinstance(v, np.generic)) and v.dtype == np_dtype:
            arr = v
        try:
            if arr is None:
                if numeric:
                    # TensorFlow converts with np.asarray(v).astype(dtype): a
                    # float yielded for an integer spec is truncated, not refused.
                    arr = np.asarray(v).astype(np_dtype)
                else:
                    arr = to_numpy(v, dtype)
            elif numeric and arr.dtype != np_dtype and arr.dtype.kind in "biufc":
                arr = np.asarray(arr).astype(np_dtype)
        except (TypeError, ValueError):
            raise _gen_error(f"`generator` yielded an element that could not be "
                             f"converted to the expected type. The expected type was "
                             f"{dtype.name}, but the yielded element was {v}.") from None
        if arr.dtype != np_dtype and D.from_numpy(arr.dtype) is not dtype:
            raise _gen_error(f"`generator` yielded an element of type "
                             f"{D.from_numpy(arr.dtype)!r} where an element of type "
                             f"{dtype!r} was expected.")
        if rank is not None:
            shape = arr.shape
            if len(shape) != rank or (rank and any(
                    d is not None and d != s for d, s in zip(dims, shape))):
                raise _gen_error(f"`generator` yielded an element of shape {shape} where "
                                 f"an element of shape {want} was expected.")
        return arr
    return convert


_END = object()


def _python_error(e):
    """The OpError TensorFlow's py_func turns an exception raised by the
    generator into (its class by the Python class; the message names it)."""
    if isinstance(e, errors.OpError):
        return e
    if isinstance(e, (ValueError, TypeError)):
        cls = errors.InvalidArgumentError
    elif isinstance(e, StopIteration):
        cls = errors.OutOfRangeError
    elif isinstance(e, MemoryError):
        cls = errors.ResourceExhaustedError
    elif isinstance(e, NotImplementedError):
        cls = errors.UnimplementedError
    else:
        cls = errors.UnknownError
    # As in TensorFlow, the message carries the generator's traceback.
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return cls(None, None, f"{type(e).__name__}: {e}\n{tb}")


def _gen_error(msg):
    return errors.InvalidArgumentError(None, None, "TypeError: " + msg)


def _flatten_like(spec, item):
    """The leaves of `item` following the nesting of `spec` (a list is a leaf
    where the spec has a TensorSpec, a sequence where it has a tuple)."""
    if not nest.is_nested(spec):
        return [item]
    if isinstance(spec, dict):
        if not isinstance(item, dict) or set(item) != set(spec):
            raise ValueError("structure mismatch")
        keys = nest._sorted_keys(spec)
        out = []
        for k in keys:
            out.extend(_flatten_like(spec[k], item[k]))
        return out
    if not isinstance(item, (list, tuple)) or len(item) != len(spec):
        raise ValueError("structure mismatch")
    out = []
    for s, v in zip(spec, item):
        out.extend(_flatten_like(s, v))
    return out


def _generator_kernel(*args, generator, _spec, **_):
    vals = [a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args]
    return GeneratorNode(generator, vals, _spec)


_Generator = DS.register_dataset_op("GeneratorDataset", _generator_kernel)


def _signature(output_types, output_shapes, output_signature):
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("The `output_types` and `output_shapes` arguments cannot be used "
                            "together with the `output_signature` argument.")
        for s in nest.flatten(output_signature):
            if not isinstance(s, TensorSpec) and not S.is_type_spec(s):
                raise TypeError(f"`output_signature` must contain objects that are subclass "
                                f"of `tf.TypeSpec` but found {type(s)} which is not.")
        return output_signature
    if output_types is None:
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument must not be specified without the "
                            "`output_types` argument.")
        raise TypeError("To specify the output signature you need to provide either the "
                        "`output_signature` argument or the `output_types` argument.")
    types = nest.map_structure(D.as_dtype, output_types)
    if output_shapes is None:
        return nest.map_structure(lambda t: TensorSpec(None, t), types)
    shapes = nest.flatten_up_to(types, output_shapes)
    return nest.pack_sequence_as(types, [TensorSpec(as_shape(s), t) for s, t in
                                         zip(shapes, nest.flatten(types))])


@registry.implements("Dataset.from_generator")
def from_generator(generator, output_types=None, output_shapes=None, args=None,
                   output_signature=None, name=None):
    """See `Dataset.from_generator`."""
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    spec = _signature(output_types, output_shapes, output_signature)
    ins = [convert_to_tensor(a) for a in (args or ())]
    # TensorFlow builds it as a flat_map over generator ids, and prints it so.
    return DS.build("_FlatMapDataset", _Generator, ins,
                    {"generator": generator, "_spec": spec}, spec, name)


# --- list_files -----------------------------------------------------------------------

def _matching_files_kernel(pattern, _require_match=False):
    pats = [p.decode() if isinstance(p, bytes) else str(p)
            for p in np.reshape(np.asarray(pattern, dtype=object), -1)]
    names = sorted({f for p in pats for f in _glob.glob(p)})
    # tf.io.matching_files gives an empty vector; Dataset.list_files asserts.
    if not names and _require_match:
        raise errors.InvalidArgumentError(
            None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
            "Summarized data: b'No files matched pattern: %s'" % ", ".join(pats))
    out = np.empty(len(names), dtype=object)
    out[:] = [n.encode() for n in names]
    return out


_MatchingFiles = register("MatchingFiles", _matching_files_kernel,
                          lambda inputs, attrs: [(TensorShape([None]), D.string)],
                          stateful=True)


@export("io.matching_files")
def matching_files(pattern, name=None):
    """The sorted file names matching a pattern (or patterns), a 1-D string tensor.

    Raises:
      InvalidArgumentError: if nothing matches.
    """
    return apply(_MatchingFiles, [convert_to_tensor(pattern, dtype=D.string)],
                 name=name or "MatchingFiles")


@export("io.match_filenames_once", "compat.v1.io.match_filenames_once", "compat.v1.train.match_filenames_once")
def match_filenames_once(pattern, name=None):
    """A non-trainable variable holding the file names matching `pattern`
    (a glob, or a list of globs), read when it is created.

    Returns:
      A string `tf.Variable` (empty when nothing matches).
    """
    files = matching_files(pattern)
    return Variable(files, trainable=False, name=name or "Variable")


@registry.implements("Dataset.list_files")
def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """See `Dataset.list_files`."""
    files = apply(_MatchingFiles, [convert_to_tensor(file_pattern, dtype=D.string)],
                  {"_require_match": True}, name="MatchingFiles")
    ds = from_tensor_slices(files)
    if shuffle is None or shuffle:
        n = files.shape[0] if isinstance(files, EagerTensor) else None
        ds = ds.shuffle(n if n else 1 << 20, seed=seed)
    return ds

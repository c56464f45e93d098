"""Higher-order functions over the first dimension of tensors: `map_fn`,
`scan`, `foldl`, `foldr` and `vectorized_map`.

Each is a `while_loop` over the element index that reads the elements from
TensorArrays and writes the results to TensorArrays, as TensorFlow builds
them: eagerly the loop runs in Python; in a function it is one graph loop,
differentiable like any other.
"""
from ...framework import dtypes as D
from ...framework import nest
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor_shape import TensorShape
from ...framework.tensor_spec import TensorSpec
from .tensor_array import TensorArray
from .while_loop import while_loop
from ...framework import errors
from ...framework.func_graph import trace_function
from ..core.shape_ops import shape
from ...framework.extension_type import BatchableExtensionTypeSpec
from ...framework.sparse_tensor import SparseTensor, SparseTensorSpec

__all__ = ["map_fn", "scan", "foldl", "foldr", "vectorized_map"]


def _elements(elems, what):
    """(flat tensors, static count or None, count tensor or int)."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{what} must have at least one element tensor (elems is empty)")
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n = flat[0].shape[0]
    if n is None:
        return flat, None, shape(flat[0], out_type=D.int32)[0]
    for t in flat[1:]:
        if t.shape[0] is not None and t.shape[0] != n:
            raise ValueError(f"All elems must have the same outer dimension; got {n} and "
                             f"{t.shape[0]}")
    return flat, n, n


def _reader(flat):
    return [TensorArray(t.dtype, size=0, dynamic_size=True, element_shape=t.shape[1:],
                        infer_shape=True).unstack(t) for t in flat]


def _writers(specs, n):
    return [TensorArray(s.dtype, size=n, element_shape=s.shape, infer_shape=True)
            for s in specs]


def _spec(s):
    if isinstance(s, TensorSpec):
        return s
    return TensorSpec(None, D.as_dtype(s))


def _stack(tas, n_static, specs):
    out = []
    for ta, s in zip(tas, specs):
        t = ta.stack()
        if n_static is not None and s.shape.rank is not None:
            t.set_shape(TensorShape([n_static]).concatenate(s.shape))
        out.append(t)
    return out


def _write_all(tas, i, structure, values, what):
    try:
        nest.assert_same_structure(structure, values, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"The output of `fn` in {what} does not match its signature: "
                         f"{e}") from None
    flat = [convert_to_tensor(v, dtype_hint=ta.dtype) for ta, v in zip(tas, nest.flatten(values))]
    for ta, v in zip(tas, flat):
        if v.dtype is not ta.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"The output of `fn` in {what} is a {v.dtype.name} tensor where "
                f"its signature has {ta.dtype.name}; pass fn_output_signature={v.dtype.name}")
    return [ta.write(i, v) for ta, v in zip(tas, flat)]


@export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each element of `elems` (unpacked along the first
    dimension), the results stacked. The results have the structure and
    dtypes of `fn_output_signature` (or `dtype`), by default those of `elems`.

    Raises:
      ValueError: for scalar elements, elements of different lengths, or an
        `fn` result that does not match the signature.
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if any(isinstance(x, SparseTensor) for x in nest.flatten(elems)):
        return _map_sparse(fn, elems, signature, parallel_iterations)
    if any(_batchable(x) for x in nest.flatten(elems)) or any(
            isinstance(s, BatchableExtensionTypeSpec) for s in nest.flatten(signature)):
        return _map_composites(fn, elems, signature, parallel_iterations)
    flat, n_static, n = _elements(elems, "map_fn")
    if signature is None:
        # By default the results have the elements' dtypes, any shape.
        signature = nest.pack_sequence_as(elems, [TensorSpec(None, t.dtype) for t in flat])
    else:
        signature = nest.map_structure(_spec, signature)
    specs = nest.flatten(signature)
    readers = _reader(flat)

    def body(i, tas):
        elem = nest.pack_sequence_as(elems, [r.read(i) for r in readers])
        return i + 1, _write_all(tas, i, signature, fn(elem), "map_fn")
    _, tas = while_loop(lambda i, _: i < n, body, (0, _writers(specs, n)),
                        parallel_iterations=parallel_iterations or 10)
    return nest.pack_sequence_as(signature, _stack(tas, n_static, specs))


def _sparse_row(st, i):
    """Row `i` of the SparseTensor `st` (its first dimension dropped)."""
    from ..core.gather_ops import boolean_mask
    from ..core.math_ops import equal
    from ..core.slicing import getitem
    indices = st.indices
    mask = equal(getitem(indices, (slice(None), 0)), i)
    return SparseTensor(getitem(boolean_mask(indices, mask), (slice(None), slice(1, None))),
                        boolean_mask(st.values, mask), getitem(st.dense_shape, slice(1, None)))


def _map_sparse(fn, elems, signature, parallel_iterations):
    """map_fn over elements that include SparseTensors: `fn` gets row `i` of
    each (a SparseTensor of one rank less for the sparse ones); the results
    must be dense, as `fn_output_signature` says."""
    from ..core.math_ops import cast
    from ..core.slicing import getitem
    if signature is None or any(isinstance(s, SparseTensorSpec)
                                for s in nest.flatten(signature)):
        raise NotImplementedError("map_fn over SparseTensor elements needs a dense "
                                  "fn_output_signature in rillflow (sparse results are not "
                                  "stacked)")
    leaves = nest.flatten(elems)
    first = leaves[0]
    n = cast(first.dense_shape[0], D.int32) if isinstance(first, SparseTensor) \
        else shape(first)[0]

    def row(i):
        return nest.pack_sequence_as(elems, [
            _sparse_row(x, cast(i, D.int64)) if isinstance(x, SparseTensor)
            else getitem(convert_to_tensor(x), i) for x in leaves])
    from ..core.creation_ops import range as tf_range
    return map_fn(lambda i: fn(row(i)), tf_range(n), fn_output_signature=signature,
                  parallel_iterations=parallel_iterations)


def _batchable(x):
    """Whether `x` is a BatchableExtensionType value: its batch is the
    stack of its components (TensorFlow's default batch encoder)."""
    return isinstance(getattr(x, "_type_spec", None), BatchableExtensionTypeSpec)


def _split(leaves, specs, flat):
    """`leaves` rebuilt from the tensors `flat`: a leaf with a spec takes as
    many tensors as it has components."""
    it = iter(flat)
    out = []
    for leaf, spec in zip(leaves, specs):
        if spec is None:
            out.append(next(it))
        else:
            out.append(spec._from_components([next(it) for _ in spec._component_specs]))
    return out


def _map_composites(fn, elems, signature, parallel_iterations):
    """map_fn over elements or results that are BatchableExtensionType
    values: a map_fn over their components, each row rebuilt with the
    unbatched spec, the stacked results with the batched one."""
    leaves = nest.flatten(elems)
    in_specs = [x._type_spec._unbatch() if _batchable(x) else None for x in leaves]
    flat_in = []
    for x, spec in zip(leaves, in_specs):
        flat_in.extend(x._to_components() if spec is not None else [convert_to_tensor(x)])
    if signature is None:
        # As TensorFlow: by default the results are like the elements.
        signature = nest.pack_sequence_as(
            elems, [s if s is not None else TensorSpec(None, convert_to_tensor(x).dtype)
                    for x, s in zip(leaves, in_specs)])
    out_leaves = nest.flatten(signature)
    out_specs = [s if isinstance(s, BatchableExtensionTypeSpec) else None for s in out_leaves]
    flat_sig = []
    for s in out_leaves:
        if isinstance(s, BatchableExtensionTypeSpec):
            # Any shape: the traced rows fix them.
            flat_sig.extend(TensorSpec(None, c.dtype) for c in s._component_specs)
        else:
            flat_sig.append(_spec(s))

    def flat_fn(row):
        elem = nest.pack_sequence_as(elems, _split(leaves, in_specs, list(row)))
        result = fn(elem)
        try:
            nest.assert_same_structure(signature, result, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError(f"The output of `fn` in map_fn does not match its signature: "
                             f"{e}") from None
        out = []
        for v, s in zip(nest.flatten(result), out_specs):
            out.extend(v._to_components() if s is not None else [v])
        return tuple(out)
    stacked = map_fn(flat_fn, tuple(flat_in), fn_output_signature=tuple(flat_sig),
                     parallel_iterations=parallel_iterations)
    n_static = flat_in[0].shape[0] if flat_in and flat_in[0].shape.rank else None
    batched = [None if s is None else s._batch(n_static) for s in out_specs]
    return nest.pack_sequence_as(signature, _split(out_leaves, batched, list(stacked)))


def _accumulate(fn, elems, initializer, reverse, what, keep_all):
    flat, n_static, n = _elements(elems, what)
    readers = _reader(flat)
    start = 0
    if initializer is None:
        first = n - 1 if reverse else 0
        acc = nest.pack_sequence_as(elems, [r.read(first) for r in readers])
        start = 1
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
    acc_flat = nest.flatten(acc)
    specs = [TensorSpec(t.shape, t.dtype) for t in acc_flat]
    tas = _writers(specs, n) if keep_all else []
    if keep_all and start:
        tas = [ta.write(n - 1 if reverse else 0, t) for ta, t in zip(tas, acc_flat)]

    def body(i, acc_flat, tas):
        index = n - 1 - i if reverse else i
        elem = nest.pack_sequence_as(elems, [r.read(index) for r in readers])
        new = fn(nest.pack_sequence_as(acc, acc_flat), elem)
        try:
            nest.assert_same_structure(acc, new, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError(f"The output of `fn` in {what} must have the structure of its "
                             f"accumulator: {e}") from None
        new_flat = [convert_to_tensor(v, dtype=t.dtype) for v, t in zip(nest.flatten(new),
                                                                      acc_flat)]
        if keep_all:
            tas = [ta.write(index, v) for ta, v in zip(tas, new_flat)]
        return i + 1, new_flat, tas
    _, acc_flat, tas = while_loop(lambda i, *_: i < n, body, (start, acc_flat, tas))
    if keep_all:
        return nest.pack_sequence_as(acc, _stack(tas, n_static, specs))
    return nest.pack_sequence_as(acc, acc_flat)


@export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The successive accumulators `a = fn(a, x)` over the elements of `elems`
    (from the end when `reverse`), stacked; without `initializer` the first
    element starts the accumulation (and is the first result).

    Raises:
      ValueError: if `fn` returns another structure than the accumulator.
    """
    return _accumulate(fn, elems, initializer, reverse, "scan", keep_all=True)


@export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The final accumulator of `a = fn(a, x)` over `elems` from the first
    element (which starts it when there is no `initializer`)."""
    return _accumulate(fn, elems, initializer, False, "foldl", keep_all=False)


@export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The final accumulator of `a = fn(a, x)` over `elems` from the last
    element (which starts it when there is no `initializer`)."""
    return _accumulate(fn, elems, initializer, True, "foldr", keep_all=False)


@export("vectorized_map")
def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` applied to each element of `elems`, results stacked, like
    `map_fn` with the output signature `fn` itself gives (learned by tracing
    it once, without running it)."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    specs = nest.pack_sequence_as(elems, [TensorSpec(t.shape[1:], t.dtype) for t in flat])
    fg = trace_function("vectorized_map_fn", lambda e: fn(e), (specs,), {})
    signature = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype),
                                   fg.structured_outputs)
    return map_fn(fn, elems, fn_output_signature=signature)

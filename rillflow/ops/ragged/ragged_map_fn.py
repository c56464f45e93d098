"""`tf.map_fn` over the rows of a RaggedTensor (ragged rank 1), as
TensorFlow's map_fn does for ragged `elems`: `fn` gets each row as a dense
tensor; with no output signature (or a RaggedTensorSpec) the results, of
any lengths, become the rows of a RaggedTensor, otherwise they are stacked
as by the dense `map_fn`.

`fn` is a user function called once per row, so this is the one ragged op
that iterates over rows; it is a `while_loop` over row indices with
TensorArrays (the dense `map_fn`'s machinery), so it also runs in a graph.
"""
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ..control_flow import functional_ops
from ..control_flow.tensor_array import TensorArray
from ..control_flow.while_loop import while_loop
from ..core.creation_ops import range as tf_range
from ..core.shape_ops import shape as tf_shape
from ..core.slicing import getitem
from .ragged_spec import RaggedTensorSpec
from .ragged_tensor import RaggedTensor


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each row of the RaggedTensor `elems`.

    Raises:
      NotImplementedError: `elems` of ragged rank above 1, or a ragged
        output signature of ragged rank above 1.
      InvalidArgumentError: an `fn` result of another dtype than the signature.
    """
    if elems.ragged_rank != 1:
        raise NotImplementedError("map_fn over a RaggedTensor supports ragged_rank 1 here")
    sig = fn_output_signature if fn_output_signature is not None else dtype
    values, starts, limits = elems.values, elems.row_starts(), elems.row_limits()

    def row(i):
        return getitem(values, slice(getitem(starts, i), getitem(limits, i)))
    if sig is not None and not isinstance(sig, RaggedTensorSpec):
        return functional_ops.map_fn(lambda i: fn(row(i)), tf_range(elems.nrows()),
                                     parallel_iterations=parallel_iterations,
                                     fn_output_signature=sig)
    if sig is not None and sig.ragged_rank not in (0, 1):
        raise NotImplementedError("map_fn with a ragged output signature of ragged_rank "
                                  f"{sig.ragged_rank} is not supported here")
    out_dtype = elems.dtype if sig is None else sig.dtype
    splits_dtype = elems.row_splits.dtype
    n = elems.nrows(out_type=D.int32)

    def body(i, vals, lens):
        r = convert_to_tensor(fn(row(i)), dtype_hint=out_dtype)
        if r.dtype is not out_dtype:
            raise errors.InvalidArgumentError(
                None, None, f"The output of `fn` in map_fn is a {r.dtype.name} tensor where its "
                f"signature has {out_dtype.name}; pass fn_output_signature")
        if r.shape.rank == 0:
            raise ValueError("map_fn over ragged rows: `fn` must return a tensor of rank >= 1 "
                             "for a ragged result (pass fn_output_signature for scalars)")
        return (i + 1, vals.write(i, r),
                lens.write(i, getitem(tf_shape(r, out_type=splits_dtype), 0)))
    _, vals, lens = while_loop(
        lambda i, *_: i < n, body,
        (0, TensorArray(out_dtype, size=n, infer_shape=False),
         TensorArray(splits_dtype, size=n)),
        parallel_iterations=parallel_iterations or 10)
    return RaggedTensor.from_row_lengths(vals.concat(), lens.stack(), validate=False)

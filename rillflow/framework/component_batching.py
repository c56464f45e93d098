"""Stacking and slicing the NumPy values of tensor components: how tf.data
batches and unbatches a tensor component, with its errors for components of
different shapes. Composite specs batch their own components
(`_batch_numpy` / `_unbatch_numpy`) and use these for the parts that are
plain tensors (a RaggedTensorSpec below ragged rank 0), so they live here,
below both tf.data and the op families."""
import numpy as np

from . import errors


def slice_iter(arr):
    """An iterator over the slices of `arr` along its first dimension, each a
    NumPy value (strings stay 0-d object arrays, as eager tensors hold them)."""
    if isinstance(arr, np.ndarray) and arr.dtype.kind == "O" and arr.ndim == 1:
        return (arr[i, ...] for i in range(arr.shape[0]))
    return iter(arr)


def stack_components(rows, index, fused=False, label=None):
    """Stacks the `index`-th component of each element of `rows` into one array.
    `label` is the component number errors name (TensorFlow counts a
    composite as one component), `index` by default.

    Raises:
      InvalidArgumentError: if the components' shapes differ.
    """
    vals = [r[index] for r in rows]
    if label is not None:
        index = label
    first = vals[0]
    if first.__class__ is np.ndarray and first.ndim:
        shape = first.shape
        for k, v in enumerate(vals):
            if np.shape(v) != shape:
                raise _batch_error(vals, index, k, fused)
        return np.stack(vals)
    dtype = getattr(first, "dtype", None)
    if dtype is not None and dtype.kind == "O":
        out = np.empty(len(vals), dtype=object)
        for k, v in enumerate(vals):
            if np.ndim(v):
                raise _batch_error(vals, index, k, fused)
            out[k] = v[()] if isinstance(v, np.ndarray) else v
        return out
    try:
        out = np.array(vals, dtype=dtype)
    except ValueError:
        out = None
    if out is None or out.ndim != 1:
        k = next(k for k, v in enumerate(vals) if np.ndim(v))
        raise _batch_error(vals, index, k, fused)
    return out


def _dims(value):
    # TensorShape::DebugString, as TensorFlow's messages print shapes
    return "[%s]" % ",".join(str(d) for d in np.shape(value))


def _batch_error(vals, index, k, fused):
    if fused:
        return errors.InvalidArgumentError(
            None, None, "Cannot add tensor to the batch: number of elements does not match. "
            f"Shapes are: [tensor]: {_dims(vals[k])}, [batch]: {_dims(vals[0])}")
    return errors.InvalidArgumentError(
        None, None, f"Cannot batch tensors with different shapes in component {index}. "
        f"First element had shape {_dims(vals[0])} and element {k} had shape "
        f"{_dims(vals[k])}.")

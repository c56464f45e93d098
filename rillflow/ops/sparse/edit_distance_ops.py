"""`tf.edit_distance`: the Levenshtein distance between the sequences of two
SparseTensors, grouped by all but their last index (TensorFlow's
EditDistance op, not differentiable)."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor, SparseTensorValue
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


def _levenshtein(a, b):
    """The edit distance of sequences `a` and `b` (one row of the table at a time)."""
    if not len(a):
        return len(b)
    if not len(b):
        return len(a)
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if x == y else 1))
        prev = cur
    return prev[-1]


def _shape_str(a):
    return "[" + ",".join(str(d) for d in np.shape(a)) + "]"


def _validate(hi, hv, hs, ti, tv, ts):
    # The kernel's checks, in its order (edit_distance_op.cc).
    for name, a in (("hypothesis_indices", hi), ("truth_indices", ti)):
        if a.ndim != 2:
            raise _invalid(f"{name} should be a matrix, but got shape: {_shape_str(a)}")
    for name, a in (("hypothesis_values", hv), ("truth_values", tv),
                    ("hypothesis_shape", hs), ("truth_shape", ts)):
        if a.ndim != 1:
            raise _invalid(f"{name} should be a vector, but got shape: {_shape_str(a)}")
    if hs.size != hi.shape[1]:
        raise _invalid("Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), "
                       f"their shapes are: {_shape_str(hs)} and {_shape_str(hi)}")
    if ts.size != ti.shape[1]:
        raise _invalid("Expected truth_shape.NumElements == #cols(truth_indices), their shapes "
                       f"are: {_shape_str(ts)} and {_shape_str(ti)}")
    if hv.size != hi.shape[0]:
        raise _invalid("Expected hypothesis_values.NumElements == #rows(hypothesis_indices), "
                       f"their shapes are: {_shape_str(hi)} and {_shape_str(hv)}")
    if tv.size != ti.shape[0]:
        raise _invalid("Expected truth_values.NumElements == #rows(truth_indices), their shapes "
                       f"are: {_shape_str(ti)} and {_shape_str(tv)}")
    if ts.size < 2:
        raise _invalid("Input SparseTensors must have rank at least 2, but truth_shape rank "
                       f"is: {ts.size}")
    if hs.size != ts.size:
        raise _invalid("Expected truth and hypothesis to have matching ranks, but their shapes "
                       f"are: {_shape_str(ts)} and {_shape_str(hs)}")


def _groups(indices, values):
    """[(group index tuple, values of the group)] in index order."""
    out = {}
    for row, v in zip(indices.tolist(), values.tolist()):
        out.setdefault(tuple(row[:-1]), []).append(v)
    return out


def _edit_distance_kernel(hypothesis_indices, hypothesis_values, hypothesis_shape,
                          truth_indices, truth_values, truth_shape, normalize=True):
    hi, hv, hs = (np.asarray(a) for a in (hypothesis_indices, hypothesis_values,
                                          hypothesis_shape))
    ti, tv, ts = (np.asarray(a) for a in (truth_indices, truth_values, truth_shape))
    _validate(hi, hv, hs, ti, tv, ts)
    out_shape = [int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1])]
    out = np.zeros(out_shape, np.float32)
    hyp, truth = _groups(hi, hv), _groups(ti, tv)
    for g in set(hyp) | set(truth):
        if any(i < 0 or i >= n for i, n in zip(g, out_shape)):
            raise _invalid(f"Got an inner product {list(g)} which would require writing to "
                           f"outside of the buffer for the output tensor (max elements "
                           f"{out.size})")
        h, t = hyp.get(g), truth.get(g)
        if h is not None and t is not None:
            d = np.float32(_levenshtein(h, t))
            out[g] = d / np.float32(len(t)) if normalize else d
        elif h is not None:
            # A hypothesis with no truth: infinitely far when normalized.
            out[g] = np.inf if normalize else len(h)
        else:
            out[g] = 1.0 if normalize else len(t)
    return out


def _edit_distance_infer(inputs, attrs):
    hs, ts = U.constant_value(inputs[2]), U.constant_value(inputs[5])
    if inputs[1].dtype is not inputs[4].dtype:
        raise TypeError(f"Input 'truth_values' of 'EditDistance' Op has type "
                        f"{inputs[4].dtype.name} that does not match type "
                        f"{inputs[1].dtype.name} of argument 'hypothesis_values'.")
    if hs is None or ts is None or np.ndim(hs) != 1 or np.shape(hs) != np.shape(ts):
        return [(TensorShape(None), D.float32)]
    return [(TensorShape([int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1])]), D.float32)]


_EditDistance = register("EditDistance", _edit_distance_kernel, _edit_distance_infer,
                         lambda op, g: [None] * 6)


@export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of `hypothesis` and
    `truth` (SparseTensors of rank R), one per index of their first R-1
    dimensions: a float32 tensor of the larger of their dense shapes without
    the last dimension. With `normalize` the distance is divided by the
    truth's length (inf where the truth is empty and the hypothesis not).

    Raises:
      TypeError: if either is not a SparseTensor.
      InvalidArgumentError: for components of mismatched shapes or ranks.
    """
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    args = [convert_to_tensor(x, D.int64) if i % 3 != 1 else convert_to_tensor(x)
            for i, x in enumerate((hypothesis.indices, hypothesis.values,
                                   hypothesis.dense_shape, truth.indices, truth.values,
                                   truth.dense_shape))]
    if args[1].dtype is not args[4].dtype and _context.executing_eagerly():
        raise _invalid(f"cannot compute EditDistance as input #4(zero-based) was expected to "
                       f"be a {args[1].dtype.name} tensor but is a {args[4].dtype.name} tensor "
                       "[Op:EditDistance]")
    return apply(_EditDistance, args, {"normalize": bool(normalize)}, name=name)

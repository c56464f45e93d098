"""Non-maximum suppression: `tf.image.non_max_suppression` (NonMaxSuppressionV2/
V3), `non_max_suppression_with_scores` (V5, soft-NMS), the V4 op (padded
output), `non_max_suppression_overlaps` (NonMaxSuppressionWithOverlaps),
`combined_non_max_suppression` (CombinedNonMaxSuppression) and
`non_max_suppression_padded` (TensorFlow's tiled, batched algorithm, written
with the public ops as TensorFlow writes it).

The kernels follow TensorFlow's non_max_suppression_op.cc step by step in
float32: IoU of boxes given by any two opposite corners, the candidates in a
queue by score (ties: the lower index first), each compared with the
selected boxes from the last, soft-NMS reweighting by glibc's expf.
"""
import collections
import heapq

import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..kernels.glibc_scalar import _expf
from ..core import op_util as U
from ..core.creation_ops import name_scope

_F32 = np.float32
_NO_GRAD = None


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


def _corners(boxes):
    b = np.asarray(boxes, np.float32)
    y0, x0 = np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3])
    y1, x1 = np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])
    return y0, x0, y1, x1, (y1 - y0) * (x1 - x0)


def _iou_fn(boxes):
    y0, x0, y1, x1, area = _corners(boxes)

    def iou(i, j):
        if area[i] <= 0 or area[j] <= 0:
            return _F32(0)
        ih = max(min(y1[i], y1[j]) - max(y0[i], y0[j]), _F32(0))
        iw = max(min(x1[i], x1[j]) - max(x0[i], x0[j]), _F32(0))
        inter = _F32(ih * iw)
        return _F32(inter / _F32(_F32(area[i] + area[j]) - inter))
    return iou


def _nms(similarity, scores, max_output, threshold, score_threshold, soft_sigma=0.0):
    """TensorFlow's DoNonMaxSuppressionOp: (selected indices, their scores)."""
    scores = np.asarray(scores, np.float32)
    threshold, score_threshold = _F32(threshold), _F32(score_threshold)
    soft = soft_sigma > 0
    scale = _F32(_F32(-0.5) / _F32(soft_sigma)) if soft else _F32(0)
    # The heap orders by (-score, index): the lowest index first among equal scores.
    heap = [(-float(s), i, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    selected, selected_scores = [], []
    while len(selected) < max_output and heap:
        neg, i, begin = heapq.heappop(heap)
        score = original = _F32(-neg)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = similarity(i, selected[j])
            weight = _expf(_F32(_F32(scale * sim) * sim))
            if not soft and sim > threshold:
                hard = True
                break
            score = _F32(score * (weight if soft or sim <= threshold else _F32(0)))
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-float(score), i, len(selected)))
    return np.array(selected, np.int32), np.array(selected_scores, np.float32)


def _check(boxes, scores, max_output_size, iou_threshold=None, overlaps=False):
    name = "overlaps" if overlaps else "boxes"
    if boxes.ndim != 2:
        raise _invalid(f"{name} must be 2-D{_dims(boxes.shape)}")
    if not overlaps and boxes.shape[1] != 4:
        raise _invalid(f"boxes must have 4 columns{_dims(boxes.shape)}")
    if overlaps and boxes.shape[0] != boxes.shape[1]:
        raise _invalid(f"overlaps must be square{_dims(boxes.shape)}")
    if scores.ndim != 1:
        raise _invalid(f"scores must be 1-D{_dims(scores.shape)}")
    if scores.shape[0] != boxes.shape[0]:
        raise _invalid(f"scores has incompatible shape{_dims(scores.shape)}")
    if np.ndim(max_output_size) != 0:
        raise _invalid(f"max_output_size must be 0-D, got shape {_dims(np.shape(max_output_size))}")
    if iou_threshold is not None and not 0 <= iou_threshold <= 1:
        raise _invalid("iou_threshold must be in [0, 1]")


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _v3_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold=-np.inf, **_):
    _check(boxes, scores, max_output_size, float(iou_threshold))
    return _nms(_iou_fn(boxes), scores, int(max_output_size), float(iou_threshold),
                float(score_threshold))[0]


def _v4_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold,
               pad_to_max_output_size=False, **_):
    _check(boxes, scores, max_output_size, float(iou_threshold))
    n = int(max_output_size)
    idx, _ = _nms(_iou_fn(boxes), scores, n, float(iou_threshold), float(score_threshold))
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        idx = np.pad(idx, (0, n - len(idx)))
    return [idx, valid]


def _v5_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold,
               soft_nms_sigma, pad_to_max_output_size=False, **_):
    _check(boxes, scores, max_output_size, float(iou_threshold))
    if float(soft_nms_sigma) < 0:
        raise _invalid("soft_nms_sigma must be non-negative")
    n = int(max_output_size)
    idx, sc = _nms(_iou_fn(boxes), scores, n, float(iou_threshold), float(score_threshold),
                   float(soft_nms_sigma))
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        idx, sc = np.pad(idx, (0, n - len(idx))), np.pad(sc, (0, n - len(sc)))
    return [idx, sc.astype(scores.dtype), valid]


def _overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    _check(overlaps, scores, max_output_size, None, overlaps=True)
    ov = np.asarray(overlaps, np.float32)
    return _nms(lambda i, j: ov[i, j], scores, int(max_output_size),
                float(overlap_threshold), float(score_threshold))[0]


def _indices_infer(inputs, attrs):
    n = U.constant_value(inputs[2])
    return [(TensorShape([None]), D.int32)]


def _padded_infer(with_scores):
    def infer(inputs, attrs):
        n = U.constant_value(inputs[2])
        size = int(n) if n is not None and attrs.get("pad_to_max_output_size") else None
        out = [(TensorShape([size]), D.int32)]
        if with_scores:
            out.append((TensorShape([size]), inputs[1].dtype))
        return out + [(TensorShape([]), D.int32)]
    return infer


_NMS_TYPES = (D.float16, D.float32)
_V2 = register("NonMaxSuppressionV2", _v3_kernel, _indices_infer, allowed=_NMS_TYPES)
_V3 = register("NonMaxSuppressionV3", _v3_kernel, _indices_infer, allowed=_NMS_TYPES)
_V4 = register("NonMaxSuppressionV4", _v4_kernel, _padded_infer(False), allowed=_NMS_TYPES)
_V5 = register("NonMaxSuppressionV5", _v5_kernel, _padded_infer(True), allowed=_NMS_TYPES)
_Overlaps = register("NonMaxSuppressionWithOverlaps", _overlaps_kernel, _indices_infer)


def _args(boxes, scores, max_output_size, *floats):
    b = convert_to_tensor(boxes, D.float32) if not hasattr(boxes, "dtype") else \
        convert_to_tensor(boxes)
    s = convert_to_tensor(scores, b.dtype)
    m = convert_to_tensor(max_output_size, D.int32)
    return [b, s, m] + [convert_to_tensor(f, D.float32) for f in floats]


@export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """The indices (int32, best first) of at most `max_output_size` boxes
    ([n, 4], any two opposite corners) greedily kept in order of score,
    dropping each box whose IoU with a kept one exceeds `iou_threshold` and
    every box scoring at most `score_threshold`.

    Raises:
      InvalidArgumentError: malformed boxes/scores or a threshold outside [0, 1].
    """
    with name_scope(name or "non_max_suppression"):
        return apply(_V3, _args(boxes, scores, max_output_size, iou_threshold,
                                score_threshold), name="NonMaxSuppressionV3")


@export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """(selected indices, their scores): `non_max_suppression`, or with
    `soft_nms_sigma` > 0 Soft-NMS, which instead of dropping overlapping boxes
    scales their scores by exp(-IoU^2 / (2 sigma)) and requeues them."""
    with name_scope(name or "non_max_suppression_with_scores"):
        idx, sc, _ = apply(_V5, _args(boxes, scores, max_output_size, iou_threshold,
                                      score_threshold, soft_nms_sigma),
                           {"pad_to_max_output_size": False}, name="NonMaxSuppressionV5",
                           multi=True)
        return idx, sc


@export("image.non_max_suppression_overlaps")
def non_max_suppression_with_overlaps(overlaps, scores, max_output_size,
                                      overlap_threshold=0.5, score_threshold=float("-inf"),
                                      name=None):
    """`non_max_suppression` with the pairwise overlaps ([n, n]) given instead
    of boxes: box i is dropped when overlaps[i, j] > `overlap_threshold` for a
    kept box j."""
    with name_scope(name or "non_max_suppression_overlaps"):
        ov = convert_to_tensor(overlaps, D.float32)
        return apply(_Overlaps, [ov, convert_to_tensor(scores, D.float32),
                                 convert_to_tensor(max_output_size, D.int32),
                                 convert_to_tensor(overlap_threshold, D.float32),
                                 convert_to_tensor(score_threshold, D.float32)],
                     name="NonMaxSuppressionWithOverlaps")


# --- CombinedNonMaxSuppression ------------------------------------------------------------------

def _combined_kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                     score_threshold, pad_per_class=False, clip_boxes=True):
    if boxes.ndim != 4:
        raise _invalid(f"boxes must be 4-D{_dims(boxes.shape)}")
    if scores.ndim != 3:
        raise _invalid(f"scores must be 3-D{_dims(scores.shape)}")
    batch, n, q = boxes.shape[:3]
    classes = scores.shape[2]
    if q != 1 and q != classes:
        raise _invalid("third dimension of boxes must be either 1 or num classes")
    if boxes.shape[3] != 4:
        raise _invalid("fourth dimension of boxes must be 4")
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    if total <= 0:
        raise _invalid(f"max_total_size must be > 0")
    if not 0 <= float(iou_threshold) <= 1:
        raise _invalid("iou_threshold must be in [0, 1]")
    size = min(per_class * classes, total) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(classes):
            bx = boxes[b, :, c if q > 1 else 0]
            idx, sc = _nms(_iou_fn(bx), scores[b, :, c], per_class, float(iou_threshold),
                           float(score_threshold))
            found += [(s, c, i, bx[i]) for i, s in zip(idx, sc)]
        # Best first; equal scores keep class order (TensorFlow sorts by score).
        found.sort(key=lambda r: -float(r[0]))
        found = found[:size]
        valid[b] = len(found)
        for k, (s, c, i, box) in enumerate(found):
            box = np.asarray(box, np.float32)
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k], out_classes[b, k] = s, c
    return [out_boxes, out_scores, out_classes, valid]


def _combined_infer(inputs, attrs):
    batch = inputs[0].shape[0] if inputs[0].shape.rank else None
    per, tot = U.constant_value(inputs[2]), U.constant_value(inputs[3])
    classes = inputs[1].shape[2] if inputs[1].shape.rank == 3 else None
    size = None
    if tot is not None:
        size = int(tot)
        if attrs.get("pad_per_class") and per is not None and classes is not None:
            size = min(int(per) * classes, size)
    return [(TensorShape([batch, size, 4]), D.float32), (TensorShape([batch, size]), D.float32),
            (TensorShape([batch, size]), D.float32), (TensorShape([batch]), D.int32)]


_Combined = register("CombinedNonMaxSuppression", _combined_kernel, _combined_infer)


@export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """NMS per class of each batch item, then the best `max_total_size` of
    all classes: (boxes [batch, size, 4], scores, classes (float), valid
    detections [batch]), zero-padded; `boxes` is [batch, n, q, 4] (q = 1 or
    one box per class), `scores` [batch, n, classes]."""
    with name_scope(name or "combined_non_max_suppression"):
        args = [convert_to_tensor(boxes, D.float32), convert_to_tensor(scores, D.float32),
                convert_to_tensor(max_output_size_per_class, D.int32),
                convert_to_tensor(max_total_size, D.int32),
                convert_to_tensor(iou_threshold, D.float32),
                convert_to_tensor(score_threshold, D.float32)]
        return _CombinedResult(*apply(_Combined, args, {"pad_per_class": bool(pad_per_class),
                                                        "clip_boxes": bool(clip_boxes)},
                                      name="CombinedNonMaxSuppression", multi=True))


_CombinedResult = collections.namedtuple(
    "CombinedNonMaxSuppression", ["nmsed_boxes", "nmsed_scores", "nmsed_classes",
                                  "valid_detections"])

"""`tf.image.generate_bounding_box_proposals` (GenerateBoundingBoxProposals,
the region proposal step of Faster R-CNN).

TensorFlow 2.21 has this op on GPUs only (on a CPU it raises NotFoundError);
this follows its GPU kernel step by step: per image, the scores
([H, W, A] flattened) sorted descending (stable), the best `pre_nms_topn`
decoded from their anchors and deltas ([y1, x1, y2, x2] and [dy, dx, dh, dw];
anchors [height, width, 4 * A], shared by the images), the sizes'
log-deltas clipped to log(1000 / 16), boxes clipped to the image
(image_info rows are [height, width, scale, ...]) and dropped when a side is
below min_size * scale, then greedy non-max suppression (a box is dropped
when intersection > threshold * union with a kept one; boxes of zero area
never overlap) keeping at most `post_nms_topn`, zero-padded. Arithmetic is
float32 with glibc's expf (the GPU's expf may differ in the last bit).
"""
import collections
import math

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, dims_text
from ..kernels import glibc_float

_IAE = errors.InvalidArgumentError
_F = np.float32
_XFORM_CLIP = _F(math.log(1000.0 / 16.0))


def _scalar(v, index, cast):
    v = np.asarray(v)
    if v.ndim != 0:
        raise _IAE(None, None, f"Expected a scalar in input {index}but got shape "
                   f"{dims_text(v.shape)}")
    return cast(v)


def _nms(boxes, threshold, max_out):
    """Indices kept by the GPU kernel's greedy NMS of score-sorted boxes
    (x1, y1, x2, y2)."""
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    # The kernel orders each box's corners first.
    x1, x2 = np.minimum(x1, x2), np.maximum(x1, x2)
    y1, y2 = np.minimum(y1, y2), np.maximum(y1, y2)
    area = (x2 - x1) * (y2 - y1)
    keep = []
    for i in range(len(boxes)):
        suppressed = False
        for j in keep:
            if area[i] == 0 or area[j] == 0:
                continue
            w = max(_F(min(x2[i], x2[j]) - max(x1[i], x1[j])), _F(0))
            h = max(_F(min(y2[i], y2[j]) - max(y1[i], y1[j])), _F(0))
            inter = _F(w * h)
            union = _F(_F(area[j] + area[i]) - inter)
            if inter > _F(union * threshold):
                suppressed = True
                break
        if not suppressed:
            keep.append(i)
            if len(keep) >= max_out:
                break
    return keep


def _kernel(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn, min_size,
            post_nms_topn=300):
    if post_nms_topn <= 0:
        raise _IAE(None, None, "post_nms_topn can't be 0 or less")
    n, height, width, num_anchors = scores.shape
    if anchors.ndim != 3 or anchors.shape[2] // max(num_anchors, 1) != 4:
        raise errors.OutOfRangeError(None, None, "Box dimensions need to be 4")
    threshold = _scalar(nms_threshold, 4, _F)
    if threshold < 0 or threshold > 1.0:
        raise _IAE(None, None, f"nms_threshold should be between 0 and 1. Got {threshold:g}")
    pre = _scalar(pre_nms_topn, 5, int)
    if pre <= 0:
        raise _IAE(None, None, f"pre_nms_topn should be greater than 0{pre}")
    min_size = _scalar(min_size, 6, _F)
    total = height * width * num_anchors
    count = min(total, pre)
    first_anchors = anchors.reshape(-1, 4)[:total]  # [H, W, A, 4] flattened
    info = image_info.reshape(-1)
    rois = np.zeros((n, post_nms_topn, 4), np.float32)
    probs = np.zeros((n, post_nms_topn), np.float32)
    for b in range(n):
        flat = scores[b].reshape(-1)
        order = np.argsort(-flat, kind="stable")[:count]
        top_scores = flat[order]
        a = first_anchors[order]
        d = bbox_deltas[b].reshape(-1, 4)[order]
        ay1, ax1, ay2, ax2 = (a[:, i] for i in range(4))
        dy, dx = d[:, 0], d[:, 1]
        dh, dw = np.minimum(d[:, 2], _XFORM_CLIP), np.minimum(d[:, 3], _XFORM_CLIP)
        bw = ax2 - ax1
        ctr_x = ax1 + _F(0.5) * bw
        pred_ctr_x = ctr_x + bw * dx
        pred_w = bw * glibc_float.expf(dw.astype(np.float32))
        x1 = pred_ctr_x - _F(0.5) * pred_w
        x2 = pred_ctr_x + _F(0.5) * pred_w
        bh = ay2 - ay1
        ctr_y = ay1 + _F(0.5) * bh
        pred_ctr_y = ctr_y + bh * dy
        pred_h = bh * glibc_float.expf(dh.astype(np.float32))
        y1 = pred_ctr_y - _F(0.5) * pred_h
        y2 = pred_ctr_y + _F(0.5) * pred_h
        img_h, img_w, scale = _F(info[5 * b]), _F(info[5 * b + 1]), _F(info[5 * b + 2])
        x1, x2 = (np.maximum(np.minimum(v, img_w), _F(0)) for v in (x1, x2))
        y1, y2 = (np.maximum(np.minimum(v, img_h), _F(0)) for v in (y1, y2))
        keep = np.minimum(x2 - x1, y2 - y1) >= _F(min_size * scale)
        boxes = np.stack([x1, y1, x2, y2], 1)[keep]
        kept_scores = top_scores[keep]
        sel = _nms(boxes, threshold, post_nms_topn)
        k = len(sel)
        rois[b, :k] = boxes[sel][:, [1, 0, 3, 2]]
        probs[b, :k] = kept_scores[sel]
    return rois, probs


def _infer(inputs, attrs):
    n = inputs[0].shape[0] if inputs[0].shape.rank else None
    k = attrs["post_nms_topn"]
    return [(TensorShape([n, k, 4]), D.float32), (TensorShape([n, k]), D.float32)]


_GenerateBoundingBoxProposals = register("GenerateBoundingBoxProposals", _kernel, _infer)

_Result = collections.namedtuple("GenerateBoundingBoxProposals", ["rois", "roi_probabilities"])


@export("image.generate_bounding_box_proposals",
        "compat.v1.image.generate_bounding_box_proposals")
def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold=0.7,
                                    pre_nms_topn=6000, min_size=16, post_nms_topn=300,
                                    name=None):
    """Region proposals from an RPN's outputs: for each image, the
    `pre_nms_topn` best-scoring `anchors` ([H, W, 4A] boxes y1, x1, y2, x2 for
    the [N, H, W, A] `scores`) moved by their `bbox_deltas` ([N, H, W, 4A],
    dy, dx, dh, dw), clipped to the image
    (`image_info` [N, 5]: height, width, scale, ...), boxes with a side below
    `min_size` * scale dropped, then non-max suppression at `nms_threshold`.

    Returns:
      (rois, roi_probabilities): [N, post_nms_topn, 4] boxes (y1, x1, y2, x2)
      sorted by score and [N, post_nms_topn] scores, zero-padded.

    TensorFlow 2.21 runs this op on GPUs only; see the module docstring.
    """
    args = [convert_to_tensor(v, dtype=D.float32, name=n) for v, n in
            ((scores, "scores"), (bbox_deltas, "bbox_deltas"), (image_info, "image_info"),
             (anchors, "anchors"), (nms_threshold, "nms_threshold"))]
    args.append(convert_to_tensor(pre_nms_topn, dtype=D.int32, name="pre_nms_topn"))
    args.append(convert_to_tensor(min_size, dtype=D.float32, name="min_size"))
    out = apply(_GenerateBoundingBoxProposals, args, {"post_nms_topn": int(post_nms_topn)},
                name=name or "GenerateBoundingBoxProposals", multi=True)
    return _Result(*out)

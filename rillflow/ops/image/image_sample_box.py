"""`tf.image.sample_distorted_bounding_box` and
`stateless_sample_distorted_bounding_box`: a random crop window covering
part of given boxes (TensorFlow's sample_distorted_bounding_box_op.cc, with
its random numbers).

The numbers come from Philox as in TensorFlow: the stateless op from its
scrambled seed, the stateful one from its kernel's generator (reserving
4 * max_attempts words per run), read one word at a time (SimplePhilox):
an aspect ratio per attempt from RandFloat, heights and offsets from
Uniform (rejection of the low `2**32 mod n` words, then modulo).
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core.creation_ops import name_scope
from ..random import philox
from ..random.seeding import _rng_or_default, _stateful_attrs, _stateless_rng

_F32 = np.float32


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


class _SimplePhilox:
    """TensorFlow's SimplePhilox over a Philox position: one uint32 at a time."""

    def __init__(self, position):
        self._position = position
        self._buffer = []

    def rand32(self):
        """The next uint32 word."""
        if not self._buffer:
            block = philox.blocks(self._position[0], self._position[1], 1)[0]
            self._position = philox.skip(self._position, 1)
            self._buffer = [int(w) for w in block][::-1]
        return self._buffer.pop()

    def rand_float(self):
        """A float32 in [0, 1) from the word's 23 low bits."""
        bits = (self.rand32() & 0x7FFFFF) | (127 << 23)
        return _F32(np.array([bits], np.uint32).view(np.float32)[0] - _F32(1))

    def uniform(self, n):
        """An integer in [0, n): words below 2**32 mod n are rejected (exact)."""
        rem = (1 << 32) % n
        while True:
            bits = self.rand32()
            if bits >= rem:
                return bits % n


def _lrint(x):
    return int(np.rint(_F32(x)))


def _random_crop(width, height, min_area_rel, max_area_rel, aspect, rng):
    """TensorFlow's GenerateRandomCrop: (x, y, w, h) or None."""
    if max_area_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or \
            min_area_rel > max_area_rel:
        return None
    min_area = _F32(_F32(min_area_rel * _F32(width)) * _F32(height))
    max_area = _F32(_F32(max_area_rel * _F32(width)) * _F32(height))
    h = _lrint(np.sqrt(_F32(min_area / aspect)))
    max_h = _lrint(np.sqrt(_F32(max_area / aspect)))
    if _lrint(_F32(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(_F32(0.0000001))) / float(aspect))
        if _lrint(_F32(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    if h >= max_h:
        h = max_h
    if h < max_h:
        h += rng.uniform(max_h - h + 1)
    w = _lrint(_F32(h) * aspect)
    area = _F32(w * h)
    if area < min_area:
        h += 1
        w = _lrint(_F32(h) * aspect)
        area = _F32(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(_F32(h) * aspect)
        area = _F32(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = rng.uniform(height - h) if h < height else 0
    x = rng.uniform(width - w) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered):
    x, y, w, h = crop
    if _F32(w * h) < 1:
        return False
    for x0, y0, x1, y1 in boxes:
        area = _F32((x1 - x0) * (y1 - y0))
        if area < 1:
            continue
        ix0, iy0, ix1, iy1 = max(x, x0), max(y, y0), min(x + w, x1), min(y + h, y1)
        inter = 0 if ix0 > ix1 or iy0 > iy1 else (ix1 - ix0) * (iy1 - iy0)
        if _F32(_F32(inter) / area) >= min_covered:
            return True
    return False


def _sample(position, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
            area_range, max_attempts, use_image_if_no_bounding_boxes):
    size = np.asarray(image_size)
    if size.ndim != 1:
        raise _invalid(f"image_size must be 1-dimensional, got shape {list(size.shape)}")
    if size.shape[0] != 3:
        raise _invalid(f"image_size must contain 3 elements, got {size.shape[0]}")
    height, width = int(size[0]), int(size[1])
    bb = np.asarray(bounding_boxes, np.float32)
    if bb.ndim != 3:
        raise _invalid(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                       f"{list(bb.shape)}")
    if bb.shape[-1] != 4:
        raise _invalid(f"bounding boxes must have shape [4] or [*, 4], got {list(bb.shape)}")
    min_covered = _F32(np.asarray(min_object_covered).reshape(()))
    if min_covered < 0:
        raise _invalid(f"min_object_covered must be non-negative: {min_covered}")
    boxes = []
    for b in bb.reshape(-1, 4):
        ymin, xmin, ymax, xmax = (_F32(v) for v in b)
        boxes.append((int(xmin * _F32(width)), int(ymin * _F32(height)),
                      int(xmax * _F32(width)), int(ymax * _F32(height))))
    if not boxes:
        if not use_image_if_no_bounding_boxes:
            raise _invalid("No bounding boxes provided as input. One must enable "
                           "use_image_if_no_bounding_boxes if you wish to not provide any "
                           "bounding boxes.")
        boxes.append((0, 0, width, height))
    lo_a, hi_a = (_F32(v) for v in aspect_ratio_range)
    lo_s, hi_s = (_F32(v) for v in area_range)
    rng = _SimplePhilox(position)
    crop = None
    for _ in range(max_attempts):
        aspect = _F32(rng.rand_float() * _F32(hi_a - lo_a) + lo_a)
        c = _random_crop(width, height, lo_s, hi_s, aspect, rng)
        if c is not None and _covers(c, boxes, min_covered):
            crop = c
            break
    if crop is None:
        crop = (0, 0, width, height)
    x, y, w, h = crop
    dtype = size.dtype
    begin = np.array([y, x, 0], dtype)
    out_size = np.array([h, w, -1], dtype)
    window = np.array([[[_F32(y) / _F32(height), _F32(x) / _F32(width),
                         _F32(y + h) / _F32(height), _F32(x + w) / _F32(width)]]], np.float32)
    return [begin, out_size, window]


def _check_attrs(aspect_ratio_range, area_range):
    if len(aspect_ratio_range) != 2:
        raise _invalid("Aspect ratio range field must specify 2 dimensions")
    if aspect_ratio_range[0] <= 0 or aspect_ratio_range[1] <= 0:
        raise _invalid(f"Aspect ratio range must be positive: [{aspect_ratio_range[0]}, "
                       f"{aspect_ratio_range[1]}]")
    if len(area_range) != 2:
        raise _invalid("Area range field must specify 2 dimensions")
    if area_range[0] <= 0 or area_range[1] <= 0:
        raise _invalid(f"Area range must be positive: [{area_range[0]}, {area_range[1]}]")
    if area_range[0] > 1 or area_range[1] > 1:
        raise _invalid(f"Area range must be less then or equal to 1.0: [{area_range[0]}, "
                       f"{area_range[1]}]")


def _stateful_kernel(image_size, bounding_boxes, min_object_covered, seed=0, seed2=0,
                     aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                     use_image_if_no_bounding_boxes=False, _rng=None, **_):
    _check_attrs(aspect_ratio_range, area_range)
    position = _rng_or_default(_rng).reserve32(4 * max_attempts)
    return _sample(position, image_size, bounding_boxes, min_object_covered,
                   aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)


def _stateless_kernel(image_size, bounding_boxes, min_object_covered, seed,
                      aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                      use_image_if_no_bounding_boxes=False, **_):
    _check_attrs(aspect_ratio_range, area_range)
    return _sample(_stateless_rng(seed), image_size, bounding_boxes, min_object_covered,
                   aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)


def _infer(inputs, attrs):
    d = inputs[0].dtype
    return [(TensorShape([3]), d), (TensorShape([3]), d), (TensorShape([1, 1, 4]), D.float32)]


_INTS = (D.uint8, D.int8, D.int16, D.int32, D.int64)
_SampleV2 = register("SampleDistortedBoundingBoxV2", _stateful_kernel, _infer, stateful=True,
                     allowed=_INTS)
_Stateless = register("StatelessSampleDistortedBoundingBox", _stateless_kernel, _infer,
                      allowed=_INTS)


def _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    return {"aspect_ratio_range": [float(v) for v in (aspect_ratio_range or (0.75, 1.33))],
            "area_range": [float(v) for v in (area_range or (0.05, 1.0))],
            "max_attempts": int(max_attempts or 100),
            "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}


@export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop window of an image of `image_size` ([h, w, c]) covering at
    least `min_object_covered` of one of `bounding_boxes` ([batch, n, 4],
    normalized), of an aspect ratio and area in the given ranges: (begin,
    size, bboxes) for `tf.slice` and drawing; the whole image when
    `max_attempts` draws all fail.

    Raises:
      InvalidArgumentError: malformed sizes or ranges, or no boxes without
        `use_image_if_no_bounding_boxes`.
    """
    with name_scope(name or "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size)
        attrs = _attrs(aspect_ratio_range, area_range, max_attempts,
                       use_image_if_no_bounding_boxes)
        if seed:
            attrs = _stateful_attrs("SampleDistortedBoundingBoxV2", size.dtype, seed, **attrs)
        else:
            # TensorFlow ignores the global seed when `seed` is 0: nondeterministic.
            attrs.update(seed=0, seed2=0, _rng=philox.GuardedPhilox(0, 0))
        return _V2Result(*apply(_SampleV2, [size, convert_to_tensor(bounding_boxes, D.float32),
                                       convert_to_tensor(min_object_covered, D.float32)],
                           attrs, name="SampleDistortedBoundingBoxV2", multi=True))


@export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """`sample_distorted_bounding_box` with the stateless generator: the same
    window for the same `seed` ([2] ints).

    Raises:
      InvalidArgumentError: as `sample_distorted_bounding_box`.
    """
    with name_scope(name or "stateless_sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size)
        attrs = _attrs(aspect_ratio_range, area_range, max_attempts,
                       use_image_if_no_bounding_boxes)
        return _StatelessResult(*apply(_Stateless, [size, convert_to_tensor(bounding_boxes, D.float32),
                                        convert_to_tensor(min_object_covered, D.float32),
                                        convert_to_tensor(seed)],
                           attrs, name="StatelessSampleDistortedBoundingBox", multi=True))


# TensorFlow's generated op wrappers return these namedtuples.
_V2Result = collections.namedtuple("SampleDistortedBoundingBoxV2", ["begin", "size", "bboxes"])
_StatelessResult = collections.namedtuple("StatelessSampleDistortedBoundingBox",
                                          ["begin", "size", "bboxes"])

"""TensorFlow's results of the tf.image ops added by issue 22 besides the file
codecs: non-maximum suppression (all variants), crop_and_resize and its
gradients, draw_bounding_boxes, the stateless random adjustments, YIQ and
ssim_multiscale, recorded for tests/test_image_boxes.py.

    /work/tfref/bin/python tools/tf_image_ops_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


def _boxes(n=30, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 1, (n, 2)).astype(np.float32)
    size = rng.uniform(0.05, 0.4, (n, 2)).astype(np.float32)
    boxes = np.concatenate([c, c + size], 1)
    boxes[3] = boxes[3][[2, 3, 0, 1]]          # corners given the other way round
    scores = rng.uniform(0, 1, n).astype(np.float32)
    scores[5] = scores[6]                      # a tie
    return boxes, scores


@case
def nms(tf):
    boxes, scores = _boxes()
    out = [tf.image.non_max_suppression(boxes, scores, 10, 0.3),
           tf.image.non_max_suppression(boxes, scores, 20, 0.5, 0.4),
           tf.image.non_max_suppression(boxes, scores, 0),
           tf.image.non_max_suppression(boxes.astype(np.float16), scores.astype(np.float16),
                                        8, 0.4)]
    out += list(tf.image.non_max_suppression_with_scores(boxes, scores, 20, 0.5, 0.1,
                                                         soft_nms_sigma=0.5))
    out += list(tf.image.non_max_suppression_with_scores(boxes, scores, 7, 0.6))
    out.append(tf.raw_ops.NonMaxSuppressionV4(
        boxes=boxes, scores=scores, max_output_size=15, iou_threshold=0.4,
        score_threshold=0.2, pad_to_max_output_size=True))
    out.append(tf.raw_ops.NonMaxSuppressionV2(boxes=boxes, scores=scores, max_output_size=6,
                                              iou_threshold=0.5))
    rng = np.random.default_rng(1)
    out.append(tf.image.non_max_suppression_overlaps(
        rng.uniform(0, 1, (6, 6)).astype(np.float32), scores[:6], 4, 0.5))
    return out


@case
def nms_padded(tf):
    boxes, scores = _boxes()
    b, s = tf.constant(boxes), tf.constant(scores)
    b2, s2 = _boxes(20, seed=3)
    batch_b, batch_s = tf.constant(np.stack([boxes[:20], b2])), tf.constant(np.stack([scores[:20],
                                                                                    s2]))
    return [tf.image.non_max_suppression_padded(b, s, 12, 0.4, pad_to_max_output_size=True),
            tf.image.non_max_suppression_padded(b, s, 12, 0.4, score_threshold=0.3),
            tf.image.non_max_suppression_padded(batch_b, batch_s, 6, 0.5,
                                                pad_to_max_output_size=True, tile_size=8),
            tf.image.non_max_suppression_padded(b, s, 40, 0.2, pad_to_max_output_size=True,
                                                tile_size=4)]


@case
def nms_padded_batch_without_padding(tf):
    boxes, scores = _boxes()
    return tf.image.non_max_suppression_padded(tf.constant(np.stack([boxes, boxes])),
                                               tf.constant(np.stack([scores, scores])), 5)


@case
def nms_bad_threshold(tf):
    boxes, scores = _boxes()
    return tf.image.non_max_suppression(boxes, scores, 3, 1.5)


@case
def combined_nms(tf):
    boxes, _ = _boxes(10)
    rng = np.random.default_rng(4)
    cb = np.stack([boxes.reshape(10, 1, 4)] * 2)
    cb3 = rng.uniform(-0.2, 1.2, (2, 10, 3, 4)).astype(np.float32)
    cs = rng.uniform(0, 1, (2, 10, 3)).astype(np.float32)
    return [tf.image.combined_non_max_suppression(cb, cs, 3, 5, 0.5, 0.2),
            tf.image.combined_non_max_suppression(cb3, cs, 4, 20, 0.4, 0.1,
                                                  pad_per_class=True),
            tf.image.combined_non_max_suppression(cb3, cs, 2, 6, clip_boxes=False)]


def _image(shape=(2, 9, 11, 3), seed=5, dtype=np.float32):
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(dtype)


_CROP_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.1, 0.2, 0.7], [-0.2, -0.1, 1.2, 0.5],
                        [0.3, 0.3, 0.3, 0.3], [0.0, 0.0, 1.0, 1.0]], np.float32)
_CROP_IND = np.array([0, 1, 1, 0, 1], np.int32)


@case
def crop_and_resize(tf):
    img = _image()
    out = []
    for size in ([4, 5], [1, 3], [1, 1], [6, 2]):
        for method in ("bilinear", "nearest"):
            out.append(tf.image.crop_and_resize(img, _CROP_BOXES, _CROP_IND, size,
                                                method=method, extrapolation_value=-1.0))
    out.append(tf.image.crop_and_resize(img.astype(np.uint8), _CROP_BOXES, _CROP_IND, [3, 3]))
    out.append(tf.image.crop_and_resize(img.astype(np.float64), _CROP_BOXES, _CROP_IND,
                                        [3, 4]))
    out.append(tf.function(lambda: tf.image.crop_and_resize(img, _CROP_BOXES, _CROP_IND,
                                                            [2, 2]))())
    return out


@case
def crop_and_resize_gradients(tf):
    out = []
    for size in ([4, 5], [1, 3], [1, 1]):
        for method in ("bilinear", "nearest"):
            x, b = tf.constant(_image()), tf.constant(_CROP_BOXES)
            with tf.GradientTape() as t:
                t.watch([x, b])
                y = tf.image.crop_and_resize(x, b, _CROP_IND, size, method=method)
                loss = tf.reduce_sum(y * y * 0.001)
            out += t.gradient(loss, [x, b])
    return out


@case
def crop_and_resize_bad_index(tf):
    return tf.image.crop_and_resize(_image(), _CROP_BOXES, [0, 1, 2, 0, 0], [2, 2])


@case
def draw_bounding_boxes(tf):
    boxes = [[[0.1, 0.2, 0.8, 0.9], [-0.3, 0.5, 0.5, 1.4], [0.5, 0.5, 0.2, 0.9],
              [0.0, 0.0, 1.0, 1.0], [1.2, 0.1, 1.5, 0.5], [0.33, 0.25, 0.66, 0.75]]]
    return [tf.image.draw_bounding_boxes(np.zeros((1, 7, 9, 3), np.float32), boxes,
                                         np.zeros((0, 4), np.float32)),
            tf.image.draw_bounding_boxes(_image((1, 7, 9, 4), seed=6) / 255., boxes,
                                         [[0.3, 0.5, 0.2, 1.0], [1.0, 0.0, 0.5, 0.5]]),
            tf.image.draw_bounding_boxes(np.zeros((1, 5, 5, 1), np.float32),
                                         [[[0.0, 0.0, 1.0, 1.0]]], np.zeros((0, 4), np.float32)),
            tf.image.draw_bounding_boxes(np.zeros((1, 6, 6, 3), np.float16),
                                         [[[0.2, 0.2, 0.8, 0.8]]], [[0.1, 0.2, 0.3]])]


# adjust_contrast's mean rounds differently in rillflow (1 ulp): a tolerance.
@case(rtol=1e-6)
def stateless_random_adjustments(tf):
    img = _image((2, 6, 7, 3), seed=7) / 255.
    seeds = ([1, 2], [7, 11])
    out = []
    for s in seeds:
        out += [tf.image.stateless_random_brightness(img, 0.3, s),
                tf.image.stateless_random_contrast(img, 0.2, 1.8, s),
                tf.image.stateless_random_hue(img, 0.2, s),
                tf.image.stateless_random_saturation(img, 0.1, 2.0, s),
                tf.image.stateless_random_crop(img, [2, 4, 5, 3], s),
                tf.image.stateless_random_jpeg_quality(
                    (img[0] * 255).astype(np.uint8), 10, 90, s).shape]
    return out


@case
def stateless_random_hue_range(tf):
    return tf.image.stateless_random_hue(np.zeros((2, 2, 3), np.float32), 0.7, [1, 2])


@case
def stateless_random_crop_too_big(tf):
    return tf.image.stateless_random_crop(np.zeros((2, 2, 3), np.float32), [3, 2, 3], [1, 2])


@case(rtol=2e-6)
def yiq(tf):
    img = _image((2, 4, 5, 3), seed=8) / 255.
    return [tf.image.rgb_to_yiq(img), tf.image.yiq_to_rgb(img),
            tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(img.astype(np.float64)))]


@case(rtol=1e-5)
def ssim_multiscale(tf):
    a = _image((2, 190, 170, 3), seed=9).astype(np.uint8)
    b = np.clip(a.astype(int) + np.random.default_rng(10).integers(-40, 40, a.shape), 0,
                255).astype(np.uint8)
    return [tf.image.ssim_multiscale(a, b, 255),
            tf.image.ssim_multiscale(a.astype(np.float32) / 255., b.astype(np.float32) / 255.,
                                     1.0, power_factors=(0.5, 0.5), filter_size=7)]


@case
def sample_distorted_bounding_box(tf):
    bb = tf.constant([[[0.1, 0.2, 0.5, 0.6], [0.3, 0.1, 0.9, 0.4]]])
    out = []
    for s in ([1, 2], [3, 4], [100, 7], [5, 5], [-3, 12]):
        out.append(tf.image.stateless_sample_distorted_bounding_box(
            [480, 640, 3], bb, s, min_object_covered=0.3))
        out.append(tf.image.stateless_sample_distorted_bounding_box(
            tf.constant([37, 53, 1], tf.int64), bb, s, min_object_covered=0.7,
            aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.6], max_attempts=20))
    out.append(tf.image.stateless_sample_distorted_bounding_box(
        [100, 200, 3], tf.zeros([1, 0, 4]), [1, 2], use_image_if_no_bounding_boxes=True))
    out.append(tf.image.stateless_sample_distorted_bounding_box(
        [10, 10, 3], bb, [1, 2], min_object_covered=1.0, area_range=[0.01, 0.02]))
    tf.random.set_seed(4)
    out.append(tf.image.sample_distorted_bounding_box([100, 200, 3], bb, seed=9))
    out.append(tf.image.sample_distorted_bounding_box([100, 200, 3], bb, seed=9))
    tf.random.set_seed(None)   # leave no global seed to the other cases
    return out


@case
def sample_distorted_bounding_box_no_boxes(tf):
    return tf.image.stateless_sample_distorted_bounding_box([10, 10, 3], tf.zeros([1, 0, 4]),
                                                            [1, 2])


@case
def sample_distorted_bounding_box_bad_area(tf):
    return tf.image.stateless_sample_distorted_bounding_box(
        [10, 10, 3], [[[0., 0., 1., 1.]]], [1, 2], area_range=[0.5, 1.5])


@case
def extract_glimpse(tf):
    img = np.random.default_rng(3).uniform(0, 10, (3, 12, 15, 2)).astype(np.float32)
    out = []
    for kw in (dict(), dict(centered=False, normalized=False),
               dict(centered=False, normalized=True), dict(centered=True, normalized=False)):
        for off in ([[0.1, -0.2], [0.0, 0.0], [-0.3, 0.4]], [[3, 4], [0, 0], [5.6, 7.9]],
                    [[0.2, 0.3], [0.5, 0.5], [0.3, 0.6]]):
            out.append(tf.image.extract_glimpse(img, [4, 5], off, noise="zero", **kw))
    # Windows inside the image are exact whatever the noise.
    out.append(tf.image.extract_glimpse(img, [3, 3], [[0.0, 0.0]] * 3))
    return out


if __name__ == "__main__":
    CASES.main("tf_image_ops.npz")

"""`tf.image.non_max_suppression_padded`: TensorFlow's batched NMS on tiles of
boxes (image_ops_impl.py's non_max_suppression_padded_v2), written here with
the same public ops in the same order, so its results, including its own
conventions (a selected box is one with a positive coordinate left, a box of
all-zero coordinates is never selected, boxes at or above the IoU threshold
are suppressed), are TensorFlow's."""
from ...framework.api_export import EXPORTS, export
from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ...framework.tensor_shape import TensorShape


class _Public:
    """The public `tf.*` functions, looked up when called (as TensorFlow's
    Python code calls them); `tf.math.x` is a namespace of them."""

    def __init__(self, prefix=""):
        self._prefix = prefix

    def __getattr__(self, name):
        if name == "math":
            return _Public("math.")
        return EXPORTS[self._prefix + name]


tf = _Public()


def _bbox_overlap(boxes_a, boxes_b):
    with tf.name_scope("bbox_overlap"):
        a_y_min, a_x_min, a_y_max, a_x_max = tf.split(boxes_a, 4, axis=2)
        b_y_min, b_x_min, b_y_max, b_x_max = tf.split(boxes_b, 4, axis=2)
        i_xmin = tf.maximum(a_x_min, tf.transpose(b_x_min, [0, 2, 1]))
        i_xmax = tf.minimum(a_x_max, tf.transpose(b_x_max, [0, 2, 1]))
        i_ymin = tf.maximum(a_y_min, tf.transpose(b_y_min, [0, 2, 1]))
        i_ymax = tf.minimum(a_y_max, tf.transpose(b_y_max, [0, 2, 1]))
        i_area = tf.maximum((i_xmax - i_xmin), 0) * tf.maximum((i_ymax - i_ymin), 0)
        a_area = (a_y_max - a_y_min) * (a_x_max - a_x_min)
        b_area = (b_y_max - b_y_min) * (b_x_max - b_x_min)
        u_area = a_area + tf.transpose(b_area, [0, 2, 1]) - i_area + 1e-8
        return i_area / u_area


def _self_suppression(iou, _, iou_sum, iou_threshold):
    batch_size = tf.shape(iou)[0]
    can_suppress_others = tf.cast(
        tf.reshape(tf.reduce_max(iou, 1) < iou_threshold, [batch_size, -1, 1]), iou.dtype)
    iou_after_suppression = tf.reshape(
        tf.cast(tf.reduce_max(can_suppress_others * iou, 1) < iou_threshold, iou.dtype),
        [batch_size, -1, 1]) * iou
    iou_sum_new = tf.reduce_sum(iou_after_suppression, [1, 2])
    return [iou_after_suppression, tf.reduce_any(iou_sum - iou_sum_new > iou_threshold),
            iou_sum_new, iou_threshold]


def _cross_suppression(boxes, box_slice, iou_threshold, inner_idx, tile_size):
    batch_size = tf.shape(boxes)[0]
    new_slice = tf.slice(boxes, [0, inner_idx * tile_size, 0], [batch_size, tile_size, 4])
    iou = _bbox_overlap(new_slice, box_slice)
    box_slice_after_suppression = tf.expand_dims(
        tf.cast(tf.reduce_all(iou < iou_threshold, [1]), box_slice.dtype), 2) * box_slice
    return boxes, box_slice_after_suppression, iou_threshold, inner_idx + 1


def _suppression_loop_body(boxes, iou_threshold, output_size, idx, tile_size):
    with tf.name_scope("suppression_loop_body"):
        num_tiles = tf.shape(boxes)[1] // tile_size
        batch_size = tf.shape(boxes)[0]

        def cross_suppression_func(boxes, box_slice, iou_threshold, inner_idx):
            return _cross_suppression(boxes, box_slice, iou_threshold, inner_idx, tile_size)

        box_slice = tf.slice(boxes, [0, idx * tile_size, 0], [batch_size, tile_size, 4])
        _, box_slice, _, _ = tf.while_loop(
            lambda _boxes, _box_slice, _threshold, inner_idx: inner_idx < idx,
            cross_suppression_func, [boxes, box_slice, iou_threshold, tf.constant(0)])
        iou = _bbox_overlap(box_slice, box_slice)
        mask = tf.expand_dims(tf.reshape(tf.range(tile_size), [1, -1]) >
                              tf.reshape(tf.range(tile_size), [-1, 1]), 0)
        iou *= tf.cast(tf.logical_and(mask, iou >= iou_threshold), iou.dtype)
        suppressed_iou, _, _, _ = tf.while_loop(
            lambda _iou, loop_condition, _iou_sum, _: loop_condition, _self_suppression,
            [iou, tf.constant(True), tf.reduce_sum(iou, [1, 2]), iou_threshold])
        suppressed_box = tf.reduce_sum(suppressed_iou, 1) > 0
        box_slice *= tf.expand_dims(1.0 - tf.cast(suppressed_box, box_slice.dtype), 2)
        mask = tf.reshape(tf.cast(tf.equal(tf.range(num_tiles), idx), boxes.dtype),
                          [1, -1, 1, 1])
        boxes = tf.tile(tf.expand_dims(box_slice, [1]), [1, num_tiles, 1, 1]) * mask + \
            tf.reshape(boxes, [batch_size, num_tiles, tile_size, 4]) * (1 - mask)
        boxes = tf.reshape(boxes, [batch_size, -1, 4])
        output_size += tf.reduce_sum(tf.cast(tf.reduce_any(box_slice > 0, [2]), D.int32), [1])
    return boxes, iou_threshold, output_size, idx + 1


def _padded_v2(boxes, scores, max_output_size, iou_threshold=0.5,
               score_threshold=float("-inf"), sorted_input=False,
               canonicalized_coordinates=False, tile_size=512):
    batch_dims = tf.shape(boxes)[:-2]
    num_boxes = tf.shape(boxes)[-2]
    boxes = tf.reshape(boxes, [-1, num_boxes, 4])
    scores = tf.reshape(scores, [-1, num_boxes])
    batch_size = tf.shape(boxes)[0]
    if score_threshold != float("-inf"):
        with tf.name_scope("filter_by_score"):
            score_mask = tf.cast(scores > score_threshold, scores.dtype)
            scores *= score_mask
            boxes *= tf.expand_dims(tf.cast(score_mask, boxes.dtype), 2)
    if not canonicalized_coordinates:
        with tf.name_scope("canonicalize_coordinates"):
            y_1, x_1, y_2, x_2 = tf.split(boxes, 4, axis=2)
            y_1_is_min = tf.reduce_all(tf.less_equal(y_1[0, 0, 0], y_2[0, 0, 0]))
            y_min, y_max = tf.cond(y_1_is_min, lambda: (y_1, y_2), lambda: (y_2, y_1))
            x_1_is_min = tf.reduce_all(tf.less_equal(x_1[0, 0, 0], x_2[0, 0, 0]))
            x_min, x_max = tf.cond(x_1_is_min, lambda: (x_1, x_2), lambda: (x_2, x_1))
            boxes = tf.concat([y_min, x_min, y_max, x_max], axis=2)
    if not sorted_input:
        with tf.name_scope("sort_scores_and_boxes"):
            sorted_indices = tf.argsort(scores, axis=1, direction="DESCENDING")
            scores = tf.gather(scores, sorted_indices, axis=1, batch_dims=1)
            boxes = tf.gather(boxes, sorted_indices, axis=1, batch_dims=1)
    else:
        sorted_indices = tf.zeros_like(scores, dtype=D.int32)
    pad = tf.cast(tf.math.ceil(tf.cast(tf.maximum(num_boxes, max_output_size), D.float32) /
                               tf.cast(tile_size, D.float32)), D.int32) * tile_size - num_boxes
    boxes = tf.pad(tf.cast(boxes, D.float32), [[0, 0], [0, pad], [0, 0]])
    scores = tf.pad(tf.cast(scores, D.float32), [[0, 0], [0, pad]])
    num_boxes_after_padding = num_boxes + pad
    num_iterations = num_boxes_after_padding // tile_size

    def _loop_cond(unused_boxes, unused_threshold, output_size, idx):
        return tf.logical_and(tf.reduce_min(output_size) < max_output_size,
                              idx < num_iterations)

    def body(boxes, iou_threshold, output_size, idx):
        return _suppression_loop_body(boxes, iou_threshold, output_size, idx, tile_size)

    selected_boxes, _, output_size, _ = tf.while_loop(
        _loop_cond, body,
        [boxes, iou_threshold, tf.zeros([batch_size], D.int32), tf.constant(0)],
        shape_invariants=[TensorShape([None, None, 4]), TensorShape([]), TensorShape([None]),
                          TensorShape([])])
    num_valid = tf.minimum(output_size, max_output_size)
    idx = num_boxes_after_padding - tf.cast(tf.math.top_k(
        tf.cast(tf.reduce_any(selected_boxes > 0, [2]), D.int32) *
        tf.expand_dims(tf.range(num_boxes_after_padding, 0, -1), 0),
        max_output_size)[0], D.int32)
    idx = tf.minimum(idx, num_boxes - 1)
    if not sorted_input:
        index_offsets = tf.range(batch_size) * num_boxes
        gather_idx = tf.reshape(idx + tf.expand_dims(index_offsets, 1), [-1])
        idx = tf.reshape(tf.gather(tf.reshape(sorted_indices, [-1]), gather_idx),
                         [batch_size, -1])
    invalid_index = tf.zeros([batch_size, max_output_size], dtype=D.int32)
    idx_index = tf.expand_dims(tf.range(max_output_size), 0)
    num_valid_expanded = tf.expand_dims(num_valid, 1)
    idx = tf.where(idx_index < num_valid_expanded, idx, invalid_index)
    num_valid = tf.reshape(num_valid, batch_dims)
    return idx, num_valid


@export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """Greedy NMS of (batches of) boxes [..., n, 4] and scores [..., n]:
    (indices [..., max_output_size] zero-padded, or without padding the
    valid ones of a single batch item; number valid).

    Raises:
      ValueError: batched input without `pad_to_max_output_size`.
    """
    with tf.name_scope(name or "non_max_suppression_padded"):
        boxes = convert_to_tensor(boxes)
        scores = convert_to_tensor(scores)
        if not pad_to_max_output_size and boxes.shape.rank is not None and \
                boxes.shape.rank > 2:
            raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must "
                             "be True for batched input")
        idx, num_valid = _padded_v2(boxes, scores, max_output_size, iou_threshold,
                                    score_threshold, sorted_input, canonicalized_coordinates,
                                    tile_size)
        if not pad_to_max_output_size:
            idx = idx[0, :num_valid]
        else:
            batch_dims = tf.concat([tf.shape(boxes)[:-2], tf.expand_dims(max_output_size, 0)],
                                   0)
            idx = tf.reshape(idx, batch_dims)
        return idx, num_valid

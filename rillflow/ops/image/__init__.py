"""Image ops (`tf.image`): resizing (image_resize; the kernel-sampling
ScaleAndTranslate op in image_scale_translate, below it; what both share in
resize_common), geometry - flips, rotations, crops, pads,
patches (image_ops), dtypes and colour (image_color), metrics (image_metrics) and
projective transforms (image_transform: ImageProjectiveTransformV2/V3), and image files
(image_codecs: decode/encode PNG, JPEG, GIF, BMP, decode WebP over rillflow/io's formats),
non-maximum suppression (image_nms; the tiled batched one in image_nms_padded) and
crop_and_resize / draw_bounding_boxes (image_boxes), the stateless random adjustments and
YIQ (image_random), sample_distorted_bounding_box (image_sample_box), and
generate_bounding_box_proposals (image_proposals)."""

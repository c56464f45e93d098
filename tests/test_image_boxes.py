"""tf.image's NMS variants, crop_and_resize (and its gradients),
draw_bounding_boxes, the stateless random adjustments, YIQ and MS-SSIM
against TensorFlow 2.21: the cases of tools/tf_image_ops_fixtures.py,
recorded by it into tests/data/tf_image_ops.npz."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_image_ops_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_image_ops.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    if "jpeg" in name or name == "stateless_random_adjustments":
        pytest.importorskip("PIL")
    fixtures.CASES.check(name, tf, _DATA)

"""adjust_hue and adjust_saturation on NaN, inf and subnormal pixels, against
the values TensorFlow 2.21 (CPU) gives for the same inputs (literals)."""
import numpy as np
import pytest

import rillflow as tf

nan, inf = np.nan, np.inf


def same(actual, expected):
    """Equal elementwise, NaN matching NaN and zeros matching in sign."""
    a = np.asarray(actual)
    e = np.asarray(expected, dtype=a.dtype)
    assert a.shape == e.shape, (a.shape, e.shape)
    ok = (np.isnan(a) & np.isnan(e)) | ((a == e) & (np.signbit(a) == np.signbit(e)))
    assert ok.all(), f"\n{a.tolist()}\n!=\n{e.tolist()}"


HUE_IMAGE = np.array([[[nan, 0.5, 0.2], [0.5, nan, 0.2], [0.5, 0.2, nan], [nan, nan, nan],
                       [inf, 0.5, 0.2], [0.2, 0.5, 0.9], [1e-39, 2e-39, -0.5],
                       [2e-38, 1e-38, 1.5e-38]]], np.float32)


def test_adjust_hue_of_nan_pixels_as_tensorflow():
    # It raised (np.choose on int(NaN)); TensorFlow's hue of a NaN pixel is
    # NaN, static_cast<int> makes it INT_MIN and its switch's default case
    # writes (largest, smallest, middle), with the middle one NaN. The other
    # pixels are unaffected; subnormal channels read as 0 in arithmetic.
    same(tf.image.adjust_hue(HUE_IMAGE, 0.0).numpy()[0], [
        [nan, 0.20000000298023224, nan], [0.5, nan, nan], [0.5, 0.20000000298023224, nan],
        [nan, nan, nan], [inf, nan, 0.20000000298023224],
        [0.20000000298023224, 0.5, 0.8999999761581421], [0.0, 1.0000002153053333e-39, -0.5],
        [2.0000000102211272e-38, 9.999999350456404e-39, 1.500000042698307e-38]])
    same(tf.image.adjust_hue(HUE_IMAGE, 0.25).numpy()[0], [
        [nan, 0.20000000298023224, nan], [0.5, nan, nan], [0.5, 0.20000000298023224, nan],
        [nan, nan, nan], [inf, inf, 0.20000000298023224],
        [0.8999999761581421, 0.20000000298023224, 0.8500001430511475],
        [-0.5, 1.0000002153053333e-39, -0.25],
        [2.0000000102211272e-38, 1.500000042698307e-38, 9.999999350456404e-39]])
    # Through a graph as well.
    same(tf.function(tf.image.adjust_hue)(HUE_IMAGE[:, :1], 0.25).numpy()[0],
         [[nan, 0.20000000298023224, nan]])


SAT_IMAGE = np.array([[[1, 1.9e-38, 2e-38], [1e30, 1e30 - 1e23, 0], [0.5, nan, 0.2],
                       [-inf, 0.5, 0.2], [1e-40, 0, 0], [0.2, 0.5, 0.9], [1e38, 3e38, 0]]],
                     np.float32)


def test_adjust_saturation_flushes_a_subnormal_hue_instead_of_blackening():
    # The first pixel's hue is (1/6) * (1.9e-38 - 2e-38), a negative
    # subnormal: TensorFlow reads it as -0 (not < 0), so the hue is 0 and
    # the pixel keeps its red; wrapped to 1 it fell in no category and came
    # out black. NaN and inf follow std::max/min and the flushing of
    # TensorFlow's arithmetic too.
    want = {
        0.5: [[1, 0.5, 0.5], [1.0000000150474662e+30, 9.999998639317388e+29, 5.000000075237331e+29],
              [0.5, 0.5, 0.5], [0, 0, 0], [0, 0, 0],
              [0.5499999523162842, 0.6999999284744263, 0.8999999761581421],
              [1.5000000027488779e+38, 3.0000000054977558e+38, 1.5000000027488779e+38]],
        1.0: [[1, 0, 0], [1.0000000150474662e+30, 9.99999788373875e+29, 0], [0.5, 0.5, 0.5],
              [0, 0, 0], [0, 0, 0], [0.19999998807907104, 0.5, 0.8999999761581421],
              [0, 3.0000000054977558e+38, 0]],
        2.0: [[1, 0, 0], [1.0000000150474662e+30, 9.99999788373875e+29, 0], [0.5, 0.5, 0.5],
              [0, 0, 0], [0, 0, 0], [0, 0.3857142925262451, 0.8999999761581421],
              [0, 3.0000000054977558e+38, 0]],
    }
    for scale, expected in want.items():
        same(tf.image.adjust_saturation(SAT_IMAGE, scale).numpy()[0], expected)


def test_adjust_hue_and_saturation_of_integer_images_unchanged():
    u8 = np.array([[[10, 200, 30]]], np.uint8)
    same(tf.image.adjust_hue(u8, 0.3).numpy(), [[[10, 28, 200]]])
    same(tf.image.adjust_saturation(u8, 1.5).numpy(), [[[0, 200, 21]]])


def test_adjust_hue_and_saturation_have_no_half_precision_kernel():
    # TensorFlow passes float16 images to its ops unconverted, and their CPU
    # kernels are float only.
    h = np.array([[[0.2, 0.5, 0.9]]], np.float16)
    with pytest.raises(tf.errors.NotFoundError, match="AdjustHue"):
        tf.image.adjust_hue(h, 0.3)
    with pytest.raises(tf.errors.NotFoundError, match="AdjustSaturation"):
        tf.image.adjust_saturation(h, 0.6)
    bf = tf.image.adjust_saturation(tf.constant(h, tf.bfloat16), 0.5)
    same(tf.cast(bf, tf.float32).numpy(), [[[0.55078125, 0.69921875, 0.8984375]]])


def test_adjust_hue_rejects_a_delta_outside_the_unit_interval_eagerly():
    # As TensorFlow's adjust_hue (eagerly only; NaN passes the test).
    img = np.full((1, 2, 2, 3), 0.5, np.float32)
    for delta in (2.5, -1.5, tf.constant(3.0)):
        with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
            tf.image.adjust_hue(img, delta)
    assert tf.image.adjust_hue(img, np.nan).shape == (1, 2, 2, 3)
    assert tf.function(lambda x: tf.image.adjust_hue(x, 2.5))(img).shape == (1, 2, 2, 3)

"""Helpers shared by tests (`from helpers import assert_gradients_match`)."""
import numpy as np

import rillflow as tf


def assert_gradients_match(f, inputs, rtol=1e-3, atol=1e-3, delta=None):
    """Checks the tape gradient of `f` at `inputs` against central differences.

    Use float64 inputs where the op allows it, for accurate differences.
    """
    theoretical, numerical = tf.test.compute_gradient(f, inputs, delta=delta)
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=rtol, atol=atol)

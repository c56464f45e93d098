"""`tf.test.compute_gradient`: theoretical vs numerical jacobians.

The theoretical jacobian comes from the tape; the numerical one from
central differences computed in float64 where the input allows it.
"""
import numpy as np

from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from .tape import GradientTape


def _to_tensor(x, dtype):
    return convert_to_tensor(np.asarray(x, dtype=dtype))


@export("test.compute_gradient")
def compute_gradient(f, x, delta=None):
    """Jacobians of `f` at the point `x` (a list of tensors).

    Returns:
      (theoretical, numerical): two lists with one array per input, each of
      shape [x.size, y.size], as in TensorFlow.
    """
    xs = [convert_to_tensor(v) for v in x]
    y0 = convert_to_tensor(f(*xs))
    y_size = int(np.prod(y0.shape.as_list())) if y0.shape.rank else 1
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        x_np = np.asarray(xi.numpy())
        x_size = x_np.size
        dtype = x_np.dtype
        step = delta if delta is not None else (1e-3 if dtype == np.float32 else
                                                1e-2 if dtype == np.float16 else 1e-6)
        jac_t = np.zeros((x_size, y_size), dtype=np.float64)
        for j in range(y_size):
            seed = np.zeros(y_size, dtype=y0.dtype.as_numpy_dtype)
            seed[j] = 1
            with GradientTape() as tape:
                tape.watch(xi)
                y = f(*xs)
            g = tape.gradient(y, xi, output_gradients=_to_tensor(
                seed.reshape(y0.shape.as_list()), seed.dtype))
            if g is not None:
                jac_t[:, j] = np.asarray(g.numpy(), dtype=np.float64).reshape(-1)
        jac_n = np.zeros((x_size, y_size), dtype=np.float64)
        hi_dtype = np.float64 if dtype in (np.float32, np.float16) else dtype
        for k in range(x_size):
            plus = x_np.astype(hi_dtype).copy().reshape(-1)
            minus = plus.copy()
            plus[k] += step
            minus[k] -= step
            args_p = list(xs)
            args_m = list(xs)
            args_p[i] = _to_tensor(plus.reshape(x_np.shape).astype(dtype), dtype)
            args_m[i] = _to_tensor(minus.reshape(x_np.shape).astype(dtype), dtype)
            yp = np.asarray(convert_to_tensor(f(*args_p)).numpy(), dtype=np.float64)
            ym = np.asarray(convert_to_tensor(f(*args_m)).numpy(), dtype=np.float64)
            jac_n[k, :] = ((yp - ym) / (2 * step)).reshape(-1)
        theoretical.append(jac_t)
        numerical.append(jac_n)
    return theoretical, numerical


@export("test.max_gradient_error", "debugging.max_gradient_error")
def max_error(grad1, grad2):
    """The largest absolute difference between two lists of jacobians."""
    err = 0.0
    for a, b in zip(grad1, grad2):
        if a.size:
            err = max(err, float(np.max(np.abs(a - b))))
    return err

"""The kernels of the compiler's joined op pairs (compiler/kernel_fusion.py):
two layer ops in one pass, with the bits of the two ops' own kernels, which
they run one after the other where no compiled loop takes the shapes."""
import numpy as np

from . import activations, pool_kernels

__all__ = ["bias_relu", "scale_bias_relu", "scale_bias_add_relu", "max_pool_grad_relu"]


def bias_relu(x, bias, out=None):
    """Relu(x + bias) for float32 `x` and a 1-D `bias` along its last axis
    (AddV2's or BiasAdd's sum, then the relu's rule) in one pass under the
    jit extra; `out` may be x's own buffer (as activations' out=)."""
    loop = activations._compiled("bias_relu", x)
    if loop is not None and x.ndim >= 2 and bias.dtype == np.float32 and \
            bias.shape == x.shape[-1:] and x.size:
        x = np.ascontiguousarray(x)
        c = x.shape[-1]
        if out is x and activations._fits(out, x):
            activations._compiled("bias_relu_inplace", x)(x.reshape(-1, c),
                                                          np.ascontiguousarray(bias))
            return x
        if not activations._fits(out, x):
            out = np.empty(x.shape, x.dtype)
        loop(x.reshape(-1, c), np.ascontiguousarray(bias), out.reshape(-1, c))
        return out
    return activations._relu_kernel(np.add(x, bias))


def scale_bias_relu(x, scale, bias, out=None):
    """Relu(x * scale + bias) for float32 `x` and 1-D `scale` and `bias`
    along its last axis (Mul's product, AddV2's sum, then the relu's rule,
    each rounded as the three ops round) in one pass under the jit extra;
    `out` may be x's own buffer."""
    loop = activations._compiled("scale_bias_relu", x)
    if loop is not None and x.ndim >= 2 and scale.dtype == bias.dtype == np.float32 and \
            scale.shape == bias.shape == x.shape[-1:] and x.size:
        x = np.ascontiguousarray(x)
        c = x.shape[-1]
        s, b = np.ascontiguousarray(scale), np.ascontiguousarray(bias)
        if out is x and activations._fits(out, x):
            activations._compiled("scale_bias_relu_inplace", x)(x.reshape(-1, c), s, b)
            return x
        if not activations._fits(out, x):
            out = np.empty(x.shape, x.dtype)
        loop(x.reshape(-1, c), s, b, out.reshape(-1, c))
        return out
    return activations._relu_kernel(np.add(np.multiply(x, scale), bias))


def scale_bias_add_relu(x, scale, bias, r, out=None):
    """Relu((x * scale + bias) + r) for float32 `x` and `r` of one shape and
    1-D `scale`, `bias` along the last axis (each operation rounded as its
    op's) in one pass under the jit extra; `out` may be x's own buffer."""
    loop = activations._compiled("scale_bias_add_relu", x)
    if loop is not None and x.ndim >= 2 and scale.dtype == bias.dtype == r.dtype == np.float32 \
            and scale.shape == bias.shape == x.shape[-1:] and r.shape == x.shape and x.size:
        x, r = np.ascontiguousarray(x), np.ascontiguousarray(r)
        c = x.shape[-1]
        s, b = np.ascontiguousarray(scale), np.ascontiguousarray(bias)
        if out is x and out is not r and activations._fits(out, x):
            activations._compiled("scale_bias_add_relu_inplace", x)(
                x.reshape(-1, c), s, b, r.reshape(-1, c))
            return x
        if not activations._fits(out, x):
            out = np.empty(x.shape, x.dtype)
        loop(x.reshape(-1, c), s, b, r.reshape(-1, c), out.reshape(-1, c))
        return out
    return activations._relu_kernel(np.add(np.add(np.multiply(x, scale), bias), r))


def max_pool_grad_relu(orig_input, orig_output, grad, ksize, strides, padding, out=None):
    """ReluGrad(MaxPoolGrad(orig_input, orig_output, grad), orig_input) for
    `orig_input` a relu's output, in one pass where the windows do not
    overlap; `out` may be orig_input's own buffer."""
    r = pool_kernels.max_pool_grad_relu(orig_input, grad, ksize, strides, padding, out)
    if r is not None:
        return r
    from .conv_ops import _max_pool_grad_kernel
    dx = _max_pool_grad_kernel(orig_input, orig_output, grad, ksize, strides, padding)
    return activations._relu_grad_kernel(dx, orig_input, out=dx)

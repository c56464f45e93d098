"""Compiled loops of the `jit` extra (Numba) for the layer kernels whose
NumPy versions make several passes over memory: float32 max and average
pooling and their gradients (pool_kernels.py has the NumPy code and the
rules they follow, which these loops follow too, element by element), relu
and its gradient (activations.py's rules), and
the tile transforms of Winograd convolutions (winograd.py, jit_winograd.py).

The loops load on a background thread, as the other compiled kernels do
(ops/kernels/jit_kernels.py): the first large request starts the load, and
until it is done the NumPy code runs, with the same bits. RILLFLOW_JIT=0
turns them off.
"""
import numpy as np

from ..kernels import jit_kernels as _jk

MIN_ELEMENTS = _jk.MIN_ELEMENTS


def _load():
    from . import jit_nn_loops as L
    from . import jit_winograd as W
    x = np.zeros((1, 3, 3, 2), np.float32)
    y = np.zeros((1, 1, 1, 2), np.float32)
    L.max_pool(x, y, 2, 2, 1, 1, 0, 0)        # compiles, or loads from the disk cache
    L.max_pool_grad(x, y, x.copy(), 2, 2, 1, 1, 0, 0)
    L.max_pool_grad_disjoint(x, y, x.copy(), 2, 2, 2, 2, 0, 0)
    L.max_pool_grad_relu_disjoint(x, y, x.copy(), 2, 2, 2, 2, 0, 0)
    L.avg_pool(x, y, 2, 2, 1, 1, 0, 0)
    L.avg_pool_grad(y, x.copy(), 2, 2, 1, 1, 0, 0)
    z = np.zeros(9, np.float32)
    L.relu(z, z.copy())
    L.bias_relu(z.reshape(3, 3), z[:3], z.reshape(3, 3).copy())
    L.scale_bias_relu(z.reshape(3, 3), z[:3], z[:3], z.reshape(3, 3).copy())
    L.scale_bias_add_relu(z.reshape(3, 3), z[:3], z[:3], z.reshape(3, 3), z.reshape(3, 3).copy())
    L.relu_grad(z, z, z.copy())
    L.relu_inplace(z.copy())
    L.bias_relu_inplace(z.reshape(3, 3).copy(), z[:3])
    L.scale_bias_relu_inplace(z.reshape(3, 3).copy(), z[:3], z[:3])
    L.scale_bias_add_relu_inplace(z.reshape(3, 3).copy(), z[:3], z[:3], z.reshape(3, 3))
    L.relu_grad_inplace(z.copy(), z)
    L.max_pool_grad_relu_disjoint_inplace(x.copy(), y, 2, 2, 2, 2, 0, 0)
    v = np.empty((16, 1, 2), np.float32)     # (16 positions, tiles, channels)
    W.input_tiles(x, 1, 1, 1, 1, v)
    W.output_tiles(v.copy(), 1, 1, y)
    W.grad_tiles(y, 1, 1, v)
    g = np.zeros((3, 3, 2, 2), np.float32)
    u = np.empty((16, 2, 2), np.float32)
    W.filter_tiles(g, u)
    W.filter_untile(u, g)
    return {"max_pool": L.max_pool, "max_pool_grad": L.max_pool_grad,
            "max_pool_grad_disjoint": L.max_pool_grad_disjoint,
            "max_pool_grad_relu_disjoint": L.max_pool_grad_relu_disjoint,
            "bias_relu": L.bias_relu, "scale_bias_relu": L.scale_bias_relu,
            "scale_bias_add_relu": L.scale_bias_add_relu,
            "avg_pool": L.avg_pool, "avg_pool_grad": L.avg_pool_grad,
            "relu": L.relu, "relu_grad": L.relu_grad,
            "relu_inplace": L.relu_inplace, "bias_relu_inplace": L.bias_relu_inplace,
            "scale_bias_relu_inplace": L.scale_bias_relu_inplace,
            "scale_bias_add_relu_inplace": L.scale_bias_add_relu_inplace,
            "relu_grad_inplace": L.relu_grad_inplace,
            "max_pool_grad_relu_disjoint_inplace": L.max_pool_grad_relu_disjoint_inplace,
            "wino_input": W.input_tiles, "wino_output": W.output_tiles,
            "wino_grad": W.grad_tiles, "wino_filter": W.filter_tiles,
            "wino_filter_grad": W.filter_untile}


LOAD = _jk.BackgroundLoad("rillflow-jit-load-nn", _load, "the layer loops")


def loops(size):
    """The compiled loops (a dict by name) for a tensor of `size` elements,
    or None (small, not loaded yet, jit extra absent or off)."""
    return LOAD.get(size)


def available():
    """Whether the jit extra is installed and on (its loops may still be
    loading); fixed for the process, so kernels may choose by it."""
    return _jk.available()


def status():
    """"on", "loading", or why the compiled layer loops are off."""
    return LOAD.status()


def wait(timeout=None):
    """Starts loading the loops (unless off), waits for them, returns status()."""
    return LOAD.wait(timeout)

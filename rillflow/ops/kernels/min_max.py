"""Maximum and minimum with TensorFlow's CPU choices: NaN propagates, and
between -0 and +0 Eigen's float32/float64 packets give the second operand
while its scalar tail, 0-d tensors and half precision give the first."""
import numpy as np

# Eigen's packets on TensorFlow's CPU build (AVX): 8 float32s, 4 float64s.
_PACKET_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def zero_ties(ufunc):
    """np.maximum / np.minimum with TensorFlow's choice between -0 and +0.

    NaN propagates in both. Where the operands are -0 and +0, TensorFlow's
    float32/float64 packets give the second operand and its scalar tail
    (the last size % lanes elements) and half precision give the first;
    NumPy's choice varies with its SIMD path. Only results that are zero
    are looked at again."""
    def kernel(a, b):
        r = ufunc(a, b)
        if r.dtype.kind != "f":
            return r
        if not np.ndim(r):   # a 0-d tensor takes Eigen's scalar path: the first operand
            return np.asarray(a, r.dtype)[()] if r == 0 and a == 0 and b == 0 else r
        zeros = np.flatnonzero(r == 0)
        if not zeros.size:
            return r
        av = np.broadcast_to(a, r.shape).reshape(-1) if np.shape(a) != r.shape else a.reshape(-1)
        bv = np.broadcast_to(b, r.shape).reshape(-1) if np.shape(b) != r.shape else b.reshape(-1)
        ties = zeros[(av[zeros] == 0) & (bv[zeros] == 0)]
        if ties.size:
            lanes = _PACKET_LANES.get(r.dtype)
            lo = r.size - r.size % lanes if lanes else 0
            flat = r.reshape(-1)
            flat[ties] = np.where(ties < lo, bv[ties], av[ties])
        return r
    kernel.__name__ = ufunc.__name__
    return kernel

"""Fast Fourier transforms: `tf.signal.fft`/`ifft` (1-3D, complex), `rfft`/
`irfft` (1-3D, real <-> Hermitian half spectrum), `fftshift`/`ifftshift`,
registered as TensorFlow's ops (FFT, IFFT, FFT2D, ..., RFFT, IRFFT3D) with
TensorFlow's gradients.

TensorFlow runs these on the CPU with ducc's FFT, which computes in the
input's precision (complex64 in float32 arithmetic). SciPy's pocketfft is
ducc's predecessor by the same author and gives bit-identical results for
lengths up to a few hundred (and agrees to ~1e-7 relative beyond), so it is
used when SciPy is installed. NumPy's FFT computes complex64 in double
precision, which is more accurate than TensorFlow and so differs from it by
TensorFlow's own rounding error (~1e-7 relative); it is the fallback.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core import (broadcast_ops, constant_ops, dim_ops, join_ops, math_ops, math_ops as M,
                    reduction_ops, shape_ops, unary_ops)
from ..core.creation_ops import range as _range
from ..core.gather_ops import gather
from ..core.repeat_unique_roll_ops import roll
from ..core.special_math_ops import real
from ..core.split_pad_ops import pad
from ..core.unary_ops import exp
from ..linalg.matmul_ops import matmul

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift", "fftnd", "ifftnd", "rfftnd",
           "irfftnd"]

_COMPLEX = (D.complex64, D.complex128)
_REAL = (D.float32, D.float64)
_fft_module = None


def _fft():
    """scipy.fft when installed (it rounds as TensorFlow does), else numpy.fft."""
    global _fft_module
    if _fft_module is None:
        try:
            import scipy.fft as mod
        except ImportError:  # pragma: no cover - depends on the environment
            mod = np.fft
        _fft_module = mod
    return _fft_module


def _check_rank(op, x, rank):
    if x.ndim < rank:
        raise U.op_error(op, f"Input must have rank of at least {rank} but got: "
                             f"{dims_text(x.shape)}")


def _fft_lengths(op, fft_length, rank):
    """The validated `fft_length` input of an RFFT/IRFFT op as ints."""
    fl = np.asarray(fft_length)
    if fl.shape != (rank,):
        raise U.op_error(op, f"fft_length must have shape [{rank}]")
    for i, n in enumerate(fl.tolist()):
        if n < 0:
            raise U.op_error(op, f"fft_length[{i}] must >= 0, but got: {n}")
    return [int(n) for n in fl]


# --- kernels ---------------------------------------------------------------------------

def _c2c_kernel(op, rank, inverse):
    def kernel(x, Tcomplex=None):
        _check_rank(op, x, rank)
        if x.size == 0:
            return x.copy()
        # TensorFlow transforms the innermost axis first; the order changes the
        # rounding of a float32 result.
        axes = tuple(range(-1, -rank - 1, -1))
        mod = _fft()
        out = (mod.ifftn if inverse else mod.fftn)(x, axes=axes)
        return np.asarray(out).astype(x.dtype, copy=False)
    return kernel


def _rfft_kernel(op, rank):
    def kernel(x, fft_length, Treal=None, Tcomplex=None):
        _check_rank(op, x, rank)
        s = _fft_lengths(op, fft_length, rank)
        cdt = np.result_type(x.dtype, np.complex64)
        shape = x.shape[:-rank] + tuple(s[:-1]) + (s[-1] // 2 + 1 if s[-1] else 0,)
        if x.size == 0 or 0 in s:
            return np.zeros(shape, cdt)
        # The input is cropped or zero-padded to fft_length on the FFT axes.
        out = _fft().rfftn(x, s=s, axes=tuple(range(-rank, 0)))
        return np.asarray(out).astype(cdt, copy=False)
    return kernel


def _irfft_kernel(op, rank):
    def kernel(x, fft_length, Treal=None, Tcomplex=None):
        _check_rank(op, x, rank)
        s = _fft_lengths(op, fft_length, rank)
        rdt = x.real.dtype
        shape = x.shape[:-rank] + tuple(s)
        if x.size == 0 or 0 in s:
            return np.zeros(shape, rdt)
        # Only fft_length[-1] // 2 + 1 inner values are read (the rest of the
        # spectrum is their conjugate mirror).
        out = _fft().irfftn(x, s=s, axes=tuple(range(-rank, 0)))
        return np.asarray(out).astype(rdt, copy=False)
    return kernel


# --- shape functions -------------------------------------------------------------------

def _rank_at_least(x, rank):
    r = x.shape.rank
    if r is not None and r < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {r}")


def _c2c_infer(rank):
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_graph_dtype(x, _COMPLEX, "input")
        _rank_at_least(x, rank)
        return [(x.shape, x.dtype)]
    return infer


def _real_infer(rank, forward):
    def infer(inputs, attrs):
        x, fl = inputs
        _rank_at_least(x, rank)
        if fl.shape.rank is not None and fl.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {fl.shape.rank}")
        if fl.shape.rank == 1 and fl.shape[0] is not None and fl.shape[0] != rank:
            raise ValueError(f"Dimension 0 in both shapes must be equal, but are "
                             f"{fl.shape[0]} and {rank}. Shapes are [{fl.shape[0]}] and "
                             f"[{rank}].")
        dtype = attrs["Tcomplex"] if forward else attrs["Treal"]
        if x.shape.rank is None:
            return [(TensorShape(None), dtype)]
        c = U.constant_value(fl)
        dims = list(x.shape)[:-rank]
        if c is None:
            dims += [None] * rank
        else:
            s = [int(v) for v in np.reshape(c, -1)]
            if forward:
                s[-1] = s[-1] // 2 + 1 if s[-1] else 0
            dims += s
        return [(TensorShape(dims), dtype)]
    return infer


# --- gradients (TensorFlow's) -------------------------------------------------------

def _inner_size(t, rank):
    """The number of elements in `t`'s `rank` innermost dimensions (int32)."""
    return reduction_ops.reduce_prod(shape_ops.shape(t)[-rank:])


def _c2c_grad(rank, inverse):
    def grad(op, g):
        n = _inner_size(g, rank)
        if inverse:
            # d ifft = fft(g) / n, the scale computed in the real dtype.
            scale = math_ops.cast(1. / math_ops.cast(n, g.dtype.real_dtype), g.dtype)
            return [_C2C[(rank, False)](g) * scale]
        return [_C2C[(rank, True)](g) * math_ops.cast(n, g.dtype)]
    return grad


def _rfft_grad(rank):
    """The gradient of RFFT/RFFT2D: the IRFFT of the gradient scaled by the
    input size, plus the terms that the half spectrum's dropped (conjugate)
    half would have contributed; as TensorFlow derives it, it assumes the
    input length equals fft_length."""
    def grad(op, g):
        fft_length = op.inputs[1]
        cdt = g.dtype
        in_shape = shape_ops.shape(op.inputs[0])
        is_even = M.cast(1 - (fft_length[-1] % 2), cdt)

        def alternating(n):  # [1, -1, 1, -1, ...]
            return M.cast(1 - 2 * (_range(n) % 2), cdt)

        y0 = g[..., 0:1]
        ym = g[..., -1:]
        if rank == 1:
            extra = y0 + is_even * ym * alternating(in_shape[-1])
        else:
            n = in_shape[-2]
            a = broadcast_ops.tile(dim_ops.expand_dims(_range(n), 0), (n, 1))
            twiddle = exp(-2j * np.pi * M.cast(a * dim_ops.transpose(a, [1, 0]), cdt)
                            / M.cast(n, cdt))
            lead = constant_ops.ones([shape_ops.rank(y0) - 2], D.int32)
            twiddle = broadcast_ops.tile(
                shape_ops.reshape(twiddle, join_ops.concat([lead, shape_ops.shape(twiddle)], 0)),
                join_ops.concat([shape_ops.shape(y0)[:-2], [1, 1]], 0))
            extra = matmul(twiddle, M.conj(y0))
            ym_term = matmul(twiddle, M.conj(ym))
            reps = join_ops.concat([constant_ops.ones([shape_ops.rank(g) - 1], D.int32),
                                    [in_shape[-1]]], 0)
            extra += is_even * broadcast_ops.tile(ym_term, reps) * alternating(in_shape[-1])
        size = M.cast(_inner_size(op.inputs[0], rank), cdt.real_dtype)
        back = _IRFFT_FN[rank](g, fft_length)
        return [0.5 * (back * size + real(extra)), None]
    return grad


def _irfft_grad(rank):
    """The gradient of IRFFT/IRFFT2D: the RFFT of the gradient divided by the
    output size, doubled for the bins that stand for two conjugate bins."""
    def grad(op, g):
        fft_length = op.inputs[1]
        c = U.constant_value(fft_length)
        if c is not None:
            fft_length = c
        rdt = g.dtype
        is_odd = M.floormod(fft_length[-1], 2)
        last = shape_ops.shape(op.inputs[0])[-1]
        mask = join_ops.concat([[1.0], 2.0 * constant_ops.ones([last - 2 + is_odd], rdt),
                         constant_ops.ones([1 - is_odd], rdt)], 0)
        rsize = unary_ops.reciprocal(M.cast(_inner_size(g, rank), rdt))
        spec = _RFFT_FN[rank](g, fft_length)
        return [spec * M.cast(rsize * mask, D.complex64 if rdt == D.float32 else D.complex128),
                None]
    return grad


_OPS = {}
for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    for _inv in (False, True):
        _name = ("IFFT" if _inv else "FFT") + _suffix
        _OPS[_name] = register(_name, _c2c_kernel(_name, _rank, _inv), _c2c_infer(_rank),
                               _c2c_grad(_rank, _inv), allowed=_COMPLEX)
    # TensorFlow registers no gradient for RFFT3D and IRFFT3D.
    _OPS["RFFT" + _suffix] = register(
        "RFFT" + _suffix, _rfft_kernel("RFFT" + _suffix, _rank), _real_infer(_rank, True),
        _rfft_grad(_rank) if _rank < 3 else None, allowed=_REAL)
    _OPS["IRFFT" + _suffix] = register(
        "IRFFT" + _suffix, _irfft_kernel("IRFFT" + _suffix, _rank),
        _real_infer(_rank, False), _irfft_grad(_rank) if _rank < 3 else None,
        allowed=_COMPLEX)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_fft(rank, kind):
    axes = tuple(range(-rank, 0))

    def rule(ctx, op, x, fft_length=None):
        jfft = XL.jnp.fft
        if kind == "c2c":
            return jfft.fftn(x, axes=axes)
        if kind == "ic2c":
            return jfft.ifftn(x, axes=axes)
        s = XL.ints(ctx.static(op, 1, fft_length))
        if kind == "r2c":
            return jfft.rfftn(x, s=s, axes=axes)
        return jfft.irfftn(x, s=s, axes=axes)
    return rule


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    XL.set_lowerings({"FFT" + _suffix: _lower_fft(_rank, "c2c"),
                      "IFFT" + _suffix: _lower_fft(_rank, "ic2c"),
                      "RFFT" + _suffix: _lower_fft(_rank, "r2c"),
                      "IRFFT" + _suffix: _lower_fft(_rank, "c2r")})


# --- public functions ------------------------------------------------------------------

def _complex_input(value):
    """Converts the input of an FFT op as TensorFlow's eager fast path does: a
    NumPy complex array is cast to the ops' default dtype, complex64."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        x = convert_to_tensor(value)
        if x.dtype == D.complex128 and _context.state.graph is None:
            return convert_to_tensor(value.astype(np.complex64))
        return x
    x = convert_to_tensor(value)
    if x.dtype in (D.float32, D.int32):  # plain Python numbers
        return convert_to_tensor(value, dtype=D.complex64)
    return x


def _c2c_public(op_name, doc):
    opdef = _OPS[op_name]

    def fn(input, name=None):  # noqa: A002 - TensorFlow's argument name
        x = _complex_input(input)
        if x.dtype not in _COMPLEX:
            raise U.dtype_error(op_name, x.dtype, _COMPLEX, attr="Tcomplex")
        return apply(opdef, [x], {"Tcomplex": x.dtype}, name=name or op_name)
    fn.__name__ = fn.__qualname__ = op_name.lower()
    fn.__doc__ = doc
    return fn


_DOC = ("The {kind} discrete Fourier transform over the innermost {n} dimension(s) of a "
        "complex64 or complex128 tensor{scale}.")
fft = export("signal.fft")(_c2c_public("FFT", _DOC.format(
    kind="forward", n=1, scale="")))
ifft = export("signal.ifft")(_c2c_public("IFFT", _DOC.format(
    kind="inverse", n=1, scale=", scaled by 1/n")))
fft2d = export("signal.fft2d")(_c2c_public("FFT2D", _DOC.format(
    kind="forward", n=2, scale="")))
ifft2d = export("signal.ifft2d")(_c2c_public("IFFT2D", _DOC.format(
    kind="inverse", n=2, scale=", scaled by 1/n")))
fft3d = export("signal.fft3d")(_c2c_public("FFT3D", _DOC.format(
    kind="forward", n=3, scale="")))
ifft3d = export("signal.ifft3d")(_c2c_public("IFFT3D", _DOC.format(
    kind="inverse", n=3, scale=", scaled by 1/n")))
_C2C = {(1, False): fft, (1, True): ifft, (2, False): fft2d, (2, True): ifft2d,
        (3, False): fft3d, (3, True): ifft3d}


def _default_fft_length(x, rank, inverse):
    """fft_length from the input's shape: its inner dims (for an inverse
    transform the last is 2 * (n - 1), the even length the half spectrum
    came from)."""
    dims = x.shape[-rank:]
    if dims.is_fully_defined():
        s = dims.as_list()
        if inverse:
            s[-1] = max(0, 2 * (s[-1] - 1))
        return convert_to_tensor(np.array(s, np.int32))
    s = shape_ops.shape(x)[-rank:]
    if inverse:
        s = join_ops.concat([s[:-1], [M.maximum(0, 2 * (s[-1] - 1))]], 0)
    return s


def _pad_to(x, rank, fft_length, inverse):
    """Zero-pads `x`'s inner dims up to fft_length (the last to n // 2 + 1 for
    an inverse transform); longer inputs are cropped by the op itself."""
    if x.shape.rank is not None and 0 in x.shape.as_list():
        return x  # TensorFlow leaves empty inputs alone
    c = U.constant_value(fft_length)
    if c is not None and x.shape.rank is not None and x.shape[-rank:].is_fully_defined():
        want = [int(v) for v in np.reshape(c, -1)]
        if inverse:
            want[-1] = want[-1] // 2 + 1
        extra = [max(w - d, 0) for w, d in zip(want, x.shape[-rank:].as_list())]
        if not any(extra):
            return x
        outer = [[0, 0]] * max(x.shape.rank - rank, 0)
        return pad(x, outer + [[0, e] for e in extra])
    want = fft_length
    if inverse:
        want = join_ops.concat([fft_length[:-1], [fft_length[-1] // 2 + 1]], 0)
    extra = M.maximum(want - shape_ops.shape(x)[-rank:], 0)
    outer = constant_ops.zeros([shape_ops.rank(x) - rank], D.int32)
    paddings = join_ops.stack([join_ops.concat([outer, constant_ops.zeros_like(extra)], 0),
                        join_ops.concat([outer, extra], 0)], axis=1)
    return pad(x, paddings)


def _real_public(op_name, rank, inverse):
    opdef = _OPS[op_name]

    def fn(input_tensor, fft_length=None, name=None):
        if inverse:
            x = convert_to_tensor(input_tensor, dtype_hint=D.complex64)
            x.shape.with_rank_at_least(rank)
            if x.dtype not in _COMPLEX:
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, "
                                 f"got: {x}")
            cdt, rdt = x.dtype, x.dtype.real_dtype
        else:
            x = convert_to_tensor(input_tensor, dtype_hint=D.float32)
            if x.dtype not in _REAL:
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
            x.shape.with_rank_at_least(rank)
            rdt = x.dtype
            cdt = D.complex64 if rdt == D.float32 else D.complex128
        if fft_length is None:
            fft_length = _default_fft_length(x, rank, inverse)
        else:
            fft_length = convert_to_tensor(fft_length, D.int32)
        x = _pad_to(x, rank, fft_length, inverse)
        return apply(opdef, [x, fft_length], {"Treal": rdt, "Tcomplex": cdt},
                     name=name or op_name.lower())
    fn.__name__ = fn.__qualname__ = op_name.lower()
    if inverse:
        fn.__doc__ = (f"The inverse of `rfft{'' if rank == 1 else '%dd' % rank}`: the real "
                      f"signal of length `fft_length` on the innermost {rank} dimension(s) "
                      f"whose half spectrum is the input (default length 2 * (n - 1)).")
    else:
        fn.__doc__ = (f"The discrete Fourier transform of a real signal over its innermost "
                      f"{rank} dimension(s), zero-padded or cropped to `fft_length`; only "
                      f"the fft_length[-1] // 2 + 1 non-redundant inner terms are returned.")
    return fn


rfft = export("signal.rfft")(_real_public("RFFT", 1, False))
irfft = export("signal.irfft")(_real_public("IRFFT", 1, True))
rfft2d = export("signal.rfft2d")(_real_public("RFFT2D", 2, False))
irfft2d = export("signal.irfft2d")(_real_public("IRFFT2D", 2, True))
rfft3d = export("signal.rfft3d")(_real_public("RFFT3D", 3, False))
irfft3d = export("signal.irfft3d")(_real_public("IRFFT3D", 3, True))
_RFFT_FN = {1: rfft, 2: rfft2d}
_IRFFT_FN = {1: irfft, 2: irfft2d}


def _shift(x, axes, sign, name):
    x = convert_to_tensor(x)
    static = x.shape.rank is not None and x.shape.is_fully_defined()
    if axes is None:
        axes = list(range(x.shape.rank))
        shift = [d // 2 for d in x.shape.as_list()] if static else shape_ops.shape(x) // 2
    elif isinstance(axes, (int, np.integer)):
        shift = x.shape[axes] // 2 if static else shape_ops.shape(x)[axes] // 2
    else:
        if static:
            dims = x.shape.as_list()
            shift = [dims[a] // 2 for a in axes]
        else:
            r = shape_ops.rank(x)
            ax = convert_to_tensor(axes, dtype=D.int32)
            shift = gather(shape_ops.shape(x), broadcast_ops.where(ax < 0, ax + r, ax)) // 2
    if sign < 0:
        shift = [-s for s in shift] if isinstance(shift, list) else -shift
    return roll(x, shift, axes, name=name)


@export("signal.fftshift")
def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre of the spectrum: rolls each
    of `axes` (default all) by half its length."""
    return _shift(x, axes, 1, name)


@export("signal.ifftshift")
def ifftshift(x, axes=None, name=None):
    """The inverse of `fftshift`: rolls each of `axes` back by half its length."""
    return _shift(x, axes, -1, name)


# --- N-dimensional transforms: FFTND, IFFTND, RFFTND, IRFFTND -------------------------
#
# TensorFlow 2.21 registers these ops' kernels for GPUs only (on a CPU build
# they fail with NotFoundError); rillflow computes them on the CPU with the
# GPU kernel's checks and shapes: the axes must be successive, ascending and
# end at the last axis, and fft_length gives the length of each of them.
# TensorFlow registers no gradients for them.

def _nd_checks(op, x, fft_length, axes, real, forward):
    """The validated transform lengths and (non-negative) axes, and the output
    shape, as the FFTND kernels compute them."""
    ax = np.asarray(axes).reshape(-1)
    fft_rank = ax.shape[0]
    rank = x.ndim
    if rank < fft_rank:
        raise U.op_error(op, f"Input must have rank of at least {fft_rank} but got: "
                             f"{dims_text(x.shape)}")
    norm_axes = []
    for i, a in enumerate(ax.tolist()):
        norm_axes.append(a + rank if a < 0 else a)
        if i > 0 and norm_axes[i - 1] + 1 != norm_axes[i]:
            raise U.op_error(op, "axes must be successive and ascending.")
    if fft_rank and norm_axes[-1] != rank - 1:
        raise U.op_error(op, "The last axis to perform transform on must be -1.")
    fl = np.asarray(fft_length)
    if fl.ndim != 1 or fl.shape[0] != fft_rank:
        got = fl.shape[0] if fl.ndim >= 1 else 0
        raise U.op_error(op, f"fft_length must have shape [{fft_rank}], but got: {got}.")
    s = [int(n) for n in fl.tolist()]
    out_shape = list(x.shape)
    for i, n in enumerate(s):
        if n < 0:
            raise U.op_error(op, f"fft_length[{i}] must >= 0, but got: {n}")
        index = rank - fft_rank + i
        if real:
            inner = i == fft_rank - 1
            least = n // 2 + 1 if (not forward and inner) else n
            if x.shape[index] != 0 and x.shape[index] < least:
                raise U.op_error(op, f"Input dimension {index} must have length of at "
                                     f"least {least} but got: {x.shape[index]}")
            out_shape[index] = n // 2 + 1 if (forward and inner and n) else n
        else:
            out_shape[index] = n
    return s, tuple(range(rank - fft_rank, rank)), tuple(out_shape)


def _nd_kernel(op, real, forward):
    def kernel(x, fft_length, axes, Tcomplex=None, Treal=None):
        s, ax, out_shape = _nd_checks(op, x, fft_length, axes, real, forward)
        if real and forward:
            dt = np.result_type(x.dtype, np.complex64)
        elif real:
            dt = x.real.dtype
        else:
            dt = x.dtype
        if x.size == 0 or 0 in out_shape or not s:
            return np.zeros(out_shape, dt) if (x.size == 0 or 0 in out_shape) else \
                x.astype(dt)
        mod = _fft()
        if not real:
            out = (mod.fftn if forward else mod.ifftn)(x, s=s, axes=ax)
        elif forward:
            out = mod.rfftn(x, s=s, axes=ax)
        else:
            out = mod.irfftn(x, s=s, axes=ax)
        return np.asarray(out).astype(dt, copy=False)
    return kernel


def _nd_infer(real, forward):
    def infer(inputs, attrs):
        x, fl, axes = inputs
        if real and forward:
            dtype = attrs["Tcomplex"]
        elif real:
            dtype = attrs["Treal"]
        else:
            U.check_graph_dtype(x, _COMPLEX, "input")
            dtype = x.dtype
        fl_c, ax_c = U.constant_value(fl), U.constant_value(axes)
        if x.shape.rank is None or fl_c is None or ax_c is None:
            rank = x.shape.rank
            return [(TensorShape(None if rank is None else [None] * rank), dtype)]
        dims = list(x.shape)
        s = [int(v) for v in np.reshape(fl_c, -1)]
        k = len(s)
        for i, n in enumerate(s):
            if real and forward and i == k - 1:
                n = n // 2 + 1 if n else 0
            dims[len(dims) - k + i] = n
        return [(TensorShape(dims), dtype)]
    return infer


for _name, _real, _fwd, _allowed in (("FFTND", False, True, _COMPLEX),
                                     ("IFFTND", False, False, _COMPLEX),
                                     ("RFFTND", True, True, _REAL),
                                     ("IRFFTND", True, False, _COMPLEX)):
    _OPS[_name] = register(_name, _nd_kernel(_name, _real, _fwd), _nd_infer(_real, _fwd),
                           None, allowed=_allowed)


def _raw_nd(op_name, real, forward):
    """tf.fftnd and friends: the ops called directly (input, fft_length, axes)."""
    opdef = _OPS[op_name]

    if real and forward:
        def fn(input, fft_length, axes, Tcomplex=D.complex64, name=None):  # noqa: A002
            x = convert_to_tensor(input)
            attrs = {"Treal": x.dtype, "Tcomplex": D.as_dtype(Tcomplex)}
            return apply(opdef, [x, convert_to_tensor(fft_length, D.int32),
                                 convert_to_tensor(axes, D.int32)], attrs,
                         name=name or op_name)
    elif real:
        def fn(input, fft_length, axes, Treal=D.float32, name=None):  # noqa: A002
            x = convert_to_tensor(input)
            attrs = {"Treal": D.as_dtype(Treal), "Tcomplex": x.dtype}
            return apply(opdef, [x, convert_to_tensor(fft_length, D.int32),
                                 convert_to_tensor(axes, D.int32)], attrs,
                         name=name or op_name)
    else:
        def fn(input, fft_length, axes, name=None):  # noqa: A002
            x = convert_to_tensor(input)
            if x.dtype not in _COMPLEX:
                raise U.dtype_error(op_name, x.dtype, _COMPLEX, attr="Tcomplex")
            return apply(opdef, [x, convert_to_tensor(fft_length, D.int32),
                                 convert_to_tensor(axes, D.int32)], {"Tcomplex": x.dtype},
                         name=name or op_name)
    fn.__name__ = fn.__qualname__ = op_name.lower()
    fn.__doc__ = (f"The {op_name} op: an N-dimensional {'real ' if real else ''}"
                  f"{'forward' if forward else 'inverse'} FFT over `axes` (successive, "
                  f"ending at the last axis) with lengths `fft_length`.")
    return fn


_raw_fftnd = export("fftnd")(_raw_nd("FFTND", False, True))
_raw_ifftnd = export("ifftnd")(_raw_nd("IFFTND", False, False))
_raw_rfftnd = export("rfftnd")(_raw_nd("RFFTND", True, True))
_raw_irfftnd = export("irfftnd")(_raw_nd("IRFFTND", True, False))


def _nd_public(raw, kind):
    """tf.signal.fftnd and friends: TensorFlow's wrappers, which default the
    axes to all of the input's, fft_length to the input's whole shape (for
    irfftnd the last entry is 2 * (n - 1)), zero-pad the innermost
    len(axes) dims up to fft_length and apply `norm` by scaling the input."""
    inverse = kind in ("ifft", "irfft")

    def fn(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        if axes is None:
            rank = np.ndim(input_tensor) if not isinstance(input_tensor, Tensor) \
                else input_tensor.shape.rank
            axes = convert_to_tensor(np.arange(rank), D.int32)
        else:
            axes = convert_to_tensor(axes, D.int32)
        fft_rank = axes.shape[0]
        hint = D.float32 if kind == "rfft" else D.complex64
        x = convert_to_tensor(input_tensor, dtype_hint=hint)
        if kind == "rfft" and x.dtype not in _REAL:
            raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
        x.shape.with_rank_at_least(fft_rank)
        if kind == "irfft" and x.dtype not in _COMPLEX:
            raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}")
        if fft_length is None:
            if kind == "irfft":
                s = x.shape.as_list()
                s[-1] = max(0, 2 * (s[-1] - 1))
                fft_length = convert_to_tensor(s, D.int32)
            else:
                fft_length = shape_ops.shape(x)[-len(x.shape):]
        else:
            fft_length = convert_to_tensor(fft_length, D.int32)
        x = _pad_to(x, fft_rank, fft_length, kind == "irfft")
        c = U.constant_value(fft_length)
        if c is not None:
            fft_length = np.asarray(c)
        if norm not in (None, "backward"):
            n = 1
            for v in np.reshape(np.asarray(fft_length), -1).tolist():
                n *= v
            if norm == "forward":
                x = x * n if inverse else x / n
            elif norm == "ortho":
                x = x * np.sqrt(n) if inverse else x / np.sqrt(n)
        if kind == "rfft":
            cdt = D.complex64 if x.dtype == D.float32 else D.complex128
            return raw(x, fft_length, axes, Tcomplex=cdt, name=name or "rfftnd")
        if kind == "irfft":
            return raw(x, fft_length, axes, Treal=x.dtype.real_dtype, name=name or "irfftnd")
        return raw(x, fft_length, axes, name=name or kind + "nd")
    fn.__name__ = fn.__qualname__ = kind + "nd"
    fn.__doc__ = (f"The N-dimensional {'inverse ' if inverse else ''}"
                  f"{'real ' if 'r' in kind else ''}discrete Fourier transform over `axes` "
                  f"(default all; they must be successive and end at the last axis), the "
                  f"input zero-padded to `fft_length` (default its shape); `norm` is "
                  f"'backward' (default), 'forward' or 'ortho'.")
    return fn


fftnd = export("signal.fftnd")(_nd_public(_raw_fftnd, "fft"))
ifftnd = export("signal.ifftnd")(_nd_public(_raw_ifftnd, "ifft"))
rfftnd = export("signal.rfftnd")(_nd_public(_raw_rfftnd, "rfft"))
irfftnd = export("signal.irfftnd")(_nd_public(_raw_irfftnd, "irfft"))

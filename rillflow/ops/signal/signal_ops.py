"""Framing and spectrograms: `tf.signal.frame`, `overlap_and_add`, `stft`,
`inverse_stft`, `inverse_stft_window_fn`, `linear_to_mel_weight_matrix`,
`dct`/`idct` and `mfccs_from_log_mel_spectrograms`.

Everything is composed of public ops (gather, pad, reshape, rfft, ...) in
TensorFlow's order and dtypes, so values round as TensorFlow's do, gradients
come for free and graphs hold ordinary ops.
"""
import math

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..core import op_util as U
from ..core.shape_ops import reshape, shape as _shape
from ..core.join_ops import concat
from ..core.dim_ops import expand_dims, transpose
from ..core.broadcast_ops import tile
from ..core.creation_ops import linspace, range as _range
from .fft_ops import irfft, rfft
from ..core.math_ops import cast, maximum, minimum
from ..core.reduction_ops import reduce_sum
from ..core.split_pad_ops import pad, split
from ..core.gather_ops import gather
from ..core.special_math_ops import real
from ..core.unary_ops import exp, log, rsqrt, sqrt, square
from .window_ops import hann_window
from ..core.constant_ops import zeros
from ..core.math_ops import pow as _pow
from ..core.shape_ops import rank
from ..core.special_math_ops import complex as _complex
from ..core.unary_ops import ceil

__all__ = ["frame", "overlap_and_add", "stft", "inverse_stft", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "dct", "idct", "mfccs_from_log_mel_spectrograms"]


def _scalar_arg(value, name):
    """`value` as a tensor, which must be a scalar (TF's rank error otherwise)."""
    t = convert_to_tensor(value, name=name)
    t.shape.assert_has_rank(0)
    return t


def _static_int(t):
    c = U.constant_value(t)
    return None if c is None else int(c)


@export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Slides a window of `frame_length` samples, `frame_step` apart, over
    `axis` of `signal`: that axis becomes [frames, frame_length]. With
    `pad_end` the end is padded with `pad_value` so every sample is framed."""
    signal = convert_to_tensor(signal)
    frame_length = convert_to_tensor(frame_length)
    frame_step = convert_to_tensor(frame_step)
    signal.shape.with_rank_at_least(1)
    for t in (frame_length, frame_step):
        t.shape.assert_has_rank(0)
    axis = int(U.constant_value(axis)) if isinstance(axis, Tensor) else int(axis)
    rank = signal.shape.rank
    if axis < 0 and rank is not None:
        axis += rank
    fl, fs = _static_int(frame_length), _static_int(frame_step)
    length = signal.shape[axis] if rank is not None else None
    if fl is not None and fs is not None and length is not None:
        extra = 0
        if pad_end:
            frames = -(-length // fs)
            extra = max(0, fl + fs * (frames - 1) - length)
            if extra:
                paddings = [[0, 0]] * rank
                paddings[axis] = [0, extra]
                signal = pad(signal, paddings, constant_values=pad_value)
        else:
            frames = max(0, 1 + (length - fl) // fs)
        # Cut the signal into blocks of gcd(length, step) samples and gather
        # blocks (as TensorFlow does): gradients then come back dense through
        # the reshape rather than as IndexedSlices of the signal.
        sub = math.gcd(fl, fs)
        blocks = (length + (extra if pad_end else 0)) // sub
        dims = signal.shape.as_list() if signal.shape.is_fully_defined() else None
        if dims is None or fl == 0 or sub == 0:
            index = (np.arange(frames, dtype=np.int32)[:, None] * fs
                     + np.arange(fl, dtype=np.int32)[None, :])
            return gather(signal, index, axis=axis)
        begin = [slice(None)] * rank
        begin[axis] = slice(0, blocks * sub)
        sub_shape = dims[:axis] + [blocks, sub] + dims[axis + 1:]
        pieces = reshape(signal[tuple(begin)], sub_shape)
        index = (np.arange(frames, dtype=np.int32)[:, None] * (fs // sub)
                 + np.arange(fl // sub, dtype=np.int32)[None, :])
        out = gather(pieces, index, axis=axis)
        return reshape(out, dims[:axis] + [frames, fl] + dims[axis + 1:])
    # Lengths known only at run time.
    length = _shape(signal)[axis]
    frame_length = cast(frame_length, D.int32)
    frame_step = cast(frame_step, D.int32)
    if pad_end:
        frames = -(-length // frame_step)
        extra = maximum(0, frame_length + frame_step * (frames - 1) - length)
        r = signal.shape.rank
        paddings = [[0, 0]] * axis + [[0, extra]] + [[0, 0]] * (r - axis - 1)
        signal = pad(signal, paddings, constant_values=pad_value)
    else:
        frames = maximum(0, 1 + (length - frame_length) // frame_step)
    index = (expand_dims(_range(frames), 1) * frame_step + expand_dims(_range(frame_length), 0))
    return gather(signal, index, axis=axis)


@export("signal.overlap_and_add")
def overlap_and_add(signal, frame_step, name=None):
    """The inverse of `frame`: sums frames [..., frames, frame_length] placed
    `frame_step` apart into a signal of frame_length + (frames - 1) * step.

    Raises:
      ValueError: for a signal of rank below 2 or a non-scalar step.
    """
    signal = convert_to_tensor(signal, name="signal")
    signal.shape.with_rank_at_least(2)
    frame_step = _scalar_arg(frame_step, "frame_step")
    if not frame_step.dtype.is_integer:
        raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
    shape = _shape(signal)
    outer = shape[:-2]
    outer_rank = signal.shape.rank - 2 if signal.shape.rank is not None else None
    frames, length = shape[-2], shape[-1]
    fs = frame_step = cast(frame_step, D.int32)
    static = [signal.shape[-2], signal.shape[-1], _static_int(frame_step)]
    if None not in static:
        frames, length, fs = static
    out_len = length + fs * (frames - 1)
    if static[1] is not None and static[1] == static[2]:
        return reshape(signal, concat([outer, [-1]], 0))
    # Pad each frame to whole steps and add the shifted copies: frames are cut
    # into `segments` blocks of one step, and block k of frame f lands on step
    # f + k of the output.
    segments = -(-length // fs)
    paddings = concat([np.zeros([outer_rank, 2], np.int32),
                       [[0, segments], [0, segments * fs - length]]], 0)
    signal = pad(signal, paddings)
    signal = reshape(signal, concat([outer, [frames + segments, segments, fs]], 0))
    perm = concat([np.arange(outer_rank, dtype=np.int32), outer_rank + np.array([1, 0, 2],
                                                                              np.int32)], 0)
    signal = transpose(signal, perm)
    signal = reshape(signal, concat([outer, [(frames + segments) * segments, fs]], 0))
    signal = signal[..., :(frames + segments - 1) * segments, :]
    signal = reshape(signal, concat([outer, [segments, frames + segments - 1, fs]], 0))
    signal = reduce_sum(signal, -3)
    signal = reshape(signal, concat([outer, [(frames + segments - 1) * fs]], 0))
    return signal[..., :out_len]


def _enclosing_power_of_two(value):
    c = U.constant_value(value)
    if c is not None:
        return convert_to_tensor(int(2 ** np.ceil(np.log(c) / np.log(2.0))), value.dtype)
    return cast(_pow(2.0, ceil(log(cast(value, D.float32)) / log(2.0))), value.dtype)


@export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """The short-time Fourier transform of real `signals` [..., samples]:
    [..., frames, fft_length // 2 + 1] complex spectra of windowed frames
    (fft_length defaults to the smallest power of two >= frame_length)."""
    signals = convert_to_tensor(signals, name="signals")
    signals.shape.with_rank_at_least(1)
    frame_length = _scalar_arg(frame_length, "frame_length")
    frame_step = _scalar_arg(frame_step, "frame_step")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(frame_length)
    else:
        fft_length = convert_to_tensor(fft_length, name="fft_length")
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    return rfft(framed, [fft_length] if U.constant_value(fft_length) is None
                else [int(U.constant_value(fft_length))])


@export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for `inverse_stft` that undoes `forward_window_fn`:
    the forward window divided by the sum of its overlapping squares
    (Griffin and Lim's least-squares inverse)."""
    def inverse_window(frame_length, dtype):
        step = _scalar_arg(frame_step, "frame_step")
        frame_length = _scalar_arg(frame_length, "frame_length")
        forward = forward_window_fn(frame_length, dtype=dtype)
        denom = square(forward)
        overlaps = -(-frame_length // step)
        denom = pad(denom, [(0, overlaps * step - frame_length)])
        denom = reshape(denom, [overlaps, step])
        denom = reduce_sum(denom, 0, keepdims=True)
        denom = tile(denom, [overlaps, 1])
        denom = reshape(denom, [overlaps * step])
        return forward / denom[:frame_length]
    return inverse_window


@export("signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Reconstructs signals from `stft` output: the IRFFT of each frame,
    cropped or zero-padded to frame_length, windowed and overlap-added (pass
    `inverse_stft_window_fn(frame_step)` to invert a Hann-windowed STFT)."""
    stfts = convert_to_tensor(stfts, name="stfts")
    stfts.shape.with_rank_at_least(2)
    frame_length = _scalar_arg(frame_length, "frame_length")
    frame_step = _scalar_arg(frame_step, "frame_step")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(frame_length)
    else:
        fft_length = _scalar_arg(fft_length, "fft_length")
    fl_const = U.constant_value(fft_length)
    frames = irfft(stfts, [fft_length] if fl_const is None else [int(fl_const)])
    fl = _static_int(frame_length)
    inner = frames.shape[-1] if frames.shape.rank is not None else None
    if fl is None or inner is None:
        frames = frames[..., :frame_length]
        paddings = concat([zeros([rank(frames) - 1, 2], D.int32),
                           [[0, maximum(0, cast(frame_length, D.int32) - _shape(frames)[-1])]]],
                          0)
        frames = pad(frames, paddings)
    elif inner > fl:
        frames = frames[..., :fl]
    elif inner < fl:
        frames = pad(frames, [[0, 0]] * (frames.shape.rank - 1) + [[0, fl - inner]])
    if window_fn is not None:
        frames = frames * window_fn(frame_length, dtype=stfts.dtype.real_dtype)
    return overlap_and_add(frames, frame_step)


# --- mel scale ---------------------------------------------------------------------

def _hertz_to_mel(hz):
    """HTK's mel scale: 1127 ln(1 + f / 700)."""
    return 1127.0 * log(1.0 + (hz / 700.0))


@export("signal.linear_to_mel_weight_matrix")
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=D.float32, name=None):
    """A [num_spectrogram_bins, num_mel_bins] matrix taking linear-frequency
    magnitudes to mel bands: triangular filters evenly spaced on the mel
    scale between the edges (HTK's convention; the DC bin gets no weight).

    Raises:
      ValueError: for a non-positive bin count or sample rate, edges out of
        order or above the Nyquist frequency, or a non-floating dtype.
    """
    dtype = D.as_dtype(dtype)
    if isinstance(sample_rate, Tensor) and U.constant_value(sample_rate) is not None:
        sample_rate = U.constant_value(sample_rate)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f"
                         % (lower_edge_hertz, upper_edge_hertz))
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                             f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                             f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
    sample_rate = cast(sample_rate, dtype)
    lower = convert_to_tensor(lower_edge_hertz, dtype)
    upper = convert_to_tensor(upper_edge_hertz, dtype)
    zero = convert_to_tensor(0.0, dtype)
    freqs = linspace(zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
    bins_mel = expand_dims(_hertz_to_mel(freqs), 1)
    # num_mel_bins + 2 mel points: band k spans points k, k + 1 (its centre), k + 2.
    edges = frame(linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2),
                  frame_length=3, frame_step=1)
    lo, mid, hi = (reshape(t, [1, num_mel_bins]) for t in split(edges, 3, axis=1))
    rising = (bins_mel - lo) / (mid - lo)
    falling = (hi - bins_mel) / (hi - mid)
    weights = maximum(zero, minimum(rising, falling))
    return pad(weights, [[1, 0], [0, 0]])


# --- discrete cosine transforms ----------------------------------------------------

def _check_dct(x, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = convert_to_tensor(x).shape
        if last.rank is not None and last[-1] is not None and last[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _ramp_weights(first, rest, size):
    """[first, rest, rest, ...] of length `size`."""
    return pad(expand_dims(first, 0), [[0, size - 1]], constant_values=rest)


@export("signal.dct")
def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The discrete cosine transform (types I-IV) of the innermost axis,
    computed with RFFTs; `n` crops or zero-pads the input, `norm='ortho'`
    makes types II-IV orthonormal."""
    _check_dct(input, type, n, axis, norm)
    x = convert_to_tensor(input)
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    size = x.shape[-1] if x.shape.rank is not None and x.shape[-1] else _shape(x)[-1]
    if n is not None:
        if n <= size:
            x = x[..., 0:n]
        else:
            x = pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - size]])
    size = x.shape[-1] if x.shape.rank is not None and x.shape[-1] else _shape(x)[-1]
    size_f = cast(size, x.dtype)
    if type == 1:
        return real(rfft(concat([x, x[..., -2:0:-1]], axis=-1)))
    if type == 2:
        scale = 2.0 * exp(_complex(zero, -_range(size_f) * math.pi * 0.5 / size_f))
        out = real(rfft(x, fft_length=[2 * size])[..., :size] * scale)
        if norm == "ortho":
            n1 = 0.5 * rsqrt(size_f)
            out = out * _ramp_weights(n1, n1 * math.sqrt(2.0), size)
        return out
    if type == 3:
        if norm == "ortho":
            n1 = sqrt(size_f)
            x = x * _ramp_weights(n1, n1 * math.sqrt(0.5), size)
        else:
            x = x * size_f
        scale = 2.0 * exp(_complex(zero, _range(size_f) * math.pi * 0.5 / size_f))
        return real(irfft(scale * _complex(x, zero), fft_length=[2 * size]))[..., :size]
    # Type IV: the odd terms of the type-II DCT of the signal zero-padded to 2N.
    out = dct(x, type=2, n=2 * size, axis=axis, norm=None)[..., 1::2]
    if norm == "ortho":
        out = out * (math.sqrt(0.5) * rsqrt(size_f))
    return out


@export("signal.idct")
def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT: `dct` of the inverse type (II <-> III; I and IV are
    their own inverses up to scale, exact with norm='ortho')."""
    _check_dct(input, type, n, axis, norm)
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm,
               name=name)


@export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: the orthonormal type-II DCT of
    log-mel spectrograms [..., num_mel_bins] (HTK's scaling).

    Raises:
      ValueError: if the innermost dimension is statically 0.
    """
    x = convert_to_tensor(log_mel_spectrograms, dtype=D.float32)
    if x.shape.rank and x.shape[-1] is not None:
        bins = x.shape[-1]
        if bins == 0:
            raise ValueError("num_mel_bins must be positive. Got: %s" % (x,))
    else:
        bins = _shape(x)[-1]
    out = dct(x, type=2)
    return out * rsqrt(cast(bins, out.dtype) * 2.0)

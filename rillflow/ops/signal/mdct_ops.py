"""The modified discrete cosine transform: `tf.signal.mdct` and
`tf.signal.inverse_mdct`.

Both are compositions of public ops (frame, split, reverse, concat, dct of
type IV, overlap_and_add) in TensorFlow's order, so values round as
TensorFlow's do and gradients come from the ops.
"""
import numpy as np

from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..core import op_util as U
from ..core.gather_ops import reverse
from ..core.join_ops import concat
from ..core.math_ops import cast
from ..core.split_pad_ops import split
from ...framework import dtypes as D
from .signal_ops import dct, frame, overlap_and_add
from .window_ops import vorbis_window

__all__ = ["mdct", "inverse_mdct"]


def _check_norm(norm):
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


@export("signal.mdct")
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None):
    """The MDCT of `[..., samples]` real signals: frames of `frame_length`
    (a multiple of 4) samples, half a frame apart, windowed by `window_fn`
    (None: a flat window of 1/sqrt(2)), folded to half length and transformed
    by a type-IV DCT; the result is `[..., frames, frame_length // 2]`."""
    signals = convert_to_tensor(signals)
    signals.shape.with_rank_at_least(1)
    frame_length = convert_to_tensor(frame_length)
    frame_length.shape.assert_has_rank(0)
    static = U.constant_value(frame_length)
    if static is not None:
        if int(static) % 4 != 0:
            raise ValueError("The frame length must be a multiple of 4.")
        frame_step = convert_to_tensor(int(static) // 2, dtype=frame_length.dtype)
    else:
        frame_step = frame_length // 2
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    else:
        framed = framed * (1.0 / np.sqrt(2))
    # The four quarters (a, b, c, d) fold to (-c_r - d, a - b_r), the input
    # of the type-IV DCT that the MDCT is.
    a, b, c, d = split(framed, 4, axis=-1)
    folded = concat((-reverse(c, [-1]) - d, a - reverse(b, [-1])), axis=-1)
    return dct(folded, type=4, norm=norm)


@export("signal.inverse_mdct")
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of `mdct`: `[..., frames, frame_length // 2]` MDCTs back to
    `[..., samples]` signals, `(frames - 1) * (frame_length // 2) +
    frame_length` long; a window satisfying the Princen-Bradley condition
    (vorbis, Kaiser-Bessel-derived, or None on both sides) reconstructs the
    framed part of the signal exactly."""
    mdcts = convert_to_tensor(mdcts)
    mdcts.shape.with_rank_at_least(2)
    half_len = cast(mdcts.shape[-1], dtype=D.int32)
    if norm is None:
        half_len_float = cast(half_len, dtype=mdcts.dtype)
        unfolded = (0.5 / half_len_float) * dct(mdcts, type=4)
    elif norm == "ortho":
        unfolded = dct(mdcts, type=4, norm="ortho")
    else:
        _check_norm(norm)
    first, second = split(unfolded, 2, axis=-1)
    frames = concat((second, -reverse(second, [-1]), -reverse(first, [-1]), -first), axis=-1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half_len, dtype=mdcts.dtype)
    else:
        frames = frames * (1.0 / np.sqrt(2))
    return overlap_and_add(frames, half_len)

"""`tf.audio`: 16-bit PCM WAV files (TensorFlow's wav_io.cc): `decode_wav`
gives float32 samples in [-1, 1) (int16 / 32768) and the sample rate;
`encode_wav` rounds samples * 32768 half away from zero and clamps to int16."""
import collections
import struct

import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n, what="string"):
        if self.pos + n > len(self.data):
            raise _invalid(f"Data too short when trying to read {what}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u32(self):
        return struct.unpack("<I", self.take(4, "uint32"))[0]

    def u16(self):
        return struct.unpack("<H", self.take(2, "uint16"))[0]


def _parse(data):
    r = _Reader(data)
    if r.take(4) != b"RIFF":
        raise _invalid("Header mismatch: Expected RIFF but found " + repr(data[:4]))
    r.u32()
    if r.take(4) != b"WAVE":
        raise _invalid("Header mismatch: Expected WAVE")
    fmt = None
    while True:
        cid = r.take(4)
        size = r.u32()
        if cid == b"fmt ":
            body = _Reader(r.take(size))
            audio_format, channels, rate = body.u16(), body.u16(), body.u32()
            body.u32()
            body.u16()
            bits = body.u16()
            if audio_format != 1:
                raise _invalid(f"Bad audio format {audio_format}. Expected 1 (PCM)")
            if bits != 16:
                raise _invalid(f"Can only read 16-bit WAV files, but received {bits}")
            if channels == 0:
                raise _invalid("Bad number of channels: 0")
            fmt = (channels, rate)
        elif cid == b"data":
            if fmt is None:
                raise _invalid("Found data chunk before format chunk")
            raw = r.take(size - size % (2 * fmt[0]))
            samples = np.frombuffer(raw, "<i2").reshape(-1, fmt[0])
            return samples, fmt[1]
        else:
            r.take(size + (size & 1))


def _decode_kernel(contents, desired_channels=-1, desired_samples=-1):
    data = bytes(contents.item() if isinstance(contents, np.ndarray) else contents)
    samples, rate = _parse(data)
    audio = samples.astype(np.float32) / np.float32(32768)
    ch = audio.shape[1] if desired_channels == -1 else desired_channels
    n = audio.shape[0] if desired_samples == -1 else desired_samples
    # Extra output channels repeat the file's last one.
    src = [min(c, audio.shape[1] - 1) for c in range(ch)]
    out = np.zeros((n, ch), np.float32)
    m = min(n, audio.shape[0])
    out[:m] = audio[:m][:, src]
    return [out, np.int32(rate)]


def _decode_infer(inputs, attrs):
    ch, n = attrs.get("desired_channels", -1), attrs.get("desired_samples", -1)
    return [(TensorShape([None if n == -1 else n, None if ch == -1 else ch]), D.float32),
            (TensorShape([]), D.int32)]


def _encode_kernel(audio, sample_rate):
    if audio.ndim != 2:
        raise _invalid("audio must be 2-dimensional[" + ",".join(map(str, audio.shape)) + "]")
    rate = int(sample_rate)
    x = np.asarray(audio, np.float32) * np.float32(32768)
    # roundf: half away from zero.
    x = np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))
    pcm = np.clip(x, -32768, 32767).astype("<i2")
    frames, channels = pcm.shape
    data = pcm.tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE" + b"fmt " + \
        struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16) + \
        b"data" + struct.pack("<I", len(data))
    return np.array(header + data, dtype=object)


_DecodeWav = register("DecodeWav", _decode_kernel, _decode_infer)
_EncodeWav = register("EncodeWav", _encode_kernel, lambda i, a: [(TensorShape([]), D.string)],
                      allowed=(D.float32,))
_Decoded = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


@export("audio.decode_wav")
def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio float32 [samples, channels], sample_rate int32) of a 16-bit PCM
    WAV file; `desired_channels`/`desired_samples` (-1: the file's) keep the
    first channels (repeating the last) and truncate or zero-pad.

    Raises:
      InvalidArgumentError: for data that is not a 16-bit PCM WAV.
    """
    out = apply(_DecodeWav, [convert_to_tensor(contents, D.string)],
                {"desired_channels": int(desired_channels),
                 "desired_samples": int(desired_samples)}, name=name or "DecodeWav", multi=True)
    return _Decoded(*out)


@export("audio.encode_wav")
def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV file of float32 audio [samples, channels] in [-1, 1].

    Raises:
      InvalidArgumentError: for audio that is not 2-D.
    """
    return apply(_EncodeWav, [convert_to_tensor(audio, D.float32),
                              convert_to_tensor(sample_rate, D.int32)], name=name or "EncodeWav")


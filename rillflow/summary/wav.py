"""A minimal WAV encoder (16-bit PCM) for audio summaries."""
import struct

import numpy as np

__all__ = ["encode_wav"]


def encode_wav(samples, sample_rate):
    """WAV bytes of float samples in [-1, 1] of shape [frames, channels]."""
    samples = np.asarray(samples, dtype=np.float64)
    frames, channels = samples.shape
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    block = channels * 2
    fmt = struct.pack("<HHIIHH", 1, channels, int(sample_rate), int(sample_rate) * block,
                      block, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + \
        b"data" + struct.pack("<I", len(pcm)) + pcm
    return b"RIFF" + struct.pack("<I", len(body)) + body

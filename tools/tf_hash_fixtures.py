"""Regenerates tests/data/string_hash_tf.json: TensorFlow 2.21's
`tf.strings.to_hash_bucket_fast`, `to_hash_bucket_strong` and `tf.fingerprint` of strings of
every length class of FarmHash (0-16, 17-32, 33-64, the 64-byte loop) and of
SipHash (0-7 bytes left after the 8-byte blocks), which
tests/test_string_hash.py compares with rillflow's.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_hash_fixtures.py
"""
import json
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "string_hash_tf.json")


def strings():
    """The test strings: random bytes of lengths 0-200 and a few long ones,
    runs of one letter, and some words."""
    rng = random.Random(17)
    out = [bytes(rng.randrange(256) for _ in range(n)) for n in list(range(201)) + [513, 1000]]
    out += [b"a" * n for n in range(0, 140, 9)]
    out += [w.encode() for w in "Who is Dan Smith Pause Will it rain later today # +".split()]
    return out


def main():
    """Writes the fixture file."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    s = strings()
    data = {"strings": [x.hex() for x in s],
            # 2**63 - 1 buckets keeps 63 bits of each hash
            "fast_big": tf.strings.to_hash_bucket_fast(s, 2**63 - 1).numpy().tolist(),
            "fast_1000": tf.strings.to_hash_bucket_fast(s, 1000).numpy().tolist(),
            "strong_big": tf.strings.to_hash_bucket_strong(s, 2**63 - 1, [1, 2]).numpy().tolist(),
            "strong_1024": tf.strings.to_hash_bucket_strong(
                s, 1024, [123456789012, 987654321]).numpy().tolist(),
            "fingerprint": tf.fingerprint(s).numpy().tolist(),
            "fingerprint_pairs": tf.fingerprint(tf.reshape(s[:200], [100, 2])).numpy().tolist(),
            "fingerprint_int64": tf.fingerprint(
                tf.reshape(tf.range(60, dtype=tf.int64), [10, 6])).numpy().tolist(),
            "fingerprint_float32": tf.fingerprint(
                tf.reshape(tf.range(21, dtype=tf.float32) * 0.5, [7, 3])).numpy().tolist()}
    with open(OUT, "w") as f:
        json.dump(data, f)


if __name__ == "__main__":
    main()

"""Ragged workloads: `tf.strings.split` of 100,000 short strings, then ragged
reductions (the number of pieces per string, a ragged mean of numeric
values), timed on rillflow and, when another interpreter has it, TensorFlow.

    python benchmarks/ragged.py                                   # rillflow only
    python benchmarks/ragged.py --tensorflow-python /work/tfref/bin/python

Each library runs in its own process (this file with --worker LIB); the
parent prints both times (best of --repeat runs, milliseconds).
"""
import argparse
import json
import os
import subprocess
import sys
import time

N = 100_000


def workload(tf):
    """Builds the inputs and returns {name: zero-argument callable}."""
    import numpy as np
    rng = np.random.RandomState(0)
    words = np.array(["a", "bb", "ccc", "dddd", "e"])
    counts = rng.randint(0, 6, size=N)
    strings = [" ".join(words[rng.randint(0, 5, size=c)]) for c in counts]
    text = tf.constant(strings)
    lengths = rng.randint(0, 8, size=N)
    values = tf.constant(rng.rand(int(lengths.sum())).astype(np.float32))
    numeric = tf.RaggedTensor.from_row_lengths(values, lengths)

    def split():
        return tf.strings.split(text)

    pieces = split()

    def pieces_per_string():
        return tf.reduce_sum(tf.ones_like(pieces, dtype=tf.int32), axis=1)

    def ragged_mean():
        return tf.reduce_mean(numeric, axis=1)

    def ragged_slice_and_pad():
        return numeric[:, :3].to_tensor()

    return {"strings.split (100k strings)": split,
            "reduce_sum pieces per row": pieces_per_string,
            "ragged reduce_mean axis=1": ragged_mean,
            "rt[:, :3].to_tensor()": ragged_slice_and_pad}


def worker(lib, repeat):
    """Times each workload with library `lib`; prints JSON {name: ms}."""
    if lib == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        import rillflow as tf
    out = {}
    for name, fn in workload(tf).items():
        fn()   # warm up
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        out[name] = best * 1e3
    print(json.dumps(out))


def run(lib, python, repeat):
    """The worker's timings, or None when it cannot run."""
    try:
        res = subprocess.run([python, os.path.abspath(__file__), "--worker", lib,
                              "--repeat", str(repeat)], capture_output=True, text=True,
                             timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-2000:])
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    """Parses the arguments and prints the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--tensorflow-python", default="/work/tfref/bin/python")
    a = p.parse_args()
    if a.worker:
        worker(a.worker, a.repeat)
        return
    rf = run("rillflow", sys.executable, a.repeat)
    tf = run("tensorflow", a.tensorflow_python, a.repeat) \
        if os.path.exists(a.tensorflow_python) else None
    print(f"{'workload':32s} {'rillflow ms':>12s} {'tensorflow ms':>14s}")
    for name, ms in (rf or {}).items():
        other = f"{tf[name]:14.2f}" if tf and name in tf else f"{'n/a':>14s}"
        print(f"{name:32s} {ms:12.2f} {other}")


if __name__ == "__main__":
    main()

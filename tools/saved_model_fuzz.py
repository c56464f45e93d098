"""Long runs of the mutated-SavedModel test (tests/saved_model_mutations.py):
rillflow must answer every damaged or hostile saved_model.pb with a clear
error (DataLossError, InvalidArgumentError, NotFoundError, ...) when it is
loaded and its functions called, never a crash, a hang or a giant
allocation.

    PYTHONPATH=. python tools/saved_model_fuzz.py --seed 100 --count 5000

Cases slower than --slow seconds are reported, and the process's peak
memory is printed at the end.
"""
import argparse
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import saved_model_mutations as sm  # noqa: E402  (needs tests/ on the path)


def main(argv=None):
    """Runs the cases; exit status 1 on the first failure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--slow", type=float, default=2.0, help="report cases slower than this")
    args = ap.parse_args(argv)
    last = [time.time()]
    slow = []

    def on_case(i, description, outcome):
        now = time.time()
        if now - last[0] > args.slow:
            slow.append((i, description, round(now - last[0], 2)))
        last[0] = now
    with tempfile.TemporaryDirectory() as tmp:
        try:
            outcomes = sm.run(args.seed, args.count, tmp, on_case)
        except AssertionError as e:
            print("FAILED:", e)
            return 1
    print("outcomes:", outcomes)
    print("slow cases:", slow or "none")
    print("peak memory: %.0f MiB" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    return 0


if __name__ == "__main__":
    sys.exit(main())

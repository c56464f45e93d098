"""Long runs of the mutated-checkpoint test (tests/checkpoint_mutations.py):
rillflow must answer every damaged or hostile checkpoint with a clear error
(DataLossError naming the file, InvalidArgumentError, NotFoundError, ...),
never a crash, a hang or a giant allocation.

    # 20,000 cases from seed 100, one process; failing files kept in cases/:
    PYTHONPATH=. python tools/checkpoint_fuzz.py --seed 100 --count 20000 --keep cases/

Each case's wall time is watched (--slow seconds reports it) and the
process's peak memory is printed at the end.
"""
import argparse
import os
import resource
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import checkpoint_mutations as cm  # noqa: E402  (needs tests/ on the path)


def main(argv=None):
    """Runs the cases; exit status 1 on the first failure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--slow", type=float, default=2.0, help="report cases slower than this")
    ap.add_argument("--keep", help="folder to copy a failing case's files into")
    args = ap.parse_args(argv)
    last = [time.time()]
    slow = []

    def on_case(i, description, outcome):
        now = time.time()
        if now - last[0] > args.slow:
            slow.append((i, description, now - last[0]))
        last[0] = now
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} cases", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        try:
            outcomes = cm.run(args.seed, args.count, tmp, on_case)
        except AssertionError as e:
            print("FAILED:", e)
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                for name in os.listdir(tmp):
                    shutil.copy(os.path.join(tmp, name), args.keep)
                print("files kept in", args.keep)
            return 1
    print("outcomes:", dict(sorted(outcomes.items())))
    for i, description, seconds in slow:
        print(f"slow: case {i} ({description}) took {seconds:.1f}s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Long runs of the compiler's random op-DAG differential test.

Generates programs (tests/compiler_dag_programs.py), runs each eagerly and
under tf.function with and without rillflow's optimizations
(tests/compiler_dag_check.py), and reports every program where the
optimized code differs from the plain path ("compiler": a compiler bug) or
the plain path from eager execution ("graph": an op's graph form computing
otherwise than its eager kernel). Failing programs are minimized and
written out as stand-alone sources.

    # 5,000 programs from seed 10,000, minimized cases into cases/:
    PYTHONPATH=. python tools/compiler_dag_fuzz.py --seed 10000 --count 5000 \\
        --cases cases/

Passes run strict (a pass failing is reported, not quietly fallen back).
"""
import argparse
import collections
import logging
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import compiler_dag_check as chk  # noqa: E402  (needs tests/ on the path)
import compiler_dag_programs as dag  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--count", type=int, default=1000, help="programs to run")
    ap.add_argument("--cases", help="folder for minimized failing programs")
    ap.add_argument("--no-minimize", action="store_true")
    args = ap.parse_args(argv)
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    counts = collections.Counter()
    start = time.time()
    for seed in range(args.seed, args.seed + args.count):
        program = dag.generate(seed)
        try:
            found = chk.check(program)
        except Exception:  # noqa: BLE001 - the harness itself failing is a finding
            found = ("harness", traceback.format_exc().splitlines()[-1])
        counts["programs"] += 1
        counts["gradients"] += program.gradients
        counts["variables"] += bool(program.variables)
        if found is None:
            continue
        counts[found[0]] += 1
        print("seed %d: %s: %s" % (seed, found[0], found[1][:300]), flush=True)
        if args.cases and found[0] != "harness":
            small = program if args.no_minimize else chk.minimize(program)
            _write_case(args.cases, seed, found, small)
    took = time.time() - start
    print("%d programs in %.0f s (%d with gradients, %d with variables): "
          "%d compiler, %d graph, %d harness failures" % (
              counts["programs"], took, counts["gradients"], counts["variables"],
              counts["compiler"], counts["graph"], counts["harness"]))
    return 1 if counts["compiler"] or counts["harness"] else 0


def _write_case(folder, seed, found, program):
    import numpy as np
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "seed_%d.py" % seed)
    with open(path, "w") as f:
        f.write("# %s: %s\n" % found)
        f.write(program.source())
        f.write("\nINPUTS = [%s]\n" % ", ".join(
            "np.array(%r, dtype=np.%s)" % (a.tolist(), a.dtype) for a in program.inputs))
        f.write("VARIABLES = [%s]\n" % ", ".join(
            "np.array(%r, dtype=np.%s)" % (a.tolist(), a.dtype) for a in program.variables))
    print("  minimized -> %s" % path, flush=True)


if __name__ == "__main__":
    sys.exit(main())

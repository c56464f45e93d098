"""rillflow against TensorFlow on the compiler's random op DAGs, bit for bit.

Generates programs (tests/compiler_dag_programs.py), runs each eagerly in
rillflow and, in a separate Python that has TensorFlow (never rillflow's
environment), in TensorFlow, and compares every result and every
intermediate value: the same exception class, or the same dtype, shape and
bits (NaN equal to NaN, the sign of zero kept). For a program that differs
it names the root: the first intermediate, in program order, whose value
differs. Roots in the classes docs/numerics.md lists as TensorFlow's own
(BLAS and reduction order, the x86 reciprocal estimates that differ between
Intel and AMD, oneDNN's float32 softmax, Eigen's tiling of large broadcasts)
are counted apart from the others, which are the findings.

    PYTHONPATH=. python tools/tf_dag_differential.py \\
        --tensorflow /path/to/tf-venv/bin/python --seed 5000 --count 400
"""
import argparse
import collections
import os
import pickle
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import compiler_dag_programs as dag  # noqa: E402  (needs tests/ on the path)

# Roots whose differences are TensorFlow's own (docs/numerics.md).
KNOWN = ("tf.matmul", "tf.reduce_sum", "tf.reduce_mean", "tf.reduce_prod",
         "tf.math.reduce_variance", "tf.nn.softmax", "tf.math.reciprocal", "tf.math.rsqrt",
         "tf.math.atan", "tf.math.atan2", "tf.math.erfc", "tf.math.erf")

# Runs in TensorFlow's Python: the programs from a pickle, the outcomes to one.
# Each outcome is written as soon as it is known (out/<index>.pkl), so that a
# program that crashes TensorFlow's process costs only itself.
RUNNER = r'''
import logging, os, pickle, sys, warnings
warnings.filterwarnings("ignore")
import numpy as np
import tensorflow as tf
tf.get_logger().setLevel(logging.ERROR)
tf.math.truncatemod, tf.math.truncatediv = tf.truncatemod, tf.truncatediv
sys.path.insert(0, sys.argv[3])
from tf_dag_differential import run
progs = pickle.load(open(sys.argv[1], "rb"))
for i in range(int(sys.argv[4]), len(progs)):
    outcome = run(tf, progs[i])
    with open(os.path.join(sys.argv[2], "%d.pkl" % i), "wb") as f:
        pickle.dump(outcome, f)
'''


def _numpy(tf, x):
    if x is None:
        return None
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.asarray(x.numpy())


def run(tf, prog):
    """('ok', [arrays]) or ('error', class name, message) of a program
    (a dict of source, inputs, variables) run eagerly with module `tf`."""
    ns = {"tf": tf, "np": np}
    try:
        exec(prog["source"], ns)
        V = [tf.Variable(v) for v in prog["variables"]]
        out = ns["program"](V, *[tf.constant(a) for a in prog["inputs"]])
        return ("ok", [_numpy(tf, x) for x in out] + [v.numpy() for v in V])
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return ("error", type(e).__name__, str(e)[:200])


def with_intermediates(program):
    """The program's source returning every intermediate tN after its own
    results, and the intermediates' names."""
    src = program.source()
    names = []
    for line in src.splitlines():
        m = re.match(r"\s+(t\d+) = ", line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    lines = src.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("return [") and names:
            lines[i] = line.rstrip()[:-1] + ", " + ", ".join(names) + "]"
    return "\n".join(lines), names


def same(a, b):
    """None when two results agree bit for bit, else a short description."""
    if (a is None) != (b is None):
        return "None against a value"
    if a is None:
        return None
    if a.dtype != b.dtype or a.shape != b.shape:
        return "%s%s against %s%s" % (a.dtype, a.shape, b.dtype, b.shape)
    if a.dtype.kind in "fc":
        bits = {2: np.int16, 4: np.int32, 8: np.int64, 16: np.int64}[a.dtype.itemsize // (
            2 if a.dtype.kind == "c" else 1)]
        x, y = a.view(bits), b.view(bits)
        nan = np.isnan(a.view(a.real.dtype) if a.dtype.kind == "c" else a)
        if not np.array_equal(nan, np.isnan(b.view(b.real.dtype) if b.dtype.kind == "c" else b)):
            return "NaN at other places"
        n = int(((x != y) & ~nan).sum())
        return "%d values differ" % n if n else None
    return None if np.array_equal(a, b) else "values differ"


def _run_tensorflow(python, progs):
    """The outcomes of `progs` in TensorFlow's Python; a program that kills
    the process is ("crash", signal) and the rest run in a new one."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.pkl"), os.path.join(tmp, "out")
        os.mkdir(out)
        with open(src, "wb") as f:
            pickle.dump(progs, f)
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        outcomes = {}
        start = 0
        while start < len(progs):
            rc = subprocess.run([python, runner, src, out, HERE, str(start)], cwd=tmp,
                                stderr=subprocess.DEVNULL).returncode
            for name in os.listdir(out):
                i = int(name.split(".")[0])
                if i not in outcomes:
                    with open(os.path.join(out, name), "rb") as f:
                        outcomes[i] = pickle.load(f)
            start = max(outcomes, default=start - 1) + 1
            if rc != 0 and start < len(progs):
                outcomes[start] = ("crash", "exit %d" % rc)
                start += 1
        return [outcomes[i] for i in range(len(progs))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorflow", required=True, help="a Python that has TensorFlow")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--count", type=int, default=200, help="programs to run")
    args = ap.parse_args(argv)
    import rillflow as tf
    progs = []
    for seed in range(args.seed, args.seed + args.count):
        p = dag.generate(seed)
        source, names = with_intermediates(p)
        progs.append({"seed": seed, "source": source, "names": names, "orig": p.source(),
                      "inputs": p.inputs, "variables": p.variables})
    theirs = _run_tensorflow(args.tensorflow, progs)
    roots = collections.Counter()
    findings = 0
    for p, t in zip(progs, theirs):
        if t[0] == "crash":
            print("seed %d: TensorFlow's process died (%s)" % (p["seed"], t[1]))
            continue
        r = run(tf, p)
        if r[0] != t[0] or r[0] == "error" and r[1] != t[1]:
            findings += 1
            print("seed %d: rillflow %s, TensorFlow %s" % (
                p["seed"], r[:2] if r[0] == "error" else "ok", t[:3] if t[0] == "error" else "ok"))
            continue
        if r[0] == "error" or not any(same(a, b) for a, b in zip(r[1], t[1])):
            continue
        n_out = len(r[1]) - len(p["variables"]) - len(p["names"])
        mine = dict(zip(p["names"], r[1][n_out:]))
        tfs = dict(zip(p["names"], t[1][n_out:]))
        root = next((n for n in p["names"] if same(mine[n], tfs[n])), None)
        line = next((x.strip() for x in p["orig"].splitlines()
                     if root and x.strip().startswith(root + " = ")), "(gradients or variables)")
        op = re.sub(r"^t\d+ = ", "", line).split("(")[0]
        roots[op] += 1
        if op not in KNOWN:
            findings += 1
            print("seed %d: %s at %s" % (p["seed"], same(mine[root], tfs[root]) if root
                                         else "", line))
    print("%d programs, %d findings; roots of the known classes: %s" % (
        len(progs), findings, dict((k, v) for k, v in roots.items() if k in KNOWN)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of rillflow's bit-exact elementwise kernels (docs/numerics.md) against
NumPy's own float32 routines, eager, with and without the jit extra.

    python benchmarks/numerics.py              # every op, sizes 4, 1000 and 1M
    python benchmarks/numerics.py -k sin       # ops whose name contains 'sin'
    python benchmarks/numerics.py --sizes 4,1000

Each cell is the best time per call of `tf.<op>(t)` on a prebuilt float32
tensor, and the ratio to the NumPy routine on the same array (np.sin, ...;
the NumPy line of each op is what rillflow computed before it reproduced
TensorFlow's bits). The two are timed in alternating rounds in one process,
so a busy moment of the machine hits both. The no-jit column runs in a
subprocess with RILLFLOW_JIT=0.
"""
import argparse
import json
import os
import subprocess
import sys
import timeit

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


def _erf_np():
    try:
        from scipy import special
        return special.erf, special.erfc
    except ImportError:   # no SciPy: a routine of about the same cost
        return (lambda a: np.exp(-a * a)), (lambda a: np.exp(-a * a))


def _cases():
    """name -> (rillflow function of the tensors, NumPy function of the arrays,
    input generator(n, rng) -> list of float32 arrays)."""
    import rillflow as tf
    erf, erfc = _erf_np()

    def u(lo, hi):
        return lambda n, rng: [rng.uniform(lo, hi, n).astype(np.float32)]

    def sig(a):
        return 1 / (1 + np.exp(-a))
    return {
        "exp": (tf.exp, np.exp, u(-80, 80)),
        "expm1": (tf.math.expm1, np.expm1, u(-5, 5)),
        "log": (tf.math.log, np.log, u(1e-3, 1e3)),
        "log1p": (tf.math.log1p, np.log1p, u(-0.5, 10)),
        "sigmoid": (tf.nn.sigmoid, sig, u(-20, 20)),
        "softplus": (tf.nn.softplus, lambda a: np.logaddexp(np.float32(0), a), u(-20, 20)),
        "tanh": (tf.math.tanh, np.tanh, u(-5, 5)),
        "sin": (tf.sin, np.sin, u(-100, 100)),
        "cos": (tf.cos, np.cos, u(-100, 100)),
        "tan": (tf.math.tan, np.tan, u(-100, 100)),
        "rsqrt": (tf.math.rsqrt, lambda a: 1 / np.sqrt(a), u(1e-3, 1e3)),
        "erf": (tf.math.erf, erf, u(-4, 4)),
        "erfc": (tf.math.erfc, erfc, u(-4, 10)),
        "atan2": (tf.math.atan2, np.arctan2,
                  lambda n, rng: [rng.uniform(-10, 10, n).astype(np.float32) for _ in "yx"]),
        "pow": (tf.pow, np.power,
                lambda n, rng: [rng.uniform(0, 10, n).astype(np.float32),
                                rng.uniform(-3, 3, n).astype(np.float32)]),
        "pow_x**2": (lambda t: t ** 2, lambda a: a ** np.float32(2), u(-10, 10)),
        "softmax": (tf.nn.softmax, lambda a: _np_softmax(a), u(-10, 10)),
    }


def _np_softmax(a):
    a = a.reshape(-1, a.shape[-1]) if a.ndim > 1 else a[None]
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _per_call(fn, budget):
    fn()
    n = 1
    while True:
        t = timeit.timeit(fn, number=n)
        if t >= budget or n >= 1 << 16:
            return n
        n *= 4


def measure(pattern, sizes, rounds, budget):
    """{op: {size: (rillflow seconds, numpy seconds)}}, best of `rounds`."""
    import rillflow as tf
    from rillflow.ops.kernels import jit_kernels
    jit_kernels.wait()
    jit_kernels.wait_elementwise()
    rng = np.random.default_rng(0)
    res = {}
    for name, (rf, npf, gen) in _cases().items():
        if pattern not in name:
            continue
        res[name] = {}
        for n in sizes:
            arrays = gen(n, rng)
            if name == "softmax":   # rows of 1000 (one row for smaller sizes)
                arrays = [a.reshape(-1, min(n, 1000)) for a in arrays]
            tensors = [tf.constant(a) for a in arrays]
            f_rf = lambda: rf(*tensors)   # noqa: E731
            f_np = lambda: npf(*arrays)   # noqa: E731
            counts = [_per_call(f, budget) for f in (f_rf, f_np)]
            best = [float("inf")] * 2
            for _ in range(rounds):
                for i, f in enumerate((f_rf, f_np)):
                    best[i] = min(best[i], timeit.timeit(f, number=counts[i]) / counts[i])
            res[name][n] = best
    return res, jit_kernels.status()


def _fmt(t):
    if t < 1e-3:
        return "%.1f us" % (t * 1e6)
    return "%.2f ms" % (t * 1e3)


def main(argv=None):
    """Prints the table (or, with --json, this process's measurements)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only ops whose name contains this")
    ap.add_argument("--sizes", default="4,1000,1000000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=0.02, help="seconds per timed round")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.json:
        print(json.dumps(measure(args.k, sizes, args.rounds, args.budget)[0]))
        return
    env = dict(os.environ, RILLFLOW_JIT="0")
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", "-k", args.k,
                            "--sizes", args.sizes, "--rounds", str(args.rounds),
                            "--budget", str(args.budget)],
                           env=env, capture_output=True, text=True, check=True)
    nojit = json.loads(child.stdout.strip().splitlines()[-1])
    jit, status = measure(args.k, sizes, args.rounds, args.budget)
    header = ("op", "size", "numpy", "rf jit", "jit/np", "rf no-jit", "nojit/np")
    rows = []
    for name, by_size in jit.items():
        for n, (t_rf, t_np) in by_size.items():
            t_nj, t_np2 = nojit[name][str(n)]
            rows.append((name, str(n), _fmt(t_np), _fmt(t_rf), "%.2f" % (t_rf / t_np),
                         _fmt(t_nj), "%.2f" % (t_nj / t_np2)))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    print("  ".join("%*s" % (w, h) for w, h in zip(widths, header)))
    for r in rows:
        print("  ".join("%*s" % (w, c) for w, c in zip(widths, r)))
    print("jit: %s; each ratio is against NumPy timed in the same process" % status)


if __name__ == "__main__":
    main()

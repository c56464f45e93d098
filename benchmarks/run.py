"""rillflow benchmarks: seconds per call for rillflow eager, rillflow function
and the same computation hand-written in NumPy, and their ratio.

    python benchmarks/run.py                 # every workload
    python benchmarks/run.py -k power        # workloads whose name contains 'power'
    python benchmarks/run.py --compare-tensorflow   # also TensorFlow, if importable
    python benchmarks/run.py -k cnn --compare-tensorflow --tensorflow-python PATH

The model training steps (`*_step`: CNN, attention, LSTM language model,
ResNet-style block; benchmarks/model_workloads.py) run in worker processes
(benchmarks/model_bench.py), rillflow and TensorFlow alternately, and also
report the peak memory a step adds; --no-models leaves them out.

    python benchmarks/run.py --xla --compare-tensorflow --tensorflow-python TF_PYTHON

The xla mode: the workloads under rillflow's `tf.function(jit_compile=True)`
(XLA through JAX) next to the same computations hand-written in JAX and, with
--compare-tensorflow, TensorFlow's XLA (xla_workloads.py, xla_tf_workloads.py,
jax_models.py), by wall clock and by CPU time (the steadier measure on a
machine other work shares).
"""
import argparse
import json
import os
import subprocess
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import model_bench  # noqa: E402
import workloads  # noqa: E402


def _calibrate(fn, min_time):
    """A call count that takes about min_time / 5 seconds."""
    fn()
    n = 1
    while True:
        t = timeit.timeit(fn, number=n)
        if t >= min_time / 5 or n >= 1 << 20:
            return n
        n *= 4


def _time_all(fns, min_time=0.2, rounds=7):
    """Best per-call time of each callable, measured in alternating rounds so
    that a slow moment of the machine does not favour one of them."""
    counts = {k: _calibrate(f, min_time) for k, f in fns.items()}
    best = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            best[k] = min(best[k], timeit.timeit(f, number=counts[k]) / counts[k])
    return best


def _fmt(t):
    if t is None:
        return "-"
    if t < 1e-3:
        return "%.2f us" % (t * 1e6)
    if t < 1:
        return "%.3f ms" % (t * 1e3)
    return "%.3f s" % t


def _blas_kernels():
    """Which OpenBLAS kernels NumPy runs: the matrix products (and the
    convolutions built on them) run at half speed on AVX2 kernels on an
    AVX-512 CPU, and some environments force them (OPENBLAS_CORETYPE)."""
    import ctypes
    import numpy as np
    forced = os.environ.get("OPENBLAS_CORETYPE")
    name = None
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
        for path in paths:
            lib = ctypes.CDLL(path)
            for fn in ("scipy_openblas_get_corename64_", "openblas_get_corename64_",
                       "openblas_get_corename"):
                if hasattr(lib, fn):
                    getattr(lib, fn).restype = ctypes.c_char_p
                    name = getattr(lib, fn)().decode()
                    break
    except OSError:
        pass
    del np
    text = "OpenBLAS, %s kernels" % name if name else "unknown"
    return text + (" (forced by OPENBLAS_CORETYPE=%s)" % forced if forced else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only workloads whose name contains this")
    ap.add_argument("--compare-tensorflow", action="store_true")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--no-models", action="store_true",
                    help="leave out the model training steps")
    model_bench.add_arguments(ap)
    args = ap.parse_args(argv)
    selected = [wl for wl in workloads.ALL if args.k in wl.name]
    if args.xla:
        import xla_workloads
        selected = [wl for wl in selected if wl.name in xla_workloads.BUILDERS]
    if selected:
        (_run_xla_core if args.xla else _run_core)(selected, args)
    if not args.no_models:
        if selected:
            print()
        model_bench.run_models(args.k, args.compare_tensorflow, args.tensorflow_python,
                               args.model_size, args.model_min_time, args.rounds,
                               not args.no_memory, args.profile, xla=args.xla)


def _run_core(selected, args):
    """The table of issue 7's workloads (in this process)."""
    tf_ref = None
    if args.compare_tensorflow:
        try:
            import tensorflow as tf_ref  # noqa: F401
        except ImportError:
            print("(TensorFlow is not importable in this interpreter; this table skips it)")
    from rillflow.ops.kernels import jit_kernels
    jit_kernels.wait()   # the jit extra's kernels load in the background
    rows = []
    header = ("workload", "rf eager", "rf function", "numpy", "fn/numpy", "tensorflow fn",
              "target")
    for wl in selected:
        built = wl.build()
        fns = {k: built[k] for k in ("eager", "function", "numpy") if built.get(k) is not None}
        times = _time_all(fns, args.min_time)
        res = {k: times.get(k) for k in ("eager", "function", "numpy")}
        built.get("check", lambda: None)()
        tf_t = None
        if tf_ref is not None and hasattr(wl, "build_tensorflow"):
            tf_t = _time_all({"tf": wl.build_tensorflow(tf_ref)}, args.min_time)["tf"]
        ratio = (res["function"] / res["numpy"]) if res["function"] and res["numpy"] else None
        rows.append((wl.name, _fmt(res["eager"]), _fmt(res["function"]), _fmt(res["numpy"]),
                     "-" if ratio is None else "%.2f" % ratio, _fmt(tf_t), wl.target))
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, header))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w, c) for w, c in zip(widths, r)))
    print("compiled kernels (the jit extra): %s" % jit_kernels.status())
    print("NumPy's BLAS: %s" % _blas_kernels())


def _time_clocks(fns, min_time=0.2, rounds=7):
    """Best per-call (wall, cpu) time of each callable, alternating rounds;
    cpu is this process's CPU time (all threads)."""
    counts = {k: _calibrate(f, min_time) for k, f in fns.items()}
    best = {k: [float("inf"), float("inf")] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            n = counts[k]
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(n):
                f()
            best[k][0] = min(best[k][0], (time.perf_counter() - t0) / n)
            best[k][1] = min(best[k][1], (time.process_time() - c0) / n)
    return best


def _tensorflow_xla_times(names, args):
    """{name: (wall, cpu)} of TensorFlow's jit_compile=True workloads, run in
    TensorFlow's interpreter (xla_tf_workloads.py); {} without TensorFlow."""
    python = model_bench.find_tensorflow(args.tensorflow_python)
    if python is None:
        print("(TensorFlow is not importable; pass --tensorflow-python PATH)")
        return {}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([python, os.path.join(here, "xla_tf_workloads.py"),
                           str(args.min_time)] + list(names), capture_output=True, text=True,
                          env=env, cwd=here)
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            out[r["name"]] = (r["wall"], r["cpu"])
    if proc.returncode:
        print("(TensorFlow's run failed: %s)" % proc.stderr.strip().splitlines()[-1:])
    return out


def _run_xla_core(selected, args):
    """The xla mode's table of the core workloads (in this process)."""
    import xla_workloads
    tf_times = _tensorflow_xla_times([wl.name for wl in selected], args) \
        if args.compare_tensorflow else {}
    header = ("workload", "rf function", "rf xla", "jax", "tf xla", "xla/jax", "xla/tf xla",
              "cpu: rf xla", "cpu: jax", "cpu: tf xla", "cpu xla/jax", "cpu xla/tf")
    rows = []
    for wl in selected:
        built = xla_workloads.BUILDERS[wl.name]()
        times = _time_clocks({"xla": built["xla"], "jax": built["jax"]}, args.min_time)
        function = wl.build().get("function")
        if function is not None:
            # Timed apart: the eager kernels' worker threads (OpenBLAS's
            # spinning after a GEMM) would bill their CPU time to the round
            # after the function's.
            times.update(_time_clocks({"function": function}, args.min_time))
        built["check"]()
        tf_t = tf_times.get(wl.name)

        def ratio(a, b):
            return "-" if a is None or b is None else "%.2f" % (a / b)
        x, j = times["xla"], times["jax"]
        rows.append((wl.name, _fmt(times.get("function", [None])[0]), _fmt(x[0]), _fmt(j[0]),
                     _fmt(tf_t and tf_t[0]), ratio(x[0], j[0]), ratio(x[0], tf_t and tf_t[0]),
                     _fmt(x[1]), _fmt(j[1]), _fmt(tf_t and tf_t[1]), ratio(x[1], j[1]),
                     ratio(x[1], tf_t and tf_t[1])))
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, header))
    print("xla mode: best seconds per call by wall clock, and by CPU time (cpu: all "
          "threads of the process)")
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w, c) for w, c in zip(widths, r)))


if __name__ == "__main__":
    main()

"""Model training-step benchmarks (issue 16): the steps of model_workloads.py
on rillflow and, with --compare-tensorflow, on TensorFlow, eagerly and under
tf.function, with the peak memory a step adds above the process's baseline.

    python benchmarks/model_bench.py                      # rillflow only
    python benchmarks/model_bench.py -k cnn --compare-tensorflow
    python benchmarks/model_bench.py --compare-tensorflow --tensorflow-python /path/to/python
    python benchmarks/model_bench.py -k lstm --profile    # cProfile of rillflow's function step
    python benchmarks/model_bench.py --xla --compare-tensorflow   # XLA: rillflow, JAX, TF

With --xla, the steps run under `tf.function(jit_compile=True)` on rillflow
(XLA through JAX) and TensorFlow (its own XLA), next to the same steps
hand-written in JAX (jax_models.py), each timed by wall clock and by the
worker process's CPU time (all its threads): on a machine other work
shares, CPU time is the steadier measure.

Each library runs in its own worker process (this file with --worker), so
that neither library's import, threads or allocator state weighs on the
other's timings and memory baselines, and so that TensorFlow can live in
another interpreter (--tensorflow-python). The parent drives both workers
over pipes (one JSON line per request) and alternates them round by round, so
a slow moment of the machine hits both; each number is the best round.
"""
import argparse
import cProfile
import gc
import importlib.util
import io
import json
import math
import os
import pstats
import re
import subprocess
import sys
import time
import traceback
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

# The workloads in table order; model_workloads.BUILDERS has the same keys.
WORKLOADS = ["cnn", "attention", "lstm_lm", "lstm_lm_while", "resnet_block"]
MODES = ("eager", "function")
LOSS_RTOL = 1e-4


def bench_name(workload):
    """The name shown in the tables and matched by -k."""
    return workload + "_step"


# --- peak memory ------------------------------------------------------------------------------

def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _can_reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        _status_kb("VmHWM")
        return True
    except (OSError, KeyError):
        return False


class PeakMeter:
    """The peak memory above a baseline taken at construction (`peak()`).

    On Linux the resident set's high-water mark is reset by writing "5" to
    /proc/self/clear_refs (VmHWM becomes the current VmRSS) and read later:
    that counts every allocator, TensorFlow's C++ one included. Elsewhere
    tracemalloc's peak, which sees Python and NumPy allocations only (not
    TensorFlow's tensors). `method` says which.
    """

    def __init__(self):
        gc.collect()
        self.proc = _can_reset_hwm()
        if self.proc:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.base = _status_kb("VmRSS") * 1024
            self.method = "VmHWM (Linux /proc/self/clear_refs)"
        else:
            tracemalloc.start()
            self.base = tracemalloc.get_traced_memory()[0]
            self.method = "tracemalloc (Python and NumPy allocations only)"

    def peak(self):
        """Bytes the peak rose above the baseline so far."""
        if self.proc:
            return _status_kb("VmHWM") * 1024 - self.base
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak - self.base


def peak_added_bytes(fn):
    """Runs `fn()` once; returns (bytes the peak memory rose above the memory
    before the call, how it was measured: see PeakMeter)."""
    meter = PeakMeter()
    fn()
    return meter.peak(), meter.method


# --- the worker (one library, one process) ----------------------------------------------------

class _Worker:
    """Builds workloads on one library and answers the parent's requests."""

    def __init__(self, lib):
        # Imported here: a worker loads one library, and TensorFlow's
        # interpreter has no rillflow (nor rillflow's TensorFlow).
        if lib == "jax":
            import jax_models
            self.tf = None
            self.lib = lib
            self.builders = {k: (lambda tf, size, f=f: f(size))
                             for k, f in jax_models.BUILDERS.items()}
            self.models = {}
            return
        if lib == "tensorflow":
            import tensorflow as tf
        else:
            import rillflow as tf
            from rillflow.ops.kernels import jit_kernels
            jit_kernels.wait()   # the jit extra's kernels load in the background
        import model_workloads
        self.tf = tf
        self.lib = lib
        self.builders = model_workloads.BUILDERS
        self.models = {}

    def _steps(self, workload):
        m = self.models[workload]
        steps = {"eager": lambda: float(m["model"].run_eager()),
                 "function": lambda: float(m["function"]())}
        if "xla" in m:
            steps["xla"] = lambda: float(m["xla"]())
        elif self.lib == "jax":
            steps["xla"] = steps["function"]    # the hand-written step is jax.jit's
        return steps

    def build(self, workload, size, xla=False):
        """Builds the workload; returns the first step's loss eagerly and under
        tf.function (from the same initial weights) and the first call's time
        (trace, compile and one step); with `xla`, also under
        `tf.function(jit_compile=True)` (`loss_xla`, `first_call_xla_s`)."""
        model = self.builders[workload](self.tf, size)
        loss_eager = float(model.run_eager())
        model.reset()
        fn = model.make_function()
        t0 = time.perf_counter()
        loss_fn = float(fn())
        first = time.perf_counter() - t0
        model.reset()
        self.models[workload] = {"model": model, "function": fn}
        out = {"loss_eager": loss_eager, "loss_function": loss_fn, "first_call_s": first,
               "version": self._version()}
        if xla:
            fx = model.make_function(jit_compile=True)
            t0 = time.perf_counter()
            out["loss_xla"] = float(fx())
            out["first_call_xla_s"] = time.perf_counter() - t0
            model.reset()
            self.models[workload]["xla"] = fx
        return out

    def _version(self):
        if self.lib == "jax":
            import jax
            return jax.__version__
        return getattr(self.tf, "__version__", "?")

    def time(self, workload, mode, number):
        """Seconds per step over `number` consecutive steps from the initial
        weights (so that every round, and both libraries, follow the same
        trajectory: no drift into denormals or a diverged loss over the run):
        `{"wall": ..., "cpu": ...}`, the CPU time being the process's (all
        its threads)."""
        step = self._steps(workload)[mode]
        self.models[workload]["model"].reset()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(number):
            step()
        return {"wall": (time.perf_counter() - t0) / number,
                "cpu": (time.process_time() - c0) / number}

    def memory(self, workload, mode, repeats=3):
        """Median over `repeats` steps of the peak bytes one step adds."""
        step = self._steps(workload)[mode]
        step()   # warm: traced, compiled, caches filled
        self.models[workload]["model"].reset()
        results = [peak_added_bytes(step) for _ in range(repeats)]
        values = sorted(r[0] for r in results)
        return {"bytes": values[len(values) // 2], "method": results[0][1]}

    def memory_cold(self, workload, size, mode, steps=3):
        """In a fresh worker: the peak bytes of the first `steps` steps (the
        trace and compilation included under tf.function) above the memory of
        the process with the library imported and the model built. Unlike
        `memory`, this counts what the allocators keep for later steps."""
        model = self.builders[workload](self.tf, size)
        run = model.run_eager if mode == "eager" else model.make_function()
        meter = PeakMeter()
        for _ in range(steps):
            float(run())
        return {"bytes": meter.peak(), "method": meter.method}

    def profile(self, workload, mode="function", calls=3, top=10):
        """cProfile of `calls` steps: the `top` functions by own time, as text."""
        step = self._steps(workload)[mode]
        step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            step()
        prof.disable()
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        stats.sort_stats("tottime").print_stats(top)
        return _trim_profile(out.getvalue())

    def drop(self, workload):
        """Frees a workload's model (its weights and traced functions)."""
        self.models.pop(workload, None)
        gc.collect()
        return True


def _trim_profile(text):
    """pstats' table without its preamble, with repository paths shortened."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "ncalls" in l), 0)
    keep = [re.sub(r"\S*/site-packages/", "", l.replace(REPO + "/", ""))
            for l in lines[start:] if l.strip()]
    head = next((l.strip() for l in lines if "function calls" in l), "")
    return "\n".join([head] + keep)


def worker_main(lib):
    """Serves requests (JSON lines on stdin) until EOF or "quit"."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    out = sys.stdout
    # Keep the protocol channel clean of the libraries' own prints.
    sys.stdout = sys.stderr
    worker = None
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "quit":
            break
        try:
            if worker is None:
                worker = _Worker(lib)
            cmd = req.pop("cmd")
            reply = {"ok": getattr(worker, cmd)(**req)}
        except Exception as e:   # reported to the parent, which goes on
            reply = {"error": "%s: %s" % (type(e).__name__, e),
                     "traceback": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
        out.flush()


# --- the parent -------------------------------------------------------------------------------

class WorkerError(Exception):
    """A request failed in a worker; the message is the worker's exception."""

    def __init__(self, message, tb=""):
        super().__init__(message)
        self.traceback = tb


class WorkerProcess:
    """A worker process for one library, driven over its stdin/stdout."""

    def __init__(self, lib, python):
        env = dict(os.environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        if lib in ("rillflow", "jax"):
            env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
        else:
            # TensorFlow's interpreter gets no rillflow on its path.
            env.pop("PYTHONPATH", None)
        self.lib = lib
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", lib],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env, cwd=HERE)

    def call(self, cmd, **kw):
        """Sends one request; returns its result or raises WorkerError."""
        self.proc.stdin.write(json.dumps(dict(kw, cmd=cmd)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise WorkerError("%s worker exited (status %s)" % (self.lib, self.proc.wait()))
        reply = json.loads(line)
        if "error" in reply:
            raise WorkerError(reply["error"], reply.get("traceback", ""))
        return reply["ok"]

    def close(self):
        """Asks the worker to stop and waits for it."""
        try:
            self.proc.stdin.write('{"cmd": "quit"}\n')
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=60)


def find_tensorflow(python=None):
    """The interpreter to run TensorFlow with: `python` if given, else this one
    if it can import tensorflow, else None."""
    if python:
        return python
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    return None


def _fmt_t(t):
    if t is None:
        return "-"
    if t < 1:
        return "%.1f ms" % (t * 1e3)
    return "%.2f s" % t


def _fmt_mb(b):
    return "-" if b is None else "%.1f MB" % (b / 2 ** 20)


def _ratio(a, b):
    return "-" if a is None or b is None else "%.2f" % (a / b)


def _table(header, rows):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join("%-*s" % (w, h) for w, h in zip(widths, header))]
    lines.append("-" * len(lines[0]))
    lines += ["  ".join("%-*s" % (w, c) for w, c in zip(widths, r)) for r in rows]
    return "\n".join(lines)


def _loss_check(results):
    rf, ref = results.get("rillflow"), results.get("tensorflow")
    notes = []
    for lib, r in results.items():
        if r.get("build") and not math.isclose(r["build"]["loss_eager"],
                                               r["build"]["loss_function"],
                                               rel_tol=LOSS_RTOL):
            notes.append("%s eager != function" % lib)
    if rf and ref and rf.get("build") and ref.get("build"):
        a, b = rf["build"]["loss_eager"], ref["build"]["loss_eager"]
        if not math.isclose(a, b, rel_tol=LOSS_RTOL):
            notes.append("rillflow %r != tensorflow %r" % (a, b))
        else:
            notes.append("ok (rel diff %.1e)" % (abs(a - b) / abs(b)))
    return "; ".join(notes) or "ok"


def _calibrate(worker, workload, mode, min_time):
    """Steps per round so that a round takes about min_time seconds."""
    t = worker.call("time", workload=workload, mode=mode, number=1)["wall"]
    return max(1, int(math.ceil(min_time / max(t, 1e-6))))


# The (library, mode) pairs each run times.
_COMBOS = {False: {"rillflow": MODES, "tensorflow": MODES},
           True: {"rillflow": ("function", "xla"), "tensorflow": ("xla",), "jax": ("xla",)}}


def run_models(pattern="", compare_tensorflow=False, tensorflow_python=None, size="full",
               min_time=1.0, rounds=3, memory=True, profile=False, out=print, xla=False):
    """Runs the model workloads whose name contains `pattern`; prints the
    timing table (and memory, profiles); returns {workload: {lib: results}}.
    With `xla`: rillflow's and TensorFlow's `jit_compile=True` steps and the
    hand-written JAX ones (jax_models.py), by wall clock and CPU time."""
    names = [w for w in WORKLOADS if pattern in bench_name(w)]
    if not names:
        return {}
    pythons = {"rillflow": sys.executable}
    if xla:
        memory = False
        if importlib.util.find_spec("jax") is None:
            out("(JAX is not importable by %s: the xla mode needs the xla extra)"
                % sys.executable)
            return {}
        pythons["jax"] = sys.executable
    if compare_tensorflow:
        tf_python = find_tensorflow(tensorflow_python)
        if tf_python is None:
            out("(TensorFlow is not importable by %s; skipping it: pass "
                "--tensorflow-python PATH to run it with another interpreter)" % sys.executable)
        else:
            pythons["tensorflow"] = tf_python
    workers = {lib: WorkerProcess(lib, py) for lib, py in pythons.items()}
    all_results = {}
    try:
        for name in names:
            all_results[name] = _run_one(workers, name, size, min_time, rounds, memory,
                                         profile, out, xla)
    finally:
        for w in workers.values():
            w.close()
    if memory:
        for name in names:
            for lib, py in pythons.items():
                for mode in MODES:
                    all_results[name][lib]["cold_" + mode] = _cold_memory(lib, py, name,
                                                                          size, mode)
    if xla:
        _report_xla(all_results, size, out)
    else:
        _report(all_results, list(workers), size, memory, out)
    return all_results


def _cold_memory(lib, python, name, size, mode):
    """`memory_cold` in a fresh worker process (None if the step fails)."""
    w = WorkerProcess(lib, python)
    try:
        return w.call("memory_cold", workload=name, size=size, mode=mode)
    except WorkerError:
        return None
    finally:
        w.close()


def _run_one(workers, name, size, min_time, rounds, memory, profile, out, xla=False):
    """Builds, times (alternating libraries and modes), measures and profiles
    one workload on every worker."""
    results = {lib: {} for lib in workers}
    live = {}
    for lib, w in workers.items():
        try:
            kw = {"xla": True} if xla and lib != "jax" else {}
            results[lib]["build"] = w.call("build", workload=name, size=size, **kw)
            live[lib] = w
        except WorkerError as e:
            results[lib]["error"] = str(e)
            out("%s on %s failed: %s\n%s" % (bench_name(name), lib, e, e.traceback))
    combos = [(lib, mode) for lib in live for mode in _COMBOS[xla][lib]]
    counts = {}
    for lib, mode in combos:
        counts[lib, mode] = _calibrate(live[lib], name, mode, min_time)
    for _ in range(rounds):
        for lib, mode in combos:
            t = live[lib].call("time", workload=name, mode=mode, number=counts[lib, mode])
            for clock, key in (("wall", mode), ("cpu", "cpu_" + mode)):
                best = results[lib].get(key)
                results[lib][key] = t[clock] if best is None else min(best, t[clock])
    if memory:
        for lib, mode in combos:
            results[lib]["mem_" + mode] = live[lib].call("memory", workload=name, mode=mode)
    if profile and "rillflow" in live:
        results["rillflow"]["profile"] = live["rillflow"].call("profile", workload=name)
    for w in live.values():
        w.call("drop", workload=name)
    return results


def _report(all_results, libs, size, memory, out):
    """Prints the timing table, the memory table and the profiles."""
    header = ("workload", "rf eager", "rf function", "tf eager", "tf function",
              "rf/tf eager", "rf/tf fn", "rf 1st call", "tf 1st call", "loss check")
    rows = []
    for name, res in all_results.items():
        rf, ref = res.get("rillflow", {}), res.get("tensorflow", {})
        rows.append((bench_name(name), _fmt_t(rf.get("eager")), _fmt_t(rf.get("function")),
                     _fmt_t(ref.get("eager")), _fmt_t(ref.get("function")),
                     _ratio(rf.get("eager"), ref.get("eager")),
                     _ratio(rf.get("function"), ref.get("function")),
                     _fmt_t(rf.get("build", {}).get("first_call_s")),
                     _fmt_t(ref.get("build", {}).get("first_call_s")),
                     _loss_check(res)))
    versions = ", ".join("%s %s" % (lib, r["build"]["version"])
                         for res in list(all_results.values())[:1] for lib, r in res.items()
                         if r.get("build"))
    out("model training steps (size %s; %s; best of the rounds, seconds per step)"
        % (size, versions))
    out(_table(header, rows))
    if memory:
        _memory_tables(all_results, out)
    for name, res in all_results.items():
        prof = res.get("rillflow", {}).get("profile")
        if prof:
            out("\ncProfile of rillflow's tf.function %s (3 steps, top 10 by tottime)\n%s"
                % (bench_name(name), prof))


def _report_xla(all_results, size, out):
    """The xla mode's table: rillflow's jit_compile=True step against the
    hand-written JAX step and TensorFlow's XLA, by wall clock and CPU time."""
    header = ("workload", "rf function", "rf xla", "jax", "tf xla", "rf xla/jax",
              "rf xla/tf xla", "cpu: rf xla", "cpu: jax", "cpu: tf xla", "cpu rf/jax",
              "cpu rf/tf", "rf xla 1st call", "losses (rf xla, jax, tf xla)")
    rows = []
    for name, res in all_results.items():
        rf, jx, ref = (res.get(k, {}) for k in ("rillflow", "jax", "tensorflow"))
        losses = [r.get("build", {}).get(k) for r, k in ((rf, "loss_xla"), (jx, "loss_eager"),
                                                         (ref, "loss_xla"))]
        rows.append((bench_name(name), _fmt_t(rf.get("function")), _fmt_t(rf.get("xla")),
                     _fmt_t(jx.get("xla")), _fmt_t(ref.get("xla")),
                     _ratio(rf.get("xla"), jx.get("xla")),
                     _ratio(rf.get("xla"), ref.get("xla")),
                     _fmt_t(rf.get("cpu_xla")), _fmt_t(jx.get("cpu_xla")),
                     _fmt_t(ref.get("cpu_xla")), _ratio(rf.get("cpu_xla"), jx.get("cpu_xla")),
                     _ratio(rf.get("cpu_xla"), ref.get("cpu_xla")),
                     _fmt_t(rf.get("build", {}).get("first_call_xla_s")),
                     ", ".join("-" if v is None else "%.5g" % v for v in losses)))
    versions = ", ".join("%s %s" % (lib, r["build"]["version"])
                         for res in list(all_results.values())[:1] for lib, r in res.items()
                         if r.get("build"))
    out("model training steps under XLA (size %s; %s; best of the rounds, seconds per "
        "step; cpu: the worker process's CPU time per step, all threads)" % (size, versions))
    out(_table(header, rows))


def _memory_tables(all_results, out):
    """The two memory tables: a fresh process's first steps, a warm step."""
    titles = {
        "cold_": "peak memory of the first 3 steps above the process's baseline (a fresh "
                 "process, library imported and model built; the trace included under "
                 "tf.function)",
        "mem_": "peak memory one steady-state step adds above the memory just before it "
                "(median of 3; the allocators' caches from earlier steps not counted)",
    }
    for prefix, title in titles.items():
        method = None
        rows = []
        for name, res in all_results.items():
            cells = [bench_name(name)]
            for lib in ("rillflow", "tensorflow"):
                for mode in MODES:
                    m = res.get(lib, {}).get(prefix + mode)
                    cells.append(_fmt_mb(m and m["bytes"]))
                    method = method or (m and m["method"])
            rows.append(tuple(cells))
        out("\n%s; %s" % (title, method or "-"))
        out(_table(("workload", "rf eager", "rf function", "tf eager", "tf function"), rows))


def add_arguments(ap):
    """The model benchmarks' options (shared with benchmarks/run.py)."""
    ap.add_argument("--tensorflow-python", default=None, metavar="PATH",
                    help="run TensorFlow with this interpreter (default: this one, "
                         "if it can import tensorflow)")
    ap.add_argument("--model-size", default="full", choices=("full", "tiny"),
                    help="the issue's sizes or the smoke test's")
    ap.add_argument("--model-min-time", type=float, default=1.0,
                    help="seconds per timing round of a model step")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds (best is kept)")
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory table")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile rillflow's tf.function step (top 10 by tottime)")
    ap.add_argument("--xla", action="store_true",
                    help="the xla mode: jit_compile=True steps on rillflow (through JAX) and "
                         "TensorFlow, and the steps hand-written in JAX")


def main(argv=None):
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only workloads whose name contains this")
    ap.add_argument("--compare-tensorflow", action="store_true")
    ap.add_argument("--worker", choices=("rillflow", "tensorflow", "jax"),
                    help=argparse.SUPPRESS)
    add_arguments(ap)
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    run_models(args.k, args.compare_tensorflow, args.tensorflow_python, args.model_size,
               args.model_min_time, args.rounds, not args.no_memory, args.profile,
               xla=args.xla)


if __name__ == "__main__":
    main()

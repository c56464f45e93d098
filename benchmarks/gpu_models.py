"""The model training steps on a GPU (issue 20): rillflow's
`tf.function(jit_compile=True)` on the GPU JAX sees, checked against the same
steps on the CPU, and timed next to the steps hand-written in JAX on the same
GPU.

    python benchmarks/gpu_models.py                   # cnn and attention, full size
    python benchmarks/gpu_models.py -k cnn --steps 200 --json out.json
    python benchmarks/gpu_models.py --size tiny --allow-cpu   # smoke test without a GPU

For each workload (model_workloads.py's steps, jax_models.py's JAX steps):

1. Agreement: with TensorFloat-32 off (full float32 products, as on the
   CPU), the variables are created in `tf.device("/GPU:0")` and
   `--check-steps` steps run there, then from the same initial weights the
   same steps run in `tf.device("/CPU:0")`; the losses and final weights
   must agree within float tolerance (the script exits 1 where they do not).
2. Speed: with TensorFloat-32 at its default (on, as TensorFlow and JAX
   have it), `--steps` steps on the GPU, each waiting for its loss on the
   host, after warm-up; the same for the hand-written JAX step (parameters
   threaded on the device, as a JAX user writes it). Reported: ms per step
   (the median of `--rounds` rounds), the ratio, the first call (trace and
   compile), and the GPU's name.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

WORKLOADS = ("cnn", "attention")
LOSS_RTOL = 1e-4
WEIGHT_RTOL, WEIGHT_ATOL = 1e-3, 1e-5


def _max_rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-6))) if a.size else 0.0


def _run_steps(model, fn, device, n):
    import rillflow as tf
    with tf.device(device):
        losses = [float(fn()) for _ in range(n)]
    return losses, [v.numpy() for v in model.variables]


def check(name, size, steps):
    """Runs `steps` steps on the GPU and on the CPU from the same weights
    (TensorFloat-32 off); returns the comparison."""
    import rillflow as tf
    import model_workloads as mw
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        with tf.device("/GPU:0"):
            model = mw.BUILDERS[name](tf, size)
        placed = [v.device for v in model.variables]
        fn = model.make_function(jit_compile=True)
        gpu_losses, gpu_weights = _run_steps(model, fn, "/GPU:0", steps)
        model.reset()
        cpu_losses, cpu_weights = _run_steps(model, fn, "/CPU:0", steps)
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(True)
    loss_rel = _max_rel(gpu_losses, cpu_losses)
    weight_ok = all(np.allclose(g, c, rtol=WEIGHT_RTOL, atol=WEIGHT_ATOL)
                    for g, c in zip(gpu_weights, cpu_weights))
    weight_diff = max(float(np.max(np.abs(g - c))) for g, c in zip(gpu_weights, cpu_weights))
    return {"gpu_losses": gpu_losses, "cpu_losses": cpu_losses, "loss_max_rel": loss_rel,
            "weight_max_abs": weight_diff, "variables_placed_on": sorted(set(placed)),
            "agree": bool(loss_rel <= LOSS_RTOL and weight_ok),
            "loss_falls": bool(gpu_losses[-1] < gpu_losses[0])}


def _time(fn, steps, rounds, warmup=3):
    for _ in range(warmup):
        fn()
    per_step = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        per_step.append((time.perf_counter() - t0) / steps)
    return float(np.median(per_step))


def time_rillflow(name, size, steps, rounds, profile=False):
    """ms per step of rillflow's jit_compile=True step on the GPU, with the
    first call's time and loss (and with `profile`, a cProfile of `steps`
    more steps, printed)."""
    import rillflow as tf
    import model_workloads as mw
    with tf.device("/GPU:0"):
        model = mw.BUILDERS[name](tf, size)
        fn = model.make_function(jit_compile=True)
        t0 = time.perf_counter()
        first_loss = float(fn())
        first = time.perf_counter() - t0
        model.reset()
        t = _time(lambda: float(fn()), steps, rounds)
        if profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(steps):
                float(fn())
            prof.disable()
            print("--- cProfile of %d %s steps" % (steps, name))
            pstats.Stats(prof).sort_stats("tottime").print_stats(18)
    return {"ms": t * 1e3, "first_call_s": first, "first_loss": first_loss}


def time_jax(name, size, steps, rounds):
    """ms per step of the hand-written JAX step on JAX's default device."""
    import jax_models
    jax_models._SIZE[0] = size
    model = jax_models.BUILDERS[name](size)
    fn = model.make_function()
    t0 = time.perf_counter()
    first_loss = float(fn())
    first = time.perf_counter() - t0
    model.reset()
    t = _time(fn, steps, rounds)
    return {"ms": t * 1e3, "first_call_s": first, "first_loss": first_loss}


def main(argv=None):
    """Runs the checks and timings; prints a table; exits 1 if a check fails."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", default="", help="only workloads whose name contains this")
    ap.add_argument("--size", default="full", choices=("full", "tiny"))
    ap.add_argument("--steps", type=int, default=100, help="timed steps per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--check-steps", type=int, default=5)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of rillflow's steps")
    ap.add_argument("--allow-cpu", action="store_true",
                    help="run without a GPU (a smoke test: '/GPU:0' falls back to the CPU)")
    args = ap.parse_args(argv)

    import rillflow as tf
    from rillflow.framework import lowering
    gpus = lowering.gpu_devices()
    if not gpus and not args.allow_cpu:
        print("JAX sees no GPU (install JAX's CUDA build); --allow-cpu runs on the CPU")
        return 2
    device = gpus[0].device_kind if gpus else "no GPU (CPU fallback)"
    print("device:", device, "| jax", lowering.load().__version__,
          "| GPUs listed:", [d.name for d in tf.config.list_physical_devices("GPU")])
    results, ok = {"device": device, "size": args.size, "workloads": {}}, True
    names = [n for n in WORKLOADS if args.k in n]
    for name in names:
        r = results["workloads"][name] = {}
        r["check"] = check(name, args.size, args.check_steps)
        ok = ok and r["check"]["agree"]
        r["rillflow"] = time_rillflow(name, args.size, args.steps, args.rounds, args.profile)
        print(name, "check:", json.dumps(r["check"]), "rillflow:", r["rillflow"], flush=True)
    # JAX last: jax_models turns JAX's 64-bit mode off for its own steps.
    for name in names:
        r = results["workloads"][name]
        r["jax"] = time_jax(name, args.size, args.steps, args.rounds)
        r["ratio"] = r["rillflow"]["ms"] / r["jax"]["ms"]
        r["first_loss_agrees"] = bool(abs(r["rillflow"]["first_loss"] - r["jax"]["first_loss"])
                                      <= 1e-3 * abs(r["jax"]["first_loss"]))
        print(name, "jax:", r["jax"], flush=True)
    print()
    print("| step (%s) | rillflow jit_compile=True | hand-written JAX | ratio | "
          "first call rillflow / JAX | GPU vs CPU: loss max rel, weight max abs |" % device)
    print("|---|---|---|---|---|---|")
    for name in names:
        r = results["workloads"][name]
        print("| %s | %.3f ms | %.3f ms | %.2f | %.2f s / %.2f s | %.1e, %.1e (%s) |" % (
            name, r["rillflow"]["ms"], r["jax"]["ms"], r["ratio"],
            r["rillflow"]["first_call_s"], r["jax"]["first_call_s"],
            r["check"]["loss_max_rel"], r["check"]["weight_max_abs"],
            "agree" if r["check"]["agree"] else "DIFFER"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

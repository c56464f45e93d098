"""Keras `model.fit` time per step (issue 18): a small MLP and the small CNN
of model_workloads.py, Keras 3 on rillflow against Keras on TensorFlow (and
on JAX when a Python with JAX and Keras is given), same machine, same run.

    python benchmarks/keras_fit.py --tensorflow-python /tf/bin/python
    python benchmarks/keras_fit.py -k mlp --jax-python /jax/bin/python

Each library runs in its own worker process (this file with --worker). A
worker builds the model, compiles it (`jit_compile=False` on TensorFlow: the
default graph mode), runs one warm-up epoch (tracing), then times whole
epochs of `fit` on NumPy arrays and reports the best epoch's time divided by
its steps. The parent alternates the workers round by round, so a slow moment
of the machine weighs on each.
"""
import argparse
import json
import os
import subprocess
import sys
import time

WORKLOADS = {
    # name: (input shape, batch, steps per epoch)
    "mlp": ((784,), 128, 40),
    "cnn": ((28, 28, 1), 32, 20),
}


def _build(keras, name):
    layers = keras.layers
    if name == "mlp":
        model = keras.Sequential([keras.Input((784,)), layers.Dense(256, activation="relu"),
                                  layers.Dense(128, activation="relu"), layers.Dense(10)])
    else:
        model = keras.Sequential([
            keras.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
            layers.MaxPooling2D(), layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPooling2D(), layers.Flatten(), layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.SGD(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def worker(library):
    """Serves rounds over stdin/stdout: one JSON request line per round."""
    import numpy as np
    os.environ["KERAS_BACKEND"] = "jax" if library == "jax" else "tensorflow"
    if library == "rillflow":
        import rillflow as tf
        keras = tf.keras
    else:
        import keras
    keras.utils.set_random_seed(0)
    models, data = {}, {}
    for line in sys.stdin:
        req = json.loads(line)
        name = req["workload"]
        shape, batch, steps = WORKLOADS[name]
        if name not in models:
            rng = np.random.RandomState(0)
            x = rng.rand(batch * steps, *shape).astype("float32")
            y = rng.randint(0, 10, size=batch * steps).astype("int32")
            models[name] = _build(keras, name)
            data[name] = (x, y)
            models[name].fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
        x, y = data[name]
        start = time.perf_counter()
        models[name].fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
        per_step = (time.perf_counter() - start) / steps
        print(json.dumps({"per_step": per_step}), flush=True)


def main(argv=None):
    """Runs the workers and prints the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", help="only workloads whose name contains this")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--rillflow-python", default=sys.executable)
    p.add_argument("--tensorflow-python")
    p.add_argument("--jax-python")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker)

    pythons = {"rillflow": args.rillflow_python}
    if args.tensorflow_python:
        pythons["tensorflow"] = args.tensorflow_python
    if args.jax_python:
        pythons["jax"] = args.jax_python
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    procs = {lib: subprocess.Popen([py, os.path.abspath(__file__), "--worker", lib],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   env=env)
             for lib, py in pythons.items()}
    names = [n for n in WORKLOADS if not args.k or args.k in n]
    best = {}
    try:
        for name in names:
            for _ in range(args.rounds):
                for lib, proc in procs.items():
                    proc.stdin.write(json.dumps({"workload": name}) + "\n")
                    proc.stdin.flush()
                    line = proc.stdout.readline()
                    if not line:
                        raise RuntimeError(f"the {lib} worker died")
                    t = json.loads(line)["per_step"]
                    key = (name, lib)
                    best[key] = min(best.get(key, t), t)
    finally:
        for proc in procs.values():
            proc.stdin.close()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:   # a worker slow to exit on a loaded machine
                proc.kill()
    header = "workload   " + "".join(f"{lib:>14s}" for lib in procs)
    if "tensorflow" in procs:
        header += "   rillflow/tensorflow"
    print(header)
    for name in names:
        row = f"{name + '_fit':10s} " + "".join(
            f"{best[(name, lib)] * 1e3:11.3f} ms" for lib in procs)
        if "tensorflow" in procs:
            row += f"   {best[(name, 'rillflow')] / best[(name, 'tensorflow')]:.2f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks that TensorFlow loads the SavedModels rillflow writes.

rillflow (this interpreter) saves, under --dir, the objects of
tests/saved_model_structures.py: `module` (variables, nested modules,
functions with and without input signatures, two signatures) and
`control_flow` (tf.cond, tf.while_loop, AutoGraph loops, tf.switch_case),
`training` (a training step: gradients and variable updates),
and with Keras installed `keras_export` (Keras 3's `model.export`, run on
rillflow). Then TensorFlow (--tensorflow, a Python with tensorflow-cpu
2.21) loads each in a subprocess, makes every call of
saved_model_structures.CALLS and compares the results with TensorFlow's own
(tests/data/tf_saved_models/expected.json), and `saved_model_cli show
--all` describes each directory.

    PYTHONPATH=. python tools/tf_saved_model_check.py --tensorflow /work/tfref/bin/python

tests/test_tf_saved_models.py runs it when RILLFLOW_TF_PYTHON is set.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import saved_model_structures as ss  # noqa: E402  (needs tests/ on the path)

EXPECTED = os.path.join(HERE, "..", "tests", "data", "tf_saved_models", "expected.json")


def rillflow_side(directory):
    """Saves the objects with rillflow; returns the names written."""
    names = ["module", "control_flow", "training"]
    if importlib.util.find_spec("keras") is not None:
        os.environ["KERAS_BACKEND"] = "tensorflow"
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import keras
        import tensorflow as tf
        ss.build_keras_model(keras).export(os.path.join(directory, "keras_export"))
        names.append("keras_export")
    else:
        import rillflow as tf
    for name, build in (("module", ss.build_module), ("control_flow", ss.build_control_flow),
                        ("training", ss.build_training)):
        obj, signatures = build(tf)
        tf.saved_model.save(obj, os.path.join(directory, name), signatures=signatures)
    return names


def tensorflow_side(directory, names):
    """Loads each SavedModel with TensorFlow and compares every call."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    with open(EXPECTED) as f:
        expected = json.load(f)
    for name in names:
        loaded = tf.saved_model.load(os.path.join(directory, name))
        for spec, want in zip(ss.CALLS[name], expected[name]):
            what = f"{name}: {spec.get('path') or spec.get('signature')}"
            ss.assert_matches(ss.call(tf, loaded, spec), want, what)
        print(f"{name}: TensorFlow loaded it; {len(ss.CALLS[name])} calls match")


def main(argv=None):
    """Runs both sides; exit status 0 when TensorFlow loaded everything."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorflow", help="a Python interpreter with TensorFlow")
    ap.add_argument("--dir", help="where to write the SavedModels (default: a temporary one)")
    ap.add_argument("--tf-side", nargs="+", metavar=("DIR", "NAME"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tf_side:
        tensorflow_side(args.tf_side[0], args.tf_side[1:])
        return 0
    if not args.tensorflow:
        ap.error("--tensorflow is required")
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or tmp
        names = rillflow_side(directory)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run([args.tensorflow, os.path.abspath(__file__), "--tf-side",
                               directory] + names, env=env)
        if proc.returncode:
            return proc.returncode
        cli = os.path.join(os.path.dirname(args.tensorflow), "saved_model_cli")
        if os.path.exists(cli):
            for name in names:
                show = subprocess.run([cli, "show", "--all", "--dir",
                                       os.path.join(directory, name)],
                                      capture_output=True, text=True, env=env)
                if show.returncode or "signature_def['serving_default']" not in show.stdout:
                    print(show.stdout + show.stderr)
                    return 1
            print("saved_model_cli show --all describes every SavedModel")
        print("all checks passed")
        return 0


if __name__ == "__main__":
    sys.exit(main())

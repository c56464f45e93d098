"""Records what tests/data/keras_train_script.py prints on real TensorFlow
(Keras 3 on its TensorFlow backend) into tests/data/keras_train_script.json,
which tests/test_cli_run.py compares with `rillflow run` of the same script.

    KERAS_BACKEND=tensorflow TF_PYTHON tools/keras_run_fixture.py
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")


def main():
    """Runs the script with this Python (which must have TensorFlow)."""
    import tensorflow as tf
    env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, os.path.join(DATA, "keras_train_script.py")],
                         env=env, check=True, capture_output=True, text=True).stdout
    with open(os.path.join(DATA, "keras_train_script.json"), "w") as f:
        f.write(out.strip().splitlines()[-1] + "\n")
    print("recorded with TensorFlow", tf.__version__)


if __name__ == "__main__":
    main()

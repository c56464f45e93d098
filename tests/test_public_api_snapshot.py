"""TensorFlow 2.21's public names that rillflow has had must stay (issue 22).

tests/data/tf_public_names.json is written by `tools/tf_api_diff.py --snapshot`
from a TensorFlow installation: TensorFlow's names (outside tf.keras, tf.compat,
tf.raw_ops, TPU, Lite, DTensor) and every name rillflow has resolved in any
snapshot so far."""
import json
import os

import pytest

import rillflow as tf

_SNAPSHOT = os.path.join(os.path.dirname(__file__), "data", "tf_public_names.json")


def _load():
    with open(_SNAPSHOT) as f:
        return json.load(f)


def _resolve(dotted):
    """`tf.<dotted>` or raises AttributeError naming the first missing part."""
    obj = tf
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def test_snapshot_is_tensorflow_221_and_names_rillflow_had_are_tensorflows():
    snap = _load()
    assert snap["tensorflow"] == "2.21.0"
    assert len(snap["names"]) > 1300
    assert set(snap["rillflow_had"]) <= set(snap["names"])


def test_no_name_rillflow_once_had_disappears():
    snap = _load()
    gone = []
    for name in snap["rillflow_had"]:
        try:
            _resolve(name)
        except AttributeError:
            gone.append(name)
    assert not gone, f"public names that rillflow had and lost: {gone}"


def test_names_keep_their_kind():
    # A TensorFlow class must not become a plain function here and the reverse
    # (isinstance checks and subclassing in user code depend on it).
    snap = _load()
    wrong = []
    for name in snap["rillflow_had"]:
        kind = snap["names"][name]
        obj = _resolve(name)
        if kind == "class" and not isinstance(obj, type):
            wrong.append((name, kind, type(obj).__name__))
        elif kind == "function" and not callable(obj):
            wrong.append((name, kind, type(obj).__name__))
    assert not wrong, wrong


@pytest.mark.parametrize("name", ["math.add", "nn.conv2d", "linalg.matmul", "data.Dataset",
                                  "image.decode_png"])
def test_well_known_names_are_in_the_snapshot(name):
    assert name in _load()["rillflow_had"]

"""`tf.experimental.numpy` against TensorFlow 2.21: every case of
tools/tnp_differential.py, evaluated with rillflow eagerly and inside
tf.function, must give the values (to a dtype's tolerance), dtypes and shapes
or the exception class TensorFlow gave, recorded in tests/data/tnp_tf.json
(regenerate with `/work/tfref/bin/python tools/tnp_differential.py --record`).

Each group of cases runs in its own process: `experimental_enable_numpy_behavior()`
changes `tf.Tensor` for the rest of a process, as in TensorFlow."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import tnp_differential as T  # noqa: E402

with open(os.path.join(HERE, "data", "tnp_tf.json")) as _f:
    EXPECTED = json.load(_f)

_results = {}


def _group(group):
    """rillflow's results for one group, computed once in a subprocess."""
    if group not in _results:
        env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
        r = subprocess.run([sys.executable, T.__file__, "--worker", "rillflow", "--group", group],
                           capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        _results[group] = json.loads(r.stdout)
    return _results[group]


def test_the_table_is_recorded():
    assert {f"{g}:{c}" for g, c in T.cases()} == set(EXPECTED)


@pytest.mark.parametrize("group", sorted(T.GROUP_SETUP))
def test_group(group):
    got = _group(group)
    bad = []
    for key, want in EXPECTED.items():
        g, case = key.split(":", 1)
        if g == group and not T.known(case) and not T.case_agrees(case, got[case], want):
            bad.append(f"{case}\n  rillflow:   {json.dumps(got[case])[:400]}\n"
                       f"  tensorflow: {json.dumps(want)[:400]}")
    assert not bad, f"{len(bad)} cases differ from TensorFlow:\n" + "\n".join(bad[:30])

"""The compiler against eager execution on random op DAGs
(compiler_dag_programs.py, compared by compiler_dag_check.py): a fixed set of
seeds in CI; tools/compiler_dag_fuzz.py runs thousands."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import fusion

import compiler_dag_check as chk
import compiler_dag_programs as dag

SEEDS = range(0, 240)


@pytest.mark.parametrize("start", range(SEEDS.start, SEEDS.stop, 40))
def test_random_dags_compile_to_eagers_results(start):
    failures = []
    for seed in range(start, start + 40):
        found = chk.check(dag.generate(seed))
        if found is not None:
            failures.append((seed, found))
    assert not failures, failures


def test_the_catalog_covers_the_compilers_elementwise_ops():
    # Every op the fusion pass may fuse is generated (by its op type).
    covered = set(dag.UNARY) | set(dag.BINARY) | {"SelectV2"}
    assert not fusion.ELEMENTWISE - covered, sorted(fusion.ELEMENTWISE - covered)


def test_programs_are_deterministic_and_valid():
    a, b = dag.generate(7), dag.generate(7)
    assert a.source() == b.source()
    assert all(np.array_equal(x, y) for x, y in zip(a.inputs, b.inputs))
    made = [dag.generate(s) for s in range(60)]
    assert sum(p.gradients for p in made) > 10 and sum(bool(p.variables) for p in made) > 5
    # Shapes the generator tracks are the shapes eager execution gives.
    for p in made[:20]:
        probe = chk._copy(p)
        probe.gradients = False
        probe.outputs = [k for k, _ in p.lines if k is not None]
        outcome = chk.run(probe, "eager")
        if outcome[0] == "ok":
            for k, value in zip(probe.outputs, outcome[1]):
                assert value.shape == p.nodes[k].shape, (p.seed, p.nodes[k].name)


def test_a_difference_is_found_and_minimized(monkeypatch):
    # A deliberately wrong specialization (a - b for a + b) must be caught
    # and minimized to the add alone.
    from rillflow.compiler import specialize
    monkeypatch.setitem(specialize._BINARY, "AddV2", "{0} - {1}")
    seed = next(s for s in range(200) if "tf.add(" in dag.generate(s).source() and
                chk.check(dag.generate(s)) is not None)
    small = chk.minimize(dag.generate(seed))
    assert chk.check(small)[0] == "compiler"
    assert "tf.add(" in small.source() and small.source().count(" = ") <= 3

"""Shared test fixtures: every test starts eager, with no tapes, the
default function settings and no retracing history (TensorFlow's retracing
warning counts traces per Python function across Function objects, so one
test's traces would otherwise count in the next)."""
import pytest

from rillflow.framework import context
from rillflow.function import polymorphic_function


@pytest.fixture(autouse=True)
def _clean_context():
    polymorphic_function._retracing_detector.reset()
    yield
    context.config.run_functions_eagerly = False
    assert context.state.graph is None, "a test left a graph as the default"
    context.state.tapes = []

"""Shared test fixtures: every test starts eager, with no tapes and the
default function settings."""
import pytest

from rillflow.framework import context


@pytest.fixture(autouse=True)
def _clean_context():
    yield
    context.config.run_functions_eagerly = False
    assert context.state.graph is None, "a test left a graph as the default"
    context.state.tapes = []

"""Eager execution extras: GradientTape, custom gradients, gradient checking."""
from . import gradient_checker, graph_gradients, tape  # noqa: F401

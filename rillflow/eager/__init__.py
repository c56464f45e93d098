"""Eager execution extras: GradientTape, custom gradients, gradient checking."""
from . import forwardprop, gradient_checker, graph_gradients, tape  # noqa: F401

"""Eager execution extras: GradientTape, custom gradients, gradient checking."""
from . import gradient_checker, tape  # noqa: F401

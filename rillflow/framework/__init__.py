"""Core data structures: dtypes, shapes, tensors, graphs, the op registry."""

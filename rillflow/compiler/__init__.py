"""The graph compiler: a traced graph becomes Python source and a callable (codegen.py),
with specialized expressions, fusion, buffer reuse and loop optimizations; or, for
`jit_compile=True`, one XLA computation through JAX (xla_lower.py lowers the graph,
xla_compile.py compiles and calls it, xla_export.py is `tf.experimental.to_jax`). See
docs/architecture.md, "A compiled graph" and "XLA"."""
from . import xla_export  # noqa: F401  (registers tf.experimental.to_jax)

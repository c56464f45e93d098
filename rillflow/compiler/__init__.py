"""The graph compiler: a traced graph becomes Python source and a callable (codegen.py),
with specialized expressions, fusion, buffer reuse and loop optimizations. See
docs/architecture.md, "A compiled graph"."""

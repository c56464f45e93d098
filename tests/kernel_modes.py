"""A skip marker for tests of the default matrix-product path: with
RILLFLOW_BLAS_THREADS=kernels (framework/blas_threads.py) compiled graphs
call `xla_gemm.matmul`, which cuts large products over the kernel threads,
instead of writing `a @ b` (so the generated source, the buffers it reuses
and the products' last bits are another mode's)."""
import pytest

from rillflow.ops.kernels import threads

default_products = pytest.mark.skipif(
    threads.spreading(), reason="RILLFLOW_BLAS_THREADS=kernels: products are cut over the "
                                "kernel threads by xla_gemm.matmul")

"""Numeric kernels that reproduce TensorFlow's CPU results bit for bit where NumPy's
own routines round differently (tanh_kernel; exp_log: exp, expm1, log, log1p,
sigmoid, softplus; softmax_kernel: Eigen's row sums, softmax and the cross
entropies; trig: sin, cos, tan, atan2; erf: erf, erfc; pow: Eigen's packet pow;
glibc_float: glibc's float functions for the scalar tails and tan; glibc_scalar: the
same one element at a time for short tails and 0-d tensors; x86_estimates: the
rcp/rsqrt estimates, rsqrt and Eigen's packet/scalar split; chunked: runs a kernel
over cache-sized blocks; threads: the worker threads GIL-free kernels share; cephes: TensorFlow's ndtri, erfinv, dawsn, expint, fresnel and
spence; bessel: Eigen's Bessel functions), and the compiled versions the optional `jit` extra
provides (jit_kernels: loading and dispatch; jit_tanh; jit_exp_log: exp, expm1, log,
log1p, sigmoid, softplus; jit_softmax: the row sums; jit_erf: erf, erfc, rsqrt;
jit_trig: sin, cos, tan, atan2; jit_pow: pow; jit_glibc: glibc_float's functions; jit_reduce: sums over a run of axes);
xla_gemm: large float32 matrix products through XLA's dot (opt-in, the `xla` extra).
Kernels are plain functions on NumPy arrays; the op families register them."""

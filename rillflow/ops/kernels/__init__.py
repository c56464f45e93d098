"""Numeric kernels that reproduce TensorFlow's CPU results bit for bit where
NumPy's own routines round differently (tanh_kernel), and the compiled versions the
optional `jit` extra provides (jit_kernels, jit_tanh). Kernels are plain functions on
NumPy arrays; the op families register them."""

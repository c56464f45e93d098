"""Random ops: TensorFlow's seeding rules and the per-kernel generators the ops draw from
(seeding), the stateful ops of `tf.random` (stateful_ops), the stateless ops (stateless_ops) and
`tf.random.Generator` (generator), the candidate samplers and
compute_accidental_hits (candidate_sampling), index_shuffle and
stateless_shuffle (shuffle_ops), stateless_parameterized_truncated_normal
(parameterized_truncated), the top-level initializers (`tf.random_normal_initializer`,
...: initializers); random_util holds what they share (argument checks, shape
functions, samplers). The numbers are TensorFlow's: Philox4x32-10 computed on whole arrays
(philox), TensorFlow's conversion of its words into values and its fill order (distributions),
the C library's float logf/sincosf that its Box-Muller transform calls (libm_float), and
the gamma, Poisson and binomial rejection samplers of the stateless ops (samplers). With the
`jit` extra, large requests use compiled fills with the same bits (jit_philox, loaded in the
background by jit_random)."""

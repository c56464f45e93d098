"""Runtime checks and printing: `tf.debugging.assert_*` and check_numerics
(check_ops), `tf.print`, `tf.strings.format` and `tf.debugging.Assert` (logging_ops)."""

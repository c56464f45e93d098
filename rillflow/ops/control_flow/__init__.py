"""Graph control flow: `tf.cond`/`tf.case` (cond), `tf.while_loop` and its
gradient (while_loop; while_gradient, above it, attaches the gradient to the While
ops), the machinery they share (control_flow_util), ordering ops (control_ops),
tensor lists and `tf.TensorArray` (list_ops, tensor_array), `map_fn`/`scan`/`fold*`
(functional_ops), `tf.py_function` (script_ops) and `tf.CriticalSection`
(critical_section)."""

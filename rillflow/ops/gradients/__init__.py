"""The backprop engine (backprop): reverse-mode differentiation over recorded ops,
shared by the eager tape (rillflow/eager/tape.py), `tf.gradients`, function and
control-flow gradients; and sparse (IndexedSlices) gradients (sparse_gradients). Each
op's own gradient is registered with the op, in its family's module."""

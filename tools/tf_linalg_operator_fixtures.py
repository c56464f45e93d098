"""Records TensorFlow's LinearOperators (tests/linop_cases.py builds them) into
tests/data/tf_linalg_operators.npz: per operator its dense matrix, products,
solves, determinants, diagonal, eigenvalues, derived operators (and their
types), static shape, dtype, hints and name, or the exception class a method
raises; tests/test_linear_operator.py compares rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_linalg_operator_fixtures.py
"""
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import linop_cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "tf_linalg_operators.npz")


def describe(op):
    """Type, name, dtype, static shape and hints as one string."""
    return repr((type(op).__name__, op.name, op.dtype.name, op.shape.as_list(),
                 op.is_non_singular, op.is_self_adjoint, op.is_positive_definite,
                 op.is_square))


def main():
    """Writes the fixture file."""
    out = {}
    for name, op in linop_cases.build_cases(tf).items():
        out[f"{name}/describe"] = np.array(describe(op))
        for method in linop_cases.METHODS:
            try:
                out[f"{name}/{method}"] = np.asarray(linop_cases.run_method(op, method, tf))
            except Exception as e:  # noqa: BLE001 - the class is what is recorded
                out[f"{name}/{method}/error"] = np.array(type(e).__name__)
        for derived in ("adjoint", "inverse", "cholesky"):
            try:
                out[f"{name}/{derived}/describe"] = np.array(describe(getattr(op, derived)()))
            except Exception as e:  # noqa: BLE001
                out[f"{name}/{derived}/describe"] = np.array(type(e).__name__)
    # Gradients with respect to the parameters.
    diag = tf.constant(linop_cases.DIAG[0])
    mat = tf.constant(linop_cases.SPD)
    u = tf.constant(linop_cases.U)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([diag, mat, u])
        lr = tf.linalg.LinearOperatorLowRankUpdate(
            tf.linalg.LinearOperatorDiag(tf.abs(diag) + 1.0, is_positive_definite=True), u)
        kr = tf.linalg.LinearOperatorKronecker(
            [tf.linalg.LinearOperatorDiag(diag),
             tf.linalg.LinearOperatorFullMatrix(mat, is_self_adjoint=True,
                                                is_positive_definite=True)])
        losses = {"lowrank_logdet": lr.log_abs_determinant(),
                  "lowrank_solve": tf.reduce_sum(lr.solve(tf.ones([3, 1], tf.float64))),
                  "kron_solve": tf.reduce_sum(kr.solve(tf.ones([12, 1], tf.float64)) ** 2),
                  "kron_logdet": kr.log_abs_determinant()}
    for k, loss in losses.items():
        out[f"grad/{k}/value"] = loss.numpy()
        for v, vname in ((diag, "diag"), (mat, "mat"), (u, "u")):
            g = tape.gradient(loss, v)
            if g is not None:
                out[f"grad/{k}/{vname}"] = g.numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT}")


if __name__ == "__main__":
    main()

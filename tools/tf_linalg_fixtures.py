"""Records TensorFlow's results for tf.linalg.lu, lu_solve, lu_matrix_inverse,
lu_reconstruct, eig, eigvals, eigh, eigvalsh, matrix_rank and pinv (values
and gradients) into tests/data/tf_linalg.npz, which
tests/test_linalg_special_names.py compares with rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_linalg_fixtures.py

Eigenvectors are unique only up to a unit factor per column and eig's
eigenvalues come in no set order, so what is recorded for them is invariant
under both: sorted eigenvalues, and losses that pair each eigenvalue with
the squared moduli of its own eigenvector.
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_linalg.npz")
rng = np.random.default_rng(20261129)


def matrices():
    """Square test matrices by name: small and large (Eigen blocks its LU
    above 16 x 16), batched, complex, with ties in the pivot column."""
    def cplx(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return {
        "m3": np.array([[1., 2, 3], [4, 5, 6], [7, 8, 10]]),
        "tie": np.array([[1., 2, 0], [-1, 3, 1], [1, 0, 2]]),
        "r5": rng.standard_normal((5, 5)),
        "batch": rng.standard_normal((2, 3, 4, 4)),
        "r20": rng.standard_normal((20, 20)),
        "c4": cplx(4, 4),
        "cbatch": cplx(3, 3, 3),
    }


def eig_loss(e, v, w):
    """sum_i Re(e_i) * sum_j w_j |v_ji|^2 + sum_i Im(e_i)^2: invariant under
    the order of the eigenpairs and the phase of each eigenvector."""
    mod2 = tf.math.real(v * tf.math.conj(v))
    per_vector = tf.reduce_sum(mod2 * w[:, None], axis=-2)
    return (tf.reduce_sum(tf.math.real(e) * per_vector)
            + tf.reduce_sum(tf.math.imag(e) ** 2))


def main():
    """Writes the fixture file."""
    out = {}
    for name, a in matrices().items():
        n = a.shape[-1]
        dtypes = ("complex64", "complex128") if np.iscomplexobj(a) else ("float32", "float64")
        out[f"{name}/a"] = a
        rhs = rng.standard_normal(a.shape[:-1] + (2,))
        out[f"{name}/rhs"] = rhs
        w = rng.standard_normal(n)
        out[f"{name}/w"] = w
        for dt in dtypes:
            at = tf.constant(a, dt)
            lu, p = tf.linalg.lu(at)
            out[f"{name}/{dt}/lu"], out[f"{name}/{dt}/p"] = lu.numpy(), p.numpy()
            rt = tf.constant(rhs, dt)
            with tf.GradientTape() as tape:
                tape.watch([lu, rt])
                x = tf.linalg.lu_solve(lu, p, rt)
                loss = tf.reduce_sum(tf.math.real(x * tf.math.conj(x)))
            g_lu, g_rhs = tape.gradient(loss, [lu, rt])
            out[f"{name}/{dt}/lu_solve"] = x.numpy()
            out[f"{name}/{dt}/lu_solve/d_lu"] = g_lu.numpy()
            out[f"{name}/{dt}/lu_solve/d_rhs"] = g_rhs.numpy()
            out[f"{name}/{dt}/lu_inverse"] = tf.linalg.lu_matrix_inverse(lu, p).numpy()
            out[f"{name}/{dt}/lu_reconstruct"] = tf.linalg.lu_reconstruct(lu, p).numpy()
            e = tf.linalg.eigvals(at).numpy()
            out[f"{name}/{dt}/eigvals"] = np.sort_complex(e.reshape(-1, n)).reshape(e.shape)
            with tf.GradientTape() as tape:
                tape.watch(at)
                e, v = tf.linalg.eig(at)
                loss = eig_loss(e, v, tf.constant(w, e.dtype.real_dtype))
            out[f"{name}/{dt}/eig/d_a"] = tape.gradient(loss, at).numpy()
            herm = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
            ht = tf.constant(herm, dt)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(ht)
                e, v = tf.linalg.eigh(ht)
                loss = eig_loss(e, v, tf.constant(w, e.dtype.real_dtype))
                ev = tf.linalg.eigvalsh(ht)
                loss_ev = tf.reduce_sum(tf.math.real(ev) * tf.constant(w, ev.dtype.real_dtype))
            out[f"{name}/{dt}/eigh"] = e.numpy()
            out[f"{name}/{dt}/eigh/d_a"] = tape.gradient(loss, ht).numpy()
            out[f"{name}/{dt}/eigvalsh/d_a"] = tape.gradient(loss_ev, ht).numpy()
            if not np.iscomplexobj(a):
                out[f"{name}/{dt}/rank"] = tf.linalg.matrix_rank(at).numpy()
                low = tf.constant(a[..., :-1] @ np.swapaxes(a[..., :-1], -1, -2), dt)
                out[f"{name}/{dt}/rank_low"] = tf.linalg.matrix_rank(low).numpy()
                wide = tf.constant(a[..., :-1, :], dt)
                with tf.GradientTape() as tape:
                    tape.watch(wide)
                    pi = tf.linalg.pinv(wide)
                    loss = tf.reduce_sum(pi ** 2)
                out[f"{name}/{dt}/pinv"] = pi.numpy()
                out[f"{name}/{dt}/pinv/d_a"] = tape.gradient(loss, wide).numpy()
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(out), "arrays")


if __name__ == "__main__":
    main()

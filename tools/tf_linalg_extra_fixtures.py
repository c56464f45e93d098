"""Records TensorFlow's results for the tf.linalg functions expm, sqrtm, logm,
lstsq, cholesky_solve, tensor_diag(_part), normalize, tridiagonal_matmul,
tridiagonal_solve, banded_triangular_solve, eigh_tridiagonal, and for
tf.math.igamma, igammac, betainc and sobol_sample (values and gradients)
into tests/data/tf_linalg_extra.npz, which tests/test_linalg_extra.py
compares with rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_linalg_extra_fixtures.py
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_linalg_extra.npz")
rng = np.random.default_rng(20261127)


def grad_of(fn, *args):
    """fn(*args) and the gradients of sum(real(fn * w)) for a fixed w."""
    args = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(args)
        y = fn(*args)
        w = tf.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape),
                        y.dtype)
        loss = tf.reduce_sum(tf.math.real(y * w))
    grads = tape.gradient(loss, args)
    return y.numpy(), [None if g is None else g.numpy() for g in grads]


def main():
    """Writes the fixture file."""
    out = {}
    mats = {
        "small": rng.standard_normal((3, 3)) * 0.05,
        "mid": rng.standard_normal((4, 4)) * 0.5,
        "big": rng.standard_normal((2, 3, 3)) * 3,
    }
    for name, a in mats.items():
        out[f"expm/{name}/a"] = a
        for dt in (np.float32, np.float64):
            y, (g,) = grad_of(tf.linalg.expm, a.astype(dt))
            out[f"expm/{name}/{np.dtype(dt).name}"] = y
            out[f"expm/{name}/{np.dtype(dt).name}/grad"] = g
    spd = rng.standard_normal((2, 4, 4))
    spd = spd @ np.swapaxes(spd, -1, -2) + 4 * np.eye(4)
    out["spd"] = spd
    y, (g,) = grad_of(tf.linalg.sqrtm, spd)
    out["sqrtm"], out["sqrtm/grad"] = y, g
    c = (spd + 0.3j * rng.standard_normal((2, 4, 4))).astype(np.complex128)
    out["logm/a"] = c
    out["logm"] = tf.linalg.logm(c).numpy()
    a = rng.standard_normal((2, 5, 3))
    b = rng.standard_normal((2, 5, 2))
    out["lstsq/a"], out["lstsq/b"] = a, b
    for l2 in (0.0, 0.5):
        y, g = grad_of(lambda m, r: tf.linalg.lstsq(m, r, l2_regularizer=l2), a, b)
        out[f"lstsq/{l2}"], out[f"lstsq/{l2}/da"], out[f"lstsq/{l2}/db"] = y, g[0], g[1]
        at = np.swapaxes(a, -1, -2)[..., :2, :]
        bt = b[..., :2, :]
        y, g = grad_of(lambda m, r: tf.linalg.lstsq(m, r, l2_regularizer=l2), at, bt)
        out[f"lstsq_under/{l2}"], out[f"lstsq_under/{l2}/da"] = y, g[0]
        out[f"lstsq_under/{l2}/db"] = g[1]
    out["lstsq/slow"] = tf.linalg.lstsq(a, b, fast=False).numpy()
    chol = np.linalg.cholesky(spd)
    y, g = grad_of(tf.linalg.cholesky_solve, chol, b[:, :4])
    out["cholesky_solve"], out["cholesky_solve/dchol"], out["cholesky_solve/drhs"] = y, *g
    d = rng.standard_normal((2, 3))
    out["tensor_diag/d"] = d
    out["tensor_diag"] = tf.linalg.tensor_diag(d).numpy()
    out["tensor_diag_part"] = tf.linalg.tensor_diag_part(
        tf.linalg.tensor_diag(d) + 1).numpy()
    x = rng.standard_normal((3, 4))
    out["normalize/x"] = x
    for ordn, axis in (("euclidean", None), (1, 0), (np.inf, -1), ("fro", (0, 1))):
        n, nn = tf.linalg.normalize(x, ord=ordn, axis=axis)
        out[f"normalize/{ordn}/{axis}"] = n.numpy()
        out[f"normalize/{ordn}/{axis}/norm"] = nn.numpy()
    diags = rng.standard_normal((2, 3, 5))
    diags[:, 1] += 4
    rhs = rng.standard_normal((2, 5, 2))
    out["tri/diags"], out["tri/rhs"] = diags, rhs
    y, g = grad_of(tf.linalg.tridiagonal_matmul, diags, rhs)
    out["tri/matmul"], out["tri/matmul/dd"], out["tri/matmul/drhs"] = y, *g
    y, g = grad_of(tf.linalg.tridiagonal_solve, diags, rhs)
    out["tri/solve"], out["tri/solve/dd"], out["tri/solve/drhs"] = y, *g
    piv = diags.copy()
    piv[:, 1] = rng.standard_normal((2, 5)) * 0.1
    out["tri/piv"] = piv
    out["tri/solve_piv"] = tf.linalg.tridiagonal_solve(tf.constant(piv), tf.constant(rhs)).numpy()
    out["tri/solve_nopiv"] = tf.linalg.tridiagonal_solve(tf.constant(piv), tf.constant(rhs),
                                                         partial_pivoting=False).numpy()
    bands = rng.standard_normal((2, 3, 5))
    bands[:, 0] += 4
    out["banded/bands"] = bands
    out["banded/lower"] = tf.linalg.banded_triangular_solve(bands, rhs).numpy()
    ub = bands[:, ::-1].copy()
    out["banded/ub"] = ub
    out["banded/upper_adj"] = tf.linalg.banded_triangular_solve(
        ub, rhs, lower=False, adjoint=True).numpy()
    alpha, beta = rng.standard_normal(6), rng.standard_normal(5)
    out["eht/alpha"], out["eht/beta"] = alpha, beta
    out["eht/all"] = tf.linalg.eigh_tridiagonal(alpha, beta).numpy()
    out["eht/i"] = tf.linalg.eigh_tridiagonal(alpha, beta, select="i",
                                              select_range=[1, 3]).numpy()
    out["eht/v"] = tf.linalg.eigh_tridiagonal(alpha, beta, select="v",
                                              select_range=[-0.5, 1.0]).numpy()
    # Special functions on a grid with edge cases.
    av = np.array([1e-3, 0.5, 1.0, 2.5, 10.0, 50.0, 0.0, -1.0])
    xv = np.array([0.0, 1e-3, 0.5, 1.0, 3.0, 20.0, 60.0, -1.0])
    A, X = np.meshgrid(av, xv)
    out["ig/a"], out["ig/x"] = A, X
    for dt in ("float32", "float64"):
        out[f"ig/{dt}/igamma"] = tf.math.igamma(A.astype(dt), X.astype(dt)).numpy()
        out[f"ig/{dt}/igammac"] = tf.math.igammac(A.astype(dt), X.astype(dt)).numpy()
    ga = np.array([0.3, 1.0, 2.5, 7.0, 30.0])
    gx = np.array([0.2, 1.5, 2.0, 9.0, 25.0])
    out["igg/a"], out["igg/x"] = ga, gx
    for fn in ("igamma", "igammac"):
        y, g = grad_of(getattr(tf.math, fn), ga, gx)
        out[f"igg/{fn}/da"], out[f"igg/{fn}/dx"] = g
    ba = np.array([0.5, 1.0, 2.0, 5.0, 0.2, -1.0])
    bb = np.array([0.5, 3.0, 2.0, 1.5, 4.0, 1.0])
    bx = np.array([0.1, 0.5, 0.9, 0.3, 0.0, 0.5])
    out["bi/a"], out["bi/b"], out["bi/x"] = ba, bb, bx
    out["bi/value"] = tf.math.betainc(ba, bb, bx).numpy()
    y, g = grad_of(tf.math.betainc, ba[:4], bb[:4], bx[:4])
    out["bi/dx"] = g[2]
    out["sobol/5x4"] = tf.math.sobol_sample(5, 40).numpy()
    out["sobol/skip"] = tf.math.sobol_sample(30, 7, skip=1000, dtype=tf.float64).numpy()
    # Complex gradients: TensorFlow transposes without conjugating in these two.
    cm = (spd[0] + 0.5j * rng.standard_normal((4, 4))).astype(np.complex128)
    cw = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    out["complex/a"], out["complex/w"] = cm, cw
    x = tf.constant(cm)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.math.real(tf.linalg.sqrtm(x) * cw))
    out["complex/sqrtm_grad"] = tape.gradient(loss, x).numpy()
    cd = diags[0] + 1j * rng.standard_normal((3, 5))
    cr = rhs[0] + 1j * rng.standard_normal((5, 2))
    cw2 = rng.standard_normal((5, 2)) + 1j * rng.standard_normal((5, 2))
    out["complex/diags"], out["complex/rhs"], out["complex/w2"] = cd, cr, cw2
    dt, rt = tf.constant(cd), tf.constant(cr)
    with tf.GradientTape() as tape:
        tape.watch([dt, rt])
        loss = tf.reduce_sum(tf.math.real(tf.linalg.tridiagonal_solve(dt, rt) * cw2))
    g = tape.gradient(loss, [dt, rt])
    out["complex/tri_dd"], out["complex/tri_drhs"] = g[0].numpy(), g[1].numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT}")


if __name__ == "__main__":
    main()

"""rillflow against TensorFlow on the public functions TensorFlow writes in
Python (losses, normalizations, norms, clipping, image adjustments,
windows): each on random float32 and float64 inputs, eagerly and in
`tf.function`, compared bit for bit with TensorFlow's result, which runs
this same file in its own Python. Such functions hide formula
differences (an operation order, a constant rounded to float32 by
`tf.cast`) that single-op sweeps cannot see.

    PYTHONPATH=. python tools/tf_composite_sweep.py --tensorflow /path/to/tf-venv/bin/python

Prints, per function, dtype and mode that differ, the share of values
that differ and the largest relative difference.
"""
import argparse
import json
import os
import sys

import numpy as np

from tf_dtype_sweep import load_library, run_worker   # (tools/ is the script's folder)


def cases(tf):
    """{name: (f, input shapes, positive inputs)} of the functions swept."""
    nn, m, img = tf.nn, tf.math, tf.image
    return {
        "nn.l2_normalize": (lambda x: nn.l2_normalize(x, axis=-1), [(6, 7)], False),
        "nn.moments.mean": (lambda x: nn.moments(x, [0])[0], [(6, 7)], False),
        "nn.moments.var": (lambda x: nn.moments(x, [0])[1], [(6, 7)], False),
        "nn.batch_normalization": (lambda x, s, o: nn.batch_normalization(
            x, m.reduce_mean(x, 0), m.reduce_variance(x, 0) + 1.0, o, s, 1e-3),
            [(6, 7), (7,), (7,)], False),
        "nn.log_poisson_loss": (lambda t, x: nn.log_poisson_loss(abs(t), x, True),
                                [(6, 7), (6, 7)], False),
        "nn.sigmoid_xent": (lambda t, x: nn.sigmoid_cross_entropy_with_logits(
            labels=m.sigmoid(t), logits=x), [(6, 7), (6, 7)], False),
        "nn.weighted_xent": (lambda t, x: nn.weighted_cross_entropy_with_logits(
            m.sigmoid(t), x, 1.7), [(6, 7), (6, 7)], False),
        "nn.softmax_xent": (lambda t, x: nn.softmax_cross_entropy_with_logits(
            nn.softmax(t), x), [(6, 7), (6, 7)], False),
        "nn.l2_loss": (nn.l2_loss, [(6, 7)], False),
        "nn.swish_beta": (lambda x: nn.silu(x, beta=1.3), [(6, 7)], False),
        "nn.leaky_relu": (lambda x: nn.leaky_relu(x, 0.13), [(6, 7)], False),
        "nn.elu": (nn.elu, [(6, 7)], False), "nn.selu": (nn.selu, [(6, 7)], False),
        "nn.softsign": (nn.softsign, [(6, 7)], False),
        "nn.softplus": (nn.softplus, [(6, 7)], False),
        "nn.gelu": (nn.gelu, [(6, 7)], False),
        "nn.gelu_approx": (lambda x: nn.gelu(x, approximate=True), [(6, 7)], False),
        "nn.log_softmax": (nn.log_softmax, [(6, 7)], False),
        "nn.softmax": (nn.softmax, [(6, 7)], False),
        "nn.zero_fraction": (lambda x: nn.zero_fraction(nn.relu(x)), [(6, 7)], False),
        "nn.normalize_moments": (lambda x: nn.normalize_moments(
            7.0, m.reduce_sum(x, 0), m.reduce_sum(x * x, 0), None)[1], [(6, 7)], False),
        "nn.compute_average_loss": (lambda x: nn.compute_average_loss(
            x, global_batch_size=10), [(6,)], False),
        "math.reduce_logsumexp": (lambda x: m.reduce_logsumexp(x, 1), [(6, 7)], False),
        "math.reduce_std": (lambda x: m.reduce_std(x, 1), [(6, 7)], False),
        "math.reduce_variance": (lambda x: m.reduce_variance(x, 1), [(6, 7)], False),
        "math.reduce_euclidean_norm": (lambda x: m.reduce_euclidean_norm(x, 1), [(6, 7)],
                                       False),
        "math.log_sigmoid": (m.log_sigmoid, [(6, 7)], False),
        "math.lbeta": (m.lbeta, [(6, 7)], True),
        "math.polyval": (lambda x, c: m.polyval([c[0], c[1], c[2]], x), [(6, 7), (3,)],
                         False),
        "math.cumulative_logsumexp": (lambda x: m.cumulative_logsumexp(x, 1), [(6, 7)],
                                      False),
        "math.cumsum_excl_rev": (lambda x: m.cumsum(x, 1, exclusive=True, reverse=True),
                                 [(6, 7)], False),
        "math.cumprod": (lambda x: m.cumprod(x, 1), [(6, 7)], False),
        "math.segment_mean": (lambda x: m.segment_mean(x, [0, 0, 1, 1, 1, 2]), [(6, 7)],
                              False),
        "math.unsorted_segment_sqrt_n": (lambda x: m.unsorted_segment_sqrt_n(
            x, [0, 2, 1, 1, 0, 2], 3), [(6, 7)], False),
        "math.divide_no_nan": (m.divide_no_nan, [(6, 7), (6, 7)], False),
        "math.xlogy": (m.xlogy, [(6, 7), (6, 7)], True),
        "math.sqrt_sq": (lambda x: m.sqrt(m.square(x) + 1.0), [(6, 7)], False),
        "math.erfcinv": (lambda x: m.erfcinv(m.sigmoid(x) * 1.9 + 0.05), [(6, 7)], False),
        "math.ndtri": (lambda x: m.ndtri(m.sigmoid(x)), [(6, 7)], False),
        "math.log_of_sigmoid": (lambda x: m.log(m.sigmoid(x)), [(6, 7)], False),
        "math.bessel_i1e": (m.bessel_i1e, [(6, 7)], False),
        "math.special.dawsn": (tf.math.special.dawsn, [(6, 7)], False),
        "math.special.expint": (tf.math.special.expint, [(6, 7)], True),
        "math.special.fresnel_cos": (tf.math.special.fresnel_cos, [(6, 7)], False),
        "math.special.spence": (tf.math.special.spence, [(6, 7)], True),
        "math.special.bessel_j0": (tf.math.special.bessel_j0, [(6, 7)], False),
        "math.special.bessel_y1": (tf.math.special.bessel_y1, [(6, 7)], True),
        "math.special.bessel_k0e": (tf.math.special.bessel_k0e, [(6, 7)], True),
        "norm.1": (lambda x: tf.norm(x, 1), [(6, 7)], False),
        "norm.inf": (lambda x: tf.norm(x, np.inf), [(6, 7)], False),
        "norm.euclid": (lambda x: tf.norm(x, axis=1), [(6, 7)], False),
        "norm.fro": (lambda x: tf.norm(x, "fro", axis=[0, 1]), [(6, 7)], False),
        "norm.2_matrix": (lambda x: tf.norm(x, 2, axis=[0, 1]), [(6, 7)], False),
        "linalg.normalize": (lambda x: tf.linalg.normalize(x, axis=1)[0], [(6, 7)], False),
        "linalg.global_norm": (lambda x, y: tf.linalg.global_norm([x, y]), [(6, 7), (3,)],
                               False),
        "clip_by_norm": (lambda x: tf.clip_by_norm(x, 1.5), [(6, 7)], False),
        "clip_by_global_norm": (lambda x, y: tf.clip_by_global_norm([x, y], 1.5)[0][0],
                                [(6, 7), (3,)], False),
        "clip_by_value": (lambda x: tf.clip_by_value(x, -0.3, 0.7), [(6, 7)], False),
        "image.rgb_to_grayscale": (img.rgb_to_grayscale, [(2, 4, 4, 3)], True),
        "image.rgb_to_hsv": (lambda x: img.rgb_to_hsv(m.sigmoid(x)), [(2, 4, 4, 3)], False),
        "image.hsv_to_rgb": (lambda x: img.hsv_to_rgb(m.sigmoid(x)), [(2, 4, 4, 3)], False),
        "image.rgb_to_yiq": (img.rgb_to_yiq, [(2, 4, 4, 3)], False),
        "image.rgb_to_yuv": (img.rgb_to_yuv, [(2, 4, 4, 3)], False),
        "image.adjust_brightness": (lambda x: img.adjust_brightness(x, 0.13),
                                    [(2, 4, 4, 3)], False),
        "image.adjust_contrast": (lambda x: img.adjust_contrast(x, 1.7), [(2, 4, 4, 3)],
                                  False),
        "image.adjust_gamma": (lambda x: img.adjust_gamma(x, 1.3, 0.9), [(2, 4, 4, 3)], True),
        "image.adjust_saturation": (lambda x: img.adjust_saturation(m.sigmoid(x), 1.6),
                                    [(2, 4, 4, 3)], False),
        "image.adjust_hue": (lambda x: img.adjust_hue(m.sigmoid(x), 0.23), [(2, 4, 4, 3)],
                             False),
        "image.per_image_standardization": (img.per_image_standardization, [(2, 4, 4, 3)],
                                            False),
        "image.total_variation": (img.total_variation, [(2, 4, 4, 3)], False),
        "image.psnr": (lambda x, y: img.psnr(m.sigmoid(x), m.sigmoid(y), 1.0),
                       [(2, 4, 4, 3), (2, 4, 4, 3)], False),
        "image.image_gradients": (lambda x: img.image_gradients(x)[0], [(2, 4, 4, 3)], False),
        "image.resize_bilinear": (lambda x: img.resize(x, [7, 5]), [(2, 4, 4, 3)], False),
        "image.resize_bicubic": (lambda x: img.resize(x, [7, 5], "bicubic"), [(2, 4, 4, 3)],
                                 False),
        "image.resize_area": (lambda x: img.resize(x, [3, 3], "area"), [(2, 4, 4, 3)], False),
        "image.resize_lanczos3": (lambda x: img.resize(x, [7, 5], "lanczos3"),
                                  [(2, 4, 4, 3)], False),
        "image.sobel_edges": (img.sobel_edges, [(2, 4, 4, 3)], False),
        "signal.hann_window": (lambda x: tf.signal.hann_window(9, dtype=x.dtype) + x[0],
                               [(1,)], False),
        "signal.hamming_window": (lambda x: tf.signal.hamming_window(8, dtype=x.dtype) + x[0],
                                  [(1,)], False),
        "signal.kaiser_window": (lambda x: tf.signal.kaiser_window(8, 2.5, dtype=x.dtype)
                                 + x[0], [(1,)], False),
        "signal.vorbis_window": (lambda x: tf.signal.vorbis_window(8, dtype=x.dtype) + x[0],
                                 [(1,)], False),
        "signal.mel_matrix": (lambda x: tf.signal.linear_to_mel_weight_matrix(
            4, 9, 8000, 100.0, 3000.0, dtype=x.dtype) + x[0], [(1,)], False),
        "signal.frame": (lambda x: tf.signal.frame(x, 3, 2), [(11,)], False),
        "signal.overlap_and_add": (lambda x: tf.signal.overlap_and_add(x, 2), [(4, 3)], False),
        "signal.dct2": (lambda x: tf.signal.dct(x, norm="ortho"), [(6, 8)], False),
        "signal.idct2": (lambda x: tf.signal.idct(x), [(6, 8)], False),
        "losses.huber": (lambda x, y: tf.keras.losses.Huber()(x, y), [(6, 7), (6, 7)], False),
    }


def _inputs(shapes, positive, dt, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        v = rng.standard_normal(s) * 1.5
        out.append((np.abs(v) + 0.05 if positive else v).astype(dt))
    return out


def worker(lib):
    """Prints one JSON line per (function, dtype, mode): the result's values."""
    tf = load_library(lib)
    for k, (name, (f, shapes, positive)) in enumerate(sorted(cases(tf).items())):
        for dt in ("float32", "float64"):
            args = [tf.constant(a) for a in _inputs(shapes, positive, dt, k)]
            fn = tf.function(lambda *a: f(*a), autograph=False)
            for mode, call in (("eager", f), ("fn", fn)):
                try:
                    r = np.asarray(call(*args))
                    out = ["ok", str(r.dtype), list(r.shape), r.astype(np.float64).tolist()]
                except Exception as e:  # noqa: BLE001 - the outcome is what is compared
                    out = ["err", type(e).__name__, str(e).split("\n")[0][:160]]
                print(json.dumps([name, dt, mode, out]))


def main(argv=None):
    """Runs both libraries and prints what differs."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tensorflow", help="a Python that has TensorFlow")
    ap.add_argument("--worker", choices=("tensorflow", "rillflow"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    if not args.tensorflow:
        ap.error("--tensorflow is required")
    here = os.path.abspath(__file__)
    tf_rows = run_worker(args.tensorflow, here, "tensorflow")
    rf_rows = run_worker(sys.executable, here, "rillflow")
    same = 0
    for t, r in zip(tf_rows, rf_rows):
        assert t[:3] == r[:3]
        a, b = t[3], r[3]
        if a[0] == "err" or b[0] == "err" or a[1:3] != b[1:3]:
            if a[:2] != b[:2] or (a[0] == "ok" and a[1:3] != b[1:3]):
                print("%-34s %s %-5s TF %s | RF %s" % (t[0], t[1], t[2], str(a[:3])[:70],
                                                       str(b[:3])[:70]))
            else:
                same += 1
            continue
        x, y = np.asarray(a[3], np.float64), np.asarray(b[3], np.float64)
        diff = ~((x == y) | (np.isnan(x) & np.isnan(y)))
        if diff.any():
            rel = np.abs(x - y)[diff] / np.maximum(np.abs(x)[diff], 1e-300)
            print("%-34s %s %-5s %d/%d differ, max rel %.2g" % (
                t[0], t[1], t[2], diff.sum(), diff.size, np.nanmax(rel)))
        else:
            same += 1
    print("%d of %d outcomes the same" % (same, len(tf_rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

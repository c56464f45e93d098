"""rillflow against TensorFlow on every dtype.

About 150 public ops (unary math, reductions, activations, shape and
creation ops, binary math, comparisons, bitwise ops) run on three small
values of each of 15 dtypes, eagerly and in `tf.function`; each outcome
(the result's dtype, shape and values, or the exception's class) is
compared with TensorFlow's, which runs this same file in its own Python.

    PYTHONPATH=. python tools/tf_dtype_sweep.py --tensorflow /path/to/tf-venv/bin/python
    PYTHONPATH=. python tools/tf_dtype_sweep.py --tensorflow PY --kinds value errclass

Differences are grouped: `value` (same dtype and shape, other values;
many are TensorFlow's own roundings that docs/numerics.md lists),
`dtype/shape`, `errclass` (both raise, other classes), `tf_err_rf_ok`
(TensorFlow refuses, rillflow computes: a dtype outside the op's list or
without a CPU kernel) and `tf_ok_rf_err`.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import warnings

DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "complex64", "complex128", "bool")

_MATH_UNARY = """abs negative sign square sqrt rsqrt exp expm1 log log1p sin cos tan asin acos
atan sinh cosh tanh asinh acosh atanh sigmoid softplus floor ceil round rint reciprocal erf erfc
erfinv ndtri lgamma digamma is_nan is_inf is_finite logical_not conj real imag angle
reciprocal_no_nan bessel_i0 bessel_i0e bessel_i1 bessel_i1e log_sigmoid softsign cumsum cumprod
reduce_sum reduce_prod reduce_max reduce_min reduce_mean reduce_all reduce_any reduce_logsumexp
reduce_variance reduce_std reduce_euclidean_norm argmax argmin count_nonzero top_k
cumulative_logsumexp l2_normalize invert_permutation bincount is_strictly_increasing""".split()
_NN_UNARY = "relu relu6 elu selu gelu leaky_relu softmax log_softmax crelu silu".split()
_MATH_BINARY = """add subtract multiply divide truediv floordiv floormod truncatediv
truncatemod pow maximum minimum squared_difference atan2 xlogy xdivy xlog1py igamma igammac
zeta polygamma equal not_equal less greater less_equal greater_equal logical_and logical_or
logical_xor divide_no_nan multiply_no_nan nextafter mod""".split()


def unary_ops(tf):
    """{name: f(x)} of the one-argument ops swept."""
    ops = {n: getattr(tf.math, n) for n in _MATH_UNARY if hasattr(tf.math, n)}
    ops.update({"nn." + n: getattr(tf.nn, n) for n in _NN_UNARY})
    ops.update({
        "bitwise.invert": tf.bitwise.invert, "transpose": tf.transpose,
        "reverse": lambda x: tf.reverse(x, [0]), "tile": lambda x: tf.tile(x, [2]),
        "sort": tf.sort, "argsort": tf.argsort, "unique": lambda x: tf.unique(x)[0],
        "clip": lambda x: tf.clip_by_value(x, x[0], x[1]), "zeros_like": tf.zeros_like,
        "ones_like": tf.ones_like, "diag": tf.linalg.diag,
        "trace": lambda x: tf.linalg.trace(tf.linalg.diag(x)),
        "cast_f32": lambda x: tf.cast(x, tf.float32),
        "bitcast_u8": lambda x: tf.bitcast(x, tf.uint8),
        "segment_sum": lambda x: tf.math.segment_sum(x, [0, 0, 1]),
        "unsorted_segment_max": lambda x: tf.math.unsorted_segment_max(x, [0, 0, 1], 2),
        "gather": lambda x: tf.gather(x, [2, 0]), "concat": lambda x: tf.concat([x, x], 0),
        "where": lambda x: tf.where(x > x[0] if x.dtype != tf.bool else x, x, x),
        "matmul": lambda x: tf.matmul(tf.reshape(x, [1, 3]), tf.reshape(x, [3, 1])),
        "einsum": lambda x: tf.einsum("i,i->", x, x), "pad": lambda x: tf.pad(x, [[1, 1]]),
        "fill": lambda x: tf.fill([2], x[0]), "one_hot": lambda x: tf.one_hot(x, 3),
        "range": lambda x: tf.range(x[0], x[2]), "linspace": lambda x: tf.linspace(x[0], x[2], 3),
        "histogram": lambda x: tf.histogram_fixed_width(x, [x[2], x[0]], 3),
        "cross": lambda x: tf.linalg.cross(x, x), "norm": tf.norm,
        "to_string": tf.strings.as_string,
    })
    return ops


def binary_ops(tf):
    """{name: f(x, y)} of the two-argument ops swept."""
    ops = {n: getattr(tf.math, n, None) or getattr(tf, n, None) for n in _MATH_BINARY}
    ops.update({
        "add_n": lambda a, b: tf.math.add_n([a, b]),
        "bitwise.and": tf.bitwise.bitwise_and, "bitwise.or": tf.bitwise.bitwise_or,
        "bitwise.xor": tf.bitwise.bitwise_xor, "left_shift": tf.bitwise.left_shift,
        "right_shift": tf.bitwise.right_shift, "tensordot": lambda a, b: tf.tensordot(a, b, 1),
        "complex": tf.complex, "stack": lambda a, b: tf.stack([a, b]),
    })
    return {k: v for k, v in ops.items() if v is not None}


def _values(tf, np, dt, second=False):
    if dt == "bool":
        v = [False, False, True] if second else [True, False, True]
    elif dt.startswith("complex"):
        v = [2 + 0j, 1 + 1j, 3 - 1j] if second else [1 + 1j, 2 - 0.5j, 0.5 + 0j]
    elif dt.startswith(("int", "uint")):
        v = [2, 1, 3] if second else [1, 2, 0]
    else:
        v = [2.0, 0.5, 3.0] if second else [0.5, 2.0, 0.25]
    return tf.constant(np.array(v), dtype=getattr(tf, dt))


def _outcome(np, thunk):
    try:
        r = thunk()
        if isinstance(r, (tuple, list)):
            r = r[0]
        a = r.numpy()
        if a.dtype.kind in "OSU":
            s = [str(x) for x in np.ravel(a)]
        elif a.dtype.kind == "c":
            s = [repr(complex(x)) for x in np.ravel(a)]
        elif a.dtype.kind == "f" or a.dtype.name == "bfloat16":
            s = [repr(float(x)) for x in np.ravel(a)]
        else:
            s = [repr(int(x)) for x in np.ravel(a)]
        return ["ok", r.dtype.name, list(a.shape), s]
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ["err", type(e).__name__, str(e).split("\n")[0][:160]]


def load_library(lib):
    """`tensorflow` or `rillflow` (by `lib`), with their warnings quiet."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    warnings.filterwarnings("ignore")
    if lib == "tensorflow":
        import tensorflow as tf
    else:
        import rillflow as tf
    tf.get_logger().setLevel("ERROR")
    return tf


def run_worker(python, script, lib):
    """The JSON rows `script --worker lib` prints, run by `python`."""
    out = subprocess.run([python, script, "--worker", lib],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("[")]


def worker(lib):
    """Prints one JSON line per (op, dtype, mode) outcome."""
    tf = load_library(lib)
    import numpy as np
    for name, f in sorted(unary_ops(tf).items()):
        for dt in DTYPES:
            x = _values(tf, np, dt)
            print(json.dumps([name, dt, "eager", _outcome(np, lambda: f(x))]))
            fn = tf.function(lambda a: f(a), autograph=False)
            print(json.dumps([name, dt, "fn", _outcome(np, lambda: fn(x))]))
    for name, f in sorted(binary_ops(tf).items()):
        for dt in DTYPES:
            x, y = _values(tf, np, dt), _values(tf, np, dt, True)
            print(json.dumps([name, dt, "eager", _outcome(np, lambda: f(x, y))]))
            fn = tf.function(lambda a, b: f(a, b), autograph=False)
            print(json.dumps([name, dt, "fn", _outcome(np, lambda: fn(x, y))]))


def compare(tf_rows, rf_rows):
    """[(kind, op, dtype, mode, tf outcome, rillflow outcome)] of the rows that differ."""
    found = []
    for t, r in zip(tf_rows, rf_rows):
        assert t[:3] == r[:3], (t[:3], r[:3])
        a, b = t[3], r[3]
        if a[0] == "ok" and b[0] == "ok":
            kind = "dtype/shape" if a[1:3] != b[1:3] else "value" if a[3] != b[3] else None
        elif a[0] == "err" and b[0] == "err":
            kind = "errclass" if a[1] != b[1] else None
        else:
            kind = "tf_%s_rf_%s" % (a[0], b[0])
        if kind:
            found.append((kind,) + tuple(t[:3]) + (a, b))
    return found


def main(argv=None):
    """Runs both libraries and prints the differences by kind."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tensorflow", help="a Python that has TensorFlow")
    ap.add_argument("--kinds", nargs="*", help="only these kinds of difference")
    ap.add_argument("--worker", choices=("tensorflow", "rillflow"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    if not args.tensorflow:
        ap.error("--tensorflow is required")
    here = os.path.abspath(__file__)
    found = compare(run_worker(args.tensorflow, here, "tensorflow"),
                    run_worker(sys.executable, here, "rillflow"))
    print(dict(collections.Counter(f[0] for f in found)))
    for kind, op, dt, mode, a, b in found:
        if not args.kinds or kind in args.kinds:
            print("%s  %s %s %s\n    TF: %s\n    RF: %s" % (kind, op, dt, mode, a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Recording TensorFlow's results of named cases and comparing rillflow's.

A fixture script (tools/tf_raw_ops_fixtures.py, tf_sets_fixtures.py, ...)
defines `CASES = Cases()` and registers functions of the `tf` module with
`@CASES.case` (or `@CASES.case(rtol=1e-6)` where values come from
BLAS/SIMD-dependent paths); run with TensorFlow's Python, it calls
`CASES.main(path)`, which stores every case's result in an .npz file: the
arrays of the result (tensors, lists, tuples, namedtuples, SparseTensors,
RaggedTensors, in a fixed order), a string describing its structure, or the
class and message of the exception it raised. A test loads the script with
`load(name)` and calls `CASES.check(name, tf, data)` with rillflow.
"""
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")


def load(module):
    """The fixture script tools/<module>.py, imported by path."""
    spec = importlib.util.spec_from_file_location(module, os.path.join(HERE, module + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def flatten(value):
    """(structure string, [arrays]) of a result."""
    leaves = []

    def walk(v):
        name = type(v).__name__
        if v is None:
            return "N"
        if name in ("SparseTensor", "SparseTensorValue"):
            return "S(%s,%s,%s)" % (walk(v.indices), walk(v.values), walk(v.dense_shape))
        if name == "RaggedTensor":
            splits = ",".join(walk(s) for s in v.nested_row_splits)
            return "R(%s;%s)" % (walk(v.flat_values), splits)
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return "%s(%s)" % (name, ",".join(
                f"{f}={walk(x)}" for f, x in zip(v._fields, v)))
        if isinstance(v, (list, tuple)):
            inner = ",".join(walk(x) for x in v)
            return "[%s]" % inner if isinstance(v, list) else "(%s)" % inner
        a = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
        if a.dtype == object:       # strings: as bytes, storable without pickle
            a = a.astype(np.bytes_)
        if a.dtype.name == "bfloat16":
            leaves.append(a.view(np.uint16))
            return "Tbf16"
        leaves.append(a)
        return "T"

    return walk(value), leaves


def _short(message):
    """An error message without TensorFlow's node and op suffixes: its first
    line, up to ` [Op:`."""
    first = str(message).split("\n")[0]
    if first.startswith("{{function_node "):     # where TensorFlow ran the op
        first = first.split("}} ", 1)[-1]
    return first.split(" [Op:")[0].rstrip()


class Cases:
    """Named cases: functions of the `tf` module."""

    def __init__(self):
        self.fns = {}
        self.rtol = {}

    def case(self, fn=None, rtol=0.0):
        """Registers `fn` (or returns a decorator with float tolerance `rtol`)."""
        def register(f):
            self.fns[f.__name__] = f
            self.rtol[f.__name__] = rtol
            return f
        return register(fn) if fn is not None else register

    def run(self, name, tf):
        """("ok", structure, arrays) or ("error", class name, message)."""
        try:
            out = self.fns[name](tf)
        except Exception as e:  # the recorded behaviour includes the exception
            return "error", type(e).__name__, _short(e)
        struct, leaves = flatten(out)
        return "ok", struct, leaves

    def record(self, tf):
        """{key: array} of every case."""
        data = {}
        for name in self.fns:
            kind, a, b = self.run(name, tf)
            if kind == "error":
                data[name + "__error"] = np.array(f"{a}: {b}")
                continue
            data[name + "__struct"] = np.array(a)
            for i, leaf in enumerate(b):
                data[f"{name}__{i}"] = leaf
        return data

    def main(self, filename):
        """Records the cases with TensorFlow into tests/data/<filename>."""
        import tensorflow as tf  # TensorFlow's Python, not rillflow
        path = os.path.join(DATA, filename)
        np.savez_compressed(path, tf_version=np.array(tf.__version__), **self.record(tf))
        print(f"recorded {len(self.fns)} cases with TensorFlow {tf.__version__} in {path}",
              file=sys.stderr)

    def check(self, name, tf, data):
        """Asserts that rillflow's result of case `name` is TensorFlow's."""
        kind, a, b = self.run(name, tf)
        if name + "__error" in data.files:
            want = str(data[name + "__error"])
            got = f"{a}: {b}" if kind == "error" else f"no error but {a}"
            assert got == want, f"{name}: {got!r} != TensorFlow's {want!r}"
            return
        assert kind == "ok", f"{name}: raised {a}: {b}"
        assert a == str(data[name + "__struct"]), \
            f"{name}: structure {a} != TensorFlow's {data[name + '__struct']}"
        rtol = self.rtol[name]
        for i, got in enumerate(b):
            want = data[f"{name}__{i}"]
            assert got.dtype == want.dtype and got.shape == want.shape, \
                f"{name} output {i}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
            if rtol and got.dtype.kind in "fc":
                np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol,
                                           err_msg=f"{name} output {i}")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{name} output {i}")

"""The rest of `tf.test`: `Benchmark` (timing and reporting benchmarks as
TensorFlow's BenchmarkEntries), `benchmark_config`, `assert_equal_graph_def`
(TensorFlow's graph comparison and messages), the test decorators
`disable_with_predicate` and `with_eager_op_as_function`,
`is_cpu_target_available`, `create_local_cluster` (which needs servers
rillflow does not have) and `tf.test.experimental.sync_devices`.
`tf.test.TestCase` and the GPU queries are in testing.py."""
import functools
import inspect
import math
import numbers
import os
import time

import numpy as np

from .framework import context as _context
from .framework import errors
from .framework.api_export import export
from .framework.graph_def import GraphDef
from .io import test_log_pb
from .testing import TestCase

__all__ = ["Benchmark", "benchmark_config", "assert_equal_graph_def", "create_local_cluster",
           "disable_with_predicate", "is_cpu_target_available", "with_eager_op_as_function",
           "sync_devices"]

# The environment variable naming where reports go (TensorFlow's name).
TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"


# --- Benchmark ------------------------------------------------------------------------------------

def _report(name, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
            metrics=None):
    """Writes one BenchmarkEntries report: printed in text format, or, when
    TEST_REPORT_FILE_PREFIX is set, serialized to `<prefix><name>` (with
    '/' in the name as '__').

    Raises:
      TypeError: for extras that are not a dict, metrics that are not a list
        of dicts with 'name' and 'value'.
      IOError: if the report file exists already.
    """
    entries = test_log_pb.BenchmarkEntries()
    entry = entries.entry.add()
    entry.name = name
    if iters is not None:
        entry.iters = int(iters)
    if cpu_time is not None:
        entry.cpu_time = float(cpu_time)
    if wall_time is not None:
        entry.wall_time = float(wall_time)
    if throughput is not None:
        entry.throughput = float(throughput)
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for k, v in extras.items():
            if isinstance(v, numbers.Number):
                entry.extras[k].double_value = float(v)
            else:
                entry.extras[k].string_value = str(v)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
            m = entry.metrics.add()
            m.name = metric["name"]
            m.value = float(metric["value"])
            if "min_value" in metric:
                m.min_value.value = float(metric["min_value"])
            if "max_value" in metric:
                m.max_value.value = float(metric["max_value"])
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if not prefix:
        print(str(entries))
        return
    path = "%s%s" % (prefix, name.replace("/", "__"))
    if os.path.exists(path):
        raise IOError("File already exists: %s" % path)
    with open(path, "wb") as f:
        f.write(entries.SerializeToString())


def _median(x):
    if not x:
        return -1
    s = sorted(x)
    n = len(x)
    return (s[n // 2] + s[(n - 1) // 2]) / 2.0


def _mean_and_stdev(x):
    if not x:
        return -1, -1
    mean = sum(x) / len(x)
    if len(x) == 1:
        return mean, -1
    return mean, math.sqrt(sum((e - mean) ** 2 for e in x) / (len(x) - 1))


@export("test.Benchmark")
class Benchmark:
    """Base class of benchmarks: subclasses define `benchmark*` methods that
    time work and call `report_benchmark` (or `run_op_benchmark`)."""

    @classmethod
    def is_abstract(cls):
        """Whether this class is a base (Benchmark itself) rather than a benchmark."""
        return len(cls.mro()) <= 2

    def _get_name(self, overwrite_name=None):
        """'ClassName.method' of the outermost Benchmark method on the stack
        (or 'ClassName.overwrite_name').

        Raises:
          ValueError: when no Benchmark method is calling.
        """
        calling, method = None, None
        for frame in inspect.stack()[::-1]:
            f_self = frame[0].f_locals.get("self")
            if isinstance(f_self, Benchmark):
                calling, method = f_self, frame[3]
                break
        if calling is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        return "%s.%s" % (type(calling).__name__, overwrite_name or method)

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Reports one benchmark result (see `_report` for where it goes).

        Args:
          iters: iterations run; cpu_time, wall_time: seconds (per
            iteration, by convention); throughput: MB/s.
          extras: {name: number or text}; metrics: a list of {'name',
            'value', optionally 'min_value', 'max_value'}.
          name: the entry's name after the class name (default: the
            calling benchmark method's name).
        """
        _report(self._get_name(overwrite_name=name), iters=iters, cpu_time=cpu_time,
                wall_time=wall_time, throughput=throughput, extras=extras, metrics=metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None,
                         mbs=0):
        """Runs `op_or_tensor` with `sess.run` (`burn_iters` untimed, then
        `min_iters` timed), reports the median wall time and returns the
        reported values, with the mean and standard deviation added to
        `extras`. rillflow records no step statistics: `store_trace` and
        `store_memory_usage` add nothing."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}
        median = _median(deltas)
        values = {"iters": min_iters, "wall_time": median, "extras": extras, "name": name,
                  "throughput": mbs / median if median else 0.0}
        self.report_benchmark(**values)
        mean, stdev = _mean_and_stdev(deltas)
        values["extras"].update({"wall_time_mean": mean, "wall_time_stdev": stdev})
        return values

    def evaluate(self, tensors):
        """The NumPy values of `tensors` (a tensor or nested structure),
        evaluated eagerly."""
        return TestCase().evaluate(tensors)


@export("test.benchmark_config")
def benchmark_config():
    """A ConfigProto turning off Grappler's dependency optimizer (what
    TensorFlow's benchmarks pass to their sessions; rillflow has no Grappler)."""
    config = test_log_pb.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = \
        test_log_pb.RewriterConfig.OFF
    return config


# --- assert_equal_graph_def -----------------------------------------------------------------------

_DT_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}
_TYPE_WORDS = {"float32": "float", "float64": "double", "float16": "half"}


def _dtype_name(dtype):
    n = getattr(dtype, "name", str(dtype))
    return "DT_" + _DT_NAMES.get(n, n.upper())


def _element_text(v):
    """One element as TensorFlow's StrCat prints it: floats with 6 (double:
    15) significant digits when that reads back exactly, else 9 (17)."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, np.floating):
        short, full = (6, 9) if v.dtype.itemsize <= 4 else (15, 17)
        text = "%.*g" % (short, v)
        if type(v)(text) != v and not np.isnan(v):
            text = "%.*g" % (full, v)
        return text
    return str(v.item() if hasattr(v, "item") else v)


_SUMMARY_LIMIT = 3      # SummarizeAttrValue shows a Const's first 3 values


def _print_dim(dim, shape, flat, index, out):
    """TensorFlow's PrintOneDim: nested brackets, cut after the limit."""
    if index[0] >= _SUMMARY_LIMIT:
        return
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if index[0] >= _SUMMARY_LIMIT:
                if dim != 0:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(_element_text(flat[index[0]]))
            index[0] += 1
        return
    for _ in range(shape[dim]):
        opened = index[0] < _SUMMARY_LIMIT
        if opened:
            out.append("[")
        _print_dim(dim + 1, shape, flat, index, out)
        if index[0] < _SUMMARY_LIMIT or opened:
            out.append("]")


def _summarize_tensor(arr, dtype=None):
    arr = np.asarray(arr)
    if dtype is not None and getattr(dtype, "as_numpy_dtype", None) is not None \
            and arr.dtype.kind not in "OSU":
        arr = arr.astype(dtype.as_numpy_dtype)
    flat = arr.reshape(-1)
    if arr.dtype.kind == "U":
        flat = np.array([x.encode("utf-8") for x in flat], dtype=object)
    out = []
    if arr.ndim == 0:
        out.append(_element_text(flat[0]))
    else:
        _print_dim(0, arr.shape, flat, [0], out)
    if flat.size > _SUMMARY_LIMIT:
        out.append("...")
    dtype = "string" if arr.dtype.kind in "OSU" else \
        _TYPE_WORDS.get(arr.dtype.name, arr.dtype.name)
    return "Tensor<type: %s shape: [%s] values: %s>" % (
        dtype, ",".join(str(d) for d in arr.shape), "".join(out))


def _summarize_attr(a, tensor=False):
    """TensorFlow's SummarizeAttrValue of an AttrValue (`tensor`: a Const's
    value, which rillflow may hold as a Python scalar; its dtype attr, or True)."""
    w, v = a.which, a.value
    if tensor is not False or w == "tensor":
        return _summarize_tensor(v, tensor if tensor is not True else None)
    if w == "type":
        return _dtype_name(v)
    if w == "shape":
        return "<unknown>" if v.rank is None else \
            "[" + ",".join("?" if d is None else str(d) for d in v) + "]"
    if w == "b":
        return "true" if v else "false"
    if w == "s":
        return '"%s"' % (v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
    if w == "list":
        return "[" + ", ".join(str(x) for x in v) + "]"
    if w == "func":
        return str(v)
    return str(v)


def _is_tensor_attr(node, key):
    """False, or the dtype of a Const's value (True if unknown)."""
    if key != "value" or node.op != "Const":
        return False
    d = node.attr.get("dtype")
    return d.value if d is not None and d.which == "type" else True


def _summarize_node(node):
    attrs = ", ".join("%s=%s" % (k, _summarize_attr(node.attr[k], _is_tensor_attr(node, k)))
                      for k in sorted(node.attr))
    return "{{node %s}} = %s[%s](%s)" % (node.name, node.op, attrs, ", ".join(node.input))


def _node_difference(actual, expected):
    """TensorFlow's EqualNodeDef message for two nodes of one name, or None."""
    name = actual.name
    if actual.op != expected.op:
        return (f"Node named '{name}' has op '{actual.op}' that is not expected "
                f"'{expected.op}'")
    if actual.device != expected.device:
        return (f"Node named '{name}' has device '{actual.device}' that does not match "
                f"expected '{expected.device}'")
    a_in, e_in = list(actual.input), list(expected.input)
    if len(a_in) != len(e_in):
        return (f"Node named '{name}' has inputs '{', '.join(a_in)}' that don't match "
                f"expected '{', '.join(e_in)}'")
    a_data = [i for i in a_in if not i.startswith("^")]
    e_data = [i for i in e_in if not i.startswith("^")]
    for k, (x, y) in enumerate(zip(a_data, e_data)):
        if x != y:
            return f"Node named '{name}' has input {k} '{x}' that doesn't match expected '{y}'"
    a_ctl = {i for i in a_in if i.startswith("^")}
    e_ctl = {i for i in e_in if i.startswith("^")}
    for c in sorted(e_ctl - a_ctl):
        return f"Node named '{name}' missing expected control input '{c}'"
    for c in sorted(a_ctl - e_ctl):
        return f"Node named '{name}' has unexpected control input '{c}'"
    def text(a, k):
        return _summarize_attr(a, _is_tensor_attr(actual, k))
    a_attr = {k: v for k, v in actual.attr.items() if not k.startswith("_")}
    e_attr = {k: v for k, v in expected.attr.items() if not k.startswith("_")}
    for k in sorted(e_attr):
        if k not in a_attr:
            return (f"Node named '{name}' missing expected attr '{k}' with value: "
                    f"{text(e_attr[k], k)}")
        if a_attr[k] != e_attr[k]:
            return (f"Node named '{name}' has attr '{k}' with value: "
                    f"{text(a_attr[k], k)} that does not match expected: {text(e_attr[k], k)}")
    for k in sorted(a_attr):
        if k not in e_attr:
            return (f"Node named '{name}' has unexpected attr '{k}' with value: "
                    f"{text(a_attr[k], k)}")
    return None


@export("test.assert_equal_graph_def")
def assert_equal_graph_def(expected, actual):
    """Asserts that two GraphDefs (`graph.as_graph_def()`) hold the same
    nodes, in any order: same names, ops, devices, inputs (control inputs
    in any order) and attributes (those starting with '_' ignored).

    Raises:
      TypeError: if an argument is not a GraphDef.
      AssertionError: naming the first difference, in TensorFlow's words.
    """
    for what, g in (("expected", expected), ("actual", actual)):
        if not isinstance(g, GraphDef):
            raise TypeError(f"Expected tf.GraphDef for {what}, got {type(g).__name__}")
    a_nodes = {n.name: n for n in actual.node}
    for want in expected.node:
        node = a_nodes.pop(want.name, None)
        if node is None:
            raise AssertionError(f"Did not find expected node '{_summarize_node(want)}'")
        diff = _node_difference(node, want)
        if diff is not None:
            raise AssertionError(diff)
    if a_nodes:
        # TensorFlow names the first node of its hash map's iteration: with
        # libstdc++, the last one inserted.
        first = list(a_nodes.values())[-1]
        raise AssertionError(f"Found unexpected node '{_summarize_node(first)}'")


# --- decorators and queries -----------------------------------------------------------------------

@export("test.disable_with_predicate")
def disable_with_predicate(pred, skip_message):
    """Decorator for test methods: skips the test with `skip_message` when
    `pred()` is true at the time the test runs."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


@export("test.with_eager_op_as_function")
def with_eager_op_as_function(cls=None, only_as_function=False):
    """Class decorator kept for TensorFlow's tests: eager ops always run as
    functions in TensorFlow 2.21, so, as there, it returns the class unchanged."""
    if cls is None:
        return lambda c: c
    return cls


_CPU_TARGETS = ("arm", "aarch64", "ppc", "powerpc", "x86", "s390x")


@export("test.is_cpu_target_available")
def is_cpu_target_available(target):
    """Whether code can be compiled for CPU `target` ('x86', 'aarch64',
    'arm', 'ppc'/'powerpc', 's390x'): True, as in TensorFlow's build, which
    carries every target's code generator (rillflow runs NumPy anywhere).

    Raises:
      AssertionError: for an unknown target, as TensorFlow.
    """
    if not str(target).startswith(_CPU_TARGETS):
        raise AssertionError("Unknown CPU target: " + str(target))
    return True


@export("test.create_local_cluster")
def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """TensorFlow starts `num_workers` worker and `num_ps` parameter-server
    gRPC servers in this process; rillflow has no distributed runtime.

    Raises:
      UnimplementedError: always.
    """
    raise errors.UnimplementedError(
        None, None, "tf.test.create_local_cluster needs TensorFlow's distributed runtime "
        f"(gRPC servers for {num_workers} workers and {num_ps} parameter servers), which "
        "rillflow does not have: it runs in one process, on the local devices only.")


@export("test.experimental.sync_devices")
def sync_devices():
    """Waits for every device to finish its queued work: rillflow's ops
    finish when they return, so there is nothing to wait for.

    Raises:
      RuntimeError: inside a `tf.function` (as in TensorFlow).
    """
    if not _context.executing_eagerly():
        raise RuntimeError("sync_devices() must only be called in Eager mode, outside "
                           "tf.functions")

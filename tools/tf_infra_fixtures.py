"""TensorFlow's results for the framework-level names of issue 22 (branch
infra): `tf.autodiff.ForwardAccumulator` (JVPs, Hessian-vector products both
ways round, inside `tf.function`, variables, function calls, nested
accumulators), `tf.debugging.enable_check_numerics` (which op, which
message), the `tf.train` protos and options, recorded for
tests/test_forwardprop.py, tests/test_check_numerics.py and
tests/test_train_extras.py.

    /work/tfref/bin/python tools/tf_infra_fixtures.py
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


def _x(tf):
    return tf.constant([0.5, -1.25, 2.0]), tf.constant([1.0, 0.5, -2.0])


# --- ForwardAccumulator -------------------------------------------------------------------------

_FUNCS = {
    "sin_times_x": lambda tf, x: tf.sin(x) * x,
    "sum_squares": lambda tf, x: tf.reduce_sum(tf.square(tf.exp(x) - 1.0)),
    "tanh_sigmoid": lambda tf, x: tf.tanh(x) + tf.sigmoid(2.0 * x),
    "matmul": lambda tf, x: tf.matmul(tf.reshape(x, [3, 1]), tf.reshape(x * x, [1, 3])),
    "softmax": lambda tf, x: tf.nn.softmax(x),
    "log_sum_exp": lambda tf, x: tf.reduce_logsumexp(x),
    "gather_concat": lambda tf, x: tf.concat([tf.gather(x, [2, 0]), x[1:]], 0),
    "pow_div": lambda tf, x: (x ** 3) / (1.0 + x * x),
    "relu_abs": lambda tf, x: tf.nn.relu(x) - tf.abs(x),
    "where_max": lambda tf, x: tf.where(x > 0, tf.maximum(x, 1.0), tf.square(x)),
    "cumsum_prod": lambda tf, x: tf.math.cumsum(x) * tf.reduce_prod(x),
    "transpose_reduce": lambda tf, x: tf.reduce_mean(
        tf.transpose(tf.stack([x, 2 * x])) ** 2, axis=1),
}


def _jvp_case(key):
    def fn(tf):
        x, v = _x(tf)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = _FUNCS[key](tf, x)
        return acc.jvp(y)
    fn.__name__ = "jvp_" + key
    return fn


for _k in _FUNCS:
    case(rtol=1e-6)(_jvp_case(_k))


@case(rtol=1e-6)
def jvp_unconnected_and_integer(tf):
    x, v = _x(tf)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        i = tf.cast(x, tf.int32)
        s = tf.stop_gradient(x)
        c = tf.constant(3.0)
    return [acc.jvp(i), acc.jvp(s), acc.jvp(c), acc.jvp(c, unconnected_gradients="zero"),
            acc.jvp(x), acc.jvp([x, {"a": c}])]


@case(rtol=1e-6)
def jvp_two_primals(tf):
    x, v = _x(tf)
    w = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator([x, w], [v, tf.constant(-1.0)]) as acc:
        y = tf.reduce_sum(x * w) + w ** 2
    return acc.jvp(y)


@case(rtol=1e-5)
def hvp_backward_over_forward(tf):
    x, v = _x(tf)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.reduce_sum(tf.sin(x) * x ** 2)
        j = acc.jvp(y)
    return tape.gradient(j, x)


@case(rtol=1e-5)
def hvp_forward_over_backward(tf):
    x, v = _x(tf)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(x))
        g = tape.gradient(y, x)
    return acc.jvp(g)


@case(rtol=1e-5)
def jvp_in_function(tf):
    @tf.function
    def f(x, v):
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.reduce_sum(tf.exp(x) * tf.matmul(tf.reshape(x, [1, 3]),
                                                    tf.reshape(x, [3, 1])))
        return acc.jvp(y)
    return f(*_x(tf))


@case(rtol=1e-5)
def hvp_in_function(tf):
    @tf.function
    def f(x, v):
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(x ** 4)
            g = tape.gradient(y, x)
        return acc.jvp(g)
    return f(*_x(tf))


@case(rtol=1e-6)
def jvp_variable(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, -3.0])) as acc:
        y = v * v + tf.reduce_sum(v)
    return [acc.jvp(y), acc.jvp(v)]


@case(rtol=1e-6)
def jvp_through_function_call(tf):
    g = tf.function(lambda a: tf.tanh(a) * a)
    x, v = _x(tf)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = g(x)
    return acc.jvp(y)


@case(rtol=1e-6)
def jvp_forward_over_forward(tf):
    x, v = _x(tf)
    with tf.autodiff.ForwardAccumulator(x, v) as outer:
        with tf.autodiff.ForwardAccumulator(x, v) as inner:
            y = tf.sin(x)
        j = inner.jvp(y)
    return [j, outer.jvp(j), outer.jvp(y)]


@case
def jvp_dtype_mismatch(tf):
    return tf.autodiff.ForwardAccumulator(tf.constant([1.0]), tf.constant([1]))


@case
def jvp_structure_mismatch(tf):
    x, v = _x(tf)
    return tf.autodiff.ForwardAccumulator([x], v)


@case
def jvp_reentered(tf):
    x, v = _x(tf)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with acc:
            pass


# --- enable_check_numerics ----------------------------------------------------------------------

def _numerics_error(tf, fn):
    """[class, message] of the error `fn` raises with check_numerics on, the
    message without TensorFlow's function-node prefix and op suffix."""
    tf.debugging.enable_check_numerics()
    try:
        fn()
    except Exception as e:  # the recorded behaviour is the exception
        text = str(e)
        text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", text)
        text = re.sub(r" \[Op:CheckNumericsV2\]( name: )?$", "", text)
        return [type(e).__name__, text]
    finally:
        tf.debugging.disable_check_numerics()
    return ["no error"]


@case
def check_numerics_log(tf):
    return _numerics_error(tf, lambda: tf.math.log(tf.constant([1.0, 0.0])))


@case
def check_numerics_div(tf):
    return _numerics_error(tf, lambda: 1.0 / tf.constant([1.0, 0.0]))


@case
def check_numerics_mixed(tf):
    x = tf.constant([np.nan, np.inf, -np.inf, 1.0])
    return _numerics_error(tf, lambda: tf.abs(x))


@case
def check_numerics_float64_scalar(tf):
    return _numerics_error(tf, lambda: tf.sqrt(tf.constant(-1.0, tf.float64)))


@case
def check_numerics_safe_ops_pass(tf):
    x = tf.constant([np.nan, 1.0])
    tf.debugging.enable_check_numerics()
    try:
        return [tf.maximum(x, 0.0), tf.reshape(x, [2, 1]), tf.constant([np.inf]),
                tf.cast(tf.constant([1, 2]), tf.float32) * 2.0]
    finally:
        tf.debugging.disable_check_numerics()


@case
def check_numerics_disabled(tf):
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()
    tf.debugging.disable_check_numerics()
    return tf.math.log(tf.constant(0.0))


@case
def check_numerics_v2_op(tf):
    out = []
    for v in [[np.nan], [np.inf], [-np.inf], [np.nan, np.inf], [np.nan, -np.inf],
              [np.inf, -np.inf], [np.nan, np.inf, -np.inf]]:
        try:
            tf.raw_ops.CheckNumericsV2(tensor=tf.constant(v), message="m")
        except tf.errors.InvalidArgumentError as e:
            out.append(re.sub(r"^\{\{function_node [^}]*\}\} ", "", str(e)).split(" [Op:")[0])
    out.append(tf.raw_ops.CheckNumericsV2(tensor=tf.constant([1.5]), message="m"))
    return out


# --- tf.train protos, options, CheckpointView, PythonState ---------------------------------------

@case
def cluster_protos(tf):
    j = tf.train.JobDef(name="worker", tasks={0: "localhost:2222", 3: "b:1"})
    sd = tf.train.ServerDef(cluster=tf.train.ClusterDef(job=[j]), job_name="worker",
                            task_index=3, protocol="grpc", port=-5, replica=2)
    back = tf.train.ServerDef.FromString(sd.SerializeToString())
    return [str(sd), sd.SerializeToString().hex(), str(back == sd), str(tf.train.ServerDef()),
            back.job_name, str(back.task_index), str(back.cluster.job[0].tasks[3]),
            str(tf.train.ClusterSpec({"w": ["a:1", "b:2"], "ps": {1: "c:3"}}).as_cluster_def()),
            str(tf.train.ClusterSpec(tf.train.ClusterDef(job=[j])).as_dict())]


@case
def server_def_bad_type(tf):
    return tf.train.ServerDef(task_index="x")


@case
def job_def_bad_key(tf):
    return tf.train.JobDef(tasks={"a": "b"})


@case
def server_def_has_field(tf):
    return tf.train.ServerDef(job_name="a").HasField("job_name")


@case
def checkpoint_options_bad_sharding(tf):
    return tf.train.CheckpointOptions(experimental_sharding_callback=3)


@case
def sharding_policies(tf):
    o = tf.train.CheckpointOptions(
        experimental_sharding_callback=tf.train.experimental.MaxShardSizePolicy(10))
    return [tf.train.experimental.ShardByTaskPolicy().description,
            o.experimental_sharding_callback.description,
            str(tf.train.CheckpointOptions().enable_async),
            str(tf.train.CheckpointOptions(experimental_enable_async_checkpoint=True)
                .enable_async)]


def _python_state_class(tf):
    class Counter(tf.train.experimental.PythonState):
        def __init__(self, value):
            self.value = value

        def serialize(self):
            return str(self.value)

        def deserialize(self, string_value):
            self.value = int(string_value)
    return Counter


@case
def checkpoint_view_and_python_state(tf):
    import tempfile
    counter_cls = _python_state_class(tf)
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0])
    m.sub = tf.Module()
    m.sub.w = tf.Variable(3.0)
    st = counter_cls(41)
    calls = []
    ck = tf.train.Checkpoint(model=m, st=st, step=tf.Variable(7))
    with tempfile.TemporaryDirectory() as d:
        opts = tf.train.CheckpointOptions(experimental_write_callbacks=[
            lambda: calls.append("no-arg"), lambda p: calls.append(os.path.basename(p))])
        path = ck.write(os.path.join(d, "ck"), options=opts)
        saved = ck.save(os.path.join(d, "sv"), options=opts)
        names = tf.train.list_variables(path)
        py = tf.train.load_variable(path, "st/.ATTRIBUTES/py_state")
        view = tf.train.CheckpointView(path)
        st.value = 0
        ck.read(path).assert_consumed()
        m2 = tf.Module()
        m2.v = tf.Variable([0.0, 0.0])
        matched, only_ckpt, only_obj = view.diff(tf.train.Checkpoint(model=m2, extra=tf.Variable(1)))
        return [calls, os.path.basename(saved), [n for n, _ in names], py, str(st.value),
                str(view.children(0)), str(view.children(1)), str(view.descendants()),
                str(sorted(view.match(ck))), str(sorted(matched)), str(only_ckpt),
                str(len(only_obj))]


# --- tf.test ------------------------------------------------------------------------------------

def _graph(tf, kind):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1.0, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], name="a")
        if kind == "values":
            a = tf.constant([1.0, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13], name="a")
        b = tf.identity(a, name="b")
        if kind == "sub":
            tf.subtract(a, b, name="c")
        elif kind == "swapped":
            tf.add(b, a, name="c")
        else:
            tf.add(a, b, name="c")
        if kind == "extra":
            tf.constant("x", name="d")
            tf.constant([[1, 2]], name="e")
    return g.as_graph_def()


@case
def assert_equal_graph_def_messages(tf):
    out = []
    for e, a in [("base", "base"), ("base", "sub"), ("base", "swapped"), ("base", "values"),
                 ("base", "extra"), ("extra", "base")]:
        try:
            tf.test.assert_equal_graph_def(_graph(tf, e), _graph(tf, a))
            out.append("equal")
        except AssertionError as err:
            out.append(str(err))
    return out


@case
def assert_equal_graph_def_value_summaries(tf):
    out = []
    for v in [[1.0, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [[1, 2, 3], [4, 5, 6]], [3, 4],
              np.zeros((2, 2, 3)), [b"a", b"bc"], [True, False], [0.1, 1e-7, 123456789.0],
              np.arange(30).reshape(5, 6), 2.5]:
        g = tf.Graph()
        with g.as_default():
            tf.constant(v, name="z")
        try:
            tf.test.assert_equal_graph_def(tf.Graph().as_graph_def(), g.as_graph_def())
        except AssertionError as e:
            out.append(str(e))
    return out


@case
def assert_equal_graph_def_not_a_graph_def(tf):
    return tf.test.assert_equal_graph_def(_graph(tf, "base"), 3)


@case
def benchmark_config_proto(tf):
    c = tf.test.benchmark_config()
    return [str(c), c.SerializeToString().hex()]


@case
def cpu_targets(tf):
    return [str(tf.test.is_cpu_target_available(t))
            for t in ("x86", "x86_64", "aarch64", "arm", "ppc", "powerpc", "s390x")]


@case
def cpu_target_unknown(tf):
    return tf.test.is_cpu_target_available("mips")


@case
def sync_devices_eager_and_traced(tf):
    out = [str(tf.test.experimental.sync_devices())]

    @tf.function
    def f():
        tf.test.experimental.sync_devices()
        return tf.constant(1)
    try:
        f()
    except RuntimeError as e:
        # The last line: the message (before it, the user's file and line).
        out.append(str(e).strip().splitlines()[-1].strip())
    return out


@case
def benchmark_report_file(tf):
    import tempfile

    class MyBench(tf.test.Benchmark):
        def benchmark_thing(self):
            self.report_benchmark(iters=3, wall_time=0.5, cpu_time=0.25, throughput=2.0,
                                  extras={"a": 1}, metrics=[{"name": "m", "value": 2,
                                                             "min_value": 1.5}])
            self.report_benchmark(iters=1, name="renamed/x", extras={"s": "text"})

    with tempfile.TemporaryDirectory() as d:
        old = os.environ.get("TEST_REPORT_FILE_PREFIX")
        os.environ["TEST_REPORT_FILE_PREFIX"] = os.path.join(d, "r_")
        try:
            MyBench().benchmark_thing()
        finally:
            if old is None:
                del os.environ["TEST_REPORT_FILE_PREFIX"]
            else:
                os.environ["TEST_REPORT_FILE_PREFIX"] = old
        names = sorted(os.listdir(d))
        blobs = [open(os.path.join(d, n), "rb").read().hex() for n in names]
    return [names, blobs, str(tf.test.Benchmark.is_abstract()), str(MyBench.is_abstract())]


@case
def benchmark_bad_extras(tf):
    class B(tf.test.Benchmark):
        def benchmark_x(self):
            self.report_benchmark(extras=[1])
    return B().benchmark_x()


# --- tf.saved_model.experimental ------------------------------------------------------------------

@case
def fingerprint_objects(tf):
    f = tf.saved_model.experimental.Fingerprint
    a = f(1, 2, 3, 4, 2 ** 64 - 1, 4)
    return [str(a), repr(a), a.singleprint(), str(a == f(1, 2, 3, 4, 2 ** 64 - 1)),
            str(a == 3), repr(f()), str(f())]


@case
def fingerprint_singleprint_of_nones(tf):
    return tf.saved_model.experimental.Fingerprint().singleprint()


@case
def read_fingerprint_missing(tf):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        try:
            tf.saved_model.experimental.read_fingerprint(d)
        except FileNotFoundError as e:
            return str(e).replace(d, "DIR")


@case
def variable_policies(tf):
    vp = tf.saved_model.experimental.VariablePolicy
    return [str(list(vp)), str(vp.from_obj("SAVE_VARIABLE_DEVICES")), str(vp.from_obj(None)),
            str(tf.saved_model.SaveOptions(experimental_variable_policy="save_variable_devices")
                .experimental_variable_policy),
            str(tf.saved_model.LoadOptions().experimental_variable_policy)]


@case
def variable_policy_bad(tf):
    return tf.saved_model.SaveOptions(experimental_variable_policy="bad")


# --- tables from datasets -----------------------------------------------------------------------

@case
def table_from_dataset_lookups(tf):
    e = tf.data.experimental
    pairs = tf.data.Dataset.from_tensor_slices((["a", "b"], [1, 2]))
    words = tf.data.Dataset.from_tensor_slices(["x", "y", "z"])
    numbers = tf.data.Dataset.range(100).map(lambda x: tf.strings.as_string(x * 2))
    return [
        tf.lookup.StaticHashTable(e.DatasetInitializer(pairs), -1).lookup(
            tf.constant(["b", "z"])),
        e.table_from_dataset(pairs, default_value=-1).lookup(tf.constant(["b", "z"])),
        e.table_from_dataset(pairs).lookup(tf.constant(["a"])),
        e.index_table_from_dataset(words).lookup(tf.constant(["y", "q"])),
        e.index_table_from_dataset(words, num_oov_buckets=3).lookup(
            tf.constant(["y", "q", "r"])),
        e.index_table_from_dataset(numbers, key_dtype=tf.int64).lookup(
            tf.constant(["0", "2", "4"])),
        e.index_table_from_dataset(tf.data.Dataset.from_tensor_slices(
            tf.constant([5, 7, 9], tf.int64)), key_dtype=tf.int64, num_oov_buckets=2).lookup(
            tf.constant([7, 11, 12], tf.int64)),
        e.index_table_from_dataset(words, vocab_size=2).lookup(tf.constant(["y", "z"])),
        e.index_table_from_dataset(words, default_value=7).lookup(tf.constant(["w"])),
    ]


_BAD_TABLES = {
    "single_component": lambda tf: tf.data.experimental.DatasetInitializer(
        tf.data.Dataset.range(3)),
    "three_components": lambda tf: tf.data.experimental.DatasetInitializer(
        tf.data.Dataset.from_tensor_slices(([1], [2], [3]))),
    "oov_int32_values": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensor_slices((["a"], [1])), num_oov_buckets=2),
    "string_values_no_default": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensor_slices((["a"], ["b"]))),
    "negative_buckets": lambda tf: tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["x"]), num_oov_buckets=-1),
    "zero_vocab": lambda tf: tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["x"]), vocab_size=0),
    "float_keys": lambda tf: tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["x"]), key_dtype=tf.float32),
    "matrix_keys": lambda tf: tf.data.experimental.DatasetInitializer(
        tf.data.Dataset.from_tensor_slices(([["a"]], [1]))),
    "vocab_larger_than_data": lambda tf: tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["x", "y", "z"]), vocab_size=5).lookup(
        tf.constant("x")),
    "dtype_mismatch": lambda tf: tf.lookup.StaticHashTable(
        tf.data.experimental.DatasetInitializer(
            tf.data.Dataset.from_tensor_slices((["a"], [1]))), -1.5),
}


def _bad_table_case(key):
    def fn(tf):
        return _BAD_TABLES[key](tf)
    fn.__name__ = "table_from_dataset_bad_" + key
    return fn


for _k in _BAD_TABLES:
    case(_bad_table_case(_k))


# --- more of tf.data.experimental -----------------------------------------------------------------

def _example_files(tf, d):
    paths = []
    for f in range(2):
        path = os.path.join(d, "part-%d.tfrecord" % f)
        with tf.io.TFRecordWriter(path) as w:
            for i in range(5):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[f * 10 + i])),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
                    "w": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[b"a" * (i + 1)]))}))
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths


_FEATURES = lambda tf: {"x": tf.io.FixedLenFeature([], tf.float32),  # noqa: E731
                        "y": tf.io.FixedLenFeature([], tf.int64),
                        "w": tf.io.VarLenFeature(tf.string)}


@case
def batched_features_dataset(tf):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        _example_files(tf, d)
        pattern = os.path.join(d, "part-*.tfrecord")
        out = []
        for kw in [dict(num_epochs=1, shuffle=False),
                   dict(num_epochs=2, shuffle=False, drop_final_batch=True),
                   dict(num_epochs=1, shuffle=False, label_key="y", reader_num_threads=2)]:
            ds = tf.data.experimental.make_batched_features_dataset(
                pattern, 4, _FEATURES(tf), **kw)
            for b in ds:
                if isinstance(b, tuple):
                    b, label = b
                    out.append(label)
                out += [b["x"], b["y"], b["w"]]
            out.append(str(ds.element_spec))
        return out


@case
def batched_features_bad_label(tf):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        _example_files(tf, d)
        return tf.data.experimental.make_batched_features_dataset(
            os.path.join(d, "*.tfrecord"), 2, _FEATURES(tf), label_key="nope", shuffle=False)


@case
def get_model_proto_errors(tf):
    out = []
    for arg in [3, tf.data.Dataset.range(2)]:
        try:
            tf.data.experimental.get_model_proto(arg)
        except ValueError as e:
            out.append(str(e))
    return out


@case
def service_configs_and_modes(tf):
    s = tf.data.experimental.service
    out = [str(s.DispatcherConfig()), str(s.WorkerConfig("localhost:5050")),
           str(list(s.ShardingPolicy)), str(tf.data.experimental.ServiceOptions().pinned),
           str(type(tf.data.Options().experimental_service).__name__)]
    for bad in [lambda: s.distribute("bad", "grpc://localhost:1"),
                lambda: s.distribute("parallel_epochs", 3)]:
        try:
            bad()
        except ValueError as e:
            out.append(str(e))
    return out


# --- dump_debug_info's summaries (DebugNumericSummaryV2) --------------------------------------------

SUMMARY_INPUTS = {
    "floats": lambda: np.array([[1.0, -np.inf, 0.0], [np.nan, 2.0, -3.0]], np.float32),
    "ints": lambda: np.array([1, 0, -2], np.int32),
    "rank7": lambda: np.zeros([1, 2, 3, 1, 2, 1, 2], np.float64),
    "scalar": lambda: np.array(np.inf, np.float32),
    "bools": lambda: np.array([True, False, True]),
}
SUMMARY_MODES = {"CURT_HEALTH": 2, "CONCISE_HEALTH": 3, "FULL_HEALTH": 4, "SHAPE": 5}


@case
def debug_numeric_summaries(tf):
    # TensorFlow's op; tests/test_dump_debug_info.py compares rillflow's
    # `summary` with these values (rillflow has no such raw op).
    if not hasattr(tf, "raw_ops") or not hasattr(tf.raw_ops, "DebugNumericSummaryV2"):
        return None
    out = []
    for key in sorted(SUMMARY_INPUTS):
        for mode in sorted(SUMMARY_MODES):
            x = SUMMARY_INPUTS[key]()
            if mode == "CURT_HEALTH" and x.dtype == np.bool_:
                continue
            out.append(tf.raw_ops.DebugNumericSummaryV2(
                input=tf.constant(x), tensor_debug_mode=SUMMARY_MODES[mode], tensor_id=-1,
                output_dtype=tf.float64))
    return out


if __name__ == "__main__":
    CASES.main("tf_infra.npz")

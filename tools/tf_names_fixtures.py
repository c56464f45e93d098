"""TensorFlow's results for the top-level names added by issue 22 (the names
tools/tf_api_diff.py listed): make_tensor_proto/make_ndarray, DeviceSpec,
RegisterGradient with gradient_override_map, CriticalSection, space/batch
reshuffles, edit_distance, the initializers, hessians and the other small
ones, recorded for tests/test_top_level_names.py.

    /work/tfref/bin/python tools/tf_names_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

# --- make_tensor_proto / make_ndarray ----------------------------------------------------------

_PROTO_INPUTS = {
    "floats": lambda tf: ([1., 2.], {}),
    "int_scalar": lambda tf: (3, {}),
    "int64_matrix": lambda tf: (np.array([[1, 2]], np.int64), {}),
    "strings": lambda tf: (["a", b"bc"], {}),
    "fill": lambda tf: (5.0, dict(shape=[2, 2])),
    "bool": lambda tf: (True, {}),
    "half": lambda tf: (np.float16(1.5), {}),
    "complex": lambda tf: ([1 + 2j, -3.5j], {}),
    "complex64": lambda tf: (np.array([1 + 2j], np.complex64), {}),
    "uint64": lambda tf: (np.array(7, np.uint64), {}),
    "as_float64": lambda tf: (1, dict(dtype=tf.float64)),
    "empty": lambda tf: ([], {}),
    "empty_2d": lambda tf: (np.zeros((0, 3)), {}),
    "int8": lambda tf: ([1, 2], dict(dtype=tf.int8)),
    "uint32": lambda tf: (np.arange(3, dtype=np.uint32), {}),
    "big_int": lambda tf: (np.int64(2 ** 40), {}),
    "negative": lambda tf: ([-1], {}),
    "pad_last": lambda tf: ([1, 2], dict(shape=[4])),
    "tensor": lambda tf: (tf.constant([[1.5, -2.25]]), {}),
    "broadcast": lambda tf: ([7], dict(shape=[3], allow_broadcast=True)),
    "double_text": lambda tf: (np.array([0.1, 1e300]), {}),
    "double_one": lambda tf: (np.array([0.1]), {}),
    "float_text": lambda tf: (np.array([0.1], np.float32), {}),
    "none": lambda tf: (None, {}),
    "ragged": lambda tf: ([[1], [1, 2]], {}),
    "too_many": lambda tf: ([1, 2, 3], dict(shape=[2])),
    "float_as_int": lambda tf: ([1.5], dict(dtype=tf.int32)),
    "str_as_float": lambda tf: ("a", dict(dtype=tf.float32)),
    "verify_shape": lambda tf: ([1, 2], dict(shape=[3], verify_shape=True)),
    "dtype_mismatch": lambda tf: (np.array([1.5], np.float32), dict(dtype=tf.float64)),
}


def _proto_case(key):
    def fn(tf):
        values, kw = _PROTO_INPUTS[key](tf)
        p = tf.make_tensor_proto(values, **kw)
        back = tf.make_tensor_proto(tf.make_ndarray(p))
        return [str(p), p.SerializeToString().hex(), tf.make_ndarray(p),
                back.SerializeToString().hex()]
    fn.__name__ = "tensor_proto_" + key
    return fn


for _k in _PROTO_INPUTS:
    case(_proto_case(_k))


# --- DeviceSpec ---------------------------------------------------------------------------------

@case
def device_spec(tf):
    d = tf.DeviceSpec
    s = d(job="ps", replica=1, task=0, device_type="gpu", device_index=0)
    out = [s.to_string(), repr(s), str(s.job), str(s.replica), str(s.device_type)]
    for spec in ["/cpu:1", "/job:w/task:3/device:CPU:*", "", "/GPU:0", "/device:XLA_CPU:2",
                 "/job:a/replica:2/task:1/cpu:0"]:
        p = d.from_string(spec)
        out += [p.to_string(), repr(p)]
    out.append(s.make_merged_spec(d(device_type="CPU")).to_string())
    out.append(s.replace(job=None, device_index=None).to_string())
    out.append(str(s == d.from_string(s.to_string())))
    out.append(str(d(job=0).to_string()))
    with tf.device(d(device_type="CPU", device_index=0)):
        out.append(tf.constant(1.).device)
    return out


@case
def device_spec_unknown_part(tf):
    return tf.DeviceSpec.from_string("/foo:1")


@case
def device_spec_two_types(tf):
    return tf.DeviceSpec.from_string("/cpu:0/gpu:0")


# --- RegisterGradient, gradient_override_map, no_gradient ---------------------------------------

_REGISTERED = {}


def _register_once(tf):
    # Fixture cases run once per Python process; the registry is process-wide.
    if tf.__name__ in _REGISTERED:
        return
    _REGISTERED[tf.__name__] = True

    @tf.RegisterGradient("Issue22TimesTen")
    def _times_ten(op, grad):
        return grad * 10.0 * op.inputs[0]

    tf.no_gradient("Issue22NoGradient")


@case
def gradient_override(tf):
    _register_once(tf)
    x = tf.constant([3.0, -1.0])

    @tf.function
    def f(x):
        with tf.compat.v1.get_default_graph().gradient_override_map(
                {"Square": "Issue22TimesTen"}):
            y = tf.square(x)
        return y

    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)

    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            with tf.compat.v1.get_default_graph().gradient_override_map(
                    {"Square": "Issue22TimesTen"}):
                y = tf.square(x)
        # The tape looks gradients up by op type; tf.gradients honours the map.
        return tape.gradient(y, x), tf.gradients(y, x)[0]

    @tf.function
    def h(x):
        with tf.compat.v1.get_default_graph().gradient_override_map(
                {"Square": "Issue22NoGradient"}):
            y = tf.square(x) + x
        return tf.gradients(y, x)[0]

    return [t.gradient(y, x), g(x), h(x)]


@case
def register_gradient_twice(tf):
    _register_once(tf)
    try:
        tf.RegisterGradient("Issue22TimesTen")(lambda op, g: g)
    except KeyError as e:
        return str(e).split("(Previous")[0]


@case
def register_gradient_builtin(tf):
    try:
        tf.RegisterGradient("Sin")(lambda op, g: g)
    except KeyError as e:
        return str(e).split("(Previous")[0]


@case
def register_gradient_not_string(tf):
    return tf.RegisterGradient(3)


@case
def no_gradient_not_string(tf):
    return tf.no_gradient(3)


# --- space_to_batch_nd, batch_to_space, required_space_to_batch_paddings --------------------------

def _x(tf, shape=(2, 5, 4, 3), dtype="float32"):
    n = int(np.prod(shape))
    return tf.reshape(tf.cast(tf.range(n), dtype), shape)


@case
def space_to_batch_values(tf):
    x = _x(tf)
    out = [tf.space_to_batch_nd(x, [2, 2], [[0, 1], [1, 1]]),
           tf.space_to_batch(x, [1, 2], [[0, 0], [0, 0]]),
           tf.nn.space_to_batch(x, [3], [[1, 0]]),
           tf.space_to_batch_nd(_x(tf, (1, 4, 4), "int64"), tf.constant([2, 2], tf.int64),
                                tf.constant([[0, 0], [2, 2]], tf.int64)),
           tf.space_to_batch_nd(_x(tf, (2, 3), "uint8"), [3], [[0, 0]])]
    y = tf.space_to_batch_nd(x, [2, 2], [[0, 1], [1, 1]])
    out += [tf.batch_to_space(y, [2, 2], [[0, 1], [1, 1]]),
            tf.batch_to_space(tf.zeros([8, 2, 2, 1]) + tf.range(8.)[:, None, None, None], 2,
                              [[0, 1], [1, 0]]),
            tf.compat.v1.batch_to_space_nd(_x(tf, (6, 1, 2)), [3, 2], [[1, 1], [0, 1]])]
    return out


@case
def space_to_batch_gradients(tf):
    x = _x(tf, (2, 3, 4, 2))
    w = tf.reshape(tf.range(8 * 2 * 3 * 2, dtype=tf.float32), [8, 2, 3, 2])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.space_to_batch_nd(x, [2, 2], [[0, 1], [1, 1]])
        z = tf.batch_to_space(y * w, [2, 2], [[1, 0], [0, 2]])
        loss = tf.reduce_sum(z * z)
    return [t.gradient(tf.reduce_sum(y * w), x), t.gradient(loss, x)]


@case
def space_to_batch_traced_shapes(tf):
    out = []

    @tf.function
    def f(x, b, p):
        out.append(str(tf.space_to_batch_nd(x, [2, 2], [[0, 1], [1, 1]]).shape))
        out.append(str(tf.space_to_batch_nd(x, b, p).shape))
        out.append(str(tf.batch_to_space(x, [2, 1], [[0, 1], [1, 1]]).shape))
        return 0

    i32 = tf.int32
    f.get_concrete_function(tf.TensorSpec([None, 5, 4, 3]), tf.TensorSpec([2], i32),
                            tf.TensorSpec([2, 2], i32))
    f.get_concrete_function(tf.TensorSpec([2, 5, None, 3]), tf.TensorSpec([2], i32),
                            tf.TensorSpec([2, 2], i32))
    return out


def _space_error(fn):
    def case_fn(tf):
        return fn(tf)
    case_fn.__name__ = fn.__name__
    return case(case_fn)


@_space_error
def space_to_batch_not_divisible(tf):
    return tf.space_to_batch_nd(_x(tf), [2, 2], [[0, 0], [0, 0]])


@_space_error
def space_to_batch_zero_block(tf):
    return tf.space_to_batch_nd(_x(tf), [2, 0], [[0, 1], [0, 0]])


@_space_error
def space_to_batch_negative_padding(tf):
    return tf.space_to_batch_nd(_x(tf), [2, 2], [[0, -1], [0, 0]])


@_space_error
def space_to_batch_paddings_shape(tf):
    return tf.space_to_batch_nd(_x(tf), [2, 2], [[0, 1]])


@_space_error
def space_to_batch_block_rank(tf):
    return tf.space_to_batch_nd(_x(tf), [[2, 2]], [[0, 1]])


@_space_error
def space_to_batch_input_rank(tf):
    return tf.space_to_batch_nd(_x(tf), [2, 2, 2, 2], [[0, 1]] * 4)


@_space_error
def space_to_batch_string(tf):
    return tf.space_to_batch_nd(tf.zeros([2, 4], tf.string), [2], [[0, 0]])


@_space_error
def batch_to_space_batch(tf):
    return tf.batch_to_space(_x(tf), [2, 2], [[0, 0], [0, 0]])


@_space_error
def batch_to_space_crop_too_big(tf):
    return tf.batch_to_space(tf.zeros([8, 2, 2, 1]), [2, 2], [[0, 5], [0, 0]])


@_space_error
def batch_to_space_negative_crop(tf):
    return tf.batch_to_space(tf.zeros([8, 2, 2, 1]), [2, 2], [[0, -1], [0, 0]])


@case
def space_to_batch_traced_not_divisible(tf):
    f = tf.function(lambda x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]))
    try:
        f.get_concrete_function(tf.TensorSpec([2, 5, 4, 3]))
    except ValueError as e:
        # The shape error, without the node text and traceback around it.
        msg = str(e).split(" for '")[0]
        return msg[msg.index("Dimension size"):]


@case
def required_space_to_batch_paddings(tf):
    return [tf.required_space_to_batch_paddings([5, 4], [2, 3], [[1, 0], [2, 2]]),
            tf.required_space_to_batch_paddings(tf.constant([5, 4]), [2, 3]),
            tf.required_space_to_batch_paddings([7], [4]),
            tf.required_space_to_batch_paddings([], tf.zeros([0], tf.int32))]


@case(rtol=1e-6)   # convolutions: BLAS's summation order (CI runs generic kernels too)
def with_space_to_batch(tf):
    x = _x(tf, (1, 7, 6, 2))
    filt = tf.reshape(tf.range(3 * 3 * 2 * 2, dtype=tf.float32) / 10., [3, 3, 2, 2])

    def conv(padding):
        return lambda inp, num_spatial_dims, pad: tf.nn.convolution(inp, filt, padding=pad)

    out = [tf.nn.with_space_to_batch(x, [2, 2], "VALID", conv("VALID")),
           tf.nn.with_space_to_batch(x, [2, 3], "SAME", conv("SAME"), filter_shape=[3, 3]),
           tf.nn.with_space_to_batch(x, [1, 1], "SAME", conv("SAME"), filter_shape=[3, 3]),
           tf.nn.with_space_to_batch(
               x, [2], "VALID",
               lambda inp, n, pad: tf.nn.relu(inp - 3.),
               spatial_dims=[2])]
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.with_space_to_batch(x, [2, 2], "SAME", conv("SAME"), filter_shape=[3, 3])
    out.append(t.gradient(tf.reduce_sum(y * y), x))
    return out


@case
def with_space_to_batch_bad_spatial_dims(tf):
    return tf.nn.with_space_to_batch(tf.zeros([1, 4, 4, 1]), [2, 2], "VALID",
                                     lambda *a: a[0], spatial_dims=[2, 1])


@case
def with_space_to_batch_same_without_filter(tf):
    return tf.nn.with_space_to_batch(tf.zeros([1, 4, 4, 1]), [2, 2], "SAME", lambda *a: a[0])


# --- edit_distance --------------------------------------------------------------------------------

def _hyp_truth(tf):
    h = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], ["a", "b", "c", "d"],
                        [2, 2, 2])
    t = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0], [2, 1, 0]],
                        ["a", "x", "b", "c", "d"], [3, 2, 3])
    return h, t


@case
def edit_distance(tf):
    h, t = _hyp_truth(tf)
    hi = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [1, 2, 3, 4, 5], [2, 3])
    ti = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]],
                         [1, 3, 5, 4, 4, 4], [2, 4])
    hf = tf.SparseTensor([[0, 0], [0, 1]], [1.5, float("nan")], [1, 2])
    tfl = tf.SparseTensor([[0, 0], [0, 1]], [1.5, float("nan")], [1, 2])
    return [tf.edit_distance(h, t), tf.edit_distance(h, t, normalize=False),
            tf.edit_distance(t, h), tf.edit_distance(hi, ti), tf.edit_distance(ti, hi, False),
            tf.edit_distance(hf, tfl),
            tf.function(lambda: tf.edit_distance(h, t))()]


@case
def edit_distance_not_sparse(tf):
    return tf.edit_distance(tf.constant([1]), _hyp_truth(tf)[1])


@case
def edit_distance_truth_not_sparse(tf):
    return tf.edit_distance(_hyp_truth(tf)[0], [1])


@case
def edit_distance_rank_1(tf):
    return tf.edit_distance(tf.SparseTensor([[0]], ["a"], [1]), tf.SparseTensor([[0]], ["a"], [1]))


@case
def edit_distance_ranks_differ(tf):
    return tf.edit_distance(_hyp_truth(tf)[0], tf.SparseTensor([[0, 0]], ["a"], [2, 2]))


@case
def edit_distance_dtypes_differ(tf):
    return tf.edit_distance(tf.SparseTensor([[0, 0]], [1], [2, 2]),
                            tf.SparseTensor([[0, 0]], ["a"], [2, 2]))


# --- initializers ----------------------------------------------------------------------------------

@case
def initializers(tf):
    out = [tf.zeros_initializer()([2, 3]), tf.zeros_initializer()([2], tf.int64),
           tf.ones_initializer()([3], tf.bool), tf.ones_initializer()(tf.constant([2, 1])),
           tf.constant_initializer(2.5)([2, 2]), tf.constant_initializer([1, 2, 3, 4])([2, 2]),
           tf.constant_initializer(np.arange(6.).reshape(2, 3))([2, 3], tf.float64),
           tf.constant_initializer(7)([3], tf.int8)]
    for init in (tf.random_uniform_initializer(-1., 2., seed=3),
                 tf.random_uniform_initializer(0, 10, seed=5),
                 tf.random_normal_initializer(1., 0.5, seed=7)):
        out += [init([3, 4]), init([3, 4]), init([5], tf.float64)]
    out.append(tf.random_uniform_initializer(0, 10, seed=5)([6], tf.int32))
    out.append(str(sorted(tf.random_normal_initializer(1., 2., 3).get_config().items())))
    out.append(tf.Variable(tf.random_normal_initializer(seed=1)([2, 2])).numpy())
    return out


@case
def initializer_bad_kwarg(tf):
    return tf.zeros_initializer()([2], foo=1)


@case
def initializer_string_dtype(tf):
    return tf.ones_initializer()([2], tf.string)


@case
def initializer_normal_int(tf):
    return tf.random_normal_initializer(seed=1)([2], tf.int32)


@case
def initializer_uniform_bool(tf):
    return tf.random_uniform_initializer(seed=1)([2], tf.bool)


@case
def initializer_constant_wrong_size(tf):
    return tf.constant_initializer([1, 2, 3])([2, 2])


@case
def initializer_constant_bad_value(tf):
    return tf.constant_initializer({"a": 1})


@case
def initializer_partition(tf):
    return [tf.zeros_initializer()([4, 4], partition_shape=[2, 2], partition_offset=[0, 0]),
            tf.random_uniform_initializer(seed=2)([4], partition_shape=[2])]


@case
def initializer_constant_partition(tf):
    return tf.constant_initializer(1.)([2], partition_shape=[1])


# --- hessians, creators, scopes, small ones ------------------------------------------------------

@case
def hessians(tf):
    x = tf.constant([[1., 2.], [3., 4.]])
    y = tf.constant([0.5, -1.0])

    @tf.function
    def f(x, y):
        z = tf.reduce_sum(x ** 3) * tf.reduce_sum(y) + tf.reduce_sum(tf.sin(y)) \
            + tf.reduce_sum(x[0] * y)
        return tf.hessians(z, [x, y]) + tf.hessians(tf.reduce_sum(y ** 4), y)

    return f(x, y)


@case
def hessians_eager(tf):
    return tf.hessians(tf.constant(1.), tf.constant(1.))


@case
def variable_creator_scope(tf):
    log = []

    def c1(next_creator, **kw):
        log.append("c1:" + ",".join(sorted(kw)))
        kw["trainable"] = False
        return next_creator(**kw)

    def c2(next_creator, **kw):
        log.append("c2:" + str(kw["name"]))
        kw["initial_value"] = 5.0
        return next_creator(**kw)

    with tf.variable_creator_scope(c1):
        with tf.variable_creator_scope(c2):
            v = tf.Variable(1.0, name="x")
    with tf.variable_creator_scope(lambda nc, **kw: "not a variable"):
        other = tf.Variable(1.0)
    return [v.numpy(), str(v.trainable), v.name, log, other]


@case
def name_scopes(tf):
    out = [tf.get_current_name_scope()]
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            out.append(tf.get_current_name_scope())

        @tf.function
        def g():
            with tf.name_scope("c"):
                return tf.constant(tf.get_current_name_scope())
        out.append(g())
    out += [str(tf.inside_function()),
            tf.function(lambda: tf.constant(tf.inside_function()))(),
            str(tf.is_symbolic_tensor(tf.constant(1))), str(tf.is_symbolic_tensor(1)),
            tf.function(lambda: tf.constant(tf.is_symbolic_tensor(tf.constant(1.0) + 1)))(),
            str(tf.is_symbolic_tensor(tf.Variable(1)))]
    return out


@case
def small_ones(tf):
    @tf.function
    def f(a, b):
        return tf.parallel_stack([a, b]), tf.guarantee_const(a)

    x = tf.Variable(1.0)
    z = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z ** 2)
    g1 = tape.gradient(y, z)
    w = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = tf.grad_pass_through(tf.round)(w * 2.6) * 3
    return [f(tf.constant([1, 2]), tf.constant([3, 4])), g1, tape.gradient(y, w),
            str(tf.timestamp().dtype), str(tf.AggregationMethod.EXPERIMENTAL_TREE),
            str(tf.AggregationMethod.DEFAULT)]


@case
def parallel_stack_eager(tf):
    return tf.parallel_stack([1, 2])


# --- TypeSpec -----------------------------------------------------------------------------------

@case
def type_spec_subclass(tf):
    class PairSpec(tf.TypeSpec):
        value_type = property(lambda self: tuple)

        def __init__(self, shape, dtype):
            self.shape, self.dtype = tf.TensorShape(shape), tf.as_dtype(dtype)

        def _serialize(self):
            return (self.shape, self.dtype)

        _component_specs = property(lambda self: [tf.TensorSpec(self.shape, self.dtype)] * 2)

        def _to_components(self, value):
            return list(value)

        def _from_components(self, components):
            return tuple(components)

    a, b = PairSpec([2, 3], tf.float32), PairSpec([2, None], tf.float32)
    return [repr(a), str(a == PairSpec([2, 3], "float32")),
            str(hash(a) == hash(PairSpec([2, 3], "float32"))),
            str(a.is_compatible_with(b)), str(a.is_subtype_of(b)), str(b.is_subtype_of(a)),
            repr(a.most_specific_common_supertype([PairSpec([4, 3], tf.float32)])),
            repr(a.most_specific_common_supertype([PairSpec([4, 3], tf.int32)])),
            repr(a.most_specific_common_supertype([PairSpec([4], tf.float32)])),
            str(a != b), str(a.is_compatible_with(PairSpec([2], tf.float32))),
            str([isinstance(s, tf.TypeSpec) for s in (
                tf.TensorSpec([1]), tf.RaggedTensorSpec([1, None]),
                tf.SparseTensorSpec([2], tf.int32), tf.data.Dataset.range(3).element_spec,
                tf.data.DatasetSpec(tf.TensorSpec([])))])]


@case
def type_spec_abstract(tf):
    class Incomplete(tf.TypeSpec):
        value_type = property(lambda self: int)

        def _serialize(self):
            return ()

    return Incomplete()


# --- tf.train: ExponentialMovingAverage, ClusterSpec, Coordinator -------------------------------

@case
def exponential_moving_average(tf):
    v = tf.Variable([1.0, 2.0], name="w")
    u = tf.Variable(3.0, dtype=tf.float64)
    ema = tf.train.ExponentialMovingAverage(0.9)
    for _ in range(3):
        v.assign_add([0.5, -0.25])
        u.assign(u * 1.7)
        ema.apply([v, u])
    ema2 = tf.train.ExponentialMovingAverage(0.99, num_updates=tf.Variable(3))

    @tf.function
    def step():
        v.assign_add([1.0, 1.0])
        ema2.apply([v])

    step()
    step()
    return [ema.average(v), ema.average(u), ema.average(v).name, ema.average_name(v),
            str(ema.average(v).trainable), ema.name, ema2.average(v),
            ema.average_name(tf.Variable(1.0, name="q")), str(ema.average(tf.Variable(1.))),
            str(sorted(ema.variables_to_restore([v])))]


@case
def exponential_moving_average_int(tf):
    return tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1)])


@case
def cluster_spec(tf):
    c = tf.train.ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": {1: "p1:1", 3: "p3:1"}})
    return [repr(c), str(c.jobs), str(c.num_tasks("ps")), str(c.task_indices("ps")),
            c.task_address("worker", 1), str(c.job_tasks("ps")), str(c.as_dict()), str(bool(c)),
            str(bool(tf.train.ClusterSpec({}))), str(tf.train.ClusterSpec(c).jobs),
            str(c == {"worker": {0: "w0:2222", 1: "w1:2222"}, "ps": {1: "p1:1", 3: "p3:1"}})]


@case
def cluster_spec_unknown_job(tf):
    return tf.train.ClusterSpec({"a": ["x"]}).num_tasks("x")


@case
def cluster_spec_bad_tasks(tf):
    return tf.train.ClusterSpec({"a": 3})


@case
def coordinator(tf):
    import threading
    coord = tf.train.Coordinator()

    def work(i):
        with coord.stop_on_exception():
            if i == 1:
                raise ValueError("boom")
            while not coord.should_stop():
                coord.wait_for_stop(0.01)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    out = []
    try:
        coord.join(threads)
    except ValueError as e:
        out += [str(e), str(coord.joined), str(coord.should_stop())]
    coord.clear_stop()
    out += [str(coord.should_stop()), str(coord.joined)]
    clean = tf.train.Coordinator()
    clean.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    clean.join([])
    return out + [str(clean.should_stop())]

# --- tf.math leftovers, tf.audio -----------------------------------------------------------------

# float64 log1p is not TensorFlow's (Eigen's plog1p) to the last bit in rillflow.
@case(rtol=1e-15)
def math_leftovers(tf):
    x = np.array([0., 1., -0.5, 3., 1e-8, 0.], np.float32)
    y = np.array([2., 0.3, 1.5, -0.9, 7., -1.], np.float32)
    a, b = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as t:
        t.watch([a, b])
        z = tf.reduce_sum(tf.math.xlog1py(a, b))
    return [tf.math.xlog1py(x, y), tf.math.xlog1py(x.astype(np.float64), y.astype(np.float64)),
            t.gradient(z, [a, b]), tf.math.lbeta([[1., 2., 3.], [0.5, 0.5, 4.]]),
            tf.math.polyval([1., 2., 3.], tf.constant([0.5, 2.0])),
            tf.math.polyval([], tf.constant(2.)), tf.math.erfcinv([0.1, 0.5, 1.0, 1.7]),
            tf.math.is_non_decreasing([1, 1, 2]), tf.math.is_strictly_increasing([1, 1, 2]),
            tf.math.is_strictly_increasing([5]), tf.math.is_non_decreasing([[1, 2], [2, 3]])]


@case
def is_non_decreasing_strings(tf):
    return tf.math.is_non_decreasing(["a"])


@case
def polyval_not_a_list(tf):
    return tf.math.polyval(3., 1.)


_AUDIO = np.array([[0.0, 0.5], [-1.0, 1.0], [0.99999, -0.99999], [1.5, -2.0], [0.25, 1e-5],
                   [-0.5, 3.0517578125e-05], [0.5 / 32768, -1.5 / 32768]], np.float32)


@case
def wav(tf):
    e = tf.audio.encode_wav(_AUDIO, 16000)
    m = tf.audio.encode_wav(_AUDIO[:, :1], 8000)
    return [e, tf.audio.decode_wav(e), tf.audio.decode_wav(e, desired_channels=1),
            tf.audio.decode_wav(e, desired_channels=3, desired_samples=9),
            tf.audio.decode_wav(e, desired_samples=2), tf.audio.decode_wav(m, desired_channels=2)]


@case
def wav_truncated(tf):
    return tf.audio.decode_wav(tf.audio.encode_wav(_AUDIO, 100).numpy()[:30])


@case
def wav_encode_1d(tf):
    return tf.audio.encode_wav(_AUDIO[0], 100)

# --- tf.nn leftovers -------------------------------------------------------------------------------

_NN_X = np.random.default_rng(0).uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)
_NN_F = np.random.default_rng(1).uniform(-1, 1, (2, 3, 3)).astype(np.float32)


@case
def dilation_erosion(tf):
    out = []
    for s, p, r in [([1, 1, 1, 1], "SAME", [1, 1, 1, 1]), ([1, 2, 1, 1], "VALID", [1, 1, 2, 1]),
                    ([1, 2, 3, 1], "SAME", [1, 2, 1, 1])]:
        out += [tf.nn.dilation2d(_NN_X, _NN_F, s, p, "NHWC", r),
                tf.nn.erosion2d(_NN_X, _NN_F, s, p, "NHWC", r)]
    xt, ft = tf.constant(_NN_X), tf.constant(_NN_F)
    with tf.GradientTape() as t:
        t.watch([xt, ft])
        y = tf.reduce_sum(tf.nn.dilation2d(xt, ft, [1, 2, 1, 1], "SAME", "NHWC",
                                           [1, 1, 2, 1]) ** 2)
    out += t.gradient(y, [xt, ft])
    out.append(tf.nn.dilation2d(_NN_X.astype(np.int32) * 3, _NN_F.astype(np.int32),
                                [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]))
    return out


@case
def dilation_nchw(tf):
    return tf.nn.dilation2d(_NN_X, _NN_F, [1, 1, 1, 1], "SAME", "NCHW", [1, 1, 1, 1])


# Eigen's LRN sums the window by a contraction: the last bits differ.
@case(rtol=1e-6)
def lrn(tf):
    xt = tf.constant(_NN_X)
    with tf.GradientTape() as t:
        t.watch(xt)
        y = tf.reduce_sum(tf.nn.lrn(xt, 2, 1.5, 0.3, 0.75) * tf.range(3, dtype=tf.float32))
    return [tf.nn.lrn(_NN_X, 2, 1.5, 0.3, 0.75),
            tf.nn.local_response_normalization(_NN_X, 1, 1.0, 1.0, 0.5),
            tf.nn.lrn(_NN_X, 3, 2.0, 0.1, 1.0), t.gradient(y, xt),
            tf.nn.batch_norm_with_global_normalization(_NN_X, 0.1, 0.5, 0.2, 2.0, 1e-3, True),
            tf.nn.batch_norm_with_global_normalization(_NN_X, 0.1, 0.5, 0.2, 2.0, 1e-3, False)]


@case
def approx_top_k(tf):
    xt = tf.constant(_NN_X)
    with tf.GradientTape() as t:
        t.watch(xt)
        v, _ = tf.math.approx_max_k(tf.reshape(xt, [2, -1]), 4)
        y = tf.reduce_sum(v * v)
    return [tf.math.approx_max_k(_NN_X.reshape(2, -1), 4),
            tf.approx_top_k(np.array([[1., 3., 3., 2.]], np.float32), 2),
            tf.nn.approx_max_k(_NN_X.astype(np.float16), 3), t.gradient(y, xt)]


@case
def approx_min_k_on_cpu(tf):
    try:
        return tf.math.approx_min_k(_NN_X.reshape(2, -1), 3)
    except tf.errors.NotFoundError as e:
        return str(e).split("\n")[0].split(" [Op:")[0]


@case
def approx_top_k_double(tf):
    return tf.approx_top_k(np.array([[1., 3.]]), 1)

# --- OptionalSpec, NoneTensorSpec, TensorArraySpec ---------------------------------------------

@case
def more_type_specs(tf):
    o = tf.experimental.Optional.from_value(tf.constant(1))
    s = tf.TensorArraySpec([2], tf.float32)
    return [repr(tf.OptionalSpec(tf.TensorSpec([2], tf.int32))), repr(tf.NoneTensorSpec()),
            repr(tf.TensorArraySpec([2], tf.float32, dynamic_size=True)), repr(o._type_spec),
            repr(tf.type_spec_from_value(o)),
            repr(tf.TensorArraySpec.from_value(tf.TensorArray(tf.float32, 3))),
            str(tf.NoneTensorSpec() == tf.NoneTensorSpec()),
            str(s.is_compatible_with(tf.TensorArraySpec(None, tf.float32))),
            repr(s.most_specific_common_supertype([tf.TensorArraySpec([3], tf.float32)])),
            str(isinstance(tf.OptionalSpec(tf.TensorSpec([])), tf.TypeSpec)),
            str(tf.OptionalSpec(tf.TensorSpec([2])) == tf.OptionalSpec(tf.TensorSpec([2])))]


@case
def batch_function(tf):
    @tf.nondifferentiable_batch_function(1, 4, 100000)
    def f(x, y):
        return x * 2 + y, {"s": tf.reduce_sum(x, axis=1)}

    return f(tf.constant([[1.], [2.]]), tf.constant([[0.5], [0.25]]))


@case
def batch_function_scalar_output(tf):
    return tf.nondifferentiable_batch_function(1, 4, 100000)(tf.reduce_sum)(
        tf.constant([1., 2.]))


@case
def batch_function_not_a_tensor(tf):
    return tf.nondifferentiable_batch_function(1, 4, 100000)(lambda x: x)(3.0)


@case
def check_pinned(tf):
    return tf.check_pinned(tf.constant([1., 2.]))


@case
def small_io_and_strings(tf):
    import gzip
    import zlib
    sm = tf.saved_model
    return [tf.io.decode_compressed([zlib.compress(b"hello"), zlib.compress(b"")], "ZLIB"),
            tf.io.decode_compressed(gzip.compress(b"abc"), "GZIP"),
            tf.io.decode_compressed(b"xyz"),
            tf.strings.bytes_split("h\xe9llo"), tf.strings.bytes_split(["ab", "", "c"]),
            tf.strings.bytes_split([["ab", "c"], ["", "def"]]),
            tf.strings.bytes_split(tf.ragged.constant([["ab"], ["c", "de"]])),
            [sm.CLASSIFY_INPUTS, sm.CLASSIFY_METHOD_NAME, sm.PREDICT_INPUTS,
             sm.PREDICT_METHOD_NAME, sm.REGRESS_INPUTS, sm.REGRESS_METHOD_NAME]]


@case
def decode_compressed_bad(tf):
    return tf.io.decode_compressed(b"xyz", "ZLIB")

if __name__ == "__main__":
    CASES.main("tf_names.npz")

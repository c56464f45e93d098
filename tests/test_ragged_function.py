"""RaggedTensors through tf.function (trace keys, input_signature), AutoGraph
loops, tf.cond, tf.data, gradients through flat values and vectorized ops.
Expected values are TensorFlow 2.21's (checked with the reference install)."""
import numpy as np
import pytest

import rillflow as tf

R = tf.ragged.constant


def test_retrace_only_when_the_spec_changes():
    traces = []

    @tf.function
    def f(x):
        traces.append(x._type_spec)
        return tf.reduce_sum(x * 2.0, axis=1), x + 1.0

    s, p = f(R([[3., 1, 4, 1], [], [5, 9, 2], [6], []]))
    np.testing.assert_array_equal(s.numpy(), [18., 0., 32., 12., 0.])
    assert p.to_list() == [[4., 2., 5., 2.], [], [6., 10., 3.], [7.], []]
    f(R([[1.], [2., 3.], [], [], [1.]]))          # same spec: [5, None] float32
    assert len(traces) == 1
    f(R([[1.], [2., 3.]]))                          # 2 rows: a new spec
    assert len(traces) == 2
    f(R([[1.], [2., 3.]], row_splits_dtype=tf.int32))   # other splits dtype
    assert len(traces) == 3
    assert repr(traces[0]) == "RaggedTensorSpec(TensorShape([5, None]), tf.float32, 1, tf.int64)"


def test_input_signature():
    g = tf.function(lambda x: x.row_lengths(),
                    input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    np.testing.assert_array_equal(g(R([[3., 1], [], [5.]])).numpy(), [2, 0, 1])
    np.testing.assert_array_equal(g(R([[1.]])).numpy(), [1])
    with pytest.raises(TypeError):
        g(R([[1, 2]]))              # int32 values do not fit a float32 spec


def test_ops_in_a_graph():
    @tf.function
    def f(x):
        return (tf.reduce_mean(x, axis=0), x[:, :2], tf.concat([x, x], axis=1),
                tf.reduce_max(x, axis=1), x[1:], tf.gather(x, [2, 0]))

    mean, head, cat, mx, tail, gathered = f(R([[3., 1, 4, 1], [], [5, 9, 2], [6], []]))
    np.testing.assert_allclose(mean.numpy(), [4.6666665, 5., 3., 1.])
    assert head.to_list() == [[3., 1.], [], [5., 9.], [6.], []]
    assert cat.to_list()[2] == [5., 9., 2., 5., 9., 2.]
    # Empty rows: the lowest float32 (TensorFlow's unsorted_segment_max identity).
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(mx.numpy(), np.array([4., lowest, 9., 6., lowest], np.float32))
    assert tail.to_list() == [[], [5., 9., 2.], [6.], []]
    assert gathered.to_list() == [[5., 9., 2.], [3., 1., 4., 1.]]


def test_autograph_loop_and_cond():
    rt = R([[3., 1, 4, 1], [], [5, 9, 2], [6], []])

    @tf.function
    def h(x):
        s = tf.constant(0.)
        for row in x:
            s += tf.reduce_sum(row)
        return s

    assert h(rt).numpy() == 31.
    c = tf.function(lambda p, x: tf.cond(p, lambda: x * 2.0, lambda: x + 1.0))
    assert c(tf.constant(True), rt).to_list()[0] == [6., 2., 8., 2.]
    assert c(tf.constant(False), rt).to_list()[0] == [4., 2., 5., 2.]


def test_datasets():
    ds = tf.data.Dataset.from_tensor_slices(R([[1, 2], [3], [4, 5, 6]]))
    assert [e.numpy().tolist() for e in ds] == [[1, 2], [3], [4, 5, 6]]
    assert [b.to_list() for b in ds.batch(2)] == [[[1, 2], [3]], [[4, 5, 6]]]
    mapped = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda n: tf.ragged.range(n))
    assert [e.to_list() for e in mapped] == [[[0]], [[0, 1]], [[0, 1, 2]]]
    rb = tf.data.Dataset.range(4).map(lambda n: tf.range(n)).apply(
        tf.data.experimental.dense_to_ragged_batch(2))
    assert [b.to_list() for b in rb] == [[[], [0]], [[0, 1], [0, 1, 2]]]
    rb = tf.data.Dataset.range(3).map(lambda n: tf.range(n)).ragged_batch(3)
    assert [b.to_list() for b in rb] == [[[], [0], [0, 1]]]


def test_gradients_through_flat_values():
    fv = tf.Variable([1., 2., 3.])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_splits(fv * 1.0, [0, 2, 3])
        y = tf.reduce_sum(tf.ragged.map_flat_values(tf.square, r) * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, fv).numpy(), [4., 8., 12.])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_splits(fv * 1.0, [0, 2, 3])
        y = tf.reduce_sum(tf.reduce_max(r, axis=1)) + tf.reduce_sum(r.to_tensor())
    np.testing.assert_array_equal(tape.gradient(y, fv).numpy(), [1., 2., 2.])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_splits(fv * 1.0, [0, 2, 3])
        y = tf.reduce_sum(tf.reduce_mean(r[:, ::-1], axis=1))
    np.testing.assert_allclose(tape.gradient(y, fv).numpy(), [0.5, 0.5, 1.])


def test_strings_split_in_a_graph():
    f = tf.function(lambda s: tf.strings.split(s))
    assert f(tf.constant([["a b"], ["c"]])).to_list() == [[[b"a", b"b"]], [[b"c"]]]
    assert tf.strings.split(tf.constant(["a b", "c d e", ""])).to_list() == \
        [[b"a", b"b"], [b"c", b"d", b"e"], []]


def test_large_inputs_are_vectorized():
    # 200,000 rows: a loop over rows in Python would take seconds.
    lengths = np.random.RandomState(0).randint(0, 5, size=200_000)
    rt = tf.RaggedTensor.from_row_lengths(np.arange(lengths.sum(), dtype=np.float32), lengths)
    s = tf.reduce_sum(rt, axis=1).numpy()
    rows = np.repeat(np.arange(lengths.size), lengths)
    # Integer-valued sums below 2**24: exact in float32 in any order.
    np.testing.assert_array_equal(s, np.bincount(rows, np.arange(lengths.sum()),
                                                 minlength=lengths.size))
    assert rt[:, :2].row_lengths().numpy().tolist() == np.minimum(lengths, 2).tolist()
    assert rt.to_tensor().shape == [200_000, 4]


def test_concrete_function_called_with_ragged_argument():
    """get_concrete_function(rt), then the concrete function called with a
    RaggedTensor of the same spec (its components feed the placeholders)."""
    fn = tf.function(lambda x: x + 1)
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = fn.get_concrete_function(rt)
    assert cf(rt).to_list() == [[2, 3], [4], [5, 6, 7]]
    assert cf(tf.ragged.constant([[1], [], [4, 5, 6, 7]])).to_list() == [[2], [], [5, 6, 7, 8]]
    with pytest.raises(TypeError):
        cf(tf.ragged.constant([[1.5]]))

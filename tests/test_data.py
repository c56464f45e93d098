"""tf.data: sources, transformations, iterators, element specs, cardinality,
errors, and datasets inside tf.function (arguments, built inside, reduce,
scan, take_while, iterators); streaming in bounded memory."""
import collections
import gzip
import threading
import tracemalloc

import numpy as np
import pytest

import rillflow as tf
import rillflow.data  # noqa: F401  (registers tf.data until rillflow/__init__ imports it)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

I64 = tf.TensorSpec([], tf.int64)


def values(ds):
    """The elements as nested NumPy values / Python lists."""
    return [_plain(e) for e in ds.as_numpy_iterator()]


def _plain(e):
    if isinstance(e, tuple):
        return tuple(_plain(x) for x in e)
    if isinstance(e, dict):
        return {k: _plain(v) for k, v in e.items()}
    if isinstance(e, np.ndarray):
        return e.tolist()
    if isinstance(e, np.generic):
        return e.item()
    return e


def card(ds):
    return int(ds.cardinality().numpy())


# --- sources ----------------------------------------------------------------------------

def test_range_forms_dtypes_and_cardinality():
    ds = tf.data.Dataset.range(5)
    assert ds.element_spec == I64
    assert repr(ds) == "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, " \
                       "name=None)>"
    assert values(ds) == [0, 1, 2, 3, 4]
    assert values(tf.data.Dataset.range(2, 10, 3, output_type=tf.int32)) == [2, 5, 8]
    assert next(iter(tf.data.Dataset.range(1, output_type=tf.int32))).dtype == tf.int32
    assert values(tf.data.Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert card(tf.data.Dataset.range(5, 0, -2)) == 3
    assert values(tf.data.Dataset.range(0)) == []
    assert len(tf.data.Dataset.range(7)) == 7
    with pytest.raises(tf.errors.InvalidArgumentError, match="step must be a non-zero"):
        tf.data.Dataset.range(0, 5, 0)


def test_range_elements_are_eager_int64_tensors():
    e = next(iter(tf.data.Dataset.range(3, 4)))
    assert isinstance(e, tf.Tensor) and e.dtype == tf.int64 and e.shape == []
    assert e.numpy() == 3


def test_from_tensor_slices_nested_structures():
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [[1., 2.], [3., 4.]]))
    assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32))
    assert values(ds) == [(1, [1.0, 2.0]), (2, [3.0, 4.0])]
    d = tf.data.Dataset.from_tensor_slices({"b": [1, 2], "a": [3., 4.]})
    assert list(d.element_spec) == ["b", "a"]       # the dict keeps its order
    assert values(d) == [{"b": 1, "a": 3.0}, {"b": 2, "a": 4.0}]
    P = collections.namedtuple("P", "x y")
    n = tf.data.Dataset.from_tensor_slices(P([1, 2], [3, 4]))
    assert values(n.map(lambda p: p.x + p.y)) == [4, 6]
    # A list is one tensor, not a structure.
    assert tf.data.Dataset.from_tensor_slices([(1, 2), (3, 4)]).element_spec == \
        tf.TensorSpec([2], tf.int32)
    assert values(tf.data.Dataset.from_tensor_slices(np.zeros((3, 2)))) == [[0.0, 0.0]] * 3
    assert values(tf.data.Dataset.from_tensor_slices(["a", "bc"])) == [b"a", b"bc"]
    assert card(ds) == 2


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.data.Dataset.from_tensor_slices(1)
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.data.Dataset.from_tensor_slices([[1, 2], [3]])


def test_from_tensors_is_one_element():
    ds = tf.data.Dataset.from_tensors(([1, 2], {"x": 3}))
    assert ds.element_spec == (tf.TensorSpec([2], tf.int32), {"x": tf.TensorSpec([], tf.int32)})
    assert values(ds) == [([1, 2], {"x": 3})]
    assert card(ds) == 1
    assert repr(tf.data.Dataset.from_tensors([1, 2])).startswith("<_TensorDataset ")


def test_from_generator_output_types_shapes_and_signature():
    calls = []

    def gen():
        calls.append(1)
        yield 1, [1.0]
        yield 2, [2.0]
    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32))
    assert ds.element_spec == (tf.TensorSpec(None, tf.int32), tf.TensorSpec(None, tf.float32))
    assert values(ds) == [(1, [1.0]), (2, [2.0])]
    assert values(ds) == [(1, [1.0]), (2, [2.0])]
    assert len(calls) == 2                     # called anew for each iteration
    shaped = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32), ((), (1,)))
    assert shaped.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([1], tf.float32))
    sig = tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec((), tf.int64), tf.TensorSpec((None,), tf.float64)))
    first = next(iter(sig))
    assert first[0].dtype == tf.int64 and first[1].dtype == tf.float64
    assert card(ds) == tf.data.UNKNOWN_CARDINALITY
    args = tf.data.Dataset.from_generator(lambda n, s: iter([n, len(s)]), tf.int64,
                                          args=(3, "ab"))
    assert values(args) == [3, 2]
    # A generator function returning a list also works (TensorFlow calls iter()).
    assert values(tf.data.Dataset.from_generator(lambda: [(1, 1)] * 2,
                                                 (tf.int32, tf.int32))) == [(1, 1)] * 2


@pytest.mark.parametrize("drop", [False, True])
def test_batches_of_generated_python_numbers_match_element_by_element(drop):
    items = [1, 2.5, -3, 1e30, 7, 0.1, 2 ** 40]
    spec = tf.TensorSpec([], tf.float32)
    batched = tf.data.Dataset.from_generator(lambda: items, output_signature=spec).batch(
        3, drop_remainder=drop)
    want = np.array([np.float32(v) for v in items])
    got = [b.numpy() for b in batched]
    assert [g.dtype for g in got] == [np.float32] * len(got)
    expected = [want[k:k + 3] for k in range(0, len(items), 3)]
    if drop:
        expected = expected[:-1]
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    ints = tf.data.Dataset.from_generator(lambda: range(10), output_signature=I64).map(
        lambda x: x * 2).batch(4)
    assert [b.numpy().tolist() for b in ints] == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]


def test_batches_of_generated_values_keep_the_per_value_errors():
    def batched(items, dtype):
        return list(tf.data.Dataset.from_generator(
            lambda: items, output_signature=tf.TensorSpec([], dtype)).batch(2))
    # Floats for an integer spec are truncated (TensorFlow converts with
    # np.asarray(v).astype(dtype)).
    assert [b.numpy().tolist() for b in batched([1, 2.5], tf.int32)] == [[1, 2]]
    # Out of range integers wrap around as TensorFlow's do, batched or not.
    assert [b.numpy().tolist() for b in batched([1, 2 ** 40], tf.int32)] == [[1, 0]]
    assert [b.numpy().tolist() for b in batched([-1, 300], tf.uint8)] == [[255, 44]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        batched([1, [1, 2]], tf.int64)
    # NumPy values of the spec's dtype take the per-value path.
    assert [b.numpy().tolist() for b in tf.data.Dataset.from_generator(
        lambda: [np.int64(4), 5], output_signature=I64).batch(2)] == [[4, 5]]


def test_from_generator_errors():
    def one(v):
        return lambda: iter([v])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was int32"):
        list(tf.data.Dataset.from_generator(one("x"), tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(2,\)"):
        list(tf.data.Dataset.from_generator(one([1, 2]), tf.int32, tf.TensorShape([])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected structure"):
        list(tf.data.Dataset.from_generator(one(1), (tf.int32, tf.int32)))
    with pytest.raises(TypeError, match="output_signature"):
        tf.data.Dataset.from_generator(one(1))
    with pytest.raises(TypeError, match="cannot be used together"):
        tf.data.Dataset.from_generator(one(1), tf.int32, output_signature=I64)


def test_zip_structures_cardinality_and_errors():
    a, b = tf.data.Dataset.range(5), tf.data.Dataset.range(10, 13)
    z = tf.data.Dataset.zip((a, b))
    assert z.element_spec == (I64, I64)
    assert values(z) == [(0, 10), (1, 11), (2, 12)]
    assert card(z) == 3
    assert values(tf.data.Dataset.zip(a, b)) == values(z)
    d = tf.data.Dataset.zip({"x": a, "y": b.repeat()})
    assert card(d) == 5 and values(d)[4] == {"x": 4, "y": 11}
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        tf.data.Dataset.zip([a, b])
    with pytest.raises(TypeError, match="encountered object of type <class 'int'>"):
        tf.data.Dataset.zip((a, 1))


def test_concatenate_values_spec_and_errors():
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.range(10, 12)
    assert values(a.concatenate(b)) == [0, 1, 2, 10, 11]
    assert card(a.concatenate(b)) == 5
    v1 = tf.data.Dataset.from_tensors([1, 2])
    v2 = tf.data.Dataset.from_tensors([3, 4, 5])
    assert v1.concatenate(v2).element_spec == tf.TensorSpec([None], tf.int32)
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        a.concatenate(tf.data.Dataset.from_tensor_slices([1.0]))
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        a.concatenate(tf.data.Dataset.zip((a, a)))


def test_list_files_and_text_lines(tmp_path):
    p1, p2 = tmp_path / "a.txt", tmp_path / "b.txt"
    p1.write_bytes(b"a,b\r\n1,2\n\nlast")
    p2.write_bytes(b"x\n")
    files = tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    assert values(files) == [str(p1).encode(), str(p2).encode()]
    assert sorted(values(tf.data.Dataset.list_files(str(tmp_path / "*.txt"), seed=1))) == \
        [str(p1).encode(), str(p2).encode()]
    lines = tf.data.TextLineDataset(str(p1))
    assert lines.element_spec == tf.TensorSpec([], tf.string)
    assert repr(lines).startswith("<TextLineDatasetV2 ")
    assert isinstance(lines, tf.data.TextLineDataset) and isinstance(lines, tf.data.Dataset)
    assert not isinstance(tf.data.Dataset.range(1), tf.data.TextLineDataset)
    assert values(lines) == [b"a,b", b"1,2", b"", b"last"]
    assert values(tf.data.TextLineDataset([str(p1), str(p2)]))[-1] == b"x"
    assert values(tf.data.TextLineDataset(files)) == [b"a,b", b"1,2", b"", b"last", b"x"]
    gz = tmp_path / "c.gz"
    with gzip.open(gz, "wb") as f:
        f.write(b"one\ntwo\n")
    assert values(tf.data.TextLineDataset(str(gz), compression_type="GZIP")) == [b"one", b"two"]
    with pytest.raises(tf.errors.NotFoundError, match="No such file"):
        list(tf.data.TextLineDataset(str(tmp_path / "missing.txt")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched"):
        tf.data.Dataset.list_files(str(tmp_path / "*.nothing"))


def test_csv_dataset(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text('a,b,c\n1,2.5,x\n,3,\n7,8,"z,w"\n')
    ds = tf.data.experimental.CsvDataset(str(p), [tf.constant(0), tf.constant(0.0),
                                                  tf.constant("d")], header=True)
    assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32),
                               tf.TensorSpec([], tf.string))
    assert isinstance(ds, tf.data.experimental.CsvDataset)
    assert repr(ds).startswith("<CsvDatasetV2 ")
    assert values(ds) == [(1, 2.5, b"x"), (0, 3.0, b"d"), (7, 8.0, b"z,w")]
    sel = tf.data.experimental.CsvDataset(str(p), [0, "d"], header=True, select_cols=[0, 2])
    assert values(sel)[0] == (1, b"x")
    required = tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.float32, tf.string],
                                               header=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required"):
        list(required)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32: a"):
        list(tf.data.experimental.CsvDataset(str(p), [0, 0.0, "s"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 1 fields"):
        list(tf.data.experimental.CsvDataset(str(p), [0], header=True))


def test_make_csv_dataset(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b,c\n1,2.5,x\n,3,\n7,8,z\n")
    ds = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, num_epochs=1,
                                               shuffle=False)
    spec = ds.element_spec
    assert isinstance(spec, collections.OrderedDict) and list(spec) == ["a", "b", "c"]
    assert spec["a"] == tf.TensorSpec([None], tf.int32)
    assert spec["b"] == tf.TensorSpec([None], tf.float32)
    batches = values(ds)
    assert batches[0] == {"a": [1, 0], "b": [2.5, 3.0], "c": [b"x", b""]}
    assert batches[1] == {"a": [7], "b": [8.0], "c": [b"z"]}
    lab = tf.data.experimental.make_csv_dataset(str(p), batch_size=3, num_epochs=1,
                                                shuffle=False, label_name="a",
                                                column_defaults=[0, 0.0, "q"])
    features, label = next(iter(lab))
    assert list(features) == ["b", "c"]
    np.testing.assert_array_equal(label.numpy(), [1, 0, 7])
    assert features["c"].numpy().tolist() == [b"x", b"q", b"z"]
    forever = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, shuffle=False)
    assert card(forever) == tf.data.INFINITE_CARDINALITY
    assert forever.element_spec["a"].shape == [2]


# --- map, filter and other function transformations -------------------------------------

def test_map_unpacks_tuples_and_traces_once():
    traces = []

    def f(x, y):
        traces.append(1)
        return x + y, x * y
    ds = tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(4))).map(f)
    assert len(traces) == 1
    assert ds.element_spec == (I64, I64)
    assert values(ds) == [(0, 0), (2, 1), (4, 4), (6, 9)]
    assert values(ds) == [(0, 0), (2, 1), (4, 4), (6, 9)]
    assert len(traces) == 1                  # elements run the compiled trace
    assert card(ds) == 4
    assert repr(ds).startswith("<_MapDataset ")


def test_map_output_normalization():
    ds = tf.data.Dataset.range(3)
    assert ds.map(lambda x: [x, x]).element_spec == (I64, I64)
    assert ds.map(lambda x: (x, [x, x])).element_spec == (I64, tf.TensorSpec([2], tf.int64))
    assert values(ds.map(lambda x: 1)) == [1, 1, 1]
    spec = ds.map(lambda x: {"b": x, "a": 1.5}).element_spec
    assert list(spec) == ["b", "a"] and spec["a"] == tf.TensorSpec([], tf.float32)
    with pytest.raises(TypeError, match="returned None"):
        ds.map(lambda x: None)
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'y'"):
        ds.map(lambda x, y: x)


def test_map_captures_tensors_and_variables():
    c = tf.constant(10, tf.int64)
    v = tf.Variable(tf.constant(100, tf.int64))
    ds = tf.data.Dataset.range(3).map(lambda x: x + c + v)
    assert values(ds) == [110, 111, 112]
    v.assign(200)
    assert values(ds) == [210, 211, 212]      # variables are read when elements are made
    ds2 = tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * 0.5,
                                       num_parallel_calls=tf.data.AUTOTUNE,
                                       deterministic=True)
    assert repr(ds2).startswith("<_ParallelMapDataset ")
    assert values(ds2) == [0.0, 0.5, 1.0]


def test_map_with_autograph_control_flow():
    def f(x):
        if x > 2:
            y = x * 10
        else:
            y = -x
        return y
    assert values(tf.data.Dataset.range(5).map(f)) == [0, -1, -2, 30, 40]


def test_map_of_strings_and_nonelementwise_ops():
    ds = tf.data.Dataset.from_tensor_slices(["ab", "c"]).map(tf.strings.length)
    assert values(ds) == [2, 1]
    sq = tf.data.Dataset.range(4).map(lambda x: tf.reduce_sum(tf.fill([2], x))).batch(3)
    assert values(sq) == [[0, 2, 4], [6]]


def test_filter_and_errors():
    ds = tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)
    assert values(ds) == [0, 3, 6, 9]
    assert card(ds) == tf.data.UNKNOWN_CARDINALITY
    pairs = tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(5)))
    assert values(pairs.filter(lambda a, b: a > 2)) == [(3, 3), (4, 4)]
    d = tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).filter(lambda e: e["a"] > 1)
    assert values(d) == [{"a": 2}]
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar"):
        tf.data.Dataset.range(3).filter(lambda x: x)


def test_flat_map_and_interleave_order():
    ds = tf.data.Dataset.range(1, 4).flat_map(lambda x: tf.data.Dataset.range(x))
    assert values(ds) == [0, 0, 1, 0, 1, 2]
    inter = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(4), cycle_length=2, block_length=2)
    assert values(inter) == [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3]
    one = tf.data.Dataset.range(1, 4).interleave(lambda x: tf.data.Dataset.range(x),
                                                 cycle_length=1)
    assert values(one) == values(ds)
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(3).flat_map(lambda x: x)


def test_reduce_eager_structures_and_relaxed_shapes():
    ds = tf.data.Dataset.range(5)
    r = ds.reduce(np.int64(0), lambda s, x: s + x)
    assert r.dtype == tf.int64 and r.numpy() == 10
    assert ds.reduce({"a": np.int64(0)}, lambda s, x: {"a": s["a"] + x})["a"].numpy() == 10
    grown = ds.reduce(tf.constant([], tf.int64), lambda s, x: tf.concat([s, [x]], 0))
    assert grown.numpy().tolist() == [0, 1, 2, 3, 4]
    pairs = tf.data.Dataset.zip((ds, ds))
    assert pairs.reduce(np.int64(0), lambda s, e: s + e[0] * e[1]).numpy() == 30
    with pytest.raises(TypeError, match="element types for the new state"):
        ds.reduce(np.int64(0), lambda s, x: tf.cast(s, tf.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="number of components"):
        ds.reduce((np.int64(0), np.int64(0)), lambda s, x: s[0])


def test_reduce_and_scan_carry_tensor_arrays():
    ds = tf.data.Dataset.range(4)
    ta = ds.reduce(tf.TensorArray(tf.int64, size=0, dynamic_size=True),
                   lambda t, x: t.write(tf.cast(x, tf.int32), x * x))
    assert ta.stack().numpy().tolist() == [0, 1, 4, 9]

    @tf.function
    def collect(d):
        acc = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
        i = 0
        for x in d:
            acc = acc.write(i, x * 10)
            i += 1
        return acc.stack()
    assert collect(ds).numpy().tolist() == [0, 10, 20, 30]

    @tf.function
    def sizes(d):
        s = d.scan(tf.TensorArray(tf.int64, size=0, dynamic_size=True),
                   lambda t, x: (t.write(t.size(), x), t.size()))
        return s.reduce(np.int32(0), lambda a, v: a + v)
    assert sizes(ds).numpy() == 6


def test_scan_and_take_while():
    ds = tf.data.Dataset.range(5)
    sc = ds.scan(np.int64(0), lambda s, x: (s + x, s * 10))
    assert values(sc) == [0, 0, 10, 30, 60]
    assert card(sc) == 5
    with pytest.raises(TypeError, match="should return a pair"):
        ds.scan(np.int64(0), lambda s, x: s)
    with pytest.raises(TypeError, match="Invalid `scan_func`"):
        ds.scan(np.int64(0), lambda s, x: (tf.cast(s, tf.float32), x))
    assert values(ds.take_while(lambda x: x < 3)) == [0, 1, 2]


def test_take_while_stops_pulling_elements():
    pulled = []

    def gen():
        for i in range(100):
            pulled.append(i)
            yield i
    ds = tf.data.Dataset.from_generator(gen, output_signature=I64)
    assert values(ds.take_while(lambda x: x < 3)) == [0, 1, 2]
    assert pulled == [0, 1, 2, 3]
    pulled.clear()
    assert values(ds.take(2)) == [0, 1]
    assert pulled == [0, 1]


def test_unique_and_get_single_element():
    assert values(tf.data.Dataset.from_tensor_slices([1, 1, 2, 1, 3]).unique()) == [1, 2, 3]
    assert tf.data.Dataset.from_tensors(7).get_single_element().numpy() == 7
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
        tf.data.Dataset.range(2).get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.data.Dataset.range(0).get_single_element()


# --- batching ---------------------------------------------------------------------------

def test_batch_values_spec_cardinality():
    ds = tf.data.Dataset.range(5)
    b = ds.batch(2)
    assert b.element_spec == tf.TensorSpec([None], tf.int64)
    assert values(b) == [[0, 1], [2, 3], [4]]
    assert card(b) == 3
    d = ds.batch(2, drop_remainder=True)
    assert d.element_spec == tf.TensorSpec([2], tf.int64)
    assert values(d) == [[0, 1], [2, 3]] and card(d) == 2
    assert card(ds.repeat().batch(2)) == tf.data.INFINITE_CARDINALITY
    nested = tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, ["x", "y", "z"])).batch(2)
    assert values(nested) == [({"a": [1, 2]}, [b"x", b"y"]), ({"a": [3]}, [b"z"])]
    assert values(ds.map(lambda x: (x, tf.fill([2], x))).batch(2))[0] == \
        ([0, 1], [[0, 0], [1, 1]])


def test_batch_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater"):
        tf.data.Dataset.range(5).batch(0)
    ragged = tf.data.Dataset.range(4).map(lambda x: tf.fill([x], x)).batch(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot add tensor to the batch"):
        list(ragged)


def test_map_then_batch_fast_path_matches_elementwise():
    ds = tf.data.Dataset.range(10)
    f = lambda x: tf.cast(x, tf.float32) * 0.5 + 1.0    # noqa: E731
    fused = values(ds.map(f).batch(4))
    per_element = [values(ds.map(f))[i:i + 4] for i in range(0, 10, 4)]
    assert fused == per_element
    assert values(ds.map(lambda x: 7).batch(4, drop_remainder=True)) == [[7] * 4] * 2
    sl = tf.data.Dataset.from_tensor_slices(np.arange(7)).map(lambda x: x * 2).batch(3)
    assert values(sl) == [[0, 2, 4], [6, 8, 10], [12]]


def _batched_and_per_element(ds, f, size):
    fused = ds.map(f).batch(size)
    per_element = [values(ds.map(f))[i:i + size] for i in range(0, len(values(ds)), size)]
    return values(fused), [tuple(map(list, zip(*b))) if isinstance(b[0], tuple) else b
                           for b in per_element]


@pytest.mark.parametrize("f", [
    lambda img, label: (tf.cast(img, tf.float32) / 255.0, tf.one_hot(label, 4)),
    lambda img, label: (img * 2 + tf.constant([1, 0, 1], tf.int64), label),  # a row broadcasts
    lambda img, label: (img * label, label),              # element ranks differ: per element
    lambda img, label: (img, tf.constant([7, 8])),        # same vector for every element
], ids=["cast_one_hot", "row_constant", "mixed_ranks", "constant_vector"])
def test_map_then_batch_of_non_scalar_elements(f, request):
    imgs = np.arange(30, dtype=np.int64).reshape(5, 2, 3)
    labels = np.array([0, 3, 1, 2, 5], np.int64)
    ds = tf.data.Dataset.from_tensor_slices((imgs, labels))
    fused, per_element = _batched_and_per_element(ds, f, 2)
    assert fused == per_element
    from rillflow.data.functions import DatasetFunction
    traced = DatasetFunction(f, ds.element_spec, "Dataset_map")
    assert traced.vectorizable == (request.node.callspec.id in ("cast_one_hot", "row_constant"))


def test_vectorizable_map_of_slices_runs_on_chunks_with_per_element_errors(monkeypatch):
    from rillflow.data import functional
    chunks = []

    class Spy(functional._MappedRows):
        __slots__ = ()

        def __init__(self, source, *fns):
            super().__init__(source, *fns)
            chunks.append(1)
    monkeypatch.setattr(functional, "_MappedRows", Spy)
    xs = np.arange(1, 601, dtype=np.int64)
    mapped = tf.data.Dataset.from_tensor_slices(xs).map(lambda x: (x * 3) % 7)
    assert values(mapped) == ((xs * 3) % 7).tolist()
    assert chunks == [1]
    assert values(mapped.shuffle(10, seed=1).take(0)) == []
    divs = tf.data.Dataset.from_tensor_slices(np.array([4, 2, 0, 5, 0, 1], np.int64)).map(
        lambda x: 10 // x)
    assert values(divs.ignore_errors()) == [2, 5, 2, 10]
    it = iter(divs)
    assert [int(next(it)), int(next(it))] == [2, 5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        next(it)


def test_padded_batch():
    ds = tf.data.Dataset.range(4).map(lambda x: tf.fill([x], x))
    assert values(ds.padded_batch(2)) == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
    ps = ds.padded_batch(2, padded_shapes=[5], padding_values=np.int64(-1))
    assert ps.element_spec == tf.TensorSpec([None, 5], tf.int64)
    assert values(ps)[0] == [[-1] * 5, [1, -1, -1, -1, -1]]
    with pytest.raises(tf.errors.DataLossError, match="smaller size"):
        list(ds.padded_batch(2, padded_shapes=[2]))
    strs = tf.data.Dataset.from_tensor_slices([["a"], ["b"]]).padded_batch(2, [2])
    assert values(strs) == [[[b"a", b""], [b"b", b""]]]


def test_unbatch_rebatch_window():
    ub = tf.data.Dataset.from_tensors([[1, 2], [3, 4]]).unbatch()
    assert ub.element_spec == tf.TensorSpec([2], tf.int32)
    assert values(ub) == [[1, 2], [3, 4]]
    assert card(tf.data.Dataset.range(5).batch(2).unbatch()) == tf.data.UNKNOWN_CARDINALITY
    with pytest.raises(ValueError, match="scalar components"):
        tf.data.Dataset.range(3).unbatch()
    rb = tf.data.Dataset.range(5).batch(4).rebatch(2)
    assert values(rb) == [[0, 1], [2, 3], [4]]
    w = tf.data.Dataset.range(7).window(3, shift=2, stride=2)
    assert [values(x) for x in w] == [[0, 2, 4], [2, 4, 6], [4, 6], [6]]
    w2 = tf.data.Dataset.range(5).window(2)
    assert repr(w2.element_spec) == \
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    assert card(w2) == 3 and card(tf.data.Dataset.range(5).window(2, drop_remainder=True)) == 2
    flat = w2.flat_map(lambda d: d.batch(2))
    assert values(flat) == [[0, 1], [2, 3], [4]]
    tw = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3))).window(2)
    assert isinstance(tw.element_spec, tuple) and len(tw.element_spec) == 2
    with pytest.raises(TypeError, match="not supported for datasets that produce"):
        tf.data.Dataset.range(2).window(2).as_numpy_iterator()


# --- ordering, selection, buffering -----------------------------------------------------

def test_shuffle_semantics_and_seeds():
    ds = tf.data.Dataset.range(20)
    s = ds.shuffle(20, seed=1)
    first, second = values(s), values(s)
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert first != second                  # reshuffled each iteration
    assert values(ds.shuffle(20, seed=1)) == first   # seeded: reproducible
    fixed = ds.shuffle(20, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    assert values(ds.shuffle(1)) == list(range(20))  # a buffer of one keeps the order
    small = values(ds.shuffle(2, seed=5))
    assert all(v <= i + 1 for i, v in enumerate(small))   # at most buffer-1 places early
    tf.random.set_seed(7)
    a = values(ds.shuffle(20))
    tf.random.set_seed(7)
    assert values(ds.shuffle(20)) == a
    assert card(ds.shuffle(3)) == 20
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be greater"):
        ds.shuffle(0)


def test_repeat_take_skip_shard_enumerate():
    ds = tf.data.Dataset.range(3)
    assert values(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert card(ds.repeat(3)) == 9 and card(ds.repeat()) == tf.data.INFINITE_CARDINALITY
    assert values(ds.repeat().take(5)) == [0, 1, 2, 0, 1]
    assert values(tf.data.Dataset.range(0).repeat()) == []
    assert values(ds.take(-1)) == [0, 1, 2] and values(ds.skip(-1)) == []
    assert values(ds.skip(1)) == [1, 2]
    assert card(ds.take(10)) == 3 and card(ds.skip(7)) == 0
    assert card(ds.repeat().take(4)) == 4
    assert card(ds.repeat().skip(2)) == tf.data.INFINITE_CARDINALITY
    assert values(tf.data.Dataset.range(5).shard(2, 1)) == [1, 3]
    assert card(tf.data.Dataset.range(5).shard(2, 0)) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index must be between 0 and 1"):
        ds.shard(2, 3)
    e = ds.enumerate(start=3)
    assert e.element_spec == (I64, I64) and values(e) == [(3, 0), (4, 1), (5, 2)]
    assert card(e) == 3
    assert values(ds.apply(lambda d: d.take(2))) == [0, 1]
    with pytest.raises(TypeError, match="must return a `tf.data.Dataset`"):
        ds.apply(lambda d: 1)


def test_prefetch_runs_producer_in_background_thread():
    threads = []

    def gen():
        for i in range(50):
            threads.append(threading.current_thread().name)
            yield i
    ds = tf.data.Dataset.from_generator(gen, output_signature=I64).map(lambda x: x * 2)
    assert values(ds.prefetch(4)) == [2 * i for i in range(50)]
    assert set(threads) == {"rillflow-prefetch"}
    assert values(ds.prefetch(tf.data.AUTOTUNE).take(3)) == [0, 2, 4]
    assert values(ds.prefetch(0)) == values(ds)


def test_prefetch_propagates_errors_and_stops_early():
    def bad():
        yield 1
        raise ValueError("boom")
    ds = tf.data.Dataset.from_generator(bad, output_signature=I64).prefetch(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^ValueError: boom"):
        list(ds)
    it = iter(tf.data.Dataset.range(10 ** 9).prefetch(8))
    assert next(it).numpy() == 0
    del it      # the producer notices the consumer is gone and stops


def test_prefetch_producer_runs_eagerly_while_main_thread_traces():
    def gen():
        for i in range(200):
            yield tf.constant(i, tf.int64) * 2        # eager ops in the producer thread
    ds = tf.data.Dataset.from_generator(gen, output_signature=I64).prefetch(8)
    sizes = []
    out = []
    for k, x in enumerate(ds):
        out.append(int(x.numpy()))
        if k % 50 == 0:
            f = tf.function(lambda y: y + 1)          # a fresh trace in the main thread
            f(tf.constant(1))
            sizes.append(len(f.get_concrete_function(tf.constant(1)).graph.get_operations()))
    assert out == [2 * i for i in range(200)]
    assert len(set(sizes)) == 1       # no producer op leaked into a traced graph


def test_cache_replays_without_rerunning_the_pipeline():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)
    ds = tf.data.Dataset.from_generator(gen, output_signature=I64).cache()
    assert values(ds) == [0, 1, 2]
    assert values(ds) == [0, 1, 2]
    assert len(calls) == 1


def test_choose_and_sample_from_datasets():
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
    choice = tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0], np.int64))
    assert values(tf.data.Dataset.choose_from_datasets([a, b], choice)) == [0, 10, 11, 1]
    s = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=1)
    assert sorted(values(s)) == [0, 1, 2, 10, 11, 12]


# --- iterators and optionals ------------------------------------------------------------

def test_eager_iterators():
    it = iter(tf.data.Dataset.range(2))
    assert next(it).numpy() == 0
    assert it.get_next().numpy() == 1
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()
    assert it.element_spec == I64
    assert isinstance(it, tf.data.Iterator)
    nit = tf.data.Dataset.range(2).as_numpy_iterator()
    assert repr(nit).startswith("NumpyIterator(iterator=")
    first = next(nit)
    assert isinstance(first, np.int64) and first == 0
    assert list(tf.data.Dataset.from_tensors("x").as_numpy_iterator()) == [b"x"]
    assert bool(tf.data.Dataset.range(0))
    with pytest.raises(TypeError, match="infinite"):
        len(tf.data.Dataset.range(1).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(tf.data.Dataset.range(1).filter(lambda x: True))


def test_optionals():
    it = iter(tf.data.Dataset.range(1))
    o = it.get_next_as_optional()
    assert o.has_value().numpy() and o.get_value().numpy() == 0
    assert o.element_spec == I64
    empty = it.get_next_as_optional()
    assert not empty.has_value().numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        empty.get_value()
    v = tf.experimental.Optional.from_value((1, 2.0))
    assert v.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))
    assert v.get_value()[1].numpy() == 2.0
    assert not tf.experimental.Optional.empty(I64).has_value().numpy()


def test_constants_and_namespaces():
    assert tf.data.AUTOTUNE == -1 and tf.data.experimental.AUTOTUNE == -1
    assert tf.data.experimental.INFINITE_CARDINALITY == -1
    assert tf.data.UNKNOWN_CARDINALITY == -2
    ds = tf.data.Dataset.range(4)
    assert values(ds.apply(tf.data.experimental.scan(np.int64(0), lambda s, x: (s + x, s)))) \
        == [0, 0, 1, 3]
    assert int(tf.data.experimental.cardinality(ds)) == 4
    assert ds.options() is not None and values(ds.with_options(tf.data.Options())) == [0, 1, 2, 3]


# --- inside tf.function -----------------------------------------------------------------

def _graph_size(f, *args):
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


def test_dataset_argument_traces_by_element_spec_not_contents():
    traces = []

    @tf.function
    def total(ds):
        traces.append(1)
        return ds.reduce(np.int32(0), lambda s, e: s + e[0] * e[1])
    small = tf.data.Dataset.from_generator(lambda: [(1, 2)] * 2, (tf.int32, tf.int32))
    big = tf.data.Dataset.from_generator(lambda: [(1, 2)] * 10, (tf.int32, tf.int32))
    assert total(small).numpy() == 4
    assert total(big).numpy() == 20
    assert len(traces) == 1
    assert _graph_size(total, small) == _graph_size(total, big)
    assert total.experimental_get_tracing_count() == 1
    other = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))   # a new element_spec
    assert total(other).numpy() == 11
    assert len(traces) == 2
    cf = total.get_concrete_function(small)
    assert "DatasetSpec" in repr(cf.structured_input_signature)
    assert any(n.op == "Placeholder" for n in cf.graph.as_graph_def().node)


def test_reduce_in_graph_is_one_named_op():
    @tf.function
    def f():
        return tf.data.Dataset.range(5).map(lambda x: x * 2).reduce(np.int64(0),
                                                                      lambda s, x: s + x)
    assert f().numpy() == 20
    nodes = f.get_concrete_function().graph.as_graph_def().node
    names = [n.name for n in nodes]
    assert "ReduceDataset" in names and "MapDataset" in names and "RangeDataset" in names
    assert sum(n.op == "ReduceDataset" for n in nodes) == 1
    lib = [fn.name for fn in f.get_concrete_function().graph.as_graph_def().library.function]
    assert any("Dataset_map" in n for n in lib) and any("reduce" in n for n in lib)


def test_for_loop_over_dataset_in_function_becomes_reduce():
    @tf.function
    def f():
        x = tf.constant(0, dtype=tf.int64)
        for i in tf.data.Dataset.range(5):
            x += i
        return x
    assert f().numpy() == 10
    assert any(n.name == "ReduceDataset"
               for n in f.get_concrete_function().graph.as_graph_def().node)


def test_dataset_ops_in_graph_use_outer_tensors():
    @tf.function
    def f(x, k):
        ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * k).filter(
            lambda v: v > k).batch(2)
        return ds.reduce(tf.constant(0), lambda s, b: s + tf.reduce_sum(b))
    assert f(tf.constant([1, 2, 3]), tf.constant(2)).numpy() == 10
    assert f(tf.constant([1, 2, 3, 4]), tf.constant(3)).numpy() == 27
    g = f.get_concrete_function(tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32))
    map_op = [op for op in g.graph.get_operations() if op.type == "MapDataset"][0]
    assert [t.op.name for t in map_op.inputs] == ["TensorSliceDataset", "k"]


def test_scan_take_while_and_cardinality_in_graph():
    pulled = []

    def gen():
        for i in range(100):
            pulled.append(i)
            yield i

    @tf.function
    def f(ds):
        s = ds.scan(np.int64(0), lambda acc, x: (acc + x, acc + x))
        return s.take_while(lambda v: v < 10).reduce(np.int64(0), lambda a, v: a + 1), \
            ds.cardinality()
    n, c = f(tf.data.Dataset.from_generator(gen, output_signature=I64))
    assert n.numpy() == 4 and c.numpy() == -2
    assert pulled == [0, 1, 2, 3, 4]


def test_iterators_in_graph():
    @tf.function
    def two(ds):
        it = iter(ds)
        a = it.get_next()
        o = it.get_next_as_optional()
        return a, o.has_value(), o.get_value()
    a, has, b = two(tf.data.Dataset.range(3))
    assert (a.numpy(), bool(has), b.numpy()) == (0, True, 1)
    ops = [n.op for n in two.get_concrete_function(tf.data.Dataset.range(3)).graph
           .as_graph_def().node]
    for t in ("AnonymousIteratorV3", "MakeIterator", "IteratorGetNext",
              "IteratorGetNextAsOptional", "OptionalHasValue", "OptionalGetValue"):
        assert t in ops
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        two(tf.data.Dataset.range(0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        two(tf.data.Dataset.range(1))

    @tf.function
    def has_next(ds):
        it = iter(ds)
        it.get_next()
        return it.get_next_as_optional().has_value()
    assert not has_next(tf.data.Dataset.range(1)).numpy()


def test_eager_iterator_passed_to_function_shares_position():
    it = iter(tf.data.Dataset.range(10))
    next(it)

    @tf.function
    def take(iterator):
        return iterator.get_next()
    assert take(it).numpy() == 1
    assert take(it).numpy() == 2
    assert next(it).numpy() == 3
    assert take.experimental_get_tracing_count() == 1


def test_dataset_built_in_function_from_generator_and_returned():
    @tf.function
    def f():
        ds = tf.data.Dataset.from_generator(lambda: iter([1, 2, 3]), tf.int32)
        return ds.reduce(0, lambda s, e: s + e)
    assert f().numpy() == 6
    assert f().numpy() == 6      # the generator is called on every run

    @tf.function
    def make(n):
        return tf.data.Dataset.range(n).map(lambda x: x + 1)
    ds = make(tf.constant(3, tf.int64))
    assert isinstance(ds, tf.data.Dataset) and values(ds) == [1, 2, 3]


def test_graph_mode_shapes_for_batched_datasets():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).batch(3, drop_remainder=True)
        assert ds.element_spec == tf.TensorSpec([3], tf.int64)
        assert ds._variant_tensor.dtype == tf.variant
        with pytest.raises(RuntimeError, match="eager mode or within tf.function"):
            iter(ds)


# --- streaming --------------------------------------------------------------------------

def _no_background_loading():
    # tracemalloc counts every thread: let the loads of the jit extra's
    # kernels that earlier tests started (each family has its loader thread,
    # all named rillflow-jit-load*) finish before measuring.
    import threading
    for t in threading.enumerate():
        if t.name.startswith("rillflow-jit-load"):
            t.join()


def test_streaming_a_million_elements_in_bounded_memory():
    ds = tf.data.Dataset.range(1_000_000).map(lambda x: x + 1).batch(1024)
    _no_background_loading()
    tracemalloc.start()
    try:
        total = 0
        count = 0
        for b in ds:
            total += int(b.numpy().sum())
            count += b.shape[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 1_000_000 and total == 1_000_000 * 1_000_001 // 2
    assert peak < 2_000_000, peak       # the whole input would be 8 MB


def test_streaming_generator_pipeline_in_bounded_memory():
    _no_background_loading()
    n = 20_000

    def gen():
        for i in range(n):
            yield np.full(100, i, np.float64)          # 800 bytes each, 16 MB in all
    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([100], tf.float64))
    ds = ds.map(lambda v: tf.reduce_sum(v)).batch(256).prefetch(2)
    tracemalloc.start()
    try:
        count = sum(int(b.shape[0]) for b in ds)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == n
    assert peak < 4_000_000, peak


def test_streaming_a_large_text_file_in_bounded_memory(tmp_path):
    path = tmp_path / "big.txt"
    n = 200_000
    with open(path, "w") as f:
        f.writelines("line number %d\n" % i for i in range(n))     # about 3.5 MB
    ds = tf.data.TextLineDataset(str(path)).batch(1000)
    _no_background_loading()
    tracemalloc.start()
    try:
        count = 0
        for b in ds:
            count += b.shape[0]
            last = b
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == n and last.numpy()[-1] == b"line number %d" % (n - 1)
    assert peak < 1_500_000, peak

"""tf.data behaviour found to differ from TensorFlow 2.21 by differential
testing; every expected value and message here was printed by TensorFlow."""
import functools

import numpy as np
import pytest

import rillflow as tf

I64 = tf.TensorSpec([], tf.int64)


def values(ds):
    return list(ds.as_numpy_iterator())


def test_range_argument_count_errors():
    for args in [(), (1, 2, 3, 4)]:
        with pytest.raises(ValueError, match=r"^Invalid `args`. The length of `args` should be "
                           rf"between 1 and 3 but was {len(args)}.$"):
            tf.data.Dataset.range(*args)


def test_user_function_argument_mismatch_is_pythons_own_error():
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    with pytest.raises(TypeError, match=r"<lambda>\(\) takes 1 positional argument but 2 were "
                       r"given$"):
        pairs.map(lambda x: x)
    with pytest.raises(TypeError, match=r"<lambda>\(\) takes 1 positional argument but 2"):
        pairs.filter(lambda x: True)

    def f(x, y, z):
        return x
    with pytest.raises(TypeError, match=r"f\(\) missing 2 required positional arguments: 'y' "
                       r"and 'z'$"):
        tf.data.Dataset.from_tensor_slices([1, 2]).map(f)

    def g(x, y, k):
        return x
    assert pairs.map(functools.partial(g, k=1)).element_spec == tf.TensorSpec([], tf.int32)
    with pytest.raises(TypeError, match=r"g\(\) got multiple values for argument 'k'$"):
        tf.data.Dataset.from_tensor_slices(([1], [2], [3])).map(functools.partial(g, k=1))
    with pytest.raises(TypeError, match=r"<lambda>\(\) missing 1 required positional argument: "
                       r"'b'$"):
        tf.data.Dataset.range(3).map(lambda x: (x, x)).reduce(np.int64(0), lambda s, a, b: s)
    # *args functions take any number of components.
    assert values(pairs.map(lambda *a: a[1])) == [3, 4]


def test_padded_batch_padding_values_convert_without_the_component_dtype():
    ragged = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))
    with pytest.raises(TypeError, match=r"^Invalid `padding_values`. `padding_values` values "
                       r"type <dtype: 'int32'> does not match type <dtype: 'int64'> of the "
                       r"corresponding input component.$"):
        ragged.padded_batch(2, padding_values=-1)
    with pytest.raises(TypeError, match=r"type <dtype: 'float32'> does not match type "
                       r"<dtype: 'int64'>"):
        ragged.padded_batch(2, padding_values=-1.0)
    with pytest.raises(ValueError, match=r"values should be scalars, but got \(2,\)."):
        tf.data.Dataset.from_tensor_slices([[1], [2]]).padded_batch(
            2, padded_shapes=[3], padding_values=[1, 2])
    ints = tf.data.Dataset.from_tensor_slices([[1], [2]])
    assert values(ints.padded_batch(2, padded_shapes=[3], padding_values=-1))[0].tolist() == \
        [[1, -1, -1], [2, -1, -1]]
    # None inside a structure keeps that component's default padding.
    pairs = tf.data.Dataset.range(1, 4).map(lambda x: (tf.fill([x], x), tf.fill([x], x)))
    first = values(pairs.padded_batch(2, padding_values=(tf.constant(-1, tf.int64), None)))[0]
    assert first[0].tolist() == [[1, -1], [2, 2]] and first[1].tolist() == [[1, 0], [2, 2]]


def test_rebatch_of_scalars_error():
    with pytest.raises(ValueError, match=r"^Invalid `batch_sizes`. Expected dataset with rank "
                       r"of >= 1 but found a dataset with scalar elements. Fix the issue by "
                       r"adding the `batch` transformation to the dataset.$"):
        tf.data.Dataset.range(8).rebatch(2)


def _generated(*items, dtype=tf.int32):
    return tf.data.Dataset.from_generator(lambda: items,
                                          output_signature=tf.TensorSpec(None, dtype))


def test_batch_shape_mismatch_messages():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Cannot batch tensors with "
                       r"different shapes in component 0. First element had shape \[2\] and "
                       r"element 1 had shape \[1\]. \[Op:IteratorGetNext\]$"):
        list(tf.data.Dataset.range(7).batch(2).batch(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"First element had shape \[2,3\] "
                       r"and element 1 had shape \[3,2\]."):
        list(_generated(np.zeros((2, 3)), np.zeros((3, 2)), dtype=tf.float32).batch(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"First element had shape \[\] "
                       r"and element 2 had shape \[2\]."):
        list(_generated(1, 2, [1, 2]).batch(3))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"in component 1. First element "
                       r"had shape \[1\] and element 1 had shape \[2\]."):
        list(tf.data.Dataset.from_generator(
            lambda: [("a", [1]), ("b", [1, 2])],
            output_signature=(tf.TensorSpec(None, tf.string),
                              tf.TensorSpec(None, tf.int32))).batch(2))
    # A map followed by batch is fused into MapAndBatch, which words it so.
    mapped = tf.data.Dataset.range(4).map(lambda x: tf.fill([x % 2 + 1], x))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Cannot add tensor to the batch: "
                       r"number of elements does not match. Shapes are: \[tensor\]: \[2\], "
                       r"\[batch\]: \[1\] \[Op:IteratorGetNext\]$"):
        list(mapped.batch(2))
    # ... but not into a parallel batch.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Cannot batch tensors with "
                       r"different shapes in component 0. First element had shape \[1\] and "
                       r"element 1 had shape \[2\]."):
        list(mapped.batch(2, num_parallel_calls=2))


def test_eager_iteration_errors_name_the_iterator_op():
    it = iter(tf.data.Dataset.range(1))
    next(it)
    with pytest.raises(tf.errors.OutOfRangeError, match=r"^End of sequence "
                       r"\[Op:IteratorGetNext\]$"):
        it.get_next()
    assert not it.get_next_as_optional().has_value()
    bad = tf.data.Dataset.from_tensor_slices(tf.constant([0, 5], tf.int64))
    chosen = tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)] * 2, bad)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Selector index out of range: 5 >= 2 \[Op:IteratorGetNext\]$"):
        values(chosen)
    ragged = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).batch(3)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"\[Op:IteratorGetNextAsOptional\]$"):
        iter(ragged).get_next_as_optional()


def test_argument_error_messages():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^buffer_size must be >= 0 or set "
                       r"buffer_size to be -1 for auto-tuning \[Op:PrefetchDataset\]$"):
        tf.data.Dataset.range(5).prefetch(-5)
    # (sic: TensorFlow's message runs "is" into the spec)
    with pytest.raises(ValueError, match=r"^Invalid `predicate`. `predicate` must return a "
                       r"`tf.bool` scalar tensor but its return type isTensorSpec"):
        tf.data.Dataset.range(10).take_while(lambda x: x)
    with pytest.raises(ValueError, match=r"scalar tensor, but its return type is TensorSpec"):
        tf.data.Dataset.range(10).filter(lambda x: x)


def test_unique_types_and_non_scalar_elements():
    with pytest.raises(TypeError, match=r"^`tf.data.Dataset.unique` does not support type "
                       r"<dtype: 'float32'> -- only `tf.int32`, `tf.int64`, and `tf.string` "
                       r"are supported.$"):
        tf.data.Dataset.from_tensor_slices([1., 2.]).unique()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^UniqueDataset only supports "
                       r"inputs with a single component. \[Op:UniqueDataset\]$"):
        tf.data.Dataset.from_tensor_slices(([1], [2])).unique()
    vecs = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [1, 2]]).unique()
    assert [v.tolist() for v in values(vecs)] == [[1, 2], [3, 4]]
    strs = tf.data.Dataset.from_tensor_slices([["a"], ["b"], ["a"]]).unique()
    assert [v.tolist() for v in values(strs)] == [[b"a"], [b"b"]]


def test_choose_and_sample_cardinality_and_errors():
    fin, inf = tf.data.Dataset.range(3), tf.data.Dataset.range(3).repeat()
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64))
    # Infinite when an input is infinite (whatever the selector), else unknown.
    assert tf.data.Dataset.choose_from_datasets([fin, inf], choice).cardinality() == -1
    assert tf.data.Dataset.choose_from_datasets([fin, fin], choice).cardinality() == -2
    assert tf.data.Dataset.sample_from_datasets([inf, inf]).cardinality() == -1
    # Datasets of weight 0 are dropped; one dataset left is returned as is.
    one = tf.data.Dataset.sample_from_datasets([fin, inf], weights=[1.0, 0.0], seed=1,
                                               stop_on_empty_dataset=True)
    assert one.cardinality() == 3 and values(one) == [0, 1, 2]
    none = tf.data.Dataset.sample_from_datasets([fin, inf], weights=[0.0, 0.0])
    assert none.cardinality() == 0 and values(none) == []
    with pytest.raises(ValueError, match=r"^Invalid `weights`. `weights` should have the same "
                       r"length as `datasets` but got `len\(weights\)=1` vs. "
                       r"`len\(datasets\)=2`.$"):
        tf.data.Dataset.sample_from_datasets([fin, fin], weights=[0.5])
    with pytest.raises(ValueError, match=r"compatible with `\[len\(datasets\)\]` but is "
                       r"\(3,\).$"):
        tf.data.Dataset.sample_from_datasets([fin, fin], weights=tf.constant([0.5, 0.5, 0.1]))
    with pytest.raises(ValueError, match="`datasets` should not be empty"):
        tf.data.Dataset.sample_from_datasets([])
    with pytest.raises(TypeError, match=r"^Invalid `choice_dataset`. `choice_dataset` should be "
                       r"a `tf.data.Dataset` but is <class 'list'>.$"):
        tf.data.Dataset.choose_from_datasets([fin], [0, 1])
    with pytest.raises(TypeError, match=r"^Invalid `choice_dataset`. Elements of "
                       r"`choice_dataset` must be scalar `tf.int64` tensors but are "
                       r"TensorSpec\(shape=\(\), dtype=tf.int32, name=None\).$"):
        tf.data.Dataset.choose_from_datasets([fin], tf.data.Dataset.from_tensor_slices([0]))
    with pytest.raises(TypeError, match=r"^Invalid `datasets`. `datasets` must have compatible "
                       r"element specs."):
        tf.data.Dataset.choose_from_datasets(
            [fin, tf.data.Dataset.from_tensor_slices([1.0])], choice)


def test_from_generator_converts_values_as_numpy_astype():
    def one(v, dtype, shape=()):
        return values(tf.data.Dataset.from_generator(
            lambda: [v], output_signature=tf.TensorSpec(shape, dtype)))[0]
    assert one(1.5, tf.int32) == 1 and one(1.5, tf.int32).dtype == np.int32
    assert one(True, tf.int32) == 1
    assert one("7", tf.int32) == 7
    assert one(tf.constant(3), tf.float32) == 3.0
    assert one(np.array([1.7, -2.2]), tf.int64, (2,)).tolist() == [1, -2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="^TypeError: `generator` yielded "
                       "an element that could not be converted to the expected type. The "
                       "expected type was int32, but the yielded element was x."):
        one("x", tf.int32)


def test_from_generator_structure_message_and_repr():
    ds = tf.data.Dataset.from_generator(
        lambda: [1], output_signature=(tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.int32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"The expected structure was "
                       r"\(tf.int32, tf.int32\), but the yielded element was 1."):
        list(ds)
    assert repr(ds).startswith("<_FlatMapDataset element_spec=(TensorSpec(")


def test_from_generator_exceptions_become_op_errors():
    def gen(exc):
        def g():
            yield 1
            raise exc
        return tf.data.Dataset.from_generator(g, output_signature=I64)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^ValueError: boom\n") as info:
        list(gen(ValueError("boom")))
    assert "Traceback" in str(info.value)
    assert str(info.value).endswith(" [Op:IteratorGetNext]")
    with pytest.raises(tf.errors.UnknownError, match=r"^KeyError: 'k'"):
        list(gen(KeyError("k")))
    with pytest.raises(tf.errors.UnknownError,
                       match=r"^RuntimeError: generator raised StopIteration"):
        list(gen(StopIteration()))

    def bad():
        raise ValueError("at start")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^ValueError: at start"):
        list(tf.data.Dataset.from_generator(bad, output_signature=I64))
    # The elements before the error were delivered.
    it = iter(gen(TypeError("late")))
    assert next(it).numpy() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="^TypeError: late"):
        next(it)


def test_dataset_reprs():
    ds = tf.data.Dataset.range(3)
    assert repr(ds.cache()).startswith("<CacheDataset element_spec=")
    assert repr(ds.batch(2, num_parallel_calls=2)).startswith("<_ParallelBatchDataset ")
    assert repr(ds.apply(tf.data.experimental.assert_cardinality(3))).startswith(
        "<_AssertCardinalityDataset ")


def test_assert_cardinality():
    ds = tf.data.Dataset.range(3).filter(lambda x: True)
    checked = ds.apply(tf.data.experimental.assert_cardinality(3))
    assert checked.cardinality() == 3 and len(checked) == 3 and values(checked) == [0, 1, 2]
    assert checked.map(lambda x: x).batch(2).cardinality() == 2
    for n, message in [(2, "to contain 2 elements but contained at least 3 elements."),
                       (1, "to contain 1 element but contained at least 2 elements."),
                       (5, "to contain 5 elements but contained only 3 elements."),
                       (-1, "to contain an infinite number of elements but contained only 3 "
                            "elements.")]:
        wrong = ds.apply(tf.data.experimental.assert_cardinality(n))
        assert wrong.cardinality() == n
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match=rf"^Input dataset was expected {message} "
                                 r"\[Op:IteratorGetNext\]$"):
            list(wrong)
    forever = tf.data.Dataset.range(3).repeat()
    assert values(forever.apply(tf.data.experimental.assert_cardinality(-1)).take(4)) == \
        [0, 1, 2, 0]
    with pytest.raises(tf.errors.FailedPreconditionError, match="at least 3 elements"):
        values(forever.apply(tf.data.experimental.assert_cardinality(2)).take(4))


def test_group_by_window():
    ds = tf.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 3,
        reduce_func=lambda k, w: w.batch(2), window_size=2)
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)
    assert ds.cardinality() == -2
    assert repr(ds).startswith("<_GroupByWindowDataset ")
    # Full windows as they fill up, then the rest by increasing key.
    assert [b.tolist() for b in values(ds)] == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    sized = tf.data.Dataset.range(12).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(5), window_size_func=lambda k: k + 2)
    assert [b.tolist() for b in values(sized)] == [[0, 2], [1, 3, 5], [4, 6], [8, 10],
                                                   [7, 9, 11]]
    m = tf.constant(3, tf.int64)     # captured by all three functions
    captured = tf.data.Dataset.range(10).group_by_window(
        lambda x: x % m, lambda k, w: w.batch(2).map(lambda b: b * m),
        window_size_func=lambda k: k + m - 1)
    assert [b.tolist() for b in values(captured)] == [
        [0, 9], [3, 12], [21], [18, 27], [6, 15], [24]]
    pairs = tf.data.Dataset.range(10).map(lambda x: {"a": x}).apply(
        tf.data.experimental.group_by_window(lambda d: d["a"] % 2,
                                             lambda k, w: w.map(lambda d: d["a"] * k), 2))
    assert values(pairs) == [0, 0, 1, 3, 0, 0, 5, 7, 0, 9]
    forever = tf.data.Dataset.range(10).repeat().group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(2), window_size=2)
    assert forever.cardinality() == -1

    @tf.function
    def digits():
        s = tf.constant(0, tf.int64)
        for b in ds:
            s = s * 10 + tf.reduce_sum(b)
        return s
    assert digits().numpy() == 358578


def test_group_by_window_errors():
    r = tf.data.Dataset.range(10)
    with pytest.raises(ValueError, match=r"^Either the `window_size` argument or the "
                       r"`window_size_func` argument must be specified.$"):
        r.group_by_window(lambda x: x % 2, lambda k, w: w)
    with pytest.raises(ValueError, match="Either the `window_size`"):
        r.group_by_window(lambda x: x % 2, lambda k, w: w, 2, lambda k: 2)
    with pytest.raises(TypeError, match=r"^Invalid `reduce_func`. `reduce_func` must return a "
                       r"single `tf.data.Dataset` object but its return type is "
                       r"TensorSpec\(shape=\(\), dtype=tf.int64, name=None\).$"):
        r.group_by_window(lambda x: x % 2, lambda k, w: k, window_size=2)
    with pytest.raises(ValueError, match=r"^Invalid `key_func`. `key_func` must return a single "
                       r"`tf.int64` scalar tensor but its return type is TensorSpec\(shape="
                       r"\(2,\), dtype=tf.int64, name=None\).$"):
        r.group_by_window(lambda x: [x % 2, x], lambda k, w: w, window_size=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Window size must be greater "
                       r"than zero, but got 0. \[Op:IteratorGetNext\]$"):
        list(r.group_by_window(lambda x: x % 2, lambda k, w: w, window_size=0))
    assert values(r.group_by_window(lambda x: 1, lambda k, w: w, window_size=3)) == \
        list(range(10))


def test_bucket_by_sequence_length():
    elements = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20],
                [21, 22]]
    ds = tf.data.Dataset.from_generator(lambda: elements, tf.int64, output_shapes=[None])
    b = ds.bucket_by_sequence_length(element_length_func=lambda elem: tf.shape(elem)[0],
                                     bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 2])
    assert b.element_spec == tf.TensorSpec([None, None], tf.int64)
    assert [e.tolist() for e in values(b)] == [
        [[1, 2, 3, 4], [5, 6, 7, 0]], [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]],
        [[0, 0], [21, 22]]]
    bounded = ds.apply(tf.data.experimental.bucket_by_sequence_length(
        lambda elem: tf.shape(elem)[0], [3, 5], [2, 2, 2], pad_to_bucket_boundary=True))
    it = bounded.as_numpy_iterator()
    assert next(it).tolist() == [[1, 2, 3, 4], [5, 6, 7, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="When pad_to_bucket_boundary=True, "
                       r"elements must have length < max\(bucket_boundaries\)."):
        next(it)
    short = tf.data.Dataset.from_generator(lambda: [[0], [1, 2], [5, 6, 7], [7, 8], [13],
                                                    [21, 22]], tf.int64, output_shapes=[None])
    padded = short.bucket_by_sequence_length(lambda elem: tf.shape(elem)[0], [2, 4],
                                             [2, 2, 2], pad_to_bucket_boundary=True)
    assert [e.tolist() for e in values(padded)] == [
        [[1, 2, 0], [5, 6, 7]], [[0], [13]], [[7, 8, 0], [21, 22, 0]]]
    dropped = tf.data.Dataset.range(10).map(lambda x: tf.fill([x % 4], x)) \
        .bucket_by_sequence_length(lambda e: tf.size(e), [1, 3], [3, 2, 2], drop_remainder=True)
    assert dropped.element_spec == tf.TensorSpec([None, None], tf.int64)
    # Key 0 (empty elements) fills its window of 3 last.
    assert [e.tolist() for e in values(dropped)] == [
        [[1, 0], [2, 2]], [[5, 0], [6, 6]], [[3, 3, 3], [7, 7, 7]], [[], [], []]]
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4, 5, 6], [1, 1, 3, 3, 5, 5]))
    unpadded = pairs.bucket_by_sequence_length(lambda x, n: n, [2, 4], [2, 2, 1],
                                               no_padding=True)
    assert [(a.tolist(), n.tolist()) for a, n in values(unpadded)] == [
        ([1, 2], [1, 1]), ([3, 4], [3, 3]), ([5], [5]), ([6], [5])]
    dicts = tf.data.Dataset.from_tensor_slices({"x": [[1, 2, 0], [3, 0, 0]], "n": [2, 1]})
    shaped = dicts.bucket_by_sequence_length(lambda d: d["n"], [2], [2, 2],
                                             padded_shapes={"x": [4], "n": []})
    assert shaped.element_spec == {"x": tf.TensorSpec([None, 4], tf.int32),
                                   "n": tf.TensorSpec([None], tf.int32)}
    assert [(d["x"].tolist(), d["n"].tolist()) for d in values(shaped)] == [
        ([[3, 0, 0, 0]], [1]), ([[1, 2, 0, 0]], [2])]
    with pytest.raises(ValueError, match=r"^`len\(bucket_batch_sizes\)` must equal "
                       r"`len\(bucket_boundaries\) \+ 1` but `len\(bucket_batch_sizes\)=2` and "
                       r"`len\(bucket_boundaries\)=2`.$"):
        tf.data.Dataset.range(3).bucket_by_sequence_length(lambda x: x, [2, 4], [2, 2])

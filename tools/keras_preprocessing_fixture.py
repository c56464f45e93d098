"""Keras 3's preprocessing layers built on `tf.lookup`, `tf.sparse.cross_hashed`
and the string hashes: `StringLookup`, `IntegerLookup`, `TextVectorization`,
`Hashing`, `HashedCrossing` and `CategoryEncoding`, called eagerly, inside a
functional model (`predict`) and inside `tf.data.Dataset.map`.

`run()` returns every output as JSON-ready lists. Under TensorFlow it records
tests/data/keras_preprocessing.json:

    KERAS_BACKEND=tensorflow /work/tfref/bin/python tools/keras_preprocessing_fixture.py

and tests/test_keras_preprocessing.py runs it on rillflow (with the shim
installed, so `import tensorflow` is rillflow) and compares.
"""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "keras_preprocessing.json")

TEXT = ["The quick brown fox", "the lazy dog", "A quick dog and a quick fox",
        "brown dogs are lazy", ""]


def _plain(x):
    """A layer output as nested lists (dense, sparse as dense, ragged as lists)."""
    import tensorflow as tf
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    if isinstance(x, tf.RaggedTensor):
        return _plain(x.to_list())
    if hasattr(x, "numpy"):
        x = x.numpy()
    if isinstance(x, list):
        return [_plain(v) for v in x]
    a = np.asarray(x)
    if a.dtype == object or a.dtype.kind == "S":
        return [v.decode() if isinstance(v, bytes) else v for v in a.reshape(-1).tolist()] \
            if a.ndim else (a.item().decode() if isinstance(a.item(), bytes) else a.item())
    return a.tolist()


def _vocab(layer):
    return [v.decode() if isinstance(v, bytes) else
            (int(v) if isinstance(v, (np.integer, int)) else v)
            for v in layer.get_vocabulary()]


def string_lookup(keras, tf):
    out = {}
    words = tf.constant([["a", "b", "zz"], ["c", "", "a"]])
    for mode in ("int", "one_hot", "multi_hot", "count"):
        layer = keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        out["mode_" + mode] = _plain(layer(words if mode != "one_hot" else
                                           tf.constant(["a", "c", "q"])))
    oov2 = keras.layers.StringLookup(vocabulary=["a", "b"], num_oov_indices=2,
                                     mask_token="")
    out["two_oov_mask"] = _plain(oov2(tf.constant([["a", "q", "r", "s", "", "b"]])))
    out["two_oov_vocab"] = _vocab(oov2)
    adapted = keras.layers.StringLookup(max_tokens=5)
    adapted.adapt(tf.constant(["x", "y", "y", "z", "z", "z", "w", "w", "v"]))
    out["adapt_vocab"] = _vocab(adapted)
    out["adapt_size"] = int(adapted.vocabulary_size())
    out["adapt_lookup"] = _plain(adapted(tf.constant(["z", "v", "x", "q"])))
    tfidf = keras.layers.StringLookup(output_mode="tf_idf")
    tfidf.adapt(tf.constant([["a", "b"], ["a", "c"], ["a", "a"]]))
    out["tf_idf"] = _plain(tfidf(tf.constant([["a", "c", "c"], ["b", "q", "a"]])))
    inverse = keras.layers.StringLookup(vocabulary=["a", "b", "c"], invert=True)
    out["invert"] = _plain(inverse(tf.constant([[1, 3, 0], [2, 9, 1]])))
    sparse = keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot",
                                       sparse=True)
    out["sparse_multi_hot"] = _plain(sparse(tf.constant([["a", "b"], ["c", "c"]])))
    ragged = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    out["ragged"] = _plain(ragged(tf.ragged.constant([["a", "q"], [], ["c"]])))
    sp_in = tf.sparse.SparseTensor([[0, 1], [2, 0]], ["b", "zz"], [3, 2])
    out["sparse_input"] = _plain(ragged(sp_in))
    return out


def integer_lookup(keras, tf):
    out = {}
    ints = tf.constant([[12, 1138, 42], [42, 1000, 36]], tf.int64)
    for mode in ("int", "multi_hot", "count"):
        layer = keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], output_mode=mode)
        out["mode_" + mode] = _plain(layer(ints))
    oov2 = keras.layers.IntegerLookup(vocabulary=[12, 36], num_oov_indices=2, mask_token=0)
    out["two_oov_mask"] = _plain(oov2(tf.constant([[12, 5, 6, 7, 0, 36]], tf.int64)))
    out["two_oov_vocab"] = _vocab(oov2)
    adapted = keras.layers.IntegerLookup(max_tokens=4)
    adapted.adapt(tf.constant([7, 7, 7, 3, 3, 9, 9, 1], tf.int64))
    out["adapt_vocab"] = _vocab(adapted)
    out["adapt_lookup"] = _plain(adapted(tf.constant([9, 1, 7, 100], tf.int64)))
    inverse = keras.layers.IntegerLookup(vocabulary=[12, 36, 1138], invert=True)
    out["invert"] = _plain(inverse(tf.constant([[1, 3, 0], [2, 9, 1]], tf.int64)))
    return out


def text_vectorization(keras, tf):
    out = {}
    tv = keras.layers.TextVectorization(max_tokens=12, output_sequence_length=6)
    tv.adapt(TEXT)
    out["int_vocab"] = _vocab(tv)
    out["int"] = _plain(tv(tf.constant(["the quick fox jumps", "lazy lazy dogs!"])))
    for mode in ("multi_hot", "count", "tf_idf"):
        layer = keras.layers.TextVectorization(max_tokens=10, output_mode=mode)
        layer.adapt(TEXT)
        out[mode] = _plain(layer(tf.constant(["the quick fox", "brown brown dog cat"])))
    bigrams = keras.layers.TextVectorization(ngrams=2, output_mode="int")
    bigrams.adapt(TEXT)
    out["bigram_vocab"] = _vocab(bigrams)
    out["bigram"] = _plain(bigrams(tf.constant(["the quick brown fox"])))
    ragged = keras.layers.TextVectorization(vocabulary=["quick", "fox", "dog"], ragged=True)
    out["ragged"] = _plain(ragged(tf.constant(["the quick fox", "a dog"])))
    return out


def hashing(keras, tf):
    out = {}
    strings = tf.constant([["A", "B"], ["C", "D"], ["E", "F"]])
    out["fast"] = _plain(keras.layers.Hashing(num_bins=5)(strings))
    out["mask"] = _plain(keras.layers.Hashing(num_bins=5, mask_value="B")(strings))
    out["salted"] = _plain(keras.layers.Hashing(num_bins=5, salt=[133, 137])(strings))
    out["int_input"] = _plain(keras.layers.Hashing(num_bins=7)(tf.constant([[1, 2], [300, -4]])))
    out["one_hot"] = _plain(keras.layers.Hashing(num_bins=4, output_mode="one_hot")(
        tf.constant(["a", "b", "c"])))
    out["multi_hot"] = _plain(keras.layers.Hashing(num_bins=4, output_mode="multi_hot")(
        strings))
    return out


def hashed_crossing(keras, tf):
    out = {}
    feat1 = tf.constant(["A", "B", "A", "B", "A"])
    feat2 = tf.constant([101, 101, 101, 102, 102])
    out["int"] = _plain(keras.layers.HashedCrossing(num_bins=5)((feat1, feat2)))
    out["one_hot"] = _plain(keras.layers.HashedCrossing(num_bins=5, output_mode="one_hot")(
        (feat1, feat2)))
    out["big_bins"] = _plain(keras.layers.HashedCrossing(num_bins=2**20)(
        (tf.constant([["x"], ["y"]]), tf.constant([[5], [-6]], tf.int64))))
    return out


def category_encoding(keras, tf):
    out = {}
    x = tf.constant([[0, 1], [0, 0], [1, 2], [3, 1]])
    for mode in ("one_hot", "multi_hot", "count"):
        layer = keras.layers.CategoryEncoding(num_tokens=4, output_mode=mode)
        out[mode] = _plain(layer(x if mode != "one_hot" else tf.constant([3, 2, 0, 1])))
    out["count_weights"] = _plain(keras.layers.CategoryEncoding(num_tokens=4,
                                                                output_mode="count")(
        x, count_weights=tf.constant([[0.5, 1.0], [2.0, 0.25], [1.0, 1.0], [3.0, 0.5]])))
    out["sparse_count"] = _plain(keras.layers.CategoryEncoding(
        num_tokens=4, output_mode="count", sparse=True)(x))
    return out


def in_model_and_dataset(keras, tf):
    out = {}
    lookup = keras.layers.StringLookup(vocabulary=["a", "b", "c", "d"])
    encode = keras.layers.CategoryEncoding(num_tokens=lookup.vocabulary_size(),
                                           output_mode="count")
    inputs = keras.Input(shape=(3,), dtype="string")
    model = keras.Model(inputs, encode(lookup(inputs)))
    data = tf.constant([["a", "b", "b"], ["d", "x", "c"], ["c", "c", "c"]])
    out["model_call"] = _plain(model(data))
    out["model_in_function"] = _plain(tf.function(model)(data))
    out["model_predict_strings"] = _plain(model.predict(data, batch_size=2, verbose=0))
    ids = keras.layers.IntegerLookup(vocabulary=[5, 7, 9], output_mode="multi_hot")
    int_inputs = keras.Input(shape=(2,), dtype="int64")
    int_model = keras.Model(int_inputs, ids(int_inputs))
    out["model_predict"] = _plain(int_model.predict(np.array([[5, 9], [7, 1], [9, 9]]),
                                                    batch_size=2, verbose=0))
    tv = keras.layers.TextVectorization(max_tokens=8, output_sequence_length=4)
    tv.adapt(tf.data.Dataset.from_tensor_slices(TEXT).batch(2))
    ds = tf.data.Dataset.from_tensor_slices(TEXT).batch(2).map(tv)
    out["dataset_text"] = [_plain(b) for b in ds]
    hashing_layer = keras.layers.Hashing(num_bins=6)
    crossing = keras.layers.HashedCrossing(num_bins=6)
    ds2 = tf.data.Dataset.from_tensor_slices((["a", "b", "c"], [1, 2, 3])).batch(3)
    ds2 = ds2.map(lambda s, i: (lookup(s), hashing_layer(s), crossing((s, i))))
    out["dataset_layers"] = [_plain(list(b)) for b in ds2]
    return out


def run():
    """Every layer output, as JSON-ready lists."""
    import keras
    import tensorflow as tf
    return {name: fn(keras, tf) for name, fn in (
        ("string_lookup", string_lookup), ("integer_lookup", integer_lookup),
        ("text_vectorization", text_vectorization), ("hashing", hashing),
        ("hashed_crossing", hashed_crossing), ("category_encoding", category_encoding),
        ("in_model_and_dataset", in_model_and_dataset))}


if __name__ == "__main__":
    result = run()
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)

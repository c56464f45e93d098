"""TensorFlow's results of `tf.feature_column`: the columns' names, reprs and
parse specs, `make_parse_example_spec` feeding `tf.io.parse_example`, and
`tf.compat.v1.feature_column.input_layer` on dense and sparse features
(hash buckets, vocabularies with OOV buckets, identity defaults, crosses,
bucketized, indicator and embedding columns with each combiner, weighted
and shared columns), with deterministic initializers; recorded for
tests/test_feature_column.py.

    /work/tfref/bin/python tools/tf_feature_column_fixtures.py
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case
_DIR = tempfile.mkdtemp(prefix="rillflow_fc_")


def _err(fn):
    """`Class: message` of the exception `fn()` raises (first line)."""
    try:
        fn()
    except Exception as e:  # the message is the recorded result
        msg = str(e).split("\n")[0].replace(_DIR, "<dir>")
        if msg.startswith("{{function_node "):
            msg = msg.split("}} ", 1)[-1]
        return np.array(f"{type(e).__name__}: {msg.split(' [Op:')[0].rstrip()}")
    return np.array("no error")


def _vocab_file():
    path = os.path.join(_DIR, "vocab.txt")
    with open(path, "w") as f:
        f.write("apple\nbanana\ncherry\n")
    return path


def _init(rows, dim):
    return np.arange(rows * dim, dtype=np.float32).reshape(rows, dim) / 10.0


def _columns(tf):
    fc = tf.feature_column
    age = fc.numeric_column("age")
    return [
        fc.numeric_column("price"),
        fc.numeric_column("xy", shape=(2,), default_value=(0., 1.)),
        fc.numeric_column("scaled", normalizer_fn=lambda x: x * 2 - 1, dtype=tf.int64),
        fc.bucketized_column(age, [18, 30, 50]),
        fc.indicator_column(fc.categorical_column_with_vocabulary_list(
            "color", ["red", "green", "blue"], num_oov_buckets=2)),
        fc.indicator_column(fc.categorical_column_with_hash_bucket("word", 7)),
        fc.indicator_column(fc.categorical_column_with_hash_bucket("num", 5, dtype=tf.int64)),
        fc.indicator_column(fc.categorical_column_with_identity("id", 5, default_value=0)),
        fc.embedding_column(fc.categorical_column_with_vocabulary_list(
            "color2", ["red", "green", "blue"]), 3, initializer=tf.constant_initializer(0.5)),
        fc.indicator_column(fc.crossed_column(["color", fc.bucketized_column(age, [18, 30, 50])],
                                              11)),
        fc.indicator_column(fc.crossed_column(["word", "color"], 13, hash_key=7)),
        fc.indicator_column(fc.categorical_column_with_vocabulary_list(
            "code", [10, 20, 30], dtype=tf.int64, default_value=3)),
        fc.indicator_column(fc.categorical_column_with_vocabulary_file(
            "fruit", _vocab_file(), num_oov_buckets=3)),
    ]


def _dense_features(tf):
    return {"price": tf.constant([[1.], [2.], [3.]]),
            "xy": tf.constant([[1., 2.], [3., 4.], [5., 6.]]),
            "scaled": tf.constant([[3], [4], [5]], tf.int64),
            "age": tf.constant([[20.], [60.], [17.]]),
            "color": tf.constant([["red"], ["pink"], ["blue"]]),
            "word": tf.constant([["hello"], ["world"], [""]]),
            "num": tf.constant([[11], [-1], [12345]], tf.int64),
            "id": tf.constant([[3], [7], [-1]], tf.int64),
            "color2": tf.constant([["red"], ["blue"], ["black"]]),
            "code": tf.constant([[20], [40], [10]], tf.int64),
            "fruit": tf.constant([["banana"], ["kiwi"], ["apple"]])}


@case
def column_names_reprs_and_specs(tf):
    cols = _columns(tf)
    fc = tf.feature_column
    more = [fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 4), "w"),
            fc.sequence_numeric_column("seq", shape=(2,)),
            fc.sequence_categorical_column_with_identity("sids", 9),
            fc.sequence_categorical_column_with_hash_bucket("stok", 10),
            fc.sequence_categorical_column_with_vocabulary_list("svoc", ["a", "b"]),
            fc.sequence_categorical_column_with_vocabulary_file("sfile", _vocab_file(), 3),
            fc.embedding_column(fc.categorical_column_with_identity("e", 3), 2)]
    spec = fc.make_parse_example_spec(cols + more)
    return [np.array([c.name for c in cols + more]),
            np.array([repr(c) for c in cols[:2] + cols[3:5]] + [repr(more[0])]),
            np.array(sorted(f"{k}: {v}" for k, v in spec.items()))]


@case
def input_layer_dense_features(tf):
    return tf.compat.v1.feature_column.input_layer(_dense_features(tf), _columns(tf))


@case
def input_layer_rank1_and_sparse_features(tf):
    fc = tf.feature_column
    cols = [fc.numeric_column("a"),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("t", ["x", "y", "z"])),
            fc.indicator_column(fc.categorical_column_with_identity("i", 4))]
    feats = {"a": tf.constant([1., 2.]),
             "t": tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 2]], ["x", "x", "q"], [2, 3]),
             "i": tf.constant([1, 3], tf.int64)}
    return tf.compat.v1.feature_column.input_layer(feats, cols)


@case
def parse_example_then_input_layer(tf):
    fc = tf.feature_column
    cols = [fc.numeric_column("price", default_value=-1.),
            fc.numeric_column("xy", shape=(2,)),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "color", ["red", "green"], num_oov_buckets=1)),
            fc.embedding_column(fc.categorical_column_with_identity("ids", 4), 2,
                                combiner="sum",
                                initializer=tf.constant_initializer(_init(4, 2))),
            fc.indicator_column(fc.crossed_column(["color", "kind"], 6))]
    spec = fc.make_parse_example_spec(cols)

    def example(price, xy, colors, ids, kinds):
        feat = {"xy": tf.train.Feature(float_list=tf.train.FloatList(value=xy)),
                "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
                "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
                "kind": tf.train.Feature(bytes_list=tf.train.BytesList(value=kinds))}
        if price is not None:
            feat["price"] = tf.train.Feature(float_list=tf.train.FloatList(value=[price]))
        return tf.train.Example(features=tf.train.Features(feature=feat)).SerializeToString()

    serialized = [example(3.5, [1., 2.], [b"red", b"blue"], [1, 3], [b"k1"]),
                  example(None, [0., 5.], [b"green"], [], [b"k2", b"k3"]),
                  example(1.0, [7., 8.], [], [2, 2, 0], [b"k1"])]
    parsed = tf.io.parse_example(serialized, spec)
    return [tf.compat.v1.feature_column.input_layer(parsed, cols), parsed["color"]]


# rtol: rillflow's segment_sum (NumPy's reduceat) may round a weighted sum
# of three rows differently from TensorFlow's kernel in the last bit.
@case(rtol=1e-6)
def embedding_combiners_and_weights(tf):
    fc = tf.feature_column
    ids = fc.categorical_column_with_identity("ids", 5)
    weighted = fc.weighted_categorical_column(ids, "w")
    init = tf.constant_initializer(_init(5, 3))
    feats = {"ids": tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                                           tf.constant([1, 2, 4, 0, 0, 3], tf.int64), [4, 3]),
             "w": tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                                         [0.5, 2., 1., 1., 3., 0.25], [4, 3])}
    out = []
    for combiner in ("mean", "sum", "sqrtn"):
        for col in (ids, weighted):
            e = fc.embedding_column(col, 3, combiner=combiner, initializer=init)
            out.append(tf.compat.v1.feature_column.input_layer(feats, [e]))
    e = fc.embedding_column(ids, 3, combiner="sum", initializer=init, max_norm=1.0)
    out.append(tf.compat.v1.feature_column.input_layer(feats, [e]))
    e = fc.embedding_column(ids, 3, initializer=init, use_safe_embedding_lookup=False)
    out.append(tf.compat.v1.feature_column.input_layer(feats, [e]))
    out.append(tf.compat.v1.feature_column.input_layer(feats, [fc.indicator_column(weighted)]))
    return out


@case
def input_layer_variables_and_outputs(tf):
    fc = tf.feature_column
    e = fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 2,
                            initializer=tf.constant_initializer(_init(3, 2)))
    n = fc.numeric_column("n", shape=(2,))
    cols_to_vars, cols_to_out = {}, {}
    feats = {"ids": tf.constant([[0, 2], [1, -1]], tf.int64), "n": tf.constant([[1., 2.],
                                                                                [3., 4.]])}
    out = tf.compat.v1.feature_column.input_layer(feats, [n, e], cols_to_vars=cols_to_vars,
                                                  cols_to_output_tensors=cols_to_out)
    return [out, np.array(sorted(c.name for c in cols_to_vars)),
            np.array([v.name for v in cols_to_vars[e]]), np.array(len(cols_to_vars[n])),
            cols_to_out[e], cols_to_out[n]]


@case
def identity_out_of_range_ids(tf):
    fc = tf.feature_column
    c = fc.indicator_column(fc.categorical_column_with_identity("i", 3))
    e = fc.embedding_column(fc.categorical_column_with_identity("i", 3), 2,
                            initializer=tf.constant_initializer(_init(3, 2)))
    il = tf.compat.v1.feature_column.input_layer
    return [il({"i": tf.constant([[5, 1], [-2, 2]], tf.int64)}, [c]),
            il({"i": tf.constant([[-2, 1], [0, -3]], tf.int64)}, [e])]


@case
def crosses(tf):
    fc = tf.feature_column
    b = fc.bucketized_column(fc.numeric_column("v", shape=(2,)), [0., 10.])
    cols = [fc.indicator_column(fc.crossed_column(["a", "n", b], 17)),
            fc.indicator_column(fc.crossed_column(
                [fc.categorical_column_with_identity("i", 10), "a"], 9, hash_key=123)),
            fc.indicator_column(b)]
    feats = {"a": tf.constant([["p", "q"], ["r", ""]]),
             "n": tf.constant([[4], [9]], tf.int64),
             "v": tf.constant([[-1., 5.], [20., 0.]]),
             "i": tf.constant([[2, 7], [9, -1]], tf.int64)}
    return tf.compat.v1.feature_column.input_layer(feats, cols)


@case
def constructor_errors(tf):
    fc = tf.feature_column
    ident = fc.categorical_column_with_identity("i", 3)
    return [_err(lambda: fc.numeric_column("x", shape=(0,))),
            _err(lambda: fc.numeric_column("x", shape=(2,), default_value=(1., 2., 3.))),
            _err(lambda: fc.numeric_column("x", default_value="a")),
            _err(lambda: fc.numeric_column("x", dtype=tf.string)),
            _err(lambda: fc.numeric_column(1)),
            _err(lambda: fc.numeric_column("x", normalizer_fn=3)),
            _err(lambda: fc.bucketized_column(ident, [1])),
            _err(lambda: fc.bucketized_column(fc.numeric_column("x"), [])),
            _err(lambda: fc.bucketized_column(fc.numeric_column("x"), [3, 1])),
            _err(lambda: fc.bucketized_column(fc.numeric_column("x", shape=(2, 2)), [1])),
            _err(lambda: fc.categorical_column_with_hash_bucket("x", 0)),
            _err(lambda: fc.categorical_column_with_hash_bucket("x", 4, dtype=tf.float32)),
            _err(lambda: fc.categorical_column_with_vocabulary_list("x", [])),
            _err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a", "a"])),
            _err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a"], default_value=0,
                                                                    num_oov_buckets=2)),
            _err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a"], dtype=tf.int64)),
            _err(lambda: fc.categorical_column_with_vocabulary_list("x", [1.5])),
            _err(lambda: fc.categorical_column_with_vocabulary_file("x", "")),
            _err(lambda: fc.categorical_column_with_vocabulary_file("x", _vocab_file(), 0)),
            _err(lambda: fc.categorical_column_with_identity("x", 0)),
            _err(lambda: fc.categorical_column_with_identity("x", 3, default_value=3)),
            _err(lambda: fc.indicator_column(fc.numeric_column("x"))),
            _err(lambda: fc.crossed_column(["a"], 3)),
            _err(lambda: fc.crossed_column(["a", "b"], 0)),
            _err(lambda: fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("h", 3)],
                                           5)),
            _err(lambda: fc.crossed_column(["a", fc.numeric_column("n")], 5)),
            _err(lambda: fc.embedding_column(ident, 0)),
            _err(lambda: fc.embedding_column(ident, 2, initializer=3)),
            _err(lambda: fc.embedding_column(ident, 2, ckpt_to_load_from="x")),
            _err(lambda: fc.weighted_categorical_column(ident, "w", dtype=tf.string)),
            _err(lambda: fc.make_parse_example_spec([ident, "x"])),
            _err(lambda: fc.make_parse_example_spec(
                [fc.numeric_column("i"), ident]))]


@case
def input_layer_errors(tf):
    fc = tf.feature_column
    il = tf.compat.v1.feature_column.input_layer
    ident = fc.categorical_column_with_identity("i", 3)
    feats = {"i": tf.constant([[1], [2]], tf.int64), "s": tf.constant(3.),
             "f": tf.constant([[1.5]]), "t": tf.constant([["a"]])}
    return [_err(lambda: il(feats, [ident])),
            _err(lambda: il(feats, [])),
            _err(lambda: il(feats, {"a": fc.numeric_column("i")})),
            _err(lambda: il(feats, [fc.numeric_column("missing")])),
            _err(lambda: il(feats, [fc.numeric_column("s")])),
            _err(lambda: il(feats, [fc.indicator_column(fc.categorical_column_with_identity(
                "f", 3))])),
            _err(lambda: il(feats, [fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "i", ["a"]))])),
            _err(lambda: il({"i": tf.sparse.SparseTensor([[0, 0]], [1.], [1, 1])},
                            [fc.numeric_column("i")])),
            _err(lambda: il(feats, [fc.indicator_column(fc.weighted_categorical_column(
                ident, "f", dtype=tf.int32))]))]


@case
def linear_model_eager(tf):
    fc = tf.feature_column
    cols = [fc.numeric_column("a", shape=(2,)), fc.categorical_column_with_identity("i", 4),
            fc.bucketized_column(fc.numeric_column("b"), [0.]),
            fc.embedding_column(fc.categorical_column_with_identity("j", 3), 2)]
    feats = {"a": tf.constant([[1., 2.], [3., 4.]]), "i": tf.constant([[1], [3]], tf.int64),
             "b": tf.constant([[1.], [-1.]]), "j": tf.constant([[0], [2]], tf.int64)}
    cv = {}
    out = tf.compat.v1.feature_column.linear_model(feats, cols, units=3, cols_to_vars=cv)
    names = sorted(f"{k if isinstance(k, str) else k.name}: {[v.name for v in vs]}"
                   for k, vs in cv.items())
    return [out, np.array(names),
            _err(lambda: tf.compat.v1.feature_column.linear_model(feats, cols,
                                                                  sparse_combiner="max")),
            _err(lambda: tf.compat.v1.feature_column.linear_model(feats, []))]


@case
def shared_embedding_columns_in_graphs(tf):
    fc = tf.feature_column
    cats = [fc.categorical_column_with_identity("a", 3),
            fc.categorical_column_with_identity("b", 3)]
    init = tf.constant_initializer(_init(3, 2))
    out = [_err(lambda: fc.shared_embeddings(cats, 2, initializer=init)),
           _err(lambda: tf.compat.v1.feature_column.shared_embedding_columns(cats, 2))]
    with tf.Graph().as_default():
        feats = {"a": tf.constant([[0], [2]], tf.int64), "b": tf.constant([[1], [1]], tf.int64)}
        a, b = tf.compat.v1.feature_column.shared_embedding_columns(
            cats, 2, initializer=init, combiner="sum")
        v2 = fc.shared_embeddings(cats, 2, initializer=init)
        cv = {}
        layer = tf.compat.v1.feature_column.input_layer(feats, [b, a], cols_to_vars=cv)
        out += [np.array([a.name, b.name, v2[0].name, type(a).__name__]),
                np.array(sorted(f"{k.name}: {[v.name for v in vs]}" for k, vs in cv.items())),
                _err(lambda: tf.compat.v1.feature_column.input_layer(feats, v2)),
                _err(lambda: fc.shared_embeddings(
                    [cats[0], fc.categorical_column_with_identity("c", 4)], 2))]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            out.append(sess.run(layer))
    return out


if __name__ == "__main__":
    CASES.main("tf_feature_column.npz")

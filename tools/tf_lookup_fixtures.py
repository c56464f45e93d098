"""TensorFlow's results of `tf.lookup` (static, vocabulary, text-file, mutable
and dense tables), `tf.sparse.cross`/`cross_hashed`, `SparseTensor.set_shape`,
`tf.strings.ngrams`, ragged `tf.one_hot`, `tf.required_space_to_batch_paddings`
and `tf.compat.as_text`, recorded for tests/test_lookup.py.

    /work/tfref/bin/python tools/tf_lookup_fixtures.py

Exports of `StaticHashTable` are sorted (TensorFlow's order changes from run
to run); those of `MutableHashTable` and `DenseHashTable` are TensorFlow's
order. Errors whose messages hold a table's unique name or a file's path are
recorded as text with those parts replaced.
"""
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case
_DIR = tempfile.mkdtemp(prefix="rillflow_lookup_")


def _file(name, text):
    path = os.path.join(_DIR, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _err(fn):
    """`Class: message` of the exception `fn()` raises (its first line, with
    node prefixes, unique table names and file paths normalized)."""
    try:
        fn()
    except Exception as e:  # the message is the recorded result
        msg = str(e).split("\n")[0]
        if msg.startswith("{{function_node "):
            msg = msg.split("}} ", 1)[-1]
        msg = msg.split(" [Op:")[0].rstrip()
        msg = re.sub(r'shared_name="[^"]*"', 'shared_name="?"', msg).replace(_DIR, "<dir>")
        return np.array(f"{type(e).__name__}: {msg}")
    return np.array("no error")


def _sorted_export(table):
    keys, values = table.export()
    order = np.argsort(keys.numpy(), kind="stable")
    return keys.numpy()[order], values.numpy()[order]


def _static(tf, keys, values, default):
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), default)


@case
def static_string_to_int(tf):
    t = _static(tf, ["a", "b", "c"], tf.constant([7, 8, 9], tf.int64), -1)
    return [t.lookup(tf.constant([["a", "x"], ["c", "b"]])), t[tf.constant("b")], t.size(),
            _sorted_export(t), t.default_value]


@case
def static_other_dtypes(tf):
    t1 = _static(tf, tf.constant([3, 1, 2], tf.int64), ["x", "y", "z"], "?")
    t2 = _static(tf, tf.constant([5, 6], tf.int32), tf.constant([0.5, 1.5]), 2.5)
    t3 = _static(tf, ["p", "q"], [True, False], True)
    t4 = _static(tf, ["p", "q"], tf.constant([1.25, 2.5], tf.float64), -1.0)
    return [t1.lookup(tf.constant([1, 7, 3], tf.int64)), t2.lookup(tf.constant([[6], [9]])),
            t3.lookup(tf.constant(["q", "r", "p"])), t4.lookup(tf.constant(["q", "x"]))]


@case
def static_composite_keys(tf):
    t = _static(tf, ["a", "b"], tf.constant([1, 2], tf.int64), 0)
    sp = tf.sparse.SparseTensor([[0, 1], [2, 0]], ["b", "z"], [3, 2])
    rt = tf.ragged.constant([["a", "b"], [], ["q"]])
    return [t.lookup(sp), t.lookup(rt)]


@case
def static_errors(tf):
    t = _static(tf, ["a", "b"], tf.constant([1, 2], tf.int64), 0)
    return [
        _err(lambda: t.lookup(tf.constant([1, 2]))),
        _err(lambda: _static(tf, ["a", "b", "a"], [7, 8, 9], -1)),
        _err(lambda: _static(tf, ["a", "b", "a"], [7, 8, 7], -1).size()),
        _err(lambda: _static(tf, ["a", "b", "c"], [7, 8], -1)),
        _err(lambda: _static(tf, [1.0, 2.0], [7, 8], -1)),
        _err(lambda: _static(tf, [1, 2], [True, False], False)),
        _err(lambda: _static(tf, ["a"], [1], [1, 2])),
        _err(lambda: tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a"], [1]), "x")),
    ]


@case
def vocabulary_table(tf):
    init = tf.lookup.KeyValueTensorInitializer(
        ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64))
    t = tf.lookup.StaticVocabularyTable(init, 5)
    keys = tf.constant(["emerson", "lake", "palmer", "king", "crimson", ""])
    return [t.lookup(keys), t.size(), t.lookup(tf.sparse.from_dense([["lake", ""], ["", "x"]])),
            t.lookup(tf.ragged.constant([["emerson"], ["lake", "king"]]))]


@case
def vocabulary_table_int_and_buckets_only(tf):
    t = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([1, 5], tf.int64),
                                            tf.constant([0, 1], tf.int64)),
        3, lookup_key_dtype=tf.int32)
    b = tf.lookup.StaticVocabularyTable(None, 4)
    return [t.lookup(tf.constant([1, 5, 7, 9, -3])), t.size(),
            b.lookup(tf.constant(["x", "y", "zz"])), b.size()]


@case
def vocabulary_table_errors(tf):
    kv = tf.lookup.KeyValueTensorInitializer
    return [
        _err(lambda: tf.lookup.StaticVocabularyTable(kv(["a"], [0]), 3)),
        _err(lambda: tf.lookup.StaticVocabularyTable(kv(["a"], tf.constant([0], tf.int64)), 0)),
        _err(lambda: tf.lookup.StaticVocabularyTable(kv([1], tf.constant([0], tf.int64)), 3)),
        _err(lambda: tf.lookup.StaticVocabularyTable(kv(["a"], tf.constant([0], tf.int64)), 3,
                                                     lookup_key_dtype=tf.int64)),
        _err(lambda: tf.lookup.StaticVocabularyTable(None, 3).lookup(tf.constant([1]))),
    ]


@case
def text_file_tables(tf):
    vocab = _file("vocab.txt", "a\nb\r\nc")
    cols = _file("cols.txt", "x\t10\t1.5\ny\t20\t2.5\nz\t30\t3.5\n")
    ints = _file("ints.txt", "10\n20\n30\n")
    fi = tf.lookup.TextFileInitializer
    idx = tf.lookup.TextFileIndex
    t1 = tf.lookup.StaticHashTable(fi(vocab, tf.string, idx.WHOLE_LINE, tf.int64,
                                      idx.LINE_NUMBER), -1)
    t2 = tf.lookup.StaticHashTable(fi(vocab, tf.int64, idx.LINE_NUMBER, tf.string,
                                      idx.WHOLE_LINE, value_index_offset=2), "?")
    t3 = tf.lookup.StaticHashTable(fi(cols, tf.string, 0, tf.float32, 2), -1.0)
    t4 = tf.lookup.StaticHashTable(fi(cols, tf.int64, 1, tf.string, 0, vocab_size=2), "?")
    t5 = tf.lookup.StaticHashTable(fi(ints, tf.int64, idx.WHOLE_LINE, tf.int64,
                                      idx.LINE_NUMBER), -1)
    t6 = tf.lookup.StaticVocabularyTable(fi(vocab, tf.string, idx.WHOLE_LINE, tf.int64,
                                            idx.LINE_NUMBER), 2)
    return [t1.lookup(tf.constant(["a", "b", "c", "d"])), t1.size(),
            t2.lookup(tf.constant([0, 2, 3, 4], tf.int64)),
            t3.lookup(tf.constant(["z", "x", "q"])),
            t4.lookup(tf.constant([10, 20, 30], tf.int64)), t4.size(),
            t5.lookup(tf.constant([30, 10, 5], tf.int64)),
            t6.lookup(tf.constant(["c", "zz", "a"]))]


@case
def text_file_errors(tf):
    cols = _file("cols2.txt", "x\t1\ny\tz\n")
    empty_line = _file("empty_line.txt", "a\n\nb\n")
    big = _file("big.txt", "1\t99999999999\n")
    fi = tf.lookup.TextFileInitializer

    def table(*args, default=-1, **kwargs):
        return tf.lookup.StaticHashTable(fi(*args, **kwargs), default)
    return [
        _err(lambda: table(cols, tf.string, 0, tf.int64, 1)),
        _err(lambda: table(cols, tf.string, 0, tf.int64, 3)),
        _err(lambda: table(cols, tf.string, 0, tf.int64, 1, delimiter="ab")),
        _err(lambda: table(empty_line, tf.string, -2, tf.int64, -1)),
        _err(lambda: table(empty_line, tf.string, -2, tf.int64, -1, vocab_size=5)),
        _err(lambda: table(big, tf.int64, 0, tf.int32, 1)),
        _err(lambda: table(os.path.join(_DIR, "missing.txt"), tf.string, -2, tf.int64, -1)),
        _err(lambda: fi("", tf.string, -2, tf.int64, -1)),
        _err(lambda: fi(cols, tf.string, -1, tf.int64, -1)),
        _err(lambda: fi(cols, tf.float32, -2, tf.int64, -1)),
        _err(lambda: fi(cols, tf.string, -2, tf.float32, -2)),
        _err(lambda: fi(cols, tf.string, -3, tf.int64, -1)),
        _err(lambda: fi(cols, tf.string, -2, tf.int64, -1, vocab_size=0)),
    ]


@case
def mutable_hash_table(tf):
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    m.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64))
    first = m.lookup(tf.constant([["a", "z"], ["c", "b"]]))
    m.insert(tf.constant(["b"]), tf.constant([20], tf.int64))
    m.remove(tf.constant(["a", "missing"]))
    return [first, m.lookup(tf.constant(["a", "b", "c"])), m.size(), m.export(),
            m.lookup(tf.constant(["a", "b"]), dynamic_default_values=tf.constant([7, 8],
                                                                                  tf.int64))]


@case
def mutable_hash_table_vectors(tf):
    m = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 1.0])
    m.insert(tf.constant([3, 4], tf.int64), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    return [m.lookup(tf.constant([3, 5], tf.int64)), m.export(),
            m.lookup(tf.constant([[3], [9]], tf.int64)),
            m.lookup(tf.constant([3, 5], tf.int64),
                     dynamic_default_values=tf.constant([[9.0, 9.0], [8.0, 8.0]]))]


@case
def mutable_hash_table_errors(tf):
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    v = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 1.0])
    return [
        _err(lambda: m.insert(tf.constant(["a", "b"]), tf.constant([1, 2, 3], tf.int64))),
        _err(lambda: m.remove(tf.constant([1, 2]))),
        _err(lambda: m.lookup(tf.constant(["a"]), dynamic_default_values=[5])),
        _err(lambda: m.lookup(tf.constant([["a", "b"]]),
                              dynamic_default_values=tf.constant([5, 6], tf.int64))),
        _err(lambda: v.insert(tf.constant([3, 4], tf.int64), tf.constant([1.0, 2.0]))),
        _err(lambda: tf.lookup.experimental.MutableHashTable(tf.string, tf.string, "x")),
        _err(lambda: tf.lookup.experimental.MutableHashTable(tf.float32, tf.int64, -1)),
        _err(lambda: tf.lookup.experimental.MutableHashTable(tf.string, tf.float32,
                                                             [[0.0, 0.0]])),
    ]


@case
def dense_hash_table_int(tf):
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0,
                                              deleted_key=-1, initial_num_buckets=8)
    d.insert(tf.constant([5, 13, 2, 100], tf.int64), tf.constant([1, 2, 3, 4], tf.int64))
    out = [d.export(), d.size(), d.lookup(tf.constant([5, 13, 7], tf.int64))]
    d.remove(tf.constant([13], tf.int64))
    out += [d.export(), d.size(), d.lookup(tf.constant([5, 13, 7], tf.int64))]
    d.insert(tf.constant([1, 2, 3, 4, 6, 7, 8, 21], tf.int64),
             tf.constant([1, 2, 3, 4, 6, 7, 8, 21], tf.int64))
    return out + [d.export(), d.size(), d.lookup(tf.constant([[21, 8], [100, 9]], tf.int64))]


@case
def dense_hash_table_string_and_vector_keys(tf):
    s = tf.lookup.experimental.DenseHashTable(tf.string, tf.int64, -1, empty_key="",
                                              deleted_key="$", initial_num_buckets=8)
    s.insert(tf.constant(["a", "b", "hello", "a longer key of bytes"]),
             tf.constant([1, 2, 3, 4], tf.int64))
    v = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, [0.0, 0.0],
                                              empty_key=[0, 0], deleted_key=[-1, -1],
                                              initial_num_buckets=4)
    v.insert(tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]], tf.int64),
             tf.constant([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]]))
    return [s.export(), s.lookup(tf.constant(["hello", "x"])), v.export(), v.size(),
            v.lookup(tf.constant([[1, 2], [9, 9]], tf.int64))]


@case
def dense_hash_table_errors(tf):
    dense = tf.lookup.experimental.DenseHashTable
    d = dense(tf.int64, tf.int64, -1, 0, -1, initial_num_buckets=4)
    v = dense(tf.int64, tf.float32, [0.0, 0.0], [0, 0], [-1, -1], initial_num_buckets=4)
    return [
        _err(lambda: d.lookup(tf.constant([0], tf.int64))),
        _err(lambda: d.insert(tf.constant([-1], tf.int64), tf.constant([3], tf.int64))),
        _err(lambda: d.lookup(tf.constant([[5, 1]], tf.int64))),
        _err(lambda: d.remove(tf.constant([5], tf.int32))),
        _err(lambda: v.lookup(tf.constant([1, 2], tf.int64))),
        _err(lambda: dense(tf.int64, tf.int64, -1, 0, 0)),
        _err(lambda: dense(tf.int64, tf.int64, -1, 0, 1, initial_num_buckets=6)),
        _err(lambda: dense(tf.int64, tf.int64, -1, 0, [1, 2])),
        _err(lambda: dense(tf.float32, tf.int64, -1, 0.0, 1.0)),
    ]


@case
def sparse_cross(tf):
    a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    b = tf.sparse.SparseTensor([[0, 0], [1, 0]], ["d", "e"], [2, 1])
    c = tf.constant([["f"], ["g"]])
    i = tf.constant([[1, 2], [3, 4]])
    j = tf.constant([["x", "y"], ["z", "w"]])
    empty = tf.sparse.SparseTensor(tf.zeros([0, 2], tf.int64), tf.constant([], tf.string),
                                   [2, 3])
    return [tf.sparse.cross([a, b, c]), tf.sparse.cross([c, a, b], separator="_Y_"),
            tf.sparse.cross([i, j]), tf.sparse.cross([empty, j]),
            tf.sparse.cross([tf.sparse.SparseTensor([[1, 0], [1, 2]], [5, 6], [3, 3]),
                             tf.constant([[1], [2], [3]], tf.int64)])]


@case
def sparse_cross_hashed(tf):
    a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    b = tf.sparse.SparseTensor([[0, 0], [1, 0]], ["d", "e"], [2, 1])
    c = tf.constant([["f"], ["g"]])
    i = tf.constant([[1, 2], [3, 4]])
    j = tf.constant([["x", "y"], ["z", "w"]])
    long_text = tf.constant([["a string longer than sixty-four bytes, to take the long path"
                              " of farmhash"], ["short"]])
    return [tf.sparse.cross_hashed([a, b, c]), tf.sparse.cross_hashed([a, b, c], 100),
            tf.sparse.cross_hashed([a, b, c], num_buckets=10, hash_key=123),
            tf.sparse.cross_hashed([i, j], 50),
            tf.sparse.cross_hashed([i, tf.constant([[7], [-8]], tf.int64)]),
            tf.sparse.cross_hashed([long_text, j], 1000),
            tf.sparse.cross_hashed([tf.sparse.SparseTensor([[1, 0], [1, 2]], [5, 6], [3, 3]),
                                    tf.constant([[1], [2], [3]])], 7)]


@case
def sparse_cross_errors(tf):
    i = tf.constant([[1, 2], [3, 4]])
    return [_err(lambda: tf.sparse.cross_hashed([i, tf.constant([[1], [2], [3]])], 7)),
            _err(lambda: tf.sparse.cross_hashed(i, 7)),
            _err(lambda: tf.sparse.cross_hashed([i, 3], 7)),
            _err(lambda: tf.sparse.cross([i, 3])),
            _err(lambda: tf.sparse.cross([tf.constant([1, 2])]))]


@case
def raw_sparse_cross_hashed(tf):
    a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    i = tf.constant([[1, 2], [3, 4]], tf.int64)
    j = tf.constant([["x", "y"], ["z", "w"]])
    out = []
    # strong_hash=True crashes TensorFlow 2.21 itself (a segfault): not recorded.
    for values, dense, buckets in (([a.values], [i], 1000),
                                   ([tf.constant([3, 4, -5], tf.int64)], [j], 1000),
                                   ([tf.constant([3, 4, 5], tf.int64)], [i], 0)):
        out.append(tf.raw_ops.SparseCrossHashed(
            indices=[a.indices], values=values, shapes=[a.dense_shape], dense_inputs=dense,
            num_buckets=buckets, strong_hash=False, salt=[1, 2]).output_values)
    return out


@case
def sparse_set_shape(tf):
    s = tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 3])
    s.set_shape([2, None])
    return [np.array(str(s.shape)), _err(lambda: s.set_shape([2, 4])),
            _err(lambda: s.set_shape([2]))]


@case
def ngrams(tf):
    d = tf.constant([["a", "b", "c", "d"], ["e", "f", "g", "h"]])
    r = tf.ragged.constant([["a", "b", "c"], ["d"], []])
    return [tf.strings.ngrams(d, 2), tf.strings.ngrams(d, [1, 3], separator="+"),
            tf.strings.ngrams(r, 2, pad_values=("<", ">")),
            tf.strings.ngrams(r, 3, pad_values="#", padding_width=1),
            tf.strings.ngrams(r, 3, preserve_short_sequences=True),
            tf.strings.ngrams(r, 4, pad_values="#", padding_width=1,
                              preserve_short_sequences=True),
            tf.strings.ngrams(tf.constant(["a", "b", "c"]), (1, 2)),
            tf.strings.ngrams(tf.ragged.constant([[["a", "b"], ["c"]], [["d", "e", "f"]]]), 2),
            tf.strings.ngrams(tf.constant([[["a", "b"], ["c", "q"]]]), 2),
            _err(lambda: tf.strings.ngrams(d, 0)),
            _err(lambda: tf.strings.ngrams(d, 2, padding_width=2))]


@case
def ragged_one_hot_and_paddings(tf):
    r = tf.ragged.constant([[1, 2], [3]])
    out = [tf.one_hot(r, 4), tf.one_hot(r, 3, axis=2, dtype=tf.int32)]
    for args in (([5], [3]), ([4, 7], [2, 3]), ([4, 7], [2, 3], [[1, 0], [0, 2]])):
        out.append(tf.required_space_to_batch_paddings(*args))
    return out


@case
def compat_text(tf):
    return [np.array(tf.compat.as_text(b"\xc3\xa9t\xc3\xa9")),
            np.array(tf.compat.as_bytes("x")), np.array(tf.compat.as_str_any(3)),
            _err(lambda: tf.compat.as_text(3)), _err(lambda: tf.compat.as_bytes(3))]


@case
def lookups_in_functions(tf):
    t = _static(tf, ["a", "b", "c"], tf.constant([7, 8, 9], tf.int64), -1)
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)

    @tf.function
    def count(x):
        m.insert(x, m.lookup(x) + 1)
        return t.lookup(x), m.size()

    out = [count(tf.constant(["a", "q"])), count(tf.constant(["a", "c"])),
           m.lookup(tf.constant(["a", "c", "q", "z"]))]
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "q", "c"]).batch(2)
    ds = ds.map(lambda s: (t.lookup(s), m.lookup(s)))
    return out + [list(ds)]


if __name__ == "__main__":
    CASES.main("tf_lookup.npz")

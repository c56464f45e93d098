"""tf.strings ops and the minimal RaggedTensor (expected values from TensorFlow 2.21)."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.framework.execute import placeholder
from rillflow.framework.tensor_shape import TensorShape

S = tf.strings


def values(t):
    return t.numpy().tolist() if t.shape.rank else t.numpy()


def test_string_results_are_object_arrays_of_bytes():
    r = S.join(["a", "b"])
    assert isinstance(r._v, np.ndarray) and r._v.dtype == object and r._v.ndim == 0
    assert r.numpy() == b"ab"
    assert repr(r) == "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"


def test_join_broadcasts_scalars():
    assert values(S.join([["a", "b"], ["c", "d"]], separator="-")) == [b"a-c", b"b-d"]
    assert values(S.join(["a", ["b", "c"]], separator="-")) == [b"a-b", b"a-c"]
    assert values(S.join(["a", tf.constant([["x"]])])) == [[b"ax"]]
    assert S.join([]).numpy() == b""
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input shapes do not match: \[3\] vs. \[2\] \[Op:StringJoin\]"):
        S.join(["a", ["b", "c", "d"], ["x", "y"]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor "
                                                              "but is a int32 tensor"):
        S.join([tf.constant(1)])


def test_join_graph_shapes():
    with tf.Graph().as_default():
        a = placeholder(tf.string, TensorShape([None, 2]))
        out = S.join([a, "x", placeholder(tf.string, TensorShape([3, None]))])
        assert out.shape == TensorShape([3, 2]) and out.dtype == tf.string
        assert out.op.type == "StringJoin"
        with pytest.raises(ValueError, match="Input shapes do not match"):
            S.join([placeholder(tf.string, TensorShape([2])),
                    placeholder(tf.string, TensorShape([3]))])
        with pytest.raises(TypeError, match="expected type of string"):
            S.join([placeholder(tf.int32, TensorShape([2]))])


def test_length_units():
    r = S.length(["abc", "héllo"])
    assert r.dtype == tf.int32 and values(r) == [3, 6]
    assert values(S.length(["abc", "héllo"], unit="UTF8_CHAR")) == [3, 5]
    assert S.length("x").numpy() == 1
    assert values(S.length([["a"]])) == [[1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'unit' of \"BAD\""):
        S.length(["x"], unit="BAD")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="cannot compute StringLength as input #0"):
        S.length(tf.constant([1]))


def test_case_and_strip():
    assert values(S.upper(["abc", "héllo"])) == [b"ABC", "HéLLO".encode()]
    assert S.upper("héllo", encoding="utf-8").numpy() == "HÉLLO".encode()
    assert S.lower("ABC É").numpy() == "abc É".encode()
    assert S.lower("ÀB", encoding="utf-8").numpy() == "àb".encode()
    assert values(S.strip(["  a b \n", "\t"])) == [b"a b", b""]
    with tf.Graph().as_default():
        t = S.upper(placeholder(tf.string, TensorShape([None, 4])))
        assert t.shape == TensorShape([None, 4]) and t.op.type == "StringUpper"


def test_as_string_matches_printf():
    assert S.as_string(3.5).numpy() == b"3.500000"
    assert values(S.as_string([1.5, 1e20, 1 / 3, np.nan, -np.inf])) == [
        b"1.500000", b"100000002004087734272.000000", b"0.333333", b"nan", b"-inf"]
    assert values(S.as_string([1, -2])) == [b"1", b"-2"]
    assert values(S.as_string([True, False])) == [b"true", b"false"]
    assert values(S.as_string(tf.constant([1 + 2j]))) == [b"(1.000000,2.000000)"]
    assert S.as_string(3.14159, precision=2).numpy() == b"3.14"
    assert S.as_string(314.159, scientific=True).numpy() == b"3.141590e+02"
    assert S.as_string(314.159, shortest=True).numpy() == b"314.159"
    assert values(S.as_string([3, 42], width=5)) == [b"    3", b"   42"]
    assert values(S.as_string([3, 42], width=5, fill="0")) == [b"00003", b"00042"]
    assert S.as_string(3.5, width=10, fill="0").numpy() == b"003.500000"
    assert S.as_string(-3, width=5, fill="0").numpy() == b"-0003"
    assert S.as_string(True, width=6).numpy() == b"true"
    assert S.as_string(1 / 3, precision=20).numpy() == b"0.33333334326744079590"
    assert S.as_string(tf.constant(2.5, tf.float16)).numpy() == b"2.500000"
    assert values(S.as_string(tf.constant([1e-5, 123456789.0]), shortest=True)) == [
        b"1e-05", b"1.23457e+08"]
    assert S.as_string("a", width=3).numpy() == b"  a"


def test_as_string_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match='Fill argument not supported: "x"'):
        S.as_string(3.5, fill="x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot select both"):
        S.as_string(3.5, scientific=True, shortest=True)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="precision not supported for datatype int32"):
        S.as_string(3, precision=2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="scientific and shortest format not supported for datatype int32"):
        S.as_string(3, scientific=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="one or fewer characters"):
        S.as_string(3.5, fill="00")


def test_to_number():
    r = S.to_number("3.5")
    assert r.dtype == tf.float32 and r.numpy() == 3.5
    np.testing.assert_array_equal(S.to_number(["1", "2e3", " 4", "0x10", "5 "]).numpy(),
                                  np.array([1, 2000, 4, 16, 5], np.float32))
    r = S.to_number(["12", "+3", " 7 "], tf.int32)
    assert r.dtype == tf.int32 and values(r) == [12, 3, 7]
    assert values(S.to_number(["99999999999"], tf.int64)) == [99999999999]
    assert values(S.to_number(["4294967295"], tf.uint32)) == [4294967295]
    assert S.to_number(["1.5"], tf.float64).dtype == tf.float64
    r = S.to_number(["inf", "nan", "-Inf", "1e50"]).numpy()
    assert np.isposinf(r[0]) and np.isnan(r[1]) and np.isneginf(r[2]) and np.isposinf(r[3])
    for bad, dtype in [("abc", tf.float32), ("1.5", tf.int32), ("99999999999", tf.int32),
                       ("", tf.float32), ("1_0", tf.float32), ("0x10", tf.int32),
                       ("-1", tf.uint32)]:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="StringToNumberOp could not correctly convert string: "
                                 + bad + r" \[Op:StringToNumber\]"):
            S.to_number([bad], dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'out_type' of int8"):
        S.to_number(["1"], tf.int8)
    with tf.Graph().as_default():
        t = S.to_number(placeholder(tf.string, TensorShape([None])), tf.int64)
        assert t.dtype == tf.int64 and t.shape == TensorShape([None])
        assert t.op.type == "StringToNumber"


def test_substr():
    assert S.substr("hello", 1, 3).numpy() == b"ell"
    assert values(S.substr(["hello", "abc"], 1, 3)) == [b"ell", b"bc"]
    assert values(S.substr(["hello", "abc"], [1, 0], [2, 5])) == [b"el", b"abc"]
    assert S.substr("hello", -2, 5).numpy() == b"lo"
    assert S.substr("hello", 5, 3).numpy() == b""
    assert S.substr("hello", 1, -1).numpy() == b"ello"
    assert S.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    assert values(S.substr([["ab", "cd"]], [1], [1])) == [[b"b", b"d"]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"pos 10 out of range for string b'hello' at index 0"):
        S.substr("hello", 10, 1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"pos 6 out of range for string at index 0"):
        S.substr("héllo", 6, 1, unit="UTF8_CHAR")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"pos and len should have the same shape"):
        S.substr(["ab", "cd"], [0, 1, 1], 1)


def test_regex_ops():
    r = S.regex_full_match(["abc", "abd", "xabc"], "ab.")
    assert r.dtype == tf.bool and values(r) == [True, True, False]
    assert S.regex_full_match("héllo", "h.llo").numpy()
    assert values(S.regex_full_match(["a"], tf.constant("a"))) == [True]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern: \\("):
        S.regex_full_match("abc", "(")
    assert values(S.regex_replace(["aaa", "bab"], "a", "x")) == [b"xxx", b"bxb"]
    assert S.regex_replace("aaa", "a", "x", replace_global=False).numpy() == b"xaa"
    assert S.regex_replace("abc", "(b)", r"[\1]").numpy() == b"a[b]c"
    assert S.regex_replace("abc", "(b)", r"[\\1]").numpy() == b"a[\\1]c"
    assert S.regex_replace("abc", "b", r"\0\0").numpy() == b"abbc"
    assert S.regex_replace("héllo", ".", "x").numpy() == b"xxxxx"
    assert S.regex_replace("abc", "(b)", r"\2").numpy() == b"abc"
    with tf.Graph().as_default():
        t = S.regex_replace(placeholder(tf.string, TensorShape([2])), "a", "b")
        assert t.op.type == "StaticRegexReplace" and t.shape == TensorShape([2])


def test_reduce_join():
    m = [["a", "b"], ["c", "d"]]
    assert S.reduce_join(m).numpy() == b"abcd"
    assert values(S.reduce_join(m, axis=0)) == [b"ac", b"bd"]
    assert values(S.reduce_join(m, axis=-1)) == [b"ab", b"cd"]
    r = S.reduce_join(m, axis=1, separator=",", keepdims=True)
    assert r.shape == TensorShape([2, 1]) and values(r) == [[b"a,b"], [b"c,d"]]
    assert S.reduce_join(m, axis=[0, 1], separator="|").numpy() == b"a|c|b|d"
    assert S.reduce_join(m, axis=[1, 0], separator="|").numpy() == b"a|b|c|d"
    assert values(S.reduce_join(tf.zeros([2, 0], tf.string), axis=1)) == [b"", b""]
    assert S.reduce_join("abc").numpy() == b"abc"
    with pytest.raises(tf.errors.OutOfRangeError, match="Invalid reduction dimension 2 for "
                                                        "input with 2 dimension"):
        S.reduce_join(m, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="but is a float tensor"):
        S.reduce_join([], axis=0)
    with tf.Graph().as_default():
        x = placeholder(tf.string, TensorShape([None, 3, 4]))
        assert S.reduce_join(x, axis=1).shape == TensorShape([None, 4])
        assert S.reduce_join(x, axis=[0, 2], keepdims=True).shape == TensorShape([1, 3, 1])
        assert S.reduce_join(x).shape == TensorShape([])
        with pytest.raises(ValueError, match="Invalid reduction dimension 3"):
            S.reduce_join(x, axis=3)


def test_split_scalar_gives_tensor():
    assert values(S.split("a b  c")) == [b"a", b"b", b"c"]
    assert values(S.split("a,b,,c", ",")) == [b"a", b"b", b"", b"c"]
    assert values(S.split("  a  b ")) == [b"a", b"b"]
    assert values(S.split("a b", sep="")) == [b"a", b"b"]
    assert values(S.split("", ",")) == [b""]


def test_split_vector_gives_ragged():
    r = S.split(["a b", "c"])
    assert isinstance(r, tf.RaggedTensor)
    assert repr(r) == "<tf.RaggedTensor [[b'a', b'b'], [b'c']]>"
    assert str(r) == repr(r)
    assert r.to_list() == [[b"a", b"b"], [b"c"]]
    assert values(r.flat_values) == [b"a", b"b", b"c"]
    assert values(r.values) == [b"a", b"b", b"c"]
    lengths = r.row_lengths()
    assert lengths.dtype == tf.int64 and values(lengths) == [2, 1]
    assert values(r.row_splits) == [0, 2, 3]
    assert r.shape == TensorShape([2, None]) and r.dtype == tf.string and r.ragged_rank == 1
    assert int(r.nrows()) == 2
    assert values(r[0]) == [b"a", b"b"]
    assert values(r.to_tensor()) == [[b"a", b"b"], [b"c", b""]]
    assert S.split(["a b", "c d e", ""]).to_list() == [[b"a", b"b"], [b"c", b"d", b"e"], []]
    assert S.split(["a,b,,c"], sep=",", maxsplit=1).to_list() == [[b"a", b"b,,c"]]
    assert S.split(["", "a,"], ",").to_list() == [[b""], [b"a", b""]]
    assert repr(S.split([["a b"]])) == "<tf.RaggedTensor [[[b'a', b'b']]]>"


def test_ragged_tensor_basics():
    r = tf.RaggedTensor.from_row_splits(tf.constant([1, 2, 3, 4]), [0, 3, 3, 4])
    assert r.to_list() == [[1, 2, 3], [], [4]]
    assert repr(r) == "<tf.RaggedTensor [[1, 2, 3], [], [4]]>"
    assert r[1:].to_list() == [[], [4]]
    assert values(r.to_tensor(default_value=-1)) == [[1, 2, 3], [-1, -1, -1], [4, -1, -1]]
    r2 = tf.RaggedTensor.from_row_lengths(tf.constant([1.5, 2.5]), [1, 0, 1])
    assert r2.to_list() == [[1.5], [], [2.5]]
    with pytest.raises(TypeError):   # TensorFlow 2.21: RaggedTensor has no len()
        len(r2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits(tf.constant([1, 2]), [0, 3])


def test_unicode_ops():
    r = S.unicode_split("héllo", "UTF-8")
    assert values(r) == [b"h", "é".encode(), b"l", b"l", b"o"]
    assert S.unicode_split(["hé", "abc"], "UTF-8").to_list() == [
        [b"h", "é".encode()], [b"a", b"b", b"c"]]
    assert values(S.unicode_split(b"a\xffb", "UTF-8")) == [b"a", b"\xef\xbf\xbd", b"b"]
    d = S.unicode_decode("héllo", "UTF-8")
    assert d.dtype == tf.int32 and values(d) == [104, 233, 108, 108, 111]
    assert S.unicode_decode(["hé", "a"], "UTF-8").to_list() == [[104, 233], [97]]
    assert S.unicode_encode([104, 233], "UTF-8").numpy() == "hé".encode()

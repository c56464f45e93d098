"""tf.print, tf.strings.format and tf.debugging.Assert: text forms as TensorFlow
prints them (expected strings recorded from TensorFlow 2.21)."""
import io
import logging
import sys
import collections

import numpy as np
import pytest

import rillflow as tf
from rillflow.framework.execute import placeholder
from rillflow.framework.op_registry import get
from rillflow.framework.tensor_shape import TensorShape
from rillflow.ops.debugging.logging_ops import summarize_v1, summarize_v2


def printed(capsys, *args, **kwargs):
    """What tf.print writes to stderr (its default stream)."""
    capsys.readouterr()
    assert tf.print(*args, **kwargs) is None
    out = capsys.readouterr()
    assert out.out == ""
    return out.err


def ints(n, shape=None):
    return tf.constant(np.arange(n, dtype=np.int32).reshape(shape or (n,)))


# --- tensor layout ------------------------------------------------------------------

def test_vector_summarized_at_both_ends(capsys):
    assert printed(capsys, ints(20)) == "[0 1 2 ... 17 18 19]\n"
    assert printed(capsys, ints(7), summarize=2) == "[0 1 ... 5 6]\n"
    assert printed(capsys, ints(6), summarize=0) == "[ ...]\n"
    assert printed(capsys, ints(6)) == "[0 1 2 3 4 5]\n"


def test_matrix_rows_and_ellipsis_row(capsys):
    assert printed(capsys, ints(100, (10, 10))) == (
        "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
        " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n")
    assert printed(capsys, ints(12, (12, 1))) == \
        "[[0]\n [1]\n [2]\n ...\n [9]\n [10]\n [11]]\n"


def test_summarize_minus_one_prints_everything(capsys):
    out = printed(capsys, ints(100, (10, 10)), summarize=-1)
    assert "..." not in out
    assert out.startswith("[[0 1 2 3 4 5 6 7 8 9]\n [10 11")


def test_rank3_and_rank4_blocks_separated_by_blank_lines(capsys):
    assert printed(capsys, ints(24, (2, 3, 4))) == (
        "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n"
        " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]\n")
    out = printed(capsys, ints(120, (2, 3, 4, 5)))
    assert "[35 36 37 38 39]]\n\n  [[40 41" in out
    assert "[55 56 57 58 59]]]\n\n\n [[[60 61" in out


def test_summarize_one_keeps_dims_of_two(capsys):
    assert printed(capsys, ints(8, (2, 2, 2)), summarize=1) == \
        "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]\n"


def test_empty_tensors(capsys):
    assert printed(capsys, tf.zeros([0])) == "[]\n"
    assert printed(capsys, tf.zeros([0, 3])) == "[]\n"
    assert printed(capsys, tf.zeros([2, 0])) == "[\n ...]\n"
    assert printed(capsys, tf.zeros([3, 0, 2])) == "[\n\n ...]\n"
    assert printed(capsys, tf.constant([], tf.string)) == "[]\n"


# --- elements -------------------------------------------------------------------------

def test_floats_use_shortest_round_trip_digits(capsys):
    assert printed(capsys, tf.constant([0.5, 0.25, 0.75, 1.0, 0.125])) == \
        "[0.5 0.25 0.75 1 0.125]\n"
    assert printed(capsys, tf.constant(1 / 3)) == "0.333333343\n"
    assert printed(capsys, tf.constant(123456789.0)) == "123456792\n"
    assert printed(capsys, tf.constant(1e20)) == "1e+20\n"
    assert printed(capsys, tf.constant(np.float64(1 / 3))) == "0.33333333333333331\n"


@pytest.mark.parametrize("dtype,values,expected", [
    (np.float32, [0.1, 1 / 3, 2 / 3, 123456789.0, 1e20, 1e-20, 3.4028235e38, 1.17549435e-38,
                  0.5, 100.0, 1e6, 1234567.0, 16777217.0, 0.3, 2.675, -7.25e-5, 65504.0, 1e-7,
                  9.999999e-5],
     "[0.1 0.333333343 0.666666687 123456792 1e+20 1e-20 3.40282347e+38 1.17549435e-38 0.5 "
     "100 1e+06 1234567 16777216 0.3 2.675 -7.25e-05 65504 1e-07 9.99999902e-05]"),
    (np.float64, [0.1, 1 / 3, 2 / 3, 1e100, 1e-300, 123456789.123456789, 2 ** 53 + 1.0, 0.3,
                  5e-324],
     "[0.1 0.33333333333333331 0.66666666666666663 1e+100 1e-300 123456789.12345679 "
     "9007199254740992 0.3 0]"),
    (np.float16, [0.1, 0.2, 1000.5, 6e-5], "[0.0999755859 0.199951172 1000.5 6.00218773e-05]"),
])
def test_float_text_matches_tensorflow(dtype, values, expected):
    t = tf.constant(np.array(values, dtype=dtype))
    assert tf.strings.format("{}", t, summarize=-1).numpy().decode() == expected


def test_nan_inf_signed_zero_and_subnormals(capsys):
    assert printed(capsys, tf.constant([np.nan, np.inf, -np.inf, -0.0])) == "[nan inf -inf -0]\n"
    assert printed(capsys, tf.constant(np.array([-np.nan], np.float32))) == "[-nan]\n"
    # Subnormal numbers are flushed to zero, as TensorFlow's CPU kernels do.
    assert printed(capsys, tf.constant(np.array([-1e-45, 1e-40, 1.2e-38], np.float32))) == \
        "[-0 0 1.2e-38]\n"


def test_bools_ints_and_complex(capsys):
    assert printed(capsys, tf.constant(True)) == "1\n"
    assert printed(capsys, tf.constant([[True, False], [False, True]])) == "[[1 0]\n [0 1]]\n"
    assert printed(capsys, tf.constant(np.array([2 ** 62, -5], np.int64))) == \
        "[4611686018427387904 -5]\n"
    assert printed(capsys, tf.constant(np.uint8(200))) == "200\n"
    assert printed(capsys, tf.constant([1 + 2j])) == "[?]\n"


def test_strings_quoted_and_escaped_in_tensors(capsys):
    assert printed(capsys, tf.constant(["a", "b"])) == '["a" "b"]\n'
    assert printed(capsys, tf.constant(["a\nb", 'c"d', "é", "\t'\\"])) == \
        '["a\\nb" "c\\"d" "é" "\\t\\\'\\\\"]\n'
    assert printed(capsys, tf.constant([b"\x01\x7f"])) == '["\\001\\177"]\n'


def test_lone_string_scalar_prints_bare(capsys):
    assert printed(capsys, tf.constant("abc")) == "abc\n"
    assert printed(capsys, tf.constant("é")) == "é\n"
    assert printed(capsys, tf.constant("abc"), "x") == '"abc" x\n'
    assert printed(capsys, [tf.constant("abc")]) == '["abc"]\n'
    assert printed(capsys, tf.constant(""), end="|\n") == "|\n"


# --- Python values and structures ---------------------------------------------------------

def test_python_values_and_strings(capsys):
    assert printed(capsys, "hello", "world", sep=",") == "hello,world\n"
    assert printed(capsys, 1.5, 2, True, None, 3.0) == "1.5 2 True None 3.0\n"
    assert printed(capsys, "a {} b", tf.constant(1)) == "a {} b 1\n"
    assert printed(capsys, "%s %d {{}}") == "%s %d {{}}\n"
    assert printed(capsys, b"bytes", [b"x"]) == "b'bytes' [b'x']\n"
    assert printed(capsys, np.array([1, 2])) == "array([1, 2])\n"
    assert printed(capsys) == "\n"


def test_nested_structures_show_tensors_unquoted(capsys):
    assert printed(capsys, {"a": tf.constant(1)}) == "{'a': 1}\n"
    assert printed(capsys, [tf.constant([1, 2]), 3]) == "[[1 2], 3]\n"
    assert printed(capsys, {"b": [tf.constant(1.5)], "a": "x"}) == "{'a': 'x', 'b': [1.5]}\n"
    assert printed(capsys, (1, 2)) == "(1, 2)\n"
    assert printed(capsys, [tf.constant("x"), "y"]) == "[\"x\", 'y']\n"
    od = collections.OrderedDict([("b", 1), ("a", tf.constant(2))])
    assert printed(capsys, od) == "OrderedDict([('b', 1), ('a', 2)])\n"
    pt = collections.namedtuple("Pt", "x y")
    assert printed(capsys, pt(tf.constant(1), 2)) == "Pt(x=1, y=2)\n"


def test_long_structures_wrap_like_pprint(capsys):
    out = printed(capsys, [tf.constant(1)] * 30)
    assert out == "[" + ",\n ".join(["1"] * 30) + "]\n"
    out = printed(capsys, {"key%d" % i: tf.constant(i) for i in range(12)})
    assert out.startswith("{'key0': 0,\n 'key1': 1,\n 'key10': 10,\n")


def test_variables_print_their_value(capsys):
    assert printed(capsys, tf.Variable(3.0)) == "3\n"


def test_sep_and_end(capsys):
    assert printed(capsys, tf.constant([1, 2]), tf.constant([[1]]), sep="--") == "[1 2]--[[1]]\n"
    assert printed(capsys, "a", "b", sep="", end="") == "ab"
    assert printed(capsys, tf.constant(7), {"z": "q"}, sep=" | ") == "7 | {'z': 'q'}\n"


# --- streams -----------------------------------------------------------------------------

def test_streams_are_looked_up_when_printing(capsys, monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    tf.print(tf.constant([1, 2]), output_stream=sys.stdout)
    assert buf.getvalue() == "[1 2]\n"
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    tf.print("x")
    assert err.getvalue() == "x\n"


def test_file_stream_appends(tmp_path):
    path = tmp_path / "log.txt"
    tf.print(tf.constant([1, 2]), output_stream="file://" + str(path))
    tf.print("second", output_stream="file://" + str(path))
    assert path.read_text() == "[1 2]\nsecond\n"


def test_logging_streams(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tf.print("hello", tf.constant(3), output_stream=tf.compat.v1.logging.info)
        tf.print("careful", output_stream=tf.compat.v1.logging.warning)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, "hello 3"), (logging.WARNING, "careful")]


def test_invalid_bytes_are_written_raw(monkeypatch):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stream)
    tf.print(tf.constant(b"\xff\x00"))
    stream.flush()
    assert raw.getvalue() == b"\xff\x00\n"


def test_bad_stream_and_keyword():
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print(1, output_stream=print)
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print(1, output_stream="stdout")
    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments for tf.print: "
                                         r"\{'foo': 2\}"):
        tf.print(1, foo=2)


# --- graphs ----------------------------------------------------------------------------------

def test_print_in_graph_is_a_stateful_op(capsys):
    g = tf.Graph()
    with g.as_default():
        x = placeholder(tf.float32, TensorShape([None, 3]))
        op = tf.print("x:", x, name="pp")
    assert capsys.readouterr().err == ""  # nothing printed while building
    assert op.type == "PrintV2" and op.name == "pp"
    assert op.outputs == []
    assert op.get_attr("output_stream") == "stderr"
    assert op.get_attr("end") == "\n"
    fmt = op.inputs[0].op
    assert fmt.type == "StringFormat" and fmt.name == "pp_format"
    assert fmt.get_attr("template") == "x: {}"
    assert fmt.get_attr("summarize") == 3
    assert op.inputs[0].shape == TensorShape([]) and op.inputs[0].dtype == tf.string
    assert get("PrintV2").stateful


def test_print_kernel_writes_to_current_stream(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    text = np.empty((), dtype=object)
    text[()] = b"hello"
    assert get("PrintV2").kernel(text, output_stream="stdout", end="!\n") == []
    assert buf.getvalue() == "hello!\n"


def test_string_format_eager_and_graph():
    s = tf.strings.format("{} and {}", (tf.constant("s"), tf.constant(["a"])))
    assert s.dtype == tf.string and s.shape == TensorShape([])
    assert s.numpy() == b'"s" and ["a"]'
    assert tf.strings.format("{} {}", [1, 2.5]).numpy() == b"1 2.5"
    assert tf.strings.format("x", []).numpy() == b"x"
    assert tf.strings.format("<>", [ints(10)], placeholder="<>", summarize=2).numpy() == \
        b"[0 1 ... 8 9]"
    assert tf.strings.format("{}", ints(5), summarize=-1).numpy() == b"[0 1 2 3 4]"
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs "
                                         "only has 1"):
        tf.strings.format("{} {}", [1])
    with tf.Graph().as_default():
        t = tf.strings.format("{}", [placeholder(tf.int32, TensorShape([None]))], name="ff")
        assert t.op.type == "StringFormat" and t.op.name == "ff"
        assert t.shape == TensorShape([]) and t.dtype == tf.string
        assert t.op.get_attr("T") == [tf.int32]


# --- Assert --------------------------------------------------------------------------------

def test_assert_eager_raises_with_summarized_data():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.debugging.Assert(False, ["hello", tf.constant([1, 2, 3, 4, 5]), 1.5,
                                    tf.constant("s")])
    assert e.value.message == ("Expected 'False' to be true. Summarized data: b'hello'\n"
                               "1, 2, 3, ...\n1.5\nb's'")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.debugging.Assert(tf.constant(False), [ints(10)], summarize=5)
    assert e.value.message == ("Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                               "Summarized data: 0, 1, 2, 3, 4, ...")
    assert tf.debugging.Assert(True, [1]) is None
    assert tf.Assert is tf.debugging.Assert


def test_assert_in_graph_builds_op():
    g = tf.Graph()
    with g.as_default():
        c = placeholder(tf.bool, TensorShape([]))
        op = tf.debugging.Assert(c, [tf.constant(1.5), "x"], summarize=4)
    assert op.type == "Assert" and op.name == "Assert/Assert"
    assert op.get_attr("summarize") == 4
    assert op.get_attr("T") == [tf.float32, tf.string]
    assert get("Assert").stateful


def test_assert_kernel_message_uses_v1_summary():
    kernel = get("Assert").kernel
    strs = np.empty((1, 1), dtype=object)
    strs[0, 0] = b"a"
    label = np.empty((), dtype=object)
    label[()] = b"x is"
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        kernel(np.array(False), label, np.array(-1, np.int32),
               np.array([1.5, 2, 3, 4], np.float32), np.array(7, np.int32), strs,
               summarize=3)
    assert e.value.message == "assertion failed: [x is] [-1] [1.5 2 3...] [7] [[a]]"
    assert kernel(np.array(True), summarize=3) == []


@pytest.mark.parametrize("shape,summarize,expected", [
    ((10,), 3, "0 1 2..."), ((10,), -1, "0 1 2 3 4 5 6 7 8 9"),
    ((3, 4), 3, "[0 1 2...]..."), ((3, 4), 5, "[0 1 2 3][4...]..."),
    ((2, 3, 4), 3, "[[0 1 2...]]..."), ((2, 3, 4), 5, "[[0 1 2 3][4...]]..."),
    ((2, 2), 3, "[0 1][2...]..."), ((1, 4), 3, "[0 1 2...]..."), ((0,), 3, ""),
    ((2, 0), 3, ""),
])
def test_summarize_v1(shape, summarize, expected):
    arr = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    assert summarize_v1(arr, summarize) == expected


def test_summarize_v2_direct():
    assert summarize_v2(np.array(2.5, np.float16)) == "2.5"
    strs = np.empty(2, dtype=object)
    strs[:] = [b"a", b"b\n"]
    assert summarize_v2(strs) == '["a" "b\\n"]'
    assert summarize_v1(strs) == "a b\\n"

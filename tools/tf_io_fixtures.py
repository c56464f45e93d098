"""TensorFlow's results of the `tf.io` functions of issue 22 (decode_csv,
the sparse serialization functions, sequence example parsing,
decode_json_example), recorded for tests/test_io_extra.py, errors included,
eagerly and in `tf.function`.

    /work/tfref/bin/python tools/tf_io_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


# --- decode_csv -------------------------------------------------------------------------------

def _csv(tf, records, defaults, **kw):
    return tf.io.decode_csv(records, defaults, **kw)


@case
def csv_types(tf):
    return _csv(tf, ["1,2.5,a,3,1e300", '4,,"b,c",,-7'],
                [[0], [0.0], ["x"], tf.constant([7], tf.int64), tf.constant([0], tf.float64)])


@case
def csv_delim_na_select(tf):
    return [_csv(tf, ["1;2", "4;5"], [[0], [0.0]], field_delim=";"),
            _csv(tf, ["1,NA", "NA,5"], [[0], [0.0]], na_value="NA"),
            _csv(tf, ["1,2,3", "4,5,6"], [[0], [0.0]], select_cols=[0, 2]),
            _csv(tf, ["1,2,3", "4,5,6"], [[0], ["z"]], select_cols=[1, 2], na_value="5")]


@case
def csv_quotes(tf):
    return [_csv(tf, ['"a""b",c', '"",""', "\n1,2", ","], [["x"], ["y"]]),
            _csv(tf, ['"a""b",c'], [["x"], ["y"]], use_quote_delim=False),
            _csv(tf, ['1,"2",'], [["d"], ["e"], ["f"]])]


@case
def csv_numbers(tf):
    fields = ["0x10", " 1.5 ", ".5", "5.", "+1", "INF", "Infinity", "-nan", "1e-50", "0X1A",
              "1" * 40, "-0", "\t2\t", "infinity", "+inf", "0x1p3", "1.5E+3", "3.4028236e38",
              # A double halfway between two floats: the decimal rounds once.
              "1.00000005960464477539062500000000001", "1.000000059604644775390625",
              "1.00000005960464477539062499999999999", "3.4028235677973366e38"]
    out = [_csv(tf, [f], [[0.0]], use_quote_delim=False)[0] for f in fields]
    out += [_csv(tf, [f], [tf.constant([0], tf.float64)], use_quote_delim=False)[0]
            for f in fields]
    ints = ["+1", "-0", "\t2\t", " 7", "2147483647", "-2147483648", "9223372036854775807"]
    out += [_csv(tf, [f], [tf.constant([0], tf.int64)])[0] for f in ints]
    out += [_csv(tf, [f], [[0]])[0] for f in ints[:-1]]
    return out


@case
def csv_matrix_and_scalar(tf):
    return [_csv(tf, [["1,2"], ["3,4"]], [[0], [0]]), _csv(tf, "1,2", [[0], [0]])]


@case
def csv_in_function(tf):
    f = tf.function(lambda x: tf.io.decode_csv(x, [[0], [0.0], ["a"]]))
    return f(tf.constant([["1,2,a"], ["3,,"]]))


def _csv_error(records, defaults, **kw):
    def run(tf):
        return _csv(tf, records, defaults, **kw)
    return run


for _name, _args in {
        "too_many": (["1,2"], [[0]]), "too_few": (["1"], [[0], [0]]),
        "empty_record": ([""], [[0], [0]]),
        "bad_int": (["a"], [[0]]), "bad_int_float": (["1.5"], [[0]]),
        "int32_overflow": (["99999999999"], [[0]]), "bad_float": (["x"], [[0.0]]),
        "missing_required": (["1,"], [[0], []]), "open_quote": (['"a'], [["x"]]),
        "quote_inside": (['a"b'], [["x"]]), "bad_escape": (['"a"b'], [["x"]]),
        "crlf": (["1,2\r\n"], [["d"], ["e"]]), "hex_int": (["0x10"], [[0]]),
        "two_defaults": (["1"], [[1.0, 2.0]]), "rank2_default": (["1,2"], [[[0]], [0]]),
        "bool_default": (["1,2"], [[True], [0]]),
        "select_fewer": (["1,2"], [[0], [0]], {"select_cols": [0, 5]}),
        "select_order": (["1,2"], [[0], [0]], {"select_cols": [1, 0]}),
        "select_negative": (["1,2"], [[0]], {"select_cols": [-1]}),
        "select_length": (["1,2"], [[0]], {"select_cols": [0, 1]}),
        "long_delim": (["1"], [[0]], {"field_delim": ",,"}),
        "no_defaults": (["1,2"], [])}.items():
    CASES.fns["csv_error_" + _name] = _csv_error(*_args[:2], **(_args[2] if len(_args) > 2
                                                                 else {}))
    CASES.rtol["csv_error_" + _name] = 0.0


@case
def csv_error_in_function(tf):
    f = tf.function(lambda x: tf.io.decode_csv(x, [[0], [0.0]]))
    return f(tf.constant(["1,x"]))


# --- sparse serialization ---------------------------------------------------------------------

def _sp(tf, indices, values, shape, dtype=None):
    return tf.sparse.SparseTensor(indices, tf.constant(values, dtype), shape)


@case
def serialize_sparse_bytes(tf):
    return [tf.io.serialize_sparse(_sp(tf, [[0, 1], [2, 3]], [1.5, 2.5], [3, 4])),
            tf.io.serialize_sparse(_sp(tf, [[1]], ["ab"], [4])),
            tf.io.serialize_sparse(_sp(tf, np.zeros([0, 2], np.int64), [], [2, 2], tf.int32)),
            tf.io.serialize_sparse(_sp(tf, [[0, 0]], [True], [1, 1])),
            tf.io.serialize_sparse(_sp(tf, [[0, 0]], [1 + 2j], [1, 1], tf.complex64))]


@case
def serialize_many_sparse_bytes(tf):
    sp = _sp(tf, [[0, 0, 1], [0, 1, 0], [2, 0, 3]], ["a", "b", "c"], [3, 2, 4])
    sp2 = _sp(tf, [[0, 0], [0, 1], [1, 0], [1, 2]], [4, 2, 1, 3], [4, 3], tf.int64)
    return [tf.io.serialize_many_sparse(sp), tf.io.serialize_many_sparse(sp2)]


@case
def deserialize_many_sparse_roundtrip(tf):
    sp = _sp(tf, [[0, 0, 1], [0, 1, 0], [2, 0, 3]], ["a", "b", "c"], [3, 2, 4])
    m = tf.io.serialize_many_sparse(sp)
    return [tf.io.deserialize_many_sparse(m, tf.string),
            tf.io.deserialize_many_sparse(m, tf.string, rank=3)]


@case
def deserialize_many_sparse_join(tf):
    def ser(*a):
        return tf.io.serialize_sparse(_sp(tf, *a))
    a = ser([[0, 1]], [1], [2, 3])
    b = ser([[1, 2], [0, 0]], [5, 6], [1, 1])
    return [tf.io.deserialize_many_sparse(tf.stack([a]), tf.int32),
            tf.io.deserialize_many_sparse(a, tf.int32),
            tf.io.deserialize_many_sparse(tf.stack([[a, a], [a, a]]), tf.int32),
            tf.io.deserialize_many_sparse(tf.stack([a, b]), tf.int32)]


@case
def deserialize_many_sparse_in_function(tf):
    @tf.function
    def f(x):
        d = tf.io.deserialize_many_sparse(x, tf.int32, rank=3)
        return d, d.indices.shape.as_list(), d.dense_shape.shape.as_list()
    a = tf.io.serialize_sparse(_sp(tf, [[0, 1]], [1], [2, 3]))
    return f(tf.stack([a, a]))


def _sparse_error(fn):
    CASES.fns["sparse_error_" + fn.__name__] = fn
    CASES.rtol["sparse_error_" + fn.__name__] = 0.0
    return fn


@_sparse_error
def rank_mismatch(tf):
    a = tf.io.serialize_sparse(_sp(tf, [[0, 1]], [1], [2, 3]))
    b = tf.io.serialize_sparse(_sp(tf, [[1, 1, 1]], [2], [2, 2, 2]))
    return tf.io.deserialize_many_sparse(tf.stack([a, b]), tf.int32)


@_sparse_error
def dtype_mismatch(tf):
    a = tf.io.serialize_sparse(_sp(tf, [[0, 1]], [1], [2, 3]))
    return tf.io.deserialize_many_sparse(tf.stack([a]), tf.float32)


@_sparse_error
def not_three(tf):
    return tf.io.deserialize_many_sparse(tf.constant([["x", "y"]]), tf.int32)


@_sparse_error
def garbage(tf):
    return tf.io.deserialize_many_sparse(tf.constant([["x", "y", "z"]]), tf.int32)


@_sparse_error
def truncated(tf):
    a = tf.io.serialize_sparse(_sp(tf, [[0, 1]], [1], [2, 3])).numpy()
    return tf.io.deserialize_many_sparse(tf.constant([[a[0][:7], a[1], a[2]]]), tf.int32)


@_sparse_error
def many_rank1(tf):
    return tf.io.serialize_many_sparse(_sp(tf, [[1]], [1], [3]))


@_sparse_error
def many_unordered(tf):
    return tf.io.serialize_many_sparse(_sp(tf, [[1, 0], [0, 1]], [1, 2], [3, 3]))


@_sparse_error
def many_repeated(tf):
    return tf.io.serialize_many_sparse(_sp(tf, [[0, 0], [0, 0]], [1, 2], [3, 3]))


@_sparse_error
def many_out_of_bounds(tf):
    return tf.io.serialize_many_sparse(_sp(tf, [[5, 0]], [1], [3, 3]))


@_sparse_error
def bad_out_type(tf):
    return tf.io.serialize_sparse(_sp(tf, [[5, 0]], [1], [3, 3]), out_type=tf.int32)


# --- sequence examples ------------------------------------------------------------------------

def _seq(tf, context, lists):
    """A serialized SequenceExample; a step given as None has no values set,
    one given as (kind, values) has that kind."""
    s = tf.train.SequenceExample()
    for k, v in context.items():
        _fill(s.context.feature[k], v)
    for k, steps in lists.items():
        fl = s.feature_lists.feature_list[k]
        for v in steps:
            f = fl.feature.add()
            if v is not None:
                _fill(f, v)
    return s.SerializeToString()


def _fill(f, v):
    kind, values = v if isinstance(v, tuple) else (
        "float_list" if isinstance(v[0], float) else
        "int64_list" if isinstance(v[0], int) else "bytes_list", v)
    getattr(f, kind).value.extend(values)
    getattr(f, kind).SetInParent()


def _two(tf):
    a = _seq(tf, {"c": [1], "s": [b"x"], "cv": [0.5, 1.5]},
             {"f": [[1.0, 2.0], [3.0, 4.0]], "v": [[1], [2, 3], ("int64_list", [])],
              "r": [[b"a"], [b"b", b"c"]]})
    b = _seq(tf, {"c": [2], "cr": [4, 5, 6]}, {"f": [[5.0, 6.0]], "v": [[7]]})
    return a, b


def _features(tf):
    return ({"c": tf.io.FixedLenFeature([], tf.int64),
             "s": tf.io.FixedLenFeature([], tf.string, default_value="d"),
             "cv": tf.io.VarLenFeature(tf.float32), "cr": tf.io.RaggedFeature(tf.int64)},
            {"f": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
             "v": tf.io.VarLenFeature(tf.int64), "r": tf.io.RaggedFeature(tf.string)})


@case
def sequence_batch(tf):
    a, b = _two(tf)
    return tf.io.parse_sequence_example([a, b], *_features(tf))


@case
def sequence_single(tf):
    a, b = _two(tf)
    return [tf.io.parse_single_sequence_example(x, *_features(tf)) for x in (a, b)]


@case
def sequence_missing_and_empty(tf):
    a, _ = _two(tf)
    sf = {"zz": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
          "z2": tf.io.VarLenFeature(tf.float32), "z3": tf.io.RaggedFeature(tf.int64)}
    x = _seq(tf, {}, {"v": [None, ("float_list", [1.0])]})
    return [tf.io.parse_sequence_example([a], None, sf),
            tf.io.parse_single_sequence_example(a, None, sf),
            tf.io.parse_sequence_example([x], None, {"v": tf.io.VarLenFeature(tf.float32)}),
            tf.io.parse_sequence_example([x], None, {"v": tf.io.RaggedFeature(
                tf.float32, row_splits_dtype=tf.int64)})]


@case
def sequence_context_only(tf):
    a = _seq(tf, {"c": [1, 2]}, {})
    empty = _seq(tf, {}, {})
    return [tf.io.parse_sequence_example([a, empty], {"c": tf.io.FixedLenFeature(
                [2], tf.int64, default_value=[5, 6])}),
            tf.io.parse_sequence_example([a, empty], {"c": tf.io.VarLenFeature(tf.int64)}),
            tf.io.parse_single_sequence_example(a, {"c": tf.io.VarLenFeature(tf.int64)}),
            tf.io.parse_sequence_example([a, empty], {"c": tf.io.RaggedFeature(tf.int64)})]


@case
def sequence_in_function(tf):
    a, b = _two(tf)
    c, f = _features(tf)

    @tf.function
    def batch(x):
        out = tf.io.parse_sequence_example(x, c, f)
        return out, [out[0]["c"].shape.as_list(), out[1]["f"].shape.as_list(),
                     out[1]["v"].indices.shape.as_list(), out[2]["f"].shape.as_list()]

    @tf.function
    def single(x):
        out = tf.io.parse_single_sequence_example(x, c, f)
        return out, [out[0]["c"].shape.as_list(), out[1]["f"].shape.as_list(),
                     out[1]["v"].dense_shape.shape.as_list()]
    return batch(tf.constant([a, b])), single(tf.constant(a))


def _seq_error(fn):
    CASES.fns["sequence_error_" + fn.__name__] = fn
    CASES.rtol["sequence_error_" + fn.__name__] = 0.0
    return fn


@_seq_error
def required_list(tf):
    _, b = _two(tf)
    return tf.io.parse_sequence_example([b], None, {"r": tf.io.FixedLenSequenceFeature(
        [], tf.string)})


@_seq_error
def step_size(tf):
    a, _ = _two(tf)
    return tf.io.parse_single_sequence_example(a, None, {"f": tf.io.FixedLenSequenceFeature(
        [], tf.float32)})


@_seq_error
def total_size(tf):
    a, _ = _two(tf)
    return tf.io.parse_sequence_example([a], None, {"f": tf.io.FixedLenSequenceFeature(
        [3], tf.float32)})


@_seq_error
def step_type(tf):
    x = _seq(tf, {}, {"f": [None, ("float_list", [1.0]), ("int64_list", [3])]})
    return tf.io.parse_sequence_example([x], None, {"f": tf.io.VarLenFeature(tf.float32)})


@_seq_error
def context_type(tf):
    a, _ = _two(tf)
    return tf.io.parse_sequence_example([a], {"c": tf.io.FixedLenFeature([], tf.float32)},
                                        None, example_names=["n1"])


@_seq_error
def context_count(tf):
    a = _seq(tf, {"c": [1, 2]}, {})
    return tf.io.parse_sequence_example([a], {"c": tf.io.FixedLenFeature([3], tf.int64)})


@_seq_error
def context_missing(tf):
    _, b = _two(tf)
    return tf.io.parse_single_sequence_example(b, {"s": tf.io.FixedLenFeature([], tf.string)})


@_seq_error
def garbage(tf):
    return tf.io.parse_sequence_example(["garbage"], {"s": tf.io.FixedLenFeature([],
                                                                                 tf.string)})


@_seq_error
def matrix_input(tf):
    a, _ = _two(tf)
    return tf.io.parse_sequence_example([[a]], {"c": tf.io.FixedLenFeature([], tf.int64)})


@_seq_error
def vector_single(tf):
    a, _ = _two(tf)
    return tf.io.parse_single_sequence_example([a], {"c": tf.io.FixedLenFeature([], tf.int64)})


@_seq_error
def no_features(tf):
    return tf.io.parse_sequence_example(["x"])


@_seq_error
def no_features_single(tf):
    return tf.io.parse_single_sequence_example("x")


@_seq_error
def sequence_default(tf):
    return tf.io.parse_sequence_example(["x"], None, {"f": tf.io.FixedLenSequenceFeature(
        [2], tf.float32, allow_missing=True, default_value=-1.0)})


@_seq_error
def fixed_len_in_lists(tf):
    return tf.io.parse_sequence_example(["x"], None, {"f": tf.io.FixedLenFeature([2],
                                                                                tf.float32)})


@case
def sequence_ragged_partitions(tf):
    x = _seq(tf, {}, {"v": [[1, 2, 3, 4], [5, 6]], "len": [[1, 3], [2]]})
    y = _seq(tf, {}, {"v": [[7, 8]], "len": [[2]]})
    sf = {"u": tf.io.RaggedFeature(tf.int64, value_key="v", partitions=[
              tf.io.RaggedFeature.UniformRowLength(2)]),
          "l": tf.io.RaggedFeature(tf.int64, value_key="v", partitions=[
              tf.io.RaggedFeature.RowLengths("len")], row_splits_dtype=tf.int32),
          "v": tf.io.RaggedFeature(tf.int64)}
    return tf.io.parse_sequence_example([x, y], None, sf), \
        tf.io.parse_single_sequence_example(x, None, sf)


# --- decode_json_example ----------------------------------------------------------------------

_JSON = [
    '{"features": {"feature": {"a": {"int64List": {"value": ["1", 2, "-3", 1e3, "0x10"]}}, '
    '"b": {"floatList": {"value": [1.5, "2", "NaN", "Infinity", 0.1, -0.0, 3.4028235e38, '
    '1e-46, null]}}, "c": {"bytesList": {"value": ["YWJj", "_-8", "", "YWI"]}}}}}',
    '{}', '{"features": {}}', '{"features": null}', '{"features": {"feature": {"z": {}}}}',
    '{"features": {"feature": {"a": {"int64_list": {"value": 7}}, "b": null}}}',
    '{"features":{"feature":{"b":{"floatList":{"value":null}}, "\u00e9": {"floatList": {}}}}}',
    '{"features":{"feature":{"a":{"int64List":{"value":[-9223372036854775808, '
    '9223372036854775807]}}}}}\n']


@case
def json_examples(tf):
    out = tf.io.decode_json_example(_JSON)
    parsed = tf.io.parse_single_example(out[0], {
        "a": tf.io.VarLenFeature(tf.int64), "b": tf.io.VarLenFeature(tf.float32),
        "c": tf.io.VarLenFeature(tf.string)})
    return out, parsed, tf.io.decode_json_example([["{}", "{}"]])


@case
def json_in_function(tf):
    return tf.function(lambda x: tf.io.decode_json_example(x))(tf.constant(_JSON[:2]))


def _json_error(text):
    def run(tf):
        try:
            return tf.io.decode_json_example(text)
        except tf.errors.InvalidArgumentError as e:
            # TensorFlow's JSON parser words its messages unpredictably.
            return str(e).split("}}")[-1].split(":")[0].strip()
    return run


for _i, _text in enumerate([
        "garbage", '{"foo": 1}', "[]", '{"features":{"feature":{"b":{"floatList":{"value":[1]}}}}} x',
        '{"features": {"feature": {"a": {"int64List": {"value": [1.5]}}}}}',
        '{"features": {"feature": {"a": {"bytesList": {"value": ["!!"]}}}}}',
        '{"features": {"feature": {"a": {"int64List": {"value": ["99999999999999999999"]}}}}}',
        '{"features": {"feature": {"a": {"int64List": {"value": [1]}, "floatList": {}}}}}',
        '{"features": {"feature": {"b": {"floatList": {"value": [1e39]}}}}}',
        '{"features": {"feature": {"a": {"int64List": {"value": [true]}}}}}',
        '{"features":{"feature":{"a":{"int64List":{}}, "a":{"int64List":{}}}}}',
        '{"features":{"feature":{"b":{"doubleList":{"value":[1]}}}}}']):
    CASES.fns[f"json_error_{_i}"] = _json_error(_text)
    CASES.rtol[f"json_error_{_i}"] = 0.0


# --- decode_proto / encode_proto --------------------------------------------------------------

def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _num(number, value):
    return _varint(number << 3) + _varint(value)


# (name, number, FieldDescriptorProto.Type, label (3: repeated), type name)
_PROTO_FIELDS = [("i32", 1, 5, 1, ""), ("i64", 2, 3, 1, ""), ("f", 3, 2, 1, ""),
                 ("d", 4, 1, 1, ""), ("s", 5, 9, 1, ""), ("b", 6, 12, 1, ""),
                 ("ok", 7, 8, 1, ""), ("r", 8, 5, 3, ""), ("u32", 9, 13, 1, ""),
                 ("si", 10, 17, 1, ""), ("fx", 11, 6, 1, ""), ("sub", 12, 11, 1, ".pkg.M"),
                 ("e", 13, 14, 1, ".pkg.E"), ("rs", 14, 9, 3, ""), ("rf", 15, 2, 3, ""),
                 ("rsi", 16, 18, 3, "")]


def _descriptor_set(syntax="proto3"):
    """A serialized FileDescriptorSet of package `pkg`, message M (the
    fields above) and enum E, written by hand (no protobuf needed)."""
    fields = b"".join(_len(2, _len(1, n.encode()) + _num(3, num) + _num(4, label) +
                           _num(5, t) + (_len(6, tn.encode()) if tn else b""))
                      for n, num, t, label, tn in _PROTO_FIELDS)
    enum = _len(5, _len(1, b"E") + _len(2, _len(1, b"Z") + _num(2, 0)) +
                _len(2, _len(1, b"O") + _num(2, 1)))
    f = _len(1, b"t.proto") + _len(2, b"pkg") + _len(4, _len(1, b"M") + fields) + enum + \
        _len(12, syntax.encode())
    return _len(1, f)


_PROTO_NAMES = [n for n, *_ in _PROTO_FIELDS]


def _proto_values(tf):
    sizes = tf.constant([[1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 2, 2, 3],
                         [0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0]])
    values = [tf.constant([[-5], [0]]), tf.constant([[1 << 40], [-1]], tf.int64),
              tf.constant([[1.5], [0.0]]), tf.constant([[2.25], [0]], tf.float64),
              tf.constant([["h\xc3\xa9"], ["x"]]), tf.constant([[b"\x00\xff"], [b""]]),
              tf.constant([[True], [False]]), tf.constant([[1, 2, 3], [9, 0, 0]]),
              tf.constant([[4000000000], [0]], tf.uint32), tf.constant([[-7], [8]]),
              tf.constant([[9], [0]], tf.uint64), tf.constant([[b"\x08\x03"], [b""]]),
              tf.constant([[1], [0]]), tf.constant([["x", "y"], ["", ""]]),
              tf.constant([[0.5, -1.0], [0, 0]], tf.float64),
              tf.constant([[-1, 2, -3], [0, 0, 0]], tf.int64)]
    return sizes, values


_PROTO_TYPES = ["int32", "int64", "float32", "float64", "string", "string", "bool", "int32",
                "uint32", "int32", "uint64", "string", "int32", "string", "float64", "int64"]


@case
def proto_roundtrip(tf):
    src = b"bytes://" + _descriptor_set()
    sizes, values = _proto_values(tf)
    enc = tf.io.encode_proto(sizes, values, _PROTO_NAMES, "pkg.M", descriptor_source=src)
    dec = tf.io.decode_proto(enc, "pkg.M", _PROTO_NAMES,
                             [getattr(tf, t) for t in _PROTO_TYPES], descriptor_source=src)
    wide = tf.io.decode_proto(enc, "pkg.M", ["i32", "f", "u32"], [tf.int64, tf.float64,
                                                                   tf.uint64],
                              descriptor_source=src)
    one = tf.io.decode_proto(enc[0], "pkg.M", ["rs", "e"], [tf.string, tf.int32],
                             descriptor_source=src)
    return enc, dec, wide, one


@case
def proto2_unpacked(tf):
    src = b"bytes://" + _descriptor_set("proto2")
    sizes, values = _proto_values(tf)
    enc = tf.io.encode_proto(sizes, values, _PROTO_NAMES, "pkg.M", descriptor_source=src)
    dec = tf.io.decode_proto(enc, "pkg.M", ["r", "rf"], [tf.int32, tf.float64],
                             descriptor_source=src)
    return enc, dec


@case
def proto_local_pool(tf):
    ex = tf.train.Example()
    ex.features.feature["a"].int64_list.value.extend([1, 2])
    t = tf.io.serialize_tensor(tf.constant([[1.5, 2.0]]))
    return [tf.io.decode_proto([ex.SerializeToString()], "tensorflow.Example", ["features"],
                               [tf.string]),
            tf.io.decode_proto(t, "tensorflow.TensorProto",
                               ["dtype", "tensor_shape", "tensor_content", "string_val"],
                               [tf.int32, tf.string, tf.string, tf.string])]


@case
def proto_in_function(tf):
    src = b"bytes://" + _descriptor_set()

    @tf.function
    def f(x):
        out = tf.io.decode_proto(x, "pkg.M", ["r", "s"], [tf.int32, tf.string],
                                 descriptor_source=src)
        return out, [out.sizes.shape.as_list(), out.values[0].shape.as_list()]
    sizes, values = _proto_values(tf)
    return f(tf.io.encode_proto(sizes, values, _PROTO_NAMES, "pkg.M", descriptor_source=src))


def _proto_error(fn):
    CASES.fns["proto_error_" + fn.__name__] = fn
    CASES.rtol["proto_error_" + fn.__name__] = 0.0
    return fn


def _decode(tf, data, names=("i32",), types=("int32",), src=None, **kw):
    return tf.io.decode_proto(data, "pkg.M", list(names), [getattr(tf, t) for t in types],
                              descriptor_source=src or b"bytes://" + _descriptor_set(), **kw)


@_proto_error
def wrong_type(tf):
    return _decode(tf, ["\x08\x01"], ["i32", "f"], ["int32", "int32"])


@_proto_error
def wrong_type_uint(tf):
    return _decode(tf, ["\x08\x01"], ["u32"], ["int64"])


@_proto_error
def unknown_field(tf):
    return _decode(tf, ["\x08\x01"], ["nope"])


@_proto_error
def unknown_type(tf):
    return tf.io.decode_proto(["x"], "pkg.Q", ["i32"], [tf.int32],
                              descriptor_source=b"bytes://" + _descriptor_set())


@_proto_error
def truncated(tf):
    return _decode(tf, [b"\x08"])


@_proto_error
def bad_length(tf):
    return _decode(tf, [b"\x2a\x05ab"], ["s"], ["string"])


@_proto_error
def bad_source(tf):
    return _decode(tf, ["\x08\x01"], src=b"bytes://abc")


@_proto_error
def missing_file(tf):
    return _decode(tf, ["\x08\x01"], src="/nonexistent/file.fds")


@_proto_error
def empty_batch(tf):
    return _decode(tf, tf.zeros([0], tf.string))


@case
def proto_wire_mismatch_is_skipped(tf):
    # Field 1 as a length-delimited value: not an int32, skipped.
    return _decode(tf, [b"\x0a\x01x\x08\x07", b"\x0a\x00"], ["i32"], ["int32"])


if __name__ == "__main__":
    CASES.main("tf_io.npz")

"""TFRecord files, tf.train.Example protos and the parsing ops.

Expected bytes and messages were learned from TensorFlow 2.21; the files in
tests/data/tf_examples*.tfrecord were written by TensorFlow itself (the
three records in TF_RECORDS, plain, GZIP and ZLIB).
"""
import os
import struct

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import crc32c as C
from rillflow.io.wire import DecodeError

DATA = os.path.join(os.path.dirname(__file__), "data")
FIXTURES = {"": "tf_examples.tfrecord", "GZIP": "tf_examples_gzip.tfrecord",
            "ZLIB": "tf_examples_zlib.tfrecord"}

# The records TensorFlow wrote into the fixtures (SerializeToString(deterministic=True)).
TF_RECORDS = [
    b'\n-\n\x0c\n\x02id\x12\x06\x1a\x04\n\x02\x00\x00\n\x10\n\x04name\x12\x08\n\x06\n\x04rec0'
    b'\n\x0b\n\x05score\x12\x02\x12\x00',
    b'\n<\n\x15\n\x02id\x12\x0f\x1a\r\n\x0b\x01\x98\xf8\xff\xff\xff\xff\xff\xff\xff\x01\n\x10'
    b'\n\x04name\x12\x08\n\x06\n\x04rec1\n\x11\n\x05score\x12\x08\x12\x06\n\x04\x00\x00\x80>',
    b'\n@\n\x15\n\x02id\x12\x0f\x1a\r\n\x0b\x02\xb0\xf0\xff\xff\xff\xff\xff\xff\xff\x01\n\x10'
    b'\n\x04name\x12\x08\n\x06\n\x04rec2\n\x15\n\x05score\x12\x0c\x12\n\n\x08\x00\x00\x00?\x00'
    b'\x00\x00?',
]


def make_record(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, -i * 1000])),
        "score": tf.train.Feature(float_list=tf.train.FloatList(value=[0.25 * i] * i)),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"rec%d" % i])),
    }))


def int_feature(*v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(v)))


def example(**features):
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


# --- CRC-32C ---------------------------------------------------------------------------------

def test_crc32c_known_values_and_mask():
    assert C.crc32c(b"123456789") == 0xE3069283
    assert C.crc32c(b"") == 0
    assert C.crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720 test vector
    assert C.unmask(C.mask(0x12345678)) == 0x12345678
    # TFRecord header of a 5-byte record, as TensorFlow wrote it.
    assert struct.pack("<I", C.masked_crc32c(struct.pack("<Q", 5))) == b"\xea\xb2\x04>"


@pytest.mark.parametrize("n", [1023, 1024, 5000, 70001])
def test_crc32c_vectorized_path_matches_byte_loop(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    assert C.crc32c(data) == C._update_py(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    assert C.crc32c(data[n // 3:], C.crc32c(data[:n // 3])) == C.crc32c(data)


# --- Example protos --------------------------------------------------------------------------

def test_example_bytes_match_tensorflow():
    for i, expected in enumerate(TF_RECORDS):
        assert make_record(i).SerializeToString() == expected
        assert tf.train.Example.FromString(expected) == make_record(i)


def test_map_order_and_text_format_match_tensorflow():
    keys = ["ab", "b", "a", "abc", "B"]
    ex = tf.train.Example(features=tf.train.Features(
        feature={k: int_feature(i) for i, k in enumerate(keys)}))
    assert ex.SerializeToString() == (
        b'\n?\n\n\n\x01B\x12\x05\x1a\x03\n\x01\x04\n\x0c\n\x03abc\x12\x05\x1a\x03\n\x01\x03\n\x0b'
        b'\n\x02ab\x12\x05\x1a\x03\n\x01\x00\n\n\n\x01a\x12\x05\x1a\x03\n\x01\x02\n\n\n\x01b\x12'
        b'\x05\x1a\x03\n\x01\x01')
    assert [line.split('"')[1] for line in str(ex).splitlines() if "key:" in line] == \
        ["b", "a", "ab", "abc", "B"]
    assert str(make_record(2)) == """features {
  feature {
    key: "score"
    value {
      float_list {
        value: 0.5
        value: 0.5
      }
    }
  }
  feature {
    key: "name"
    value {
      bytes_list {
        value: "rec2"
      }
    }
  }
  feature {
    key: "id"
    value {
      int64_list {
        value: 2
        value: -2000
      }
    }
  }
}
"""


def test_text_format_of_values():
    assert str(tf.train.FloatList(value=[0.1, 1e20, 123456789.0, -0.0, float("inf")])) == \
        "value: 0.1\nvalue: 1e+20\nvalue: 123456792\nvalue: -0\nvalue: inf\n"
    assert str(tf.train.BytesList(value=[b'a"b\'c\\d\n\t\x01\x7f\x80 \xc3\xa9'])) == \
        'value: "a\\"b\\\'c\\\\d\\n\\t\\001\\177\\200 \\303\\251"\n'
    assert str(tf.train.Example()) == ""
    assert str(tf.train.Feature(int64_list=tf.train.Int64List())) == "int64_list {\n}\n"


def test_message_api():
    f = tf.train.Feature()
    assert f.WhichOneof("kind") is None and not f.HasField("int64_list")
    f.int64_list.value.append(3)
    assert f.WhichOneof("kind") == "int64_list"
    f.float_list.value.extend([1, 2])  # the oneof switches
    assert f.WhichOneof("kind") == "float_list" and not f.HasField("int64_list")
    assert list(f.float_list.value) == [1.0, 2.0]
    ex = tf.train.Example()
    ex.features.feature["a"].bytes_list.value.append(b"z")
    assert ex.SerializeToString() == b'\n\x0c\n\n\n\x01a\x12\x05\n\x03\n\x01z'
    assert tf.train.FloatList(value=[0.1]).value[0] == 0.10000000149011612
    assert tf.train.Int64List(value=[1]) == tf.train.Int64List(value=[1])
    assert tf.train.Feature() != tf.train.Feature(int64_list=tf.train.Int64List())
    with pytest.raises(TypeError, match="unhashable"):
        hash(tf.train.Int64List())
    nested = tf.train.Features(feature={"a": {"int64_list": {"value": [1]}}})
    assert nested.feature["a"].int64_list.value == [1]


def test_message_errors():
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        tf.train.Int64List(value=[1.5])
    with pytest.raises(ValueError, match="Value out of range: 18446744073709551616"):
        tf.train.Int64List(value=[2 ** 64])
    with pytest.raises(TypeError, match="Expected an int, got a boolean"):
        tf.train.Int64List(value=[True])
    with pytest.raises(TypeError, match="expected bytes, str found"):
        tf.train.BytesList(value=["abc"])
    with pytest.raises(ValueError, match='Protocol message Feature has no "bogus" field.'):
        tf.train.Feature(bogus=1)
    with pytest.raises(AttributeError, match='Assignment not allowed to message field'):
        tf.train.Example().features = tf.train.Features()
    with pytest.raises(DecodeError, match="Error parsing message with type 'tensorflow.Example'"
                                          ": Wire format was corrupt"):
        tf.train.Example.FromString(b"\x0a\x05garbage")


def test_decoder_accepts_unpacked_numbers_and_keeps_unknown_fields():
    assert tf.train.Int64List.FromString(b"\x08\x01\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff"
                                         b"\x01").value == [1, -1]
    assert tf.train.FloatList.FromString(b"\x0d" + struct.pack("<f", 2.5)).value == [2.5]
    odd = tf.train.Example.FromString(b"\x10\x01")
    assert odd != tf.train.Example() and odd.SerializeToString() == b"\x10\x01"


def test_sequence_example_bytes_match_tensorflow():
    s = tf.train.SequenceExample(
        context=tf.train.Features(feature={"a": int_feature(1)}),
        feature_lists=tf.train.FeatureLists(feature_list={"s": tf.train.FeatureList(feature=[
            tf.train.Feature(float_list=tf.train.FloatList(value=[1.0])),
            tf.train.Feature(float_list=tf.train.FloatList(value=[2.0]))])}))
    expected = (b'\n\x0c\n\n\n\x01a\x12\x05\x1a\x03\n\x01\x01\x12\x1b\n\x19\n\x01s\x12\x14\n\x08'
                b'\x12\x06\n\x04\x00\x00\x80?\n\x08\x12\x06\n\x04\x00\x00\x00@')
    assert s.SerializeToString() == expected
    assert tf.train.SequenceExample.FromString(expected) == s


# --- TFRecord files --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["", "GZIP", "ZLIB"])
def test_reads_tensorflow_written_files(kind):
    ds = tf.data.TFRecordDataset(os.path.join(DATA, FIXTURES[kind]), compression_type=kind)
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert list(ds.as_numpy_iterator()) == TF_RECORDS


@pytest.mark.parametrize("kind", ["", "GZIP", "ZLIB"])
def test_written_files_are_byte_identical_to_tensorflow(kind, tmp_path):
    path = str(tmp_path / "out.tfrecord")
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=kind)) as w:
        for i in range(3):
            w.write(make_record(i).SerializeToString())
    with open(path, "rb") as f, open(os.path.join(DATA, FIXTURES[kind]), "rb") as g:
        assert f.read() == g.read()


def test_round_trip_large_records_and_parallel_reads(tmp_path):
    recs = [os.urandom(n) for n in (0, 1, 3000, 100000)]
    paths = []
    for k, kind in enumerate(["GZIP", "ZLIB", ""]):
        paths.append(str(tmp_path / f"f{k}"))
        w = tf.io.TFRecordWriter(paths[-1], kind)
        for r in recs:
            w.write(r)
        w.close()
        assert list(tf.data.TFRecordDataset(paths[-1], kind).as_numpy_iterator()) == recs
    two = tf.data.TFRecordDataset([paths[2], paths[2]], num_parallel_reads=2)
    assert list(two.as_numpy_iterator()) == [r for r in recs for _ in range(2)]
    files = tf.data.Dataset.from_tensor_slices([paths[2]])
    assert len(list(tf.data.TFRecordDataset(files))) == 4


def _corrupt(tmp_path, edit):
    with open(os.path.join(DATA, FIXTURES[""]), "rb") as f:
        data = bytearray(f.read())
    data = edit(data)
    path = str(tmp_path / "bad.tfrecord")
    with open(path, "wb") as f:
        f.write(bytes(data))
    return path


def _flip(i):
    def edit(d):
        d[i] ^= 1
        return d
    return edit


@pytest.mark.parametrize("edit,message", [
    (_flip(20), "corrupted record at 12"),
    (_flip(2), r"corrupted record at 0 \(Is this even a TFRecord file\?\)"),
    (_flip(70), "corrupted record at 63 "),
    (lambda d: d[:-5], "truncated record at 141' failed with Read less bytes than requested"),
])
def test_corruption_raises_data_loss(tmp_path, edit, message):
    ds = tf.data.TFRecordDataset(_corrupt(tmp_path, edit))
    with pytest.raises(tf.errors.DataLossError, match=message):
        list(ds)


def test_partial_header_ends_quietly_and_other_reader_errors(tmp_path):
    assert list(tf.data.TFRecordDataset(_corrupt(tmp_path, lambda d: d[:7]))) == []
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing")))
    with pytest.raises(tf.errors.DataLossError,
                       match="inflate\\(\\) failed with error -3: incorrect header check"):
        list(tf.data.TFRecordDataset(os.path.join(DATA, FIXTURES[""]), "GZIP"))


def test_writer_and_options_errors(tmp_path):
    w = tf.io.TFRecordWriter(str(tmp_path / "x"))
    w.write("text is UTF-8")
    w.close()
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
        w.write(b"a")
    assert list(tf.data.TFRecordDataset(str(tmp_path / "x")).as_numpy_iterator()) == \
        [b"text is UTF-8"]
    with pytest.raises(ValueError, match='Not a valid compression_type: "BOGUS"'):
        tf.io.TFRecordOptions(compression_type="BOGUS")
    assert tf.io.TFRecordOptions.get_compression_type_string(None) == ""
    assert tf.io.TFRecordOptions.get_compression_type_string(
        tf.io.TFRecordOptions(tf.io.TFRecordCompressionType.GZIP)) == "GZIP"
    with pytest.raises(tf.errors.NotFoundError, match="/nonexist/x.tfrecord; No such file"):
        tf.io.TFRecordWriter("/nonexist/x.tfrecord")


# --- parsing ---------------------------------------------------------------------------------

SPEC = {"id": tf.io.FixedLenFeature([2], tf.int64),
        "name": tf.io.FixedLenFeature([], tf.string),
        "score": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
        "extra": tf.io.FixedLenFeature([2], tf.float32, default_value=[7.0, 8.0])}


def test_parse_single_and_batched_eagerly():
    one = tf.io.parse_single_example(TF_RECORDS[2], SPEC)
    assert list(one) == ["extra", "id", "name", "score"]
    assert one["id"].dtype == tf.int64 and one["id"].numpy().tolist() == [2, -2000]
    assert one["name"].numpy() == b"rec2" and one["name"].shape == ()
    assert one["score"].numpy().tolist() == [0.5, 0.5]
    assert one["extra"].numpy().tolist() == [7.0, 8.0]
    batch = tf.io.parse_example(TF_RECORDS, SPEC)
    assert batch["id"].numpy().tolist() == [[0, 0], [1, -1000], [2, -2000]]
    assert batch["score"].numpy().tolist() == [[0, 0], [0.25, 0], [0.5, 0.5]]
    assert batch["name"].numpy().tolist() == [b"rec0", b"rec1", b"rec2"]
    padded = tf.io.parse_example(TF_RECORDS[:2], {"score": tf.io.FixedLenSequenceFeature(
        [], tf.float32, allow_missing=True, default_value=-1.0)})
    assert padded["score"].numpy().tolist() == [[-1.0], [0.25]]


@pytest.mark.parametrize("fn,serialized,features,message", [
    ("single", TF_RECORDS[1], {"z": tf.io.FixedLenFeature([], tf.int64)},
     r"^Feature: z \(data type: int64\) is required but could not be found. "
     r"\[Op:ParseExampleV2\]$"),
    ("batch", TF_RECORDS, {"z": tf.io.FixedLenFeature([], tf.int64)},
     r"^Name: <unknown>, Feature: z \(data type: int64\) is required"),
    ("single", TF_RECORDS[1], {"id": tf.io.FixedLenFeature([3], tf.int64)},
     "^Key: id.  Can't parse serialized Example: Some int64_list slice was not parsed."),
    ("single", TF_RECORDS[1], {"id": tf.io.FixedLenFeature([2], tf.float32)},
     "^Key: id.  Data types don't match. Data type: int64 but expected type: float"),
    ("batch", TF_RECORDS, {"score": tf.io.FixedLenFeature([1], tf.float32)},
     r"^Name: <unknown>, Key: score, Index: 0.  Number of float values != expected.  "
     r"Values size: 0 but output shape: \[1\]"),
    ("batch", TF_RECORDS, {"id": tf.io.FixedLenSequenceFeature([3], tf.int64,
                                                               allow_missing=True)},
     r"Number of int64 values is not a multiple of stride length. Saw 2 values but output "
     r"shape is: \[\?,3\]"),
    ("single", b"garbage", {"id": tf.io.FixedLenFeature([2], tf.int64)},
     "^Could not parse example input, value: 'garbage'"),
])
def test_parse_errors_match_tensorflow(fn, serialized, features, message):
    parse = tf.io.parse_single_example if fn == "single" else tf.io.parse_example
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        parse(serialized, features)


def test_parse_config_errors():
    with pytest.raises(ValueError, match="features cannot be empty"):
        tf.io.parse_single_example(TF_RECORDS[0], {})
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        tf.io.parse_single_example(TF_RECORDS[0], {"id": tf.io.FixedLenSequenceFeature(
            [], tf.int64)})
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.io.parse_single_example(TF_RECORDS, SPEC)
    with pytest.raises(NotImplementedError, match="SparseTensor"):
        tf.io.parse_single_example(TF_RECORDS[0], {"id": tf.io.SparseFeature(
            "id", "id", tf.int64, 3)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tdense' of int32"):
        tf.io.parse_single_example(TF_RECORDS[0], {"id": tf.io.FixedLenFeature([2], tf.int32)})
    assert repr(tf.io.FixedLenFeature([3], tf.int64, 0)) == \
        "FixedLenFeature(shape=[3], dtype=tf.int64, default_value=0)"


def test_parse_in_tf_function_has_tensorflow_static_shapes():
    shapes = {}

    @tf.function
    def f(s):
        out = tf.io.parse_example(s, SPEC)
        shapes.update({k: v.shape.as_list() for k, v in out.items()})
        return out["id"] + 1

    got = f(tf.constant(TF_RECORDS))
    assert got.numpy().tolist() == [[1, 1], [2, -999], [3, -1999]]
    f.get_concrete_function(tf.TensorSpec([None], tf.string))
    assert shapes == {"id": [None, 2], "name": [None], "score": [None, None],
                      "extra": [None, 2]}


def test_parse_in_dataset_map():
    ds = tf.data.TFRecordDataset(os.path.join(DATA, FIXTURES["GZIP"]), "GZIP")
    parsed = ds.map(lambda s: tf.io.parse_single_example(s, SPEC))
    assert parsed.element_spec["score"] == tf.TensorSpec([None], tf.float32)
    assert [e["id"].tolist() for e in parsed.as_numpy_iterator()] == [[0, 0], [1, -1000],
                                                                      [2, -2000]]
    batched = ds.batch(2).map(lambda s: tf.io.parse_example(s, SPEC))
    assert [e["score"].shape for e in batched.as_numpy_iterator()] == [(2, 1), (1, 2)]


# --- tensors, raw bytes, files ---------------------------------------------------------------

@pytest.mark.parametrize("value,dtype,expected", [
    (3, tf.int32, b'\x08\x03\x12\x00"\x04\x03\x00\x00\x00'),
    ([1.5, 2.5], tf.float32, b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00 @'),
    ([b"x", b"yz"], tf.string, b'\x08\x07\x12\x04\x12\x02\x08\x02B\x01xB\x02yz'),
    (True, tf.bool, b'\x08\n\x12\x00"\x01\x01'),
    (np.zeros((2, 0)), tf.float64, b'\x08\x02\x12\x06\x12\x02\x08\x02\x12\x00'),
    ([-1], tf.int8, b'\x08\x06\x12\x04\x12\x02\x08\x01"\x01\xff'),
])
def test_serialize_tensor_matches_tensorflow(value, dtype, expected):
    t = tf.constant(value, dtype)
    assert tf.io.serialize_tensor(t).numpy() == expected
    back = tf.io.parse_tensor(expected, dtype)
    assert back.dtype == dtype and back.shape == t.shape
    assert back.numpy().tolist() == t.numpy().tolist()


def test_parse_tensor_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Type mismatch between parsed tensor \(float\) and dtype \(int32\)"):
        tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0)), tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Could not parse `serialized` as TensorProto, base64: Z2FyYmFnZQ=="):
        tf.io.parse_tensor(b"garbage", tf.int32)


def test_decode_raw_and_base64():
    assert tf.io.decode_raw(tf.constant([b"\x01\x02\x03\x04", b"\x05\x06\x07\x08"]),
                            tf.int16).numpy().tolist() == [[513, 1027], [1541, 2055]]
    assert tf.io.decode_raw(b"\x01\x02\x03\x04", tf.int16,
                            little_endian=False).numpy().tolist() == [258, 772]
    assert tf.io.decode_raw(b"\x01\x02\x03", tf.uint8, fixed_length=5).numpy().tolist() == \
        [1, 2, 3, 0, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 has size 3 != 2"):
        tf.io.decode_raw([b"\x01\x02\x03", b"\x01\x02"], tf.int16)
    assert tf.io.encode_base64([b"hello?>", b""]).numpy().tolist() == [b"aGVsbG8_Pg", b""]
    assert tf.io.encode_base64(b"ab", pad=True).numpy() == b"YWI="
    assert tf.io.decode_base64(b"aGVsbG8_Pg").numpy() == b"hello?>"
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be 1 modulo 4"):
        tf.io.decode_base64(b"a")


def test_read_write_file_and_gfile(tmp_path):
    p = str(tmp_path / "w.txt")
    assert tf.io.write_file(p, "hello") is None
    assert tf.io.read_file(p).numpy() == b"hello"
    with pytest.raises(tf.errors.NotFoundError, match=r"none.txt; No such file or directory "
                                                      r"\[Op:ReadFile\]"):
        tf.io.read_file(str(tmp_path / "none.txt"))
    g = tf.io.gfile
    d = g.join(str(tmp_path), "a", "b")
    g.makedirs(d)
    assert g.isdir(d) and g.exists(d)
    with g.GFile(g.join(d, "f.txt"), "w") as f:
        f.write("one\ntwo\n")
    with g.GFile(g.join(d, "f.txt")) as f:
        assert f.readline() == "one\n" and f.read() == "two\n"
    assert g.listdir(d) == ["f.txt"]
    assert g.glob(g.join(d, "*.txt")) == [g.join(d, "f.txt")]
    g.remove(g.join(d, "f.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        g.remove(g.join(d, "f.txt"))
    g.rmtree(g.join(str(tmp_path), "a"))
    assert not g.exists(d)

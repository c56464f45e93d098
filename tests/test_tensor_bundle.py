"""TensorFlow's tensor bundle format (rillflow/io/tensor_bundle.py, sstable.py,
checkpoint_pb.py): round trips of every dtype, multi-block tables, and safe
failures on missing, foreign, corrupt and hostile files. (TensorFlow's own
files: tests/test_tf_checkpoints.py; random mutations: test_checkpoint_fuzz.py.)"""
import os
import struct

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import checkpoint_pb, crc32c, sstable, tensor_bundle as tb


def _all_dtypes():
    arrays = {
        "f16": np.array([1.5, -2.25], np.float16),
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64": np.array(3.25),
        "i8": np.array([-128, 127], np.int8),
        "i16": np.array([-3], np.int16),
        "i32": np.array([[1, 2]], np.int32),
        "i64": np.array([-(2 ** 63)], np.int64),
        "u8": np.array([255], np.uint8),
        "u16": np.array([65535], np.uint16),
        "u32": np.array([2 ** 32 - 1], np.uint32),
        "u64": np.array([2 ** 64 - 1], np.uint64),
        "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array(3 - 4j, np.complex128),
        "bool": np.array([True, False, True]),
        "empty": np.zeros((0, 3), np.int8),
        "str": np.array([b"x", b"", "\u00e9".encode()], dtype=object),
        "str0": np.array(b"hi", dtype=object),
        "no_str": np.zeros((0,), dtype=object),
        "bigendian": np.array([1, 2], dtype=">i4"),
        "big": np.arange(5000, dtype=np.float64),  # the NumPy CRC-32C path
        "\u00e9t\u00e9/key": np.array([1], np.int8),
    }
    if hasattr(tf, "bfloat16"):  # only with ml_dtypes installed
        arrays["bf16"] = np.array([1.5, 2.0], tf.bfloat16.as_numpy_dtype)
    return arrays


def test_round_trip_of_every_dtype(tmp_path):
    arrays = _all_dtypes()
    prefix = str(tmp_path / "sub" / "ckpt-1")
    tb.write_tensors(prefix, arrays)
    assert sorted(os.listdir(tmp_path / "sub")) == ["ckpt-1.data-00000-of-00001",
                                                    "ckpt-1.index"]
    assert tb.exists(prefix) and not tb.exists(str(tmp_path / "nope"))
    got = tb.read_tensors(prefix)
    assert sorted(got) == sorted(arrays)
    for name, want in arrays.items():
        have = got[name]
        assert have.shape == want.shape, name
        assert have.dtype == want.dtype.newbyteorder("="), name
        assert have.flags.writeable, name
        np.testing.assert_array_equal(have, want)
    assert got["str"].tolist() == [b"x", b"", b"\xc3\xa9"]


def test_reader_reads_one_tensor_and_lists_shapes(tmp_path):
    prefix = str(tmp_path / "p")
    tb.write_tensors(prefix, {"b": np.ones((2, 5), np.int16), "a": np.array("text")})
    reader = tb.BundleReader(prefix)
    assert reader.names() == ["a", "b"]
    assert "a" in reader and "c" not in reader
    assert reader.shape("b") == [2, 5] and reader.dtype("b") == tf.int16
    assert reader.dtype("a") == tf.string
    assert reader.get("a") == np.array(b"text", dtype=object)
    with pytest.raises(KeyError):
        reader.get("c")
    assert tb.read_tensors(prefix, names=["b"]).keys() == {"b"}


def test_tables_of_many_blocks_and_restart_points():
    items = [(b"key%05d" % i + b"\xff" * (i % 3), b"v" * (i % 40)) for i in range(3000)]
    data = sstable.write_table(items, block_size=1024)
    assert sstable.read_table(data) == items
    assert sstable.read_table(sstable.write_table(items)) == items
    with pytest.raises(ValueError, match="strictly increasing"):
        sstable.write_table([(b"b", b""), (b"a", b"")])
    # LevelDB's separators: short keys between blocks, a successor at the end.
    assert sstable._shortest_separator(b"abcdef", b"abzz") == b"abd"
    assert sstable._shortest_separator(b"ab", b"abc") == b"ab"
    assert sstable._short_successor(b"\xff\xffa") == b"\xff\xffb"


def test_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tb.read_tensors(str(tmp_path / "absent"))


OLD_JSON_INDEX = b'{"format": "rillflow-tensors", "metadata": {}, "tensors": {}, "version": 1}'


@pytest.mark.parametrize("content", [b"", b"junk", b"\x80\x81" * 40, OLD_JSON_INDEX,
                                     b"\x00" * 40 + struct.pack("<Q", sstable.MAGIC)])
def test_foreign_index_is_data_loss_naming_the_file(tmp_path, content):
    prefix = str(tmp_path / "bad")
    (tmp_path / "bad.index").write_bytes(content)
    (tmp_path / "bad.data-00000-of-00001").write_bytes(b"")
    with pytest.raises(tf.errors.DataLossError, match="bad.index"):
        tb.read_tensors(prefix)


def _write(tmp_path, arrays=None):
    prefix = str(tmp_path / "c")
    tb.write_tensors(prefix, arrays or {"a": np.arange(4, dtype=np.float32),
                                        "s": np.array([b"ab", b"c"], dtype=object)})
    return prefix


def _flip(path, position):
    data = bytearray(open(path, "rb").read())
    data[position] ^= 1
    open(path, "wb").write(bytes(data))


def test_flipped_bytes_are_data_loss(tmp_path):
    prefix = _write(tmp_path)
    _flip(tb.data_filename(prefix), 5)
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match.*'a'"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _flip(tb.data_filename(prefix), 16)  # the first string length
    with pytest.raises(tf.errors.DataLossError, match="string tensor 's'"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _flip(tb.data_filename(prefix), 22)  # the string bytes
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _flip(tb.index_filename(prefix), 12)
    with pytest.raises(tf.errors.DataLossError, match="block checksum mismatch"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _flip(tb.index_filename(prefix), os.path.getsize(tb.index_filename(prefix)) - 1)
    with pytest.raises(tf.errors.DataLossError, match="bad magic number"):
        tb.read_tensors(prefix)


def _rewrite(prefix, header=None, **changes):
    """Rewrites the index (with valid checksums) after changing entry "a"."""
    path = tb.index_filename(prefix)
    items = sstable.read_table(open(path, "rb").read())
    out = []
    for key, value in items:
        if key == b"" and header is not None:
            value = header
        elif key == b"a":
            entry = checkpoint_pb.decode_entry(value)
            for name, v in changes.items():
                setattr(entry, name, v)
            value = checkpoint_pb.encode_entry(entry)
            if entry.sliced:
                value += b"\x3a\x00"  # an empty TensorSliceProto (field 7)
        out.append((key, value))
    open(path, "wb").write(sstable.write_table(out))


@pytest.mark.parametrize("changes, message", [
    ({"size": 2 ** 62}, "size does not match"),
    ({"offset": 2 ** 62}, "extends past the end"),
    ({"shape": (2 ** 40, 2 ** 40)}, "size does not match"),
    ({"shape": (1,) * 300}, "too many dimensions"),
    ({"dtype": 20}, "unsupported dtype"),   # resource
    ({"dtype": 99}, "unsupported dtype"),
    ({"shard_id": 3}, "shard id 3 out of range"),
])
def test_hostile_entries_are_data_loss_before_any_allocation(tmp_path, changes, message):
    prefix = _write(tmp_path)
    _rewrite(prefix, **changes)
    with pytest.raises(tf.errors.DataLossError, match=message):
        tb.read_tensors(prefix)


def test_hostile_string_tensor_sizes(tmp_path):
    prefix = _write(tmp_path, {"a": np.array([b"x"] * 3, dtype=object)})
    _rewrite(prefix, shape=(10 ** 12,))
    with pytest.raises(tf.errors.DataLossError, match="size does not match"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path, {"a": np.array([b"x"] * 3, dtype=object)})
    data = bytearray(open(tb.data_filename(prefix), "rb").read())
    data[0:1] = b"\xff"  # a length varint that never ends inside the tensor
    open(tb.data_filename(prefix), "wb").write(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="string tensor"):
        tb.read_tensors(prefix)


def test_valid_bundles_rillflow_cannot_read_are_invalid_argument(tmp_path):
    prefix = _write(tmp_path)
    _rewrite(prefix, sliced=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="slices"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _rewrite(prefix, header=b"\x08\x01\x10\x01")  # BIG endian
    with pytest.raises(tf.errors.InvalidArgumentError, match="big-endian"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    _rewrite(prefix, header=checkpoint_pb.encode_header(1) + b"\x1a\x02\x10\x05")
    with pytest.raises(tf.errors.InvalidArgumentError, match="newer reader"):
        tb.read_tensors(prefix)


def test_missing_or_short_data_file(tmp_path):
    prefix = _write(tmp_path)
    os.remove(tb.data_filename(prefix))
    with pytest.raises(tf.errors.DataLossError, match="missing"):
        tb.read_tensors(prefix)
    prefix = _write(tmp_path)
    with open(tb.data_filename(prefix), "r+b") as f:
        f.truncate(10)
    with pytest.raises(tf.errors.DataLossError, match="extends past the end"):
        tb.BundleReader(prefix)


def test_unsupported_dtype_is_a_type_error(tmp_path):
    with pytest.raises(TypeError):
        tb.write_tensors(str(tmp_path / "e"), {"a": np.array([1], dtype="datetime64[s]")})
    with pytest.raises(TypeError):
        tb.write_tensors(str(tmp_path / "e"), {1: np.array([1])})


def test_string_checksums_use_tensorflows_32_bit_lengths():
    data, crc = tb._string_bytes(np.array([b"ab", b""], dtype=object))
    assert data[:2] == b"\x02\x00"
    lengths = struct.pack("<II", 2, 0)
    assert data[2:6] == crc32c.mask(crc32c.crc32c(lengths)).to_bytes(4, "little")
    assert crc == crc32c.crc32c(data[2:], crc32c.crc32c(lengths))
    assert tb._length_bytes([1, 2 ** 33]) == struct.pack("<IQ", 1, 2 ** 33)

"""The checkpoint tensor file format: round trips of every dtype, and safe
failures on missing, foreign and corrupt files."""
import json
import os

import numpy as np
import pytest

import rillflow as tf
from rillflow.saved_model import checkpoint_io as io


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
        "bigendian": np.array([1, 2], dtype=">i4"),
    }
    if hasattr(tf, "bfloat16"):  # only with ml_dtypes installed
        arrays["bf16"] = np.array([1.5, 2.0], tf.bfloat16.as_numpy_dtype)
    return arrays


def test_round_trip_of_every_dtype_and_metadata(tmp_path):
    arrays = _all_dtypes()
    prefix = str(tmp_path / "sub" / "ckpt-1")
    io.write_tensors(prefix, arrays, {"graph": {"nodes": [1, 2]}})
    assert sorted(os.listdir(tmp_path / "sub")) == ["ckpt-1.data-00000-of-00001",
                                                    "ckpt-1.index"]
    assert io.exists(prefix) and not io.exists(str(tmp_path / "nope"))
    got, meta = io.read_tensors(prefix)
    assert meta == {"graph": {"nodes": [1, 2]}}
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
    io.write_tensors(prefix, {"b": np.ones((2, 5), np.int16), "a": np.array("text")})
    reader = io.TensorFileReader(prefix)
    assert reader.names() == ["a", "b"]
    assert "a" in reader and "c" not in reader
    assert reader.shape("b") == [2, 5] and reader.dtype_name("b") == "int16"
    assert reader.dtype_name("a") == "string"
    assert reader.get("a") == np.array(b"text", dtype=object)
    with pytest.raises(KeyError):
        reader.get("c")
    assert io.read_tensors(prefix, names=["b"])[0].keys() == {"b"}


def test_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        io.read_tensors(str(tmp_path / "absent"))


@pytest.mark.parametrize("content", [b"junk", b"\x80\x81", b"[]",
                                     json.dumps({"format": "other"}).encode()])
def test_foreign_index_is_data_loss(tmp_path, content):
    prefix = str(tmp_path / "bad")
    (tmp_path / "bad.index").write_bytes(content)
    (tmp_path / "bad.data-00000-of-00001").write_bytes(b"")
    with pytest.raises(tf.errors.DataLossError):
        io.read_tensors(prefix)


def test_flipped_byte_is_data_loss(tmp_path):
    prefix = str(tmp_path / "c")
    io.write_tensors(prefix, {"a": np.arange(4, dtype=np.float32)})
    data = bytearray(open(io.data_filename(prefix), "rb").read())
    data[5] ^= 1
    open(io.data_filename(prefix), "wb").write(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        io.read_tensors(prefix)


def test_index_cannot_point_outside_the_data_or_name_unknown_dtypes(tmp_path):
    prefix = str(tmp_path / "d")
    io.write_tensors(prefix, {"a": np.arange(4, dtype=np.float32)})
    index = json.loads(open(io.index_filename(prefix)).read())
    for change in ({"length": 10 ** 6}, {"dtype": "object"}, {"shape": [3]},
                   {"shape": [-1]}, {"offset": "0"}):
        broken = json.loads(json.dumps(index))
        broken["tensors"]["a"].update(change)
        open(io.index_filename(prefix), "w").write(json.dumps(broken))
        with pytest.raises(tf.errors.DataLossError):
            io.read_tensors(prefix)
    os.remove(io.data_filename(prefix))
    open(io.index_filename(prefix), "w").write(json.dumps(index))
    with pytest.raises(tf.errors.DataLossError, match="missing"):
        io.read_tensors(prefix)


def test_unsupported_dtype_is_a_type_error(tmp_path):
    with pytest.raises(TypeError):
        io.write_tensors(str(tmp_path / "e"), {"a": np.array([1], dtype="datetime64[s]")})

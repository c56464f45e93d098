"""tf.load_op_library / tf.load_library: TensorFlow's exceptions and
messages for missing paths and files that are no shared library (recorded
from TensorFlow 2.21); rillflow refuses real libraries with NotFoundError."""
import numpy as np
import pytest

import rillflow as tf


def test_missing_and_invalid(tmp_path):
    missing = str(tmp_path / "missing.so")
    with pytest.raises(tf.errors.NotFoundError) as e:
        tf.load_op_library(missing)
    assert str(e.value) == f"{missing}: cannot open shared object file: No such file or directory"
    with pytest.raises(FileNotFoundError) as e:
        tf.load_library(missing)
    assert str(e.value) == ("[Errno 2] The file or folder to load kernel libraries from does "
                            f"not exist.: '{missing}'")
    bad = tmp_path / "bad.so"
    bad.write_bytes(b"not a lib\n")
    for fn in (tf.load_op_library, tf.load_library):
        with pytest.raises(tf.errors.NotFoundError) as e:
            fn(str(bad))
        assert str(e.value) == f"{bad}: file too short"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert tf.load_library(str(empty)) is None


def test_real_library_is_refused():
    import numpy.linalg._umath_linalg as mod
    with pytest.raises(tf.errors.NotFoundError, match="cannot load TensorFlow op or kernel"):
        tf.load_op_library(mod.__file__)
    assert np.__name__ == "numpy"

"""protobuf's own text_format fills rillflow's tf.train.Example (through the
message classes' DESCRIPTORs), as the ragged guide does; the bytes parse
back to the same features, and RaggedFeature parsing reads them."""
import pytest

import rillflow as tf

pbtext = pytest.importorskip("google.protobuf.text_format")

TEXT = r'''
    features {
      feature {key: "colors" value {bytes_list {value: ["red", "blue"]} } }
      feature {key: "lengths" value {int64_list {value: [7, 8]} } }
      feature {key: "weights" value {float_list {value: [1.5]} } }
      feature {key: "empty" value {int64_list {value: []} } } }'''


def test_merge_fills_example():
    ex = pbtext.Merge(TEXT, tf.train.Example())
    f = ex.features.feature
    assert list(f["colors"].bytes_list.value) == [b"red", b"blue"]
    assert list(f["lengths"].int64_list.value) == [7, 8]
    assert list(f["weights"].float_list.value) == [1.5]
    assert f["empty"].WhichOneof("kind") == "int64_list"
    again = tf.train.Example.FromString(ex.SerializeToString())
    assert again == ex


def test_parse_and_errors():
    ex = pbtext.Parse(TEXT, tf.train.Example())
    assert ex.features.feature["lengths"].int64_list.value[1] == 8
    with pytest.raises(pbtext.ParseError, match='has no field named "featurez"'):
        pbtext.Merge("featurez {}", tf.train.Example())


def test_ragged_feature_from_text_examples():
    batch = [pbtext.Merge(TEXT, tf.train.Example()).SerializeToString(),
             pbtext.Merge('features { feature {key: "colors" value {bytes_list '
                          '{value: ["x"]}}} }', tf.train.Example()).SerializeToString()]
    out = tf.io.parse_example(batch, {"colors": tf.io.RaggedFeature(tf.string),
                                      "lengths": tf.io.RaggedFeature(tf.int64)})
    assert out["colors"].to_list() == [[b"red", b"blue"], [b"x"]]
    assert out["lengths"].to_list() == [[7, 8], []]
    assert out["lengths"].row_splits.dtype == tf.int32

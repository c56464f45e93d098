"""tf.strings.to_hash_bucket, unicode_decode(_with_offsets),
unicode_split(_with_offsets) and unicode_transcode against TensorFlow's
results (recorded by tools/tf_leftovers_fixtures.py): ICU's replacement of
invalid UTF-8/UTF-16-BE/UTF-32-BE, the errors modes, control characters."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

with open(os.path.join(os.path.dirname(__file__), "data", "tf_leftovers.json")) as _f:
    DATA = json.load(_f)
INPUTS = [bytes(v) for v in DATA["unicode_inputs"]]
ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")


def test_to_hash_bucket_matches_tensorflow():
    strs = [bytes(v) for v in DATA["hash_strings"]]
    got = tf.strings.to_hash_bucket(strs, 1000)
    assert got.dtype == tf.int64
    assert got.numpy().tolist() == DATA["hash_1000"]
    assert tf.strings.to_hash_bucket(strs, 2 ** 62 + 7).numpy().tolist() == DATA["hash_big"]
    f = tf.function(lambda s: tf.strings.to_hash_bucket(s, 1000))
    assert f(tf.constant(strs)).numpy().tolist() == DATA["hash_1000"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
        tf.strings.to_hash_bucket(["a"], 0)


@pytest.mark.parametrize("enc", ENCODINGS)
@pytest.mark.parametrize("mode", ["replace", "ignore"])
@pytest.mark.parametrize("ctrl", [False, True])
def test_decode_and_transcode(enc, mode, ctrl):
    key = f"{enc}_{mode}_{int(ctrl)}"
    c, o = tf.strings.unicode_decode_with_offsets(INPUTS, enc, errors=mode,
                                                  replace_control_characters=ctrl)
    assert c.dtype == tf.int32 and o.dtype == tf.int64
    assert c.to_list() == DATA["dec_" + key]
    assert o.to_list() == DATA["off_" + key]
    assert tf.strings.unicode_decode(INPUTS, enc, errors=mode,
                                     replace_control_characters=ctrl).to_list() == \
        DATA["dec_" + key]
    for oenc in ENCODINGS:
        got = tf.strings.unicode_transcode(INPUTS, enc, oenc, errors=mode,
                                           replace_control_characters=ctrl)
        assert [list(v) for v in got.numpy().tolist()] == DATA[f"tr_{key}_{oenc}"]


@pytest.mark.parametrize("enc", ENCODINGS)
@pytest.mark.parametrize("mode", ["replace", "ignore"])
def test_split_with_offsets(enc, mode):
    p, o = tf.strings.unicode_split_with_offsets(INPUTS, enc, errors=mode, replacement_char=63)
    assert [[list(b) for b in row] for row in p.to_list()] == DATA[f"split_{enc}_{mode}"]
    assert o.to_list() == DATA[f"splitoff_{enc}_{mode}"]


def test_shapes_and_functions():
    c, o = tf.strings.unicode_decode_with_offsets(b"a\xc3\xa9", "UTF-8")
    assert c.numpy().tolist() == [97, 233] and o.numpy().tolist() == [0, 1]
    c, o = tf.strings.unicode_decode_with_offsets([[b"ab", b"c"]], "UTF-8")
    assert c.to_list() == [[[97, 98], [99]]] and o.to_list() == [[[0, 1], [0]]]
    rt = tf.ragged.constant([[b"ab"], [b"c", b"\xc3\xa9"]])
    c, o = tf.strings.unicode_decode_with_offsets(rt, "UTF-8")
    assert c.to_list() == [[[97, 98]], [[99], [233]]]
    assert o.to_list() == [[[0, 1]], [[0], [0]]]
    p, o = tf.strings.unicode_split_with_offsets(b"a\xc3\xa9", "UTF-8")
    assert p.numpy().tolist() == [b"a", b"\xc3\xa9"] and o.numpy().tolist() == [0, 1]
    t = tf.strings.unicode_transcode([[b"ab"], [b"c"]], "UTF-8", "UTF-16-BE")
    assert t.shape == (2, 1) and t.numpy().tolist() == [[b"\x00a\x00b"], [b"\x00c"]]
    assert tf.strings.unicode_decode([b"ab\xc3\xa9"], "ISO-8859-1").to_list() == \
        [[97, 98, 195, 169]]
    f = tf.function(lambda s: tf.strings.unicode_transcode(s, "UTF-8", "UTF-32-BE"))
    assert f(tf.constant([b"a"])).numpy().tolist() == [b"\x00\x00\x00a"]


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_decode([b"a\xff"], "UTF-8", errors="strict")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-8", errors="strict")
    with pytest.raises(tf.errors.InvalidArgumentError, match="replacement_char out of unicode"):
        tf.strings.unicode_decode([b"a"], "UTF-8", replacement_char=0x110000)
    with pytest.raises(tf.errors.InvalidArgumentError, match="converter for input encoding"):
        tf.strings.unicode_decode([b"a"], "FOO")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'output_encoding'"):
        tf.strings.unicode_transcode([b"a"], "UTF-8", "latin1")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'errors'"):
        tf.strings.unicode_decode([b"a"], "UTF-8", errors="bad")


def test_unicode_script():
    pts = np.asarray(DATA["script_points"], np.int32)
    got = tf.strings.unicode_script(pts)
    assert got.dtype == tf.int32
    assert got.numpy().tolist() == DATA["script_codes"]
    assert tf.strings.unicode_script(tf.constant([[65]])).shape == (1, 1)
    f = tf.function(lambda t: tf.strings.unicode_script(t))
    assert f(tf.constant(pts)).numpy().tolist() == DATA["script_codes"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 tensor but is a int64"):
        tf.strings.unicode_script(tf.constant([65], tf.int64))


@pytest.mark.parametrize("enc", ENCODINGS)
def test_byte_soup(enc):
    """Random mixes of lead, continuation, surrogate and invalid bytes."""
    soup = [bytes(v) for v in DATA["soup"]]
    for ctrl in (False, True):
        c, o = tf.strings.unicode_decode_with_offsets(soup, enc, replace_control_characters=ctrl)
        assert [c.to_list(), o.to_list()] == DATA[f"soup_{enc}_{int(ctrl)}"]
        t = tf.strings.unicode_transcode(soup, enc, "UTF-8", errors="ignore",
                                         replace_control_characters=ctrl)
        assert [list(v) for v in t.numpy().tolist()] == DATA[f"soupt_{enc}_{int(ctrl)}"]

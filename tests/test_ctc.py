"""The CTC ops against TensorFlow 2.21 (tests/data/tf_ctc.npz, from
tools/tf_ctc_fixtures.py): tf.compat.v1.nn.ctc_loss and tf.nn.ctc_loss with
sparse and dense labels (losses and gradients, eagerly and in tf.function),
the greedy and beam search decoders (paths and log probabilities, beam
search ties included: TensorFlow's TopN order), ctc_unique_labels and
collapse_repeated; hand-made decodes; TensorFlow's errors; Keras' calls."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.nn import ctc_beam_search

F = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_ctc.npz"))
META = json.loads(str(F["meta"]))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases(kind):
    return [pytest.param(m, id=m["key"]) for m in META if m["kind"] == kind]


def loss_and_grad(fn, x, g):
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = fn(xt)
    return loss.numpy(), tape.gradient(loss, xt, output_gradients=tf.constant(g)).numpy()


def traced(fn):
    """fn's loss and gradient computed inside one tf.function."""
    @tf.function
    def run(x, g):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = fn(x)
        return loss, tape.gradient(loss, x, output_gradients=g)
    return lambda x, g: [t.numpy() for t in run(tf.constant(x), tf.constant(g))]


def close(got, want, tol=2e-5):
    # Losses and gradients: float tolerance (sums of exponentials in another
    # order round differently); inf and NaN where TensorFlow has them.
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol)


def sparse(k):
    return tf.SparseTensor(F[k + "_ind"], F[k + "_val"], F[k + "_shape"])


# --- losses ----------------------------------------------------------------------------

@pytest.mark.parametrize("m", cases("v1"))
def test_v1_ctc_loss_and_gradient_match_tensorflow(m):
    k = m["key"]
    def fn(x):
        return tf.compat.v1.nn.ctc_loss(sparse(k), x, F[k + "_seq"], **m["kwargs"])
    loss, dx = loss_and_grad(fn, F[k + "_x"], F[k + "_g"])
    assert loss.dtype == F[k + "_loss"].dtype
    close(loss, F[k + "_loss"])
    close(dx, F[k + "_dx"])


@pytest.mark.parametrize("m", cases("v2s"))
def test_sparse_label_ctc_loss_matches_tensorflow(m):
    k = m["key"]
    fn = lambda x: tf.nn.ctc_loss(sparse(k), x, None, F[k + "_seq"],  # noqa: E731
                                  logits_time_major=m["major"], blank_index=m["blank"])
    loss, dx = loss_and_grad(fn, F[k + "_x"], F[k + "_g"])
    close(loss, F[k + "_loss"])
    close(dx, F[k + "_dx"])
    loss, dx = traced(fn)(F[k + "_x"], F[k + "_g"])
    close(loss, F[k + "_loss"])
    close(dx, F[k + "_dx"])


def _dense_fn(m):
    k = m["key"]
    kw = {"logits_time_major": m["major"]}
    if m["blank"] is not None:
        kw["blank_index"] = m["blank"]
    if m["unique"]:
        kw["unique"] = (F[k + "_uy"], F[k + "_uidx"])
    return lambda x: tf.nn.ctc_loss(F[k + "_labels"], x, F[k + "_lens"], F[k + "_gl"], **kw)


@pytest.mark.parametrize("m", cases("dense"))
def test_dense_label_ctc_loss_matches_tensorflow(m):
    # Padding, empty and too-long labels, logit lengths of 0 and beyond the
    # frames, out-of-range labels: TensorFlow's values (its finite log 0
    # gives losses near 707 where no alignment exists).
    k = m["key"]
    x = F[k + "_x"]
    tol = 1e-2 if x.dtype == np.float16 else 2e-5
    loss, dx = loss_and_grad(_dense_fn(m), x, F[k + "_g"])
    assert loss.dtype == x.dtype and dx.dtype == x.dtype
    close(loss, F[k + "_loss"], tol)
    close(dx, F[k + "_dx"], tol)


@pytest.mark.parametrize("k", ["dense_1", "dense_2", "dense_5"])
def test_dense_label_ctc_loss_in_tf_function(k):
    m = next(c for c in META if c["key"] == k)
    loss, dx = traced(_dense_fn(m))(F[k + "_x"], F[k + "_g"])
    close(loss, F[k + "_loss"])
    close(dx, F[k + "_dx"])


def test_v1_ctc_loss_in_tf_function():
    m = next(c for c in META if c["key"] == "v1_1")
    k = m["key"]
    loss, dx = traced(lambda x: tf.compat.v1.nn.ctc_loss(sparse(k), x, F[k + "_seq"]))(
        F[k + "_x"], F[k + "_g"])
    close(loss, F[k + "_loss"])
    close(dx, F[k + "_dx"])


def test_dense_and_sparse_labels_give_the_same_loss():
    # Two algorithms (TensorFlow's kernel and its batched forward-backward)
    # for one quantity.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 3, 6)).astype(np.float32)
    dense = np.array([[1, 2, 2, 0], [5, 4, 3, 1], [3, 0, 0, 0]], np.int32)
    lens = [3, 4, 1]
    sp = tf.sparse.from_dense(dense)
    a, ga = loss_and_grad(lambda z: tf.nn.ctc_loss(dense, z, lens, [9, 8, 9]), x,
                          np.ones(3, np.float32))
    b, gb = loss_and_grad(lambda z: tf.nn.ctc_loss(sp, z, None, [9, 8, 9], blank_index=0), x,
                          np.ones(3, np.float32))
    close(a, b, 1e-5)
    close(ga, gb, 1e-5)


def test_ctc_loss_of_a_single_path_is_its_negative_log_probability():
    # One frame per label and no room for blanks: the only alignment is the
    # labels themselves.
    x = np.log(np.array([[[0.1, 0.6, 0.3]], [[0.2, 0.1, 0.7]]], np.float32))
    loss = tf.nn.ctc_loss([[1, 2]], x, [2], [2])
    close(loss, [-np.log(0.6 * 0.7)], 1e-6)
    loss = tf.compat.v1.nn.ctc_loss(tf.SparseTensor([[0, 0], [0, 1]], [0, 1], [1, 2]), x, [2])
    close(loss, [-np.log(0.1 * 0.1)], 1e-6)


def test_v1_ctc_loss_second_derivative_is_refused():
    x = tf.constant(F["v1_0_x"])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.compat.v1.nn.ctc_loss(sparse("v1_0"), x, F["v1_0_seq"])
        g = inner.gradient(loss, x)
    with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: Currently "
                       "there is no way to take the second  derivative of ctc_loss"):
        outer.gradient(g, x)


# --- decoders --------------------------------------------------------------------------

def _check_sparse(d, k, suffix=""):
    np.testing.assert_array_equal(d.indices.numpy(), F[f"{k}_ind{suffix}"])
    np.testing.assert_array_equal(d.values.numpy(), F[f"{k}_val{suffix}"])
    np.testing.assert_array_equal(d.dense_shape.numpy(), F[f"{k}_shape{suffix}"])
    assert d.indices.dtype == tf.int64 and d.values.dtype == tf.int64


@pytest.mark.parametrize("m", cases("greedy"))
def test_greedy_decoder_matches_tensorflow(m):
    k = m["key"]
    (d,), lp = tf.nn.ctc_greedy_decoder(F[k + "_x"], F[k + "_seq"], **m["kwargs"])
    _check_sparse(d, k)
    np.testing.assert_array_equal(lp.numpy(), F[k + "_lp"])   # sums of logits, in order
    (d,), lp = tf.function(lambda x, s: tf.nn.ctc_greedy_decoder(x, s, **m["kwargs"]))(
        F[k + "_x"], F[k + "_seq"])
    _check_sparse(d, k)


@pytest.mark.parametrize("m", cases("beam"))
def test_beam_search_decoder_matches_tensorflow(m):
    # Integer logits make many paths equally probable: which ones stay in
    # the beam and their order are TensorFlow's TopN's.
    k = m["key"]
    fn = tf.compat.v1.nn.ctc_beam_search_decoder if m["v1"] else tf.nn.ctc_beam_search_decoder
    ds, lp = fn(F[k + "_x"], F[k + "_seq"], beam_width=m["beam_width"],
                top_paths=m["top_paths"])
    assert len(ds) == m["top_paths"]
    for p, d in enumerate(ds):
        _check_sparse(d, k, p)
    assert lp.dtype == F[k + "_x"].dtype
    np.testing.assert_allclose(lp.numpy(), F[k + "_lp"], rtol=1e-6)


def test_beam_search_decoder_in_tf_function():
    k = "beam_4"
    fn = tf.function(lambda x, s: tf.nn.ctc_beam_search_decoder(x, s, beam_width=25,
                                                                top_paths=5))
    ds, lp = fn(F[k + "_x"], F[k + "_seq"])
    for p, d in enumerate(ds):
        _check_sparse(d, k, p)
    np.testing.assert_allclose(lp.numpy(), F[k + "_lp"], rtol=1e-6)


def test_greedy_decode_of_hand_made_logits():
    inf = float("inf")
    # TensorFlow's docstring example: blank 1; repeats merge, blanks split.
    logits = tf.constant([[[0., -inf, -inf], [-2.3, -inf, -0.1]],
                          [[-inf, -0.5, -inf], [-inf, -inf, -0.1]],
                          [[-inf, -inf, -inf], [-0.1, -inf, -2.3]]])
    (d,), lp = tf.nn.ctc_greedy_decoder(logits, [2, 3], blank_index=1)
    np.testing.assert_array_equal(d.indices.numpy(), [[0, 0], [1, 0], [1, 1]])
    np.testing.assert_array_equal(d.values.numpy(), [0, 2, 0])
    np.testing.assert_array_equal(d.dense_shape.numpy(), [2, 2])
    close(lp, [[0.5], [0.3]], 1e-6)   # minus the sum of the best logits
    # A B B * B * B with blank last: A B B B merged, A B B B B not.
    x = np.full((7, 1, 3), -5.0, np.float32)
    for t, c in enumerate([0, 1, 1, 2, 1, 2, 1]):
        x[t, 0, c] = 0
    x[2, 0, 1] = 0.5
    for merge, want in ((True, [0, 1, 1, 1]), (False, [0, 1, 1, 1, 1])):
        (d,), _ = tf.nn.ctc_greedy_decoder(x, [7], merge_repeated=merge)
        assert d.values.numpy().tolist() == want


def test_beam_search_of_graves_example_beats_the_best_path():
    # GravesTh Fig. 7.5: P(-) = 0.42 but P(a) = 0.58.
    x = np.log(np.array([[[0.3, 0.7]], [[0.4, 0.6]]], np.float32))
    (d,), lp = tf.nn.ctc_beam_search_decoder(x, [2], beam_width=2)
    assert d.values.numpy().tolist() == [0]
    close(lp, [[np.log(0.58)]], 1e-6)
    ds, lp = tf.nn.ctc_beam_search_decoder(x, [2], beam_width=2, top_paths=2)
    assert [s.values.numpy().tolist() for s in ds] == [[0], []]
    close(lp, [[np.log(0.58), np.log(0.42)]], 1e-6)
    (d,), _ = tf.nn.ctc_greedy_decoder(x, [2])
    assert d.values.numpy().tolist() == []


def test_beam_search_sorts_ties_as_libstdcxx():
    # More than 16 entries take introsort's partitions; equal keys end in the
    # order libstdc++'s std::sort and make_heap + sort_heap give them (from
    # a C++ program).
    class E:
        def __init__(self, v, i):
            self.n_total, self.i = v, i
    vals = [3, 1, 2, 2, 5, 1, 0, 2, 3, 3, 1, 4, 2, 0, 5, 5, 1, 2, 3, 0, 4, 2, 1]
    items = [E(float(v), i) for i, v in enumerate(vals)]
    ctc_beam_search._std_sort(items)
    assert [e.i for e in items] == [4, 14, 15, 20, 11, 0, 8, 9, 18, 2, 3, 21, 7, 12, 17, 22,
                                    16, 10, 5, 1, 13, 19, 6]
    items = [E(float(v), i) for i, v in enumerate(vals)]
    ctc_beam_search._make_heap(items, len(items))
    ctc_beam_search._sort_heap(items, len(items))
    assert [e.i for e in items] == [4, 15, 14, 11, 20, 8, 9, 18, 0, 7, 17, 3, 21, 12, 2, 16,
                                    10, 22, 1, 5, 19, 6, 13]


# --- label helpers ---------------------------------------------------------------------

def test_ctc_unique_labels_and_collapse_repeated_match_tensorflow():
    y, idx = tf.nn.ctc_unique_labels(F["labels_in"])
    assert y.dtype == tf.int64 and idx.dtype == tf.int32
    np.testing.assert_array_equal(y.numpy(), F["unique_y"])
    np.testing.assert_array_equal(idx.numpy(), F["unique_idx"])
    labels, lens = tf.nn.collapse_repeated(F["labels_in"], [5, 1, 4, 5])
    np.testing.assert_array_equal(labels.numpy(), F["collapse_labels"])
    np.testing.assert_array_equal(lens.numpy(), F["collapse_len"])
    y, idx = tf.function(tf.nn.ctc_unique_labels)(F["labels_in"])
    np.testing.assert_array_equal(y.numpy(), F["unique_y"])


# --- errors ----------------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((4, 2, 5)).astype(np.float32)
SP = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2])


def _v1(indices, values, seq, **kw):
    return tf.compat.v1.nn.ctc_loss(tf.SparseTensor(indices, values, [2, 3]), X, seq, **kw)


@pytest.mark.parametrize("fn,cls,msg", [
    (lambda: _v1([[0, 0], [1, 0]], [1, 2], [5, 4]), "InvalidArgumentError",
     "sequence_length(0) <= 4 [Op:CTCLoss]"),
    (lambda: _v1([[0, 0], [1, 0]], [1, 2], [-1, 4]), "InvalidArgumentError", "seq_len(0) < 0"),
    (lambda: _v1([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 2, 3, 1], [2, 4]),
     "InvalidArgumentError", "Not enough time for target transition sequence (required: 3, "
     "available: 2)0You can turn this error into a warning by using the flag "
     "ignore_longer_outputs_than_inputs"),
    (lambda: _v1([[0, 0]], [1], [4, 4]), "InvalidArgumentError",
     "Labels length is zero in batch 1"),
    (lambda: _v1([[0, 0], [0, 1], [1, 0]], [4, 1, 1], [4, 4]), "InvalidArgumentError",
     "Saw a non-null label (index >= num_classes - 1) following a null label, batch: 0 "
     "num_classes: 5 labels: 4,1 labels seen so far: "),
    (lambda: _v1([[0, 0], [1, 0]], [-1, 1], [4, 4]), "InvalidArgumentError",
     "All labels must be nonnegative integers, batch: 0 labels: -1"),
    (lambda: _v1([[0, 1], [0, 0], [1, 0]], [1, 2, 3], [4, 4]), "InvalidArgumentError",
     "label SparseTensor is not valid: indices[1] = [0,0] is out of order."),
    (lambda: tf.compat.v1.nn.ctc_loss(SP, X, [4, 4, 4]), "InvalidArgumentError",
     "len(sequence_length) != batch_size.  len(sequence_length):  3 batch_size: 2"),
    (lambda: tf.compat.v1.nn.ctc_loss(SP, X[0], [4, 4]), "InvalidArgumentError",
     "inputs is not a 3-Tensor"),
    (lambda: tf.compat.v1.nn.ctc_loss([[1]], X, [4, 4]), "TypeError",
     "Expected argument `labels` to be a SparseTensor. Received labels=[[1]] of type: list"),
    (lambda: tf.compat.v1.nn.ctc_loss(SP, X, logits=X, sequence_length=[4, 4]), "ValueError",
     "Cannot specify both 'inputs' and 'logits'."),
    (lambda: tf.compat.v1.nn.ctc_loss(SP, X, tf.constant([4, 4], tf.int64)),
     "InvalidArgumentError", "cannot compute CTCLoss as input #3(zero-based) was expected to "
     "be a int32 tensor but is a int64 tensor"),
    (lambda: tf.nn.ctc_loss(SP, X, None, [4, 4]), "ValueError",
     "Argument `blank_index` must be provided when `labels` is a `SparseTensor`."),
    (lambda: tf.nn.ctc_loss([[1, 2], [3, 0]], X.astype(np.float64), [2, 1], [4, 4]),
     "InvalidArgumentError", "cannot compute Mul as input #1(zero-based) was expected to be a "
     "double tensor but is a float tensor"),
    (lambda: tf.nn.ctc_loss([[1., 2.]], X[:, :1], [2], [4]), "InvalidArgumentError",
     "Value for attr 'TI' of float is not in the list of allowed values: uint8, int8, int32, "
     "int64"),
    (lambda: tf.nn.ctc_greedy_decoder(X, [4, 3], blank_index=5), "InvalidArgumentError",
     "blank_index expected to be between -5 and 4 but was 5"),
    (lambda: tf.nn.ctc_greedy_decoder(X, [5, 3]), "FailedPreconditionError",
     "sequence_length(0) <= 4"),
    (lambda: tf.nn.ctc_greedy_decoder(X, [4]), "FailedPreconditionError",
     "len(sequence_length) != batch_size.  len(sequence_length):  1 batch_size: 2"),
    (lambda: tf.nn.ctc_greedy_decoder(np.zeros((0, 2, 5), np.float32), [0, 0]),
     "InvalidArgumentError", "inputs must not be empty"),
    (lambda: tf.nn.ctc_greedy_decoder(tf.constant(X, tf.float16), [4, 3]),
     "InvalidArgumentError", "Value for attr 'T' of half is not in the list of allowed "
     "values: float, double"),
    (lambda: tf.nn.ctc_greedy_decoder(X, tf.constant([4, 3], tf.int64)), "InvalidArgumentError",
     "cannot compute CTCGreedyDecoder as input #1(zero-based) was expected to be a int32 "
     "tensor but is a int64 tensor"),
    (lambda: tf.nn.ctc_beam_search_decoder(X, [4, 3], beam_width=2, top_paths=3),
     "InvalidArgumentError", "requested more paths than the beam width."),
    (lambda: tf.nn.ctc_beam_search_decoder(X, [0, 3], beam_width=3, top_paths=2),
     "InvalidArgumentError", "Less leaves in the beam search than requested."),
    (lambda: tf.nn.ctc_beam_search_decoder(X, [4, 3], beam_width=0), "InvalidArgumentError",
     "Value for attr 'beam_width' of 0 must be at least minimum 1"),
])
def test_errors_match_tensorflow(fn, cls, msg):
    with pytest.raises({"TypeError": TypeError, "ValueError": ValueError}.get(cls) or
                       getattr(tf.errors, cls)) as e:
        fn()
    assert msg in str(e.value)


def test_graph_errors_match_tensorflow():
    with pytest.raises(TypeError, match="Input 'sequence_length' of 'CTCGreedyDecoder' Op has "
                       "type int64 that does not match expected type of int32."):
        tf.function(lambda x: tf.nn.ctc_greedy_decoder(x, tf.constant([4, 3], tf.int64)))(X)
    with pytest.raises(TypeError, match="Input 'y' of 'Mul' Op has type float32 that does not "
                       "match type float64 of argument 'x'."):
        tf.function(lambda x: tf.nn.ctc_loss([[1, 2], [3, 0]], x, [2, 1], [4, 4]))(
            X.astype(np.float64))
    with pytest.raises(ValueError, match="Attr 'top_paths' of 'CTCBeamSearchDecoder' Op passed "
                       "0 less than minimum 1."):
        tf.function(lambda x: tf.nn.ctc_beam_search_decoder(x, [4, 3], top_paths=0))(X)


def test_static_shapes_in_tf_function():
    @tf.function(input_signature=[tf.TensorSpec([None, None, 5]),
                                  tf.TensorSpec([None], tf.int32)])
    def f(x, lens):
        (d,), lp = tf.nn.ctc_greedy_decoder(x, lens)
        ds, lpb = tf.nn.ctc_beam_search_decoder(x, lens, beam_width=3, top_paths=2)
        loss = tf.nn.ctc_loss(tf.ones([tf.shape(x)[1], 2], tf.int32), x,
                              tf.fill([tf.shape(x)[1]], 2), lens)
        assert d.indices.shape.as_list() == [None, 2] and d.dense_shape.shape == [2]
        assert lp.shape.as_list() == [None, 1] and lpb.shape.as_list() == [None, 2]
        assert len(ds) == 2 and loss.shape.as_list() == [None]
        return loss
    f.get_concrete_function()


# --- Keras --------------------------------------------------------------------------------

@pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                    reason="keras not installed (pip install rillflow[keras])")
def test_keras_ctc_loss_and_decode_match_keras_on_tensorflow():
    # Keras' own test values (keras/src/ops/nn_test.py), computed with
    # tf.nn.ctc_loss, ctc_greedy_decoder and ctc_beam_search_decoder.
    code = textwrap.dedent("""
        import json
        import numpy as np
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        from keras import ops
        labels = np.array([[1, 2, 1], [1, 2, 2]])
        outputs = np.array([[[0.4, 0.8, 0.4], [0.2, 0.8, 0.3], [0.9, 0.4, 0.5]],
                            [[0.4, 0.8, 0.4], [0.2, 0.3, 0.3], [0.4, 0.3, 0.2]]])
        loss = ops.ctc_loss(labels, outputs, np.array([3, 2]), np.array([3, 2]))
        x = np.array([[[0.1, 0.4, 0.2, 0.4], [0.3, -0.3, 0.4, 0.2], [0.3, 0.2, 0.4, 0.3]],
                      [[0.7, 0.4, 0.3, 0.2], [0.3, 0.3, 0.4, 0.1], [0.6, -0.1, 0.1, 0.5]],
                      [[0.1, 0.4, 0.2, 0.7], [0.3, 0.3, -0.2, 0.7], [0.3, 0.2, 0.4, 0.1]]])
        g, gs = ops.ctc_decode(x, sequence_lengths=[3, 3, 1], strategy="greedy", mask_index=0)
        b, bs = ops.ctc_decode(x, sequence_lengths=[3, 3, 1], strategy="beam_search",
                               beam_width=4, top_paths=2, mask_index=0)
        print(json.dumps([np.asarray(v).tolist() for v in (loss, g, gs, b, bs)]))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("KERAS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    loss, g, gs, b, bs = json.loads(r.stdout.strip().splitlines()[-1])
    close(loss, [3.4411672, 1.91680186], 1e-6)
    assert g == [[[1, 2, -1], [2, -1, -1], [3, -1, -1]]]
    close(gs, [[-1.2], [-1.7], [-0.7]], 1e-6)
    assert b == [[[1, 2, -1], [2, -1, -1], [3, -1, -1]], [[2, -1, -1], [3, -1, -1],
                                                         [1, -1, -1]]]
    close(bs, [[-2.426537, -2.435596], [-2.127681, -2.182338], [-1.063386, -1.363386]], 1e-6)


@pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                    reason="keras not installed (pip install rillflow[keras])")
def test_keras_model_trained_with_ctc_loss_follows_tensorflow():
    # The program tools/tf_ctc_fixtures.py ran on TensorFlow (KERAS_FIT).
    code = textwrap.dedent("""
        import json, sys
        sys.path.insert(0, "tools")
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import tf_ctc_fixtures
        scope = {}
        exec(tf_ctc_fixtures.KERAS_FIT, scope)
        print(json.dumps(scope["history"]))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("KERAS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    np.testing.assert_allclose(json.loads(r.stdout.strip().splitlines()[-1]),
                               F["keras_fit_loss"], rtol=1e-5)

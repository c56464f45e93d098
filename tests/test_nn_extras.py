"""The tf.nn / tf.random leftovers of issue 22 against TensorFlow 2.21: the
cases in tools/tf_nn_extras_fixtures.py, recorded by it into
tests/data/tf_nn_extras.npz, must give TensorFlow's values (the seeded
samplers' exact candidates), gradients, dtypes, shapes and errors."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_nn_extras_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_nn_extras.npz"))


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tf.random.set_seed(None)


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    if name.startswith("webp") and importlib.util.find_spec("PIL") is None:
        pytest.skip("decoding WebP needs Pillow (pip install 'rillflow[image]')")
    fixtures.CASES.check(name, tf, _DATA)


def test_learned_unigram_learns_the_true_classes():
    # Class 3 as the only true class, many times: it comes to dominate.
    tc = np.full((50, 1), 3, np.int64)
    for _ in range(20):
        s = tf.random.learned_unigram_candidate_sampler(tc, 1, 8, False, 10, seed=11)
    counts = s.sampled_expected_count.numpy()
    assert np.all(s.sampled_candidates.numpy() == 3)
    # The 20th run samples before its own update: 1 + 19 * 50 of 10 + 19 * 50.
    np.testing.assert_allclose(counts, 8 * 951 / 960, rtol=1e-6)


def test_unseeded_samplers_are_distributed_as_asked():
    tc = np.zeros((1, 1), np.int64)
    draws = np.concatenate([tf.random.uniform_candidate_sampler(tc, 1, 100, False, 7)[0].numpy()
                            for _ in range(30)])
    assert set(draws.tolist()) == set(range(7))
    assert abs(np.bincount(draws).std() / draws.size * 7) < 0.1


def test_fractional_pools_unseeded_regions_are_valid():
    x = np.random.RandomState(0).randn(1, 23, 17, 2).astype(np.float32)
    for pseudo in (False, True):
        r = tf.nn.fractional_max_pool(x, [1, 2.3, 1.7, 1], pseudo_random=pseudo)
        for seq, n in ((r.row_pooling_sequence.numpy(), 23), (r.col_pooling_sequence.numpy(), 17)):
            assert seq[0] == 0 and seq[-1] == n
            assert set(np.diff(seq).tolist()) <= {n // (len(seq) - 1), n // (len(seq) - 1) + 1}


def test_fractional_pool_second_order_gradients():
    x = tf.Variable(np.random.RandomState(1).randn(1, 7, 7, 2))
    for fn in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = fn(x, [1, 1.5, 1.5, 1], seed=3)[0]
                loss = tf.reduce_sum(y * y)
            g = inner.gradient(loss, x)
            gsum = tf.reduce_sum(g * g)
        gg = outer.gradient(gsum, x)
        assert gg is not None and gg.shape == x.shape


def test_rnn_cell_wrappers_around_keras_cells():
    """With the keras extra: the wrappers around Keras 3 cells give
    TensorFlow 2.21's outputs (values recorded from it), in a child process
    (importing Keras fixes its backend)."""
    import importlib.util
    import subprocess
    import textwrap
    if importlib.util.find_spec("keras") is None:
        pytest.skip("keras not installed (pip install rillflow[keras])")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = textwrap.dedent("""
        from rillflow.compat import tensorflow_shim
        tensorflow_shim.install()
        import numpy as np
        import tensorflow as tf
        import keras
        x = np.arange(6, dtype=np.float32).reshape(2, 3) / 5
        cell = keras.layers.SimpleRNNCell(3, kernel_initializer="ones",
                                          recurrent_initializer="ones")
        out, state = tf.nn.RNNCellResidualWrapper(cell)(x, [tf.zeros([2, 3])])
        np.testing.assert_allclose(out.numpy(), [[0.53705, 0.73705, 0.93705],
                                                 [1.58367, 1.78368, 1.98368]], atol=2e-5)
        cell = keras.layers.SimpleRNNCell(4, kernel_initializer="ones",
                                          recurrent_initializer="ones")
        w = tf.nn.RNNCellDropoutWrapper(cell, input_keep_prob=0.5, output_keep_prob=0.7,
                                        state_keep_prob=0.6, seed=1)
        out, state = w(x, [tf.ones([2, 4])])
        np.testing.assert_allclose(out.numpy()[0], [1.42848] * 4, atol=2e-5)
        np.testing.assert_allclose(state[0].numpy()[0], [1.66657, 1.66657, 0.0, 1.66657],
                                   atol=2e-5)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("KERAS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=root, timeout=600)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


def test_decode_webp_animation_without_alpha():
    # TensorFlow 2.21 mishandles these (RGBA frames written as RGB); rillflow
    # gives the RGB frames.
    if importlib.util.find_spec("PIL") is None:
        pytest.skip("decoding WebP needs Pillow (pip install 'rillflow[image]')")
    with open(os.path.join(tf_fixture_cases.DATA, "webp", "webp_animated_rgb.webp"),
              "rb") as f:
        data = f.read()
    frames = tf.io.decode_webp(data).numpy()
    a = (np.arange(5 * 7 * 4).reshape(5, 7, 4) * 7 % 256).astype(np.uint8)[..., :3]
    np.testing.assert_array_equal(frames, np.stack([a, 255 - a]))
    assert tf.image.decode_image(data, expand_animations=False).shape == (5, 7, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be 4 channel RGBA"):
        tf.io.decode_webp(data, channels=3)


def test_generate_bounding_box_proposals():
    # TensorFlow 2.21 has no CPU kernel for this op; the expected values
    # follow its GPU kernel by hand. One image, 2 x 1 positions, 2 anchors.
    scores = np.array([0.9, 0.8, 0.7, 0.95], np.float32).reshape(1, 2, 1, 2)
    anchors = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [20, 20, 32, 40], [1, 1, 11, 11]],
                       np.float32).reshape(2, 1, 8)
    deltas = np.zeros([1, 2, 1, 8], np.float32)
    deltas[0, 0, 0, 4:] = [0.1, 0.0, 0.0, np.log(2.0)]   # anchor 1: moved down, twice wide
    info = [[100.0, 100.0, 1.0, 0.0, 0.0]]

    def proposals(**kw):
        r = tf.image.generate_bounding_box_proposals(scores, deltas, info, anchors, **kw)
        return r.rois.numpy()[0], r.roi_probabilities.numpy()[0]
    # By score: box 3 [1, 1, 11, 11]; box 0 [0, 0, 10, 10] (IoU with box 3:
    # 81 / 119); box 1: center x 5, width 20 -> x in [-5, 15], clipped to 0,
    # y moved by 0.1 * 10 -> [1, 11] (IoU 100 / 150 with box 3); box 2.
    rois, probs = proposals(nms_threshold=0.7, min_size=2, post_nms_topn=5)
    np.testing.assert_allclose(probs, [0.95, 0.9, 0.8, 0.7, 0], rtol=1e-6)
    np.testing.assert_allclose(rois, [[1, 1, 11, 11], [0, 0, 10, 10], [1, 0, 11, 15],
                                      [20, 20, 32, 40], [0, 0, 0, 0]], rtol=1e-6, atol=1e-5)
    rois, probs = proposals(nms_threshold=0.5, min_size=2, post_nms_topn=3)
    np.testing.assert_allclose(probs, [0.95, 0.7, 0], rtol=1e-6)
    # min_size drops boxes with a side below it; pre_nms_topn keeps the best.
    _, probs = proposals(min_size=11, post_nms_topn=2)
    np.testing.assert_allclose(probs, [0.7, 0], rtol=1e-6)
    _, probs = proposals(min_size=1, pre_nms_topn=1, post_nms_topn=2)
    np.testing.assert_allclose(probs, [0.95, 0], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="nms_threshold should be"):
        proposals(nms_threshold=1.5)


def test_compat_v1_names_are_the_v2_objects():
    # As in TensorFlow 2.21 (the v1 nce_loss, sampled_softmax_loss and
    # fractional pools are TensorFlow 1's functions, not added).
    v1 = tf.compat.v1
    for n in ("uniform_candidate_sampler", "log_uniform_candidate_sampler",
              "learned_unigram_candidate_sampler", "fixed_unigram_candidate_sampler",
              "all_candidate_sampler"):
        assert getattr(v1.nn, n) is getattr(tf.random, n) is getattr(v1.random, n)
    assert v1.nn.compute_accidental_hits is tf.nn.compute_accidental_hits
    for n in ("random_index_shuffle", "conv", "extract_volume_patches",
              "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"):
        assert getattr(v1, n) is getattr(tf, n)
    assert v1.random.experimental.index_shuffle is tf.random.experimental.index_shuffle
    assert v1.image.decode_webp is tf.io.decode_webp
    assert v1.image.generate_bounding_box_proposals is tf.image.generate_bounding_box_proposals


def test_lrn_windows_next_to_a_large_channel_are_summed_directly():
    # Window sums taken as differences of running sums cancelled next to a
    # large channel: [3e4, 10, 10, ...] gave 0.395 where the windows give
    # 10 / sqrt(500.001) = 0.447 (TensorFlow 0.44721311).
    x = np.full((2, 3, 1, 12), 10.0, np.float32)
    x[..., 0] = 3e4
    x[1, 2, 0, 5] = -2e3
    for r, bias, alpha, beta in ((2, 1e-3, 1.0, 0.5), (4, 2.0, 0.1, 0.75), (20, 1.0, 1e-3, 1.0)):
        x64 = x.astype(np.float64)
        d = np.arange(12)
        sums = np.stack([np.sum(x64[..., max(0, j - r):j + r + 1] ** 2, axis=-1) for j in d], -1)
        want = x64 / (bias + alpha * sums) ** beta
        got = tf.nn.local_response_normalization(tf.constant(x), r, bias, alpha, beta).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6)
    # Its gradient reads the same sums.
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_sum(tf.nn.lrn(xt, 2, 1.0, 1e-3, 0.75) * tf.range(12, dtype=tf.float32))
    g = tape.gradient(y, xt).numpy()

    def total(v):
        sums = np.stack([np.sum(v[..., max(0, j - 2):j + 3] ** 2, axis=-1) for j in range(12)], -1)
        return np.sum(v / (1.0 + 1e-3 * sums) ** 0.75 * np.arange(12))
    for j in (4, 6, 9):
        xp, xm = x.astype(np.float64), x.astype(np.float64)
        xp[0, 0, 0, j] += 1e-3
        xm[0, 0, 0, j] -= 1e-3
        np.testing.assert_allclose(g[0, 0, 0, j], (total(xp) - total(xm)) / 2e-3, rtol=1e-4)

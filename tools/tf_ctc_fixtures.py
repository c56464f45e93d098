"""Regenerates tests/data/tf_ctc.npz: TensorFlow 2.21's outputs for the CTC
ops (tf.compat.v1.nn.ctc_loss, tf.nn.ctc_loss with sparse and dense labels,
their gradients, the greedy and beam search decoders, ctc_unique_labels,
collapse_repeated, a Keras model trained with keras.ops.ctc_loss) and for
tf.reverse_sequence, tf.nn.depth_to_space and
tf.nn.space_to_depth with their gradients, which tests/test_ctc.py and
tests/test_rearrange_ops.py compare with rillflow's.

Each case stores its inputs and outputs under a key prefix; "meta" is a
JSON list of the cases and their arguments.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_ctc_fixtures.py
"""
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_ctc.npz")


def sparse_labels(rng, lengths, low, high, repeats=False):
    """SparseTensor components of random label rows of the given lengths."""
    idx, vals = [], []
    for b, n in enumerate(lengths):
        row = rng.integers(low, high, n)
        if repeats and n > 1:
            row[1] = row[0]
        for i, v in enumerate(row):
            idx.append([b, i])
            vals.append(int(v))
    shape = [len(lengths), max(lengths)]
    return (np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int32),
            np.array(shape, np.int64))


def dense_labels(rng, lengths, width, low, high, repeats=False):
    lab = np.zeros((len(lengths), width), np.int32)
    for b, n in enumerate(lengths):
        lab[b, :n] = rng.integers(low, high, n)
        if repeats and n > 1:
            lab[b, 1] = lab[b, 0]
    return lab


def loss_and_grad(fn, logits, rng):
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = fn(x)
    g = rng.standard_normal(loss.shape).astype(np.float32).astype(logits.dtype)
    dx = tape.gradient(loss, x, output_gradients=tf.constant(g))
    return loss.numpy(), g, dx.numpy()


def v1_cases(rng, out, meta):
    # (T, B, C, label lengths, seq lens, kwargs, dtype, repeats)
    cases = [
        (6, 3, 5, [2, 3, 1], [6, 5, 4], {}, "float32", False),
        (8, 4, 7, [3, 1, 4, 2], [8, 8, 6, 3], {}, "float32", True),
        (7, 3, 4, [3, 2, 2], [7, 6, 7], {"ctc_merge_repeated": False}, "float32", True),
        (7, 3, 4, [3, 2, 2], [7, 6, 7], {"preprocess_collapse_repeated": True}, "float32", True),
        (5, 3, 5, [4, 2, 6], [3, 5, 5], {"ignore_longer_outputs_than_inputs": True}, "float32",
         False),
        (6, 3, 5, [2, 3, 1], [6, 5, 4], {}, "float64", True),
        (6, 3, 5, [2, 3, 1], [6, 5, 4], {"time_major": False}, "float32", False),
        (12, 2, 30, [5, 8], [12, 11], {}, "float32", False),
        (9, 2, 6, [2, 3], [9, 9], {"scale": 30.0}, "float32", False),
    ]
    for i, (t, b, c, lens, seq, kw, dt, rep) in enumerate(cases):
        kw = dict(kw)
        scale = kw.pop("scale", 1.0)
        logits = (scale * rng.standard_normal((t, b, c))).astype(dt)
        if not kw.get("time_major", True):
            logits = np.ascontiguousarray(np.transpose(logits, (1, 0, 2)))
        ind, val, shp = sparse_labels(rng, lens, 0, c - 1, rep)

        def fn(x, ind=ind, val=val, shp=shp, seq=seq, kw=kw):
            return tf.compat.v1.nn.ctc_loss(tf.SparseTensor(ind, val, shp), x, seq, **kw)
        loss, g, dx = loss_and_grad(fn, logits, rng)
        k = f"v1_{i}"
        out.update({k + "_x": logits, k + "_ind": ind, k + "_val": val, k + "_shape": shp,
                    k + "_seq": np.array(seq, np.int32), k + "_loss": loss, k + "_g": g,
                    k + "_dx": dx})
        meta.append({"kind": "v1", "key": k, "kwargs": kw})
    # Special label sequences: all null (the kernel's uninitialized beta),
    # an impossible repeat (inf), a trailing null label.
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    for j, (ind, val, seq) in enumerate([
            ([[0, 0], [1, 0], [2, 0]], [4, 1, 2], [4, 4, 3]),
            ([[0, 0], [0, 1], [1, 0], [2, 0]], [1, 1, 3, 2], [2, 4, 3]),
            ([[0, 0], [0, 1], [1, 0], [2, 0]], [2, 4, 3, 2], [4, 4, 3])]):
        ind = np.array(ind, np.int64)
        val = np.array(val, np.int32)
        shp = np.array([3, int(ind[:, 1].max()) + 1], np.int64)
        loss, g, dx = loss_and_grad(
            lambda z, ind=ind, val=val, shp=shp, seq=seq: tf.compat.v1.nn.ctc_loss(
                tf.SparseTensor(ind, val, shp), z, seq), x, rng)
        k = f"v1s_{j}"
        out.update({k + "_x": x, k + "_ind": ind, k + "_val": val, k + "_shape": shp,
                    k + "_seq": np.array(seq, np.int32), k + "_loss": loss, k + "_g": g,
                    k + "_dx": dx})
        meta.append({"kind": "v1", "key": k, "kwargs": {}})


def v2_sparse_cases(rng, out, meta):
    for i, (blank, major) in enumerate([(0, True), (2, True), (-1, False), (4, True),
                                        (-3, False)]):
        t, b, c = 7, 3, 5
        logits = rng.standard_normal((t, b, c)).astype(np.float32)
        if not major:
            logits = np.ascontiguousarray(np.transpose(logits, (1, 0, 2)))
        bi = blank % c
        ind, val, shp = sparse_labels(rng, [3, 2, 4], 0, c - 1)
        val = np.where(val >= bi, val + 1, val).astype(np.int32)   # labels other than blank
        seq = [7, 6, 7]
        loss, g, dx = loss_and_grad(
            lambda x: tf.nn.ctc_loss(tf.SparseTensor(ind, val, shp), x, None, seq,
                                     logits_time_major=major, blank_index=blank), logits, rng)
        k = f"v2s_{i}"
        out.update({k + "_x": logits, k + "_ind": ind, k + "_val": val, k + "_shape": shp,
                    k + "_seq": np.array(seq, np.int32), k + "_loss": loss, k + "_g": g,
                    k + "_dx": dx})
        meta.append({"kind": "v2s", "key": k, "blank": blank, "major": major})


def dense_cases(rng, out, meta):
    # (T, B, C, label lengths, width, logit lengths, blank, major, extra)
    cases = [
        (6, 3, 5, [2, 3, 1], 3, [6, 5, 4], None, True, None),
        (8, 4, 6, [3, 1, 4, 2], 5, [8, 8, 6, 3], 0, False, "repeats"),
        (7, 3, 5, [2, 3, 2], 4, [7, 7, 5], 2, True, None),
        (7, 3, 5, [2, 3, 2], 4, [7, 7, 5], -1, True, None),
        (7, 3, 5, [2, 3, 2], 3, [7, 7, 5], 4, False, "unique"),
        (5, 4, 5, [0, 3, 4, 6], 6, [5, 0, 2, 9], None, True, None),   # empty, too long, ...
        (5, 3, 5, [2, 2, 2], 2, [5, 5, 5], None, True, "out_of_range"),
        (6, 3, 5, [2, 3, 1], 3, [6, 5, 4], None, True, "float16"),
        (10, 2, 12, [4, 6], 6, [10, 9], 3, True, "unique"),
    ]
    for i, (t, b, c, lens, width, gl, blank, major, extra) in enumerate(cases):
        bi = 0 if blank is None else blank % c
        logits = rng.standard_normal((t, b, c)).astype(np.float32)
        if extra == "float16":
            logits = logits.astype(np.float16)
        if not major:
            logits = np.ascontiguousarray(np.transpose(logits, (1, 0, 2)))
        lab = dense_labels(rng, [min(n, width) for n in lens], width, 0, c - 1,
                           extra == "repeats")
        lab = np.where(lab >= bi, lab + 1, lab).astype(np.int32)
        for r, n in enumerate(lens):
            lab[r, min(n, width):] = 0
        if extra == "out_of_range":
            lab[0, 1] = c + 3
            lab[1, 0] = -2
        kw = {"logits_time_major": major}
        if blank is not None:
            kw["blank_index"] = blank
        uniq = None
        if extra == "unique":
            uniq = [u.numpy() for u in tf.nn.ctc_unique_labels(lab)]
            kw["unique"] = uniq
        loss, g, dx = loss_and_grad(
            lambda x: tf.nn.ctc_loss(lab, x, lens, gl, **kw), logits, rng)
        k = f"dense_{i}"
        out.update({k + "_x": logits, k + "_labels": lab, k + "_lens": np.array(lens, np.int32),
                    k + "_gl": np.array(gl, np.int32), k + "_loss": loss, k + "_g": g,
                    k + "_dx": dx})
        if uniq is not None:
            out[k + "_uy"], out[k + "_uidx"] = uniq
        meta.append({"kind": "dense", "key": k, "blank": blank, "major": major,
                     "unique": uniq is not None})


def greedy_cases(rng, out, meta):
    for i, (shape, merge, blank, seq, ints) in enumerate([
            ((6, 3, 5), True, None, [6, 4, 0], False),
            ((6, 3, 5), False, 0, [6, 5, 3], True),
            ((7, 2, 4), True, -2, [7, -1], True),
            ((5, 4, 6), True, 2, [5, 5, 1, 2], True),
            ((9, 2, 3), False, None, [9, 8], True)]):
        x = (rng.integers(0, 3, shape) if ints else rng.standard_normal(shape)).astype(np.float32)
        kw = {"merge_repeated": merge}
        if blank is not None:
            kw["blank_index"] = blank
        (d,), lp = tf.nn.ctc_greedy_decoder(x, seq, **kw)
        k = f"greedy_{i}"
        out.update({k + "_x": x, k + "_seq": np.array(seq, np.int32), k + "_ind": d.indices.numpy(),
                    k + "_val": d.values.numpy(), k + "_shape": d.dense_shape.numpy(),
                    k + "_lp": lp.numpy()})
        meta.append({"kind": "greedy", "key": k, "kwargs": kw})


def beam_cases(rng, out, meta):
    for i, (shape, bw, tp, seq, kind, v1) in enumerate([
            ((6, 3, 5), 3, 2, [6, 4, 2], "normal", False),
            ((8, 2, 4), 10, 4, [8, 7], "normal", False),
            ((7, 3, 6), 1, 1, [7, 7, 3], "normal", False),
            ((6, 2, 4), 4, 3, [6, 5], "ties", False),
            ((9, 2, 5), 25, 5, [9, 9], "ties", False),
            ((5, 2, 4), 6, 3, [5, 4], "normal", True),
            ((6, 2, 5), 3, 2, [6, 6], "float64", False),
            ((12, 2, 8), 40, 10, [12, 10], "ties", False),
            ((4, 1, 3), 100, 1, [4], "normal", False)]):
        if kind == "ties":
            x = rng.integers(0, 3, shape).astype(np.float32)
        else:
            x = rng.standard_normal(shape).astype(np.float64 if kind == "float64"
                                                  else np.float32)
        if v1:
            ds, lp = tf.compat.v1.nn.ctc_beam_search_decoder(x, seq, beam_width=bw, top_paths=tp,
                                                            merge_repeated=True)
        else:
            ds, lp = tf.nn.ctc_beam_search_decoder(x, seq, beam_width=bw, top_paths=tp)
        k = f"beam_{i}"
        out.update({k + "_x": x, k + "_seq": np.array(seq, np.int32), k + "_lp": lp.numpy()})
        for p, d in enumerate(ds):
            out.update({f"{k}_ind{p}": d.indices.numpy(), f"{k}_val{p}": d.values.numpy(),
                        f"{k}_shape{p}": d.dense_shape.numpy()})
        meta.append({"kind": "beam", "key": k, "beam_width": bw, "top_paths": tp, "v1": v1})


def label_cases(rng, out, meta):
    lab = np.array([[3, 4, 4, 3, 0], [1, 0, 0, 0, 0], [2, 2, 2, 5, 5], [7, 6, 5, 6, 7]],
                   np.int32)
    uy, uidx = tf.nn.ctc_unique_labels(lab)
    cl, cn = tf.nn.collapse_repeated(lab, [5, 1, 4, 5])
    out.update({"labels_in": lab, "unique_y": uy.numpy(), "unique_idx": uidx.numpy(),
                "collapse_labels": cl.numpy(), "collapse_len": cn.numpy()})


def rearrange_cases(rng, out, meta):
    for i, (shape, seq_axis, batch_axis, dt) in enumerate([
            ((4, 6, 3), 1, 0, "float32"), ((5, 3, 4), 0, 1, "float64"),
            ((2, 3, 5, 4), 2, 3, "int32"), ((3, 7), 1, 0, "float32"),
            ((2, 4, 3, 2, 3), 1, 4, "float32")]):
        x = (rng.standard_normal(shape) * 10).astype(dt)
        lens = rng.integers(0, shape[seq_axis] + 1, shape[batch_axis]).astype(np.int64)
        y = tf.reverse_sequence(x, lens, seq_axis=seq_axis, batch_axis=batch_axis)
        k = f"rs_{i}"
        out.update({k + "_x": x, k + "_lens": lens, k + "_y": y.numpy()})
        if dt.startswith("float"):
            _, g, dx = loss_and_grad(lambda z: tf.reverse_sequence(
                z, lens, seq_axis=seq_axis, batch_axis=batch_axis), x, rng)
            out.update({k + "_g": g, k + "_dx": dx})
        meta.append({"kind": "rs", "key": k, "seq_axis": seq_axis, "batch_axis": batch_axis})
    for i, (shape, bs) in enumerate([((2, 3, 4, 8), 2), ((1, 2, 2, 27), 3), ((3, 1, 5, 16), 4)]):
        x = rng.standard_normal(shape).astype(np.float32)
        y, g, dx = loss_and_grad(lambda z: tf.nn.depth_to_space(z, bs), x, rng)
        k = f"d2s_{i}"
        out.update({k + "_x": x, k + "_y": y, k + "_g": g, k + "_dx": dx})
        meta.append({"kind": "d2s", "key": k, "block_size": bs})
    for i, (shape, bs) in enumerate([((2, 4, 6, 3), 2), ((1, 6, 3, 2), 3), ((2, 8, 4, 1), 4)]):
        x = rng.standard_normal(shape).astype(np.float32)
        y, g, dx = loss_and_grad(lambda z: tf.nn.space_to_depth(z, bs), x, rng)
        k = f"s2d_{i}"
        out.update({k + "_x": x, k + "_y": y, k + "_g": g, k + "_dx": dx})
        meta.append({"kind": "s2d", "key": k, "block_size": bs})


KERAS_FIT = """
import numpy as np
import keras
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((6, 3)), keras.layers.Dense(
    5, kernel_initializer=keras.initializers.GlorotUniform(seed=1))])


def loss(y_true, y_pred):
    n = keras.ops.shape(y_true)[0]
    return keras.ops.ctc_loss(keras.ops.cast(y_true, "int32"), y_pred,
                              keras.ops.full((n,), 2, dtype="int32"),
                              keras.ops.full((n,), 6, dtype="int32"))


model.compile(optimizer="adam", loss=loss)
x = np.random.RandomState(0).randn(8, 6, 3).astype("float32")
y = np.random.RandomState(1).randint(1, 5, (8, 2))
history = model.fit(x, y, epochs=3, verbose=0, batch_size=4, shuffle=False).history["loss"]
"""


def keras_case(out):
    """Losses of a small Keras model trained with keras.ops.ctc_loss (the
    same program runs on rillflow in tests/test_ctc.py)."""
    scope = {}
    exec(KERAS_FIT, scope)
    out["keras_fit_loss"] = np.array(scope["history"])


def main():
    rng = np.random.default_rng(21)
    out, meta = {}, []
    for fn in (v1_cases, v2_sparse_cases, dense_cases, greedy_cases, beam_cases, label_cases,
               rearrange_cases):
        fn(rng, out, meta)
    keras_case(out)
    out["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()

"""GraphDefs written by TensorFlow 2.21, with inputs and TensorFlow's
outputs, for tests/test_graph_def_io.py (`tf.import_graph_def`,
`tf.io.write_graph`): each graph's binary GraphDef, its
`tf.io.write_graph` text, the values fed and the values fetched.

    /work/tfref/bin/python tools/tf_graph_def_fixtures.py
"""
import os
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "tf_graph_def.npz")


def _basic(tf):
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    w = tf.constant([[1.0], [2.5]], name="w")
    y = tf.matmul(x, w, name="y")
    z = tf.nn.relu(y - 3.0, name="z")
    s = tf.split(tf.constant([1, 2, 3, 4]), 2, name="sp")
    tf.add(s[0], s[1], name="t")
    tf.strings.join([tf.constant(["a\x00'\"\xff", "b", "c"]), tf.as_string(tf.cast(z[:, 0],
                                                                            tf.int64))],
                    separator="-", name="j")
    tf.reduce_sum(z, axis=0, keepdims=True, name="r")
    feeds = {"x:0": np.array([[1.0, 2.0], [3.0, 0.5], [-1.0, 4.0]], np.float32)}
    return feeds, ["z:0", "t:0", "sp:1", "j:0", "r:0"]


def _control(tf):
    x = tf.compat.v1.placeholder(tf.int32, [], name="x")
    c = tf.cond(x > 2, lambda: x * 10, lambda: x - 1, name="c")
    _, acc = tf.while_loop(lambda i, a: i < x, lambda i, a: (i + 1, a + i * 2),
                           [tf.constant(0), tf.constant(1)], name="loop")
    tf.identity(acc, name="acc")
    tf.identity(c, name="cv")
    return {"x:0": np.array(5, np.int32)}, ["cv:0", "acc:0"]


def _cnn(tf):
    rng = np.random.RandomState(0)
    x = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 3], name="image")
    k = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32), name="k")
    h = tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME")
    h = tf.nn.bias_add(h, tf.constant(rng.randn(4).astype(np.float32)))
    h, _, _ = tf.compat.v1.nn.fused_batch_norm(
        h, tf.constant(rng.rand(4).astype(np.float32) + 0.5), tf.constant(rng.randn(4).astype(
            np.float32)), tf.constant(rng.randn(4).astype(np.float32)),
        tf.constant(rng.rand(4).astype(np.float32) + 0.5), is_training=False)
    h = tf.nn.relu6(h)
    h = tf.nn.depthwise_conv2d(h, tf.constant(rng.randn(3, 3, 4, 1).astype(np.float32)),
                               [1, 2, 2, 1], "VALID")
    h = tf.nn.max_pool2d(tf.pad(h, [[0, 0], [1, 1], [1, 1], [0, 0]]), 2, 1, "VALID")
    a = tf.nn.avg_pool2d(h, 2, 2, "SAME")
    m = tf.reduce_mean(h, axis=[1, 2])
    flat = tf.concat([tf.reshape(a, [-1, 2 * 2 * 4]), m], axis=1)
    logits = tf.matmul(flat, tf.constant(rng.randn(20, 5).astype(np.float32))) + 0.1
    tf.nn.softmax(logits, name="probs")
    tf.argmax(logits, axis=1, name="label")
    tf.image.resize(x, [4, 4], name="small")
    return {"image:0": rng.rand(2, 8, 8, 3).astype(np.float32)}, ["probs:0", "label:0",
                                                                  "small/ResizeBilinear:0"]


def main():
    import tensorflow as tf
    data = {}
    for name, build in (("basic", _basic), ("control", _control), ("cnn", _cnn)):
        g = tf.Graph()
        with g.as_default():
            feeds, fetches = build(tf)
        with tf.compat.v1.Session(graph=g) as sess:
            outs = sess.run(fetches, {g.get_tensor_by_name(k): v for k, v in feeds.items()})
        gd = g.as_graph_def()
        with tempfile.TemporaryDirectory() as d:
            path = tf.io.write_graph(g, d, "g.pbtxt")
            with open(path, "rb") as f:
                text = f.read()
            path = tf.io.write_graph(g, d, "g.pb", as_text=False)
            with open(path, "rb") as f:
                binary = f.read()
        # Bytes as uint8 arrays: NumPy's bytes type drops trailing NULs.
        data[name + "__pb"] = np.frombuffer(gd.SerializeToString(), np.uint8)
        data[name + "__written_pb"] = np.frombuffer(binary, np.uint8)
        data[name + "__text"] = np.frombuffer(text, np.uint8)
        data[name + "__feeds"] = np.array(sorted(feeds))
        for k, v in feeds.items():
            data[name + "__feed__" + k] = v
        data[name + "__fetches"] = np.array(fetches)
        for k, v in zip(fetches, outs):
            a = np.asarray(v)
            data[name + "__out__" + k] = np.frombuffer(b"".join(a.reshape(-1)), np.uint8) \
                if a.dtype == object else a
            if a.dtype == object:
                data[name + "__outshape__" + k] = np.array(a.shape)
                data[name + "__outlens__" + k] = np.array([len(b) for b in a.reshape(-1)])
    np.savez_compressed(OUT, tf_version=np.array(tf.__version__), **data)
    print("wrote", OUT)


if __name__ == "__main__":
    main()

"""TensorFlow's results of `tf.queue` (FIFO, padding FIFO, priority and
random-shuffle queues: enqueue/dequeue in all forms, closing, names, static
shape checks and the kernels' errors, eagerly and in `tf.function`),
recorded for tests/test_queue.py.

    /work/tfref/bin/python tools/tf_queue_fixtures.py

A queue's name in error messages is its unique shared name (a process-wide
counter in TensorFlow), recorded as '?'.
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


def _err(fn):
    """`Class: message` of the exception `fn()` raises (first line, without
    node prefixes, op suffixes or the queue's unique name)."""
    try:
        fn()
    except Exception as e:  # the message is the recorded result
        msg = str(e).split("\n")[0]
        if msg.startswith("{{function_node "):
            msg = msg.split("}} ", 1)[-1]
        # (rillflow writes a function's node on the message's first line)
        msg = msg.split(" [Op:")[0].split(" [[{{node")[0].rstrip()
        msg = re.sub(r"Queue '\d+'", "Queue '?'", msg)
        return np.array(f"{type(e).__name__}: {msg}")
    return np.array("no error")


def _err_class(fn):
    """The class of the exception `fn()` raises (TensorFlow's message of an
    error in a function is a generic "Graph execution error")."""
    try:
        fn()
    except Exception as e:  # the class is the recorded result
        return np.array(type(e).__name__)
    return np.array("no error")


@case
def fifo_basics(tf):
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[2])
    q.enqueue(tf.constant([1, 2]))
    q.enqueue_many(tf.constant([[3, 4], [5, 6]]))
    out = [q.size(), np.array(q.name), np.array(str(q.dtypes)), np.array(str(q.shapes)),
           _err(lambda: q.enqueue(tf.constant([1, 2, 3]))),
           _err(lambda: q.enqueue_many(tf.constant([[1, 2, 3]]))),
           q.dequeue(), q.dequeue_many(2), q.is_closed()]
    q.close()
    out += [q.is_closed(), _err(q.dequeue), _err(lambda: q.enqueue(tf.constant([1, 2]))),
            _err(lambda: q.dequeue_many(2)), _err(lambda: q.dequeue_up_to(2)), q.size()]
    return out


@case
def fifo_names_and_tuples(tf):
    q = tf.queue.FIFOQueue(5, [tf.int32, tf.float32], names=["a", "b"])
    q.enqueue({"a": 1, "b": 2.0})
    out = [np.array(str(q.shapes)), np.array(str(q.names)),
           _err(lambda: q.enqueue([1, 2.0])), _err(lambda: q.enqueue({"a": 1})),
           q.dequeue(), _err(lambda: q.dequeue_many(1))]
    q3 = tf.queue.FIFOQueue(5, [tf.int32, tf.float32])
    q3.enqueue((1, 2.0))
    out += [q3.dequeue(), _err(lambda: q3.dequeue_many(1))]
    q3.enqueue_many(([1, 2], [3., 4.]))
    q3.close()
    out += [_err(lambda: q3.dequeue_up_to(5)), q3.dequeue(), q3.dequeue()]
    q4 = tf.queue.FIFOQueue(5, [tf.int32, tf.string], shapes=[[], [2]], names=["x", "y"])
    q4.enqueue_many({"x": [1, 2, 3], "y": [["a", "b"], ["c", "d"], ["e", "f"]]})
    out += [q4.dequeue_many(2)]
    q4.close()
    out += [q4.dequeue_up_to(5), _err(lambda: q4.dequeue_up_to(5))]
    return out


@case
def fifo_edge_cases(tf):
    q = tf.queue.FIFOQueue(2, tf.int32)
    q.enqueue(1)
    out = [_err(lambda: q.dequeue_many(0)), _err(lambda: q.dequeue_many(-1)),
           _err(lambda: q.enqueue("a")), _err(lambda: q.enqueue(1.5))]
    q.close(cancel_pending_enqueues=True)
    out += [_err(lambda: q.dequeue_many(2)), q.dequeue(), q.size(), q.is_closed()]
    q6 = tf.queue.FIFOQueue(4, [tf.int32], shapes=[[]])
    out += [q6.dequeue_many(0), _err(lambda: q6.enqueue_many(tf.constant(3)))]
    q6.enqueue_many(tf.constant([], tf.int32))
    out += [q6.size()]
    q7 = tf.queue.FIFOQueue(-1, tf.int32)
    q7.enqueue_many(tf.range(100))
    out += [q7.size(), _err(lambda: q7.enqueue(()))]
    q8 = tf.queue.FIFOQueue(3, [tf.int32, tf.int32])
    out += [_err(lambda: q8.enqueue_many((tf.range(3), tf.range(2)))),
            _err(lambda: q8.enqueue((1,))), q8.size()]
    return out


@case
def constructor_errors(tf):
    return [_err(lambda: tf.queue.FIFOQueue(1, tf.int32, shapes=[None])),
            _err(lambda: tf.queue.FIFOQueue(1, tf.int32, shapes=5)),
            np.array(str(tf.queue.FIFOQueue(1, tf.int32, shapes=[2, 3]).shapes)),
            _err(lambda: tf.queue.FIFOQueue(1, [tf.int32, tf.int32], shapes=[2, 3])),
            np.array(str(tf.queue.FIFOQueue(1, [tf.int32, tf.int32],
                                            shapes=[[2], [3]]).shapes)),
            _err(lambda: tf.queue.FIFOQueue(1, [tf.int32, tf.int32], names="a")),
            _err(lambda: tf.queue.PaddingFIFOQueue(5, tf.float32, shapes=[None])),
            _err(lambda: tf.queue.PaddingFIFOQueue(5, tf.float32, shapes=None)),
            np.array(tf.queue.FIFOQueue(1, tf.int32, name="foo").name)]


@case
def padding_fifo(tf):
    p = tf.queue.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None, 2]])
    p.enqueue(([1, 2, 3], [["a", "b"]]))
    p.enqueue(([4], [["c", "d"], ["e", "f"]]))
    out = [p.dequeue_many(2)]
    p.enqueue(([5, 6], [["g", "h"]]))
    p.enqueue(([7], [["i", "j"], ["k", "l"], ["m", "n"]]))
    p.enqueue(([], tf.zeros([0, 2], tf.string)))
    out += [p.dequeue(), np.array(str(p.shapes)), _err(lambda: p.enqueue(([[1]], [["a"]])))]
    p.close()
    out += [p.dequeue_up_to(5), _err(p.dequeue)]
    p2 = tf.queue.PaddingFIFOQueue(3, tf.float32, shapes=[[None, 3]])
    p2.enqueue_many(tf.ones([2, 1, 3]))
    out += [p2.dequeue_many(0), p2.dequeue_many(2)]
    return out


@case
def priority_queue(tf):
    pq = tf.queue.PriorityQueue(10, [tf.string], shapes=[[]])
    pq.enqueue((tf.constant(3, tf.int64), "c"))
    pq.enqueue_many(([1, 2], ["a", "b"]))
    pq.enqueue((1, "a2"))
    pq.enqueue_many(([5, 1, 2, 1], ["e", "a3", "b2", "a4"]))
    out = [np.array(str(pq.dtypes)), np.array(str(pq.shapes)), pq.dequeue(),
           pq.dequeue_many(3), pq.size(),
           _err(lambda: pq.enqueue((tf.constant([3, 4], tf.int64), "c"))),
           _err(lambda: pq.enqueue(("x", "c")))]
    pq.close()
    out += [_err(lambda: pq.dequeue_up_to(10)), pq.size()]
    pq2 = tf.queue.PriorityQueue(4, [tf.int32, tf.float32], shapes=[[2], []])
    pq2.enqueue_many(([4, -1, 7], [[1, 2], [3, 4], [5, 6]], [0.5, 1.5, 2.5]))
    out += [pq2.dequeue_many(2), pq2.dequeue()]
    return out


@case
def random_shuffle_queue_seeded(tf):
    r = tf.queue.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
    r.enqueue_many(tf.constant([1, 2, 3, 4, 5]))
    out = [r.dequeue_many(3)]
    r.enqueue_many(tf.constant([6, 7, 8, 9, 10, 11]))
    out += [r.dequeue(), r.dequeue_many(4), r.size()]
    r.close()
    out += [r.dequeue_up_to(5), _err(r.dequeue)]
    r2 = tf.queue.RandomShuffleQueue(50, 0, [tf.int32, tf.float32], shapes=[[], [2]], seed=11)
    r2.enqueue_many((tf.range(20), tf.reshape(tf.range(40, dtype=tf.float32), [20, 2])))
    out += [r2.dequeue_many(7), r2.dequeue_up_to(3)]
    r3 = tf.queue.RandomShuffleQueue(5, 0, tf.int32)
    r3.enqueue(1)
    out += [_err(lambda: r3.dequeue_many(1))]
    return out


@case
def random_shuffle_queue_global_seed(tf):
    tf.random.set_seed(5)
    try:
        r = tf.queue.RandomShuffleQueue(20, 0, tf.int64, shapes=[[]])
        r.enqueue_many(tf.range(12, dtype=tf.int64))
        r2 = tf.queue.RandomShuffleQueue(20, 0, tf.int64, shapes=[[]], seed=4)
        r2.enqueue_many(tf.range(12, dtype=tf.int64))
        return [r.dequeue_many(12), r2.dequeue_many(12)]
    finally:
        tf.random.set_seed(None)


@case
def queues_in_functions(tf):
    q = tf.queue.FIFOQueue(10, [tf.int32], shapes=[[]])

    @tf.function
    def f(x):
        q.enqueue(x)
        q.enqueue_many(tf.stack([x + 1, x + 2]))
        return q.dequeue(), q.size(), q.dequeue_many(2), q.is_closed()

    out = [f(tf.constant(5)), f(tf.constant(10))]

    @tf.function
    def h(n):
        return q.dequeue_up_to(n)

    q.enqueue_many(tf.constant([7, 8, 9]))
    q.close()
    out += [h(tf.constant(5)), _err_class(lambda: h(tf.constant(5)))]

    p = tf.queue.PaddingFIFOQueue(10, [tf.float32], shapes=[[None]])

    @tf.function
    def g(a, b):
        p.enqueue(a)
        p.enqueue(b)
        return p.dequeue_many(2)

    out += [g(tf.constant([1., 2.]), tf.constant([3.])),
            g(tf.constant([1.]), tf.constant([2., 3., 4.]))]
    return out


if __name__ == "__main__":
    CASES.main("tf_queue.npz")

"""`tf.queue` (ops/queue/) against TensorFlow 2.21: the cases of
tools/tf_queue_fixtures.py, recorded into tests/data/tf_queue.npz; then what
the fixtures cannot show (blocking across threads, graph ops)."""
import os
import sys
import threading
import time

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_queue_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_queue.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_dequeue_waits_for_an_enqueue_from_another_thread():
    q = tf.queue.FIFOQueue(2, tf.int32, shapes=[[]])
    got = []
    t = threading.Thread(target=lambda: got.append(int(q.dequeue())))
    t.start()
    time.sleep(0.05)
    assert t.is_alive()            # blocked: the queue is empty and open
    q.enqueue(7)
    t.join(5)
    assert not t.is_alive() and got == [7]


def test_enqueue_into_a_full_queue_waits_and_close_cancels_it():
    q = tf.queue.FIFOQueue(1, tf.int32)
    q.enqueue(1)
    errs = []

    def put():
        try:
            q.enqueue(2)
        except tf.errors.CancelledError as e:
            errs.append(e)

    t = threading.Thread(target=put)
    t.start()
    time.sleep(0.05)
    assert t.is_alive()
    q.close(cancel_pending_enqueues=True)
    t.join(5)
    assert not t.is_alive() and len(errs) == 1
    assert int(q.dequeue()) == 1


def test_close_wakes_a_waiting_dequeue_with_out_of_range():
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[[]])
    q.enqueue(1)
    errs = []

    def take():
        try:
            q.dequeue_many(2)
        except tf.errors.OutOfRangeError as e:
            errs.append(str(e))

    t = threading.Thread(target=take)
    t.start()
    time.sleep(0.05)
    q.close()
    t.join(5)
    assert not t.is_alive()
    assert "insufficient elements (requested 2, current size 1)" in errs[0]


def test_pending_enqueue_completes_after_close_without_cancel():
    q = tf.queue.FIFOQueue(1, tf.int32)
    q.enqueue(1)
    t = threading.Thread(target=lambda: q.enqueue(2))
    t.start()
    time.sleep(0.05)
    q.close()
    assert int(q.dequeue()) == 1
    t.join(5)
    assert int(q.dequeue()) == 2


def test_function_graph_uses_queue_ops_and_static_shapes():
    q = tf.queue.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[2], []])

    @tf.function
    def f(x, y):
        q.enqueue((x, y))
        q.enqueue_many((tf.stack([x, x, x]), tf.stack([y, y, y])))
        return q.dequeue(), q.dequeue_many(2), q.dequeue_up_to(1), q.size()

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.int32), tf.TensorSpec([], tf.float32))
    types = {op.type for op in cf.graph.get_operations()}
    assert {"QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
            "QueueDequeueUpToV2", "QueueSizeV2"} <= types
    assert "FIFOQueueV2" not in types     # made once, outside the function
    one, many, up_to, _ = cf.structured_outputs
    assert [t.shape.as_list() for t in one] == [[2], []]
    assert [t.shape.as_list() for t in many] == [[2, 2], [2]]
    assert [t.shape.as_list() for t in up_to] == [[None, 2], [None]]
    a, b, _, size = f(tf.constant([1, 2]), tf.constant(0.5))
    np.testing.assert_array_equal(a[0].numpy(), [1, 2])
    np.testing.assert_array_equal(b[0].numpy(), [[1, 2], [1, 2]])
    assert int(size) == 0


def test_exports():
    assert tf.compat.v1.FIFOQueue is tf.queue.FIFOQueue
    assert issubclass(tf.queue.RandomShuffleQueue, tf.queue.QueueBase)

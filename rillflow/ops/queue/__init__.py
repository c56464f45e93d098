"""Queues (`tf.queue`): the queue objects a resource handle holds, with
TensorFlow's kernels' behaviour and blocking (queue_kernels: FIFO, padding
FIFO, priority, random shuffle), the queue ops under TensorFlow's names
(queue_ops: create, enqueue, enqueue many, dequeue, dequeue many / up to,
close, is closed, size) and the public classes (queues: QueueBase, FIFOQueue,
PaddingFIFOQueue, PriorityQueue, RandomShuffleQueue)."""

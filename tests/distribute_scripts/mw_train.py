"""A worker of tests/test_distribute_multi.py: trains a small model under
MultiWorkerMirroredStrategy (TF_CONFIG from the environment, or one
process when it is absent) and prints the weights as JSON."""
import json
import sys

import numpy as np

import rillflow as tf


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.RandomState(0)
    x = rng.randn(64, 5).astype(np.float32)
    y = (x @ rng.randn(5, 2) + 0.3).astype(np.float32)
    with strategy.scope():
        # Each worker would start from its own draw: worker 0's is broadcast.
        w = tf.Variable(tf.random.normal([5, 2], seed=strategy._worker_index + 1))
        b = tf.Variable(tf.zeros([2]))
    global_batch = 16
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch).repeat()
    it = iter(strategy.experimental_distribute_dataset(ds))

    def step(xb, yb):
        with tf.GradientTape() as tape:
            err = tf.nn.relu(tf.matmul(xb, w) + b) - yb
            loss = tf.reduce_sum(err * err) / global_batch
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.05 * grads[0])
        b.assign_sub(0.05 * grads[1])
        return loss

    losses = []
    for _ in range(steps):
        per_replica = strategy.run(step, args=next(it))
        losses.append(float(strategy.reduce("SUM", per_replica, axis=None)))
    print("RESULT " + json.dumps({"w": w.numpy().tolist(), "b": b.numpy().tolist(),
                                  "losses": losses, "replicas": strategy.num_replicas_in_sync,
                                  "worker": strategy._worker_index}), flush=True)


if __name__ == "__main__":
    main()

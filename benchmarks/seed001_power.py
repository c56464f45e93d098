"""Seed 001's benchmark, as the seed runs it: 1000 calls of power(x, 100)
(10x10 int32 matmuls in a Python loop), eagerly and as a graph.

    python benchmarks/seed001_power.py
"""
import timeit

import rillflow as tf

x = tf.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)


def power(x, y):
    result = tf.eye(10, dtype=tf.dtypes.int32)
    for _ in range(y):
        result = tf.matmul(x, result)
    return result


print("Eager execution:", timeit.timeit(lambda: power(x, 100), number=1000))

power_as_graph = tf.function(power)
print("Graph execution:", timeit.timeit(lambda: power_as_graph(x, 100), number=1000))

"""TensorFlow's numbers for tests/test_data_random_streams.py: seeded random
ops inside dataset functions (a new iterator replays them, `repeat` and
inner datasets continue them, a `for` loop over a dataset in a tf.function
replays them each call) and reshuffling epochs (an iterator takes its
epoch's order when it is made, read or not). Regenerate under TensorFlow:

    python tools/tf_data_random_fixture.py > tests/data/tf_data_random.json

`--rillflow` runs the same on rillflow.
"""
import json
import sys


def _round(values):
    return [round(float(v), 6) for v in values]


def cases(tf):
    """{case: numbers} for the library `tf`."""
    out = {}
    tf.random.set_seed(1)
    ds = tf.data.Dataset.range(2).map(lambda x: tf.random.uniform([], seed=3)).repeat(2)
    out["map_per_iterator"] = [_round(ds), _round(ds)]
    ds = tf.data.Dataset.range(2).flat_map(
        lambda x: tf.data.Dataset.range(2).map(lambda y: tf.random.uniform([])))
    out["flat_map_inner"] = [_round(ds), _round(ds)]

    @tf.function
    def total(ds):
        s = 0.
        for v in ds:
            s += v
        return s
    ds = tf.data.Dataset.range(3).map(lambda x: tf.random.uniform([]))
    out["reduce_in_function"] = _round([total(ds), total(ds)])

    for global_seed in (None, 0):
        tf.random.set_seed(global_seed)
        ds = tf.data.Dataset.range(10).shuffle(10, seed=7)
        first, unread, second = iter(ds), iter(ds), iter(ds)
        a = [int(v) for v in second]
        b = [int(v) for v in first]
        c = [int(v) for v in ds.repeat(2)]
        out[f"shuffle_epochs_{global_seed}"] = [a, b, c]
    tf.random.set_seed(0)
    ds = tf.data.Dataset.range(6).shuffle(6, seed=2).concatenate(
        tf.data.Dataset.range(6, 12).shuffle(6, seed=2))
    first, second = iter(ds), iter(ds)
    out["shuffle_concatenate"] = [[int(v) for v in second], [int(v) for v in first]]
    inner = tf.data.Dataset.range(4).shuffle(4, seed=3)
    ds = tf.data.Dataset.range(2).flat_map(lambda _: inner)
    first, second = iter(ds), iter(ds)
    out["shuffle_captured"] = [[int(v) for v in second], [int(v) for v in first]]
    return out


if __name__ == "__main__":
    if "--rillflow" in sys.argv:
        import rillflow as tf
    else:
        import tensorflow as tf
    print(json.dumps(cases(tf), indent=1))

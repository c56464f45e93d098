"""Transformations that select, reorder or buffer elements: `shuffle`,
`repeat`, `take`, `skip`, `shard`, `prefetch`, `cache`."""
import itertools
import queue
import threading

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from . import dataset_ops as DS
from . import registry
from . import runtime as R
from ..ops.random import philox
from ..ops.random.seeding import get_seed


# --- shuffle ---------------------------------------------------------------------------------

class ShuffleNode(R.Node):
    """Random order through a buffer, as TensorFlow's ShuffleDataset: fill
    up to `buffer_size` elements, then emit the element at a random offset
    of the buffer's window, move the window's first element into its place,
    and refill from the input.

    The offsets are `word % window size`, words of Philox seeded with the
    iterator's seeds; with `reshuffle` each iteration (epoch) takes its seeds
    from a seed stream, Philox(seed, seed2), two words per epoch, else it
    uses (seed, seed2) itself. This gives TensorFlow's order.
    """

    __slots__ = ("input", "buffer_size", "seeds", "reshuffle", "epoch")

    def __init__(self, input_node, buffer_size, seeds, reshuffle):
        self.input, self.buffer_size = input_node, buffer_size
        self.seeds, self.reshuffle = seeds, reshuffle
        self.epoch = 0

    def claim_seeds(self):
        """The next epoch's seeds, when each iteration takes new ones from
        the seed stream (see `R.claim_iteration_seeds`)."""
        if self.seeds is None or not self.reshuffle:
            return None
        e = self.epoch
        self.epoch += 1
        w = philox.words(*philox.from_seeds(*self.seeds), 2 * e + 2)
        return int(w[2 * e]), int(w[2 * e + 1])

    def _iteration_seeds(self):
        if self.seeds is None:
            return philox.random_seed64(), philox.random_seed64()
        if not self.reshuffle:
            return self.seeds
        claimed = R.take_claim(self)
        return claimed if claimed is not None else self.claim_seeds()

    def __iter__(self):
        pos = philox.from_seeds(*self._iteration_seeds())
        it = iter(self.input)
        size = self.buffer_size
        # The buffer's window, oldest first, from index `head` of `win`.
        win = list(itertools.islice(it, size))
        head = 0
        exhausted = len(win) < size
        words = iter(())
        while True:
            if not exhausted and len(win) - head < size:
                # Refilled when the next element is asked for, as TensorFlow does.
                nxt = next(it, _END)
                if nxt is _END:
                    exhausted = True
                else:
                    win.append(nxt)
            if head == len(win):
                return
            w = next(words, None)
            if w is None:
                # Philox words in blocks: one call per 1024 elements.
                words = iter(philox.blocks(pos[0], pos[1], 256).reshape(-1).tolist())
                pos = philox.skip(pos, 256)
                w = next(words)
            i = head + w % (len(win) - head)
            e = win[i]
            win[i] = win[head]
            head += 1
            if head > 4096 and head * 2 > len(win):
                del win[:head]
                head = 0
            yield e

    def cardinality(self):
        return self.input.cardinality()


_END = object()


def _shuffle_kernel(inp, buffer_size, seed, seed2, reshuffle_each_iteration=True, **_):
    size = int(buffer_size)
    if size == R.UNKNOWN:
        size = 1 << 62
    elif size <= 0:
        raise errors.InvalidArgumentError(
            None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
    seed, seed2 = int(seed), int(seed2)
    seeds = None if seed == 0 and seed2 == 0 else (seed, seed2)
    return ShuffleNode(inp, size, seeds, bool(reshuffle_each_iteration))


_Shuffle = DS.register_dataset_op("ShuffleDatasetV3", _shuffle_kernel)


@registry.implements("Dataset.shuffle")
def shuffle(ds, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
    """See `Dataset.shuffle`."""
    s1, s2 = get_seed(seed)
    if s1 is None:
        s1 = s2 = 0
    ins = [ds._variant_tensor, DS.scalar(buffer_size, D.int64, "buffer_size"),
           DS.scalar(s1, D.int64, "seed"), DS.scalar(s2, D.int64, "seed2")]
    return DS.build("_ShuffleDataset", _Shuffle, ins,
                    {"reshuffle_each_iteration": bool(reshuffle_each_iteration)},
                    ds.element_spec, name)


# --- repeat, take, skip, shard -------------------------------------------------------------------

class RepeatNode(R.Node):
    """The input `count` times over (forever for -1; an empty input ends it)."""

    __slots__ = ("input", "count")

    def __init__(self, input_node, count):
        self.input, self.count = input_node, count

    def __iter__(self):
        k = 0
        while self.count < 0 or k < self.count:
            produced = False
            for e in self.input:
                produced = True
                yield e
            if not produced:
                return
            k += 1

    def cardinality(self):
        n = self.input.cardinality()
        c = self.count
        if c < 0:
            return 0 if n == 0 else R.INFINITE
        return R.product_cardinality(n, c)


class TakeNode(R.Node):
    """The first `count` elements (all for -1); never pulls more."""

    __slots__ = ("input", "count")

    def __init__(self, input_node, count):
        self.input, self.count = input_node, count

    def __iter__(self):
        if self.count < 0:
            return iter(self.input)
        return itertools.islice(self.input, self.count)

    def cardinality(self):
        n, c = self.input.cardinality(), self.count
        if c < 0:
            return n
        if n == R.INFINITE:
            return c
        if n == R.UNKNOWN:
            return R.UNKNOWN
        return min(n, c)


class SkipNode(TakeNode):
    """All but the first `count` elements (none for -1)."""

    __slots__ = ()

    def __iter__(self):
        if self.count < 0:
            for _ in self.input:
                pass
            return iter(())
        return itertools.islice(self.input, self.count, None)

    def cardinality(self):
        n, c = self.input.cardinality(), self.count
        if n < 0:
            return n
        return 0 if c < 0 else max(0, n - c)


class ShardNode(R.Node):
    """Every `num_shards`-th element from `index`."""

    __slots__ = ("input", "num_shards", "index")

    def __init__(self, input_node, num_shards, index):
        self.input, self.num_shards, self.index = input_node, num_shards, index

    def __iter__(self):
        return itertools.islice(self.input, self.index, None, self.num_shards)

    def cardinality(self):
        n = self.input.cardinality()
        if n < 0:
            return n
        return n // self.num_shards + (1 if self.index < n % self.num_shards else 0)


_Repeat = DS.register_dataset_op("RepeatDataset",
                                 lambda inp, count, **_: RepeatNode(inp, int(count)))
_Take = DS.register_dataset_op("TakeDataset", lambda inp, count, **_: TakeNode(inp, int(count)))
_Skip = DS.register_dataset_op("SkipDataset", lambda inp, count, **_: SkipNode(inp, int(count)))


def _shard_kernel(inp, num_shards, index, **_):
    n, i = int(num_shards), int(index)
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"Number of shards must be greater than zero (currently num_shards "
            f"= {n}).")
    if not 0 <= i < n:
        raise errors.InvalidArgumentError(
            None, None, f"Index must be between 0 and {n - 1} (currently index = {i}).")
    return ShardNode(inp, n, i)


_Shard = DS.register_dataset_op("ShardDataset", _shard_kernel)


@registry.implements("Dataset.repeat")
def repeat(ds, count=None, name=None):
    """See `Dataset.repeat`."""
    return DS.build("_RepeatDataset", _Repeat,
                    [ds._variant_tensor, DS.scalar(-1 if count is None else count, D.int64,
                                                   "count")], {}, ds.element_spec, name)


@registry.implements("Dataset.take")
def take(ds, count, name=None):
    """See `Dataset.take`."""
    return DS.build("_TakeDataset", _Take,
                    [ds._variant_tensor, DS.scalar(count, D.int64, "count")], {},
                    ds.element_spec, name)


@registry.implements("Dataset.skip")
def skip(ds, count, name=None):
    """See `Dataset.skip`."""
    return DS.build("_SkipDataset", _Skip,
                    [ds._variant_tensor, DS.scalar(count, D.int64, "count")], {},
                    ds.element_spec, name)


@registry.implements("Dataset.shard")
def shard(ds, num_shards, index, name=None):
    """See `Dataset.shard`."""
    ins = [ds._variant_tensor, DS.scalar(num_shards, D.int64, "num_shards"),
           DS.scalar(index, D.int64, "index")]
    return DS.build("_ShardDataset", _Shard, ins, {}, ds.element_spec, name)


# --- prefetch ------------------------------------------------------------------------------------

_DEFAULT_BUFFER = 64
_CHUNK = 64
_ITEM, _END, _ERROR = 0, 1, 2


class PrefetchNode(R.Node):
    """Elements produced ahead by a background thread into a bounded queue.

    The producer runs the upstream pipeline (and so user functions and
    generators) in its own thread, eagerly: the framework's graph state is
    thread-local. Elements travel in small chunks, sent early whenever the
    consumer is waiting, to keep the per-element cost of the queue low.
    Closing (or dropping) the consumer's iterator stops the producer.
    """

    __slots__ = ("input", "buffer_size")

    def __init__(self, input_node, buffer_size):
        self.input, self.buffer_size = input_node, buffer_size

    def __iter__(self):
        if self.buffer_size == 0:
            yield from self.input
            return
        size = _DEFAULT_BUFFER if self.buffer_size < 0 else self.buffer_size
        chunk = max(1, min(_CHUNK, size // 4))
        q = queue.Queue(maxsize=max(1, size // chunk))
        stop = threading.Event()
        t = threading.Thread(target=_produce, args=(self.input, q, stop, chunk),
                             name="rillflow-prefetch", daemon=True)
        t.start()
        try:
            while True:
                kind, value = q.get()
                if kind == _ITEM:
                    yield from value
                elif kind == _END:
                    return
                else:
                    raise value.with_traceback(None)
        finally:
            stop.set()

    def cardinality(self):
        return self.input.cardinality()


def _produce(node, q, stop, chunk):
    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False
    try:
        pending = []
        for e in node:
            pending.append(e)
            if len(pending) >= chunk or q.empty():
                if not put((_ITEM, pending)):
                    return
                pending = []
        if pending and not put((_ITEM, pending)):
            return
        put((_END, None))
    except BaseException as exc:  # delivered to the consumer, raised there
        put((_ERROR, exc))


def _prefetch_kernel(inp, buffer_size, **_):
    size = int(buffer_size)
    if size < -1:
        raise errors.InvalidArgumentError(
            None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning")
    return PrefetchNode(inp, size)


_Prefetch = DS.register_dataset_op("PrefetchDataset", _prefetch_kernel)


@registry.implements("Dataset.prefetch")
def prefetch(ds, buffer_size, name=None):
    """See `Dataset.prefetch`."""
    return DS.build("_PrefetchDataset", _Prefetch,
                    [ds._variant_tensor, DS.scalar(buffer_size, D.int64, "buffer_size")], {},
                    ds.element_spec, name)


# --- cache ---------------------------------------------------------------------------------------

class CacheNode(R.Node):
    """The input's elements, kept in memory once an iteration completes; later
    iterations replay them without running the upstream pipeline."""

    __slots__ = ("input", "elements")

    def __init__(self, input_node):
        self.input = input_node
        self.elements = None

    def __iter__(self):
        if self.elements is not None:
            yield from self.elements
            return
        acc = []
        for e in self.input:
            acc.append(e)
            yield e
        self.elements = acc

    def cardinality(self):
        return self.input.cardinality()


_Cache = DS.register_dataset_op("CacheDatasetV2", lambda inp, filename, **_: CacheNode(inp))


@registry.implements("Dataset.cache")
def cache(ds, filename="", name=None):
    """See `Dataset.cache`. Elements are cached in memory (also when a
    `filename` is given)."""
    return DS.build("CacheDataset", _Cache,
                    [ds._variant_tensor, DS.scalar(filename, D.string, "filename")], {},
                    ds.element_spec, name)


# --- assert_cardinality --------------------------------------------------------------------------

def _elements(n):
    return "1 element" if n == 1 else f"{n} elements"


class AssertCardinalityNode(R.Node):
    """The input's elements, checked to number exactly `expected` (INFINITE:
    never to end); the cardinality reported is `expected`."""

    __slots__ = ("input", "expected")

    def __init__(self, input_node, expected):
        self.input, self.expected = input_node, expected

    def __iter__(self):
        want = self.expected
        n = 0
        for e in self.input:
            n += 1
            if want != R.INFINITE and n > want:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_elements(want)} but "
                    f"contained at least {_elements(n)}.")
            yield e
        if n != want:
            what = "an infinite number of elements" if want == R.INFINITE else _elements(want)
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {what} but contained only "
                f"{_elements(n)}.")

    def cardinality(self):
        return self.expected


_AssertCardinality = DS.register_dataset_op(
    "AssertCardinalityDataset",
    lambda inp, cardinality, **_: AssertCardinalityNode(inp, int(cardinality)))


def assert_cardinality(ds, expected_cardinality):
    """See `tf.data.experimental.assert_cardinality`."""
    return DS.build("_AssertCardinalityDataset", _AssertCardinality,
                    [ds._variant_tensor, DS.scalar(expected_cardinality, D.int64, "cardinality")],
                    {}, ds.element_spec, None)

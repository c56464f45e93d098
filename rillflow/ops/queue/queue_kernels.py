"""The queues themselves: the Python objects a queue's resource handle holds,
with the behaviour and error messages of TensorFlow's queue kernels.

- `FIFOQueue` (`FIFOQueueV2`): first in, first out.
- `PaddingFIFOQueue` (`PaddingFIFOQueueV2`): a FIFO queue whose component
  shapes may have unknown dimensions; `dequeue_many` pads each component to
  the largest element of the batch with zeros (empty strings).
- `PriorityQueue` (`PriorityQueueV2`): the first component is an int64
  priority; the smallest priority leaves first. Ties leave in the order of
  libstdc++'s binary heap (what TensorFlow's `std::priority_queue` uses), so
  the heap below reproduces `push_heap`/`pop_heap` step for step.
- `RandomShuffleQueue` (`RandomShuffleQueueV2`): each dequeued element is
  `queue[word % size]` for the next uint32 word of TensorFlow's Philox
  stream (seeded from the op's seed/seed2), its slot refilled by the last
  element, so seeded queues dequeue in TensorFlow's order.

Blocking: as in TensorFlow, an enqueue into a full queue and a dequeue from
a queue without enough elements wait (on a condition variable, so another
thread can serve them) until the queue can serve them or is closed.
"""
import threading

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ..random import philox
from ..state.variables import HandleTensor


def shape_text(shape):
    """A shape as TensorFlow's `TensorShape::DebugString` writes it: `[2,3]`,
    `?` for an unknown dimension."""
    return "[" + ",".join("?" if d is None or d < 0 else str(int(d)) for d in shape) + "]"


def _zero(dtype):
    return b"" if dtype == D.string else np.zeros((), dtype.as_numpy_dtype)[()]


class Queue:
    """What every queue kind shares: component dtypes and shapes, capacity,
    closing, the element checks of TensorFlow's `QueueBase` and blocking."""

    # Tensors of dtype resource holding a queue print and behave as a
    # variable's handle does.
    _eager_tensor_class = HandleTensor
    kind = "FIFOQueue"

    def __init__(self, dtypes, shapes, capacity, name):
        self.component_dtypes = list(dtypes)
        # Each shape: a tuple of ints (None for an unknown dimension); an
        # empty list of shapes means "not specified".
        self.component_shapes = [tuple(s) for s in shapes]
        self.capacity = int(capacity)
        self.name = name
        self.closed = False
        self.cancelled = False
        self.pending_enqueues = 0
        self.cond = threading.Condition()
        # What a variable's handle holds: unused by queues.
        self.dtype = D.resource
        self.shape = None
        self.value = None

    def __repr__(self):
        return "<%s %s>" % (self.kind, self.name)

    # --- the storage a kind keeps ------------------------------------------
    def __len__(self):
        return len(self.items)

    def _put(self, element):
        self.items.append(element)

    def _take(self):
        return self.items.pop(0)

    # --- TensorFlow's checks ----------------------------------------------
    def specified_shapes(self):
        """Whether the queue was given component shapes."""
        return bool(self.component_shapes)

    def _check_dtypes(self, op_name, components):
        have = [D.string if c.dtype == object else D.as_dtype(c.dtype) for c in components]
        if have != self.component_dtypes:
            def sig(ts):
                return ", ".join(["resource"] + [t.name for t in ts])
            raise errors.InvalidArgumentError(
                None, None, f"Signature mismatch, have: {sig(have)}-> expected: "
                f"{sig(self.component_dtypes)}->")

    def _shape_ok(self, want, got):
        return len(want) == len(got) and all(w is None or w == g for w, g in zip(want, got))

    def check_element(self, components, many):
        """TensorFlow's ValidateTuple / ValidateManyTuple: each component must
        have its declared shape (after the batch dimension for `many`) and all
        components the same batch size."""
        if many:
            sizes = {c.shape[0] if c.ndim else None for c in components}
            if None in sizes:
                raise errors.InvalidArgumentError(
                    None, None, "Expected all components to have at least rank 1")
            for i, c in enumerate(components):
                if c.shape[0] == components[0].shape[0]:
                    continue
                raise errors.InvalidArgumentError(
                    None, None, "All input tensors must have the same size in the 0th "
                    f"dimension. Component 0 has {components[0].shape[0]}, component "
                    f"{i} has {c.shape[0]}")
        if self.specified_shapes():
            for i, (c, want) in enumerate(zip(components, self.component_shapes)):
                got = c.shape[1:] if many else c.shape
                if not self._shape_ok(want, got):
                    what = "Batched shape" if many else "Shape"
                    raise errors.InvalidArgumentError(
                        None, None, f"{what} mismatch in tuple component {i}. Expected "
                        f"{shape_text(want)}, got {shape_text(got)}")

    def check_dequeue_many(self, num):
        """DequeueMany/UpTo need component shapes (except when padding)."""
        if not self.specified_shapes():
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the "
                "components to have specified shapes.")

    def closed_error(self):
        """CancelledError of an enqueue into a closed queue."""
        return errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")

    def insufficient_error(self, requested):
        """OutOfRangeError of a dequeue that a closed queue cannot serve."""
        return errors.OutOfRangeError(
            None, None, f"{self.kind} '{self.name}' is closed and has insufficient elements "
            f"(requested {requested}, current size {len(self)})")

    # --- operations ---------------------------------------------------------
    def _full(self):
        return self.capacity >= 0 and len(self) >= self.capacity

    def enqueue(self, elements):
        """Adds elements (tuples of arrays) one at a time, waiting for room."""
        with self.cond:
            if self.closed:
                raise self.closed_error()
            self.pending_enqueues += 1
            try:
                for element in elements:
                    while self._full() and not self.cancelled:
                        self.cond.wait()
                    if self.cancelled:
                        raise self.closed_error()
                    self._put(element)
                    self.cond.notify_all()
            finally:
                self.pending_enqueues -= 1
                self.cond.notify_all()

    def _available(self):
        """How many elements a dequeue may take now (RandomShuffleQueue keeps
        `min_after_dequeue` back while open)."""
        return len(self)

    def dequeue(self, num, up_to=False):
        """Takes `num` elements (or fewer, at least one, from a closed queue
        when `up_to`); a list of element tuples."""
        with self.cond:
            while True:
                if self._available() >= num:
                    break
                if self.closed and self.pending_enqueues == 0:
                    if up_to and len(self) > 0:
                        num = self._small_batch(num)
                        break
                    raise self.insufficient_error(num)
                self.cond.wait()
            out = [self._take() for _ in range(num)]
            self.cond.notify_all()
            return out

    def _small_batch(self, num):
        """The size of a closed queue's last `dequeue_up_to` batch."""
        return len(self)

    def close(self, cancel_pending_enqueues):
        """Closes the queue; pending enqueues fail when cancelled."""
        with self.cond:
            self.closed = True
            if cancel_pending_enqueues:
                self.cancelled = True
            self.cond.notify_all()

    def stack(self, elements, num):
        """The components of `elements` stacked along a new batch dimension."""
        out = []
        for i, dtype in enumerate(self.component_dtypes):
            shape = (num,) + tuple(self.component_shapes[i])
            np_dtype = object if dtype == D.string else dtype.as_numpy_dtype
            if elements:
                arr = np.stack([e[i] for e in elements]).astype(np_dtype, copy=False)
            else:
                arr = np.zeros(shape, np_dtype)
                if dtype == D.string:
                    arr[...] = b""
            out.append(arr)
        return out


class FIFOQueue(Queue):
    """First in, first out."""

    def __init__(self, dtypes, shapes, capacity, name):
        super().__init__(dtypes, shapes, capacity, name)
        self.items = []


class PaddingFIFOQueue(FIFOQueue):
    """A FIFO queue whose dequeue_many pads to the batch's largest shapes."""

    # TensorFlow's padding queue names itself "FIFOQueue" in its messages.
    kind = "FIFOQueue"

    def check_dequeue_many(self, num):
        """Padding queues always know their components' ranks."""

    def stack(self, elements, num):
        """Each component padded with zeros to the largest element's shape."""
        out = []
        for i, dtype in enumerate(self.component_dtypes):
            np_dtype = object if dtype == D.string else dtype.as_numpy_dtype
            want = self.component_shapes[i]
            dims = [max([e[i].shape[k] for e in elements], default=0) if d is None else d
                    for k, d in enumerate(want)]
            arr = np.empty([num] + dims, np_dtype)
            arr[...] = _zero(dtype)
            for j, e in enumerate(elements):
                arr[(j,) + tuple(slice(0, s) for s in e[i].shape)] = e[i]
            out.append(arr)
        return out


class PriorityQueue(Queue):
    """The smallest int64 priority (component 0) first, ties as libstdc++'s
    heap orders them."""

    kind = "PriorityQueue"

    def __init__(self, dtypes, shapes, capacity, name):
        super().__init__([D.int64] + list(dtypes), [()] + list(shapes) if shapes else [],
                         capacity, name)
        self.items = []

    def check_dequeue_many(self, num):
        """DequeueMany/UpTo need component shapes."""
        if not self.specified_shapes():
            raise errors.InvalidArgumentError(
                None, None, "PriorityQueue's DequeueMany requires the components to have "
                "specified shapes.")

    def _small_batch(self, num):
        # TensorFlow's priority queue takes what is left and then fails for
        # the rest: the elements are gone and the error counts the shortfall.
        short = num - len(self)
        self.items.clear()
        raise self.insufficient_error(short)

    def check_element(self, components, many):
        """The priority must be an int64 scalar (a vector for enqueue_many)."""
        p = components[0]
        if p.ndim != (1 if many else 0):
            raise errors.InvalidArgumentError(
                None, None, "Expected the priority element to be a scalar, but received shape: "
                + shape_text(p.shape[1:] if many else p.shape))
        super().check_element(components, many)

    # libstdc++'s push_heap / pop_heap with std::priority_queue's comparator
    # `a.priority > b.priority`: the top is the smallest priority.
    @staticmethod
    def _less(a, b):
        return int(a[0]) > int(b[0])

    def _sift_up(self, hole, value):
        """Places `value` at `hole` of the heap or above it, moving the parents
        it outranks down (std::__push_heap)."""
        h = self.items
        parent = (hole - 1) // 2
        while hole > 0 and self._less(h[parent], value):
            h[hole] = h[parent]
            hole = parent
            parent = (hole - 1) // 2
        h[hole] = value

    def _put(self, element):
        h = self.items
        h.append(element)
        self._sift_up(len(h) - 1, element)

    def _take(self):
        h = self.items
        top = h[0]
        value = h.pop()
        n = len(h)
        if n == 0:
            return top
        # __adjust_heap from the root: move the larger child up to a leaf,
        # then push `value` up from there.
        hole = 0
        child = hole
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if self._less(h[child], h[child - 1]):
                child -= 1
            h[hole] = h[child]
            hole = child
        if (n & 1) == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            h[hole] = h[child - 1]
            hole = child - 1
        self._sift_up(hole, value)
        return top


class RandomShuffleQueue(Queue):
    """Dequeues a random element; keeps `min_after_dequeue` while open."""

    kind = "RandomShuffleQueue"

    def __init__(self, dtypes, shapes, capacity, min_after_dequeue, seed, seed2, name):
        super().__init__(dtypes, shapes, capacity, name)
        self.items = []
        self.min_after_dequeue = int(min_after_dequeue)
        if seed == 0 and seed2 == 0:
            seed, seed2 = philox.random_seed64(), philox.random_seed64()
        self._position = philox.from_seeds(seed, seed2)
        self._words = []

    def _next_word(self):
        # TensorFlow's SingleSampleAdapter: four words per Philox call.
        if not self._words:
            self._words = [int(w) for w in philox.blocks(*self._position, 1)[0]][::-1]
            self._position = philox.skip(self._position, 1)
        return self._words.pop()

    def _available(self):
        if self.closed:
            return len(self)
        return max(0, len(self) - self.min_after_dequeue)

    def _take(self):
        items = self.items
        i = self._next_word() % len(items)
        element = items[i]
        items[i] = items[-1]
        items.pop()
        return element

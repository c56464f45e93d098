"""`tf.queue`: `QueueBase` and its kinds `FIFOQueue`, `PaddingFIFOQueue`,
`PriorityQueue` and `RandomShuffleQueue`, with TensorFlow's argument
conversion, static shape checks and return structures (one tensor, a list,
or a dict when the queue has names)."""
import hashlib
import itertools

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ..core.op_util import constant_value
from ..random import seeding
from . import queue_ops as Q

_state = _context.state
# Eager queues get a fresh shared name each (TensorFlow uses ops.uid()).
_uids = itertools.count()


def _as_type_list(dtypes):
    if isinstance(dtypes, (list, tuple)):
        return [D.as_dtype(t) for t in dtypes]
    return [D.as_dtype(dtypes)]


def _as_shape_list(shapes, unknown_dim_allowed=False):
    """`shapes` as a list of TensorShapes (None stays None), with TensorFlow's
    errors for a malformed argument."""
    if unknown_dim_allowed:
        if (not isinstance(shapes, (list, tuple)) or not shapes
                or any(s is None or isinstance(s, int) for s in shapes)):
            raise ValueError("When providing partial shapes, a list of shapes must be "
                             "provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        f"got {type(shapes)} instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.rank is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes, "
                         f"received len(names)={len(names)},len(dtypes)={len(dtypes)}")
    return list(names)


def _shared_name(shared_name):
    # Eagerly every queue is its own (TensorFlow ignores shared_name there).
    if _state.graph is None:
        return str(next(_uids))
    return shared_name


@export("queue.QueueBase", "compat.v1.queue.QueueBase", "compat.v1.QueueBase",
        "compat.v1.io.QueueBase")
class QueueBase:
    """Base class of the queues: a bounded store of elements, each a tuple of
    tensors with fixed dtypes (and optionally shapes), that enqueue and
    dequeue ops add and take, one at a time or in batches.

    >>> q = tf.queue.FIFOQueue(capacity=3, dtypes=tf.int32)
    >>> q.enqueue(1)
    >>> q.dequeue()
    <tf.Tensor: shape=(), dtype=int32, numpy=1>

    Args:
      dtypes: the dtype of each component of an element.
      shapes: the shape of each component, or None (unconstrained).
      names: optional component names; then enqueue takes and dequeue
        returns dicts keyed by them.
      queue_ref: the queue's resource handle.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes, "
                                 f"received len(shapes)={len(shapes)}, "
                                 f"len(dtypes)={len(dtypes)}")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes,"
                                 f"received len(names)={len(names)},len {len(dtypes)}")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        # TensorFlow names an eager queue after the current name scope.
        scope = _state.eager_scope if _state.graph is None else ""
        self._name = scope + "/" if scope else "Empty"

    @property
    def queue_ref(self):
        """The queue's resource handle."""
        return self._queue_ref

    @property
    def name(self):
        """The queue's name ("Empty" at the top level eagerly)."""
        return self._name

    @property
    def dtypes(self):
        """The dtype of each component."""
        return self._dtypes

    @property
    def shapes(self):
        """The shape of each component (unknown when not given)."""
        return self._shapes

    @property
    def names(self):
        """The component names, or None."""
        return self._names

    def _handle(self):
        return self._queue_ref if _state.graph is None else convert_to_tensor(self._queue_ref)

    def _check_enqueue_dtypes(self, vals):
        """`vals` (a tensor, a list/tuple of tensors, or a dict keyed by the
        names) as a list of tensors of the component dtypes."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  "
                                 f"Dictionary: {sorted(vals.keys())},"
                                 f"Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=t, name="component_%d" % i)
                for i, (v, t) in enumerate(zip(vals, self._dtypes))]

    def enqueue(self, vals, name=None):
        """Adds one element, waiting while the queue is full.

        Raises:
          ValueError: when a component's shape is not the queue's.
          tf.errors.CancelledError: when the queue is closed.
        """
        vals = self._check_enqueue_dtypes(vals)
        for v, shape in zip(vals, self._shapes):
            v.shape.assert_is_compatible_with(shape)
        return Q.queue_enqueue(self._handle(), vals, name=name or "%s_enqueue" % self._name)

    def enqueue_many(self, vals, name=None):
        """Adds the slices of `vals` along dimension 0 as elements, waiting
        for room as needed.

        Raises:
          ValueError: when a component is a scalar, the batch sizes differ or
            the element shapes are not the queue's.
          tf.errors.CancelledError: when the queue is closed.
        """
        vals = self._check_enqueue_dtypes(vals)
        batch = vals[0].shape.with_rank_at_least(1)[0]
        for v, shape in zip(vals, self._shapes):
            other = v.shape.with_rank_at_least(1)[0]
            if batch is not None and other is not None and batch != other:
                raise ValueError(f"Dimensions {batch} and {other} are not compatible")
            batch = batch if batch is not None else other
            v.shape[1:].assert_is_compatible_with(shape)
        return Q.queue_enqueue_many(self._handle(), vals,
                                    name=name or "%s_EnqueueMany" % self._name)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _static(self, prefix):
        return [TensorShape(prefix).concatenate(s) if s.rank is not None else None
                for s in self._shapes]

    def dequeue(self, name=None):
        """Takes one element, waiting while the queue is empty.

        Raises:
          tf.errors.OutOfRangeError: when the queue is closed and empty.
        """
        ret = Q.queue_dequeue(self._handle(), self._dtypes,
                              shapes=[s.as_list() if s.rank is not None else None
                                      for s in self._shapes],
                              name=name or "%s_Dequeue" % self._name)
        return self._dequeue_return_value(ret)

    def _dequeue_n(self, fn, n, batch, name):
        n = convert_to_tensor(n, dtype=D.int32, name="n")
        shapes = [([batch] + s.as_list()) if s.rank is not None else None
                  for s in self._shapes]
        return self._dequeue_return_value(fn(self._handle(), n, self._dtypes, shapes=shapes,
                                             name=name))

    def dequeue_many(self, n, name=None):
        """Takes `n` elements, stacked along a new dimension 0, waiting for
        them while the queue is open.

        Raises:
          tf.errors.OutOfRangeError: when the queue is closed with fewer
            than `n` elements.
          tf.errors.InvalidArgumentError: when the queue has no component
            shapes, or `n` < 0.
        """
        batch = None
        if _state.graph is not None:
            value = constant_value(convert_to_tensor(n, dtype=D.int32))
            batch = None if value is None else int(value)
        return self._dequeue_n(Q.queue_dequeue_many, n, batch,
                               name or "%s_DequeueMany" % self._name)

    def dequeue_up_to(self, n, name=None):
        """As `dequeue_many`, but a closed queue hands out what it has left
        (at least one element).

        Raises:
          tf.errors.OutOfRangeError: when the queue is closed and empty.
        """
        return self._dequeue_n(Q.queue_dequeue_up_to, n, None,
                               name or "%s_DequeueUpTo" % self._name)

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: later enqueues fail; dequeues take what is left,
        then fail. With `cancel_pending_enqueues`, waiting enqueues fail too."""
        return Q.queue_close(self._handle(), cancel_pending_enqueues,
                             name=name or "%s_Close" % self._name)

    def is_closed(self, name=None):
        """A bool scalar: whether the queue is closed."""
        return Q.queue_is_closed(self._handle(), name=name or "%s_Is_Closed" % self._name)

    def size(self, name=None):
        """An int32 scalar: the number of elements."""
        return Q.queue_size(self._handle(), name=name or "%s_Size" % self._name)


@export("queue.FIFOQueue", "compat.v1.queue.FIFOQueue", "compat.v1.FIFOQueue")
class FIFOQueue(QueueBase):
    """A queue that hands out elements first in, first out.

    >>> q = tf.queue.FIFOQueue(10, tf.int32, shapes=[[2]])
    >>> q.enqueue_many(tf.constant([[1, 2], [3, 4]]))
    >>> q.dequeue_many(2).numpy()
    array([[1, 2],
           [3, 4]], dtype=int32)

    Args:
      capacity: the most elements it holds (negative: unbounded).
      dtypes: the dtype of each component.
      shapes: the fully defined shape of each component, or None
        (then `dequeue_many` is not allowed).
      names: optional component names.
      shared_name: shares the queue across graphs (ignored eagerly).
      name: the creation op's name.
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        ref = Q.create_queue("FIFOQueueV2", dtypes, shapes, capacity,
                             _shared_name(shared_name), name)
        super().__init__(dtypes, shapes, names, ref)


@export("queue.PaddingFIFOQueue", "compat.v1.queue.PaddingFIFOQueue",
        "compat.v1.PaddingFIFOQueue", "compat.v1.io.PaddingFIFOQueue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose components may have unknown dimensions;
    `dequeue_many` pads each to the batch's largest with zeros.

    Args:
      capacity: the most elements it holds.
      dtypes: the dtype of each component.
      shapes: a list with the shape of each component (None dimensions vary).
      names: optional component names.
      shared_name: shares the queue across graphs (ignored eagerly).
      name: the creation op's name.
    """

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received "
                             f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = Q.create_queue("PaddingFIFOQueueV2", dtypes, shapes, capacity,
                             _shared_name(shared_name), name)
        super().__init__(dtypes, shapes, names, ref)


@export("queue.PriorityQueue", "compat.v1.queue.PriorityQueue", "compat.v1.PriorityQueue",
        "compat.v1.io.PriorityQueue")
class PriorityQueue(QueueBase):
    """A queue that hands out the element of smallest priority first. Each
    element starts with an int64 priority (a vector of them for
    `enqueue_many`), which dequeue returns too.

    Args:
      capacity: the most elements it holds.
      types: the dtype of each component after the priority.
      shapes: the shape of each of those components, or None.
      names: optional component names (priority included).
      shared_name: shares the queue across graphs (ignored eagerly).
      name: the creation op's name.
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        ref = Q.create_queue("PriorityQueueV2", types, shapes, capacity,
                             _shared_name(shared_name), name)
        super().__init__([D.int64] + types, [()] + shapes if shapes else shapes, names, ref)


@export("queue.RandomShuffleQueue", "compat.v1.queue.RandomShuffleQueue",
        "compat.v1.RandomShuffleQueue", "compat.v1.io.RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """A queue that hands out its elements in random order, keeping at least
    `min_after_dequeue` while open; a seeded queue draws TensorFlow's order.

    Args:
      capacity: the most elements it holds.
      min_after_dequeue: elements a dequeue leaves behind while open.
      dtypes: the dtype of each component.
      shapes: the fully defined shape of each component, or None.
      names: optional component names.
      seed: the op seed (with the global seed, as `tf.random.set_seed`).
      shared_name: shares the queue across graphs (ignored eagerly).
      name: the creation op's name.
    """

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = seeding.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # TensorFlow derives seed2 from the graph seed and the shared name.
            text = (str(seed1) + shared_name).encode("utf-8")
            seed2 = int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF
        ref = Q.create_queue("RandomShuffleQueueV2", dtypes, shapes, capacity,
                             _shared_name(shared_name), name,
                             min_after_dequeue=int(min_after_dequeue), seed=int(seed1),
                             seed2=int(seed2))
        super().__init__(dtypes, shapes, names, ref)


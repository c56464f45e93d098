"""Runtime datasets: the values behind a dataset's `variant` tensor.

A runtime dataset (`Node`) is an immutable description of a pipeline that
can be iterated any number of times; each iteration is a fresh Python
iterator (usually a generator) yielding elements as flat tuples of
component values. Pipelines are chains of generators, so elements stream
one at a time and memory stays bounded whatever the input size.

Like `TensorListValue`, these objects carry the `variant` marker dtype so
that an eager tensor can hold them and generated code can pass them
around as values.
"""
import itertools

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.component_batching import stack_components

INFINITE = -1
UNKNOWN = -2

_state = _context.state


class VariantValue:
    """Base of the Python objects held by `variant` tensors."""

    __slots__ = ()
    dtype = D.VARIANT_NP
    shape = ()
    ndim = 0
    size = 1


class Node(VariantValue):
    """A runtime dataset. Subclasses implement `__iter__` (a fresh iterator of
    flat element tuples) and `cardinality()`."""

    __slots__ = ("__weakref__",)

    def __iter__(self):
        raise NotImplementedError

    def cardinality(self):
        """The number of elements, INFINITE (-1) or UNKNOWN (-2)."""
        return UNKNOWN

    def batches(self, size, drop_remainder):
        """An iterator of whole batches (flat tuples of stacked components),
        when this dataset can make them faster than element by element;
        None otherwise. `batch` uses it."""
        return None

    def __repr__(self):
        return "<runtime %s>" % type(self).__name__


class IteratorState(VariantValue):
    """The state of an iterator over a runtime dataset (an iterator resource)."""

    __slots__ = ("it", "node")

    def __init__(self, node=None):
        self.node = node
        self.it = None if node is None else iter(node)

    def bind(self, node):
        """Starts iterating `node` (MakeIterator)."""
        self.node = node
        self.it = iter(node)

    def next(self):
        """The next flat element, or None at the end."""
        if self.it is None:
            raise errors.FailedPreconditionError(
                None, None, "GetNext() failed because the iterator has not been initialized.")
        try:
            return next(self.it)
        except StopIteration:
            return None

    def __repr__(self):
        return "<iterator state over %r>" % (self.node,)


class OptionalValue(VariantValue):
    """The value of a `tf.experimental.Optional`: a flat element or nothing."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def __repr__(self):
        return "<optional %s>" % ("empty" if self.values is None else "with value")


def end_of_sequence():
    """The error get_next raises at the end of a dataset."""
    return errors.OutOfRangeError(None, None, "End of sequence")


def in_eager():
    """A context that makes user code pulled by a kernel run eagerly (kernels
    can run while a graph is being built, e.g. through `py_function`)."""
    return _context.eager_mode()


def product_cardinality(a, b):
    """Cardinality of `a` repeated `b` times (both may be INFINITE/UNKNOWN)."""
    if a == 0 or b == 0:
        return 0
    if a == INFINITE or b == INFINITE:
        return INFINITE
    if a == UNKNOWN or b == UNKNOWN:
        return UNKNOWN
    return a * b


def stacked_batches(node, size, drop_remainder, fused=False):
    """The batches of `node`'s elements, `size` at a time, made by stacking
    each component (the generic batching loop). `fused`: `node` is a map,
    which TensorFlow fuses with the batch (it words shape errors differently)."""
    it = iter(node)
    while True:
        rows = list(itertools.islice(it, size))
        if not rows or (len(rows) < size and drop_remainder):
            return
        yield tuple(stack_components(rows, i, fused) for i in range(len(rows[0])))
        if len(rows) < size:
            return


def batch_size_error(sizes):
    """The error unbatching an element whose components (`sizes`: their
    lengths, TensorFlow's component order) have different lengths."""
    k = next(k for k, n in enumerate(sizes) if n != sizes[0])
    return errors.InvalidArgumentError(
        None, None, "Input element must have the same batch size in each component. "
        f"Component 0 had size {sizes[0]} but component {k} had size, {sizes[k]}.")

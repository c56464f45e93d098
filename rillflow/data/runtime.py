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
    # Inputs TensorFlow's iterator opens only later, not when the iterator is
    # made (a concatenation's second dataset; datasets a function captures,
    # iterated when the function runs): `claim_iteration_seeds` skips them.
    _lazy_inputs = ("captured", "caps")

    def __iter__(self):
        raise NotImplementedError

    def claim_seeds(self):
        """Seeds this node's iteration takes from shared state when TensorFlow
        makes its iterator (a reshuffling ShuffleNode's next epoch), or None.
        See `claim_iteration_seeds`."""
        return None

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

    __slots__ = ("it", "node", "claims")

    def __init__(self, node=None):
        self.node = self.it = self.claims = None
        if node is not None:
            self.bind(node)

    def bind(self, node):
        """Starts iterating `node` (MakeIterator)."""
        self.node = node
        self.claims = claim_iteration_seeds(node)
        it = self._with_claims(iter, node)
        # Until its nodes have taken their claims, elements are computed
        # with the claims active (`_Claiming`); then `it` is the plain
        # iterator, which callers that iterate `it` directly see.
        self.it = _Claiming(self, it) if self.claims else it

    def next(self):
        """The next flat element, or None at the end."""
        if self.it is None:
            raise errors.FailedPreconditionError(
                None, None, "GetNext() failed because the iterator has not been initialized.")
        try:
            return next(self.it)
        except StopIteration:
            return None

    def _with_claims(self, fn, arg):
        # The nodes of this iterator start (lazily, as generators) inside
        # these calls; `take_claim` hands them the seeds claimed for them.
        saved = _active_claims[0]
        _active_claims[0] = self.claims
        try:
            return fn(arg)
        finally:
            _active_claims[0] = saved

    def __repr__(self):
        return "<iterator state over %r>" % (self.node,)


class _Claiming:
    """An IteratorState's iterator while some of its nodes have not yet
    taken their claimed seeds (see `claim_iteration_seeds`)."""

    __slots__ = ("state", "it")

    def __init__(self, state, it):
        self.state, self.it = state, it

    def __iter__(self):
        return self

    def __next__(self):
        st = self.state
        try:
            return st._with_claims(next, self.it)
        finally:
            if not st.claims and st.it is self:
                st.it = self.it


class OptionalValue(VariantValue):
    """The value of a `tf.experimental.Optional`: a flat element or nothing."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def __repr__(self):
        return "<optional %s>" % ("empty" if self.values is None else "with value")


# The claims of the iterator whose elements are being computed (see
# IteratorState._with_claims).
_active_claims = [None]


def claim_iteration_seeds(node):
    """{id(node): seeds} for the nodes of a new iterator over `node` that take
    seeds from shared state (`Node.claim_seeds`).

    TensorFlow opens a pipeline's iterators when the iterator is made, and a
    reshuffling ShuffleDataset takes its epoch's seeds then, whether or not
    an element is ever read: Keras makes the next epoch's iterator at the
    end of each epoch and a new one when the epoch begins, so on TensorFlow
    the epochs see every other order. rillflow's nodes start lazily, at the
    first element, so the seeds are claimed here and taken (`take_claim`) when
    the node starts within this iterator.
    """
    claims = {}
    seen = set()
    todo = [node]
    while todo:
        v = todo.pop()
        if isinstance(v, (list, tuple)):
            todo.extend(v)
        elif isinstance(v, Node) and id(v) not in seen:
            seen.add(id(v))
            seeds = v.claim_seeds()
            if seeds is not None:
                claims[id(v)] = seeds
            for cls in type(v).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if slot not in v._lazy_inputs and slot != "__weakref__":
                        todo.append(getattr(v, slot, None))
    return claims


def take_claim(node):
    """The seeds claimed for `node` by the iterator now computing an element,
    once (a node iterated again within it, under repeat, takes new ones);
    None if there are none."""
    claims = _active_claims[0]
    return claims.pop(id(node), None) if claims else None


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

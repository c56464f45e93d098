"""The queue ops under TensorFlow's names: creating a queue (`FIFOQueueV2`,
`PaddingFIFOQueueV2`, `PriorityQueueV2`, `RandomShuffleQueueV2`) and using it
(`QueueEnqueueV2`, `QueueEnqueueManyV2`, `QueueDequeueV2`,
`QueueDequeueManyV2`, `QueueDequeueUpToV2`, `QueueCloseV2`,
`QueueIsClosedV2`, `QueueSizeV2`).

A queue is a resource as a lookup table is: the creation op's output is a
handle tensor holding the queue object (queue_kernels.py), made in the
outermost context; in a `tf.function` the handle is captured and the queue
ops are stateful graph ops, ordered by automatic control dependencies.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.execute import apply, apply_op
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, as_shape
from . import queue_kernels as K

_state = _context.state


def _handle_infer(inputs, attrs):
    return [(TensorShape([]), D.resource)]


def _shapes_of(shapes):
    return [tuple(as_shape(s).as_list()) for s in (shapes or [])]


def _check_counts(op, dtypes, shapes):
    if shapes and len(shapes) != len(dtypes):
        types = ", ".join(D.as_dtype(t).name for t in dtypes)
        text = ", ".join(K.shape_text(s) for s in shapes)
        raise errors.InvalidArgumentError(
            None, None, f"Different number of component types.  Types: {types}, "
            f"Shapes: [{text}]")


def _fifo_kernel(component_types, capacity=-1, shapes=(), shared_name="", container="",
                 _op="FIFOQueueV2"):
    shapes = _shapes_of(shapes)
    _check_counts(_op, component_types, shapes)
    cls = K.PaddingFIFOQueue if _op == "PaddingFIFOQueueV2" else K.FIFOQueue
    return [cls(component_types, shapes, capacity, shared_name)]


def _priority_kernel(component_types=(), shapes=(), capacity=-1, shared_name="",
                     container=""):
    shapes = _shapes_of(shapes)
    _check_counts("PriorityQueueV2", component_types, shapes)
    return [K.PriorityQueue(component_types, shapes, capacity, shared_name)]


def _shuffle_kernel(component_types, shapes=(), capacity=-1, min_after_dequeue=0, seed=0,
                    seed2=0, shared_name="", container=""):
    shapes = _shapes_of(shapes)
    _check_counts("RandomShuffleQueueV2", component_types, shapes)
    return [K.RandomShuffleQueue(component_types, shapes, capacity, min_after_dequeue, seed,
                                 seed2, shared_name)]


_FIFOQueueV2 = register("FIFOQueueV2", _fifo_kernel, _handle_infer, stateful=True)
_PaddingFIFOQueueV2 = register("PaddingFIFOQueueV2", _fifo_kernel, _handle_infer,
                               stateful=True)
_PriorityQueueV2 = register("PriorityQueueV2", _priority_kernel, _handle_infer, stateful=True)
_RandomShuffleQueueV2 = register("RandomShuffleQueueV2", _shuffle_kernel, _handle_infer,
                                 stateful=True)


def create_queue(kind, component_types, shapes, capacity, shared_name, name, **attrs):
    """A new queue handle of `kind` ("FIFOQueueV2", ...), made eagerly in the
    outermost context (TensorFlow's classes build it under init_scope)."""
    attrs.update(component_types=list(component_types), capacity=int(capacity),
                 shapes=list(shapes or []), shared_name=shared_name or "")
    op = {"FIFOQueueV2": _FIFOQueueV2, "PaddingFIFOQueueV2": _PaddingFIFOQueueV2,
          "PriorityQueueV2": _PriorityQueueV2,
          "RandomShuffleQueueV2": _RandomShuffleQueueV2}[kind]
    if kind in ("FIFOQueueV2", "PaddingFIFOQueueV2"):
        attrs["_op"] = kind
    with _context.init_scope():
        if _state.graph is not None:
            with _context.eager_mode():
                return apply(op, [], attrs, name=name, multi=True)[0]
        return apply(op, [], attrs, name=name, multi=True)[0]


# --- using a queue -----------------------------------------------------------

def _no_outputs(inputs, attrs):
    return []


def _enqueue_kernel(queue, *components, Tcomponents=None, timeout_ms=-1):
    queue._check_dtypes("QueueEnqueueV2", components)
    queue.check_element(components, many=False)
    queue.enqueue([tuple(np.array(c, dtype=c.dtype) for c in components)])
    return []


def _enqueue_many_kernel(queue, *components, Tcomponents=None, timeout_ms=-1):
    queue._check_dtypes("QueueEnqueueManyV2", components)
    queue.check_element(components, many=True)
    n = components[0].shape[0]
    queue.enqueue([tuple(np.array(c[i], dtype=c.dtype) for c in components)
                   for i in range(n)])
    return []


def _check_types(queue, component_types, op_name):
    if queue.component_dtypes != list(component_types):
        have = ", ".join(t.name for t in component_types)
        want = ", ".join(t.name for t in queue.component_dtypes)
        raise errors.InvalidArgumentError(
            None, None, f"Signature mismatch, have: resource->{have} expected: "
            f"resource->{want}")


def _dequeue_kernel(queue, component_types=(), timeout_ms=-1, _shapes=None):
    _check_types(queue, component_types, "QueueDequeueV2")
    element = queue.dequeue(1)[0]
    return [np.asarray(c) for c in element]


def _dequeue_n(queue, n, component_types, up_to, op):
    _check_types(queue, component_types, op)
    n = int(n)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"{op[5:-2]}Op requested {n} < 0 elements")
    queue.check_dequeue_many(n)
    if n == 0:
        return queue.stack([], 0)
    elements = queue.dequeue(n, up_to=up_to)
    return queue.stack(elements, len(elements))


def _dequeue_many_kernel(queue, n, component_types=(), timeout_ms=-1, _shapes=None):
    return _dequeue_n(queue, n, component_types, False, "QueueDequeueManyV2")


def _dequeue_up_to_kernel(queue, n, component_types=(), timeout_ms=-1, _shapes=None):
    return _dequeue_n(queue, n, component_types, True, "QueueDequeueUpToV2")


def _dequeue_infer(inputs, attrs):
    shapes = attrs.get("_shapes")
    types = attrs["component_types"]
    if shapes is None:
        return [(TensorShape(None), t) for t in types]
    return [(TensorShape(s), t) for s, t in zip(shapes, types)]


def _close_kernel(queue, cancel_pending_enqueues=False):
    queue.close(cancel_pending_enqueues)
    return []


def _is_closed_kernel(queue):
    return np.bool_(queue.closed)


def _size_kernel(queue):
    return np.int32(len(queue))


_QueueEnqueueV2 = register("QueueEnqueueV2", _enqueue_kernel, _no_outputs, stateful=True)
_QueueEnqueueManyV2 = register("QueueEnqueueManyV2", _enqueue_many_kernel, _no_outputs,
                               stateful=True)
_QueueDequeueV2 = register("QueueDequeueV2", _dequeue_kernel, _dequeue_infer, stateful=True)
_QueueDequeueManyV2 = register("QueueDequeueManyV2", _dequeue_many_kernel, _dequeue_infer,
                               stateful=True)
_QueueDequeueUpToV2 = register("QueueDequeueUpToV2", _dequeue_up_to_kernel, _dequeue_infer,
                               stateful=True)
_QueueCloseV2 = register("QueueCloseV2", _close_kernel, _no_outputs, stateful=True)
_QueueIsClosedV2 = register("QueueIsClosedV2", _is_closed_kernel,
                            lambda i, a: [(TensorShape([]), D.bool_)], stateful=True)
_QueueSizeV2 = register("QueueSizeV2", _size_kernel,
                        lambda i, a: [(TensorShape([]), D.int32)], stateful=True)


def _run_no_output(opdef, inputs, attrs, name):
    """None eagerly, the Operation in a graph (for control dependencies), as
    TensorFlow's generated wrappers return."""
    if _state.graph is None:
        apply(opdef, inputs, attrs, name=name, multi=True)
        return None
    return apply_op(opdef, inputs, attrs, name=name)


def _check_not_empty(op, components):
    if not components:
        raise errors.InvalidArgumentError(
            None, None, f"Length for attr 'Tcomponents' of 0 must be at least minimum 1 "
            f"[Op:{op}]")


def queue_enqueue(handle, components, name=None):
    """`QueueEnqueueV2`: adds one element."""
    _check_not_empty("QueueEnqueueV2", components)
    return _run_no_output(_QueueEnqueueV2, [handle] + list(components),
                          {"Tcomponents": [c.dtype for c in components]},
                          name or "QueueEnqueueV2")


def queue_enqueue_many(handle, components, name=None):
    """`QueueEnqueueManyV2`: adds the slices of the components along dim 0."""
    _check_not_empty("QueueEnqueueManyV2", components)
    return _run_no_output(_QueueEnqueueManyV2, [handle] + list(components),
                          {"Tcomponents": [c.dtype for c in components]},
                          name or "QueueEnqueueManyV2")


def _dequeue(op, inputs, component_types, shapes, name):
    attrs = {"component_types": list(component_types)}
    if shapes is not None:
        attrs["_shapes"] = [tuple(s) if s is not None else None for s in shapes]
        if any(s is None for s in attrs["_shapes"]):
            del attrs["_shapes"]
    return apply(op, inputs, attrs, name=name, multi=True)


def queue_dequeue(handle, component_types, shapes=None, name=None):
    """`QueueDequeueV2`: one element (a list of tensors); `shapes` give the
    static shapes in graphs."""
    return _dequeue(_QueueDequeueV2, [handle], component_types, shapes,
                    name or "QueueDequeueV2")


def queue_dequeue_many(handle, n, component_types, shapes=None, name=None):
    """`QueueDequeueManyV2`: `n` elements stacked (a list of tensors)."""
    return _dequeue(_QueueDequeueManyV2, [handle, n], component_types, shapes,
                    name or "QueueDequeueManyV2")


def queue_dequeue_up_to(handle, n, component_types, shapes=None, name=None):
    """`QueueDequeueUpToV2`: up to `n` elements stacked (a list of tensors)."""
    return _dequeue(_QueueDequeueUpToV2, [handle, n], component_types, shapes,
                    name or "QueueDequeueUpToV2")


def queue_close(handle, cancel_pending_enqueues=False, name=None):
    """`QueueCloseV2`."""
    return _run_no_output(_QueueCloseV2, [handle],
                          {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                          name or "QueueCloseV2")


def queue_is_closed(handle, name=None):
    """`QueueIsClosedV2`: a bool scalar."""
    return apply(_QueueIsClosedV2, [handle], name=name or "QueueIsClosedV2")


def queue_size(handle, name=None):
    """`QueueSizeV2`: the number of elements (int32 scalar)."""
    return apply(_QueueSizeV2, [handle], name=name or "QueueSizeV2")

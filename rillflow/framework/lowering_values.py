"""The values of compiled (XLA) code that are not arrays: variable handles
and tensor lists, as the lowering rules of framework/lowering.py see them.

Both are JAX pytrees once JAX is loaded (`register_pytrees`), so they can be
carried through `lax.while_loop` and returned from `lax.cond` branches.
"""

__all__ = ["VarRef", "TList", "register_pytrees"]


class VarRef:
    """A variable handle: which slot of the computation's state holds its value."""

    __slots__ = ("slot", "name")

    def __init__(self, slot, name="variable"):
        self.slot = slot
        self.name = name

    def __repr__(self):
        return "<VarRef %s slot %d>" % (self.name, self.slot)


class TList:
    """A tensor list (the value of a TensorArray or an AutoGraph list) as XLA
    holds one: a preallocated `buffer` of `capacity` elements, written with
    dynamic updates, and its `length` (a Python int when known at compile
    time). The buffer is None while no element's shape is known yet (a list
    reserved without an element shape, before its first write)."""

    __slots__ = ("buffer", "length", "dtype", "element_shape", "capacity")

    def __init__(self, buffer, length, dtype, element_shape, capacity):
        self.buffer = buffer
        self.length = length
        self.dtype = dtype
        self.element_shape = None if element_shape is None else tuple(element_shape)
        self.capacity = capacity

    def replace(self, buffer=None, length=None):
        """A copy with a new buffer and/or length."""
        return TList(self.buffer if buffer is None else buffer,
                     self.length if length is None else length,
                     self.dtype, self.element_shape, self.capacity)

    def __repr__(self):
        return "<TList %s x %s %s>" % (self.capacity, self.element_shape, self.dtype)


def _flatten_tlist(t):
    if t.buffer is None:
        return (t.length,), (t.dtype, t.element_shape, t.capacity, False)
    return (t.buffer, t.length), (t.dtype, t.element_shape, t.capacity, True)


def _unflatten_tlist(aux, children):
    dtype, shape, capacity, has_buffer = aux
    if has_buffer:
        buffer, length = children
    else:
        buffer, (length,) = None, children
    return TList(buffer, length, dtype, shape, capacity)


def register_pytrees(jax):
    """Makes VarRef (no leaves) and TList (buffer and length) JAX pytrees."""
    tu = jax.tree_util
    tu.register_pytree_node(VarRef, lambda r: ((), (r.slot, r.name)),
                            lambda aux, _: VarRef(*aux))
    tu.register_pytree_node(TList, _flatten_tlist, _unflatten_tlist)

"""`tf.CriticalSection`: runs a function under a mutex, eagerly and in graphs.

Eagerly `execute` holds a lock around the call. In a graph it builds
TensorFlow's ops: `MutexLock` (taking the lock, its output a lock token),
the function's ops under a control dependency on it, `ConsumeMutexLock`
(releasing it) after the function's results, and the results as identities
after that. As in TensorFlow the lock is also released when the token is
dropped, so a run that fails inside the section does not leave it locked.
"""
import threading

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import nest
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply_op
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core.shape_ops import identity
from .control_ops import tuple_

_state = _context.state
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_EXECUTIONS = "critical_section_executions"
# Mutexes by shared name: CriticalSections with one shared name share a lock.
_SHARED = {}
_SHARED_LOCK = threading.Lock()
_stack = threading.local()


class _LockToken:
    """The value of a `MutexLock` output: holds the lock until consumed or dropped."""

    __slots__ = ("_lock", "__weakref__")
    dtype = D.VARIANT_NP
    shape = ()
    ndim = 0
    size = 1

    def __init__(self, lock):
        lock.acquire()
        self._lock = lock

    def release(self):
        """Releases the lock (once)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    def __del__(self):
        self.release()


def _lock_kernel(mutex=None):
    return _LockToken(mutex)


def _consume_kernel(token, **_):
    token.release()
    return []


_MutexLock = register("MutexLock", _lock_kernel, lambda i, a: [(TensorShape([]), D.variant)],
                      stateful=True)
_ConsumeMutexLock = register("ConsumeMutexLock", _consume_kernel, lambda i, a: [],
                             stateful=True)


def _running():
    s = getattr(_stack, "signatures", None)
    if s is None:
        s = _stack.signatures = []
    return s


@export("CriticalSection")
class CriticalSection:
    """A section of code run by one caller at a time (`tf.CriticalSection`).

        cs = tf.CriticalSection()
        v = tf.Variable(0)
        cs.execute(lambda: v.assign_add(1))

    Args:
      name: the name of its ops in a graph.
      shared_name: sections with the same shared name share their lock.
      critical_section_def, import_scope: not supported (as in TensorFlow 2).
    """

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None):
        if critical_section_def and name is not None:
            raise ValueError(f"Arguments critical_section_def={critical_section_def} "
                             f"and shared_name={shared_name} are mutually exclusive. "
                             "Please only specify one of them.")
        if critical_section_def:
            raise ValueError("Argument `critical_section_def` is not supported.")
        if shared_name:
            with _SHARED_LOCK:
                self._mutex = _SHARED.setdefault(shared_name, threading.Lock())
        else:
            self._mutex = threading.Lock()
        self._name = name or "CriticalSection"
        # TensorFlow's identity of a section: (container, shared name or the
        # handle's id, device); nested executions are detected by it.
        self._signature = ("", shared_name or id(self), _DEVICE)

    @property
    def name(self):
        """The section's name."""
        return self._name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Runs `fn()` (no arguments) holding the section's lock; returns its
        results (a structure of tensors) as new tensors.

        Raises:
          ValueError: if `fn` executes in this section again (a deadlock), or,
            in a graph, if another section's execution uses the same
            resources (variables) and either asked for exclusive access.
        """
        stack = _running()
        if self._signature in stack:
            raise ValueError(f"Attempting to lock a CriticalSection (signature="
                             f"{self._signature}) in which we are already running. This is "
                             "illegal and may cause deadlocks.")
        g = _state.graph
        stack.append(self._signature)
        try:
            if g is None:
                with self._mutex:
                    r = fn()
                return nest.map_structure(identity, r)
            return self._execute_in_graph(g, fn, exclusive_resource_access, name)
        finally:
            stack.pop()

    def _execute_in_graph(self, g, fn, exclusive, name):
        with g.name_scope(name or "critical_section_execute"):
            lock = apply(_MutexLock, [], {"mutex": self._mutex}, name="MutexLock")
            before = len(g.get_operations())
            with g.control_dependencies([lock]):
                r = fn()
            created = g.get_operations()[before:]
            resources = []
            for op in created:
                for t in op.inputs:
                    if t.dtype is D.resource and not any(t is x for x in resources):
                        resources.append(t)
            self._check_resources(g, resources, exclusive)
            flat = [identity(convert_to_tensor(x)) for x in nest.flatten(r)]
            with g.control_dependencies(flat):
                release = apply_op(_ConsumeMutexLock, [lock], name="ConsumeMutexLock")
                flat = tuple_(flat)
            with g.control_dependencies([release]):
                out = [identity(x) for x in flat]
        g.add_to_collection(_EXECUTIONS, (self, resources, exclusive))
        return nest.pack_sequence_as(r, out)

    def _check_resources(self, g, resources, exclusive):
        for section, used, other_exclusive in g.get_collection(_EXECUTIONS):
            if section._signature == self._signature:
                continue
            if not (exclusive or other_exclusive):
                continue
            both = [t for t in resources if any(t is u for u in used)]
            if both:
                raise ValueError(
                    f"This execution would access resources: {both}. Either this lock "
                    f"(CriticalSection: {self._name}) or lock (CriticalSection: "
                    f"{section._name}) requested exclusive resource access of this resource. "
                    "Did you mean to call execute with keyword argument "
                    "exclusive_resource_access=False?")


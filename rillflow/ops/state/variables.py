"""`tf.Variable`: mutable state shared by eager code and traced functions.

A variable's storage is a `ResourceHandle` holding the current NumPy value.
Eagerly, reads wrap that value; in a graph the handle is an input (captured
by function graphs) and reads and writes are stateful ops
(`ReadVariableOp`, `AssignVariableOp`, ...), which the compiler turns into
attribute accesses on the handle. Writes always store a new array, never
mutate the old one, so values read earlier stay valid.
"""
import enum
import itertools

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework import placement as _placement
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import _record, apply, apply_op, kernel_error
from ...framework.tensor import EagerTensor, Reference, SymbolicTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.type_spec import TypeSpec
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import numpy_text
from ..control_flow.control_ops import group
from ..core import scatter_ops
from ..core.gather_ops import gather, gather_nd
from .variable_creator import VariableMetaclass
from .resource_ops import (  # noqa: F401 -- also imported from here by other modules
    HandleTensor, ResourceHandle, _AssignAddVariableOp, _AssignSubVariableOp, _AssignVariableOp,
    _InitializeVariableOnce, _ReadVariableOp, _uninitialized)

_state = _context.state


# The row updates of `Variable.scatter_*` ("scatter", "batch_scatter_update"): ops of
# scatter_variable_ops, which returns this module's _UnreadVariable and so imports this
# module; it fills the table when imported (rillflow.ops imports it after this module).
_ROW_UPDATES = {}


REPLICA_WRITE = [None]  # distribute/spmd.py: aggregates a write made in a replica


@export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are synchronized (accepted for
    API compatibility; rillflow has one replica)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@export("VariableAggregation")
class VariableAggregationV2(enum.Enum):
    """How a distributed variable's replica updates are combined (accepted
    for API compatibility)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


@export("compat.v1.VariableAggregation")
class VariableAggregation(enum.Enum):
    """The v1 aggregation enum: a variable's default `aggregation`, as in
    TensorFlow."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # an alias, as in TensorFlow


# Creation order: tapes list watched variables in it, as TensorFlow does.
_variable_ids = itertools.count(1)


def _is_symbolic(x):
    return isinstance(x, SymbolicTensor)


@export("Variable", "compat.v1.Variable")
class Variable(metaclass=VariableMetaclass):
    """A mutable tensor-valued state (`tf.Variable`).

    Args:
      initial_value: a tensor or Python value, or a callable returning one.
      trainable: whether `GradientTape`s watch it automatically (default True).
      name: the variable's name (`"Variable"` by default).
      dtype: converts the initial value to this dtype.
      shape: the static shape; `tf.TensorShape(None)` allows assigning any shape.
      validate_shape: whether assignments must keep the shape.
    """

    _is_tensor_like = True   # tf.is_tensor(variable) is True
    # `tf.Variable(...)` itself (not a subclass) goes through variable_creator_scope.
    _creator_entry = True

    def __new__(cls, *args, **kwargs):
        # `tf.Variable(...)` makes a ResourceVariable, as in TensorFlow, whose
        # class name error messages show.
        return object.__new__(ResourceVariable if cls is Variable else cls)

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None, synchronization=None,
                 aggregation=None, shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except "
                             "when you are not providing a `variable_def`. You provided "
                             "neither.")
        self._unique_id = next(_variable_ids)
        self._trainable = True if trainable is None else bool(trainable)
        self._constraint = constraint
        self._validate_shape = validate_shape
        self._synchronization = (VariableSynchronization.AUTO if synchronization is None
                                 else synchronization)
        self._aggregation = VariableAggregation.NONE if aggregation is None else aggregation
        base = name if name is not None else "Variable"
        # The name scope where the variable is created, a function graph's
        # own included (TensorFlow's: a function's scopes start empty, and
        # init_scope carries the function's scope out).
        graph = _state.graph
        scope = (graph.get_name_scope() if graph is not None else _state.eager_scope)
        self._name = (scope + "/" + base if scope else base) + ":0"
        init_fn = initial_value if callable(initial_value) else None
        with _context.init_scope():
            if init_fn is not None:
                initial_value = init_fn()
            lifted = not _is_symbolic(initial_value)
            if lifted:
                init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
                dtype_ = init.dtype
                shape_ = as_shape(shape) if shape is not None else init.shape
            else:
                dtype_ = D.as_dtype(dtype) if dtype is not None else initial_value.dtype
                shape_ = as_shape(shape) if shape is not None else initial_value.shape
            value_shape = (init if lifted else initial_value).shape
            if shape is not None and not shape_.is_compatible_with(value_shape):
                raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                 f"({value_shape}) is not compatible with the explicitly "
                                 f"supplied `shape` argument ({shape_}).")
            if not validate_shape and shape is None and graph is not None:
                # Only v1 graph variables lose their shape; TF2 keeps the initial one.
                shape_ = TensorShape(None)
            self._dtype = dtype_
            self._shape = shape_
            self._storage = ResourceHandle(dtype_, shape_, self._name[:-2])
            self._handle = HandleTensor(self._storage)
            if lifted:
                if isinstance(init, EagerTensor):
                    self._storage.value = init._v
                    self._initial_value = init
                    if _state.device:
                        _placement.place_variable(self._storage)
                else:  # building a v1 graph: initialize when the graph runs
                    self._initial_value = init
                    self._init_op = apply_op(_AssignVariableOp, [self._graph_handle(), init],
                                             {"validate_shape": False},
                                             name=self._name[:-2] + "/Assign")
                    graph.add_to_collection("variables", self)
                    if self._trainable:
                        graph.add_to_collection("trainable_variables", self)
        if not lifted:
            # The initial value depends on a function's inputs: initialize on
            # the first run of the function that creates the variable.
            value = convert_to_tensor(initial_value, dtype=self._dtype)
            self._initial_value = value
            apply_op(_InitializeVariableOnce, [self._graph_handle(), value],
                     name="InitializeVariableOnce")
        creator_hook = getattr(_state, "variable_created_hook", None)
        if creator_hook is not None:
            creator_hook(self)

    # --- identity -----------------------------------------------------------
    @property
    def name(self):
        """The variable's name, e.g. `"Variable:0"`."""
        return self._name

    @property
    def dtype(self):
        """The element type."""
        return self._dtype

    @property
    def shape(self):
        """The static shape."""
        return self._shape

    def get_shape(self):
        """The static shape."""
        return self._shape

    @property
    def ndim(self):
        """The rank."""
        return self._shape.rank

    @property
    def trainable(self):
        """Whether tapes watch this variable automatically."""
        return self._trainable

    @property
    def constraint(self):
        """The constraint function applied after optimizer updates, or None."""
        return self._constraint

    @property
    def synchronization(self):
        """Synchronization mode (kept for API compatibility)."""
        return self._synchronization

    @property
    def aggregation(self):
        """Aggregation mode (kept for API compatibility)."""
        return self._aggregation

    @property
    def device(self):
        """The device of the variable: that of its value's device copy (a
        GPU's when created in a `tf.device("/GPU:i")` scope or written by a
        compiled call that ran there), else the CPU."""
        return _placement.variable_device_name(self._storage)

    @property
    def handle(self):
        """The resource handle tensor in the current context."""
        return self._graph_handle() if _state.graph is not None else self._handle

    @property
    def initial_value(self):
        """The value the variable was created with (in graphs only).

        Raises:
          RuntimeError: eagerly, as in TensorFlow.
        """
        if _state.graph is None and getattr(self, "_init_op", None) is None:
            raise RuntimeError("This property is not supported when eager execution is "
                               "enabled.")
        return self._initial_value

    @property
    def initializer(self):
        """The v1-graph op that initializes the variable (None eagerly)."""
        return getattr(self, "_init_op", None)

    @property
    def graph(self):
        """The graph of the v1-graph variable (AttributeError eagerly)."""
        op = getattr(self, "_init_op", None)
        if op is None:
            raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")
        return op.graph

    def _graph_handle(self):
        arg = self.__dict__.get("_arg_handle")
        g = _state.graph
        if arg is not None and g is not None and arg.graph is g:
            return arg
        if g is not None and hasattr(g, "capture_variable"):
            g.capture_variable(self)
        return convert_to_tensor(self._handle)

    def _as_argument(self, handle_placeholder):
        """A stand-in for this variable inside a function it was passed to, whose
        reads and writes go through the function's resource input."""
        proxy = object.__new__(type(self))
        proxy.__dict__.update(self.__dict__)
        proxy._arg_handle = handle_placeholder
        proxy._arg_spec = VariableSpec(self._shape, self._dtype, self._trainable)
        return proxy

    @property
    def _type_spec(self):
        """The VariableSpec (`tf.type_spec_from_value(variable)`)."""
        return VariableSpec(self._shape, self._dtype, self._trainable)

    def _tape_handle(self):
        """The handle tensor tapes track for this variable in the current context."""
        return self._handle if _state.graph is None else self._graph_handle()

    def ref(self):
        """A hashable reference to this variable."""
        return Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    def __copy__(self):
        # TensorFlow's shallow copy is the same variable (deepcopy makes a new one).
        return self

    @property
    def op(self):
        """The op that produced the variable (v1 graphs only)."""
        op = getattr(self, "_init_op", None)
        if op is None:
            raise AttributeError("Tensor.op is undefined when eager execution is enabled.")
        return op

    # --- reading ------------------------------------------------------------
    def _notify_tapes(self):
        for tape in _state.tapes:
            tape._variable_accessed(self)

    def value(self):
        """The current value as a tensor."""
        return self._read(None)

    def read_value(self):
        """The current value as a tensor (a new read op in graphs)."""
        return self._read(None)

    def _read(self, name):
        if _state.tapes:
            self._notify_tapes()
        if _state.graph is None:
            v = self._storage.value
            if v is None:
                raise _uninitialized(self._storage)
            t = EagerTensor(v)
            if _state.tapes:
                _record(_ReadVariableOp, (self._handle,), [t], {"dtype": self._dtype})
            return t
        return apply(_ReadVariableOp, [self._graph_handle()],
                     {"dtype": self._dtype, "_shape": self._shape}, name=name or "ReadVariableOp")

    def _dense_var_to_tensor(self, dtype=None, name=None, as_ref=False):
        t = self._read(name)
        if dtype is not None and D.as_dtype(dtype) is not self._dtype:
            raise ValueError(f"Incompatible type conversion requested to type "
                             f"{D.as_dtype(dtype).name} for `tf.Variable of type "
                             f"{self._dtype.name}. (Variable: {self!r})")
        return t

    def numpy(self):
        """The current value as NumPy (eager only)."""
        if _state.graph is not None:
            raise NotImplementedError("numpy() is only available when eager execution is "
                                      "enabled.")
        v = self._storage.value
        if v is None:
            raise _uninitialized(self._storage)
        return EagerTensor(v).numpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.numpy(), dtype=dtype)

    def __bool__(self):
        return bool(self.read_value())

    def __int__(self):
        return int(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    # --- writing ------------------------------------------------------------
    def _write(self, opdef, value, name, read_value, extra=None):
        if _state.graph is None:
            value = convert_to_tensor(value, dtype=self._dtype)
            attrs = extra or {}
            try:
                opdef.kernel(self._storage, value._v, **attrs)
            except errors.OpError:
                raise
            except Exception as e:
                raise kernel_error(opdef, (self._handle, value), attrs, e) from None
            return _UnreadVariable(self) if read_value else None
        value = convert_to_tensor(value, dtype=self._dtype)
        value = value if REPLICA_WRITE[0] is None else REPLICA_WRITE[0](self, value)
        op = apply_op(opdef, [self._graph_handle(), value], extra or {}, name=name)
        if read_value:
            return _UnreadVariable(self, op)
        return op

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Sets the value; returns the variable (to read the new value) or the op.

        Raises:
          InvalidArgumentError/ValueError: if the shape or dtype does not match.
        """
        v = convert_to_tensor(value, dtype=self._dtype)
        if self._shape.rank is not None and not self._shape.is_compatible_with(v.shape):
            raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape "
                             f"mismatch.The variable shape {self._shape}, and the assigned "
                             f"value shape {v.shape} are incompatible.")
        return self._write(_AssignVariableOp, v, name or "AssignVariableOp", read_value,
                           {"validate_shape": self._validate_shape})

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` to the value."""
        return self._write(_AssignAddVariableOp, delta, name or "AssignAddVariableOp",
                           read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` from the value."""
        return self._write(_AssignSubVariableOp, delta, name or "AssignSubVariableOp",
                           read_value)

    # --- sparse reads and updates ---------------------------------------------
    def sparse_read(self, indices, name=None):
        """The rows `indices` of the value (`tf.gather` along axis 0)."""
        return gather(self._read(None), indices, name=name)

    def gather_nd(self, indices, name=None):
        """`tf.gather_nd` of the value."""
        return gather_nd(self._read(None), indices, name=name)

    def _scatter_nd(self, fn_name, indices, updates, name):
        new = getattr(scatter_ops, fn_name)(self._read(None), indices, updates)
        return self.assign(new, name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        """Writes `updates` at `indices` (`tf.tensor_scatter_nd_update`); returns
        the variable."""
        return self._scatter_nd("tensor_scatter_nd_update", indices, updates, name)

    def scatter_nd_add(self, indices, updates, name=None):
        """Adds `updates` at `indices`; returns the variable."""
        return self._scatter_nd("tensor_scatter_nd_add", indices, updates, name)

    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtracts `updates` at `indices`; returns the variable."""
        return self._scatter_nd("tensor_scatter_nd_sub", indices, updates, name)

    def scatter_nd_max(self, indices, updates, name=None):
        """Takes the maximum with `updates` at `indices`; returns the variable."""
        return self._scatter_nd("tensor_scatter_nd_max", indices, updates, name)

    def scatter_nd_min(self, indices, updates, name=None):
        """Takes the minimum with `updates` at `indices`; returns the variable."""
        return self._scatter_nd("tensor_scatter_nd_min", indices, updates, name)

    # --- row updates from IndexedSlices (scatter_variable_ops.py) --------------
    def _scatter(self, mode, sparse_delta, name):
        return _ROW_UPDATES["scatter"](self, mode, sparse_delta, name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds the IndexedSlices `sparse_delta` to the rows it names; returns
        the variable."""
        return self._scatter("add", sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts the IndexedSlices `sparse_delta` from the rows it names
        (a sparse gradient step); returns the variable."""
        return self._scatter("sub", sparse_delta, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies the rows `sparse_delta` names by its values; returns the
        variable."""
        return self._scatter("mul", sparse_delta, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides the rows `sparse_delta` names by its values; returns the
        variable."""
        return self._scatter("div", sparse_delta, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Takes the elementwise maximum of the rows `sparse_delta` names and
        its values; returns the variable."""
        return self._scatter("max", sparse_delta, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Takes the elementwise minimum of the rows `sparse_delta` names and
        its values; returns the variable."""
        return self._scatter("min", sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes the values of `sparse_delta` into the rows it names; returns
        the variable."""
        return self._scatter("update", sparse_delta, name)

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """`scatter_update` per batch position: indices [B..., K] name rows
        of each batch entry; returns the variable.

        Raises:
          TypeError: if `sparse_delta` is not an IndexedSlices.
        """
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError("Argument `sparse_delta` must be a `tf.IndexedSlices`. Received "
                            f"arg: {sparse_delta}")
        return _ROW_UPDATES["batch_scatter_update"](self, sparse_delta.indices,
                                                    sparse_delta.values, name)

    def set_shape(self, shape):
        """Refines the static shape."""
        self._shape = self._shape.merge_with(shape)

    # --- TensorFlow's Trackable protocol (checkpoints) ------------------------
    # Keras' TensorFlow-backend Variable wraps a tf.Variable and saves and
    # restores itself through these methods of the wrapped one.
    @property
    def _shared_name(self):
        return self._name[:-2] if self._name.endswith(":0") else self._name

    def _serialize_to_tensors(self):
        """{"VARIABLE_VALUE": self}: the tensors a checkpoint saves (the
        writer reads the variable's storage without a copy)."""
        return {"VARIABLE_VALUE": self}

    def _restore_from_tensors(self, restored_tensors):
        """Sets the value from `restored_tensors["VARIABLE_VALUE"]` (a
        tensor or array of the variable's dtype) as a checkpoint restore
        does, outside any graph and without notifying tapes.

        Raises:
          ValueError: if the shape does not fit the variable's.
        """
        value = restored_tensors["VARIABLE_VALUE"]
        value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Received incompatible tensor with shape "
                             f"{TensorShape(list(value.shape))} when attempting to restore "
                             f"variable with shape {self._shape} and name {self._name}.")
        self._storage.value = value
        return self

    def __repr__(self):
        if _state.graph is None and self._storage.value is not None:
            return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
                self._name, self._shape, self._dtype.name,
                numpy_text(self._storage.value, is_repr=True))
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self._name, self._shape,
                                                         self._dtype.name)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        v = Variable(self.read_value(), trainable=self._trainable, name=self._name[:-2])
        memo[id(self)] = v
        return v

    def __reduce__(self):
        return _rebuild_variable, (self.numpy(), self._trainable, self._name[:-2])


class ResourceVariable(Variable):
    """The class of the variables `tf.Variable(...)` creates."""


class VariableSpec(TypeSpec):
    """The type of a variable argument: shape, dtype, trainable."""

    def __init__(self, shape, dtype, trainable=True):
        self.shape = shape
        self.dtype = dtype
        self.trainable = trainable

    @property
    def value_type(self):
        """Variable."""
        return Variable

    def _serialize(self):
        return (self.shape, self.dtype, self.trainable)

    def __repr__(self):
        return "VariableSpec(shape=%s, dtype=%r, trainable=%s, alias_id=None)" % (
            self.shape, self.dtype, self.trainable)


def _rebuild_variable(value, trainable, name):
    return Variable(value, trainable=trainable, name=name)


class _UnreadVariable(Variable):
    """What `assign*` return: reads (after the write) give the new value."""

    def __init__(self, parent, op=None):  # noqa: D107 - shares the parent's storage
        self.__dict__.update(parent.__dict__)
        self._parent = parent
        self._after = op

    @property
    def name(self):
        """The parent's name."""
        return self._parent.name

    def _read(self, name):
        if self._after is not None and _state.graph is not None:
            g = _state.graph
            with g.control_dependencies([self._after]):
                return Variable._read(self, name)
        return Variable._read(self, name)

    def _as_control_input(self):
        return self._after

    def __repr__(self):
        if _state.graph is None and self._storage.value is not None:
            return "<tf.Variable 'UnreadVariable' shape=%s dtype=%s, numpy=%s>" % (
                self._shape, self._dtype.name, numpy_text(self._storage.value, is_repr=True))
        return "<tf.Variable 'UnreadVariable' shape=%s dtype=%s>" % (self._shape,
                                                                    self._dtype.name)

    __str__ = __repr__


def _install_operators():
    """Gives Variable every Tensor operator, applied to its current value."""
    for op_name in Tensor.OVERLOADABLE_OPERATORS:
        tensor_method = getattr(Tensor, op_name, None)
        if tensor_method is None:
            continue

        if op_name in ("__eq__", "__ne__"):
            def method(self, other, _m=tensor_method):
                # Unlike a tensor's, a variable's `== None` converts None (and
                # so raises), as in TensorFlow.
                if other is None:
                    convert_to_tensor(other)
                return _m(self._read(None), other)
        else:
            def method(self, *args, _m=tensor_method):
                return _m(self._read(None), *args)
        method.__name__ = op_name
        method.__doc__ = f"The `{op_name}` of the variable's value."
        setattr(Variable, op_name, method)


@export("compat.v1.global_variables_initializer", "compat.v1.initialize_all_variables")
def global_variables_initializer():
    """A v1-graph op running every variable's initializer (a no-op eagerly)."""
    g = _state.graph
    if g is None:
        return None
    return group(*[v.initializer for v in g.get_collection("variables")
                   if v.initializer is not None], name="init")


@export("compat.v1.variables_initializer")
def variables_initializer(var_list, name="init"):
    """A v1-graph op running the initializers of `var_list`."""
    return group(*[v.initializer for v in var_list if v.initializer is not None], name=name)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------
# A variable handle is a VarRef; its value is part of the computation's state,
# an argument of the compiled call, written back after it (compiler/xla_compile.py).

def _lower_assign(ctx, op, ref, value):
    if op.type == "AssignAddVariableOp":
        value = ctx.read(ref) + value
    elif op.type == "AssignSubVariableOp":
        value = ctx.read(ref) - value
    ctx.write(ref, value)
    return []


def _lower_init_once(ctx, op, ref, value):
    if ref.slot not in ctx.variables:
        ctx.write(ref, value)
    return []


XL.set_lowerings({"ReadVariableOp": lambda ctx, op, ref: ctx.read(ref),
                  "AssignVariableOp": _lower_assign, "AssignAddVariableOp": _lower_assign,
                  "AssignSubVariableOp": _lower_assign,
                  "InitializeVariableOnce": _lower_init_once})

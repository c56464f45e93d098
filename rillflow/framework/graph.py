"""`tf.Graph` and `Operation`: the dataflow graph that functions trace into.

A Graph is an ordered list of Operations (ops are only ever added after
their inputs, so the list is a topological order). Operations have a type
(an OpDef of the registry), a unique scoped name, input tensors, control
inputs and attrs; their outputs are SymbolicTensors with static shapes
inferred when the op is created.
"""
import contextlib
import re

import numpy as np

from . import context as _context
from . import dtypes as _dtypes
from . import user_frames
from .graph_def import to_graph_def
from .tensor import EagerTensor, SymbolicTensor
from .tensor_shape import shape_text
from .execute import constant_op
from .op_registry import get

__all__ = ["Graph", "Operation"]

# Outputs folded at build time are capped so tracing stays cheap.
_FOLD_LIMIT = 1000
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")


class Operation:
    """A node of a graph: one op applied to input tensors.

    Attributes: `graph`, `name`, `type`, `inputs`, `outputs`,
    `control_inputs`, `device`, `node_def`; `get_attr(name)` reads an attr.
    """

    __slots__ = ("graph", "name", "opdef", "inputs", "outputs", "control_inputs",
                 "attrs", "device", "location", "multi", "_id", "__weakref__")

    def __init__(self, graph, opdef, name, inputs, attrs, control_inputs, location):
        self.graph = graph
        self.opdef = opdef
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.control_inputs = control_inputs
        self.outputs = []
        self.device = ""
        self.location = location
        # Whether the kernel returns a list of outputs (set by `apply(multi=True)`).
        self.multi = False
        self._id = 0

    @property
    def type(self):
        """The op type, e.g. `"AddV2"`."""
        return self.opdef.name

    @property
    def node_def(self):
        """This op as a NodeDef view (`name`, `op`, `input`, `attr`, `device`)."""
        return to_graph_def(self.graph, [self]).node[0]

    def get_attr(self, name):
        """The value of attr `name`.

        Raises:
          ValueError: if the op has no such attr.
        """
        if name == "_gradient_op_type" and self.name in self.graph._gradient_overrides:
            return self.graph._gradient_overrides[self.name].encode()
        try:
            return self.attrs[name]
        except KeyError:
            # Attrs of an `_attr_scope` (jit_scope's hints): kept by the graph,
            # since `attrs` are the kernel's arguments.
            scoped = getattr(self.graph, "_scoped_attrs", {}).get(self.name)
            if scoped is not None and name in scoped:
                return scoped[name]
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    def values(self):
        """The outputs, as a tuple."""
        return tuple(self.outputs)

    def _add_control_input(self, op):
        if op not in self.control_inputs:
            self.control_inputs.append(op)

    def run(self, feed_dict=None, session=None):
        """Runs this op in a `tf.compat.v1.Session`."""
        if session is None:
            raise ValueError("Cannot execute operation using `run()`: No default session "
                             "is registered.")
        session.run(self, feed_dict)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self.name, self.type)

    def __str__(self):
        return str(self.node_def)


class Graph:
    """A dataflow graph (`tf.Graph`).

    Use `with g.as_default():` to add ops to it with the ordinary public ops;
    run it with `tf.compat.v1.Session`.
    """

    is_function_graph = False

    def __init__(self):
        self._ops = []
        self._by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_stack = []
        self._collections = {}
        self._finalized = False
        self.seed = None
        self._last_id = 0
        self._version = 0
        # Functions (branch/loop bodies, called functions) used by this graph.
        self._functions = {}
        # `gradient_override_map`: {op type: gradient name} in effect, and
        # {op name: gradient name} of the ops created under it.
        self._gradient_override_map = {}
        self._gradient_overrides = {}
        # `_attr_scope`: the attrs in effect, and {op name: attrs} of the ops
        # created under it.
        self._attr_scope_map = {}
        self._scoped_attrs = {}

    # --- context ----------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        """Makes this the graph that ops are added to, inside the `with`."""
        with _context.graph_mode(self):
            yield self

    @property
    def building_function(self):
        """Whether this graph is a function being traced."""
        return False

    def finalize(self):
        """Forbids adding further ops."""
        self._finalized = True

    @property
    def finalized(self):
        """Whether `finalize` was called."""
        return self._finalized

    @property
    def version(self):
        """The number of ops created so far."""
        return self._version

    # --- names ------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """`name` under the current name scope, suffixed `_1`, `_2`... to be unique.

        Uniqueness ignores case, as in TensorFlow, so `Add` after `add`
        becomes `Add_1`.
        """
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while True:
                candidate = "%s_%d" % (base, i)
                if candidate not in self._names_in_use:
                    break
                i += 1
            if mark_as_used:
                self._names_in_use[candidate] = 1
            name = "%s_%d" % (name, i)
        return name

    def get_name_scope(self):
        """The current name scope, e.g. `"outer/inner"`."""
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope; yields the scope's full name ending in '/'.

        A name ending in '/' re-enters that exact scope; None or '' resets to
        the top level.
        """
        old = self._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            if not _VALID_NAME.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops created inside whose type is a key of `op_type_map` take the
        gradient registered (`tf.RegisterGradient`) under its value.

        Raises:
          TypeError: if `op_type_map` is not a dict of strings to strings.
        """
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for k, v in op_type_map.items():
            if not (isinstance(k, str) and isinstance(v, str)):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """Ops created inside carry the attrs of `attr_map` (name -> value,
        or a callable of the op's NodeDef giving the value): read back with
        `Operation.get_attr`, never passed to kernels (jit_scope's hints).

        Raises:
          TypeError: if `attr_map` is not a dict with string keys.
        """
        if not isinstance(attr_map, dict) or not all(isinstance(k, str) for k in attr_map):
            raise TypeError("attr_map must be a dictionary mapping strings to AttrValue "
                            "protocol buffers")
        saved = dict(self._attr_scope_map)
        self._attr_scope_map.update(attr_map)
        try:
            yield
        finally:
            self._attr_scope_map = saved

    # --- control dependencies ---------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after `control_inputs` (ops or tensors).

        `None` clears the dependencies of enclosing scopes.
        """
        if control_inputs is None:
            saved = self._control_stack
            self._control_stack = []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            c = getattr(c, "_as_control_input", lambda c=c: c)()
            if isinstance(c, SymbolicTensor):
                c = c.op
            elif isinstance(c, EagerTensor):
                continue  # eager values have already been computed
            if c is None:
                continue
            if not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c!r}")
            if c.graph is not self:
                c = self._control_from_outer(c)
                if c is None:
                    continue
            ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def _control_from_outer(self, op):
        raise ValueError(f"Control input {op.name} must be from the same graph.")

    def _current_control_inputs(self):
        out = []
        for frame in self._control_stack:
            for op in frame:
                if op not in out:
                    out.append(op)
        return out

    # --- building ---------------------------------------------------------
    def capture(self, tensor, name=None):
        """Makes a tensor from outside usable in this graph.

        A plain graph embeds eager values as constants and rejects tensors of
        other graphs; function graphs override this to add implicit inputs.
        """
        if isinstance(tensor, EagerTensor):
            if tensor.dtype is _dtypes.resource:
                return self._capture_handle(tensor)
            return constant_op(tensor._v, name=name or "Const")
        raise ValueError(
            f"Tensor {tensor.name} must be from the same graph as the ops that use it "
            f"(it belongs to another graph). Pass it as an argument instead.")

    def _capture_handle(self, tensor):
        """A `VarHandleOp` giving a variable's storage to this graph (once per variable)."""
        memo = self.__dict__.setdefault("_handle_ops", {})
        t = memo.get(id(tensor._v))
        if t is None:
            storage = tensor._v
            with self.control_dependencies(None), self.name_scope(None):
                op = self.create_op(get("VarHandleOp"), (), {
                    "resource": storage, "dtype": storage.dtype, "shape": storage.shape,
                    "shared_name": storage.name}, name=storage.name)
            t = memo[id(tensor._v)] = op.outputs[0]
            self.__dict__.setdefault("_handle_keep", []).append(storage)
        return t

    def create_op(self, opdef, inputs, attrs, name=None, output_specs=None, multi=False):
        """Adds an op of type `opdef` to the graph and returns the Operation.

        `inputs` must be SymbolicTensors of this graph. Output shapes and
        dtypes come from the OpDef's `infer` unless `output_specs` is given.

        Raises:
          ValueError: when shape inference rejects the inputs.
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if name and name.endswith("/"):
            # TensorFlow's convention: a name ending in "/" is an (already
            # unique) name scope, used as the op's exact name.
            name = name[:-1]
            self._names_in_use.setdefault(name.lower(), 1)
        else:
            name = self.unique_name(name or opdef.default_name)
        location = user_frames.user_location(2)
        op = Operation(self, opdef, name, tuple(inputs), attrs,
                       self._current_control_inputs(), location)
        op.multi = multi
        op.device = _context.state.device
        if self._gradient_override_map:
            override = self._gradient_override_map.get(opdef.name)
            if override is not None:
                self._gradient_overrides[name] = override
        if self._attr_scope_map:
            self._scoped_attrs[name] = {
                k: (v(op.node_def) if callable(v) else v)
                for k, v in self._attr_scope_map.items()}
        if output_specs is None:
            try:
                output_specs = opdef.infer(op.inputs, attrs)
            except (ValueError, TypeError) as e:
                # As in TensorFlow, the failed op's name stays used.
                err = type(e)(_graph_error_message(op, e))
                # The user location appended to the message (dropped where a
                # message lists the user's frames anyway: "in user code:").
                err._location_suffix = "" if op.location is None else "\n" + str(op.location)
                raise err from None
        op.outputs = [SymbolicTensor(op, i, shape, dtype)
                      for i, (shape, dtype) in enumerate(output_specs)]
        self._last_id += 1
        op._id = self._last_id
        if not opdef.stateful and not opdef.no_fold:
            _fold(op)
        self._ops.append(op)
        self._by_name[name] = op
        self._version += 1
        self._on_op_created(op)
        tapes = _context.state.tapes
        if tapes:
            for tape in tapes:
                if tape._should_record(op.inputs):
                    tape._record(op)
        return op

    def _on_op_created(self, op):
        """Hook for subclasses (function graphs order stateful ops here)."""

    # --- lookup -----------------------------------------------------------
    def get_operations(self):
        """All operations, in creation order."""
        return list(self._ops)

    def get_operation_by_name(self, name):
        """The operation called `name`.

        Raises:
          KeyError: if there is none.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        """The tensor called `name` (`"op:index"`).

        Raises:
          ValueError: if `name` is not of the form op:index.
          KeyError: if there is no such tensor.
        """
        if ":" not in name:
            raise ValueError(f"The name '{name}' looks like an (invalid) Operation name, "
                             "not a Tensor. Tensor names must be of the form "
                             "\"<op_name>:<output_index>\".")
        op_name, _, index = name.rpartition(":")
        op = self.get_operation_by_name(op_name)
        try:
            return op.outputs[int(index)]
        except (IndexError, ValueError):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. "
                           f"The operation, '{op_name}', exists but only has "
                           f"{len(op.outputs)} outputs.") from None

    def as_graph_element(self, obj):
        """The Operation or Tensor `obj` names (or is) in this graph."""
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if isinstance(obj, (Operation, SymbolicTensor)):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a graph element.")

    def as_graph_def(self, from_version=None, add_shapes=False):
        """A GraphDef view of the graph: `.node` entries with name, op, input, attr."""
        return to_graph_def(self, self._ops, add_shapes=add_shapes)

    # --- collections (v1) ---------------------------------------------------
    def add_to_collection(self, name, value):
        """Appends `value` to the named collection."""
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        """The values of a collection (a copy)."""
        return list(self._collections.get(name, []))

    def get_collection_ref(self, name):
        """The collection's list itself."""
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self):
        """Names of the non-empty collections."""
        return [k for k, v in self._collections.items() if v]

    def _add_function(self, name, func_graph):
        self._functions[name] = func_graph

    def __repr__(self):
        return "<rillflow.Graph object at 0x%x>" % id(self)


def _fold(op):
    """Computes an op's outputs at build time when all its inputs are known.

    Shape inference reads these values (the shape argument of `reshape`,
    `fill`, ...). Large values are not kept, to bound the cost of tracing.
    """
    values = []
    for t in op.inputs:
        c = t._const
        if c is None:
            if op.opdef.name in _SHAPE_ONLY and len(op.inputs) == 1:
                _fold_shape_only(op, t)
            return
        values.append(c)
    try:
        out = op.opdef.kernel(*values, **op.attrs)
    except Exception:  # the runtime reports the error when the op runs
        return
    outs = op.outputs
    if not op.multi:
        out = (out,)
    for t, v in zip(outs, out):
        if getattr(v, "size", _FOLD_LIMIT + 1) <= _FOLD_LIMIT:
            t._const = v


# Ops whose value depends only on their input's dtype and shape.
_SHAPE_ONLY = {"ZerosLike": 0, "OnesLike": 1}


def _fold_shape_only(op, t):
    """Folds `zeros_like`/`ones_like` of a tensor whose static shape is fully
    known (the seed of many gradients, `ones_like(loss)`)."""
    np_dtype = t.dtype._np
    if not t.shape.is_fully_defined() or np_dtype is None or np_dtype.kind not in "biufc":
        return
    n = t.shape.num_elements()
    if n > _FOLD_LIMIT:
        return
    op.outputs[0]._const = np.full(t.shape.as_list(), _SHAPE_ONLY[op.opdef.name], np_dtype)


def _graph_error_message(op, e):
    if isinstance(e, TypeError):
        # A dtype error comes from TensorFlow's op constructor, before there
        # is a node: its message names no node.
        msg = str(e)
    else:
        msg = "%s for '{{node %s}} = %s(%s)' with input shapes: %s." % (
            str(e), op.name, op.type, ", ".join(t.name for t in op.inputs),
            ", ".join(shape_text(t.shape) for t in op.inputs))
    if op.location is not None:
        msg += "\n" + str(op.location)
    return msg

"""TensorFlow's FunctionDefs (the function library of a SavedModel) as
rillflow ConcreteFunctions, run on rillflow's kernels.

A FunctionDef is a signature (typed input and output args), NodeDefs
(`op`, inputs `arg`, `node:output_arg:index` or `^node` for a control
edge, attrs) and a map from output args to tensors. Each NodeDef becomes a
rillflow op, created in a topological order of its data and control edges
(rillflow runs a function's stateful ops in creation order):

- ops in TensorFlow's calling convention table (ops/raw_op_table.py) go
  through `tf.raw_ops`' generic builder: list inputs split by their number
  or type-list attrs, attrs converted by their OpDef type, stripped default
  attrs filled in;
- `Const`, `NoOp` and `ReadVariableOp` (whose static shape is the node's
  `_output_shapes`) directly;
- calls (`PartitionedCall`, `StatefulPartitionedCall`) call the callee,
  imported once; `If`/`StatelessIf`, `Case`/`StatelessCase` and
  `While`/`StatelessWhile` become `tf.cond`, `tf.switch_case` and
  `tf.while_loop` over calls of their branch and body functions.

`check_ops` lists every op type the functions reachable from the given
roots use that rillflow lacks, so a load fails at once with all of them.
"""
import heapq

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework import nest
from ..framework.execute import apply, placeholder
from ..framework.func_graph import FuncGraph
from ..framework.op_registry import REGISTRY
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..function.concrete_function import ConcreteFunction
from ..ops import raw_ops
from ..ops.control_flow.cond import cond, switch_case
from ..ops.control_flow.while_loop import build_while
from ..ops.core.constant_ops import constant
from ..ops.core.math_ops import cast, not_equal
from ..ops.raw_op_table import TABLE
from ..ops.state.variables import VariableSpec
from . import tf_values as TV

__all__ = ["FunctionLibrary", "SPECIAL_OPS"]

_CALLS = ("PartitionedCall", "StatefulPartitionedCall")
_IFS = ("If", "StatelessIf")
_CASES = ("Case", "StatelessCase")
_WHILES = ("While", "StatelessWhile")
# Op types handled here rather than through the calling-convention table.
SPECIAL_OPS = frozenset(("Const", "NoOp", "ReadVariableOp") + _CALLS + _IFS + _CASES + _WHILES)
# Function-valued attrs of the special ops, by op type.
_FUNC_ATTRS = {"PartitionedCall": ("f",), "StatefulPartitionedCall": ("f",),
               "If": ("then_branch", "else_branch"),
               "StatelessIf": ("then_branch", "else_branch"),
               "While": ("cond", "body"), "StatelessWhile": ("cond", "body"),
               "Case": ("branches",), "StatelessCase": ("branches",)}
_state = _context.state


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _clean(name):
    out = "".join(c if c.isalnum() or c in "_.-/" else "_" for c in str(name))
    return out if out and (out[0].isalnum() or out[0] == ".") else "n" + out


def _known(op_type):
    return op_type in SPECIAL_OPS or (op_type in TABLE and op_type in REGISTRY)


class FunctionLibrary:
    """The functions of a FunctionDefLibrary (a decoded dict), imported on
    demand.

    Raises:
      InvalidArgumentError: for a malformed library (a function without a
        name, or two with the same name).
    """

    def __init__(self, library):
        self._defs = {}
        for fd in library.get("function", []):
            name = fd.get("signature", {}).get("name", "")
            if not name or name in self._defs:
                raise _bad(f"invalid or repeated function name {name!r} in the library")
            self._defs[name] = fd
        self._plain = {}
        self._active = set()

    def __contains__(self, name):
        return name in self._defs

    def names(self):
        """The names of the library's functions."""
        return list(self._defs)

    def definition(self, name):
        """The FunctionDef dict named `name`.

        Raises:
          NotFoundError: if the library has no such function.
        """
        fd = self._defs.get(name)
        if fd is None:
            raise errors.NotFoundError(None, None, f"Function {name!r} is not in the "
                                       "SavedModel's function library.")
        return fd

    def reachable(self, roots):
        """The names of `roots` and of every function they call, each once."""
        seen, stack = set(), [r for r in roots]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            fd = self.definition(name)
            for node in fd.get("node_def", []):
                stack.extend(_called(node))
        return seen

    def check_ops(self, roots):
        """Raises NotFoundError naming every op type the functions reachable
        from `roots` use that rillflow does not have."""
        missing = {}
        for name in sorted(self.reachable(roots)):
            for node in self._defs[name].get("node_def", []):
                op = node.get("op", "")
                if not _known(op):
                    missing.setdefault(op, set()).add(name)
        if missing:
            lines = [f"  {op} (in {', '.join(sorted(fns)[:3])}"
                     f"{', ...' if len(fns) > 3 else ''})" for op, fns in sorted(missing.items())]
            raise errors.NotFoundError(
                None, None, "The SavedModel uses ops rillflow does not have: "
                f"{', '.join(sorted(missing))}.\n" + "\n".join(lines))

    # --- building ------------------------------------------------------------------------
    def plain(self, name):
        """The ConcreteFunction of `name` with every input a placeholder and
        its outputs a flat list (for calls, branches and loop bodies)."""
        cf = self._plain.get(name)
        if cf is None:
            g = self.graph(name)
            g.structured_outputs = list(g.outputs)
            g.structured_input_signature = (tuple(g.inputs), {})
            cf = self._plain[name] = ConcreteFunction(g)
        return cf

    def concrete(self, name, bound=(), input_structure=None, output_structure=None,
                 param_names=None, cls=ConcreteFunction):
        """The ConcreteFunction of `name` as a SavedModel's object graph
        describes it: its last inputs bound to `bound` (callables giving the
        tensor, e.g. a variable's handle, in the function's graph), its
        arguments in `input_structure` (`(args, kwargs)` of TensorSpecs and
        Python values) and its outputs in `output_structure`.

        Raises:
          InvalidArgumentError: when the structures do not fit the function.
        """
        g = self.graph(name, bound)
        n_args = len(g.inputs) - len(g.captures)
        args = g.inputs[:n_args]
        if input_structure is None:
            input_structure = (tuple(TensorSpec(t.shape, t.dtype) for t in args), {})
        it = iter(args)

        def leaf(v):
            if isinstance(v, (TensorSpec, VariableSpec)):
                t = next(it, None)
                if t is None:
                    raise _bad(f"the input signature of {name} has more tensors than the "
                               "function has arguments")
                return t
            return v
        try:
            sig_args, sig_kwargs = input_structure
            g.structured_input_signature = (
                tuple(nest.map_structure(leaf, list(sig_args))),
                {k: nest.map_structure(leaf, v) for k, v in dict(sig_kwargs).items()})
        except (TypeError, ValueError):
            raise _bad(f"malformed input signature of {name}") from None
        if next(it, None) is not None:
            raise _bad(f"the input signature of {name} has fewer tensors than the function "
                       "has arguments")
        g.structured_outputs = _pack_outputs(name, output_structure, g.outputs)
        return cls(g, param_names)

    def graph(self, name, bound=()):
        """A new FuncGraph of the FunctionDef `name`: one placeholder per
        input (the last `len(bound)` inputs come from `bound`), its nodes,
        its outputs.

        Raises:
          InvalidArgumentError: for a malformed function (a cycle, an input
            that names nothing, inputs that do not fit the op).
          NotFoundError: for an op rillflow does not have.
        """
        if name in self._active:
            raise _bad(f"function {name} calls itself")
        fd = self.definition(name)
        self._active.add(name)
        try:
            with _context.eager_mode():
                return _Builder(self, fd, bound).build()
        finally:
            self._active.discard(name)


def _called(node):
    out = []
    for key in _FUNC_ATTRS.get(node.get("op"), ()):
        a = node.get("attr", {}).get(key, {})
        if "func" in a:
            out.append(a["func"].get("name", ""))
        for f in a.get("list", {}).get("func", []):
            out.append(f.get("name", ""))
    return out


def _pack_outputs(name, structure, outputs):
    if structure is None:
        return list(outputs)
    leaves = nest.flatten(structure)
    it = iter(outputs)
    packed = []
    for v in leaves:
        if isinstance(v, TensorSpec):
            t = next(it, None)
            if t is None:
                raise _bad(f"the output signature of {name} has more tensors than the "
                           "function has outputs")
            packed.append(t)
        else:
            packed.append(v)
    if next(it, None) is not None:
        raise _bad(f"the output signature of {name} has fewer tensors than the function has "
                   "outputs")
    return nest.pack_sequence_as(structure, packed) if nest.is_nested(structure) else packed[0]


class _Builder:
    """Builds one FuncGraph from a FunctionDef."""

    def __init__(self, library, fd, bound):
        self.library = library
        self.fd = fd
        self.bound = list(bound)
        self.sig = fd.get("signature", {})
        self.args = {}      # input arg name -> tensor
        self.nodes = {}     # node name -> (NodeDef, {output arg: [tensors]}, Operation)

    def build(self):
        name = self.sig.get("name", "")
        g = FuncGraph(_clean(name))
        arg_defs = self.sig.get("input_arg", [])
        n_bound = len(self.bound)
        if n_bound > len(arg_defs):
            raise _bad(f"{name} has {len(arg_defs)} inputs, fewer than its {n_bound} "
                       "captured values")
        with _context.graph_mode(g, hide_tapes=True):
            phs = []
            for i, a in enumerate(arg_defs[:len(arg_defs) - n_bound]):
                t = placeholder(_arg_dtype(a), self._arg_shape(i, a), name=_clean(a.get("name")))
                phs.append(t)
                self.args[a.get("name")] = t
            g.inputs = list(phs)
            for a, get in zip(arg_defs[len(arg_defs) - n_bound:], self.bound):
                self.args[a.get("name")] = get()
            for node in _topological(self.fd.get("node_def", []), self.args):
                self._node(g, node)
            ret = self.fd.get("ret", {})
            outs = []
            for o in self.sig.get("output_arg", []):
                ref = ret.get(o.get("name"))
                if ref is None:
                    raise _bad(f"{name} does not say which tensor is output {o.get('name')!r}")
                outs.append(self._tensor(ref))
        g.outputs = outs
        stateful = [op for op in g.get_operations() if op.opdef.stateful]
        g._last_stateful = stateful[-1] if stateful else None
        return g

    def _arg_shape(self, i, a):
        attrs = self.fd.get("arg_attr", {}).get(i, {}).get("attr", {})
        shapes = attrs.get("_output_shapes")
        if shapes is not None:
            found = TV.attr_from_proto(shapes, "list(shape)")
            if found and isinstance(found[0], TensorShape):
                return found[0]
        return TensorShape([]) if _arg_dtype(a) is D.resource else TensorShape(None)

    # --- tensors -----------------------------------------------------------------------
    def _tensor(self, ref):
        if ref in self.args:
            return self.args[ref]
        parts = ref.split(":")
        entry = self.nodes.get(parts[0])
        if entry is None:
            raise _bad(f"input {ref!r} of function {self.sig.get('name')} names nothing")
        outputs = entry[1]
        if len(parts) == 1:
            flat = [t for ts in outputs.values() for t in ts]
            if not flat:
                raise _bad(f"input {ref!r}: the node has no outputs")
            return flat[0]
        arg = parts[1]
        index = parts[2] if len(parts) > 2 else "0"
        if arg not in outputs or not index.isdigit() or int(index) >= len(outputs[arg]):
            raise _bad(f"input {ref!r} of function {self.sig.get('name')}: no such output")
        return outputs[arg][int(index)]

    # --- nodes -------------------------------------------------------------------------
    def _node(self, g, node):
        op_type = node.get("op", "")
        name = node.get("name", "")
        data, control = [], []
        for ref in node.get("input", []):
            if ref.startswith("^"):
                entry = self.nodes.get(ref[1:])
                if entry is None:
                    raise _bad(f"control input {ref!r} of {name} names nothing")
                if entry[2] is not None:
                    control.append(entry[2])
            else:
                data.append(self._tensor(ref))
        attrs = node.get("attr", {})
        before = len(g.get_operations())
        with g.name_scope(None):
            if op_type in SPECIAL_OPS:
                try:
                    outputs = self._special(op_type, name, data, attrs)
                except (TypeError, ValueError) as e:
                    # The control-flow builders' checks (loop variables that
                    # change dtype, branches that differ): a malformed file.
                    raise _bad(f"node {name} ({op_type}): {e}") from None
            elif _known(op_type):
                outputs = self._generic(op_type, name, data, attrs)
            else:
                raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}' "
                                           "in rillflow (node {name}).")
        ops = g.get_operations()
        op = ops[-1] if len(ops) > before else None
        if op is not None:
            for c in control:
                if c is not op and c not in op.control_inputs:
                    op.control_inputs.append(c)
        shapes = attrs.get("_output_shapes")
        if shapes is not None:
            flat = [t for ts in outputs.values() for t in ts]
            for t, s in zip(flat, TV.attr_from_proto(shapes, "list(shape)") or []):
                if isinstance(s, TensorShape) and t.shape.is_compatible_with(s):
                    t.set_shape(s)
        self.nodes[name] = (node, outputs, op)

    def _generic(self, op_type, name, data, attrs):
        _, in_args, attr_specs, out_args = TABLE[op_type]
        kinds = {a[1]: a[2] for a in attr_specs}

        def attr(key, kind=None):
            if key in attrs:
                return TV.attr_from_proto(attrs[key], kind or kinds.get(key))
            for _, op_attr, _, default in attr_specs:
                if op_attr == key:
                    return default
            return None
        kwargs, pos = {}, 0
        for i, (kw, _, lst) in enumerate(in_args):
            if not lst:
                n = None
            elif lst.startswith("*"):
                types = attr(lst[1:], "list(type)")
                n = len(types) if isinstance(types, list) else len(data) - pos
            else:
                count = attr(lst, "int")
                n = count if isinstance(count, int) else len(data) - pos
            if n is None:
                if pos >= len(data):
                    raise _bad(f"node {name} ({op_type}) has too few inputs")
                kwargs[kw] = data[pos]
                pos += 1
            else:
                if n < 0 or pos + n > len(data):
                    raise _bad(f"node {name} ({op_type}) has too few inputs")
                kwargs[kw] = list(data[pos:pos + n])
                pos += n
        if pos != len(data):
            raise _bad(f"node {name} ({op_type}) has {len(data)} inputs, {pos} expected")
        for kw, op_attr, kind, _ in attr_specs:
            if op_attr in attrs:
                kwargs[kw] = TV.attr_from_proto(attrs[op_attr], kind)
        try:
            result = _raw(op_type)(name=_clean(name), **kwargs)
        except (TypeError, ValueError) as e:
            raise _bad(f"node {name} ({op_type}): {e}") from None
        flat = _flatten_result(result)
        outputs, k = {}, 0
        for out_name, lst in out_args:
            if not lst:
                n = 1
            elif lst.startswith("*"):
                types = attr(lst[1:], "list(type)")
                n = len(types) if isinstance(types, list) else len(flat) - k
            else:
                count = attr(lst, "int")
                n = count if isinstance(count, int) else len(flat) - k
            outputs[out_name] = flat[k:k + n]
            k += n
        return outputs

    def _special(self, op_type, name, data, attrs):
        def get(key, kind=None):
            return TV.attr_from_proto(attrs[key], kind) if key in attrs else None
        if op_type == "Const":
            value = get("value", "tensor")
            dtype = get("dtype", "type")
            if value is None:
                raise _bad(f"Const node {name} has no value")
            return {"output": [constant(value, dtype=dtype, name=_clean(name))]}
        if op_type == "NoOp":
            g = _state.graph
            g.create_op(REGISTRY["NoOp"], [], {}, name=_clean(name))
            return {}
        if op_type == "ReadVariableOp":
            if len(data) != 1:
                raise _bad(f"ReadVariableOp {name} needs one input")
            shapes = get("_output_shapes", "list(shape)") or [TensorShape(None)]
            dtype = get("dtype", "type")
            if not isinstance(dtype, D.DType):
                raise _bad(f"ReadVariableOp {name} has no dtype")
            t = apply(REGISTRY["ReadVariableOp"], [data[0]],
                      {"dtype": dtype, "_shape": shapes[0]}, name=_clean(name))
            return {"value": [t]}
        funcs = {k: _func_names(attrs.get(k, {})) for k in _FUNC_ATTRS[op_type]}
        if op_type in _CALLS:
            cf = self.library.plain(_one(funcs["f"], name))
            return {"output": _as_list(cf._call_flat(list(data)))}
        if not data:
            raise _bad(f"{op_type} node {name} has no inputs")
        if op_type in _IFS:
            then_cf = self.library.plain(_one(funcs["then_branch"], name))
            else_cf = self.library.plain(_one(funcs["else_branch"], name))
            args = list(data[1:])
            out = cond(_truth(data[0]), lambda: then_cf._call_flat(args),
                       lambda: else_cf._call_flat(args), name=_clean(name))
            return {"output": _as_list(out)}
        if op_type in _CASES:
            cfs = [self.library.plain(f) for f in funcs["branches"]]
            args = list(data[1:])
            out = switch_case(data[0], [(lambda cf=cf: cf._call_flat(args)) for cf in cfs],
                              name=_clean(name))
            return {"output": _as_list(out)}
        cond_cf = self.library.plain(_one(funcs["cond"], name))
        body_cf = self.library.plain(_one(funcs["body"], name))
        shapes = get("output_shapes", "list(shape)")
        loop_vars = list(data)
        if not isinstance(shapes, list) or len(shapes) != len(loop_vars):
            shapes = None
        out = build_while(lambda *v: _truth(_as_list(cond_cf._call_flat(list(v)))[0]),
                          lambda *v: _as_list(body_cf._call_flat(list(v))), loop_vars, shapes,
                          None, _clean(name), lambda f, v: f(*v), widen=True)
        return {"output": _as_list(out)}


_RAW = {}


def _raw(op_type):
    fn = _RAW.get(op_type)
    if fn is None:
        fn = _RAW[op_type] = raw_ops.make(op_type)
    return fn


def _flatten_result(result):
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        out = []
        for r in result:
            out.extend(r if isinstance(r, list) else [r])
        return out
    if hasattr(result, "outputs") and hasattr(result, "type"):  # an Operation
        return list(result.outputs)
    return [result]


def _func_names(a):
    if "func" in a:
        return [a["func"].get("name", "")]
    return [f.get("name", "") for f in a.get("list", {}).get("func", [])]


def _one(names, node):
    if len(names) != 1:
        raise _bad(f"node {node} does not name its function")
    return names[0]


def _as_list(out):
    if out is None:
        return []
    if isinstance(out, (list, tuple)):
        return list(out)
    return [out]


def _truth(t):
    """A bool scalar of a predicate (TensorFlow's If and While take any
    dtype: a number is true when not zero)."""
    if t.dtype is D.bool_:
        return t
    if t.dtype is D.string:
        raise _bad("a string predicate is not supported")
    return not_equal(t, cast(0, t.dtype))


def _arg_dtype(a):
    if "type" in a and a["type"]:
        return TV.dtype_from_enum(a["type"])
    raise _bad(f"input or output {a.get('name')!r} has no fixed type (polymorphic functions "
               "are not supported)")


def _topological(nodes, args):
    """The NodeDefs in an order where every node follows its data and
    control inputs, otherwise in file order.

    Raises:
      InvalidArgumentError: for a cycle or a duplicated node name.
    """
    index = {}
    for i, n in enumerate(nodes):
        name = n.get("name", "")
        if not name or name in index or name in args:
            raise _bad(f"invalid or repeated node name {name!r}")
        index[name] = i
    deps = [set() for _ in nodes]
    users = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        for ref in n.get("input", []):
            src = ref[1:] if ref.startswith("^") else ref.split(":")[0]
            j = index.get(src)
            if j is not None and j != i and j not in deps[i]:
                deps[i].add(j)
                users[j].append(i)
            elif j == i:
                raise _bad(f"node {src!r} is its own input")
    ready = [i for i in range(len(nodes)) if not deps[i]]
    heapq.heapify(ready)
    order = []
    waiting = [len(d) for d in deps]
    while ready:
        i = heapq.heappop(ready)
        order.append(nodes[i])
        for u in users[i]:
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(ready, u)
    if len(order) != len(nodes):
        raise _bad("the function's nodes form a cycle")
    return order

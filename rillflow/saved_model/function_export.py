"""rillflow's function graphs as TensorFlow FunctionDefs, the reverse of
function_import.py: what `tf.saved_model.save` writes into the SavedModel's
function library so that TensorFlow loads and runs it.

Every op becomes a NodeDef with TensorFlow's op name and attrs: the attrs
of TensorFlow's calling convention (ops/raw_op_table.py) taken from the
op's attrs or their defaults, plus the type, number and type-list attrs its
inputs bind (`T`, `N`, `Tin`), and `_output_shapes`. Inputs are written as
`node:output_arg:index`. rillflow's attrs that are not TensorFlow's (names
starting with `_`) are left out. Control flow becomes TensorFlow's
functional ops: an `If`/`Case` branch or a `While` body is a FunctionDef
taking every input of the op (rillflow's branch graphs take only the
captures they use), a `While` body passes the captured inputs through,
and a function call names its callee, which is exported too. A captured
eager tensor becomes a `Const` node of the function; a captured variable
handle a `resource` input, bound to the variable by the caller.
"""
import re

import numpy as np

from ..framework import dtypes as D
from ..framework import nest
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape
from ..function.concrete_function import ConcreteFunction
from ..ops.raw_op_table import TABLE
from . import tf_values as TV

__all__ = ["FunctionExporter"]

_NODE_NAME = re.compile(r"[^A-Za-z0-9_./-]")
_ARG_NAME = re.compile(r"[^a-z0-9_]")
_SPECIAL_OUTPUTS = {"Const": "output", "ReadVariableOp": "value", "PartitionedCall": "output",
                    "StatefulPartitionedCall": "output", "If": "output",
                    "StatelessIf": "output", "While": "output", "StatelessWhile": "output",
                    "Case": "output", "StatelessCase": "output", "Placeholder": "output"}


def _arg_name(name, taken):
    base = _ARG_NAME.sub("_", name.lower()).strip("_") or "arg"
    if not base[0].isalpha():
        base = "arg_" + base
    out, k = base, 1
    while out in taken:
        out = "%s_%d" % (base, k)
        k += 1
    taken.add(out)
    return out


def _function_name(name):
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return out if out and (out[0].isalpha() or out[0] == "_") else "f_" + out


class FunctionExporter:
    """Collects FunctionDefs (dicts) for ConcreteFunctions and everything
    they call.

    Args:
      resource_name: `resource_name(handle value)` -> a label for a
        captured variable (raises for one the SavedModel does not track).
    """

    def __init__(self, resource_name=None):
        self.functions = {}         # name -> FunctionDef dict, in creation order
        self._names = {}            # id(graph) -> FunctionDef name
        self._resource_name = resource_name
        self._keep = []
        # ids of captured eager tensors kept as inputs though inlining (the
        # paths of assets: bound to the asset, re-pointed on load).
        self.not_inlined = set()

    def add(self, cf, inline_constants=False):
        """Exports ConcreteFunction `cf`; returns (FunctionDef name, the
        external values of its captured inputs, in input order). With
        `inline_constants` (a function the SavedModel's objects call, not
        another function), captured eager tensors become Const nodes, and
        the arguments are ordered as TensorFlow flattens its input
        signature."""
        name = _function_name(cf.name) + ("" if inline_constants else "_call")
        return self._export(cf.graph, name, inline=inline_constants)

    def library(self):
        """The FunctionDefLibrary dict."""
        return {"function": list(self.functions.values())}

    # --- one function ------------------------------------------------------------------
    def _export(self, g, name, arg_map=None, n_args=None, extra_rets=(), inline=False):
        """Exports graph `g` as FunctionDef `name`. `arg_map` (placeholder id
        -> input index) and `n_args` give branch and loop functions their
        inputs; `extra_rets` are input indices returned after the outputs.
        Returns (name, captured external values)."""
        key = (id(g), name)
        if key in self._names:
            return self._names[key]
        self._keep.append(g)
        taken = set()
        inputs, captured, refs = [], [], {}
        consts = {}
        capture_of = {id(internal): ext for ext, internal in g.captures}
        if arg_map is None:
            for ph in _input_order(g) if inline else g.inputs:
                ext = capture_of.get(id(ph))
                if inline and ext is not None and ext.dtype is not D.resource and \
                        isinstance(ext, EagerTensor) and id(ext) not in self.not_inlined:
                    consts[id(ph)] = ext     # inlined as a Const node
                    continue
                arg = _arg_name(ph.op.name, taken)
                inputs.append({"name": arg, "type": ph.dtype.as_datatype_enum})
                refs[id(ph)] = arg
                if ext is not None:
                    captured.append(ext)
        else:
            names = [_arg_name("input_%d" % i, taken) for i in range(n_args)]
            inputs = [None] * n_args
            for ph_id, (k, dtype) in arg_map.items():
                refs[ph_id] = names[k]
                inputs[k] = {"name": names[k], "type": dtype.as_datatype_enum}
            for k in range(n_args):
                if inputs[k] is None:
                    raise ValueError(f"input {k} of {name} has no type")
        node_names = set(refs.values())
        nodes, out_refs = [], {}
        fd = {"signature": {"name": name}}
        self._names[key] = (name, captured)
        self.functions[name] = fd     # reserved first: a cycle ends here
        for ph_id, ext in consts.items():
            node = _unique(_NODE_NAME.sub("_", "captured_const"), node_names)
            nodes.append({"name": node, "op": "Const", "attr": {
                "value": {"tensor": TV.tensor_to_proto(ext.numpy(), ext.dtype)},
                "dtype": {"type": ext.dtype.as_datatype_enum}}})
            refs[ph_id] = node + ":output:0"
        input_ids = {id(ph) for ph in g.inputs}
        for op in g.get_operations():
            if op.type == "Placeholder" and id(op.outputs[0]) in input_ids:
                continue
            node = _unique(_NODE_NAME.sub("_", op.name) or "node", node_names)
            out_refs[id(op)] = node
            nodes.append(self._node(op, node, refs, name))
        rets, out_args = {}, []
        outputs = list(g.outputs)
        ret_refs = [_ref(refs, t, name) for t in outputs] + \
            [inputs[k]["name"] for k in extra_rets]
        dtypes = [t.dtype for t in outputs] + [D.as_dtype(inputs[k]["type"]) for k in extra_rets]
        for i, (r, dt) in enumerate(zip(ret_refs, dtypes)):
            out = "output_%d" % i
            out_args.append({"name": out, "type": dt.as_datatype_enum})
            rets[out] = r
        # Stateful ops are control outputs: TensorFlow runs only what the
        # outputs and control outputs need (a variable update feeds neither).
        control = [refs[("op", id(op))] for op in g.get_operations()
                   if op.opdef.stateful and ("op", id(op)) in refs]
        fd["signature"] = {"name": name, "input_arg": inputs, "output_arg": out_args}
        if control:
            fd["signature"]["is_stateful"] = True
            fd["signature"]["control_output"] = control
            fd["control_ret"] = {c: c for c in control}
        fd["node_def"] = nodes
        fd["ret"] = rets
        if arg_map is None:
            order = _input_order(g) if inline else g.inputs
            shapes = [ph.shape for ph in order if id(ph) not in consts]
            fd["arg_attr"] = {i: {"attr": {"_output_shapes": TV.attr_to_proto(
                [s], "list(shape)")}} for i, s in enumerate(shapes)}
        return name, captured

    # --- nodes -------------------------------------------------------------------------
    def _node(self, op, node_name, refs, fname):
        inputs = [_ref(refs, t, fname) for t in op.inputs]
        for c in op.control_inputs:
            name = refs.get(("op", id(c)))
            if name is not None and c.graph is op.graph:
                inputs.append("^" + name)
        attrs = {}
        handler = _SPECIAL.get(op.type)
        if handler is not None:
            attrs = handler(self, op, fname)
        elif op.type in TABLE:
            attrs = _table_attrs(op)
        else:
            # rillflow's own ops (gradient helpers): written as they are;
            # TensorFlow cannot load them.
            for k, v in op.attrs.items():
                if not k.startswith("_"):
                    try:
                        attrs[k] = TV.attr_to_proto(_plain(v))
                    except TypeError:
                        raise ValueError(f"Cannot save op '{op.name}' ({op.type}): attr "
                                         f"'{k}' is not a TensorFlow attribute value") from None
        if op.outputs and "_output_shapes" not in attrs:
            attrs["_output_shapes"] = TV.attr_to_proto([t.shape for t in op.outputs],
                                                       "list(shape)")
        for i, t in enumerate(op.outputs):
            refs[id(t)] = "%s:%s" % (node_name, _output_ref(op, i))
        refs[("op", id(op))] = node_name
        node = {"name": node_name, "op": op.type, "input": inputs}
        if attrs:
            node["attr"] = attrs
        return node

    def _call_attrs(self, op, fname):
        cf = op.attrs["f"]
        if not isinstance(cf, ConcreteFunction):
            raise ValueError(f"Cannot save call op '{op.name}': its function is not traced")
        callee, _ = self.add(cf)
        return {"f": {"func": {"name": callee}},
                "Tin": TV.attr_to_proto([t.dtype for t in op.inputs], "list(type)"),
                "Tout": TV.attr_to_proto([t.dtype for t in op.outputs], "list(type)")}

    def _branch_attrs(self, op, fname):
        a = op.attrs
        if a.get("_extra"):
            raise ValueError(f"Cannot save op '{op.name}': a conditional with gradient "
                             "outputs")
        branches = a.get("_branches") or [a["then_branch"], a["else_branch"]]
        args = op.inputs[1:]
        names = []
        for i, (b, m) in enumerate(zip(branches, a["_input_maps"])):
            arg_map = {id(internal): (k, args[k].dtype)
                       for (ext, internal), k in zip(b.captures, m)}
            for k, t in enumerate(args):
                arg_map.setdefault(("unused", k), (k, t.dtype))
            outs = [t for t in a["_branch_outputs"][i]]
            g = _OutputsView(b, outs)
            name = _function_name("%s_%s_branch%d_%d" % (fname, op.name, i, len(self.functions)))
            names.append(self._export(g, name, _fill(arg_map, args), len(args))[0])
        attrs = {"Tin": TV.attr_to_proto([t.dtype for t in args], "list(type)"),
                 "Tout": TV.attr_to_proto([t.dtype for t in op.outputs], "list(type)"),
                 "output_shapes": TV.attr_to_proto([t.shape for t in op.outputs],
                                                   "list(shape)")}
        if op.type in ("If", "StatelessIf"):
            attrs["Tcond"] = {"type": op.inputs[0].dtype.as_datatype_enum}
            attrs["then_branch"] = {"func": {"name": names[0]}}
            attrs["else_branch"] = {"func": {"name": names[1]}}
        else:
            attrs["branches"] = {"list": {"func": [{"name": n} for n in names]}}
        return attrs

    def _while_attrs(self, op, fname):
        a = op.attrs
        if a.get("_accumulate") or a.get("_fetch"):
            raise ValueError(f"Cannot save op '{op.name}': a loop that keeps values for a "
                             "gradient")
        n = a["_n"]
        inits, args = op.inputs[:n], op.inputs[n:]
        all_inputs = list(inits) + list(args)
        cg, bg = a["cond"], a["body"]
        names = []
        for g, m, outs, extra in ((cg, a["_input_maps"][0], [a["_cond_out"]], ()),
                                  (bg, a["_input_maps"][1], list(a["_body_outs"]),
                                   tuple(range(n, len(all_inputs))))):
            arg_map = {id(ph): (i, all_inputs[i].dtype) for i, ph in enumerate(g.inputs[:n])}
            for (ext, internal), k in zip(g.captures, m):
                arg_map[id(internal)] = (n + k, all_inputs[n + k].dtype)
            name = _function_name("%s_%s_%s_%d" % (fname, op.name, "cond" if g is cg else
                                                   "body", len(self.functions)))
            view = _OutputsView(g, outs)
            names.append(self._export(view, name, _fill(arg_map, all_inputs), len(all_inputs),
                                      extra_rets=extra)[0])
        return {"T": TV.attr_to_proto([t.dtype for t in all_inputs], "list(type)"),
                "cond": {"func": {"name": names[0]}}, "body": {"func": {"name": names[1]}},
                "output_shapes": TV.attr_to_proto([t.shape for t in all_inputs],
                                                  "list(shape)"),
                "_output_shapes": TV.attr_to_proto(
                    [t.shape for t in op.outputs[:n]] + [t.shape for t in args],
                    "list(shape)"),
                "parallel_iterations": {"i": int(a.get("parallel_iterations", 10))}}


def _input_order(g):
    """The graph's inputs with the arguments in the order TensorFlow
    flattens the input signature (args, then kwargs by sorted key), the
    captures last."""
    n_args = len(g.inputs) - len(g.captures)
    args = g.inputs[:n_args]
    sig = g.structured_input_signature
    if sig is None:
        return list(g.inputs)
    ids = {id(t): t for t in args}
    order = []
    for leaf in nest.flatten((list(sig[0]), dict(sig[1]))):
        t = getattr(leaf, "_arg_handle", leaf)
        if id(t) in ids and all(t is not o for o in order):
            order.append(t)
    if len(order) != len(args):
        return list(g.inputs)
    return order + list(g.inputs[n_args:])


def _fill(arg_map, inputs):
    """`arg_map` with an entry for every input index (unused inputs keep
    their dtype through a stand-in key)."""
    used = {k for k, _ in arg_map.values()}
    out = dict(arg_map)
    for k, t in enumerate(inputs):
        if k not in used:
            out[("unused", k)] = (k, t.dtype)
    return {key: v for key, v in out.items()}


class _OutputsView:
    """A branch or loop graph seen with other outputs (its flat branch
    outputs, its loop-variable results), for export."""

    def __init__(self, g, outputs):
        self._g = g
        self.outputs = outputs

    def __getattr__(self, name):
        return getattr(self._g, name)


def _unique(base, taken):
    out, k = base, 1
    while out in taken:
        out = "%s_%d" % (base, k)
        k += 1
    taken.add(out)
    return out


def _ref(refs, t, fname):
    r = refs.get(id(t))
    if r is None:
        raise ValueError(f"Cannot save function {fname}: tensor {t.name} comes from outside "
                         "it")
    return r


def _output_ref(op, i):
    """`output_arg:index` of output `i` of `op` in TensorFlow's terms."""
    special = _SPECIAL_OUTPUTS.get(op.type)
    if special is not None or op.type not in TABLE:
        return "%s:%d" % (special or "output", i)
    outs = TABLE[op.type][3]
    k = 0
    for out_name, lst in outs:
        n = 1 if not lst else _list_size(op, lst, len(op.outputs) - k)
        if i < k + n:
            return "%s:%d" % (out_name, i - k)
        k += n
    return "%s:%d" % (outs[-1][0] if outs else "output", i)


def _list_size(op, lst, rest):
    v = op.attrs.get(lst.lstrip("*"))
    if isinstance(v, (list, tuple)):
        return len(v)
    if isinstance(v, int):
        return v
    return rest


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def _table_attrs(op):
    """TensorFlow's attrs of a calling-convention op: its declared attrs
    (present or default) and those its inputs bind."""
    _, in_args, attr_specs, _ = TABLE[op.type]
    out = {}
    pos = 0
    inputs = op.inputs
    for kw, dtype_attr, lst in in_args:
        if not lst:
            group = inputs[pos:pos + 1]
        elif lst.startswith("*"):
            n = _list_size(op, lst, None)
            if n is None:
                n = len(inputs) - pos - sum(1 for a in in_args[in_args.index((kw, dtype_attr,
                                                                             lst)) + 1:])
            group = inputs[pos:pos + n]
            out[lst[1:]] = TV.attr_to_proto([t.dtype for t in group], "list(type)")
        else:
            later = sum(1 for a in in_args[in_args.index((kw, dtype_attr, lst)) + 1:])
            n = op.attrs.get(lst)
            if not isinstance(n, int):
                n = len(inputs) - pos - later
            group = inputs[pos:pos + n]
            out[lst] = {"i": n}
        pos += len(group)
        if dtype_attr and not dtype_attr.startswith("=") and group:
            out[dtype_attr] = {"type": group[0].dtype.as_datatype_enum}
    for kw, op_attr, kind, default in attr_specs:
        if op_attr in out:
            continue
        v = op.attrs.get(op_attr, default)
        if v is None:
            continue
        v = _plain(v)
        if kind == "type" and isinstance(v, str):
            v = D.as_dtype(v)
        if kind == "shape" and isinstance(v, tuple) and v and v[0] == "shape":
            v = TensorShape(None if v[1] is None else list(v[1]))
        if kind == "list(type)":
            v = [D.as_dtype(x) for x in v]
        try:
            out[op_attr] = TV.attr_to_proto(v, kind)
        except TypeError:
            raise ValueError(f"Cannot save op '{op.name}' ({op.type}): attr '{op_attr}' "
                             f"holds {v!r}") from None
    return out


def _const_attrs(self, op, fname):
    value = np.asarray(op.attrs["value"])
    dtype = op.attrs.get("dtype") or op.outputs[0].dtype
    return {"value": {"tensor": TV.tensor_to_proto(value, dtype)},
            "dtype": {"type": dtype.as_datatype_enum}}


def _read_attrs(self, op, fname):
    return {"dtype": {"type": op.attrs["dtype"].as_datatype_enum}}


_SPECIAL = {"Const": _const_attrs, "ReadVariableOp": _read_attrs,
            "PartitionedCall": FunctionExporter._call_attrs,
            "StatefulPartitionedCall": FunctionExporter._call_attrs,
            "If": FunctionExporter._branch_attrs, "StatelessIf": FunctionExporter._branch_attrs,
            "Case": FunctionExporter._branch_attrs,
            "StatelessCase": FunctionExporter._branch_attrs,
            "While": FunctionExporter._while_attrs,
            "StatelessWhile": FunctionExporter._while_attrs}

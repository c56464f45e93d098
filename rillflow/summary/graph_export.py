"""rillflow graphs as TensorFlow `GraphDef` protos for TensorBoard's Graphs
dashboard.

Every node carries its op type, inputs (`"op"`, `"op:1"`, `"^op"` for
control inputs), device and attrs, with dtypes (`T`, `dtype`),
`_output_shapes` and constant values as TensorProtos. Graphs that ops hold
as attrs (cond branches, loop bodies, called functions) go into the
graph's function library as FunctionDefs: a signature whose arguments are
the graph's inputs and whose results are its outputs, and a body in
TensorFlow's function naming, where an argument is referred to by its
name and a node's output as `"node:output:0"`.
"""
import re

import numpy as np

from ..framework import dtypes as D
from ..framework.tensor_shape import TensorShape
from . import protos
from .tensor_proto import dtype_enum, make_tensor_proto, shape_proto

__all__ = ["graph_to_proto", "function_graph_to_proto", "view_to_proto"]

# GraphDef.versions.producer of the exported graphs.
PRODUCER = 2100
_ARG_INVALID = re.compile(r"[^a-z0-9_]")


def graph_to_proto(graph):
    """The GraphDef proto of a rillflow Graph (placeholders as `Placeholder`
    nodes), with the functions its ops use in `library`."""
    ex = _Exporter()
    gd = ex.new_graph_def()
    for op in graph.get_operations():
        gd.node.append(ex.node(op, _graph_input))
    ex.fill_library(gd)
    return gd


def function_graph_to_proto(func_graph):
    """The GraphDef proto of a traced function as TensorFlow instantiates it
    (its `pre_optimization_graph`): inputs as `_Arg` nodes, outputs as
    `_Retval` nodes, nested functions in `library`."""
    P = protos.load()
    ex = _Exporter()
    gd = ex.new_graph_def()
    inputs = {id(t) for t in func_graph.inputs}
    for op in func_graph.get_operations():
        if op.type == "Placeholder" and op.outputs and id(op.outputs[0]) in inputs:
            continue
        gd.node.append(ex.node(op, _graph_input))
    for i, t in enumerate(func_graph.inputs):
        node = P.node_def_pb2.NodeDef(name=t.op.name, op="_Arg")
        node.attr["T"].type = dtype_enum(t.dtype)
        node.attr["index"].i = i
        node.attr["_output_shapes"].list.shape.append(shape_proto(t.shape))
        node.attr["_user_specified_name"].s = t.op.name.encode()
        gd.node.insert(i, node)
    names = _ArgNames()
    for i, t in enumerate(func_graph.outputs):
        node = gd.node.add(name=names.unique(t.op.name) + "_RetVal", op="_Retval",
                           input=[_graph_input(t)])
        node.attr["T"].type = dtype_enum(t.dtype)
        node.attr["index"].i = i
    ex.fill_library(gd)
    return gd


def view_to_proto(view):
    """The GraphDef proto of a `Graph.as_graph_def()` view (nodes and library
    bodies as they are; signatures carry only the function names)."""
    P = protos.load()
    gd = P.graph_pb2.GraphDef()
    gd.versions.producer = PRODUCER
    for n in view.node:
        gd.node.append(_view_node(n))
    for f in view.library.function:
        fd = gd.library.function.add()
        fd.signature.name = f.name
        for n in f.node_def:
            fd.node_def.append(_view_node(n))
    return gd


def _view_node(n):
    P = protos.load()
    node = P.node_def_pb2.NodeDef(name=n.name, op=n.op, input=list(n.input), device=n.device)
    for k, v in n.attr.items():
        node.attr[k].CopyFrom(_attr_value(v.value, None) if v.which != "func"
                              else P.attr_value_pb2.AttrValue(
                                  func=P.attr_value_pb2.NameAttrList(name=v.value)))
    return node


def _graph_input(t):
    """How a node of a graph refers to the tensor `t`."""
    return t.op.name if t.value_index == 0 else "%s:%d" % (t.op.name, t.value_index)


class _ArgNames:
    """Unique lower-case argument names, as function signatures need."""

    def __init__(self):
        self.used = set()

    def unique(self, name):
        base = _ARG_INVALID.sub("_", name.lower())
        if not base or not base[0].isalpha():
            base = "arg_" + base
        out, i = base, 1
        while out in self.used:
            out = "%s_%d" % (base, i)
            i += 1
        self.used.add(out)
        return out


class _Exporter:
    """Converts ops to NodeDefs and collects the functions they use, each
    under one unique name."""

    def __init__(self):
        self.names = {}       # id(function graph) -> library name
        self.used = set()
        self.pending = []     # function graphs not yet converted
        self.keep = []        # keeps graphs alive so ids stay unique

    def new_graph_def(self):
        P = protos.load()
        gd = P.graph_pb2.GraphDef()
        gd.versions.producer = PRODUCER
        return gd

    def function_name(self, fg):
        name = self.names.get(id(fg))
        if name is None:
            base = str(getattr(fg, "function_name", None) or getattr(fg, "name", "function"))
            name, i = base, 1
            while name in self.used:
                name = "%s_%d" % (base, i)
                i += 1
            self.used.add(name)
            self.names[id(fg)] = name
            self.pending.append(fg)
            self.keep.append(fg)
        return name

    def fill_library(self, gd):
        while self.pending:
            fg = self.pending.pop(0)
            gd.library.function.append(self.function_def(fg))

    def node(self, op, input_name):
        P = protos.load()
        node = P.node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device or "")
        node.input.extend(input_name(t) for t in op.inputs)
        node.input.extend("^" + c.name for c in op.control_inputs)
        for k, v in op.attrs.items():
            if k.startswith("_"):
                continue
            if k == "value" and op.type == "Const":
                node.attr[k].tensor.CopyFrom(make_tensor_proto(v, typed_scalars=True))
            else:
                node.attr[k].CopyFrom(_attr_value(v, self))
        if "T" not in op.attrs and op.inputs and op.type not in ("Const", "Placeholder"):
            node.attr["T"].type = dtype_enum(op.inputs[0].dtype)
        if op.type in ("Const", "Placeholder") and "dtype" not in op.attrs and op.outputs:
            node.attr["dtype"].type = dtype_enum(op.outputs[0].dtype)
        if op.outputs:
            node.attr["_output_shapes"].list.shape.extend(
                shape_proto(t.shape) for t in op.outputs)
        return node

    def function_def(self, fg):
        """The FunctionDef of a function graph (a branch, a loop body, a called function)."""
        P = protos.load()
        fd = P.function_pb2.FunctionDef()
        fd.signature.name = self.function_name(fg)
        names = _ArgNames()
        refs = {}
        for i, t in enumerate(fg.inputs):
            arg = names.unique(t.op.name)
            refs[id(t)] = arg
            fd.signature.input_arg.add(name=arg, type=dtype_enum(t.dtype))
            fd.arg_attr[i].attr["_output_shapes"].list.shape.append(shape_proto(t.shape))
            fd.arg_attr[i].attr["_user_specified_name"].s = t.op.name.encode()

        def ref(t):
            found = refs.get(id(t))
            return found if found is not None else "%s:output:%d" % (t.op.name, t.value_index)
        args = set(refs)
        stateful = False
        for op in fg.get_operations():
            if op.type == "Placeholder" and op.outputs and id(op.outputs[0]) in args:
                continue
            stateful = stateful or op.opdef.stateful
            fd.node_def.append(self.node(op, ref))
        fd.signature.is_stateful = stateful
        for t in fg.outputs:
            out = names.unique(t.op.name)
            fd.signature.output_arg.add(name=out, type=dtype_enum(t.dtype))
            fd.ret[out] = ref(t)
        return fd


def _is_function(v):
    return hasattr(v, "get_operations") and hasattr(v, "inputs") and hasattr(v, "outputs")


def _attr_value(v, exporter):
    """The AttrValue proto of a Python attr value."""
    P = protos.load()
    A = P.attr_value_pb2
    if isinstance(v, D.DType):
        return A.AttrValue(type=dtype_enum(v))
    if isinstance(v, TensorShape):
        return A.AttrValue(shape=shape_proto(v))
    if isinstance(v, (bool, np.bool_)):
        return A.AttrValue(b=bool(v))
    if isinstance(v, (int, np.integer)):
        return A.AttrValue(i=int(v))
    if isinstance(v, (float, np.floating)):
        return A.AttrValue(f=float(v))
    if isinstance(v, str):
        return A.AttrValue(s=v.encode("utf-8"))
    if isinstance(v, bytes):
        return A.AttrValue(s=v)
    if isinstance(v, np.ndarray):
        return A.AttrValue(tensor=make_tensor_proto(v, typed_scalars=True))
    if exporter is not None:
        graph = _function_graph(v)
        if graph is not None:
            return A.AttrValue(func=A.NameAttrList(name=exporter.function_name(graph)))
    if isinstance(v, (list, tuple)):
        return A.AttrValue(list=_list_value(v, exporter))
    if v is None:
        return A.AttrValue(s=b"")
    return A.AttrValue(s=str(getattr(v, "__name__", None) or type(v).__name__).encode())


def _function_graph(v):
    if _is_function(v):
        return v
    g = getattr(v, "graph", None)  # a ConcreteFunction
    return g if g is not None and _is_function(g) and hasattr(v, "function_name") else None


def _list_value(values, exporter):
    P = protos.load()
    lst = P.attr_value_pb2.AttrValue.ListValue()
    for x in values:
        if isinstance(x, D.DType):
            lst.type.append(dtype_enum(x))
        elif isinstance(x, TensorShape):
            lst.shape.append(shape_proto(x))
        elif isinstance(x, (bool, np.bool_)):
            lst.b.append(bool(x))
        elif isinstance(x, (int, np.integer)):
            lst.i.append(int(x))
        elif isinstance(x, (float, np.floating)):
            lst.f.append(float(x))
        elif isinstance(x, (str, bytes)):
            lst.s.append(x.encode("utf-8") if isinstance(x, str) else x)
        elif isinstance(x, np.ndarray):
            lst.tensor.append(make_tensor_proto(x, typed_scalars=True))
        elif exporter is not None and _function_graph(x) is not None:
            lst.func.add(name=exporter.function_name(_function_graph(x)))
    return lst

"""A protobuf-shaped view of a graph: GraphDef, NodeDef, AttrValue.

These plain objects have the fields users and exporters read (`node`,
`name`, `op`, `input`, `attr`, `device`, `library.function`), and print in
protobuf text format. The summary writer turns them into real protos.
"""
import numpy as np

from . import dtypes as _dtypes
from .tensor_shape import TensorShape

__all__ = ["GraphDef", "NodeDef", "AttrValue", "FunctionDef", "to_graph_def"]


class AttrValue:
    """One attr value; exactly one of its fields is set (`which`)."""

    __slots__ = ("which", "value")

    def __init__(self, which, value):
        self.which = which  # 'type', 'shape', 'i', 'f', 'b', 's', 'tensor', 'list', 'func'
        self.value = value

    def __getattr__(self, name):
        if name in ("type", "shape", "i", "f", "b", "s", "tensor", "list", "func"):
            return self.value if name == self.which else None
        raise AttributeError(name)

    def HasField(self, name):
        """Whether this attr holds a value of kind `name`."""
        return name == self.which

    def __eq__(self, other):
        return isinstance(other, AttrValue) and (self.which, _key(self.value)) == (
            other.which, _key(other.value))

    def __hash__(self):
        return hash(self.which)

    def _text(self, indent):
        pad = "  " * indent
        v = self.value
        if self.which == "type":
            return "%stype: %s\n" % (pad, _dtypes.datatype_name(v))
        if self.which == "shape":
            return "%sshape {\n%s%s}\n" % (pad, _shape_text(v, indent + 1), pad)
        if self.which in ("i", "f"):
            return "%s%s: %s\n" % (pad, self.which, v)
        if self.which == "b":
            return "%sb: %s\n" % (pad, "true" if v else "false")
        if self.which == "s":
            return '%ss: "%s"\n' % (pad, v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
        if self.which == "func":
            return '%sfunc {\n%s  name: "%s"\n%s}\n' % (pad, pad, v, pad)
        if self.which == "tensor":
            arr = np.asarray(v)
            return "%stensor {\n%s  dtype: %s\n%s  tensor_shape {\n%s%s  }\n%s}\n" % (
                pad, pad, _dtypes.datatype_name(_dtypes.from_numpy(arr.dtype)), pad,
                _shape_text(TensorShape(arr.shape), indent + 2), pad, pad)
        if self.which == "list":
            inner = "".join(AttrValue(*_classify(x))._text(indent + 1) for x in v)
            return "%slist {\n%s%s}\n" % (pad, inner, pad)
        return "%s%s: %r\n" % (pad, self.which, v)

    def __repr__(self):
        return self._text(0).strip()


def _key(v):
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, v.tobytes() if v.dtype.kind != "O" else repr(v.tolist()))
    if isinstance(v, list):
        return tuple(_key(x) for x in v)
    return v


def _shape_text(shape, indent):
    pad = "  " * indent
    if shape.rank is None:
        return "%sunknown_rank: true\n" % pad
    return "".join("%sdim {\n%s  size: %d\n%s}\n" % (pad, pad, -1 if d is None else d, pad)
                   for d in shape)


def _classify(value):
    """The AttrValue field a Python attr value goes in."""
    if isinstance(value, _dtypes.DType):
        return "type", value
    if isinstance(value, TensorShape):
        return "shape", value
    if isinstance(value, (bool, np.bool_)):
        return "b", bool(value)
    if isinstance(value, (int, np.integer)):
        return "i", int(value)
    if isinstance(value, (float, np.floating)):
        return "f", float(value)
    if isinstance(value, str):
        return "s", value.encode()
    if isinstance(value, bytes):
        return "s", value
    if isinstance(value, (np.ndarray, np.generic)):
        return "tensor", value
    if isinstance(value, (list, tuple)):
        return "list", list(value)
    fname = getattr(value, "function_name", None)
    if fname is not None:
        return "func", fname
    if value is None:
        return "s", b""
    if hasattr(value, "value") and hasattr(value, "name") and hasattr(value, "dtype"):
        return "s", str(value.name).encode()  # a variable's storage
    return "s", repr(value).encode()


class NodeDef:
    """One node of a GraphDef: `name`, `op`, `input`, `attr`, `device`."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name, op, inputs, attr, device=""):
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = attr
        self.device = device

    def __str__(self):
        out = 'name: "%s"\nop: "%s"\n' % (self.name, self.op)
        for i in self.input:
            out += 'input: "%s"\n' % i
        if self.device:
            out += 'device: "%s"\n' % self.device
        for k in sorted(self.attr):
            out += 'attr {\n  key: "%s"\n  value {\n%s  }\n}\n' % (k, self.attr[k]._text(2))
        return out

    __repr__ = __str__


class FunctionDef:
    """A function of a graph's library: its name and its own GraphDef."""

    __slots__ = ("name", "graph_def", "signature")

    def __init__(self, name, graph_def, signature=None):
        self.name = name
        self.graph_def = graph_def
        self.signature = signature or {"name": name}

    @property
    def node_def(self):
        """The function body's nodes."""
        return self.graph_def.node


class _Library:
    __slots__ = ("function",)

    def __init__(self):
        self.function = []


class GraphDef:
    """The nodes of a graph (`node`), and the functions they use (`library`)."""

    # `_source`: (graph, ops) this view was made from, so that
    # `tf.io.write_graph` and `tf.import_graph_def` can re-export the ops with
    # TensorFlow's attrs (the view keeps rillflow's).
    __slots__ = ("node", "library", "versions", "_source")

    def __init__(self):
        self.node = []
        self.library = _Library()
        self.versions = {"producer": 2100}
        self._source = None

    def __str__(self):
        return "".join("node {\n%s}\n" % "".join("  " + l + "\n" for l in str(n).splitlines())
                       for n in self.node)

    __repr__ = __str__


def _node_inputs(op):
    names = []
    for t in op.inputs:
        names.append(t.op.name if t.value_index == 0 else "%s:%d" % (t.op.name, t.value_index))
    names.extend("^" + c.name for c in op.control_inputs)
    return names


def _node_attrs(op, add_shapes):
    attrs = {}
    for k, v in op.attrs.items():
        if k.startswith("_"):
            continue
        attrs[k] = AttrValue(*_classify(v))
    if "T" not in attrs and op.inputs and op.type not in ("Const", "Placeholder"):
        attrs["T"] = AttrValue("type", op.inputs[0].dtype)
    if op.type in ("Const", "Placeholder") and "dtype" not in attrs and op.outputs:
        attrs["dtype"] = AttrValue("type", op.outputs[0].dtype)
    if add_shapes:
        attrs["_output_shapes"] = AttrValue("list", [t.shape for t in op.outputs])
    return attrs


def to_graph_def(graph, ops, add_shapes=False):
    """Builds the GraphDef view of `ops` of `graph`, with the functions they use."""
    gd = GraphDef()
    gd._source = (graph, list(ops))
    seen = set()
    for op in ops:
        gd.node.append(NodeDef(op.name, op.type, _node_inputs(op),
                               _node_attrs(op, add_shapes), op.device))
        _collect_functions(op, gd, seen, add_shapes)
    return gd


def _collect_functions(op, gd, seen, add_shapes):
    for v in op.attrs.values():
        for fg in (v if isinstance(v, (list, tuple)) else (v,)):
            name = getattr(fg, "function_name", None)
            if name is None or name in seen or not hasattr(fg, "get_operations"):
                continue
            seen.add(name)
            body = to_graph_def(fg, fg.get_operations(), add_shapes)
            gd.library.function.append(FunctionDef(name, body))
            gd.library.function.extend(body.library.function)
            seen.update(f.name for f in body.library.function)

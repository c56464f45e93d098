"""GraphDefs in TensorFlow's terms: `tf.io.write_graph` and
`tf.import_graph_def` (also `tf.graph_util.import_graph_def`).

A rillflow graph becomes a GraphDef (a `proto_codec` dict) through the
SavedModel's FunctionExporter: every op a NodeDef with TensorFlow's op
name and attrs, inputs as `node` / `node:index` / `^node`, the functions
its ops call in `library`. It is written binary (protobuf wire format) or
as text (protobuf's text format).

Importing reads a GraphDef given as a TensorFlow protobuf object, its
serialized bytes, a dict, or a rillflow `Graph.as_graph_def()` view, and
creates its nodes in the current graph (a `tf.Graph` or a `tf.function`'s)
through the FunctionDef importer's node builder: ops of TensorFlow's
calling convention, `Const`, `NoOp`, calls and functional control flow.
Nothing in a GraphDef is executed while importing, and only registered ops
can be named.
"""
import os

import numpy as np

from ..framework import context as _context
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import placeholder
from ..framework.graph import Operation
from ..framework.graph_def import GraphDef as _GraphDefView
from ..framework.tensor_shape import TensorShape
from ..io import proto_codec, proto_text
from ..ops.core.op_util import tf_type_name
from . import function_import as FI
from . import tf_values as TV
from .function_export import FunctionExporter
from .tf_save import GRAPH_DEF_VERSION

__all__ = ["graph_def_dict", "write_graph", "import_graph_def", "GraphDef"]

_state = _context.state


# --- rillflow graphs as GraphDef dicts -------------------------------------------------------

def graph_def_dict(graph, ops=None):
    """The GraphDef dict of `graph` (or of `ops` of it), in TensorFlow's terms.

    Raises:
      ValueError: for an op whose attrs no AttrValue holds.
    """
    ex = FunctionExporter()
    refs, nodes = {}, []
    for op in graph.get_operations() if ops is None else ops:
        node = ex._node(op, op.name, refs, "graph")
        # A graph's nodes carry no shapes (TensorFlow's as_graph_def()).
        node.get("attr", {}).pop("_output_shapes", None)
        if op.type == "Const":
            _one_value(node["attr"]["value"]["tensor"])
        nodes.append(node)
        # A GraphDef names outputs by position, not by output arg.
        for i, t in enumerate(op.outputs):
            refs[id(t)] = op.name if i == 0 else "%s:%d" % (op.name, i)
    out = {"node": nodes}
    library = ex.library()
    if library["function"]:
        out["library"] = library
    out["versions"] = {"producer": GRAPH_DEF_VERSION["producer"]}
    return out


# TensorProto value fields of one-element tensors, by DataType enum
# (TensorFlow writes `tensor_content` only for more than one element).
_VALUE_FIELDS = {1: ("float_val", "<f4"), 2: ("double_val", "<f8"), 3: ("int_val", "<i4"),
                 4: ("int_val", "u1"), 5: ("int_val", "<i2"), 6: ("int_val", "i1"),
                 9: ("int64_val", "<i8"), 10: ("bool_val", "?"), 17: ("int_val", "<u2"),
                 22: ("uint32_val", "<u4"), 23: ("uint64_val", "<u8")}


def _one_value(tensor):
    """Rewrites a one-element TensorProto dict's `tensor_content` as its
    typed value field, as TensorFlow's make_tensor_proto writes it."""
    field = _VALUE_FIELDS.get(tensor.get("dtype"))
    content = tensor.get("tensor_content")
    if field is None or content is None or len(content) != np.dtype(field[1]).itemsize:
        return
    value = np.frombuffer(content, field[1])[0].item()
    del tensor["tensor_content"]
    tensor[field[0]] = [value]


class _NodeDef:
    """One node of a GraphDef message, over its dict: `name`, `op`, `input`,
    `device` and `attr` (AttrValue dicts by name)."""

    __slots__ = ("_d",)

    def __init__(self, d):
        self._d = d

    name = property(lambda self: self._d.get("name", ""),
                    lambda self, v: self._d.__setitem__("name", v))
    op = property(lambda self: self._d.get("op", ""),
                  lambda self, v: self._d.__setitem__("op", v))
    device = property(lambda self: self._d.get("device", ""),
                      lambda self, v: self._d.__setitem__("device", v))
    input = property(lambda self: self._d.setdefault("input", []))
    attr = property(lambda self: self._d.setdefault("attr", {}))

    def __repr__(self):
        return proto_text.message_to_text(self._d, "tensorflow.NodeDef")


@export("compat.v1.GraphDef")
class GraphDef:
    """A `tensorflow.GraphDef` message with the common surface of
    TensorFlow's protobuf class: `ParseFromString`, `SerializeToString`,
    `node` (read, renamed, rewired), `library`, `versions`, and its text
    format as `str()`. `tf.import_graph_def` and `tf.io.write_graph` take it.
    """

    def __init__(self):
        self._d = {}

    def ParseFromString(self, data):
        """Replaces the message with serialized bytes `data`; returns their length.

        Raises:
          InvalidArgumentError: if `data` is not a serialized GraphDef.
        """
        self._d = _decode(data)
        return len(data)

    def MergeFromString(self, data):
        """Merges serialized bytes `data` in (repeated fields appended)."""
        other = _decode(data)
        for k, v in other.items():
            if isinstance(v, list):
                self._d.setdefault(k, []).extend(v)
            else:
                self._d[k] = v
        return len(data)

    def SerializeToString(self, deterministic=None):
        """The serialized message."""
        return proto_codec.encode(self._d, "tensorflow.GraphDef")

    def CopyFrom(self, other):
        """Makes this message a copy of `other` (a GraphDef)."""
        self._d = _decode(GraphDef.SerializeToString(other) if isinstance(other, GraphDef)
                          else other.SerializeToString())

    def ByteSize(self):
        """The length of the serialized message."""
        return len(self.SerializeToString())

    @property
    def node(self):
        """The nodes (views over the message: changes to them stay)."""
        return [_NodeDef(n) for n in self._d.setdefault("node", [])]

    @property
    def library(self):
        """The FunctionDefLibrary dict."""
        return self._d.setdefault("library", {})

    @property
    def versions(self):
        """The VersionDef dict."""
        return self._d.setdefault("versions", {})

    def __eq__(self, other):
        return isinstance(other, GraphDef) and self._d == other._d

    __hash__ = None

    def __str__(self):
        return proto_text.message_to_text(self._d, "tensorflow.GraphDef")

    __repr__ = __str__


def _decode(data):
    try:
        return proto_codec.decode(bytes(data), "tensorflow.GraphDef")
    except (proto_codec.DecodeError, UnicodeDecodeError, ValueError, TypeError) as e:
        raise errors.InvalidArgumentError(None, None, f"Invalid GraphDef: {e}") from None


def _as_dict(graph_def, what="graph_def"):
    """The GraphDef dict of anything that holds one.

    Raises:
      TypeError: for a value that is not a GraphDef.
      InvalidArgumentError: for bytes that are not a serialized GraphDef.
    """
    if isinstance(graph_def, dict):
        return graph_def
    if isinstance(graph_def, GraphDef):
        return graph_def._d
    if isinstance(graph_def, _GraphDefView):
        if graph_def._source is None:
            raise TypeError(f"Argument `{what}` is a GraphDef view not made by "
                            "Graph.as_graph_def().")
        return graph_def_dict(*graph_def._source)
    if hasattr(graph_def, "get_operations") and hasattr(graph_def, "as_graph_def"):
        return graph_def_dict(graph_def)
    data = graph_def
    if not isinstance(data, (bytes, bytearray, memoryview)):
        serialize = getattr(graph_def, "SerializeToString", None)
        if serialize is None or type(graph_def).__name__ != "GraphDef":
            raise TypeError(f"Argument `{what}` must be a GraphDef proto.")
        data = serialize()
    return _decode(data)


# --- write_graph -----------------------------------------------------------------------------

@export("io.write_graph", "compat.v1.io.write_graph", "compat.v1.train.write_graph")
def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph (a `tf.Graph`, its `as_graph_def()`, or a GraphDef
    proto) to `logdir/name` as a GraphDef, in protobuf text format (the
    default) or binary; creates `logdir` if needed. Returns the file's path.

    Raises:
      TypeError: for something that is not a graph or GraphDef.
    """
    gd = _as_dict(graph_or_graph_def, "graph_or_graph_def")
    path = os.path.join(os.fspath(logdir), os.fspath(name))
    if not str(logdir).startswith("gs:"):
        os.makedirs(os.fspath(logdir), exist_ok=True)
    data = proto_text.message_to_text(gd, "tensorflow.GraphDef").encode("utf-8") if as_text \
        else proto_codec.encode(gd, "tensorflow.GraphDef")
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


# --- import_graph_def ------------------------------------------------------------------------

def _tensor_name(name):
    """'op:index' of a tensor name ('op' means output 0)."""
    if name.startswith("^"):
        return name
    op, sep, index = name.rpartition(":")
    if not sep:
        return name + ":0"
    if not index.isdigit():
        raise ValueError(f"Cannot convert '{name}' to a tensor name. Second component of the "
                         "name following the `:` should be an int. Got "
                         f"{index if index else ''}.")
    return f"{op}:{int(index)}"


class _GraphBuilder(FI._Builder):
    """Builds a GraphDef's nodes into the current graph: FunctionDef
    importing with GraphDef's output naming, an input map and a name
    prefix."""

    def __init__(self, library, nodes, input_map, prefix):
        super().__init__(library, {"signature": {"name": "graph"}, "node_def": nodes}, ())
        self.input_map = input_map
        self.used_inputs = set()
        self.prefix = prefix
        self.input_index = 0
        # 'name:0' -> dtype of each Placeholder, to check what the map feeds.
        self.placeholder_types = {}
        for n in nodes:
            if n.get("op") == "Placeholder" and "dtype" in n.get("attr", {}):
                self.placeholder_types[n.get("name", "") + ":0"] = TV.attr_from_proto(
                    n["attr"]["dtype"], "type")

    def _tensor(self, ref):
        key = _tensor_name(ref)
        if key in self.input_map:
            self.used_inputs.add(key)
            t = self.input_map[key]
            want = self.placeholder_types.get(key)
            if want is not None and getattr(t, "dtype", want) is not want:
                raise ValueError(f"Input {self.input_index} of node {self.prefix}{self.current} "
                                 f"was passed {tf_type_name(t.dtype)} from {t.name} "
                                 f"incompatible with expected {tf_type_name(want)}.")
            self.input_index += 1
            return t
        self.input_index += 1
        op_name, _, index = key.rpartition(":")
        entry = self.nodes.get(op_name)
        if entry is None:
            raise ValueError(f"Node '{self.current}': Unknown input node '{ref}'")
        flat = [t for ts in entry[1].values() for t in ts]
        if int(index) >= len(flat):
            raise ValueError(f"Node '{self.current}': Connecting to invalid output {index} of "
                             f"source node {op_name} which has {len(flat)} outputs.")
        return flat[int(index)]

    def node(self, g, node):
        self.current = node.get("name", "")
        self.input_index = 0
        renamed = dict(node, name=self.prefix + self.current)
        op_type = node.get("op", "")
        if op_type == "Placeholder" and f"{self.current}:0" in self.input_map:
            # Fed through the input map: no placeholder is left unfed.
            mapped = self.input_map[f"{self.current}:0"]
            self.used_inputs.add(f"{self.current}:0")
            self.nodes[self.current] = (node, {"output": [mapped]}, None)
            return
        if op_type == "Placeholder":
            attrs = node.get("attr", {})
            dtype = TV.attr_from_proto(attrs["dtype"], "type") if "dtype" in attrs else None
            shape = TV.attr_from_proto(attrs["shape"], "shape") if "shape" in attrs else None
            if dtype is None:
                raise ValueError(f"Node '{self.current}': Placeholder without a dtype")
            with g.name_scope(None):
                t = placeholder(dtype, shape if isinstance(shape, TensorShape)
                                else TensorShape(None), name=renamed["name"])
            self.nodes[self.current] = (node, {"output": [t]}, t.op)
            return
        if not FI._known(op_type) and op_type not in FI.SPECIAL_OPS:
            raise errors.NotFoundError(
                None, None, f"Op type not registered '{op_type}' in binary running on "
                "rillflow. Make sure the Op and Kernel are registered in the binary running "
                "in this process.")
        # Inputs resolve by the GraphDef's names; the op gets the prefixed one.
        self._node(g, renamed)
        self.nodes[self.current] = self.nodes.pop(renamed["name"])


def _check_names(nodes):
    names = set()
    for n in nodes:
        name = n.get("name", "")
        if not name or name in names:
            raise ValueError(f"Node '{name}' is not unique" if name else
                             "A node of the GraphDef has no name")
        names.add(name)
    return names


@export("import_graph_def", "graph_util.import_graph_def", "compat.v1.import_graph_def",
        "compat.v1.graph_util.import_graph_def")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports the nodes of a GraphDef into the current graph (in a
    `tf.Graph().as_default()` block or a `tf.function`).

    Args:
      graph_def: a GraphDef proto, its serialized bytes, or a rillflow
        `Graph.as_graph_def()`.
      input_map: {tensor name in `graph_def` ('x:0' or 'x'): tensor to use
        instead}.
      return_elements: names of operations ('op') and tensors ('op:0') of
        `graph_def` to return (imported).
      name: prefix of the imported names ("import" by default, "" for none).

    Returns:
      The imported operations and tensors named by `return_elements`, in its
      order, or None.

    Raises:
      TypeError: for a `graph_def` that is not a GraphDef.
      ValueError: for an unknown input or return element, or a malformed
        GraphDef.
      NotFoundError: for an op type rillflow does not have.
    """
    del op_dict, producer_op_list  # TensorFlow ignores them too
    if isinstance(return_elements, str):
        return_elements = [return_elements]
    gd = _as_dict(graph_def)
    g = _state.graph
    if g is None:
        raise RuntimeError("tf.import_graph_def imports into a graph: call it inside "
                           "`with tf.Graph().as_default():` or a tf.function (rillflow has "
                           "no global default graph while executing eagerly).")
    imap = {}
    for k, v in (input_map or {}).items():
        if not isinstance(k, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor "
                            "objects.")
        imap[_tensor_name(k)] = v if isinstance(v, Operation) else convert_to_tensor(v)
    nodes = list(gd.get("node", []))
    names = _check_names(nodes)
    requested = [_tensor_name(r) if ":" in r else r for r in return_elements or []]
    for r in requested:
        if ":" in r:
            if r.rpartition(":")[0] not in names:
                raise ValueError(f"Requested return tensor '{r}' not found in graph def")
        elif r not in names:
            raise ValueError(f"Requested return node '{r}' not found in graph def")
    missing = sorted(k for k in imap if k.rpartition(":")[0] not in names)
    if missing:
        raise ValueError("Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(missing)}]")
    if name is None or name:
        prefix = g.unique_name(name or "import") + "/"
    else:
        prefix = ""
    library = FI.FunctionLibrary(gd.get("library", {}))
    builder = _GraphBuilder(library, nodes, imap, prefix)
    try:
        order = FI._topological(nodes, {})
    except errors.InvalidArgumentError as e:
        raise ValueError(str(e)) from None
    with g.name_scope(None):
        for node in order:
            try:
                builder.node(g, node)
            except errors.InvalidArgumentError as e:
                # A node TensorFlow's importer rejects (wrong input dtypes,
                # bad attrs) is a ValueError there.
                raise ValueError(e.message) from None
    out = []
    for r in requested:
        if ":" in r:
            op_name, _, index = r.rpartition(":")
            flat = [t for ts in builder.nodes[op_name][1].values() for t in ts]
            if int(index) >= len(flat):
                raise ValueError(f"Invalid return output {index} of node '{op_name}', which "
                                 f"has {len(flat)} output(s)")
            out.append(flat[int(index)])
        else:
            op = builder.nodes[r][2]
            if op is None:
                raise ValueError(f"Requested return node '{r}' has no operation in rillflow")
            out.append(op)
    return out if return_elements is not None else None


"""`rillflow saved-model show DIR`: what a SavedModel holds, read from its
`saved_model.pb` without running or importing anything, in
`saved_model_cli show`'s layout: the tag-sets; each SignatureDef's inputs
and outputs (dtype, shape, tensor name) and method; the saved functions
with the argument specs of each trace; the variables with their object
path, dtype and shape.
"""
from ..ops.core.op_util import tf_type_name
from . import tf_load
from . import tf_values as TV

__all__ = ["describe"]


def _dtype_name(enum):
    if not enum:
        return "DT_INVALID"
    try:
        return "DT_" + tf_type_name(TV.dtype_from_enum(enum)).upper()
    except Exception:  # noqa: BLE001 - an unknown enum is printed, not refused
        return "DT_%d" % enum


def _shape_text(p):
    shape = TV.shape_from_proto(p or {})
    if shape.rank is None:
        return "unknown_rank"
    dims = [-1 if d is None else d for d in shape.as_list()]
    return "(" + ", ".join(str(d) for d in dims) + ")"   # saved_model_cli's "(2)"


def _tensor_info(lines, kind, key, info):
    lines.append(f"    {kind}['{key}'] tensor_info:")
    lines.append(f"        dtype: {_dtype_name(info.get('dtype', 0))}")
    lines.append(f"        shape: {_shape_text(info.get('tensor_shape'))}")
    if "name" in info:
        lines.append(f"        name: {info['name']}")
    elif "composite_tensor" in info:
        lines.append("        composite tensor")


def _signature(lines, key, sig):
    lines.append("")
    lines.append(f"signature_def['{key}']:")
    lines.append("  The given SavedModel SignatureDef contains the following input(s):")
    for k in sorted(sig.get("inputs", {})):
        _tensor_info(lines, "inputs", k, sig["inputs"][k])
    lines.append("  The given SavedModel SignatureDef contains the following output(s):")
    for k in sorted(sig.get("outputs", {})):
        _tensor_info(lines, "outputs", k, sig["outputs"][k])
    lines.append(f"  Method name is: {sig.get('method_name', '')}")


def _spec_text(v):
    return repr(v) if v is not None else "None"


def _functions(lines, graph):
    nodes = graph.get("nodes", [])
    concrete = graph.get("concrete_functions", {})
    named = []
    for path, i in _paths(nodes):
        f = nodes[i].get("function")
        if f is not None:
            named.append((path, f.get("concrete_functions", [])))
    if not named:
        return
    lines.append("")
    lines.append("Concrete Functions:")
    for path, names in named:
        lines.append(f"  Function Name: '{path}'")
        for k, name in enumerate(names, 1):
            saved = concrete.get(name, {})
            lines.append(f"    Option #{k}")
            lines.append("      Callable with:")
            try:
                args, kwargs = TV.structure_from_proto(
                    saved.get("canonicalized_input_signature", {}))
            except Exception:  # noqa: BLE001 - shown as unreadable, not refused
                lines.append("        (unreadable signature)")
                continue
            for j, a in enumerate(args, 1):
                lines.append(f"        Argument #{j}")
                lines.append(f"          {_spec_text(a)}")
            for kw in sorted(kwargs):
                lines.append(f"        Named Argument #{kw}")
                lines.append(f"          {kw}: {_spec_text(kwargs[kw])}")


def _variables(lines, graph):
    nodes = graph.get("nodes", [])
    found = [(path, nodes[i]["variable"]) for path, i in _paths(nodes)
             if "variable" in nodes[i]]
    if not found:
        return
    lines.append("")
    lines.append("Variables:")
    for path, v in found:
        lines.append(f"  {path}: {_dtype_name(v.get('dtype', 0))} {_shape_text(v.get('shape'))}"
                     f" (name: {v.get('name', '')}"
                     f"{', trainable' if v.get('trainable') else ''})")


def _paths(nodes):
    """(first breadth-first path, node id) of every node reachable from the
    root, the root left out."""
    out, seen, queue = [], {0}, [((), 0)]
    while queue:
        path, i = queue.pop(0)
        for ref in nodes[i].get("children", []):
            j = ref.get("node_id", 0)
            if j in seen or not 0 <= j < len(nodes):
                continue
            seen.add(j)
            p = path + (ref.get("local_name", ""),)
            out.append((".".join(p), j))
            queue.append((p, j))
    return out


def describe(export_dir, tag_set=None, signature_def=None):
    """The text `rillflow saved-model show` prints for `export_dir`: every
    MetaGraphDef (or the one with `tag_set`, comma-separated tags), or just
    the SignatureDef `signature_def` of it.

    Raises:
      OSError: if there is no saved_model.pb.
      DataLossError: if it is not a SavedModel.
      RuntimeError: if no MetaGraphDef has `tag_set`.
    """
    proto = tf_load.read_saved_model(export_dir)
    graphs = proto["meta_graphs"]
    if tag_set is not None:
        graphs = [tf_load.meta_graph(proto, [t for t in tag_set.split(",") if t])]
    lines = []
    for mg in graphs:
        tags = ", ".join(mg.get("meta_info_def", {}).get("tags", []))
        sigs = mg.get("signature_def", {})
        if signature_def is not None:
            if signature_def not in sigs:
                raise ValueError(f"Could not find signature \"{signature_def}\". Please "
                                 f"choose from: {', '.join(sorted(sigs))}")
            _signature(lines, signature_def, sigs[signature_def])
            continue
        lines.append("")
        lines.append(f"MetaGraphDef with tag-set: '{tags}' contains the following "
                     "SignatureDefs:")
        for key in sorted(sigs):
            _signature(lines, key, sigs[key])
        graph = mg.get("object_graph_def", {})
        _functions(lines, graph)
        _variables(lines, graph)
    return "\n".join(lines).lstrip("\n") + "\n"

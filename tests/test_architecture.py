"""The layout rules of docs/architecture.md, checked on the source.

The import graph of `rillflow/` is built from the code with `ast`: every `import` and
`from ... import` of a rillflow module, at module level or inside a function (an import
inside a function is still a dependency; it only hides a cycle from the interpreter).
The graph must have no cycle and no import from a lower layer to a higher one, except the
ones listed below, each with its reason. A module over MAX_LINES lines must say in its
docstring why it is one piece.
"""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rillflow")

# The layers, lowest first: a module may import its own layer and the ones below it.
# The first matching prefix decides (longer prefixes are listed before shorter ones).
LAYERS = [
    ("rillflow.framework", 0),
    ("rillflow.io", 1),
    ("rillflow.ops.kernels", 2),
    ("rillflow.ops.late", 2),
    ("rillflow.ops.core", 3),
    ("rillflow.ops.gradients", 4),
    ("rillflow.ops.tensor_operators", 6),
    ("rillflow.ops.", 5),
    ("rillflow.ops", 6),
    ("rillflow.compiler", 7),
    ("rillflow.function", 8),
    ("rillflow.autograph", 8),
    ("rillflow.eager", 9),
    ("rillflow.data", 9),
    ("rillflow.saved_model", 9),
    ("rillflow.summary", 9),
    ("rillflow.distribute", 9),
    ("rillflow.feature_column", 9),
    ("rillflow.testing", 9),
    ("rillflow.compat", 10),
    ("rillflow._api", 10),
    ("rillflow.cli", 11),
    ("rillflow.demo", 11),
    ("rillflow.__main__", 11),
    ("rillflow", 10),
]

# Cycles that are the honest shape of the domain: {frozenset of modules: reason}.
ALLOWED_CYCLES = {
}

# Imports from a lower layer to a higher one: {(importer, imported): reason}.
ALLOWED_UPWARD = {
}

MAX_LINES = 800


def _modules():
    """{dotted module name: path} for every module under rillflow/."""
    out = {}
    base = os.path.dirname(ROOT)
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for f in filenames:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                if name.endswith(".__init__"):
                    name = name[:-len(".__init__")]
                out[name] = path
    return out


def import_graph():
    """{module: set of rillflow modules it imports}, function-level imports included."""
    mods = _modules()
    graph = {m: set() for m in mods}
    for name, path in mods.items():
        is_pkg = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = name.split(".") if is_pkg else name.split(".")[:-1]
                    parts = parts[:len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    if base + "." + alias.name in mods:
                        targets.append(base + "." + alias.name)
                    elif base in mods:
                        targets.append(base)
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name in mods]
            graph[name].update(t for t in targets if t != name)
    return graph


def layer(module):
    """The layer number of `module` (see LAYERS)."""
    for prefix, rank in LAYERS:
        if module == prefix or module.startswith(prefix if prefix.endswith(".")
                                                 else prefix + "."):
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def test_every_module_has_a_layer():
    for module in _modules():
        layer(module)


def test_no_import_cycles_but_the_listed_ones():
    found = set(cycles(import_graph()))
    new = [sorted(c) for c in found if c not in ALLOWED_CYCLES]
    assert not new, f"import cycles: {new}"
    stale = [sorted(c) for c in ALLOWED_CYCLES if c not in found]
    assert not stale, f"listed cycles that are gone (remove them from ALLOWED_CYCLES): {stale}"


def test_no_lower_layer_imports_a_higher_one():
    graph = import_graph()
    upward = {(a, b) for a, bs in graph.items() for b in bs if layer(b) > layer(a)}
    new = sorted(upward - set(ALLOWED_UPWARD))
    assert not new, "imports from a lower layer to a higher one: " + ", ".join(
        f"{a} (layer {layer(a)}) -> {b} (layer {layer(b)})" for a, b in new)
    stale = sorted(set(ALLOWED_UPWARD) - upward)
    assert not stale, f"listed upward imports that are gone: {stale}"


def test_long_modules_say_why_they_are_one_piece():
    long = []
    for name, path in _modules().items():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.count("\n") > MAX_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "one piece" not in doc:
                long.append(f"{name} ({text.count(chr(10))} lines)")
    assert not long, f"modules over {MAX_LINES} lines whose docstring does not say why " \
        f"they are one piece: {long}"


# --- the checker itself ----------------------------------------------------------------

def test_cycles_finds_components_and_ignores_chains():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "g": set()}
    assert set(cycles(g)) == {frozenset("abc"), frozenset("ef")}
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_import_graph_sees_function_level_and_relative_imports():
    graph = import_graph()
    # math_ops imports op_util at module level (relative, one dot)
    assert "rillflow.ops.core.op_util" in graph["rillflow.ops.core.math_ops"]
    # the package __init__ imports its families
    assert "rillflow.ops.core.shape_ops" in graph["rillflow.ops"]


@pytest.mark.parametrize("module,rank", [("rillflow.framework.tensor", 0),
                                         ("rillflow.ops.core.math_ops", 3),
                                         ("rillflow.ops.nn.activations", 5),
                                         ("rillflow.ops", 6),
                                         ("rillflow.data.dataset_ops", 9)])
def test_layer_of(module, rank):
    assert layer(module) == rank


# --- rillflow/ops/late.py: the one place the core ops reach each other at run time -----

def test_late_names_resolve_to_the_modules_its_table_names():
    import importlib
    from rillflow.ops import late
    for module, names in late.WHERE.items():
        mod = importlib.import_module("rillflow.ops." + module)
        for name in names:
            assert getattr(late, name) is getattr(mod, name), name
    with pytest.raises(AttributeError, match="lends no 'no_such_op'"):
        late.no_such_op


def test_late_is_used_by_the_core_and_the_backprop_engine_only():
    users = {m for m, deps in import_graph().items() if "rillflow.ops.late" in deps}
    assert users and all(m.startswith(("rillflow.ops.core.", "rillflow.ops.gradients."))
                         for m in users), sorted(users)
    from rillflow.ops import late
    assert all(m.startswith(("core.", "gradients.", "control_flow.list_ops"))
               for m in late.WHERE), sorted(late.WHERE)
    assert not import_graph()["rillflow.ops.late"]


# --- docs/architecture.md names what exists ---------------------------------------------

def _doc():
    with open(os.path.join(os.path.dirname(ROOT), "docs", "architecture.md"),
              encoding="utf-8") as f:
        return f.read()


def test_architecture_doc_names_only_files_that_exist():
    import re
    doc = _doc()
    base = os.path.dirname(ROOT)
    files = {os.path.relpath(p, base).replace(os.sep, "/") for p in _modules().values()}
    basenames = {f.rsplit("/", 1)[-1] for f in files}
    missing = []
    for ref in set(re.findall(r"`([\w/]+\.py)", doc)):
        if ref.startswith(("tests/", "benchmarks/", "tools/")):
            if not os.path.exists(os.path.join(base, ref)):
                missing.append(ref)
        elif "/" in ref:
            if not any(f == ref or f.endswith("/" + ref) for f in files):
                missing.append(ref)
        elif ref not in basenames:
            missing.append(ref)
    for ref in set(re.findall(r"`((?:rillflow/)?ops/\w+)/`", doc)):
        if not os.path.isdir(os.path.join(ROOT, ref.replace("rillflow/", ""))):
            missing.append(ref)
    assert not missing, f"docs/architecture.md names files that do not exist: {sorted(missing)}"


def test_architecture_doc_lists_every_op_family_and_its_modules():
    doc = _doc()
    ops = os.path.join(ROOT, "ops")
    for family in sorted(os.listdir(ops)):
        folder = os.path.join(ops, family)
        if not os.path.isdir(folder) or family == "__pycache__":
            continue
        assert f"`ops/{family}/`" in doc, f"docs/architecture.md does not list ops/{family}/"
        row = next(line for line in doc.splitlines() if line.startswith(f"| `ops/{family}/`"))
        for f in sorted(os.listdir(folder)):
            if f.endswith(".py") and f != "__init__.py":
                assert f"`{f[:-3]}`" in row, f"the ops/{family}/ row does not name {f[:-3]}"


def test_every_late_name_used_is_in_its_table():
    from rillflow.ops import late
    lent = {n for names in late.WHERE.values() for n in names}
    unknown = []
    for name, path in _modules().items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "late" and node.attr not in lent):
                unknown.append(f"{name}:{node.lineno} late.{node.attr}")
    assert not unknown, f"names used through late but missing from late.WHERE: {unknown}"

"""Runs the code cells of one of TensorFlow's guides (a notebook of
tensorflow/docs) with TensorFlow and with rillflow (`import rillflow as tf`),
each in its own process, and compares each cell's output: what it prints,
then the repr of its last expression, as a notebook shows them (or the
exception it raises). tools/guide_ragged.py and guide_extension_type.py run
it on their guides.

The notebook is read at run time (`--notebook`, or by default from a local
git mirror of tensorflow/docs), not copied here. IPython-only lines (`!pip`,
`x?`) are dropped.
"""
import argparse
import ast
import contextlib
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = "/work/.mirror/tensorflow+docs/repo"


def load_cells(notebook, nb_path):
    """The code cells' sources (the licence cell left out), from `notebook`
    or from `nb_path` in the tensorflow/docs mirror."""
    if notebook:
        with open(notebook) as f:
            text = f.read()
    else:
        text = subprocess.run(["git", "-C", MIRROR, "show", f"HEAD:{nb_path}"],
                              capture_output=True, text=True, check=True).stdout
    cells = ["".join(c["source"]) for c in json.loads(text)["cells"]
             if c["cell_type"] == "code"]
    return [c for c in cells if not c.lstrip().startswith("#@title")]


def _clean(src):
    """The cell without IPython-only lines."""
    keep = [ln for ln in src.splitlines()
            if not ln.lstrip().startswith("!") and not ln.rstrip().endswith("?")]
    return "\n".join(keep)


def run_cell(src, env):
    """What the cell shows: its printed text, the repr of a final expression,
    or the exception it raises (class and message)."""
    out = io.StringIO()
    try:
        tree = ast.parse(_clean(src))
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        body = tree.body[:-1] if last is not None else tree.body
        with contextlib.redirect_stdout(out):
            exec(compile(ast.Module(body, []), "<cell>", "exec"), env)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), env)
                if value is not None:
                    print(repr(value))
    except Exception as e:  # noqa: BLE001 (the cell's error is its output)
        out.write(f"!! {type(e).__name__}: {e}\n")
    return out.getvalue()


def worker(lib, notebook, nb_path):
    """Runs every cell with `lib` in one namespace; prints JSON [output]."""
    if lib == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        sys.path.insert(0, os.path.join(HERE, ".."))
        import rillflow as tf
        from rillflow.compat import tensorflow_shim
        # `import tensorflow.experimental.numpy as tnp` needs the namespaces too.
        tensorflow_shim.install()
    sys.modules["tensorflow"] = tf     # the cells' own `import tensorflow as tf`
    tf.random.set_seed(0)
    env = {"__name__": "__guide__"}
    outputs = [run_cell(c, env) for c in load_cells(notebook, nb_path)]
    sys.stdout.write(json.dumps(outputs))


def main(nb_path, description):
    """Runs both workers on the guide at `nb_path` (in tensorflow/docs) and
    prints how many cells match; the calling script (`sys.argv[0]`) is rerun
    as each worker."""
    p = argparse.ArgumentParser(description=description.splitlines()[0])
    p.add_argument("--worker")
    p.add_argument("--notebook")
    p.add_argument("--tensorflow-python", default="/work/tfref/bin/python")
    p.add_argument("--show-diff", action="store_true")
    a = p.parse_args()
    if a.worker:
        worker(a.worker, a.notebook, nb_path)
        return
    extra = ["--notebook", a.notebook] if a.notebook else []
    res = {}
    for lib, py in (("rillflow", sys.executable), ("tensorflow", a.tensorflow_python)):
        r = subprocess.run([py, os.path.abspath(sys.argv[0]), "--worker", lib] + extra,
                           capture_output=True, text=True)
        res[lib] = json.loads(r.stdout)
    cells = load_cells(a.notebook, nb_path)
    same = [i for i, (x, y) in enumerate(zip(res["rillflow"], res["tensorflow"])) if x == y]
    print(f"{len(same)} of {len(cells)} code cells give TensorFlow's output")
    for i, (x, y) in enumerate(zip(res["rillflow"], res["tensorflow"])):
        if x != y:
            first = cells[i].strip().splitlines()[0][:70]
            print(f"cell {i}: differs ({first})")
            if a.show_diff:
                print("  rillflow:  ", x.replace("\n", "\n    ")[:800])
                print("  tensorflow:", y.replace("\n", "\n    ")[:800])


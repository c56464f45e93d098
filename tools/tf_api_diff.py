"""Lists TensorFlow 2's public names that rillflow lacks (project issue 22).

Run with TensorFlow's Python (tensorflow-cpu 2.21 here); rillflow is checked in
a second process, so neither has to be importable in the other's environment:

    /work/tfref/bin/python tools/tf_api_diff.py [--rillflow-python PY] [--all]
        [--namespace image] [--json OUT] [--snapshot]

`--snapshot` also writes TensorFlow's list, and the names rillflow has, to
tests/data/tf_public_names.json (SNAPSHOT): tests/test_public_api_snapshot.py
fails when a name rillflow once had disappears. The names once had are kept
across snapshots (a name removed on purpose is taken out of the file by hand).
Without TensorFlow, `--from-snapshot` reports against that file instead of a
walk (run it with rillflow's Python):

    python tools/tf_api_diff.py --from-snapshot

It walks `tf`'s public API modules (`tensorflow._api.v2.*`), leaving out the
namespaces rillflow does not mean to cover (`EXCLUDED`: Keras and its aliases,
`tf.compat`, `tf.raw_ops` (generated from the op table instead),
`tf.experimental.numpy`, the TPU, Lite and DTensor corners, the internal
modules), and prints the names rillflow does not resolve, grouped by
namespace, with counts. `--all` also prints the present names.
"""
import argparse
import json
import os
import subprocess
import sys
import types

# Namespaces left out, as dotted paths under tf (a prefix excludes its children).
EXCLUDED = (
    "keras", "losses", "metrics", "optimizers", "initializers",  # Keras 3 (the keras extra)
    "compat", "raw_ops", "experimental.numpy",
    "tpu", "lite", "dtensor", "experimental.dtensor", "distribute.experimental.rpc",
    "mlir", "tools", "security", "sysconfig", "__internal__", "__operators__",
    "distribute.cluster_resolver.TPUClusterResolver",
    "distribute.experimental.TPUStrategy", "distribute.TPUStrategy",
    "config.experimental.reset_memory_stats",  # GPU-only corners are kept; this one too
)
# Names whose TPU-ness is in the name: left out wherever they are.
_TPU_WORDS = ("TPU", "tpu_", "Tpu")

DEFAULT_RILLFLOW_PYTHON = "/work/venv/bin/python"
SNAPSHOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests", "data", "tf_public_names.json")


def _excluded(path):
    if any(path == e or path.startswith(e + ".") for e in EXCLUDED):
        return True
    leaf = path.rpartition(".")[2]
    return any(w in leaf for w in _TPU_WORDS)


def tf_names():
    """{dotted name under tf: 'module' | 'class' | 'function' | 'value'}."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    out = {}
    seen = set()

    def walk(mod, prefix):
        if id(mod) in seen:
            return
        seen.add(id(mod))
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            path = prefix + name
            if _excluded(path):
                continue
            try:
                obj = getattr(mod, name)
            except Exception:  # a lazily loaded corner that fails to import
                continue
            if isinstance(obj, types.ModuleType):
                # Only TensorFlow's generated API modules are namespaces; the
                # others (tf.tools, ...) are internals leaking through.
                if not obj.__name__.startswith("tensorflow._api.v2"):
                    continue
                out[path] = "module"
                walk(obj, path + ".")
            elif isinstance(obj, type):
                out[path] = "class"
            elif callable(obj):
                out[path] = "function"
            else:
                out[path] = "value"

    walk(tf, "")
    return out


_CHECK = r"""
import json, sys, types
sys.path.insert(0, sys.argv[1])
import rillflow
names = json.load(sys.stdin)
missing = []
for n in names:
    obj = rillflow
    for part in n.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            missing.append(n)
            break
json.dump(missing, sys.stdout)
"""


def rillflow_missing(names, python, root):
    """The subset of `names` that `rillflow.<name>` does not resolve, checked by
    `python` with `root` on its path."""
    proc = subprocess.run([python, "-c", _CHECK, root], input=json.dumps(sorted(names)),
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        raise SystemExit("rillflow's check failed")
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def write_snapshot(names, present):
    """Writes SNAPSHOT: TensorFlow's names with their kinds, and the names rillflow
    has now together with those it had in the previous snapshot."""
    had = set(present)
    if os.path.exists(SNAPSHOT):
        with open(SNAPSHOT) as f:
            had |= set(json.load(f).get("rillflow_had", ()))
    import tensorflow as tf
    with open(SNAPSHOT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "excluded": list(EXCLUDED),
                   "names": dict(sorted(names.items())),
                   "rillflow_had": sorted(had & set(names))}, f, indent=0)
        f.write("\n")
    print(f"wrote {SNAPSHOT}: {len(names)} names, rillflow has had {len(had & set(names))}")


def main(argv=None):
    """Prints the missing names by namespace and the counts."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rillflow-python", default=DEFAULT_RILLFLOW_PYTHON)
    p.add_argument("--root", default=here, help="the rillflow checkout to check")
    p.add_argument("--namespace", default=None, help="only names under tf.<namespace>")
    p.add_argument("--all", action="store_true", help="print present names too")
    p.add_argument("--json", default=None, help="write {missing, present} as JSON")
    p.add_argument("--snapshot", action="store_true",
                   help=f"write TensorFlow's names and rillflow's present ones to {SNAPSHOT}")
    p.add_argument("--from-snapshot", action="store_true",
                   help="take TensorFlow's names from the snapshot (no TensorFlow needed)")
    args = p.parse_args(argv)
    if args.from_snapshot:
        with open(SNAPSHOT) as f:
            names = json.load(f)["names"]
        args.rillflow_python = sys.executable
    else:
        names = tf_names()
    full_names = dict(names)
    if args.namespace:
        names = {n: k for n, k in names.items() if n.startswith(args.namespace + ".")}
    missing = rillflow_missing(names, args.rillflow_python, args.root)
    # A missing namespace implies its children: report only its own line.
    roots = sorted(n for n in missing
                   if not any(n.startswith(m + ".") for m in missing if m != n))
    by_ns = {}
    for n in roots:
        by_ns.setdefault(n.rpartition(".")[0] or "(top level)", []).append(n)
    for ns in sorted(by_ns):
        print(f"tf.{ns}: {len(by_ns[ns])} missing" if ns != "(top level)"
              else f"tf: {len(by_ns[ns])} missing")
        for n in by_ns[ns]:
            kind = names[n]
            below = sum(1 for m in missing if m.startswith(n + "."))
            extra = f" (+{below} names under it)" if below else ""
            print(f"    {n}  [{kind}]{extra}")
    if args.all:
        print("present:")
        for n in sorted(set(names) - missing):
            print("    " + n)
    print(f"\n{len(names)} public names walked, {len(names) - len(missing)} present, "
          f"{len(missing)} missing ({len(roots)} not counting names under a missing namespace)")
    if args.snapshot and not args.from_snapshot:
        if args.namespace:
            raise SystemExit("--snapshot needs the whole walk (no --namespace)")
        write_snapshot(full_names, set(names) - missing)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"missing": sorted(missing), "present": sorted(set(names) - missing),
                       "kinds": names}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

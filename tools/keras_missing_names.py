"""Lists the `tf.*` names Keras 3's TensorFlow backend uses that rillflow lacks.

Run with a Python that has keras installed (the `keras` extra):

    python tools/keras_missing_names.py [--all]

It scans keras/src/backend/tensorflow/*.py and every keras/src/**/tensorflow*.py
(tests excluded) for dotted `tf.` / `tf_data.` references and resolves each on
rillflow; `--all` prints the resolved names too. A name is reported missing when
attribute lookup fails on rillflow (stubs that raise NotImplementedError on use
count as present, so read the report with that in mind).
"""
import glob
import os
import re
import sys

_REF = re.compile(r"\b(tf|tf_data|tf_backend)\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)")


def keras_sources():
    """The non-test Keras source files written against TensorFlow."""
    import importlib.util
    spec = importlib.util.find_spec("keras")
    root = os.path.dirname(spec.origin)
    files = set(glob.glob(os.path.join(root, "src", "backend", "tensorflow", "*.py")))
    files |= set(glob.glob(os.path.join(root, "src", "**", "*tensorflow*.py"), recursive=True))
    return sorted(f for f in files if not f.endswith("_test.py"))


def referenced_names(files):
    """{dotted name under tf: set of files using it}."""
    out = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for alias, name in _REF.findall(text):
            full = ("data." + name) if alias == "tf_data" else name
            out.setdefault(full, set()).add(os.path.basename(path))
    return out


def resolve(name):
    """True when `rillflow.<name>` resolves (prefix of a method call included:
    `tf.foo.bar` where bar is looked up on the object foo)."""
    import rillflow
    obj = rillflow
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
    return True


def main(argv=None):
    """Prints the missing names (and with --all the present ones)."""
    argv = sys.argv[1:] if argv is None else argv
    # tf.__internal__ exists only while rillflow stands in for tensorflow.
    from rillflow.compat import tensorflow_shim
    tensorflow_shim.install()
    names = referenced_names(keras_sources())
    missing = sorted(n for n in names if not resolve(n))
    # Only report the shortest missing prefix: tf.a.b is implied missing by tf.a.
    roots = [n for n in missing if not any(n.startswith(m + ".") for m in missing if m != n)]
    print(f"{len(names)} tf.* names referenced, {len(roots)} missing in rillflow:")
    for n in roots:
        print(f"  tf.{n:55s} {', '.join(sorted(names[n]))}")
    if "--all" in argv:
        print("present:")
        for n in sorted(set(names) - set(missing)):
            print("  tf." + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())

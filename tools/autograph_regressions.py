"""Turns the minimized divergences that tools/autograph_property.py writes
(--cases DIR) into regression tests: each program, its two argument tuples
and TensorFlow's outcomes are added to tests/data/autograph_regressions.json,
which tests/test_autograph_regressions.py runs (rillflow must give Python's
value, or the exception TensorFlow or Python raises).

    python tools/autograph_regressions.py CASE_DIR_OR_FILE [...]

A case file carries its program as a `# program-json:` header line; older
case files without it are read from their source and header comments.
"""
import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "data", "autograph_regressions.json")


class _FakeTF:
    """Evaluates `tf.constant(v, dtype=tf.float32)` argument text into the
    generator's argument specs."""

    def __getattr__(self, name):
        return name

    @staticmethod
    def constant(value, dtype="float32"):
        return ("tensor", dtype, value)


def _spec(a):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        return list(a)
    return ["bool" if isinstance(a, bool) else "int", a]


def read_case(path):
    """{"program": Program.to_json(), "tf": [[kind, class], ...]} of a case file."""
    text = open(path).read()
    m = re.search(r"^# program-json: (.*)$", text, re.M)
    if m:
        d = json.loads(m.group(1))
        tf = d["tf"]["function"] if d["tf"] else None
        return {"program": d["program"],
                "tf": [[o[0], o[1] if o[0] == "error" else None] for o in tf] if tf else None}
    seed = int(re.search(r"from generated seed (\d+)", text).group(1))
    start = text.index("    import rillflow as tf\n") + len("    import rillflow as tf\n")
    end = text.index("\nif __name__ == '__main__':")
    source = text[start:end].strip("\n") + "\n"
    args_text = re.search(r"^    for args in (\[.*\]):$", text, re.M).group(1)
    args = eval(compile(ast.parse(args_text, mode="eval"), path, "eval"),  # noqa: S307
                {"tf": _FakeTF()})
    tf = []
    for line in re.findall(r"^#   TF 2\.21:  (.*)$", text, re.M):
        mm = re.match(r"raises (\w+)", line)
        tf.append(["error", mm.group(1)] if mm else ["value", None])
    return {"program": {"seed": seed, "source": source,
                        "args1": [_spec(a) for a in args[0]],
                        "args2": [_spec(a) for a in args[1]]},
            "tf": tf or None}


def main(paths):
    """Adds the cases under `paths` to the regression fixture."""
    data = {"generated_by": "tools/autograph_regressions.py (minimized cases of "
                            "tools/autograph_property.py; TensorFlow 2.21 outcomes)",
            "cases": []}
    if os.path.exists(FIXTURE):
        with open(FIXTURE) as f:
            data = json.load(f)
    seen = {json.dumps(c["program"], sort_keys=True) for c in data["cases"]}
    added = 0
    for p in paths:
        files = sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".py")) \
            if os.path.isdir(p) else [p]
        for f in files:
            case = read_case(f)
            key = json.dumps(case["program"], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            data["cases"].append(case)
            added += 1
    with open(FIXTURE, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("added %d cases; %d in %s" % (added, len(data["cases"]), FIXTURE))


if __name__ == "__main__":
    main(sys.argv[1:])

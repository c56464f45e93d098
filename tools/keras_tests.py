"""Runs Keras' own test suite on its TensorFlow backend, on real TensorFlow
and on rillflow, and compares the outcomes per test.

Keras' tests are not part of rillflow: they run from a checkout of the keras
repository at the tag of the supported version (3.15.1), e.g.

    git clone --branch v3.15.1 https://github.com/keras-team/keras /tmp/keras

The checkout's `keras/` package is what the tests import, so each Python
needs Keras' dependencies (namex, rich, optree, h5py, ml_dtypes, absl-py,
pytest, pytest-xdist) but not necessarily keras itself.

    # TensorFlow's outcomes (a venv with tensorflow-cpu==2.21.0):
    python tools/keras_tests.py --keras /tmp/keras --python /tf/bin/python \\
        --tensorflow --json tf.json
    # rillflow's, compared with TensorFlow's:
    python tools/keras_tests.py --keras /tmp/keras --python /rf/bin/python \\
        --json rf.json --compare tf.json

A directory's tests run in one pytest process (`-n JOBS` with xdist), with a
timeout per directory; the outcome of every test id is read from pytest's
JUnit XML. With --compare the report gives, per directory, the tests that
pass on TensorFlow, how many of them pass on rillflow, and the ones that do
not, with the first line of their failure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

DIRS = ("layers", "models", "trainers", "optimizers", "losses", "metrics", "saving",
        "callbacks", "backend/tensorflow")

_RUN_ON_RILLFLOW = "import sys; from rillflow.cli import main; sys.exit(main(['run', '-m', 'pytest'] + sys.argv[1:]))"


def _outcomes(xml_path):
    """{test id: (outcome, first line of the message)} from a JUnit XML file."""
    out = {}
    try:
        root = ET.parse(xml_path).getroot()
    except (ET.ParseError, FileNotFoundError):
        return out
    for case in root.iter("testcase"):
        cls = case.get("classname", "")
        tid = f"{cls}::{case.get('name')}"
        outcome, msg = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                msg = (child.get("message") or child.text or "").strip().splitlines()
                msg = msg[0][:300] if msg else ""
                break
            if child.tag == "skipped":
                outcome, msg = "skipped", (child.get("message") or "")[:200]
        out[tid] = (outcome, msg)
    return out


def run_dir(args, directory):
    """Runs one test directory; returns (outcomes, seconds, status)."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        pytest_args = [f"keras/src/{directory}", "-q", "-p", "no:cacheprovider",
                       "--junitxml", xml, "-o", "junit_family=xunit1"]
        if args.jobs > 1:
            pytest_args += ["-n", str(args.jobs)]
        pytest_args += args.pytest_args
        if args.tensorflow:
            cmd = [args.python, "-m", "pytest", *pytest_args]
        else:
            cmd = [args.python, "-c", _RUN_ON_RILLFLOW, *pytest_args]
        env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3",
                   PYTHONDONTWRITEBYTECODE="1")
        start = time.time()
        try:
            proc = subprocess.run(cmd, cwd=args.keras, env=env, capture_output=True,
                                  text=True, timeout=args.timeout)
            status = f"rc={proc.returncode}"
            tail = (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired as exc:
            status = "timeout"
            tail = str(exc)[-3000:]
        seconds = time.time() - start
        outcomes = _outcomes(xml)
        if not outcomes:
            status += " (no results)\n" + tail
        return outcomes, seconds, status


def _cause(msg):
    """A short failure cause, for grouping."""
    return msg.split(" - ")[0][:160] if msg else "(no message)"


def compare(mine, ref, out=sys.stdout):
    """Prints, per directory, the tests passing on the reference and how many
    pass here; returns (passed_both, passed_ref)."""
    total_ref = total_both = 0
    for directory in DIRS:
        if directory not in ref or directory not in mine:
            continue
        r, m = ref[directory]["tests"], mine[directory]["tests"]
        ok_ref = [t for t, (o, _) in r.items() if o == "passed"]
        ok_both = [t for t in ok_ref if m.get(t, ("missing",))[0] == "passed"]
        total_ref += len(ok_ref)
        total_both += len(ok_both)
        pct = 100.0 * len(ok_both) / max(1, len(ok_ref))
        print(f"{directory:20s} TensorFlow passes {len(ok_ref):5d}; rillflow passes "
              f"{len(ok_both):5d} of them ({pct:.1f}%)", file=out)
    pct = 100.0 * total_both / max(1, total_ref)
    print(f"{'all':20s} TensorFlow passes {total_ref:5d}; rillflow passes {total_both:5d} "
          f"of them ({pct:.1f}%)", file=out)
    return total_both, total_ref


def failures(mine, ref):
    """[(directory, test id, outcome here, message)] for tests passing on the
    reference and not here."""
    rows = []
    for directory in DIRS:
        if directory not in ref or directory not in mine:
            continue
        r, m = ref[directory]["tests"], mine[directory]["tests"]
        for t, (o, _) in sorted(r.items()):
            if o != "passed":
                continue
            got, msg = m.get(t, ("missing", "not run (crash or timeout?)"))
            if got != "passed":
                rows.append((directory, t, got, msg))
    return rows


def main(argv=None):
    """Command line: see the module docstring."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keras", required=True, help="a checkout of the keras repository")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--tensorflow", action="store_true",
                   help="run on real TensorFlow (default: on rillflow)")
    p.add_argument("--dirs", nargs="*", default=list(DIRS))
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=3600, help="seconds per directory")
    p.add_argument("--json", help="write outcomes here (merged into an existing file)")
    p.add_argument("--compare", help="JSON of the reference run (TensorFlow)")
    p.add_argument("--failures", action="store_true",
                   help="with --compare: list every test passing on the reference only")
    p.add_argument("--no-run", action="store_true", help="only compare --json with --compare")
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = p.parse_args(argv)

    results = {}
    if args.json and os.path.exists(args.json):
        with open(args.json) as f:
            results = json.load(f)
    if not args.no_run:
        for directory in args.dirs:
            outcomes, seconds, status = run_dir(args, directory)
            counts = {}
            for o, _ in outcomes.values():
                counts[o] = counts.get(o, 0) + 1
            print(f"{directory:20s} {seconds:7.1f} s {status.splitlines()[0]} {counts}",
                  flush=True)
            if "no results" in status:
                print(status, file=sys.stderr)
            results[directory] = {"seconds": seconds, "status": status.splitlines()[0],
                                  "tests": outcomes}
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=0, sort_keys=True)
    if args.compare:
        with open(args.compare) as f:
            ref = json.load(f)
        both, total = compare(results, ref)
        rows = failures(results, ref)
        causes = {}
        for _, _, _, msg in rows:
            causes[_cause(msg)] = causes.get(_cause(msg), 0) + 1
        print("\nmost common causes:")
        for cause, n in sorted(causes.items(), key=lambda kv: -kv[1])[:40]:
            print(f"{n:5d}  {cause}")
        if args.failures:
            print()
            for directory, t, got, msg in rows:
                print(f"{got:8s} {t}  {msg[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs TensorFlow's AutoGraph reference tests (tensorflow/python/autograph/
tests/ in TensorFlow's repository) against rillflow or against a real
TensorFlow, from a directory outside this repository.

    python tools/tf_autograph_tests.py --tests /work/tfag --json rf.json
    python tools/tf_autograph_tests.py --tests /work/tfag \\
        --tensorflow-python /path/to/tf-venv/bin/python --json tf.json
    python tools/tf_autograph_tests.py --tests /work/tfag --compare tf.json

Each test file runs in its own subprocess (per-file timeout, -j in parallel)
through a bootstrap that makes `tensorflow.python.autograph.tests` the --tests
directory (TensorFlow's pip package does not ship the tests) and, for
rillflow, installs rillflow as `tensorflow` (rillflow/compat/tensorflow_shim).
The tests run under unittest; each test's outcome (pass, fail, error, skip)
goes to the JSON file. --compare lists the tests that pass in a baseline run
(TensorFlow's) and not in this one.

Only the standard library is used here, so the script also runs under the
reference TensorFlow's interpreter. The tests themselves import absl-py
(`absl.testing.parameterized`): install it in the environment that runs
them (`pip install absl-py`; TensorFlow brings it already).
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTCOMES = ("pass", "fail", "error", "skip", "xfail", "xpass")
TESTS_PACKAGE = "tensorflow.python.autograph.tests"


# --------------------------------------------------------------------------
# Child: runs one test file and writes one JSON line per event.

def _child(config_path):
    with open(config_path) as f:
        config = json.load(f)
    mode, tests_dir, test_file = config["mode"], config["tests_dir"], config["file"]
    import faulthandler
    import fnmatch
    import importlib
    import importlib.machinery
    import threading
    import importlib.util
    import traceback
    import types
    import unittest

    out = open(config["out"], "a", buffering=1)

    def emit(**record):
        out.write(json.dumps(record) + "\n")
        out.flush()

    try:
        if mode == "rillflow":
            sys.path.insert(0, REPO_ROOT)
            from rillflow.compat import tensorflow_shim
            tensorflow_shim.install()
        import tensorflow
        importlib.import_module("tensorflow.python.autograph")
        emit(event="start", tensorflow=getattr(tensorflow, "__version__", "?"),
             module=tensorflow.__name__, file=getattr(tensorflow, "__file__", None))
        # `from tensorflow.python.autograph.tests import reference_test_base`
        # finds the --tests directory.
        tests_pkg = types.ModuleType(TESTS_PACKAGE)
        tests_pkg.__path__ = [tests_dir]
        tests_pkg.__spec__ = importlib.machinery.ModuleSpec(TESTS_PACKAGE, None, is_package=True)
        tests_pkg.__spec__.submodule_search_locations = [tests_dir]
        sys.modules[TESTS_PACKAGE] = tests_pkg
        setattr(sys.modules["tensorflow.python.autograph"], "tests", tests_pkg)
        try:  # absltest.TestCase reads flags; no absltest.main() parses them here.
            from absl import flags
            if not flags.FLAGS.is_parsed():
                flags.FLAGS([test_file], known_only=True)
        except ImportError:
            pass

        mod_name = os.path.splitext(test_file)[0]
        # Under its own name, as when run as a script: AutoGraph leaves
        # functions of `tensorflow.*` modules unconverted.
        spec = importlib.util.spec_from_file_location(mod_name, os.path.join(tests_dir, test_file))
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    except BaseException:  # noqa: B902 - an import failure costs the whole file
        etype, value, tb = sys.exc_info()
        emit(event="import_error", message=_exception_only(etype, value),
             traceback="".join(traceback.format_exception(etype, value, tb)))
        return 3

    def test_name(test):
        # Class.method: absl's parameterized ids carry the parameters' reprs
        # (function addresses), which differ from run to run.
        method = getattr(test, "_testMethodName", None)
        if method is None:  # a subtest
            return test_name(test.test_case) + " " + test._subDescription()
        return type(test).__name__ + "." + method

    def flatten(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                yield from flatten(t)
            else:
                yield t

    tests = list(flatten(suite))
    if config["patterns"]:
        tests = [t for t in tests if any(
            p in test_name(t) or fnmatch.fnmatch(test_name(t), p) for p in config["patterns"])]
    emit(event="collected", tests=[test_name(t) for t in tests])
    skip = set(config["skip"])
    suite = unittest.TestSuite(t for t in tests if test_name(t) not in skip)

    # A test that hangs ends the process (the parent runs the rest in a new
    # one) with the stacks of all threads in the log.
    current = {}

    def rss_gib():
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30
        except (OSError, ValueError, IndexError):
            return 0.0

    def watchdog():
        while True:
            time.sleep(0.25)
            started = current.get("t0")
            if started is None:
                continue
            why = None
            if time.time() - started > config["test_timeout"]:
                why = f"test timed out after {config['test_timeout']}s"
            elif config["memory_limit"] and rss_gib() > config["memory_limit"]:
                why = f"test used more than {config['memory_limit']} GiB of memory"
            if why:
                emit(event="hung", test=current["name"], message=why + " (stacks in the log)")
                faulthandler.dump_traceback(all_threads=True)
                os._exit(4)

    threading.Thread(target=watchdog, daemon=True).start()

    class Result(unittest.TestResult):
        def startTest(self, test):
            super().startTest(test)
            self._t0 = time.time()
            current.update(name=test_name(test), t0=self._t0)

        def stopTest(self, test):
            super().stopTest(test)
            current["t0"] = None

        def _record(self, test, outcome, err=None, message=None):
            rec = dict(event="result", test=test_name(test), outcome=outcome,
                       seconds=round(time.time() - getattr(self, "_t0", time.time()), 3))
            if err is not None:
                etype, value, tb = err
                rec["message"] = _exception_only(etype, value)
                rec["traceback"] = "".join(traceback.format_exception(etype, value, tb))[-20000:]
            elif message is not None:
                rec["message"] = str(message)
            emit(**rec)

        def addSuccess(self, test):
            super().addSuccess(test)
            self._record(test, "pass")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._record(test, "fail", err)

        def addError(self, test, err):
            super().addError(test, err)
            self._record(test, "error", err)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._record(test, "skip", message=reason)

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._record(test, "xfail", err)

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._record(test, "xpass")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failed = issubclass(err[0], test.failureException)
                self._record(subtest, "fail" if failed else "error", err)

    suite.run(Result())
    emit(event="done")
    return 0


def _exception_only(etype, value):
    import traceback
    return "".join(traceback.format_exception_only(etype, value)).strip()


# --------------------------------------------------------------------------
# Parent: runs the files, collects, prints, compares.

def _run_child(args, test_file, python, mode, skip, deadline):
    """One subprocess over `test_file`, skipping the tests in `skip`; returns
    its events, output, and whether it ran out of time."""
    tmp = tempfile.mkdtemp(prefix="tfag-")
    out_path = os.path.join(tmp, "events.jsonl")
    config_path = os.path.join(tmp, "config.json")
    with open(config_path, "w") as f:
        json.dump({"mode": mode, "tests_dir": args.tests, "file": test_file, "out": out_path,
                   "skip": sorted(skip), "patterns": args.k or [],
                   "test_timeout": args.test_timeout, "memory_limit": args.memory_limit}, f)
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # TensorFlow's inter-op pool is as large as the machine has cores; with
    # two, MirroredStrategy's loops (loop_distributed_test) deadlock.
    env.setdefault("TF_NUM_INTEROP_THREADS", str(max(8, os.cpu_count() or 1)))
    env.setdefault("PYTHONHASHSEED", "0")
    proc = subprocess.Popen([python, os.path.abspath(__file__), "--_child", config_path],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    timed_out = False
    try:
        log, _ = proc.communicate(timeout=max(1.0, deadline - time.time()))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        timed_out = True
    events = []
    if os.path.exists(out_path):
        with open(out_path) as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
    for name in (out_path, config_path):
        if os.path.exists(name):
            os.unlink(name)
    os.rmdir(tmp)
    return events, log.decode("utf-8", "replace"), timed_out, proc.returncode


def _run_file(args, test_file, python, mode):
    """Runs `test_file`, in as many processes as hung tests need."""
    t0 = time.time()
    deadline = t0 + args.timeout
    entry = {"status": "ok", "tests": {}}
    collected, done, logs, skip = None, False, [], set()
    while True:
        events, log, timed_out, returncode = _run_child(args, test_file, python, mode,
                                                        skip, deadline)
        logs.append(log)
        hung = None
        for rec in events:
            ev = rec.pop("event")
            if ev == "start":
                entry["tensorflow"] = rec
            elif ev == "import_error":
                entry["status"] = "import_error"
                entry["message"] = rec["message"]
                entry["traceback"] = rec["traceback"]
            elif ev == "collected":
                collected = collected or rec["tests"]
            elif ev == "result":
                name = rec.pop("test")
                prev = entry["tests"].get(name)
                # A subtest failure and the test's own outcome: keep the worse.
                if prev is None or prev["outcome"] in ("pass", "skip"):
                    entry["tests"][name] = rec
            elif ev == "hung":
                hung = rec["test"]
                entry["tests"][hung] = {"outcome": "error", "message": rec["message"]}
                entry.setdefault("hung", []).append(hung)
            elif ev == "done":
                done = True
        if done or entry["status"] == "import_error" or timed_out or collected is None:
            break
        if hung is None:  # the process died in a test: blame the first unfinished one
            rest = [t for t in collected if t not in entry["tests"]]
            if not rest:
                break
            hung = rest[0]
            entry["tests"][hung] = {
                "outcome": "error", "message": f"test process exited ({returncode}) in this test"}
            entry.setdefault("crashed", []).append(hung)
        skip = set(entry["tests"])
    entry["seconds"] = round(time.time() - t0, 1)
    log = "\n".join(logs)
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
        with open(os.path.join(args.logs, test_file + ".log"), "w") as f:
            f.write(log)
    if entry["status"] == "ok" and not done:
        entry["status"] = "timeout" if timed_out else "crash"
        why = (f"file timed out after {args.timeout}s" if timed_out
               else f"test process exited ({returncode}) before finishing")
        entry["message"] = why
        for name in collected or ():
            entry["tests"].setdefault(name, {"outcome": "error", "message": why})
    elif entry.get("hung") or entry.get("crashed"):
        entry["status"] = "ok (restarted after %d hung/crashed test(s))" % (
            len(entry.get("hung", ())) + len(entry.get("crashed", ())))
    if entry["status"] != "ok":
        entry["log_tail"] = log[-4000:]
    return test_file, entry


def _counts(tests):
    c = dict.fromkeys(OUTCOMES, 0)
    for rec in tests.values():
        c[rec["outcome"]] += 1
    return c


def _print_summary(results):
    files = results["files"]
    width = max([len(f) for f in files] + [5])
    print(f"{'file':<{width}}  {'pass':>5} {'fail':>5} {'error':>5} {'skip':>5}  status")
    totals = dict.fromkeys(OUTCOMES, 0)
    for name in sorted(files):
        entry = files[name]
        c = _counts(entry["tests"])
        for k in OUTCOMES:
            totals[k] += c[k]
        extra = "".join(f" {k}={c[k]}" for k in ("xfail", "xpass") if c[k])
        status = entry["status"]
        if status == "import_error":
            status += ": " + entry["message"].splitlines()[-1][:100]
        print(f"{name:<{width}}  {c['pass']:>5} {c['fail']:>5} {c['error']:>5} {c['skip']:>5}"
              f"  {status} ({entry['seconds']}s){extra}")
    extra = "".join(f" {k}={totals[k]}" for k in ("xfail", "xpass") if totals[k])
    print(f"{'TOTAL':<{width}}  {totals['pass']:>5} {totals['fail']:>5} {totals['error']:>5}"
          f" {totals['skip']:>5}{extra}")
    results["totals"] = totals


def _first_lines(rec, n):
    text = rec.get("message") or rec.get("traceback") or ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[:n]


def _compare(results, baseline, lines):
    """Prints the tests that pass in `baseline` but not in `results`."""
    total = 0
    newly_passing = 0
    for name in sorted(baseline["files"]):
        base_tests = baseline["files"][name]["tests"]
        ours = results["files"].get(name)
        if ours is None:
            continue  # not run this time (file filter)
        bad, missing = [], []
        for test in sorted(base_tests):
            if base_tests[test]["outcome"] != "pass":
                if ours["tests"].get(test, {}).get("outcome") == "pass":
                    newly_passing += 1
                continue
            rec = ours["tests"].get(test)
            if rec is None:
                missing.append(test)
            elif rec["outcome"] != "pass":
                bad.append((test, rec))
        if not bad and not missing:
            continue
        total += len(bad) + len(missing)
        print(f"\n== {name}: {len(bad) + len(missing)} pass in the baseline, not here"
              + (f" ({ours['status']})" if ours["status"] != "ok" else ""))
        if missing:  # the file did not import, or these tests were not collected
            print(f"  {len(missing)} test(s) not run: " + ", ".join(missing[:5])
                  + (", ..." if len(missing) > 5 else ""))
            for ln in _first_lines(ours, lines):
                print("      " + ln[:300])
        for test, rec in bad:
            print(f"  {test}: {rec['outcome']}")
            for ln in _first_lines(rec, lines):
                print("      " + ln[:300])
    print(f"\n{total} test(s) pass in the baseline and not here"
          + (f"; {newly_passing} pass here and not in the baseline" if newly_passing else ""))
    return total


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_child"]:
        return _child(argv[1])
    p = argparse.ArgumentParser(
        description="Run TensorFlow's AutoGraph reference tests against rillflow or TensorFlow.")
    p.add_argument("--tests", required=True,
                   help="directory with reference_test_base.py and the *_test.py files")
    p.add_argument("--tensorflow-python", metavar="PYTHON",
                   help="run against the real TensorFlow of this interpreter (default: rillflow)")
    p.add_argument("--python", default=sys.executable,
                   help="interpreter for rillflow runs (default: this one)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=1800, help="seconds per test file")
    p.add_argument("--test-timeout", type=float, default=300,
                   help="seconds per test; a hung test is reported, the rest of its file rerun")
    p.add_argument("--memory-limit", type=float, default=4, metavar="GIB",
                   help="a test whose process grows past this is stopped like a hung one (0: none)")
    p.add_argument("-k", action="append", metavar="PATTERN",
                   help="run only the tests whose Class.method contains or matches PATTERN")
    p.add_argument("--json", metavar="FILE", help="write the per-test results here")
    p.add_argument("--from-json", metavar="FILE", help="read results from FILE instead of running")
    p.add_argument("--compare", metavar="BASELINE", help="list tests passing in BASELINE but not here")
    p.add_argument("--lines", type=int, default=4, help="failure lines shown by --compare")
    p.add_argument("--logs", metavar="DIR", help="keep each file's output in DIR")
    p.add_argument("files", nargs="*", help="test files to run (parts of names or globs; default all)")
    args = p.parse_args(argv)
    args.tests = os.path.abspath(args.tests)

    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
    else:
        names = sorted(f for f in os.listdir(args.tests)
                       if f.endswith("_test.py") and os.path.isfile(os.path.join(args.tests, f)))
        if args.files:
            names = [n for n in names if any(
                pat in n or fnmatch.fnmatch(n, pat) for pat in args.files)]
        if not names:
            p.error("no test files selected in " + args.tests)
        mode = "tensorflow" if args.tensorflow_python else "rillflow"
        python = args.tensorflow_python or args.python
        results = {"mode": mode, "python": python, "tests_dir": args.tests,
                   "host": platform.node(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                   "files": {}}
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(_run_file, args, n, python, mode) for n in names]
            for fut in concurrent.futures.as_completed(futures):
                name, entry = fut.result()
                results["files"][name] = entry
                c = _counts(entry["tests"])
                print(f"  {name}: {entry['status']}, " + ", ".join(
                    f"{c[k]} {k}" for k in OUTCOMES if c[k]) + f" ({entry['seconds']}s)",
                    file=sys.stderr, flush=True)
        versions = {e["tensorflow"]["tensorflow"] for e in results["files"].values()
                    if "tensorflow" in e}
        results["tensorflow_version"] = ", ".join(sorted(versions))
    print(f"{results['mode']} ({results.get('tensorflow_version', '?')}), tests from {results['tests_dir']}")
    _print_summary(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    if args.compare:
        with open(args.compare) as f:
            baseline = json.load(f)
        return 1 if _compare(results, baseline, args.lines) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

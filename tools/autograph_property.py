"""Differential property test of AutoGraph, at scale.

Generates random small programs (tests/autograph_programs.py), runs each
natively and under tf.function on rillflow and, with --tensorflow, on real
TensorFlow, and reports where rillflow's tf.function departs from Python's
native outcome (or, where TensorFlow refuses a program, from TensorFlow's
exception). Divergent programs are minimized and written out as
stand-alone cases.

    # 2,000 programs against TensorFlow, report and minimized cases:
    python tools/autograph_property.py --tensorflow /work/tfref/bin/python \\
        --count 2000 --jobs 2 --report report.txt --cases cases/

    # regenerate the CI fixture (see tests/test_autograph_property.py):
    python tools/autograph_property.py --tensorflow /work/tfref/bin/python \\
        --seed 0 --count 300 --jobs 2 --record tests/data/autograph_property_tf.json

Both libraries run in worker subprocesses (JSON lines on stdin/stdout)
that stay alive across programs: TensorFlow takes seconds to import, and a
program that never ends or crashes its interpreter costs one worker, not
the run. Without --tensorflow, recorded outcomes (--recorded, by default
the CI fixture) serve for the seeds they cover; other programs are compared
with Python only (see autograph_programs.classify).
"""
import argparse
import ast
import collections
import copy
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
sys.path.insert(0, TESTS)

import autograph_programs as ap  # noqa: E402  (needs TESTS on the path)

DEFAULT_FIXTURE = os.path.join(TESTS, "data", "autograph_property_tf.json")


# --- worker side ------------------------------------------------------------------------

def worker_main(library):
    """Serves run requests for `library` ("tensorflow" or "rillflow"):
    one JSON line in ({"program": ..., "timeout": s}), one JSON line out
    ({"result": RunResult} or {"crash": traceback})."""
    # The protocol owns the real stdout; anything the library or a
    # program prints goes to stderr instead.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    if library == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        tf.get_logger().setLevel("ERROR")
        tf.autograph.set_verbosity(0)
        # One thread per op: the pool already runs one worker per core.
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        version = tf.__version__
        reset = None
    else:
        import rillflow as tf
        from rillflow.framework import context
        version = "rillflow"

        def reset():
            # A failed trace must not leave graph mode on for the next
            # program (its "native" run would then trace).
            context.state.graph = None
            context.state.tapes = []
            context.config.run_functions_eagerly = False
    proto.write(json.dumps({"ready": True, "version": version}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            program = ap.Program.from_json(req["program"])
            result = ap.run_program(program, tf, timeout=req.get("timeout"))
            reply = {"result": result.to_json()}
        except BaseException:
            reply = {"crash": traceback.format_exc()}
        if reset is not None:
            reset()
        proto.write(json.dumps(reply) + "\n")


# --- main side: worker pools ------------------------------------------------------------

class WorkerDied(Exception):
    """A worker exited or stopped answering."""


class Worker:
    """One worker subprocess; run() sends a program and waits for its
    outcomes, killing and restarting the worker if it hangs."""

    def __init__(self, python, library, log_dir, index):
        self.python, self.library = python, library
        self.log_path = os.path.join(log_dir, "%s-%d.log" % (library, index))
        self.proc = None
        self.version = None
        self.start()

    def start(self):
        env = dict(os.environ)
        # The worker must import this checkout's rillflow and tests/.
        env["PYTHONPATH"] = os.pathsep.join([ROOT, TESTS] + [p for p in [env.get("PYTHONPATH")] if p])
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [self.python, os.path.abspath(__file__), "--worker", self.library],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env,
            text=True, bufsize=1, cwd=ROOT)
        log.close()
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        hello = self._get(600)
        self.version = hello["version"]

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def _get(self, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise WorkerDied("no answer in %s s" % timeout)
        if line is None:
            raise WorkerDied("worker exited (see %s)" % self.log_path)
        return json.loads(line)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def run(self, program, timeout):
        """The RunResult of `program`; a hang or crash gives error outcomes
        ("ProgramTimeout" / "WorkerCrash") and a fresh worker."""
        try:
            self.proc.stdin.write(json.dumps({"program": program.to_json(), "timeout": timeout}) + "\n")
            self.proc.stdin.flush()
            reply = self._get(4 * timeout + 30)
        except (WorkerDied, BrokenPipeError, OSError) as e:
            self.stop()
            self.start()
            kind = "ProgramTimeout" if "no answer" in str(e) else "WorkerCrash"
            bad = ap.Outcome("error", kind, str(e))
            return ap.RunResult([bad, bad], [bad, bad])
        if "crash" in reply:
            bad = ap.Outcome("error", "HarnessError", reply["crash"].strip().splitlines()[-1])
            return ap.RunResult([bad, bad], [bad, bad])
        return ap.RunResult.from_json(reply["result"])


class Pool:
    """`jobs` workers of one library, handed out to threads."""

    def __init__(self, python, library, jobs, log_dir):
        with ThreadPoolExecutor(jobs) as ex:   # start them in parallel
            workers = list(ex.map(lambda i: Worker(python, library, log_dir, i), range(jobs)))
        self.version = workers[0].version
        self.idle = queue.Queue()
        for w in workers:
            self.idle.put(w)
        self.workers = workers

    def run(self, program, timeout):
        """Runs `program` on an idle worker."""
        w = self.idle.get()
        try:
            return w.run(program, timeout)
        finally:
            self.idle.put(w)

    def close(self):
        """Stops all workers."""
        for w in self.workers:
            w.stop()


# --- checking ---------------------------------------------------------------------------

class Record:
    """A program with its outcomes and verdict."""

    def __init__(self, program, rill, tf_result, verdict):
        self.program, self.rill, self.tf, self.verdict = program, rill, tf_result, verdict


class Checker:
    """Runs programs on rillflow (and TensorFlow, or recorded outcomes)
    and judges them."""

    def __init__(self, args, log_dir):
        self.timeout = args.timeout
        self.allow_extensions = not args.require_tf_refusals
        self.rill = Pool(sys.executable, "rillflow", args.jobs, log_dir)
        self.tf = Pool(args.tensorflow, "tensorflow", args.jobs, log_dir) if args.tensorflow else None
        self.recorded = {}
        if not self.tf and args.recorded and os.path.exists(args.recorded):
            self.recorded = load_recorded(args.recorded)

    def tf_result(self, program, live=True):
        """TensorFlow's RunResult: live, or recorded for this exact program."""
        if self.tf is not None:
            return self.tf.run(program, self.timeout) if live else None
        rec = self.recorded.get(program.seed)
        if rec is not None and rec["sha1"] == program.sha1:
            return ap.RunResult.from_json(rec["tf"])
        return None

    def check(self, program):
        """The Record of one program."""
        rill = self.rill.run(program, self.timeout)
        tfr = self.tf_result(program)
        verdict = ap.classify(rill.native, rill.function, tfr, self.allow_extensions)
        return Record(program, rill, tfr, verdict)

    def close(self):
        """Stops the workers."""
        self.rill.close()
        if self.tf:
            self.tf.close()


def load_recorded(path):
    """{seed: {"sha1", "tf", "status"}} from a --record file."""
    with open(path) as fh:
        data = json.load(fh)
    return {int(k): v for k, v in data["programs"].items()}


# --- failure kinds ----------------------------------------------------------------------

def _norm_message(msg):
    """A message with names and numbers blanked: one kind per text shape."""
    msg = re.sub(r"Tensor [\w/]+:\d+", "Tensor _", msg)   # graph node names
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"<[^>]*>", "<_>", msg)
    msg = re.sub(r"\b\d+(\.\d+)?\b", "N", msg)
    return msg[:110]


def _desc(o):
    if o.kind == "value":
        return "value"
    return "%s: %s" % (o.value, _norm_message(o.message))


def signatures(record):
    """Failure kinds of a record's failing calls: (verdict, reference,
    rillflow outcome) with messages reduced to their shape."""
    out = []
    v = record.verdict
    for c, verdict in enumerate(v.calls):
        if verdict != "ok":
            out.append((verdict, _desc(v.reference[c]) if verdict != "eager_divergence" else
                        "eager " + _desc(record.tf.native[c]),
                        _desc(record.rill.function[c]) if verdict != "eager_divergence" else
                        "eager " + _desc(record.rill.native[c])))
    return out


# Kinds where rillflow returns a wrong value: their minimized programs are
# kept per shape, not just one per kind.
VALUE_KINDS = ("wrong_value", "missing_exception", "eager_divergence")


def kind_text(sig):
    """A signature as one line."""
    return "%s | expected %s | rillflow %s" % sig


# --- minimization -----------------------------------------------------------------------

def _bodies(tree):
    """Every statement list in the module, as (node, field name)."""
    out = []
    for node in ast.walk(tree):
        for fld in ("body", "orelse"):
            stmts = getattr(node, fld, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                out.append((node, fld))
    return out


def _locate(tree, path):
    node = tree
    for fld, idx in path:
        node = getattr(node, fld)
        if idx is not None:
            node = node[idx]
    return node


def _paths(node, path=()):
    """(path, node) for every AST node below `node`."""
    yield path, node
    for fld, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _paths(item, path + ((fld, i),))
        elif isinstance(value, ast.AST):
            yield from _paths(value, path + ((fld, None),))


def _size(node):
    return sum(1 for _ in ast.walk(node))


def candidates(source):
    """Smaller variants of a program's source, biggest cuts first: delete a
    statement, replace a compound statement by a branch or its body, drop
    an else, replace an expression by an operand, shorten a literal list."""
    tree = ast.parse(source)
    edits = []
    for path, node in _paths(tree):
        # Never touch what keeps a while loop finite: its counter's
        # increment and the counter test in its condition.
        in_while_test = any(f == "test" and isinstance(_locate(tree, path[:i]), ast.While)
                            for i, (f, _) in enumerate(path))
        if isinstance(node, ast.stmt) and path and path[-1][1] is not None:
            if not (isinstance(node, ast.FunctionDef) and node.name == "f") and not _is_increment(tree, path):
                edits.append((_size(node) + 1000, "delete", path))
            if isinstance(node, (ast.If, ast.For, ast.While)):
                edits.append((_size(node) + 500, "inline_body", path))
                if isinstance(node, ast.If) and node.orelse:
                    edits.append((_size(node) + 499, "inline_else", path))
                    edits.append((sum(_size(n) for n in node.orelse) + 400, "drop_else", path))
        elif in_while_test:
            if isinstance(node, ast.BoolOp) and isinstance(_locate(tree, path[:-1]), ast.While):
                edits.append((_size(node), "first_operand", path))
        elif isinstance(node, ast.expr) and path and not isinstance(getattr(node, "ctx", None), ast.Store):
            if isinstance(node, (ast.BinOp, ast.BoolOp, ast.UnaryOp, ast.IfExp, ast.Compare, ast.Call)):
                edits.append((_size(node), "operand", path))
            if isinstance(node, ast.List) and len(node.elts) > 1:
                edits.append((len(node.elts), "shorten", path))
    edits.sort(key=lambda e: -e[0])
    seen = {source}
    for _, op, path in edits:
        for variant in _apply(tree, op, path):
            try:
                text = ast.unparse(variant)
                compile(text, "<candidate>", "exec")   # e.g. a break left outside its loop
            except (SyntaxError, ValueError):
                continue
            text += "\n"
            if text not in seen and "def f(" in text and not _undefined_names(variant):
                seen.add(text)
                yield text


def _undefined_names(tree):
    """Names read but assigned nowhere: a minimized program that still
    reads the variable whose assignment it deleted (in a branch never
    taken) diverges the same way, but reads as nonsense."""
    import builtins
    known = {"tf"} | set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            known.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            known.add(node.name)
            known.update(a.arg for a in node.args.args)
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known}


def _is_increment(tree, path):
    """Whether the statement at `path` is `c += 1` heading a while body."""
    node = _locate(tree, path)
    fld, idx = path[-1]
    return (isinstance(node, ast.AugAssign) and fld == "body" and idx == 0
            and isinstance(_locate(tree, path[:-1]), ast.While))


def _apply(tree, op, path):
    """Variants of `tree` with one edit at `path`."""
    parent_path, (fld, idx) = path[:-1], path[-1]

    def with_stmts(new):
        t = copy.deepcopy(tree)
        lst = getattr(_locate(t, parent_path), fld)
        lst[idx:idx + 1] = new
        if not lst:
            lst.append(ast.Pass())
        return t

    node = _locate(tree, path)
    if op == "delete":
        yield with_stmts([])
    elif op == "inline_body":
        yield with_stmts(copy.deepcopy(node.body))
    elif op == "inline_else":
        yield with_stmts(copy.deepcopy(node.orelse))
    elif op == "drop_else":
        t = copy.deepcopy(tree)
        _locate(t, path).orelse = []
        yield t
    elif op == "operand":
        subs = []
        if isinstance(node, ast.BinOp):
            subs = [node.left, node.right]
        elif isinstance(node, ast.BoolOp):
            subs = list(node.values)
        elif isinstance(node, ast.UnaryOp):
            subs = [node.operand]
        elif isinstance(node, ast.IfExp):
            subs = [node.body, node.orelse]
        elif isinstance(node, ast.Compare) and len(node.ops) > 1:
            subs = [ast.Compare(node.left, node.ops[:1], node.comparators[:1])]
        elif isinstance(node, ast.Call):
            subs = [a for a in node.args if not isinstance(a, ast.Attribute)]
        for sub in subs:
            t = copy.deepcopy(tree)
            parent = _locate(t, parent_path)
            if idx is None:
                setattr(parent, fld, copy.deepcopy(sub))
            else:
                getattr(parent, fld)[idx] = copy.deepcopy(sub)
            yield t
    elif op == "first_operand":
        t = copy.deepcopy(tree)
        _locate(t, path[:-1]).test = copy.deepcopy(node.values[0])
        yield t
    elif op == "shorten":
        for i in range(len(node.elts)):
            t = copy.deepcopy(tree)
            del _locate(t, path).elts[i]
            yield t


def minimize(checker, record, max_checks=400, deadline=None):
    """Greedily shrinks a divergent program while its first failure kind
    persists (and, with TensorFlow, while TensorFlow still agrees with
    Python or refuses with the same exception class). Returns the smallest
    Record found and the number of checks made."""
    if checker.tf is None and record.tf is not None:
        # Recorded TensorFlow outcomes exist for the original only: the
        # variants are judged against Python alone, and so is the target.
        verdict = ap.classify(record.rill.native, record.rill.function, None, checker.allow_extensions)
        if verdict.result == "ok":
            return record, 0   # a divergence from TensorFlow only: cannot be checked
        record = Record(record.program, record.rill, None, verdict)
    target = signatures(record)[0]
    tf_kind = _tf_kind(record)
    best = record
    checks = 0
    improved = True
    while improved and checks < max_checks:
        improved = False
        for text in candidates(best.program.source):
            if checks >= max_checks or (deadline and time.time() > deadline):
                break
            checks += 1
            prog = ap.Program(record.program.seed, text, record.program.args1, record.program.args2)
            rill = checker.rill.run(prog, min(checker.timeout, 10.0))
            # Cheap filter first: rillflow's and Python's outcomes must have
            # the same kinds as before, or TensorFlow need not be asked.
            if _shape(rill) != _shape(best.rill):
                continue
            tfr = checker.tf_result(prog) if checker.tf is not None else None
            verdict = ap.classify(rill.native, rill.function, tfr, checker.allow_extensions)
            cand = Record(prog, rill, tfr, verdict)
            if verdict.result == "ok" or target not in signatures(cand) or _tf_kind(cand) != tf_kind:
                continue
            best = cand
            improved = True
            break
    return best, checks


def _shape(result):
    return [o.kind if o.kind == "value" else o.value for o in result.native + result.function]


def _tf_kind(record):
    if record.tf is None:
        return None
    return (record.verdict.tf, tuple(o.value for o in record.tf.function if o.kind == "error"))


def skeleton(source):
    """The program's control-flow shape, for deduplication: its statements'
    kinds and nesting (with what a for loop iterates over), expressions
    left out."""
    def shape(stmts):
        out = []
        for st in stmts:
            name = type(st).__name__
            if isinstance(st, ast.For):
                it = ast.unparse(st.iter)
                name += "[%s]" % next((k for k in ("Dataset.range", "from_tensor_slices", "tf.range",
                                                     "tf.constant", "range", "[") if k in it), "?")
            subs = [shape(getattr(st, f)) for f in ("body", "orelse") if getattr(st, f, None)]
            out.append(name + ("(%s)" % "|".join(subs) if subs else ""))
        return ";".join(out)
    return shape(ast.parse(source).body)


# --- reports ----------------------------------------------------------------------------

def outcome_lines(record):
    """The outcomes of both calls: Python, TF native, TF function, rillflow."""
    out = []
    p = record.program
    for c in range(2):
        out.append("  call %d: f%s" % (c + 1, p.args_text(c + 1)))
        out.append("    Python (rillflow eager): %s" % ap.describe(record.rill.native[c]))
        if record.tf is not None:
            out.append("    TF eager:                %s" % ap.describe(record.tf.native[c]))
            out.append("    TF tf.function:          %s" % ap.describe(record.tf.function[c]))
        out.append("    rillflow tf.function:    %s   [%s]" % (
            ap.describe(record.rill.function[c]), record.verdict.calls[c] if record.verdict.calls else "-"))
    return out


def program_block(record, title):
    """A report section for one program."""
    lines = ["=" * 78, title, "-" * 78]
    lines += record.program.source.rstrip("\n").splitlines()
    lines.append("-" * 78)
    lines += outcome_lines(record)
    return lines


def case_file(record, original, sig):
    """A stand-alone reproduction of a minimized divergence."""
    p = record.program
    head = ["# AutoGraph property test: minimized divergence (from generated seed %d)." % original.program.seed,
            "# Kind: %s" % kind_text(sig)]
    for c in range(2):
        head.append("# call %d: f%s" % (c + 1, p.args_text(c + 1)))
        head.append("#   Python:   %s" % ap.describe(record.rill.native[c]))
        head.append("#   TF 2.21:  %s" % (ap.describe(record.tf.function[c]) if record.tf is not None
                                          else "(not run)"))
        head.append("#   rillflow: %s" % ap.describe(record.rill.function[c]))
    # Machine-readable: tools/autograph_regressions.py turns the case into a
    # regression test (tests/data/autograph_regressions.json).
    head.append("# program-json: %s" % json.dumps({
        "program": p.to_json(),
        "tf": record.tf.to_json() if record.tf is not None else None}))
    head += ["# Run: python this_file.py            (rillflow)",
             "#      python this_file.py tensorflow (TensorFlow)",
             "import sys",
             "",
             "if sys.argv[1:] == ['tensorflow']:",
             "    import tensorflow as tf",
             "else:",
             "    import rillflow as tf",
             "", ""]
    tail = ["", "",
            "if __name__ == '__main__':",
            "    g = tf.function(f)",
            "    for args in [%s, %s]:" % (p.args_text(1), p.args_text(2)),
            "        for name, fn in (('python', f), ('tf.function', g)):",
            "            try:",
            "                print(name, fn(*args))",
            "            except Exception as e:",
            "                print(name, 'raises', type(e).__name__, str(e).strip().splitlines()[-1])"]
    return "\n".join(head) + p.source.rstrip("\n") + "\n" + "\n".join(tail) + "\n"


def summarize(records, have_tf):
    """Counts: TensorFlow against Python, and rillflow's verdicts."""
    lines = []
    n = len(records)
    status = collections.Counter(r.verdict.tf for r in records)
    if have_tf:
        lines.append("TensorFlow on %d programs: runs like Python %d, refuses %d, differs from Python %d"
                     % (n, status["agrees"], status["refuses"], status["differs"]))
        refusals = collections.Counter()
        for r in records:
            if r.verdict.tf == "refuses":
                for c in range(2):
                    o = r.tf.function[c]
                    if o.kind == "error" and not (r.tf.native[c].kind == "error" and
                                                  r.tf.native[c].value == o.value):
                        refusals[(o.value, _norm_message(o.message))] += 1
                        break
        lines.append("TensorFlow's refusals (first refusing call of each program):")
        for (cls, msg), c in refusals.most_common():
            lines.append("  %5d  %s: %s" % (c, cls, msg))
        native_err = collections.Counter()
        for r in records:
            for o in r.tf.native:
                if o.kind == "error":
                    native_err[o.value] += 1
        if native_err:
            lines.append("Native (Python) runs that raise, by call: %s" % dict(native_err))
    else:
        lines.append("%d programs; TensorFlow outcomes recorded for %d" % (n, n - status[None]))
    results = collections.Counter(r.verdict.result for r in records if r.verdict.tf != "differs")
    judged = sum(results.values())
    lines.append("rillflow on %d judged programs: %s" % (judged, ", ".join(
        "%s %d" % (k, results[k]) for k in ap.VERDICTS if results[k])))
    lines.append("  (wrong_value: a value other than Python's; missing_exception: a value where TF refuses "
                 "that is not Python's; extension: Python's value where TF refuses; unexpected_exception: "
                 "raises where Python and TF return a value; wrong_exception: another exception class than "
                 "TF/Python; eager_divergence: rillflow's eager run differs from TF's)")
    kinds = collections.Counter()
    for r in records:
        if r.verdict.tf != "differs" and r.verdict.result != "ok":
            kinds[signatures(r)[0]] += 1
    lines.append("rillflow's divergences by kind (first failing call of each program):")
    for sig, c in sorted(kinds.items(), key=lambda kv: (ap.VERDICTS.index(kv[0][0]) * -1, -kv[1])):
        lines.append("  %5d  %s" % (c, kind_text(sig)))
    return lines


# --- main -------------------------------------------------------------------------------

def write_record(path, records, args, version):
    """The TensorFlow outcomes as the CI fixture's JSON."""
    cmd = ("%s tools/autograph_property.py --tensorflow %s --seed %d --count %d "
           "--jobs %d --record %s" % (sys.executable, args.tensorflow, args.seed, args.count, args.jobs,
                                      os.path.relpath(os.path.abspath(path), ROOT)))
    header = {
        "about": "TensorFlow %s's outcomes (native and tf.function, two calls each) for the programs "
                 "tests/autograph_programs.py generates from these seeds; read by "
                 "tests/test_autograph_property.py, which cannot run TensorFlow." % version,
        "regenerate": "cd <repository root> && " + cmd,
        "tensorflow": version,
        "generator_version": ap.GENERATOR_VERSION,
        "seed": args.seed,
        "count": args.count,
        "tf_differs": sorted(r.program.seed for r in records if r.verdict.tf == "differs"),
    }
    # One program per line: diffs of a regenerated fixture stay readable.
    parts = ["{"]
    for k, v in header.items():
        parts.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    parts.append('  "programs": {')
    rows = []
    for r in sorted(records, key=lambda r: r.program.seed):
        rows.append("    %s: %s" % (json.dumps(str(r.program.seed)), json.dumps(
            {"sha1": r.program.sha1, "status": ap.tf_status(r.tf), "tf": r.tf.to_json()})))
    parts.append(",\n".join(rows))
    parts.append("  }")
    parts.append("}")
    with open(path, "w") as fh:
        fh.write("\n".join(parts) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="first program seed")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes per library")
    parser.add_argument("--tensorflow", metavar="PYTHON", help="python of a TensorFlow venv: run TF too")
    parser.add_argument("--record", metavar="FILE", help="write TensorFlow's outcomes (needs --tensorflow)")
    parser.add_argument("--recorded", metavar="FILE", default=DEFAULT_FIXTURE,
                        help="recorded TF outcomes to use without --tensorflow (default: the CI fixture)")
    parser.add_argument("--report", metavar="FILE", help="write the full report here (default: stdout)")
    parser.add_argument("--cases", metavar="DIR", help="write minimized divergent programs here")
    parser.add_argument("--minimize-per-kind", type=int, default=2,
                        help="programs minimized per failure kind (0: no minimization)")
    parser.add_argument("--minimize-budget", type=float, default=1800.0,
                        help="seconds for all minimization")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per program call")
    parser.add_argument("--require-tf-refusals", action="store_true",
                        help="count Python's value where TensorFlow refuses a program as a "
                             "divergence (by default it is accepted: the same answer as Python)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if args.record and not args.tensorflow:
        parser.error("--record needs --tensorflow")

    log_dir = tempfile.mkdtemp(prefix="autograph_property_logs_")
    t0 = time.time()
    checker = Checker(args, log_dir)
    version = checker.tf.version if checker.tf else None
    print("workers up in %.0f s (%s); logs in %s" % (
        time.time() - t0, "TensorFlow %s" % version if version else "no TensorFlow", log_dir), file=sys.stderr)
    seeds = range(args.seed, args.seed + args.count)
    records = []
    done = [0]
    lock = threading.Lock()

    def one(seed):
        r = checker.check(ap.generate(seed))
        with lock:
            done[0] += 1
            if done[0] % 100 == 0:
                bad = sum(1 for x in records if x.verdict.result != "ok")
                print("  %d/%d programs, %.0f s, %d divergent so far" % (
                    done[0], len(seeds), time.time() - t0, bad), file=sys.stderr)
            records.append(r)
        return r

    try:
        with ThreadPoolExecutor(args.jobs) as ex:
            list(ex.map(one, seeds))
        records.sort(key=lambda r: r.program.seed)
        if args.record:
            write_record(args.record, records, args, version)
            print("recorded TensorFlow outcomes in %s" % args.record, file=sys.stderr)

        summary = summarize(records, checker.tf is not None)
        report = ["AutoGraph property test: %d programs from seed %d (%s)" % (
            args.count, args.seed, "against TensorFlow %s" % version if version else "without TensorFlow"),
            "command: %s" % " ".join([os.path.relpath(__file__, os.getcwd())] + (argv or sys.argv[1:])),
            ""] + summary + [""]
        differs = [r for r in records if r.verdict.tf == "differs"]
        if differs:
            report.append("TensorFlow's tf.function differs from Python on %d programs (skipped):" % len(differs))
            for r in differs:
                report += program_block(r, "seed %d: TensorFlow differs from Python" % r.program.seed)
            report.append("")
        bad = [r for r in records if r.verdict.tf != "differs" and r.verdict.result != "ok"]
        bad.sort(key=lambda r: (-ap.VERDICTS.index(r.verdict.result), r.program.seed))
        report.append("rillflow diverges on %d programs:" % len(bad))
        for r in bad:
            report += program_block(r, "seed %d: %s -- %s" % (
                r.program.seed, r.verdict.result, kind_text(signatures(r)[0])))
        report.append("")

        if args.report:
            # The unminimized report already, as minimization takes long.
            with open(args.report, "w") as fh:
                fh.write("\n".join(report) + "\n(minimizing...)\n")

        # Minimize a few programs of each kind, then keep one case per
        # kind and program shape.
        if args.minimize_per_kind > 0 and bad:
            deadline = time.time() + args.minimize_budget
            by_kind = collections.OrderedDict()
            for r in bad:
                by_kind.setdefault(signatures(r)[0], []).append(r)
            jobs = []
            for sig, rs in by_kind.items():
                # Shortest programs first: they minimize fastest. Wrong
                # values may have several causes: minimize more of them.
                rs = sorted(rs, key=lambda r: len(r.program.source))
                n = args.minimize_per_kind * (3 if sig[0] in VALUE_KINDS else 1)
                jobs += [(sig, r) for r in rs[:n]]
            print("minimizing %d programs (%d kinds)" % (len(jobs), len(by_kind)), file=sys.stderr)

            def shrink(job):
                sig, r = job
                if time.time() > deadline:
                    return sig, r, r, 0
                m, checks = minimize(checker, r, deadline=deadline)
                return sig, r, m, checks

            with ThreadPoolExecutor(args.jobs) as ex:
                results = list(ex.map(shrink, jobs))
            cases = collections.OrderedDict()
            for sig, r, m, checks in results:
                key = (sig, skeleton(m.program.source) if sig[0] in VALUE_KINDS else "")
                if key not in cases or len(m.program.source) < len(cases[key][1].program.source):
                    cases[key] = (r, m, checks)
            # One case per kind; for wrong values one per minimized shape.
            report.append("Minimized divergences (%d):" % len(cases))
            if args.cases:
                os.makedirs(args.cases, exist_ok=True)
            for n, ((sig, _), (r, m, checks)) in enumerate(cases.items()):
                title = "case %d: %s (from seed %d, %d checks)" % (n + 1, kind_text(sig), r.program.seed, checks)
                report += program_block(m, title)
                if args.cases:
                    name = "case_%03d_%s.py" % (n + 1, sig[0])
                    with open(os.path.join(args.cases, name), "w") as fh:
                        fh.write(case_file(m, r, sig))
            if args.cases:
                print("wrote %d cases to %s" % (len(cases), args.cases), file=sys.stderr)
        text = "\n".join(report) + "\n"
        if args.report:
            with open(args.report, "w") as fh:
                fh.write(text)
            print("\n".join(summary))
            print("report: %s" % args.report)
        else:
            print(text)
        print("done in %.0f s" % (time.time() - t0), file=sys.stderr)
    finally:
        checker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Random small Python programs for the AutoGraph differential property test.

`generate(seed)` builds the source of a module defining `f` (and perhaps
helper functions it calls) with two argument tuples; `run_program` runs `f`
natively on eager tensors and through `tf.function`, and `classify` decides
whether a tf.function outcome is the one Python gives (or, where TensorFlow
refuses the program, the exception TensorFlow raises).

Used by tests/test_autograph_property.py and tools/autograph_property.py.
The tool also imports this file into a TensorFlow venv, so this module
imports neither rillflow nor TensorFlow nor pytest: the library to run is
always passed in as `tf_module`.

The programs only use constructs whose native (Python) meaning is
unambiguous, always terminate (while loops increment their counter first,
loop bounds are at most 6, at most two loops are nested) and keep values
small (products only of small factors, float constants that are exact in
float32), so that graph and eager arithmetic agree to the last bit and any
difference is a control-flow bug, not rounding.
"""
import atexit
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Optional

import numpy as np

# Bump when the generator changes what a seed produces: recorded
# TensorFlow outcomes are keyed by seed and checked by source hash.
GENERATOR_VERSION = 1

INT, FLOAT, BOOL, INT64, LIST = "int", "float", "bool", "int64", "list"

_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?![\w(])")   # a variable, not a call or literal

# Argument values. Floats are exact in float32 and their means (used as
# branch thresholds) too; int tensors may be negative (a loop bound then
# gives no iterations), Python ints stay in 0..5 so they bound loops.
FLOAT_ARG_VALUES = (-2.0, -1.5, -0.5, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0)
INT_ARG_VALUES = (-1, 0, 1, 2, 3, 4, 5)
PY_INT_ARG_VALUES = (0, 1, 2, 3, 4, 5)
FLOAT_LITERALS = ("0.5", "1.0", "1.5", "2.0", "2.5", "3.0", "0.25", "-1.0", "-0.5")
INT_LITERALS = ("0", "1", "2", "3", "4", "5", "-1", "-2")

MAX_LINES = 25       # whole module, helpers included
MIN_LINES = 5
MAX_DEPTH = 3        # nesting of compound statements
MAX_LOOPS = 2        # nesting of loops: at most 6 * 6 iterations


@dataclass(frozen=True)
class Program:
    """A generated program: module source defining `f`, and two argument
    tuples. An argument is ("tensor", dtype name, value) or ("int", value)
    or ("bool", value)."""
    seed: int
    source: str
    args1: tuple
    args2: tuple

    @property
    def sha1(self):
        """Hash of source and arguments: a recorded outcome belongs to it."""
        text = json.dumps([self.source, self.args1, self.args2])
        return hashlib.sha1(text.encode()).hexdigest()

    def to_json(self):
        """A JSON-able dict (see from_json)."""
        return {"seed": self.seed, "source": self.source,
                "args1": [list(a) for a in self.args1],
                "args2": [list(a) for a in self.args2]}

    @staticmethod
    def from_json(d):
        """The Program of a to_json dict."""
        return Program(d["seed"], d["source"], tuple(tuple(a) for a in d["args1"]),
                       tuple(tuple(a) for a in d["args2"]))

    def args_text(self, which):
        """The argument tuple `which` (1 or 2) as Python source."""
        args = self.args1 if which == 1 else self.args2
        parts = [_arg_text(a) for a in args]
        return "(%s)" % (parts[0] + "," if len(parts) == 1 else ", ".join(parts))


def _arg_text(spec):
    if spec[0] == "tensor":
        return "tf.constant(%r, dtype=tf.%s)" % (spec[2], spec[1])
    return repr(spec[1])


# --- generation -------------------------------------------------------------------------

@dataclass
class Var:
    """What the generator knows of a variable."""
    name: str
    dom: str
    py: bool = False      # a Python value both eagerly and in the trace
    small: bool = True    # |value| stays small: may be a factor of a product
    bound: bool = False   # value in -2..6: may bound a loop
    elem: Optional[str] = None     # a LIST's element domain
    values: Optional[tuple] = None  # a parameter's values in args1, args2
    fixed: bool = False   # parameters, loop targets, counters: never assigned


class E(NamedTuple):
    """A generated expression."""
    text: str
    py: bool = True       # Python value in the trace too
    small: bool = True
    atomic: bool = True   # needs no parentheses as an operand
    var: Optional[Var] = None


def _p(e):
    return e.text if e.atomic else "(%s)" % e.text


@dataclass
class Ctx:
    """Where a statement is generated."""
    depth: int = 0
    loops: int = 0
    loop_kind: Optional[str] = None    # innermost loop: "tensor" / "python"
    tensor: bool = False               # inside tensor-controlled flow
    writable: Optional[frozenset] = None   # names a loop body may reassign
    loop_locals: Optional[set] = None  # names first assigned in this body


class _Gen:
    """Generates one module from a random.Random."""

    def __init__(self, rng):
        self.rng = rng
        r = rng.random
        # Per-program knobs: most programs stay valid; a few read
        # maybe-undefined variables or mix return kinds, which TensorFlow
        # refuses in graphs (rillflow must raise the same exception).
        self.allow_maybe = r() < 0.08
        self.no_final_return = r() < 0.03
        self.int_init_float = r() < 0.05
        self.used = set()
        self.helpers = []  # (name, param doms, return dom)
        self.uncalled = []  # helpers no expression calls yet

    # names ------------------------------------------------------------------------------
    def fresh(self, pool):
        for n in pool:
            if n not in self.used:
                self.used.add(n)
                return n
        k = 0
        while "%s%d" % (pool[0], k) in self.used:
            k += 1
        self.used.add("%s%d" % (pool[0], k))
        return "%s%d" % (pool[0], k)

    def choice(self, weighted):
        """Picks from [(weight, value)]."""
        total = sum(w for w, _ in weighted)
        x = self.rng.random() * total
        for w, v in weighted:
            x -= w
            if x < 0:
                return v
        return weighted[-1][1]

    # expressions ------------------------------------------------------------------------
    def atoms(self, dom, env, maybe, py_only=False):
        """Candidate leaf expressions of domain `dom`: (weight, E)."""
        out = []
        pools = [(v, 1.0) for v in env.values()]
        if self.allow_maybe:
            pools += [(v, 0.6) for n, v in maybe.items() if n not in env]
        for v, w in pools:
            if v.dom == dom:
                out.append((3.0 * w, E(v.name, v.py, v.small, True, v)))
            elif v.dom == INT64 and dom == INT:
                out.append((2.0 * w, E("tf.cast(%s, tf.int32)" % v.name, False, True, True)))
            elif v.dom == LIST and v.elem == dom:
                out.append((1.0 * w, E("%s[-1]" % v.name, False, False, True)))
            elif v.dom == LIST and dom == INT:
                out.append((0.7 * w, E("len(%s)" % v.name, False, True, True)))
            elif dom == FLOAT and v.dom == INT and v.py and v.small:
                out.append((0.5 * w, E("float(%s)" % v.name, True, True, True)))
            elif dom == FLOAT and v.dom in (INT, INT64) and v.small:
                out.append((0.5 * w, E("tf.cast(%s, tf.float32)" % v.name, False, True, True)))
        if py_only:
            out = [(w, e) for w, e in out if e.py]
        lits = INT_LITERALS if dom == INT else FLOAT_LITERALS
        lit = self.rng.choice(lits)
        out.append((1.5, E(lit, True, True, not lit.startswith("-"))))
        return out

    def expr(self, dom, env, maybe, depth=0, py_only=False):
        """A random expression of domain INT or FLOAT."""
        rng = self.rng
        pending = [h for h in self.uncalled if h[2] == dom]
        if pending and not py_only and rng.random() < 0.5:
            # A generated helper gets called: unused ones are dropped.
            return self.call(pending[0], env, maybe, depth)
        if depth >= 2 or rng.random() < 0.45 + 0.15 * depth:
            return self.choice(self.atoms(dom, env, maybe, py_only))
        ops = [(3, "+"), (2, "-"), (1.5, "*"), (0.6, "neg"), (0.5, "abs"),
               (0.7, "max"), (0.6, "ifexp")]
        if dom == INT:
            ops += [(0.8, "//"), (0.8, "%")]
        else:
            ops += [(0.8, "/")]
        if not py_only:
            if any(h[2] == dom for h in self.helpers):
                ops.append((1.0, "call"))
            if dom == FLOAT:
                ops.append((0.5, "cast"))
        op = self.choice(ops)
        if op in ("max", "call", "cast") and py_only:
            op = "+"
        a = self.expr(dom, env, maybe, depth + 1, py_only)
        if op in ("+", "-"):
            b = self.expr(dom, env, maybe, depth + 1, py_only)
            return E("%s %s %s" % (_p(a), op, _p(b)), a.py and b.py, a.small and b.small, False)
        if op == "*":
            # Products only of small factors (never of an accumulator, so
            # that loops grow values additively: they stay far below int32's
            # range and float32's exact 2**24); a product is not small.
            if not a.small:
                b = self.expr(dom, env, maybe, depth + 1, py_only)
                return E("%s + %s" % (_p(a), _p(b)), a.py and b.py, False, False)
            b = self.choice([(w, e) for w, e in self.atoms(dom, env, maybe, py_only) if e.small])
            return E("%s * %s" % (_p(a), _p(b)), a.py and b.py, False, False)
        if op == "//":
            return E("%s // %s" % (_p(a), rng.choice("23")), a.py, a.small, False)
        if op == "%":
            return E("%s %% %s" % (_p(a), rng.choice("234")), a.py, True, False)
        if op == "/":
            return E("%s / %s" % (_p(a), rng.choice(("2.0", "4.0"))), a.py, a.small, False)
        if op == "neg":
            return E("-%s" % _p(a), a.py, a.small, False)
        if op == "abs":
            return E("abs(%s)" % a.text, a.py, a.small, True)
        if op == "max":
            b = self.expr(dom, env, maybe, depth + 1)
            fn = rng.choice(("tf.maximum", "tf.minimum"))
            return E("%s(%s, %s)" % (fn, a.text, b.text), False, a.small and b.small, True)
        if op == "ifexp":
            p = self.pred(env, maybe, depth + 1, want_py=py_only or None)
            b = self.expr(dom, env, maybe, depth + 1, py_only)
            return E("%s if %s else %s" % (_p(a), _p(p), _p(b)), a.py and b.py and p.py,
                     a.small and b.small, False)
        if op == "cast":
            i = self.expr(INT, env, maybe, depth + 1)
            return E("tf.cast(%s, tf.float32)" % i.text, False, i.small, True)
        return self.call(rng.choice([h for h in self.helpers if h[2] == dom]), env, maybe, depth)

    def call(self, helper, env, maybe, depth):
        """A call of a helper function."""
        name, pdoms, _ = helper
        if helper in self.uncalled:
            self.uncalled.remove(helper)
        args = [self.expr(d, env, maybe, depth + 1) if d != BOOL else self.pred(env, maybe, depth + 1)
                for d in pdoms]
        return E("%s(%s)" % (name, ", ".join(a.text for a in args)), False, False, True)

    def threshold(self, v):
        """A literal between a parameter's two values, so that `v > c`
        takes different branches for the two argument tuples."""
        lo, hi = sorted(v.values)
        if v.dom == INT:
            return str(lo)
        return repr((lo + hi) / 2)

    def pred(self, env, maybe, depth=0, want_py=None):
        """A random boolean expression. want_py: True for a Python-only
        predicate (falls back to any predicate when none can be built).
        Predicates of literals only (`2 > 1`) are drawn again, up to twice:
        they test nothing."""
        for _ in range(2):
            e = self._pred(env, maybe, depth, want_py)
            if _IDENT.search(e.text):
                return e
        return self._pred(env, maybe, depth, want_py)

    def _pred(self, env, maybe, depth=0, want_py=None):
        rng = self.rng
        py_only = bool(want_py)
        if py_only:
            has_py = any(v.py and v.dom in (INT, FLOAT, BOOL) for v in env.values())
            if not has_py:
                py_only = False
        forms = [(5, "cmp"), (1.5, "mod"), (1.0, "chain"), (0.5, "not")]
        if depth < 2:
            forms += [(0.8, "and"), (0.8, "or")]
        bools = [v for v in env.values() if v.dom == BOOL and (v.py or not py_only)]
        if bools:
            forms.append((2.0, "boolvar"))
        form = self.choice(forms)
        if form == "boolvar":
            v = rng.choice(bools)
            return E(v.name, v.py, True, True, v)
        if form in ("and", "or"):
            a = self.pred(env, maybe, depth + 1, want_py)
            b = self.pred(env, maybe, depth + 1, want_py)
            return E("%s %s %s" % (_p(a), form, _p(b)), a.py and b.py, True, False)
        if form == "not":
            a = self.pred(env, maybe, depth + 1, want_py)
            return E("not %s" % _p(a), a.py, True, False)
        dom = INT if form == "mod" else rng.choice((INT, FLOAT))
        for _ in range(3):   # a comparison of literals only tests nothing
            a = self.expr(dom, env, maybe, depth + 1, py_only)
            if _IDENT.search(a.text):
                break
        if form == "mod":
            return E("%s %% 2 == %d" % (_p(a), rng.randrange(2)), a.py, True, False)
        if a.var is not None and a.var.values is not None and rng.random() < 0.7:
            c = self.threshold(a.var)
            op = rng.choice((">", "<=")) if a.var.values[0] != a.var.values[1] else rng.choice((">", "<"))
            return E("%s %s %s" % (a.text, op, c), a.py, True, False)
        if form == "chain":
            lo = rng.choice(("-1", "0", "1")) if dom == INT else rng.choice(("-1.0", "0.0", "0.5"))
            hi = rng.choice(("2", "3", "4")) if dom == INT else rng.choice(("1.5", "2.0", "3.0"))
            return E("%s < %s < %s" % (lo, _p(a), hi), a.py, True, False)
        op = rng.choice(("<", "<=", ">", ">=", "==", "!="))
        for _ in range(3):
            b = self.expr(dom, env, maybe, depth + 1, py_only)
            if b.text != a.text:   # `x > x` tests nothing
                break
        return E("%s %s %s" % (_p(a), op, _p(b)), a.py and b.py, True, False)

    def bound(self, env, ctx, py_only=False):
        """A loop bound in 0..6: a literal, a bounding parameter or an
        enclosing loop's target (never negative: tf.range(-1) raises)."""
        cands = [(2.0, E(str(self.rng.randint(0, 5))))]
        for v in env.values():
            if v.bound and v.dom == INT and (v.py or not py_only):
                cands.append((2.5, E(v.name, v.py, True, True, v)))
        return self.choice(cands)

    # statements -------------------------------------------------------------------------
    def assignable(self, env, ctx, dom=None):
        out = []
        for v in env.values():
            if v.fixed or v.dom in (LIST, INT64) or (dom and v.dom != dom):
                continue
            if ctx.writable is not None and v.name not in ctx.writable \
                    and v.name not in ctx.loop_locals:
                continue
            out.append(v)
        return out

    def new_dom(self):
        return self.choice([(0.45, INT), (0.4, FLOAT), (0.15, BOOL)])

    def value(self, dom, env, maybe, ctx):
        if dom == BOOL:
            return self.pred(env, maybe, want_py=self.rng.random() < 0.3 or None)
        return self.expr(dom, env, maybe)

    def block(self, ctx, env, maybe, n, ret):
        """n statements; returns (lines, env, terminated). `env` is copied;
        `maybe` (maybe-defined variables) is updated in place."""
        env = dict(env)
        lines = []
        for i in range(n):
            out, env, term = self.statement(ctx, env, maybe, ret, i == n - 1)
            lines += out
            if term:
                return lines, env, True
        return lines, env, False

    def statement(self, ctx, env, maybe, ret, last):
        rng = self.rng
        kinds = [(3.0, "new"), (0.6, "list")]
        if self.assignable(env, ctx):
            kinds.append((3.5, "update"))
        if ctx.depth < MAX_DEPTH:
            kinds.append((2.5, "if"))
            if ctx.loops < MAX_LOOPS:
                kinds += [(2.0, "for"), (1.0, "while")]
        if ctx.loops:
            kinds.append((1.6, "jump"))
            if any(v.dom == LIST for v in env.values()):
                kinds.append((2.0, "append"))
        if ret is not None:
            # TensorFlow refuses returns in graph loops and many nested in
            # tensor ifs: keep them, but not so many that few programs are
            # left whose values are compared.
            if ctx.loop_kind == "tensor":
                w = 0.3
            elif ctx.loops:
                w = 0.5
            else:
                w = 0.9 if ctx.depth == 0 else 0.4
            kinds.append((w, "return"))
        kind = self.choice(kinds)
        return getattr(self, "st_" + kind)(ctx, env, maybe, ret, last)

    def _define(self, env, ctx, var):
        env[var.name] = var
        if ctx.loop_locals is not None:
            ctx.loop_locals.add(var.name)

    def st_new(self, ctx, env, maybe, ret, last):
        dom = self.new_dom()
        name = self.fresh(("a", "b", "c", "d", "e", "g", "h", "r", "s", "v", "w"))
        if dom == FLOAT and self.int_init_float and self.rng.random() < 0.5:
            e = E(self.rng.choice(("0", "1")))   # a float variable that starts as an int
        else:
            e = self.value(dom, env, maybe, ctx)
        self._define(env, ctx, Var(name, dom, e.py, e.small and dom != BOOL))
        return ["%s = %s" % (name, e.text)], env, False

    def st_update(self, ctx, env, maybe, ret, last):
        rng = self.rng
        v = rng.choice(self.assignable(env, ctx))
        in_loop = ctx.loops > 0
        if v.dom == BOOL:
            form = rng.choice(("=", "not", "or", "and"))
            p = self.pred(env, maybe, 1)
            text = {"=": "%s = %s" % (v.name, p.text), "not": "%s = not %s" % (v.name, v.name),
                    "or": "%s = %s or %s" % (v.name, v.name, _p(p)),
                    "and": "%s = %s and %s" % (v.name, v.name, _p(p))}[form]
            py = p.py and v.py
            e = p
        else:
            # In loops a variable may only grow additively (see the module
            # docstring); its own value never enters a product.
            others = {n: x for n, x in env.items() if n != v.name}
            forms = [(3, "+="), (1.5, "-="), (2, "="), (1, "= v +")]
            if not in_loop:
                forms.append((0.7, "*="))
            form = self.choice(forms)
            e = self.expr(v.dom, others if in_loop else env, maybe)
            if form == "*=":
                e = E(rng.choice(("2", "-1", "3")) if v.dom == INT else rng.choice(("2.0", "0.5", "-1.0")))
            text = {"+=": "%s += %s", "-=": "%s -= %s", "=": "%s = %s", "*=": "%s *= %s",
                    "= v +": "%s = %s + " % (v.name, v.name) + "%s"}[form]
            text = text % (v.name, _p(e)) if form != "= v +" else text % _p(e)
            if form == "=" and not e.atomic:
                text = "%s = %s" % (v.name, e.text)
            py = e.py and v.py
        small = v.small and e.small and not in_loop and v.dom != BOOL
        env[v.name] = replace(v, py=py and not ctx.tensor, small=small, bound=False)
        return [text], env, False

    def st_list(self, ctx, env, maybe, ret, last):
        elem = self.rng.choice((INT, FLOAT))
        name = self.fresh(("z", "zs", "acc"))
        e = self.expr(elem, env, maybe, 1)
        self._define(env, ctx, Var(name, LIST, False, False, elem=elem, fixed=True))
        return ["%s = [%s]" % (name, e.text)], env, False

    def st_append(self, ctx, env, maybe, ret, last):
        z = self.rng.choice([v for v in env.values() if v.dom == LIST])
        others = {n: x for n, x in env.items() if n != z.name}
        e = self.expr(z.elem, others, maybe, 1)
        return ["%s.append(%s)" % (z.name, e.text)], env, False

    def returned(self, env, maybe, ret):
        """A return statement of signature `ret`. Mostly a local variable:
        the result should depend on the control flow that computed it."""
        parts = []
        for d in ret:
            local = [v.name for v in env.values()
                     if v.dom == d and not v.fixed and v.name not in parts]
            if local and self.rng.random() < 0.75:
                parts.append(self.rng.choice(local))
            else:
                parts.append(self.value(d, env, maybe, None).text)
        return "return " + ", ".join(parts)

    def st_return(self, ctx, env, maybe, ret, last):
        if self.rng.random() < 0.6:
            return self.guarded(ctx, env, maybe, [self.returned(env, maybe, ret)])
        return [self.returned(env, maybe, ret)], env, True

    def st_jump(self, ctx, env, maybe, ret, last):
        word = self.rng.choice(("break", "continue"))
        if self.rng.random() < 0.8:
            return self.guarded(ctx, env, maybe, [word])
        return [word], env, True

    def guarded(self, ctx, env, maybe, body):
        """`if P:` around a jump. In Python loops P is mostly a Python
        predicate: TensorFlow refuses tensor-dependent jumps there."""
        want_py = self.rng.random() < (0.75 if ctx.loop_kind == "python" else 0.3)
        p = self.pred(env, maybe, want_py=want_py or None)
        return ["if %s:" % p.text] + ["    " + l for l in body], env, False

    def st_if(self, ctx, env, maybe, ret, last):
        rng = self.rng
        p = self.pred(env, maybe, want_py=rng.random() < 0.4 or None)
        inner = replace(ctx, depth=ctx.depth + 1, tensor=ctx.tensor or not p.py)
        branches = [("if %s:" % p.text, inner)]
        tensor_if = not p.py
        if rng.random() < 0.2:
            q = self.pred(env, maybe, want_py=p.py or None)
            tensor_if = tensor_if or not q.py
            branches.append(("elif %s:" % q.text, replace(inner, tensor=inner.tensor or not q.py)))
        has_else = rng.random() < 0.5
        if has_else:
            branches.append(("else:", branches[-1][1]))
        lines, outs = [], []
        for head, bctx in branches:
            body, benv, term = self.block(bctx, env, maybe, self.body_len(), ret)
            lines.append(head)
            lines += ["    " + l for l in body]
            if not term:
                outs.append(benv)
        if not has_else:
            outs.append(env)
        if not outs:
            return lines, env, True
        return lines, self.merge(env, outs, maybe, tensor_if), False

    def merge(self, before, outs, maybe, tensor):
        """Variables after an if: those defined on every path that falls
        through; tensor-dependent ones are tensors in the trace."""
        # Dict order, never set order: str hashes differ between processes,
        # and the generator must give one program per seed everywhere.
        names = [n for n in outs[0] if all(n in o for o in outs[1:])]
        env = {}
        for n in names:
            vs = [o[n] for o in outs]
            changed = any(v is not before.get(n) for v in vs)
            v = vs[0]
            env[n] = replace(v, py=all(x.py for x in vs) and not (tensor and changed),
                             small=all(x.small for x in vs), bound=all(x.bound for x in vs))
        for o in outs:
            for n, v in o.items():
                if n not in env:
                    maybe[n] = v
        return env

    def body_len(self):
        return self.choice([(4, 1), (4, 2), (2, 3)])

    def loop_body(self, ctx, env, maybe, ret, kind, head_lines, extra_env, first=()):
        """Generates a loop body; returns (lines, env after the loop)."""
        cands = [v.name for v in self.assignable(env, ctx)]
        self.rng.shuffle(cands)
        writable = frozenset(cands[:self.rng.choice((0, 1, 1, 2, 2, 3))])
        benv = dict(env)
        for n in sorted(writable):
            # Loop-carried: a tensor in a graph loop, and growing.
            benv[n] = replace(benv[n], py=False, small=False, bound=False)
        benv.update(extra_env)
        bctx = Ctx(ctx.depth + 1, ctx.loops + 1, kind, ctx.tensor or kind == "tensor",
                   writable, set())
        body, benv_after, _ = self.block(bctx, benv, maybe, self.body_len(), ret)
        after = dict(env)
        for n in sorted(writable):
            after[n] = replace(after[n], py=after[n].py and kind == "python" and not ctx.tensor,
                               small=False, bound=False)
        for n in sorted(bctx.loop_locals):
            # First assigned in the body: undefined if it never runs.
            if n in benv_after:
                maybe[n] = benv_after[n]
        for n, v in extra_env.items():
            maybe[n] = v
        return head_lines + ["    " + l for l in list(first) + body], after

    def st_for(self, ctx, env, maybe, ret, last):
        rng = self.rng
        t = self.fresh(("i", "j", "t", "u"))
        form = self.choice([(3, "tf.range"), (3, "range"), (1.5, "pylist"), (1.5, "tensor"),
                            (0.8, "ds_range"), (0.8, "ds_slices")])
        if form in ("tf.range", "range"):
            b = self.bound(env, ctx)
            it = "%s(%s)" % (form, b.text)
            kind = "python" if form == "range" and b.py else "tensor"
            tv = Var(t, INT, kind == "python", True, True, fixed=True)
        elif form == "pylist":
            dom = rng.choice((INT, FLOAT))
            items = [self.choice(self.atoms(dom, env, maybe)) for _ in range(rng.randint(1, 4))]
            it = "[%s]" % ", ".join(e.text for e in items)
            kind = "python"
            tv = Var(t, dom, all(e.py for e in items), all(e.small for e in items), fixed=True,
                     bound=dom == INT and all(e.text.isdigit() for e in items))
        elif form in ("tensor", "ds_slices"):
            dom = rng.choice((INT, FLOAT))
            lits = INT_LITERALS[:6] if dom == INT else FLOAT_LITERALS
            it = "tf.constant([%s])" % ", ".join(rng.choice(lits) for _ in range(rng.randint(1, 4)))
            if form == "ds_slices":
                it = "tf.data.Dataset.from_tensor_slices(%s)" % it
            kind = "tensor"
            tv = Var(t, dom, False, True, dom == INT, fixed=True)
        else:
            # Dataset.range takes int64: an int32 tensor bound raises.
            b = self.bound(env, ctx, py_only=True)
            it = "tf.data.Dataset.range(%s)" % b.text
            kind = "tensor"
            tv = Var(t, INT64, False, True, fixed=True)
        lines, after = self.loop_body(ctx, env, maybe, ret, kind,
                                      ["for %s in %s:" % (t, it)], {t: tv})
        return lines, after, False

    def st_while(self, ctx, env, maybe, ret, last):
        c = self.fresh(("k1", "k2", "k3", "k4"))
        b = self.bound(env, ctx)
        cond = "%s < %s" % (c, b.text)
        py = b.py
        if self.rng.random() < 0.3:
            p = self.pred(env, maybe, 1, want_py=py or None)
            cond += " and %s" % _p(p)   # never `or`: the loop must stay bounded
            py = py and p.py
        kind = "python" if py else "tensor"
        env = dict(env)
        self._define(env, ctx, Var(c, INT, not ctx.tensor, True, False, fixed=True))
        cv = Var(c, INT, py and not ctx.tensor, True, True, fixed=True)
        # The counter goes up first: `continue` cannot skip it.
        lines, after = self.loop_body(ctx, env, maybe, ret, kind, ["%s = 0" % c, "while %s:" % cond],
                                      {c: cv}, first=["%s += 1" % c])
        maybe.pop(c, None)
        after[c] = replace(cv, py=cv.py, bound=False)
        return lines, after, False

    # functions --------------------------------------------------------------------------
    def helper(self, index):
        rng = self.rng
        name = "h%d" % index
        pdoms = [rng.choice((INT, FLOAT, FLOAT, INT, BOOL)) for _ in range(rng.randint(1, 2))]
        rdom = rng.choice((INT, FLOAT))
        params = ["p%d%d" % (index, k) for k in range(len(pdoms))]
        self.used.update(params)
        env = {p: Var(p, d, False, True, False, fixed=True) for p, d in zip(params, pdoms)}
        # Helper loops have literal bounds only: their arguments can be large.
        ctx = Ctx(depth=1, loops=0)
        body, benv, term = self.block(ctx, env, {}, rng.randint(1, 3), (rdom,))
        if not term:
            body.append(self.returned(benv, {}, (rdom,)))
        self.helpers.append((name, pdoms, rdom))
        self.uncalled.append(self.helpers[-1])
        return ["def %s(%s):" % (name, ", ".join(params))] + ["    " + l for l in body]

    def params(self):
        """f's parameters: (name, Var, arg spec 1, arg spec 2)."""
        rng = self.rng
        kinds = rng.sample(("x", "n", "k", "flag", "y", "m"), rng.randint(1, 4))
        if not any(k in kinds for k in ("x", "n", "y", "m")):
            kinds[0] = rng.choice(("x", "n"))
        order = ("x", "y", "n", "m", "k", "flag")
        out = []
        for k in sorted(set(kinds), key=order.index):
            if k in ("x", "y"):
                v1, v2 = rng.sample(FLOAT_ARG_VALUES, 2)
                var = Var(k, FLOAT, False, True, False, values=(v1, v2), fixed=True)
                specs = (("tensor", "float32", v1), ("tensor", "float32", v2))
            elif k in ("n", "m"):
                v1, v2 = rng.sample(INT_ARG_VALUES, 2)
                var = Var(k, INT, False, True, min(v1, v2) >= 0, values=(v1, v2), fixed=True)
                specs = (("tensor", "int32", v1), ("tensor", "int32", v2))
            elif k == "k":
                v1, v2 = rng.sample(PY_INT_ARG_VALUES, 2)
                var = Var(k, INT, True, True, True, values=(v1, v2), fixed=True)
                specs = (("int", v1), ("int", v2))
            else:
                v1 = rng.random() < 0.5
                var = Var(k, BOOL, True, values=(v1, not v1), fixed=True)
                specs = (("bool", v1), ("bool", not v1))
            out.append((k, var) + specs)
        return out

    def module(self):
        rng = self.rng
        helpers = []
        for i in range(self.choice([(5, 0), (3, 1), (1, 2)])):
            helpers.append(self.helper(i))
        params = self.params()
        self.used.update(p[0] for p in params)
        env = {p[0]: p[1] for p in params}
        ret = tuple(self.choice([(4, INT), (4, FLOAT), (1, BOOL)])
                    for _ in range(self.choice([(4, 1), (1, 2)])))
        body, benv, term = self.block(Ctx(), env, {}, rng.randint(2, 6), ret)
        if not term and not self.no_final_return:
            body.append(self.returned(benv, {}, ret))
        lines = ["def f(%s):" % ", ".join(p[0] for p in params)] + ["    " + l for l in body]
        # Keep the helpers f calls, directly or through a later helper.
        used_text = "\n".join(lines)
        kept = []
        for i in reversed(range(len(helpers))):
            if re.search(r"\bh%d\(" % i, used_text):
                kept.insert(0, helpers[i])
                used_text += "\n".join(helpers[i])
        lines = [l for h in kept for l in h + [""]] + lines
        args1 = tuple(p[2] for p in params)
        args2 = tuple(p[3] for p in params)
        return "\n".join(lines) + "\n", args1, args2


def generate(seed):
    """The program of `seed` (deterministic: random.Random(seed) only)."""
    rng = random.Random(seed)
    while True:
        source, args1, args2 = _Gen(rng).module()
        n = sum(1 for l in source.splitlines() if l.strip())
        # Some control flow, or there is nothing for AutoGraph to convert.
        flow = re.search(r"^\s+(if|for|while|elif) ", source, re.M)
        if MIN_LINES <= n <= MAX_LINES and flow:
            return Program(seed, source, args1, args2)


# --- running ----------------------------------------------------------------------------

class Outcome(NamedTuple):
    """("value", normalized value, "") or ("error", exception class name,
    message). Only kind and value take part in comparisons."""
    kind: str
    value: object
    message: str = ""

    def to_json(self):
        """A JSON-able list."""
        return [self.kind, self.value, self.message]

    @staticmethod
    def from_json(x):
        """The Outcome of a to_json list."""
        return Outcome(*x)


class RunResult(NamedTuple):
    """Outcomes of f(*args1), f(*args2) natively and through one tf.function."""
    native: list
    function: list

    def to_json(self):
        """A JSON-able dict."""
        return {"native": [o.to_json() for o in self.native],
                "function": [o.to_json() for o in self.function]}

    @staticmethod
    def from_json(d):
        """The RunResult of a to_json dict."""
        return RunResult([Outcome.from_json(o) for o in d["native"]],
                         [Outcome.from_json(o) for o in d["function"]])


class ProgramTimeout(Exception):
    """A program ran longer than its time limit (a non-terminating loop)."""


_tmpdir = None


def _program_dir():
    global _tmpdir
    if _tmpdir is None:
        _tmpdir = tempfile.mkdtemp(prefix="autograph_programs_")
        atexit.register(shutil.rmtree, _tmpdir, True)
    return _tmpdir


def load_program(program, tf_module, directory=None):
    """Writes the program to a file and imports it as a module with `tf`
    bound to tf_module (AutoGraph reads functions' source with inspect, so
    the code must come from a real file)."""
    src = program.source
    name = "agprog_" + hashlib.sha1(src.encode()).hexdigest()[:20]
    path = os.path.join(directory or _program_dir(), name + ".py")
    # Same name, same text: a file written before (even by another
    # process) can be reused; linecache never sees two texts for one path.
    if not os.path.exists(path):
        tmp = "%s.%d.%d.tmp" % (path, os.getpid(), threading.get_ident())
        with open(tmp, "w") as fh:
            fh.write(src)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.tf = tf_module
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def materialize(spec, tf_module):
    """An argument spec as a value: a tensor, or a Python int / bool."""
    if spec[0] == "tensor":
        return tf_module.constant(spec[2], dtype=getattr(tf_module, spec[1]))
    return spec[1]


_IN_USER_CODE = re.compile(r"^\s*([A-Za-z_][\w.]*): (.*)$")


def error_message(exc):
    """The gist of an exception's message: TensorFlow's AutoGraph wraps
    messages in 'in user code:' and a traceback; keep the final
    '<Class>: text' line then."""
    text = str(exc)
    if text.startswith("Graph execution error:"):
        # TensorFlow's runtime errors: the message follows the op's
        # creation traceback and precedes the failing node's name.
        keep = [l.strip() for l in text.splitlines()[1:]
                if l.strip() and not l.startswith((" ", "\t", "Detected at node"))]
        if keep:
            return keep[-1][:300]
    if "in user code:" in text:
        for line in reversed(text.splitlines()):
            m = _IN_USER_CODE.match(line)
            if m and m.group(1).split(".")[-1] == type(exc).__name__:
                return m.group(2).strip()[:300]
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def normalize(value):
    """A JSON-able form of a result. Python scalars become what
    tf.function makes of them (TensorFlow 2.21 returns a Python 3, 2.5 or
    True from a traced function as an int32, float32 or bool tensor), so
    that a Python 3 and an int32 tensor 3 compare equal, but an int64 or a
    float32 3 does not. Tuples and lists keep their kind (tf.function
    keeps them); None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return _array(np.asarray(value), "bool")
    if isinstance(value, int):
        dtype = "int32" if -2**31 <= value < 2**31 else "int64"
        return _array(np.asarray(value, dtype=dtype), dtype)
    if isinstance(value, float):
        return _array(np.asarray(value, dtype=np.float32), "float32")
    if isinstance(value, tuple):
        return {"tuple": [normalize(v) for v in value]}
    if isinstance(value, list):
        return {"list": [normalize(v) for v in value]}
    if isinstance(value, (np.ndarray, np.generic)):
        return _array(np.asarray(value), np.asarray(value).dtype.name)
    if hasattr(value, "numpy") and hasattr(value, "dtype") and hasattr(value.dtype, "name"):
        try:
            data = np.asarray(value.numpy())
        except Exception as e:  # e.g. a symbolic tensor that escaped
            return {"other": "%s (%s)" % (type(value).__name__, type(e).__name__)}
        return _array(data, value.dtype.name)
    return {"other": type(value).__name__}


def _array(a, dtype):
    data = a.tolist()
    if a.dtype.kind == "f":
        # JSON has no NaN or inf: spell them as strings.
        data = np.vectorize(_float_json, otypes=[object])(a).tolist() if a.size else data
    return {"dtype": dtype, "shape": list(a.shape), "data": data}


def _float_json(x):
    x = float(x)
    if np.isnan(x) or np.isinf(x):
        return repr(x)
    return x


def _data(v):
    return np.asarray(np.vectorize(float, otypes=[float])(np.asarray(v["data"], dtype=object))
                      if np.asarray(v["data"], dtype=object).size else [], dtype=float)


def values_equal(a, b, rtol=1e-6):
    """Normalized values equal: same structure, dtype, shape; floats to
    `rtol` (graph and eager may fuse float arithmetic differently)."""
    if a is None or b is None:
        return a is None and b is None
    if set(a) != set(b):
        return False
    if "tuple" in a or "list" in a:
        key = "tuple" if "tuple" in a else "list"
        return len(a[key]) == len(b[key]) and all(
            values_equal(x, y, rtol) for x, y in zip(a[key], b[key]))
    if "other" in a:
        return False   # an unknown object never counts as equal: no wrong value slips through
    if a["dtype"] != b["dtype"] or a["shape"] != b["shape"]:
        return False
    if a["dtype"].startswith(("float", "bfloat", "half")):
        x, y = _data(a), _data(b)
        return x.shape == y.shape and bool(np.all(
            (np.isnan(x) & np.isnan(y)) | (x == y) | (np.abs(x - y) <= rtol * np.abs(y))))
    return a["data"] == b["data"]


def outcomes_equal(a, b):
    """Both values (equal) or both errors of one class."""
    if a.kind != b.kind:
        return False
    if a.kind == "error":
        return a.value == b.value
    return values_equal(a.value, b.value)


def _call(thunk, tf_module, timeout):
    """Runs thunk, catching what it raises; a timer stops endless loops
    (in the main thread only: signals need it)."""
    use_alarm = timeout and threading.current_thread() is threading.main_thread()
    if use_alarm:
        def on_alarm(signum, frame):
            raise ProgramTimeout("program ran longer than %s s" % timeout)
        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return Outcome("value", normalize(thunk()))
    except Exception as e:
        return Outcome("error", type(e).__name__, error_message(e))
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def run_program(program, tf_module, timeout=20.0, native=True):
    """Runs f(*args1) and f(*args2) natively (plain Python on eager
    tensors), then through one tf.function (the second call retraces or
    reuses the first trace). Returns a RunResult of Outcomes; native=False
    skips the native runs (their outcomes are then None)."""
    mod = load_program(program, tf_module)
    try:
        f = mod.f
        calls = (program.args1, program.args2)
        nat = [None, None]
        if native:
            nat = [_call(lambda a=a: f(*[materialize(s, tf_module) for s in a]), tf_module, timeout)
                   for a in calls]
        g = tf_module.function(f)
        fun = [_call(lambda a=a: g(*[materialize(s, tf_module) for s in a]), tf_module, timeout)
               for a in calls]
        return RunResult(nat, fun)
    finally:
        sys.modules.pop(mod.__name__, None)


# --- judging ----------------------------------------------------------------------------

# Refusals TensorFlow 2.21 is known to make (exception class, message
# fragment) for programs Python runs: used where no recorded TensorFlow
# outcome exists, so that rillflow raising one of these counts as TF's
# behaviour. Kept small and explicit; each is an AutoGraph restriction.
KNOWN_TF_REFUSALS = (
    ("NotImplementedError", "a return statement cannot be placed inside this TensorFlow loop"),
    ("NotImplementedError", "break and return statements which depend on a TF condition are not supported in Python for loops"),
    ("NotImplementedError", "The condition of while loop started as non-Tensor, then changed to Tensor"),
    ("ValueError", "must also be initialized in the"),
    ("ValueError", "must be defined before the loop"),
    ("ValueError", "must also have a return statement"),
    ("InvalidArgumentError", "loop must iterate at least once to initialize"),
    ("OperatorNotAllowedInGraphError", "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"),
    ("TypeError", "in the main branch, but dtype"),
    ("TypeError", "before the loop, but dtype"),
)


def known_refusal(outcome):
    """Whether an error outcome is one of KNOWN_TF_REFUSALS."""
    return outcome.kind == "error" and any(
        outcome.value == cls and frag in outcome.message for cls, frag in KNOWN_TF_REFUSALS)


# Severity of a per-call verdict; the program's verdict is its worst call.
VERDICTS = ("ok", "eager_divergence", "extension", "wrong_exception",
            "unexpected_exception", "missing_exception", "wrong_value")


class Verdict(NamedTuple):
    """tf: None (no TensorFlow outcome), "agrees" (TF's tf.function gives
    Python's outcome), "refuses" (it raises where Python does not, or raises
    another class), "differs" (it returns a value Python does not give: a
    TensorFlow bug; the program is skipped). result: one of VERDICTS.
    reference: the outcome per call rillflow must give."""
    tf: Optional[str]
    result: str
    reference: list
    calls: list   # per-call results


def tf_status(tf_result):
    """How TensorFlow's tf.function compares with its own native run."""
    status = "agrees"
    for nat, fun in zip(tf_result.native, tf_result.function):
        if nat.kind == "value" and fun.kind == "value":
            if not outcomes_equal(nat, fun):
                return "differs"
        elif nat.kind == "error" and fun.kind == "value":
            return "differs"
        elif fun.kind == "error" and not (nat.kind == "error" and nat.value == fun.value):
            status = "refuses"
    return status


def classify(python, rill_function, tf_result=None, allow_extensions=False):
    """Judges rillflow's tf.function outcomes `rill_function` (per call).

    `python`: the native outcomes (rillflow's eager run of the plain Python
    function); `tf_result`: TensorFlow's RunResult, or None. The reference
    per call is Python's outcome, except where TensorFlow refuses the
    program: then it is TensorFlow's exception class. Without TensorFlow,
    an exception where Python returns a value passes only when it is one of
    KNOWN_TF_REFUSALS. `allow_extensions` accepts Python's value where
    TensorFlow refuses (rillflow's documented extensions)."""
    status = tf_status(tf_result) if tf_result is not None else None
    if status == "differs":
        return Verdict(status, "ok", [], [])
    reference, calls = [], []
    for c, (py, rf) in enumerate(zip(python, rill_function)):
        ref = py
        if tf_result is not None and tf_result.function[c].kind == "error":
            ref = tf_result.function[c]
        reference.append(ref)
        if ref.kind == "value":
            if rf.kind == "value":
                verdict = "ok" if values_equal(rf.value, ref.value) else "wrong_value"
            elif tf_result is None and known_refusal(rf):
                verdict = "ok"
            else:
                verdict = "unexpected_exception"
        elif rf.kind == "error":
            # TensorFlow's refusal, or the exception Python itself raises.
            verdict = "ok" if rf.value == ref.value or (
                py.kind == "error" and rf.value == py.value) or (
                tf_result is None and known_refusal(rf)) else "wrong_exception"
        elif py.kind == "value" and values_equal(rf.value, py.value):
            verdict = "ok" if allow_extensions else "extension"
        else:
            verdict = "missing_exception"
        if verdict == "ok" and tf_result is not None and not outcomes_equal(py, tf_result.native[c]):
            verdict = "eager_divergence"
        calls.append(verdict)
    result = max(calls, key=VERDICTS.index) if calls else "ok"
    return Verdict(status, result, reference, calls)


def describe(outcome):
    """An outcome as short text for reports."""
    if outcome is None:
        return "-"
    if outcome.kind == "error":
        return "raises %s: %s" % (outcome.value, outcome.message)
    return "returns %s" % _value_text(outcome.value)


def _value_text(v):
    if v is None:
        return "None"
    if "tuple" in v:
        return "(%s)" % ", ".join(_value_text(x) for x in v["tuple"]) + ("," if len(v["tuple"]) == 1 else "")
    if "list" in v:
        return "[%s]" % ", ".join(_value_text(x) for x in v["list"])
    if "other" in v:
        return "<%s>" % v["other"]
    return "%s %s%s" % (v["dtype"], v["data"], "" if not v["shape"] else " shape=%s" % v["shape"])

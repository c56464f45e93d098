"""Random op DAGs for the compiler's differential test.

`generate(seed)` builds a `Program`: inputs (float32, int32 and bool arrays
of random shapes, some large enough for the compiler's fusion and in-place
passes), variables, and a sequence of ops drawn from the registry's
elementwise unary and binary ops, reductions (with axes and keepdims), shape
ops (reshape, transpose, expand_dims, squeeze, concat, slice, strided
slices, tile, broadcast_to, reverse), matmul and casts, operands chosen so
that shapes broadcast. Some programs update variables (`assign_add`,
`assign_sub`, `assign`) and read them back, some differentiate their
outputs with a GradientTape.

A program is rendered as Python source (`Program.source()`), which is also
what runs: a failing program is a readable, self-contained test case.
`compiler_dag_check.py` runs programs eagerly and under tf.function and
compares them; tools/compiler_dag_fuzz.py runs thousands.
"""
import linecache
import re

import numpy as np

# --- the op catalog ----------------------------------------------------------------------

F, I, B = "float32", "int32", "bool"

# Unary ops: (source template, input dtypes, output dtype or None for the same).
# The op types they build are named so a test can check the catalog covers
# the compiler's elementwise set (fusion.ELEMENTWISE).
UNARY = {
    "Abs": ("tf.abs({0})", (F, I), None), "Neg": ("tf.negative({0})", (F, I), None),
    "Square": ("tf.square({0})", (F, I), None), "Sign": ("tf.sign({0})", (F, I), None),
    "Exp": ("tf.exp({0})", (F,), None), "Log": ("tf.math.log({0})", (F,), None),
    "Sqrt": ("tf.sqrt({0})", (F,), None), "Rsqrt": ("tf.math.rsqrt({0})", (F,), None),
    "Tanh": ("tf.tanh({0})", (F,), None), "Sigmoid": ("tf.sigmoid({0})", (F,), None),
    "Sin": ("tf.sin({0})", (F,), None), "Cos": ("tf.cos({0})", (F,), None),
    "Tan": ("tf.tan({0})", (F,), None), "Relu": ("tf.nn.relu({0})", (F, I), None),
    "Relu6": ("tf.nn.relu6({0})", (F,), None), "Floor": ("tf.floor({0})", (F,), None),
    "Ceil": ("tf.math.ceil({0})", (F,), None), "Round": ("tf.round({0})", (F,), None),
    "Reciprocal": ("tf.math.reciprocal({0})", (F,), None),
    "Softplus": ("tf.nn.softplus({0})", (F,), None), "Erf": ("tf.math.erf({0})", (F,), None),
    "Atan": ("tf.math.atan({0})", (F,), None), "Asin": ("tf.math.asin({0})", (F,), None),
    "Acos": ("tf.math.acos({0})", (F,), None), "Sinh": ("tf.math.sinh({0})", (F,), None),
    "Cosh": ("tf.math.cosh({0})", (F,), None), "Asinh": ("tf.math.asinh({0})", (F,), None),
    "Acosh": ("tf.math.acosh({0})", (F,), None), "Atanh": ("tf.math.atanh({0})", (F,), None),
    "Expm1": ("tf.math.expm1({0})", (F,), None), "Log1p": ("tf.math.log1p({0})", (F,), None),
    "Elu": ("tf.nn.elu({0})", (F,), None), "Selu": ("tf.nn.selu({0})", (F,), None),
    "Softsign": ("tf.nn.softsign({0})", (F,), None),
    "LeakyRelu": ("tf.nn.leaky_relu({0}, 0.2)", (F,), None),
    "Erfc": ("tf.math.erfc({0})", (F,), None),
    "LogicalNot": ("tf.logical_not({0})", (B,), None),
    "IsNan": ("tf.math.is_nan({0})", (F,), B), "IsFinite": ("tf.math.is_finite({0})", (F,), B),
    "ScalarMul": ("({0} * 0.5)", (F,), None), "NegOp": ("(-{0})", (F, I), None),
    "Identity": ("tf.identity({0})", (F, I, B), None),
    "Softmax": ("tf.nn.softmax({0})", (F,), None),
    "LogSoftmax": ("tf.nn.log_softmax({0})", (F,), None),
}

# Binary ops: (template, operand dtypes, output dtype or None for the same).
BINARY = {
    "AddV2": ("tf.add({0}, {1})", (F, I), None), "Sub": ("({0} - {1})", (F, I), None),
    "Mul": ("tf.multiply({0}, {1})", (F, I), None),
    "RealDiv": ("tf.math.divide({0}, {1})", (F,), None),
    "TrueDivInt": ("({0} / {1})", (I,), "float64"),
    "FloorDiv": ("tf.math.floordiv({0}, {1})", (F, I), None),
    "FloorMod": ("tf.math.floormod({0}, {1})", (F, I), None),
    "Maximum": ("tf.maximum({0}, {1})", (F, I), None),
    "Minimum": ("tf.minimum({0}, {1})", (F, I), None),
    "Pow": ("tf.pow({0}, {1})", (F, I), None),
    "SquaredDifference": ("tf.math.squared_difference({0}, {1})", (F, I), None),
    "Atan2": ("tf.math.atan2({0}, {1})", (F,), None),
    "Xdivy": ("tf.math.xdivy({0}, {1})", (F,), None),
    "Xlogy": ("tf.math.xlogy({0}, {1})", (F,), None),
    "DivNoNan": ("tf.math.divide_no_nan({0}, {1})", (F,), None),
    "Less": ("tf.less({0}, {1})", (F, I), B), "LessEqual": ("({0} <= {1})", (F, I), B),
    "Greater": ("tf.greater({0}, {1})", (F, I), B),
    "GreaterEqual": ("tf.greater_equal({0}, {1})", (F, I), B),
    "Equal": ("tf.equal({0}, {1})", (F, I, B), B),
    "NotEqual": ("tf.not_equal({0}, {1})", (F, I, B), B),
    "LogicalAnd": ("tf.logical_and({0}, {1})", (B,), None),
    "LogicalOr": ("tf.logical_or({0}, {1})", (B,), None),
    "TruncateDiv": ("tf.math.truncatediv({0}, {1})", (I,), None),
    "TruncateMod": ("tf.math.truncatemod({0}, {1})", (F, I), None),
}

REDUCTIONS = {
    "Sum": ("tf.reduce_sum", (F, I)), "Mean": ("tf.reduce_mean", (F, I)),
    "Max": ("tf.reduce_max", (F, I)), "Min": ("tf.reduce_min", (F, I)),
    "Prod": ("tf.reduce_prod", (F, I)), "Any": ("tf.reduce_any", (B,)),
    "All": ("tf.reduce_all", (B,)), "Variance": ("tf.math.reduce_variance", (F,)),
}
# (Not reduce_logsumexp: its graph sums the exponentials with reduce_sum,
# its eager kernel in Eigen's order -- ulps apart, docs/numerics.md.)

_INT_DIVISIONS = ("FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod", "TrueDivInt")

# Constant exponents TensorFlow's graph optimizer rewrites (Square, Sqrt...),
# with other bits than the eager Pow, never generated as constants; nor those
# one above them (Pow's gradient raises to y - 1, folded to a constant).
_REWRITTEN_EXPONENTS = (2.0, 3.0, 0.5, -0.5, -1.0, 4.0, 1.5)


# No value larger than this (tiles and broadcasts of large values grow fast).
MAX_ELEMENTS = 1 << 18


class Node:
    """A value of the program: dtype name, static shape (tuple) and the
    source expression naming it."""

    __slots__ = ("dtype", "shape", "name")

    def __init__(self, dtype, shape, name):
        self.dtype, self.shape, self.name = dtype, tuple(shape), name


class Program:
    """A random program: inputs (numpy arrays), variables (initial arrays),
    lines of source computing nodes, the outputs, and whether to
    differentiate them."""

    def __init__(self, seed):
        self.seed = seed
        self.inputs = []        # numpy arrays, parameters v0..v(k-1)
        self.variables = []     # numpy arrays, V[0]...
        self.lines = []         # (node index or None, source line)
        self.nodes = []
        self.outputs = []       # node indices
        self.gradients = False

    def source(self):
        """The program as the source of `def program(V, v0, ...)`."""
        params = ", ".join(["V"] + ["v%d" % i for i in range(len(self.inputs))])
        out = ["def program(%s):" % params]
        body = [line for _, line in self.lines]
        outs = [self.nodes[i].name for i in self.outputs]
        if self.gradients:
            watched = ["v%d" % i for i, a in enumerate(self.inputs) if a.dtype == np.float32]
            floats = [self.nodes[i].name for i in self.outputs
                      if self.nodes[i].dtype in (F, "float64")]
            out.append("    with tf.GradientTape() as tape:")
            out.append("        tape.watch([%s])" % ", ".join(watched))
            out += ["        " + line for line in body]
            out.append("        loss = tf.add_n([tf.constant(0.0)%s])" % "".join(
                ", tf.reduce_sum(tf.cast(%s, tf.float32))" % n for n in floats))
            targets = watched + ["V[%d]" % i for i, a in enumerate(self.variables)
                                 if a.dtype == np.float32]
            out.append("    grads = tape.gradient(loss, [%s])" % ", ".join(targets))
            out.append("    return [%s] + grads" % ", ".join(outs))
        else:
            out += ["    " + line for line in body]
            out.append("    return [%s]" % ", ".join(outs))
        return "\n".join(out) + "\n"

    def function(self, tf):
        """The Python function `program(V, *inputs)` (tf: the module)."""
        ns = {"tf": tf, "np": np}
        source = self.source()
        filename = "<dag program %s>" % self.seed
        # Registered, so AutoGraph (and a traceback) can read the source.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), ns)
        return ns["program"]


# --- generation ---------------------------------------------------------------------------

class _Gen:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.p = Program(seed)
        # Large programs exercise fusion (65,536+ elements) and in-place
        # reuse (1,024+); most stay small so thousands run quickly.
        r = self.rng.rand()
        self.big = 1 << 16 if r < 0.2 else 1024 if r < 0.45 else 0

    # values
    def values(self, dtype, shape):
        rng = self.rng
        if dtype == F:
            a = np.asarray(rng.standard_normal(shape) * rng.choice([0.5, 1.0, 3.0]))
            if rng.rand() < 0.3:
                a = np.round(a * 2) / 2          # exact halves: ties, zeros
            if rng.rand() < 0.15 and a.size:
                flat = a.reshape(-1)
                k = rng.randint(1, min(4, flat.size) + 1)
                flat[rng.randint(0, flat.size, k)] = rng.choice(
                    [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e-30], k)
            return a.astype(np.float32)
        if dtype == I:
            return np.asarray(rng.randint(-6, 7, shape), np.int32)
        return np.asarray(rng.rand(*shape) < 0.5)

    def shape(self, rank=None):
        rng = self.rng
        rank = rng.randint(0, 5) if rank is None else rank
        shape = [int(rng.choice([1, 1, 2, 3, 4, 5])) for _ in range(rank)]
        if rank and rng.rand() < 0.03:
            shape[rng.randint(rank)] = 0
        if self.big and rank:
            n = int(np.prod(shape)) or 1
            k = rng.randint(rank)
            shape[k] = max(shape[k], -(-self.big // (n // max(shape[k], 1) or 1)))
        return tuple(shape)

    def new_input(self, dtype, shape):
        self.p.inputs.append(self.values(dtype, shape))
        return self.add_node(dtype, shape, "v%d" % (len(self.p.inputs) - 1))

    def add_node(self, dtype, shape, name):
        node = Node(dtype, shape, name)
        self.p.nodes.append(node)
        return node

    def emit(self, dtype, shape, expr):
        if int(np.prod(shape)) > MAX_ELEMENTS:
            return None
        k = len(self.p.nodes)
        node = self.add_node(dtype, shape, "t%d" % k)
        self.p.lines.append((k, "t%d = %s" % (k, expr)))
        return node

    def pick(self, dtypes=None, pred=None):
        """A random existing node of one of `dtypes` (recent ones favoured)."""
        # Literals only ever meet computed values: an op of constants alone
        # would fold, and TensorFlow's graph optimizer rewrites some ops of
        # constants (a Pow by 2) with other bits than eager execution.
        cands = [n for n in self.p.nodes if (dtypes is None or n.dtype in dtypes) and
                 (pred is None or pred(n)) and not n.name.startswith("tf.constant(")]
        if not cands:
            return None
        k = len(cands)
        i = k - 1 - min(int(self.rng.exponential(k / 3.0)), k - 1)
        return cands[i]

    def operand(self, dtypes):
        n = self.pick(dtypes)
        if n is None or self.rng.rand() < 0.1:
            n = self.new_input(str(self.rng.choice(
                [d for d in dtypes if d in (F, I, B)] or [F])), self.shape())
        return n

    def broadcast_partner(self, x):
        """A node of x's dtype whose shape broadcasts with x's."""
        rng = self.rng
        ok = [n for n in self.p.nodes if n.dtype == x.dtype and _broadcast(n.shape, x.shape)
              is not None and not n.name.startswith("tf.constant(")]
        if ok and rng.rand() < 0.6:
            return ok[rng.randint(len(ok))]
        if rng.rand() < 0.2:
            return self.add_node(x.dtype, (), self.literal(x.dtype))
        shape = list(x.shape)
        shape = [1 if rng.rand() < 0.3 else d for d in shape]
        drop = rng.randint(0, len(shape) + 1)
        shape = shape[drop:]
        if rng.rand() < 0.2:
            shape = [int(rng.choice([1, 2]))] + shape
            if _broadcast(tuple(shape), x.shape) is None:
                shape = shape[1:]
        return self.new_input(x.dtype, tuple(shape))

    def literal(self, dtype):
        if dtype == F:
            v = float(self.rng.choice([0.25, 1.5, -2.5, 4.0, 1.0, -1.0, 0.0, 10.0]))
            return "tf.constant(%r)" % v
        if dtype == I:
            return "tf.constant(%d)" % self.rng.randint(-3, 4)
        return "tf.constant(%r)" % bool(self.rng.rand() < 0.5)

    # ops
    def unary(self):
        name = self.rng.choice(sorted(UNARY))
        tmpl, dtypes, out = UNARY[name]
        x = self.operand(dtypes)
        if name in ("Softmax", "LogSoftmax") and not x.shape:
            return None
        return self.emit(out or x.dtype, x.shape, tmpl.format(x.name))

    def binary(self):
        name = self.rng.choice(sorted(BINARY))
        tmpl, dtypes, out = BINARY[name]
        x = self.operand(dtypes)
        y = self.broadcast_partner(x)
        if self.rng.rand() < 0.5:
            x, y = y, x
        if x.name.startswith("tf.constant("):
            x, y = y, x    # a literal first operand: tf.pow(2.0, t) is not a rewrite
        if name == "Pow" and y.name.startswith("tf.constant("):
            if x.dtype == I or float(y.name[12:-1]) in _REWRITTEN_EXPONENTS:
                y = self.add_node(x.dtype, (), "tf.constant(%s)" % (
                    "1" if x.dtype == I else "1.25"))
        literal = y.name.startswith("tf.constant(")
        if x.dtype == I and literal and name in _INT_DIVISIONS:
            y = self.add_node(I, (), "tf.constant(%d)" % int(self.rng.choice([-3, 2, 5])))
        elif name == "Pow" and x.dtype == I and not literal:
            y = self.emit(I, y.shape, "tf.abs(%s) %% 4" % y.name)  # no negative powers
        elif x.dtype == I and name in _INT_DIVISIONS and self.rng.rand() < 0.8:
            # Mostly no division by zero (which must fail alike everywhere).
            y = self.emit(I, y.shape, "(tf.abs(%s) + 1)" % y.name)
        if y is None:
            return None
        shape = _broadcast(x.shape, y.shape)
        return self.emit(out or x.dtype, shape, tmpl.format(x.name, y.name))

    def where(self):
        c = self.operand((B,))
        x = self.broadcast_partner(self.operand((F, I)))
        shape = _broadcast(c.shape, x.shape)
        y = self.broadcast_partner(x)
        shape2 = _broadcast(shape, y.shape) if shape is not None else None
        if shape2 is None:
            return None
        return self.emit(x.dtype, shape2, "tf.where(%s, %s, %s)" % (c.name, x.name, y.name))

    def cast(self):
        x = self.operand((F, I, B, "float64", "int64"))
        to = str(self.rng.choice([F, I, B, "float64"]))
        if x.dtype == F and to == I:
            # float -> int of NaN/inf/huge is undefined in C; keep it defined.
            return self.emit(I, x.shape, "tf.cast(tf.clip_by_value(tf.where(tf.math.is_nan("
                             "{0}), 0.0, {0}), -1e6, 1e6), tf.int32)".format(x.name))
        return self.emit(to, x.shape, "tf.cast(%s, tf.%s)" % (x.name, to))

    def reduction(self):
        name = self.rng.choice(sorted(REDUCTIONS))
        fn, dtypes = REDUCTIONS[name]
        x = self.operand(dtypes)
        rank = len(x.shape)
        keep = bool(self.rng.rand() < 0.4)
        r = self.rng.rand()
        if rank == 0 or r < 0.25:
            axes = None
        elif r < 0.6:
            axes = int(self.rng.randint(-rank, rank))
        else:
            k = self.rng.randint(1, rank + 1)
            axes = [int(a) for a in self.rng.choice(rank, k, replace=False)]
            axes = [a - rank if self.rng.rand() < 0.3 else a for a in axes]
        shape = _reduced(x.shape, axes, keep)
        return self.emit(x.dtype, shape, "%s(%s, axis=%r, keepdims=%r)" % (
            fn, x.name, axes, keep))

    def argmax(self):
        x = self.operand((F, I))
        if not x.shape or 0 in x.shape:
            return None
        axis = int(self.rng.randint(-len(x.shape), len(x.shape)))
        fn = self.rng.choice(["tf.argmax", "tf.argmin"])
        shape = _reduced(x.shape, axis, False)
        return self.emit("int64", shape, "%s(%s, axis=%d)" % (fn, x.name, axis))

    def reshape(self):
        x = self.operand((F, I, B))
        n = int(np.prod(x.shape))
        dims = _factor(n, self.rng)
        shown = list(dims)
        if dims and n and self.rng.rand() < 0.4:
            shown[self.rng.randint(len(dims))] = -1
        return self.emit(x.dtype, dims, "tf.reshape(%s, %r)" % (x.name, shown))

    def transpose(self):
        x = self.operand((F, I, B))
        perm = [int(a) for a in self.rng.permutation(len(x.shape))]
        return self.emit(x.dtype, tuple(x.shape[a] for a in perm),
                         "tf.transpose(%s, %r)" % (x.name, perm))

    def expand_dims(self):
        x = self.operand((F, I, B))
        r = len(x.shape)
        axis = int(self.rng.randint(-r - 1, r + 1))
        a = axis if axis >= 0 else axis + r + 1
        shape = x.shape[:a] + (1,) + x.shape[a:]
        return self.emit(x.dtype, shape, "tf.expand_dims(%s, %d)" % (x.name, axis))

    def squeeze(self):
        x = self.pick((F, I, B), lambda n: 1 in n.shape)
        if x is None:
            return None
        ones = [i for i, d in enumerate(x.shape) if d == 1]
        if self.rng.rand() < 0.3:
            axes = None
            shape = tuple(d for d in x.shape if d != 1)
        else:
            axes = [int(a) for a in self.rng.choice(ones, self.rng.randint(1, len(ones) + 1),
                                                    replace=False)]
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return self.emit(x.dtype, shape, "tf.squeeze(%s, %r)" % (x.name, axes))

    def concat(self):
        x = self.pick((F, I, B), lambda n: len(n.shape) > 0)
        if x is None:
            return None
        r = len(x.shape)
        axis = int(self.rng.randint(-r, r))
        a = axis % r
        parts = [x]
        for _ in range(self.rng.randint(1, 3)):
            same = [n for n in self.p.nodes if n.dtype == x.dtype and len(n.shape) == r and
                    all(d == e for i, (d, e) in enumerate(zip(n.shape, x.shape)) if i != a)]
            if same and self.rng.rand() < 0.6:
                parts.append(same[self.rng.randint(len(same))])
            else:
                shape = list(x.shape)
                shape[a] = int(self.rng.randint(0, 4))
                parts.append(self.new_input(x.dtype, tuple(shape)))
        shape = list(x.shape)
        shape[a] = sum(p.shape[a] for p in parts)
        return self.emit(x.dtype, shape, "tf.concat([%s], %d)" % (
            ", ".join(p.name for p in parts), axis))

    def slice(self):
        x = self.pick((F, I, B), lambda n: len(n.shape) > 0)
        if x is None:
            return None
        rng = self.rng
        if rng.rand() < 0.4:
            begin = [int(rng.randint(0, d + 1)) for d in x.shape]
            size = [int(rng.randint(0, d - b + 1)) if rng.rand() < 0.8 else -1
                    for d, b in zip(x.shape, begin)]
            shape = tuple(d - b if s == -1 else s for d, b, s in zip(x.shape, begin, size))
            return self.emit(x.dtype, shape, "tf.slice(%s, %r, %r)" % (x.name, begin, size))
        parts, shape = [], []
        for d in x.shape[:rng.randint(1, len(x.shape) + 1)]:
            kind = rng.rand()
            if kind < 0.25 and d > 0:
                i = int(rng.randint(-d, d))
                parts.append(str(i))
            elif kind < 0.35:
                parts.append("None")
                shape.append(1)
                parts.append(":")
                shape.append(d)
            else:
                start = rng.choice([None, int(rng.randint(-d - 1, d + 2))])
                stop = rng.choice([None, int(rng.randint(-d - 1, d + 2))])
                step = int(rng.choice([1, 1, 2, -1, -2, 3]))
                parts.append("%s:%s:%d" % ("" if start is None else start,
                                           "" if stop is None else stop, step))
                shape.append(len(range(d)[slice(start, stop, step)]))
        shape += list(x.shape[len([p for p in parts if p != "None"]):])
        return self.emit(x.dtype, shape, "%s[%s]" % (x.name, ", ".join(parts)))

    def tile(self):
        x = self.operand((F, I, B))
        mult = [int(self.rng.choice([1, 1, 2, 3])) for _ in x.shape]
        if self.big:
            mult = [1 for _ in mult]
        return self.emit(x.dtype, tuple(d * m for d, m in zip(x.shape, mult)),
                         "tf.tile(%s, %r)" % (x.name, mult))

    def broadcast_to(self):
        x = self.operand((F, I, B))
        shape = [d if d != 1 or self.rng.rand() < 0.5 else int(self.rng.randint(1, 4))
                 for d in x.shape]
        if self.rng.rand() < 0.4 and not self.big:
            shape = [int(self.rng.randint(1, 4))] + shape
        return self.emit(x.dtype, tuple(shape), "tf.broadcast_to(%s, %r)" % (x.name, shape))

    def reverse(self):
        x = self.pick((F, I, B), lambda n: len(n.shape) > 0)
        if x is None:
            return None
        axis = int(self.rng.randint(-len(x.shape), len(x.shape)))
        return self.emit(x.dtype, x.shape, "tf.reverse(%s, [%d])" % (x.name, axis))

    def matmul(self):
        rng = self.rng
        dtype = F if rng.rand() < 0.8 else I
        ta, tb = bool(rng.rand() < 0.3), bool(rng.rand() < 0.3)
        batch = [int(rng.choice([2, 3])) for _ in range(rng.choice([0, 0, 1, 2]))]
        m, k, n = (int(rng.randint(1, 6)) for _ in range(3))
        if self.big and dtype == F:
            m, k, n = 64, 32, 48
        a = self.pick((dtype,), lambda x: len(x.shape) == len(batch) + 2)
        if a is None or rng.rand() < 0.5:
            a = self.new_input(dtype, tuple(batch) + ((k, m) if ta else (m, k)))
        batch = list(a.shape[:-2])
        k = a.shape[-2] if ta else a.shape[-1]
        m = a.shape[-1] if ta else a.shape[-2]
        b_batch = [1 if rng.rand() < 0.3 else d for d in batch]
        b = self.new_input(dtype, tuple(b_batch) + ((n, k) if tb else (k, n)))
        shape = tuple(batch) + (m, n)
        return self.emit(dtype, shape, "tf.matmul(%s, %s, transpose_a=%r, transpose_b=%r)" % (
            a.name, b.name, ta, tb))

    def variable_update(self):
        p = self.p
        rng = self.rng
        if not p.variables or rng.rand() < 0.3:
            dtype = F if rng.rand() < 0.8 else I
            p.variables.append(self.values(dtype, self.shape()))
        i = rng.randint(len(p.variables))
        init = p.variables[i]
        dtype = F if init.dtype == np.float32 else I
        src = self.pick((dtype,), lambda n: n.shape == init.shape)
        if src is None:
            src = self.new_input(dtype, init.shape)
        method = rng.choice(["assign_add", "assign_sub", "assign"])
        p.lines.append((None, "V[%d].%s(%s)" % (i, method, src.name)))
        return self.emit(dtype, init.shape, "V[%d].read_value()" % i)


_KINDS = [("unary", 6), ("binary", 8), ("where", 1), ("cast", 1), ("reduction", 3),
          ("argmax", 0.5), ("reshape", 1.5), ("transpose", 1), ("expand_dims", 1),
          ("squeeze", 1), ("concat", 1), ("slice", 1.5), ("tile", 0.7),
          ("broadcast_to", 0.7), ("reverse", 0.5), ("matmul", 1.2),
          ("variable_update", 0.7)]


def generate(seed, max_ops=None):
    """The random program of `seed`."""
    g = _Gen(seed)
    rng = g.rng
    n_ops = int(rng.randint(2, max_ops or 18))
    for _ in range(int(rng.randint(1, 4))):
        g.new_input(str(rng.choice([F, F, F, I])), g.shape())
    names = [k for k, _ in _KINDS]
    # Large programs are mostly elementwise chains: the fusion pass's work.
    weights = np.array([w * (3 if g.big and k in ("unary", "binary") else 1)
                        for k, w in _KINDS], float)
    weights /= weights.sum()
    made = 0
    for _ in range(n_ops * 3):
        if made >= n_ops:
            break
        kind = names[rng.choice(len(names), p=weights)]
        if getattr(g, kind)() is not None:
            made += 1
    p = g.p
    computed = [k for k, _ in p.lines if k is not None]
    if not computed:
        g.unary()
        computed = [k for k, _ in p.lines if k is not None]
    used = {n for _, line in p.lines for n in _names_in(line)}
    # Every value nothing reads is an output, plus a few read ones.
    p.outputs = [k for k in computed if p.nodes[k].name not in used or rng.rand() < 0.2]
    p.gradients = bool(rng.rand() < 0.35)
    return p


def _names_in(line):
    rhs = line.split("=", 1)[1] if "=" in line.split("(", 1)[0] else line
    return set(re.findall(r"\bt\d+\b", rhs))


def _broadcast(a, b):
    out = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + tuple(a)),
                    reversed((1,) * (len(a) - len(b)) + tuple(b))):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def _reduced(shape, axes, keep):
    r = len(shape)
    if axes is None:
        axes = list(range(r))
    elif isinstance(axes, int):
        axes = [axes]
    axes = {a % r for a in axes} if r else set()
    return tuple((1 if keep else None) if i in axes else d for i, d in enumerate(shape)
                 if keep or i not in axes)


def _factor(n, rng):
    """A random shape with `n` elements."""
    if n == 0:
        return (0,) if rng.rand() < 0.5 else (2, 0)
    dims = []
    rest = n
    for p in (2, 3, 5, 7):
        while rest % p == 0:
            dims.append(p)
            rest //= p
    if rest > 1:
        dims.append(rest)
    rng.shuffle(dims)
    out = []
    for d in dims:
        if out and rng.rand() < 0.5:
            out[-1] *= d
        else:
            out.append(d)
    while len(out) > 4:
        last = out.pop()
        out[-1] *= last
    if rng.rand() < 0.3:
        out.insert(rng.randint(len(out) + 1), 1)
    return tuple(out)

"""Sums of many gradients added up as their terms are made.

The gradient of a weight that an unrolled loop reads at every step is an
AddN of one term per step: 35 [384, 1024] matmuls in a 35-step LSTM, and
35 [35, 32, 128] StridedSliceGrads for its embedded inputs. The AddN runs
after the last term is made, so every term stays alive until then (70 MB
in that model's step), and is read back from memory when the sum finally
runs.

Here an AddN of three or more terms becomes partial sums, in its own order:
`acc = t1 + t2` as soon as both exist, then `acc += t3` once t3 exists, and
so on. Each term can be freed right after it is added, while it is still
in the cache. The additions are the AddN kernel's own (`first + xs[1]`,
then `np.add(acc, x, out=acc)`, left to right), so the sum is the same bit
for bit. Only AddNs whose terms all have one dtype and the same static
shape are rewritten: the kernel's shape and dtype errors cannot happen
there, and NumPy never broadcasts.
"""
import numpy as np

from .plan import Plan

__all__ = ["accumulate_sums", "MIN_TERMS", "MIN_ELEMENTS"]

MIN_TERMS = 3
# Terms smaller than this gain nothing worth the extra lines.
MIN_ELEMENTS = 1024


def _shape(t):
    s = t.shape
    return tuple(s.as_list()) if s.is_fully_defined() else None


def _rewritable(plan):
    op = plan.op
    if plan.kind != "kernel" or op.type != "AddN" or len(plan.inputs) < MIN_TERMS or \
            len(op.outputs) != 1:
        return False
    terms = plan.inputs
    out = op.outputs[0]
    shape = _shape(out)
    if shape is None or int(np.prod(shape)) < MIN_ELEMENTS:
        return False
    if not (out.dtype.is_floating or out.dtype.is_complex or out.dtype.is_integer):
        return False
    return all(t.dtype is out.dtype and _shape(t) == shape for t in terms)


def _made_by(plans):
    """id(tensor) -> index of the plan that makes it (fused plans make the
    outputs of every op they hold)."""
    where = {}
    for i, p in enumerate(plans):
        ops = [p.op]
        if p.kind == "fused":
            ops += [q.op for q in p.template]
        for op in ops:
            for t in op.outputs:
                where[id(t)] = i
    return where


def _first(em, args):
    return "%s + %s" % (args[0], args[1])


def _add_into(out):
    def template(em, args):
        acc = em.value(out)
        return "%s(%s, %s, out=%s)" % (em.global_for(np.add, "uf_add"), acc, args[0], acc)
    return template


def accumulate_sums(plans):
    """The plans with each rewritable AddN split into partial sums placed
    right after the plans making their terms."""
    targets = [i for i, p in enumerate(plans) if _rewritable(p)]
    if not targets:
        return plans
    where = _made_by(plans)
    after = {}          # plan index -> partial-sum plans to emit after it
    replaced = set()
    for i in targets:
        p = plans[i]
        terms = p.inputs
        if len({id(t) for t in terms}) != len(terms):
            continue   # a term twice: keep the kernel (no partial reads a freed term)
        out = p.op.outputs[0]
        ready = max(where.get(id(terms[0]), -1), where.get(id(terms[1]), -1))
        # The sum's place never moves later than the AddN's own.
        parts = [(min(ready, i), Plan(p.op, "expr", _first, terms[:2]))]
        add = _add_into(out)
        for t in terms[2:]:
            ready = max(ready, where.get(id(t), -1))
            parts.append((min(ready, i), Plan(p.op, "stmt", add, [t])))
        replaced.add(i)
        for at, part in parts:
            after.setdefault(at, []).append(part)
    if not replaced:
        return plans
    result = list(after.get(-1, ()))
    for i, p in enumerate(plans):
        if i not in replaced:
            result.append(p)
        result.extend(after.get(i, ()))
    return result

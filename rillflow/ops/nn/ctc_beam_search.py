"""The CTCBeamSearchDecoder kernel: TensorFlow's prefix beam search
(ctc_beam_search.h with the default scorer) step for step.

The beam is a tree of prefixes; each entry keeps the log probabilities of
its prefix ending in a label and in a blank, now (`n_*`) and one frame ago
(`o_*`). TensorFlow keeps the live entries in a `gtl::TopN` whose heap order
and sort decide which of equally probable entries is extended first, which
one is dropped when the beam is full, and the order of equal top paths, so
`_TopN` reproduces that class (as TensorFlow 2.21's headers define it)
together with the libstdc++ heap and introsort algorithms it calls.
Arithmetic is in the input's dtype: float32 values are rounded after every
operation, with the C library's expf, logf and log1pf, as the C++ code
computes them, so the log probabilities and ties are TensorFlow's bits.
"""
import ctypes
import ctypes.util
import math

import numpy as np

from ...framework import errors

__all__ = ["beam_search"]

_NEG_INF = -math.inf


def _f32(x):
    return float(np.float32(x))


def _load_libm():
    """The C library's expf, logf and log1pf, which TensorFlow's kernel
    calls (float64 NumPy rounded to float32 where there is no libm)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fns = []
        for name in ("expf", "logf", "log1pf"):
            f = getattr(lib, name)
            f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
            fns.append(f)
        return fns
    except (OSError, AttributeError):
        return [lambda v, f=f: _f32(f(_f32(v))) for f in (math.exp, math.log, math.log1p)]


_expf, _logf, _log1pf = _load_libm()


# --- gtl::TopN on libstdc++'s algorithms ----------------------------------------------
# `better(a, b)` is TopN's "greater" comparator (a's total is larger); with it
# the std heap keeps the lowest entry in front.

def _better(a, b):
    return a.n_total > b.n_total


def _push_hole(a, hole, top, value):
    parent = (hole - 1) // 2
    while hole > top and _better(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _adjust_heap(a, hole, length, value):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if _better(a[second], a[second - 1]):
            second -= 1
        a[hole] = a[second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[hole] = a[second - 1]
        hole = second - 1
    _push_hole(a, hole, top, value)


def _make_heap(a, length):
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, parent, length, a[parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, length):
    """Moves the front of the heap a[:length] to a[length - 1]."""
    if length > 1:
        last = length - 1
        value = a[last]
        a[last] = a[0]
        _adjust_heap(a, 0, last, value)


def _sort_heap(a, length):
    while length > 1:
        _pop_heap(a, length)
        length -= 1


def _linear_insert(a, last):
    value = a[last]
    nxt = last - 1
    while _better(value, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = value


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        if _better(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i)


def _median_to_first(a, result, x, y, z):
    if _better(a[x], a[y]):
        if _better(a[y], a[z]):
            pick = y
        elif _better(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif _better(a[x], a[z]):
        pick = x
    elif _better(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _partition(a, first, last, pivot):
    while True:
        while _better(a[first], a[pivot]):
            first += 1
        last -= 1
        while _better(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _introsort_loop(a, first, last, depth):
    while last - first > 16:
        if depth == 0:
            part = a[first:last]
            _make_heap(part, len(part))
            _sort_heap(part, len(part))
            a[first:last] = part
            return
        depth -= 1
        mid = first + (last - first) // 2
        _median_to_first(a, first, first + 1, mid, last - 1)
        cut = _partition(a, first + 1, last, first)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _std_sort(a):
    n = len(a)
    if n < 2:
        return
    _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        _insertion_sort(a, 0, 16)
        for i in range(16, n):
            _linear_insert(a, i)
    else:
        _insertion_sort(a, 0, n)


class _TopN:
    """TensorFlow 2.21's gtl::TopN<BeamEntry*, BeamComparer>: unordered (or
    with the lowest entry known to be in front) until it holds `limit`
    entries, then a heap of exactly `limit` entries."""

    __slots__ = ("limit", "items", "heap", "bottom_known")

    def __init__(self, limit):
        self.limit = limit
        self.reset()

    def reset(self):
        self.items = []
        self.heap = False
        self.bottom_known = False

    def size(self):
        return len(self.items)

    def push(self, v):
        items = self.items
        if self.limit == 0:
            return
        if not self.heap:
            items.append(v)
            if len(items) == self.limit + 1:
                n = len(items)
                _make_heap(items, n)
                _pop_heap(items, n)
                items.pop()
                self.heap = True
            elif self.bottom_known and not _better(items[-1], items[0]):
                # The lowest entry stays in front.
                items[0], items[-1] = items[-1], items[0]
        elif _better(v, items[0]):
            n = len(items)
            _pop_heap(items, n)
            items[-1] = v
            _push_hole(items, n - 1, 0, v)

    def peek_bottom(self):
        items = self.items
        if not self.heap and not self.bottom_known:
            low = 0
            for i in range(1, len(items)):
                if _better(items[low], items[i]):
                    low = i
            if low:
                items[0], items[low] = items[low], items[0]
            self.bottom_known = True
        return items[0]

    def extract(self):
        """The entries, best first (then the set is empty)."""
        out = self.items
        if self.heap:
            _sort_heap(out, len(out))
        else:
            _std_sort(out)
        self.reset()
        return out

    def unsorted(self):
        return list(self.items)


# --- the decoder --------------------------------------------------------------------

class _Entry:
    """A BeamEntry: a prefix (its last label and its parent) with the log
    probabilities of the prefix now (n_*) and one frame ago (o_*)."""

    __slots__ = ("parent", "label", "children", "o_total", "o_blank", "o_label",
                 "n_total", "n_blank", "n_label")

    def __init__(self, parent, label):
        self.parent = parent
        self.label = label
        self.children = {}
        self.o_total = self.o_blank = self.o_label = _NEG_INF
        self.n_total = self.n_blank = self.n_label = _NEG_INF

    def reset_new(self):
        self.n_total = self.n_blank = self.n_label = _NEG_INF

    def label_seq(self, merge_repeated):
        out, prev, e = [], -1, self
        while e.parent is not None:
            if not merge_repeated or e.label != prev:
                out.append(e.label)
            prev = e.label
            e = e.parent
        out.reverse()
        return out


def _make_lse(r):
    """TensorFlow's LogSumExp with each result rounded by `r` (float32 or
    not): the correction log1pf(expf(d)) is a float computation for any T."""
    def lse(a, b):
        if a == _NEG_INF:
            return b
        if b == _NEG_INF:
            return a
        if a > b:
            return r(a + _log1pf(_expf(r(b - a))))
        return r(b + _log1pf(_expf(r(a - b))))
    return lse


def _frame_terms(x):
    """Per frame: each logit minus the softmax normalizer, max plus the log
    of exp(logit - max) summed in class order, with the C library's expf
    and logf for float32 as the kernel's scalar loop calls them."""
    f32 = x.dtype == np.float32
    exp, log, r = (_expf, _logf, _f32) if f32 else (math.exp, math.log, float)
    norm = np.empty(x.shape[:-1], x.dtype)
    for pos in np.ndindex(*x.shape[:-1]):
        row = x[pos].tolist()
        mx = max(row)
        total = 0.0
        for v in row:
            total = r(total + exp(r(v - mx)))
        norm[pos] = r(mx + log(total))
    return (x - norm[..., None]).astype(x.dtype), norm


def _settle_skipped(children, visited, evicted):
    """TensorFlow's step also looks at the children the filtered loop skips,
    none of them a candidate: one inactive when its label comes (inactive
    before the loop, or dropped from the beam at an earlier label) loses
    its old probabilities, which matters if it is a later branch."""
    for label, c in children.items():
        if label in visited or c.n_total != _NEG_INF:
            continue
        when = evicted.get(label)
        if when is None or when < label:
            c.o_total = c.o_blank = c.o_label = _NEG_INF


def _checks_follow(b, label, vals, branches, i):
    """Whether TensorFlow's step compares another candidate with the bottom
    of the beam after `b`'s child `label`: a later inactive child of
    nonzero probability, or a later branch of nonzero probability."""
    children = b.children
    for later in np.flatnonzero(vals[label + 1:] > _NEG_INF).tolist():
        c = children.get(label + 1 + later)
        if c is None or c.n_total == _NEG_INF:
            return True
    return any(e.o_total > _NEG_INF for e in branches[i + 1:])


def _decode_one(x, raw, norm, beam_width, top_paths, merge_repeated, r, lse):
    """One batch entry: Step over its frames, then TopPaths."""
    num_classes = x.shape[1] if x.ndim == 2 else 0
    blank = num_classes - 1
    root = _Entry(None, -1)
    root.n_total = 0.0
    root.n_blank = 0.0
    leaves = _TopN(beam_width)
    leaves.push(root)
    dtype = x.dtype
    for t in range(x.shape[0]):
        terms = x[t]                   # logit - norm, per class
        terms_l = terms.tolist()
        raw_blank = float(raw[t, blank])
        nrm = float(norm[t])
        branches = leaves.extract()
        for b in branches:
            b.o_total, b.o_blank, b.o_label = b.n_total, b.n_blank, b.n_label
        for b in branches:
            p = b.parent
            if p is not None:
                if p.n_total != _NEG_INF:
                    prev = p.o_blank if b.label == p.label else p.o_total
                    b.n_label = lse(b.n_label, prev)
                b.n_label = r(b.n_label + terms_l[b.label])
            b.n_blank = r(r(b.o_total + raw_blank) - nrm)
            b.n_total = lse(b.n_blank, b.n_label)
            leaves.push(b)
        for i, b in enumerate(branches):
            if not (b.o_total > _NEG_INF and (leaves.size() < beam_width or
                                              b.o_total > leaves.peek_bottom().n_total)):
                continue
            # c.newp.label = (logit - norm) + previous, for all labels at once.
            vals = terms[:blank] + dtype.type(b.o_total)
            if 0 <= b.label < blank:
                vals[b.label] = r(terms_l[b.label] + b.o_blank)
            # Only labels above the current bottom can be candidates (the
            # bottom only rises while the beam is full); the others are
            # settled after the loop.
            low = leaves.peek_bottom().n_total if leaves.size() == beam_width else _NEG_INF
            labels = np.flatnonzero(vals > low)
            children = b.children
            evicted = {}
            for label, v in zip(labels.tolist(), vals[labels].tolist()):
                c = children.get(label)
                if c is None:
                    c = children[label] = _Entry(b, label)
                elif c.n_total != _NEG_INF:
                    continue
                full = leaves.size() == beam_width
                if not (v > _NEG_INF and (not full or v > leaves.peek_bottom().n_total)):
                    c.o_total = c.o_blank = c.o_label = _NEG_INF
                    continue
                c.n_blank = _NEG_INF
                c.n_label = c.n_total = v
                if full:
                    bottom = leaves.peek_bottom()
                    bottom.reset_new()
                    if bottom.parent is b:
                        evicted[bottom.label] = label
                leaves.push(c)
                if (leaves.size() == beam_width and not leaves.bottom_known and
                        not leaves.heap and _checks_follow(b, label, vals, branches, i)):
                    # TensorFlow's next candidate check finds the bottom now.
                    leaves.peek_bottom()
            if len(children) > len(labels):
                _settle_skipped(children, set(labels.tolist()), evicted)
    if top_paths > beam_width:
        raise errors.InvalidArgumentError(None, None, "requested more paths than the beam width.")
    if top_paths > leaves.size():
        raise errors.InvalidArgumentError(None, None,
                                          "Less leaves in the beam search than requested.")
    best = _TopN(top_paths)
    for e in leaves.unsorted():
        best.push(e)
    best_entries = best.extract()[:top_paths]
    return ([e.label_seq(merge_repeated) for e in best_entries],
            [e.n_total for e in best_entries])


def beam_search(inputs, seq_len, beam_width, top_paths, merge_repeated, dtype):
    """Decodes each batch entry of time-major `inputs` [time, batch,
    classes] (last class the blank) over its first `seq_len[b]` frames.

    Returns (paths, log_probs): paths[b][p] the labels of path p of entry b,
    log_probs [batch, top_paths] in `dtype`.
    """
    x = np.asarray(inputs)
    r = _f32 if x.dtype == np.float32 else float
    lse = _make_lse(r)
    terms, norm = _frame_terms(x) if x.size else (x, np.zeros(x.shape[:2], x.dtype))
    batch = x.shape[1]
    paths, log_probs = [], np.zeros((batch, top_paths), dtype)
    for b in range(batch):
        n = max(int(seq_len[b]), 0)
        p, lp = _decode_one(terms[:n, b], x[:n, b], norm[:n, b], beam_width, top_paths,
                            merge_repeated, r, lse)
        paths.append(p)
        log_probs[b] = lp
    return paths, log_probs

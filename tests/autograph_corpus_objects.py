"""Differential-test corpus: attributes and items assigned in control flow
(`self.count += i`, `a[0] = v`, `d["k"] += 1`), which are state of the
statement as in TensorFlow's AutoGraph, and jumps inside `with` blocks.
Each function runs as plain Python on ints and must give the same result
through tf.function (see test_autograph_differential)."""
import rillflow as tf


class Acc:
    """An object with one counter attribute."""

    def __init__(self):
        self.total = 0


class Box:
    """An object without attributes until assigned."""


class Model:
    """A method updating two attributes in a loop."""

    def __init__(self):
        self.count = 0
        self.steps = 0

    def run(self, n):
        """Counts in a while loop with an if updating the second attribute."""
        i = 0
        while i < n:
            self.count += i
            if self.count > 5:
                self.steps += 1
            i += 1
        return self.count * 100 + self.steps


def attr_in_loop(n):
    """An attribute accumulated in a loop."""
    a = Acc()
    for i in range(n):
        a.total += i
    return a.total


def attr_in_if(x):
    """An attribute assigned in both branches."""
    a = Acc()
    if x > 0:
        a.total = x * 2
    else:
        a.total = -x
    return a.total


def method_updates_attr(n):
    """`self.x += ...` in a method's loop."""
    return Model().run(n)


def subscript_in_loop(n):
    """List items assigned in a loop."""
    a = [0, 0]
    for i in range(n):
        a[0] += i
        a[1] = a[0] * 2
    return a[0] + a[1]


def dict_item_in_loop(n):
    """A dict item accumulated in a loop."""
    d = {"s": 0}
    for i in range(n):
        d["s"] += i
    return d["s"]


def new_attr_both_branches(x):
    """An attribute first created in both branches."""
    b = Box()
    if x > 0:
        b.v = x
    else:
        b.v = -x
    return b.v


def object_created_in_loop(n):
    """An object created in the body: its attribute is not loop state."""
    s = 0
    for i in range(n):
        b = Box()
        b.v = i * 2
        s += b.v
    return s


def nested_attr(n):
    """An attribute of an attribute."""
    a = Box()
    a.inner = Acc()
    for i in range(n):
        a.inner.total += i
    return a.inner.total


def attr_with_break(n):
    """An attribute in a loop's test path and a break."""
    a = Acc()
    for i in range(n):
        if a.total > 6:
            break
        a.total += i
    return a.total


def attr_untouched_branch(x):
    """An attribute modified in one branch only (it exists before)."""
    a = Acc()
    a.total = 5
    if x > 0:
        a.total += x
    return a.total


def attr_created_in_loop(n):
    """An attribute first created in a for loop (it runs at least once)."""
    b = Box()
    for i in range(n):
        b.v = i * 3
    return b.v


def attr_created_in_while(n):
    """An attribute first created in a while loop (it runs at least once)."""
    b = Box()
    i = 0
    while i < n:
        b.v = i * 3
        i += 1
    return b.v


def return_in_with(x):
    """A return inside a with block."""
    with tf.name_scope("s"):
        if x > 0:
            return x * 2
    return -1


def continue_in_with(n):
    """A continue inside a with block in a loop."""
    s = 0
    for i in range(n):
        with tf.name_scope("s"):
            if i % 2 == 0:
                continue
            s += i
    return s


CORPUS = [
    (attr_in_loop, [(0,), (4,)]),
    (attr_in_if, [(3,), (-3,)]),
    (method_updates_attr, [(0,), (5,)]),
    (subscript_in_loop, [(0,), (4,)]),
    (dict_item_in_loop, [(0,), (4,)]),
    (new_attr_both_branches, [(3,), (-3,)]),
    (object_created_in_loop, [(0,), (4,)]),
    (nested_attr, [(0,), (4,)]),
    (attr_with_break, [(0,), (8,)]),
    (attr_untouched_branch, [(2,), (-2,)]),
    (attr_created_in_loop, [(1,), (4,)]),
    (attr_created_in_while, [(1,), (4,)]),
    (return_in_with, [(3,), (-3,)]),
    (continue_in_with, [(0,), (5,)]),
]

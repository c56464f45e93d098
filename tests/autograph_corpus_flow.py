"""Differential-test corpus: loops over ranges and tensors, variables first
defined in branches and loops, augmented and tuple assignments, helpers and
nested functions, logical and conditional expressions, lists. Each function
runs as plain Python on ints and must give the same result through
tf.function (see test_autograph_differential)."""
import rillflow as tf


def iterate_tensor(n):
    """A for loop over the elements of a 1-D tensor."""
    xs = tf.range(n) * 2
    s = 0
    for x in xs:
        s += x
    return s


def iterate_tensor_break(n):
    """A for loop over a tensor, with a break."""
    xs = tf.range(n) * 3
    s = 0
    for x in xs:
        if x > 10:
            break
        s += x
    return s


def iterate_2d_rows(n):
    """A for loop over the rows of a 2-D tensor."""
    m = tf.reshape(tf.range(n * 2), (n, 2))
    s = 0
    for row in m:
        s += row[0] * row[1]
    return s


def defined_in_both_branches(x):
    """A variable first assigned in both branches of an if."""
    if x > 3:
        y = x * 2
    else:
        y = x + 1
    return y


def defined_in_loop_used_after(n):
    """A variable first assigned in the body, used only there."""
    last = 0
    for i in range(n):
        sq = i * i
        last = sq
    return last


def defined_in_loop_only(n):
    """A variable first assigned in the body and read after the loop."""
    # The loop runs at least once for the arguments used.
    for i in range(n):
        sq = i * i + 1
    return sq


def aug_ops(n):
    """Augmented assignments of several operators."""
    a = 100
    b = 1
    c = 0
    for i in range(n):
        a -= i
        b *= 2
        c += a % 7
        a //= 1
    return a + b + c


def multiple_vars(n):
    """Two loop variables updated by one tuple assignment."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def tuple_target(n):
    """A tuple loop target over a Python list of pairs."""
    pairs_sum = 0
    for i, j in [(1, 2), (3, 4), (5, 6)]:
        pairs_sum += i * j + n
    return pairs_sum


def enumerate_loop(n):
    """A loop over enumerate()."""
    s = 0
    for k, v in enumerate([5, 6, 7]):
        s += k * v * n
    return s


def zip_loop(n):
    """A loop over zip(), with a tensor condition inside."""
    s = 0
    for a, b in zip([1, 2, 3], [4, 5, 6]):
        if a + n > 2:
            s += a * b
    return s


def swap_in_loop(n):
    """A swap of two loop variables."""
    a = 1
    b = 2
    i = 0
    while i < n:
        a, b = b, a
        i += 1
    return a * 10 + b


def helper2(x):
    """One Collatz step (called from converted code)."""
    if x % 2 == 0:
        return x // 2
    return 3 * x + 1


def loop_calls_helper(n):
    """A while loop whose body calls a helper with early returns."""
    steps = 0
    while n != 1:
        n = helper2(n)
        steps += 1
    return steps


def nested_function(n):
    """A function defined inside, called in the loop."""
    def sq(v):
        return v * v
    s = 0
    for i in range(n):
        s += sq(i)
    return s


def closure_over_loop_var(n):
    """A nested function reading an enclosing variable."""
    k = 3
    def addk(v):
        return v + k
    s = 0
    for i in range(n):
        s = addk(s)
    return s


def tensor_early_return_both(x):
    """Early returns in both branches, after assignments."""
    if x > 0:
        y = x * 2
        return y + 1
    else:
        y = x * 3
        return y - 1


def logical_chain(a, b):
    """Chains of and/or/not on tensors."""
    r = 0
    if a > 0 and b > 0 and a > b:
        r += 1
    if a > 5 or b > 5 or a == b:
        r += 10
    if not (a > 0 and b > 0):
        r += 100
    if not a > 0 or not b > 0:
        r += 1000
    return r


def cond_expr_nested(a):
    """Nested conditional expressions."""
    return 1 if a > 10 else (2 if a > 5 else 3)


def cond_expr_in_loop(n):
    """A conditional expression in a loop."""
    s = 0
    for i in range(n):
        s += i if i % 2 == 0 else -i
    return s


def while_with_and(n):
    """A while test combining two conditions with and."""
    i = 0
    s = 0
    while i < n and s < 20:
        s += i
        i += 1
    return s * 100 + i


def while_with_or(n):
    """A while test combining two conditions with or."""
    i = 0
    while i < n or i < 3:
        i += 1
    return i


def if_no_else_modifies(x):
    """An if without else modifying a variable."""
    y = 0
    if x > 2:
        y = 5
    return y + x


def elif_chain(x):
    """An if/elif/else chain assigning a new variable."""
    if x < 0:
        r = -1
    elif x == 0:
        r = 0
    elif x < 10:
        r = 1
    else:
        r = 2
    return r


def loop_in_if(n):
    """A loop inside a branch."""
    s = 0
    if n > 3:
        for i in range(n):
            s += i
    else:
        s = -1
    return s


def if_in_while_updates_two(n):
    """An if in a loop updating a different variable per branch."""
    a = 0
    b = 0
    i = 0
    while i < n:
        if i % 2 == 0:
            a += i
        else:
            b += i
        i += 1
    return a * 1000 + b


def float_accum(n):
    """A float loop variable."""
    x = 1.0
    for i in range(n):
        x = x * 0.5 + 1.0
    return x


def list_pop_assign(n):
    """Pops from a list that became a tensor list (`v = l.pop()`)."""
    z = []
    for i in range(n):
        z.append(i)
    total = 0
    while len(z) > 0:
        v = z.pop()
        total = total * 2 + v
    return total


def list_pop_aug(n):
    """A pop inside an augmented assignment (`s += l.pop()`)."""
    z = []
    for i in range(n):
        z.append(i)
    total = 0
    while len(z) > 0:
        total += z.pop()
    return total


CORPUS = [
    (iterate_tensor, [(0,), (5,)]),
    (iterate_tensor_break, [(0,), (8,)]),
    (iterate_2d_rows, [(1,), (3,)]),
    (defined_in_both_branches, [(5,), (1,)]),
    (defined_in_loop_used_after, [(0,), (5,)]),
    (defined_in_loop_only, [(1,), (5,)]),
    (aug_ops, [(0,), (6,)]),
    (multiple_vars, [(0,), (1,), (10,)]),
    (tuple_target, [(0,), (2,)]),
    (enumerate_loop, [(1,), (3,)]),
    (zip_loop, [(0,), (3,)]),
    (swap_in_loop, [(0,), (3,), (4,)]),
    (loop_calls_helper, [(1,), (27,)]),
    (nested_function, [(0,), (5,)]),
    (closure_over_loop_var, [(0,), (4,)]),
    (tensor_early_return_both, [(3,), (-3,)]),
    (logical_chain, [(3, 1), (1, 3), (-1, 6), (2, 2), (-1, -1)]),
    (cond_expr_nested, [(12,), (7,), (1,)]),
    (cond_expr_in_loop, [(0,), (6,)]),
    (while_with_and, [(0,), (4,), (20,)]),
    (while_with_or, [(0,), (5,)]),
    (if_no_else_modifies, [(1,), (3,)]),
    (elif_chain, [(-4,), (0,), (5,), (50,)]),
    (loop_in_if, [(2,), (6,)]),
    (if_in_while_updates_two, [(0,), (7,)]),
    (float_accum, [(0,), (4,)]),
    (list_pop_assign, [(0,), (4,)]),
    (list_pop_aug, [(0,), (4,)]),
]

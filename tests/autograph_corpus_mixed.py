"""Differential-test corpus: loop targets, jumps in else clauses, Python and
tensor ifs nested in each other, tf.print in branches, globals, closures and
lambdas, deep nesting, chained comparisons. Each function runs as plain
Python on ints and must give the same result through tf.function (see
test_autograph_differential)."""
import rillflow as tf

G = 10


def target_used_after(n):
    """The loop target read after the loop (it runs at least once)."""
    for i in range(n):
        pass
    return i


def target_modified_in_body(n):
    """The loop target reassigned in the body."""
    s = 0
    for i in range(n):
        i = i * 2
        s += i
    return s


def continue_after_increment(n):
    """A continue after the counter update."""
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


def return_in_for_else(n):
    """A return in the else clause of a for loop."""
    for i in range(n):
        if i == 5:
            break
    else:
        return -1
    return i


def return_in_while_else(n):
    """A return in the else clause of a while loop."""
    i = 0
    while i < n:
        if i * i == 16:
            break
        i += 1
    else:
        return -100
    return i


def nested_tensor_in_python_if(x):
    """A tensor if nested in a Python if."""
    flag = True
    r = 0
    if flag:
        if x > 3:
            r = 1
        else:
            r = 2
    return r


def python_in_tensor_if(x):
    """A Python if nested in a tensor if."""
    k = 5
    r = 0
    if x > 0:
        if k > 3:
            r = x + k
        else:
            r = x - k
    else:
        r = -1
    return r


def tf_print_branches(x):
    """tf.print in both branches of a tensor if."""
    if x > 0:
        tf.print("pos", x)
    else:
        tf.print("neg", x)
    return x


def tf_print_in_loop_with_break(n):
    """tf.print in a loop that breaks."""
    for i in range(n):
        if i == 3:
            break
        tf.print("i =", i)
    return n


def len_range(n):
    """range(len(tensor)) with indexing."""
    xs = tf.range(n) * 2
    s = 0
    for i in range(len(xs)):
        s += xs[i]
    return s


def global_read(n):
    """A module global read in the loop."""
    s = 0
    for i in range(n):
        s += G
    return s


def defaults_and_kwargs(n):
    """A nested function with defaults and keyword-only arguments."""
    def scale(v, k=2, *, off=1):
        return v * k + off
    s = 0
    for i in range(n):
        s += scale(i, off=3)
    return s


def lambda_in_loop(n):
    """A lambda called in the loop."""
    f = lambda v: v * 3
    s = 0
    for i in range(n):
        s += f(i)
    return s


def while_return_both(n):
    """Returns in both branches of a nested if in a loop."""
    i = n * 0
    while i < 10:
        if i == n:
            return i * 100
        else:
            if i > 5:
                return -i
        i += 1
    return 7


def if_var_only_in_one_branch_unused(x):
    """A temporary assigned in one branch only, not used after."""
    r = 1
    if x > 2:
        tmp = x * 2
        r = tmp + 1
    return r


def deep_nesting(n):
    """Loops and ifs nested four deep."""
    s = 0
    for i in range(n):
        if i % 2 == 0:
            for j in range(i):
                if j % 2 == 1:
                    s += j
                else:
                    if j > 2:
                        s -= 1
        else:
            k = 0
            while k < i:
                k += 2
            s += k
    return s


def float_range_loop(n):
    """A float accumulator over tf.range."""
    x = 0.0
    for i in tf.range(n):
        x += tf.cast(i, tf.float32) * 0.5
    return x


def python_list_of_tensors(n):
    """A loop over a Python list holding tensors."""
    xs = [n, n + 1, n * 2]
    s = 0
    for x in xs:
        if x > 4:
            s += x
    return s


def subscript_aug_in_python_loop(n):
    """Augmented assignment to list items in a Python loop."""
    a = [0, 0]
    for i in range(3):
        a[i % 2] += i
    return a[0] * 10 + a[1] + n


def del_stmt(n):
    """A del statement."""
    t = n + 1
    s = t * 2
    del t
    return s


def return_none_path(x):
    """An early return then a final return."""
    if x > 0:
        return 1
    return 0


def for_over_tensor_with_continue(n):
    """A continue in a loop over a tensor expression."""
    s = 0
    for v in tf.range(n) * 2:
        if v % 4 == 0:
            continue
        s += v
    return s


def chained_compare(x):
    """A chained comparison `0 < x < 10` on a tensor."""
    r = 0
    if 0 < x < 10:
        r = 1
    return r


def chained_compare_three(x, y):
    """A chained comparison of three operators."""
    r = 0
    if 0 <= x < y <= 10:
        r = 1
    return r


def chained_in_while(n):
    """A chained comparison as a while test."""
    i = 0
    while 0 <= i < n:
        i += 1
    return i


def nonlocal_in_tensor_loop(n):
    """A nested function's loop updating a nonlocal variable."""
    total = 0
    def run():
        nonlocal total
        for i in range(n):
            total += i
    run()
    return total


def nonlocal_in_tensor_if(x):
    """A nested function's if assigning a nonlocal variable."""
    r = 0
    def pick():
        nonlocal r
        if x > 0:
            r = x * 2
        else:
            r = -x
    pick()
    return r


def recursive_helper(n):
    """A recursive nested function."""
    def fact(k):
        if k <= 1:
            return 1
        return k * fact(k - 1)
    return fact(4) + n


def kwargs_call(n):
    """A helper with defaults, *args and **kwargs."""
    def f(a, b=1, *args, **kw):
        return a + b + len(args) + kw.get("c", 0)
    s = 0
    for i in range(n):
        s += f(i, c=2)
    return s


def star_unpack(n):
    """A starred loop target."""
    s = 0
    for first, *rest in [(1, 2, 3), (4, 5, 6)]:
        s += first * n + len(rest)
    return s


def walrus_in_if(x):
    """An assignment expression in an if test."""
    r = 0
    if (y := x * 2) > 4:
        r = y
    return r


def nested_loops_break_both_levels(n):
    """A flag set before an inner break stops the outer loop."""
    total = 0
    for i in range(n):
        stop = False
        for j in range(n):
            if i * j > 6:
                stop = True
                break
            total += 1
        if stop:
            break
    return total


CORPUS = [
    (target_used_after, [(1,), (5,)]),
    (target_modified_in_body, [(0,), (4,)]),
    (continue_after_increment, [(0,), (8,)]),
    (return_in_for_else, [(3,), (8,)]),
    (return_in_while_else, [(3,), (8,)]),
    (nested_tensor_in_python_if, [(5,), (1,)]),
    (python_in_tensor_if, [(2,), (-2,)]),
    (tf_print_branches, [(2,), (-2,)]),
    (tf_print_in_loop_with_break, [(2,), (6,)]),
    (len_range, [(0,), (4,)]),
    (global_read, [(0,), (3,)]),
    (defaults_and_kwargs, [(0,), (3,)]),
    (lambda_in_loop, [(0,), (3,)]),
    (while_return_both, [(3,), (20,)]),
    (if_var_only_in_one_branch_unused, [(1,), (5,)]),
    (deep_nesting, [(0,), (5,), (8,)]),
    (float_range_loop, [(0,), (4,)]),
    (python_list_of_tensors, [(1,), (5,)]),
    (subscript_aug_in_python_loop, [(1,)]),
    (del_stmt, [(1,)]),
    (return_none_path, [(1,), (-1,)]),
    (for_over_tensor_with_continue, [(0,), (6,)]),
    (chained_compare, [(5,), (12,), (-1,)]),
    (chained_compare_three, [(1, 3), (3, 1), (1, 11), (-1, 3)]),
    (chained_in_while, [(0,), (4,)]),
    (nonlocal_in_tensor_loop, [(0,), (4,)]),
    (nonlocal_in_tensor_if, [(3,), (-3,)]),
    (recursive_helper, [(1,)]),
    (kwargs_call, [(0,), (3,)]),
    (star_unpack, [(2,)]),
    (walrus_in_if, [(1,), (3,)]),
    (nested_loops_break_both_levels, [(0,), (3,), (5,)]),
]

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


def tuple_returns(x):
    """Tuples returned from both paths."""
    if x > 0:
        return x, x * 2
    return -x, 0


def cond_modify_in_loop(n):
    """A running maximum updated by a tensor if in a loop."""
    best = -1
    for i in range(n):
        if (i * 7) % 5 > best:
            best = (i * 7) % 5
    return best


def python_loop_in_tensor_loop(n):
    """A Python loop (unrolled) inside a tensor loop."""
    s = 0
    i = 0
    while i < n:
        for k in range(3):
            s += k * i
        i += 1
    return s


def dynamic_delta(n, d):
    """tf.range with a tensor step of unknown sign."""
    s = 0
    for i in tf.range(0, n, d):
        s += i
    return s


def range_neg_tensor_start(n):
    """range() counting down from a tensor."""
    s = 0
    for i in range(n, 0, -1):
        s = s * 3 + i
    return s


def int_float_builtins(x):
    """int() and float() on tensors."""
    y = float(x) * 1.5
    return int(y)


def abs_builtin(x):
    """abs() on a tensor."""
    return abs(x - 5)


def closure_in_loop_body(n):
    """A function defined in the loop body, reading the target."""
    s = 0
    for i in range(n):
        def addi(v):
            return v + i
        s = addi(s)
    return s


def append_nested(n):
    """Appends in nested loops to one list."""
    out = []
    for i in range(n):
        for j in range(2):
            out.append(i * 10 + j)
    return tf.reduce_sum(tf.stack(out)) if n > 0 else 0


def append_with_break(n):
    """Appends in a loop that breaks."""
    out = []
    for i in range(n):
        if i == 3:
            break
        out.append(i + 1)
    return tf.reduce_sum(tf.stack(out))


def tensor_array_loop(n):
    """A TensorArray written in a tf.range loop."""
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta = ta.write(i, i * i)
    return tf.reduce_sum(ta.stack())


def list_comprehension(x):
    """A list comprehension, then a loop over it."""
    vals = [x * k for k in range(4)]
    s = 0
    for v in vals:
        s += v
    return s


def sum_builtin(x):
    """sum() of a list holding tensors."""
    return sum([x, x * 2, 3])


def if_modifies_two_uses_one(x):
    """An if assigning two variables, one read after."""
    a = 0
    b = 0
    if x > 1:
        a = x
        b = x * 2
    else:
        a = -x
    return a


def loop_var_shadow_param(n):
    """The loop target is the parameter the range was built from."""
    for n in range(n):
        pass
    return n


def while_complex_test(n):
    """A while test with and and a modulo."""
    i = 0
    j = n
    while i < j and (i + j) % 7 != 0:
        i += 1
        j -= 1
    return i * 100 + j


def ternary_in_condition(n):
    """A conditional expression inside an if test."""
    s = 0
    for i in range(n):
        if (i if i % 2 == 0 else -i) > 2:
            s += 1
    return s


def not_in_loop_test(n):
    """A not in a while test."""
    i = 0
    while not i >= n:
        i += 1
    return i


def return_in_try(x):
    """A try/finally before the return."""
    try:
        y = x * 2
    finally:
        pass
    return y


def with_stmt(x):
    """An if inside a with block."""
    with tf.name_scope("blk"):
        if x > 0:
            y = x + 1
        else:
            y = x - 1
    return y


def assert_in_loop(n):
    """An assert in a loop."""
    s = 0
    for i in range(n):
        assert i >= 0, "negative"
        s += i
    return s


def break_then_else_var(n):
    """for/else assigning in both the break path and the else."""
    res = 0
    for i in range(n):
        if i == 2:
            res = 5
            break
    else:
        res = 7
    return res


def early_return_then_loop(x):
    """An early return before a loop."""
    if x < 0:
        return 0
    s = 0
    for i in range(x):
        s += i
    return s


def return_inside_loop_inside_if(x):
    """A return in a loop inside an if."""
    if x > 2:
        i = x * 0
        while i < x:
            if i == 3:
                return i * 11
            i += 1
    return -1


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
    (tuple_returns, [(3,), (-3,)]),
    (cond_modify_in_loop, [(0,), (6,)]),
    (python_loop_in_tensor_loop, [(0,), (4,)]),
    (dynamic_delta, [(10, 3), (10, 1)]),
    (range_neg_tensor_start, [(0,), (4,)]),
    (int_float_builtins, [(3,)]),
    (abs_builtin, [(2,), (9,)]),
    (closure_in_loop_body, [(0,), (4,)]),
    (append_nested, [(1,), (3,)]),
    (append_with_break, [(2,), (6,)]),
    (tensor_array_loop, [(0,), (4,)]),
    (list_comprehension, [(2,)]),
    (sum_builtin, [(2,)]),
    (if_modifies_two_uses_one, [(3,), (0,)]),
    (loop_var_shadow_param, [(1,), (4,)]),
    (while_complex_test, [(0,), (5,), (20,)]),
    (ternary_in_condition, [(0,), (8,)]),
    (not_in_loop_test, [(0,), (4,)]),
    (return_in_try, [(3,)]),
    (with_stmt, [(3,), (-3,)]),
    (assert_in_loop, [(0,), (4,)]),
    (break_then_else_var, [(1,), (5,)]),
    (early_return_then_loop, [(-2,), (5,)]),
    (return_inside_loop_inside_if, [(1,), (2,), (5,)]),
]

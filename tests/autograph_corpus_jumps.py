"""Differential-test corpus: break, continue and return in every position
(first and last statement, in else branches, in nested loops), for/else
and while/else. Each function runs as plain Python on ints and must give
the same result through tf.function (see test_autograph_differential)."""


def continue_first(n):
    """A continue guarding the rest of the body."""
    s = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s += i
    return s


def continue_last(n):
    """A continue as the body's last statement (a no-op)."""
    s = 0
    i = 0
    while i < n:
        i += 1
        s += i
        if s > 3:
            continue
    return s


def break_first(n):
    """A break before any other statement of the body."""
    s = 0
    for i in range(n):
        if i >= 3:
            break
        s += i
    return s


def break_in_else(n):
    """A break in an else branch."""
    s = 0
    for i in range(n):
        if i < 4:
            s += i
        else:
            break
    return s


def continue_in_else(n):
    """A continue in an else branch, with statements after the if."""
    s = 0
    for i in range(n):
        if i % 3 != 0:
            s += i
        else:
            continue
        s += 100
    return s


def return_in_else(n):
    """A return in the else branch of a loop body's if."""
    i = n * 0
    while i < 50:
        if i * i <= n:
            i += 1
        else:
            return i * 10
    return -1


def return_first_in_loop(n):
    """A return before the accumulation in a tf.range loop."""
    s = n * 0
    for i in range(n):
        if i == 4:
            return s
        s += i
    return s + 1000


def return_both_branches(x):
    """Both branches of an if return."""
    if x > 0:
        return x * 3
    else:
        return x - 7


def return_nested_if(x):
    """Returns in nested ifs, falling through to a final return."""
    if x > 0:
        if x > 10:
            return 1
        return 2
    return 3


def nested_break_inner(n):
    """The inner loop breaks; its target is not a variable of the outer loop."""
    total = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            total += j
    return total


def nested_break_outer(n):
    """The outer loop breaks after an inner loop."""
    total = 0
    i = 0
    while i < n:
        for j in range(i):
            total += j
        if total > 10:
            break
        i += 1
    return total * 100 + i


def nested_continue(n):
    """Both loops continue; each loop's flag is reset in its own body."""
    total = 0
    for i in range(n):
        if i == 2:
            continue
        for j in range(i):
            if j == 1:
                continue
            total += i * j
    return total


def while_else_no_break(n):
    """A while/else without a break: the else always runs."""
    i = 0
    while i < n:
        i += 2
    else:
        i += 1000
    return i


def for_else_continue(n):
    """A for/else with a continue (the else still runs)."""
    s = 0
    for i in range(n):
        if i % 2:
            continue
        s += i
    else:
        s += 1000
    return s


def for_else_break_nested(n):
    """The for/else idiom for breaking out of two loops."""
    found = 0
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                found = i * 10 + j
                break
        else:
            continue
        break
    else:
        found = -1
    return found


def while_else_break(n):
    """A while/else whose else is skipped by a break."""
    i = 0
    while i < n:
        i += 1
        if i == 4:
            break
    else:
        i = -i
    return i


def return_or_define(x):
    """The if branch returns; what the else assigns is read after the if."""
    if x > 0:
        return 1
    else:
        y = x * 2
    return y


def define_or_return(x):
    """The else branch returns; what the if assigns is read after the if."""
    if x > 0:
        y = x * 3
    else:
        return -1
    return y + 1


def continue_or_define(n):
    """The if branch continues; the else assigns what the rest reads."""
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        else:
            y = i * 2
        s += y
    return s


def break_or_define(n):
    """The if branch breaks; the else assigns what the rest reads."""
    s = 0
    for i in range(n):
        if s > 10:
            break
        else:
            y = i * 2
        s += y
    return s


def define_then_return_in_loop(n):
    """A variable assigned in the loop, then returned conditionally."""
    i = n * 0
    while i < 10:
        last = i * 2
        if last > n:
            return last
        i += 1
    return -1


def loop_target_after_break(n):
    """The loop target read after a break."""
    i = -1
    for i in range(n):
        if i * i > 10:
            break
    return i


def multi_return_tuple_loop(n):
    """A tuple returned from inside a loop."""
    i = n * 0
    while i < 20:
        if i * 3 > n:
            return i, i * 3
        i += 1
    return -1, -1


def nested_if_chain_returns(x):
    """Returns in every arm of an if/elif chain with nested ifs."""
    if x > 10:
        if x > 20:
            return 3
        else:
            return 2
    elif x > 5:
        return 1
    return 0


def continue_in_nested_if_else(n):
    """A continue in an if nested in the if branch, with an else."""
    s = 0
    for i in range(n):
        if i % 2 == 0:
            if i % 4 == 0:
                continue
            else:
                s += 100
        else:
            s += i
    return s


def break_deep(n):
    """A break three ifs deep."""
    s = 0
    for i in range(n):
        if i > 1:
            if i % 3 == 0:
                if s > 3:
                    break
        s += i
    return s


def early_return_no_value_path(x):
    """A return in a nested if, after the outer if assigned."""
    r = 0
    if x > 0:
        r = 1
        if x > 5:
            return r + 10
    return r


CORPUS = [
    (continue_first, [(0,), (7,)]),
    (continue_last, [(0,), (6,)]),
    (break_first, [(0,), (2,), (10,)]),
    (break_in_else, [(0,), (3,), (10,)]),
    (continue_in_else, [(0,), (7,)]),
    (return_in_else, [(0,), (10,), (40,)]),
    (return_first_in_loop, [(0,), (3,), (10,)]),
    (return_both_branches, [(5,), (-5,)]),
    (return_nested_if, [(20,), (5,), (-1,)]),
    (nested_break_inner, [(0,), (4,)]),
    (nested_break_outer, [(0,), (3,), (10,)]),
    (nested_continue, [(0,), (5,)]),
    (while_else_no_break, [(0,), (5,)]),
    (for_else_continue, [(0,), (5,)]),
    (for_else_break_nested, [(2,), (4,)]),
    (while_else_break, [(2,), (8,)]),
    (return_or_define, [(3,), (-3,)]),
    (define_or_return, [(3,), (-3,)]),
    (continue_or_define, [(0,), (7,)]),
    (break_or_define, [(0,), (9,)]),
    (define_then_return_in_loop, [(3,), (30,)]),
    (loop_target_after_break, [(0,), (3,), (10,)]),
    (multi_return_tuple_loop, [(5,), (100,)]),
    (nested_if_chain_returns, [(25,), (15,), (7,), (1,)]),
    (continue_in_nested_if_else, [(0,), (9,)]),
    (break_deep, [(0,), (10,)]),
    (early_return_no_value_path, [(-1,), (3,), (8,)]),
]

"""`for x in dataset` and `for x in iterator` in converted code.

A dataset loop is a reduction over the dataset; with a break or return
(an extra test) it is a scan that records, before each element, whether
the loop goes on, cut by take_while, then reduced, as TensorFlow's
AutoGraph stages it: the element on which the loop breaks is still
processed, the ones after it are not. An iterator loop is a graph loop
that fetches the next element at the start of each iteration.
"""
from ...framework.convert import convert_to_tensor
from . import data_structures as DS
from . import loop_vars as LV
from .exceptions import staging
from .graph_loop import shape_invariants, tensor_lists, tf_loop, with_list_fallback
from ...ops.control_flow.cond import cond


def dataset_for(ds, extra_test, body, get_state, set_state, names, opts):
    """Stages `for x in ds: body(x)` as a dataset reduction (lists as in
    graph loops: `with_list_fallback`)."""
    LV.verify_loop_init_vars(tuple(get_state()), names)
    with_list_fallback(
        lambda get, put, ns, o: _dataset_for(ds, extra_test, body, get, put, ns, o),
        get_state, set_state, names, opts)


def _dataset_for(ds, extra_test, body, get_state, set_state, names, opts):
    init = tuple(tensor_lists(get_state(), names, opts))
    set_state(init)
    set_state(_reduce(ds, extra_test, body, get_state, set_state, names, init))


def _reduce(ds, extra_test, body, get_state, set_state, names, init):
    dummy = not init
    if dummy:
        # A reduction needs some state.
        init = (convert_to_tensor(0),)
    state = tuple(convert_to_tensor(v) if isinstance(v, (int, float, bool)) else v
                  for v in init)

    def main_path(loop_vars, elem):
        loop_vars = tuple(DS.trial_copy(v) for v in loop_vars)
        if not dummy:
            set_state(tuple(DS.trial_copy(v) for v in loop_vars))
        body(elem)
        new = tuple(get_state()) if not dummy else tuple(loop_vars)
        LV.verify_loop_vars(init, loop_vars, new, names, None, check_shapes=False)
        return new

    if extra_test is None:
        final = ds.reduce(state, lambda s, e: main_path(s, e))
    else:
        def scan_body(loop_vars, elem):
            if not dummy:
                set_state(tuple(loop_vars))
            go = extra_test()
            if isinstance(go, bool):
                # TensorFlow stages the test with tf.cond, which refuses a
                # Python bool (a return flag that no graph op has set yet).
                raise staging(TypeError("pred must not be a Python bool", go))
            new = cond(convert_to_tensor(go), lambda: main_path(loop_vars, elem),
                       lambda: tuple(loop_vars))
            return tuple(new), (tuple(new), convert_to_tensor(go))
        scanned = ds.scan(state, scan_body)
        stopped = scanned.take_while(lambda new, go: go)
        final = stopped.reduce(state, lambda acc, out: tuple(out[0]))
    return tuple(init) if dummy else tuple(final)


def iterator_for(it, extra_test, body, get_state, set_state, names, opts):
    """Stages `for x in it: body(x)` as a graph loop that asks the iterator
    for an optional next element at the start of each iteration."""
    has_next = [True]

    def aug_get_state():
        return (has_next[0],) + tuple(get_state())

    def aug_set_state(values):
        has_next[0] = values[0]
        set_state(tuple(values[1:]))

    names = ("<internal has_next>",) + tuple(names)
    init = aug_get_state()
    LV.verify_loop_init_vars(init, names)
    invariants = shape_invariants(opts, init)

    def aug_body():
        opt = it.get_next_as_optional()
        has_next[0] = opt.has_value()
        loop_vars = aug_get_state()

        def main_path():
            body(opt.get_value())
            new = aug_get_state()
            LV.verify_loop_vars(init, loop_vars, new, names, invariants)
            return new

        aug_set_state(tuple(cond(has_next[0], main_path, lambda: loop_vars)))

    def aug_test():
        if extra_test is None:
            return has_next[0]
        return cond(convert_to_tensor(has_next[0]), lambda: convert_to_tensor(extra_test()),
                    lambda: convert_to_tensor(False))

    tf_loop(aug_test, aug_body, aug_get_state, aug_set_state, names, opts)

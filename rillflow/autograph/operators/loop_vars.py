"""The state of graph control flow: checks and stand-in values.

The checks give TensorFlow's AutoGraph errors, which name the user's
variable: a variable undefined before a graph loop or in one branch of a
graph `if`, None, a dtype, shape or structure that changes in an
iteration. A variable first assigned inside a graph loop gets a stand-in
initial value (zeros of the type one traced iteration gives it), and the
loop must then run at least once (checked when the function runs).
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import nest
from ...framework.convert import convert_to_tensor
from ...framework.func_graph import FuncGraph
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from .exceptions import staging
from .variables import Undefined, UndefinedReturnValue, is_undefined
from ...framework.execute import placeholder
from ...ops.control_flow.list_ops import reserve
from ...ops.core.constant_ops import fill, zeros

_state = _context.state

LEGAL_LOOP_TYPES = "Tensor, int, float, bool or a list, tuple or dict thereof"


def is_none_or_undef(value):
    """Whether a state value is None or undefined (needs a stand-in)."""
    return value is None or is_undefined(value)


def _is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_dense_var_to_tensor")


def _as_tensor_if_python(v):
    if isinstance(v, (bool, int, float, str, np.ndarray)):
        return convert_to_tensor(v)
    return v


# --- conditionals ------------------------------------------------------------------------

def verify_branch_vars(values, names, branch):
    """Raises if a branch leaves an output of the `if` undefined."""
    for name, v in zip(names, values):
        if isinstance(v, Undefined):
            raise staging(ValueError(f"'{name}' must also be initialized in the {branch} branch"))
        if isinstance(v, UndefinedReturnValue):
            raise staging(ValueError(f"the {branch} branch must also have a return statement."))


def verify_cond_vars(body_vars, orelse_vars, names):
    """Raises if the branches' values of a variable differ in structure,
    are None, or differ in dtype."""
    for name, b, o in zip(names, body_vars, orelse_vars):
        try:
            nest.assert_same_structure(b, o, check_types=False)
        except (ValueError, TypeError) as e:
            raise staging(TypeError(
                f"'{name}' must have the same nested structure in the main and "
                f"else branches:\n\n{e}")) from None
        for bl, ol in zip(nest.flatten(b), nest.flatten(o)):
            verify_single_cond_var(name, bl, ol)


def verify_single_cond_var(name, body_var, orelse_var):
    """Raises if one branch's value is None, or the two are tensors (or
    Python numbers) of different dtypes."""
    if body_var is None:
        raise staging(ValueError(f"'{name}' is None at the end of the main branch."))
    if orelse_var is None:
        raise staging(ValueError(f"'{name}' is None at the end of the else branch."))
    b, o = _as_tensor_if_python(body_var), _as_tensor_if_python(orelse_var)
    if not (_is_tensor_like(b) and _is_tensor_like(o)):
        return
    if b.dtype is not o.dtype:
        raise staging(TypeError(
            f"'{name}' has dtype {b.dtype.name} in the main branch, but dtype "
            f"{o.dtype.name} in the else branch"))


# --- loops ---------------------------------------------------------------------------------

def verify_loop_init_vars(init_vars, names, first_iter_vars=None, extra_message=None):
    """Raises if a loop variable is None or undefined before a graph loop."""
    if first_iter_vars is None:
        first_iter_vars = (None,) * len(names)
    for name, val, fi_val in zip(names, init_vars, first_iter_vars):
        if isinstance(val, UndefinedReturnValue):
            if fi_val is not None:
                raise staging(ValueError(
                    f"the return value from a TensorFlow loop may only be a "
                    f"{LEGAL_LOOP_TYPES}; got {type(fi_val)}"))
            raise staging(NotImplementedError(
                
                "a return statement cannot be placed inside this TensorFlow loop; this may "
                "happen if a return statement depends on a static Python condition such as "
                "a hyperparameter"))
        msg = None
        if val is None:
            msg = f"'{name}' is not allowed to be None before the loop"
        elif isinstance(val, Undefined):
            msg = f"'{name}' must be defined before the loop"
            if extra_message:
                msg += "\n" + extra_message
        if msg is not None:
            raise staging(ValueError(msg))


def _is_subshape(left, right):
    """Whether shape `left` is at least as specific as `right`."""
    if right.rank is None:
        return True
    if left.rank != right.rank:
        return False
    return all(r is None or l_ == r for l_, r in zip(left.as_list(), right.as_list()))


def verify_loop_vars(init_vars, entry_vars, exit_vars, names, invariants=None,
                     check_shapes=True):
    """Raises TensorFlow's errors for a loop variable whose structure, dtype
    or (unless `check_shapes` is off) shape changes in an iteration."""
    invariants = invariants or (None,) * len(names)
    for name, init, entry, exit_, inv in zip(names, init_vars, entry_vars, exit_vars,
                                              invariants):
        for a, b in ((init, entry), (entry, exit_)):
            try:
                nest.assert_same_structure(a, b, check_types=False, expand_composites=True)
            except (ValueError, TypeError) as e:
                raise staging(TypeError(
                    f"'{name}' does not have the same nested structure after "
                    f"one iteration.\n\n{e}")) from None
        invs = nest.flatten(inv) if inv is not None else [None] * len(nest.flatten(init))
        for i, en, ex, iv in zip(nest.flatten(init), nest.flatten(entry),
                                 nest.flatten(exit_), invs):
            _verify_single_loop_var(name, check_shapes, i, en, ex, iv)


def _verify_single_loop_var(name, check_shape, init, entry, exit_, invariant):
    if exit_ is None:
        raise staging(ValueError(f"'{name}' is None at the end of the iteration."))
    init, entry, exit_ = (_as_tensor_if_python(v) for v in (init, entry, exit_))
    if not (_is_tensor_like(entry) and _is_tensor_like(exit_)):
        return
    if entry.dtype is not exit_.dtype:
        raise staging(TypeError(
            f"'{name}' has dtype {entry.dtype.name} before the loop, but dtype "
            f"{exit_.dtype.name} after one iteration"))
    if not check_shape:
        return
    if invariant is None:
        if not _is_subshape(exit_.shape, entry.shape):
            raise staging(ValueError(
                
                f"'{name}' has shape {entry.shape} before the loop, but shape {exit_.shape} "
                "after one iteration. Use tf.autograph.experimental.set_loop_options to set "
                "shape invariants."))
        return
    invariant = TensorShape(invariant)
    if _is_tensor_like(init) and not _is_subshape(init.shape, invariant):
        raise staging(ValueError(
            f"'{name}' has shape {init.shape} before the loop, which does not "
            f"conform with the shape invariant {invariant}."))
    if not _is_subshape(exit_.shape, invariant):
        raise staging(ValueError(
            f"'{name}' has shape {exit_.shape} after one iteration, which does "
            f"not conform with the shape invariant {invariant}."))


def placeholder_value(like, invariant, original):
    """(A stand-in initial value shaped like `like`, its shape invariant or
    None); `original` when no stand-in can be made."""
    if like is None or is_undefined(like):
        return original, None
    if isinstance(like, bool):
        return False, None
    if isinstance(like, (int, float)):
        return type(like)(0), None
    if _is_tensor_like(like):
        shape = TensorShape(invariant) if invariant is not None else like.shape
        if shape.rank is None:
            return zeros([], like.dtype), shape
        dims, dynamic = [], False
        for s, i in zip(like.shape.as_list(), shape.as_list()):
            if s is None:
                dims.append(0 if i is None else i)
                dynamic = True
            else:
                dims.append(s)
        if like.dtype is D.variant:
            return reserve(0, D.float32), None
        if like.dtype is D.string:
            return fill(dims, b""), (shape if dynamic else None)
        return zeros(dims, like.dtype), (shape if dynamic else None)
    comps = getattr(like, "_to_components", None)
    if comps is not None:
        parts = [placeholder_value(c, None, None)[0] for c in comps()]
        return like._from_components(parts), None
    if isinstance(like, (list, tuple, dict)):
        leaves = nest.flatten(like)
        invs = nest.flatten(invariant) if invariant is not None else [None] * len(leaves)
        pairs = [placeholder_value(v, i, None) for v, i in zip(leaves, invs)]
        return (nest.pack_sequence_as(like, [p[0] for p in pairs]),
                nest.pack_sequence_as(like, [p[1] for p in pairs]))
    raise staging(TypeError(
        f"Found an unsupported type '{type(like).__name__}' while creating "
        f"placeholder for {like}. Supported types include Tensor, int, float, "
        "bool, list, tuple or dict."))


def _autocast(v):
    """A trial iteration sees Python numbers as the tensors the loop makes
    of them."""
    if isinstance(v, (bool, int, float, str, np.ndarray, np.generic)) and \
            not is_undefined(v):
        t = convert_to_tensor(v)
        return placeholder(t.dtype, t.shape)
    return v


def try_handling_undefineds(body, get_state, set_state, init_vars, nulls, invariants,
                            names, trial_copy):
    """Traces one iteration in a scratch graph to give undefined (or None)
    loop variables stand-in values; raises when that is not possible.

    Returns (init values, shape invariants the stand-ins need).
    """
    first_iter_vars = None
    failure = None
    modified = False
    try:
        g = FuncGraph("tmp", outer_graph=_state.graph)
        with _context.graph_mode(g, hide_tapes=True):
            set_state(tuple(_autocast(trial_copy(v)) for v in init_vars))
            modified = True
            body()
            first_iter_vars = tuple(get_state())
        pairs = [placeholder_value(fi, inv, v) if n else (v, None)
                 for v, n, fi, inv in zip(init_vars, nulls, first_iter_vars, invariants)]
        init_vars = tuple(p[0] for p in pairs)
        extra_invariants = tuple(p[1] for p in pairs)
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        failure = ("Note: AutoGraph tried to define it automatically, but ran into a "
                   f"{type(e).__name__}: {e}")
        extra_invariants = None
    finally:
        if modified:
            set_state(tuple(init_vars))
    verify_loop_init_vars(init_vars, names, first_iter_vars, extra_message=failure)
    return init_vars, extra_invariants


def zero_iterations_message(names, nulls, init_vars):
    """The runtime error of a loop that had to run once to define variables."""
    var_names = []
    for name, n, v in zip(names, nulls, init_vars):
        if not n:
            continue
        var_names.append("the function return value" if isinstance(v, UndefinedReturnValue)
                         else name)
    return "loop must iterate at least once to initialize " + ", ".join(var_names)

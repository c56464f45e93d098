"""Late-bound names: the ops the core families and the backprop engine use from each other.

The core ops are built from one another, in both directions: a reduction's gradient
reshapes (shape_ops), `broadcast_to`'s gradient sums (reduction_ops), `tf.eye` casts
(math_ops), `range` is reshaped... The backprop engine (gradients/backprop.py), which every
op's gradient runs in, needs zeros_like and add_n (and list_ops' versions for tensor
lists), and the gradient of a gather needs the engine's sparse-gradient rules
(gradients/sparse_gradients.py). That is the honest shape of the domain, a cycle, and it is
the only one the ops keep: instead of importing each other (inside functions, to dodge the
cycle at import time), these modules name `late.<op>`, and this module resolves the name
on first use from the table below and caches it as a module attribute, so later uses cost
one attribute lookup. Nothing else in rillflow uses it; module-level code must not either
(at import time the module named may not be loaded yet).

tests/test_architecture.py checks that every name here resolves and that the table only
reaches the modules above.
"""
import importlib

# {module under rillflow.ops: the names it lends}
WHERE = {
    "control_flow.list_ops": ("add_n_lists", "zeros_like_list",),
    "core.add_n_ops": ("add_n",),
    "core.broadcast_ops": ("broadcast_gradient_args", "broadcast_to", "where",),
    "core.clip_ops": ("clip_by_value",),
    "core.constant_ops": ("fill", "ones", "ones_like", "zeros", "zeros_like",),
    "core.creation_ops": ("invert_permutation", "range",),
    "core.dim_ops": ("expand_dims", "squeeze", "transpose",),
    "core.gather_ops": ("boolean_mask", "gather", "gather_nd"),
    "core.join_ops": ("_axis_sizes", "concat", "stack",),
    "core.math_ops": ("_sum_to", "add", "cast", "conj", "div_no_nan", "equal", "floordiv",
        "floormod", "greater", "greater_equal", "less", "less_equal", "logical_and",
        "logical_not", "maximum", "minimum", "multiply", "negative", "not_equal",
        "subtract", "truediv"),
    "core.reduction_ops": ("reduce_max", "reduce_prod", "reduce_sum"),
    "core.scan_ops": ("cumprod", "cumsum",),
    "core.shape_ops": ("identity", "rank", "reshape", "shape", "size", "stop_gradient",),
    "core.slicing": ("slice",),
    "core.special_math_ops": ("complex", "real"),
    "core.split_pad_ops": ("split",),
    "core.unary_ops": ("exp", "is_finite", "log", "sqrt", "square"),
    "gradients.sparse_gradients": ("aggregate", "call_gradient", "sparse_gather_gradient"),
}

_MODULE_OF = {name: "rillflow.ops." + module for module, names in WHERE.items()
              for name in names}


def __getattr__(name):
    """Resolves `late.<name>` on first use and caches it."""
    try:
        module = _MODULE_OF[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} lends no {name!r}: add it to WHERE") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    """The names lent, resolved or not."""
    return sorted(set(globals()) | set(_MODULE_OF))

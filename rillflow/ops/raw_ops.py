"""`tf.raw_ops`: every registered op that TensorFlow has, called as TensorFlow
calls it.

Each op is registered under TensorFlow's name with TensorFlow's attribute
names, so one generic function per op suffices: `raw_op_table.py`
(generated from TensorFlow by tools/gen_raw_op_table.py) gives the keyword of
each input and attribute, the type attrs that bind inputs together, the
defaults and the outputs; `make(name)` builds the keyword-only function over
the op's `OpDef`. `install()` exports them all (called by `_api.build`, once
every op of every package is registered); a hand-written `raw_ops.X` export
remains only for an op the generic functions do not cover (`HAND_WRITTEN`).

Not exposed: ops whose inputs are resources or variants (rillflow's
variables, datasets and tensor lists are Python objects, not tensors) or
whose attrs are functions, and ops whose kernel takes other inputs than
TensorFlow's (see `_compatible`).
"""
import collections
import inspect

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.context import state
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply, apply_op
from ..framework.op_registry import REGISTRY
from ..framework.tensor import Tensor
from ..framework.tensor_shape import as_shape
from .core import op_util as U
from .raw_op_table import TABLE, TYPE_ATTRS

__all__ = ["make", "install", "exposed", "covered", "HAND_WRITTEN", "check_keywords",
           "hand_written"]

# Attrs that choose hardware or mark gradient ops for compilers, not
# values: any value is accepted and ignored (TensorFlow's gradient MatMuls
# carry grad_a/grad_b, its BatchMatMuls grad_x/grad_y).
_IGNORED_ATTRS = frozenset({"use_cudnn_on_gpu", "grad_a", "grad_b", "grad_x", "grad_y"})
# Resource handles are Python objects in rillflow, not tensors; variant tensors are
# tensors (their values are Python objects the kernels understand).
_OPAQUE_DTYPES = ()
_cc = U.tf_type_name     # TensorFlow's C++ dtype names: float, double, half


def _kernel_params(opdef):
    """(positional parameter names, keyword names, takes *args, takes **kwargs)."""
    try:
        params = inspect.signature(opdef.kernel).parameters.values()
    except (TypeError, ValueError):
        return None
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return (pos, {p.name: p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)},
            any(p.kind == p.VAR_POSITIONAL for p in params),
            any(p.kind == p.VAR_KEYWORD for p in params))


def _compatible(opdef, entry):
    """Whether the generic call fits the op's kernel: TensorFlow's inputs are
    the kernel's positional arguments and TensorFlow's attrs (those the
    kernel does not take are dropped) cover the kernel's required keywords."""
    _, inputs, attrs, _ = entry
    if any(d in _OPAQUE_DTYPES for _, d, _ in inputs) or \
            any("func" in t for _, _, t, _ in attrs):
        return False
    sig = _kernel_params(opdef)
    if sig is None:
        return False
    pos, named, varargs, varkw = sig
    supplied = {a[1] for a in attrs} | {d for _, d, _ in inputs if not d.startswith("=")} | \
        {lst.lstrip("*") for _, _, lst in inputs if lst}
    lists = any(lst for _, _, lst in inputs)
    in_pos = [p for p in pos if p.name not in supplied]
    if lists:
        if not varargs:
            return False
    elif not (sum(p.default is p.empty for p in in_pos) <= len(inputs) and
              (varargs or len(in_pos) >= len(inputs))):
        return False
    required = {n for n, p in named.items() if p.default is p.empty} - \
        {p.name for p in in_pos[:len(inputs)]}
    return required <= supplied and not any(n.startswith("_") for n in required)


def _missing(snake, names):
    """Python's own message for missing arguments (TensorFlow's functions
    are Python functions with these parameters)."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = " and ".join(quoted)
    else:
        listed = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    s = "" if len(names) == 1 else "s"
    return TypeError(f"{snake}() missing {len(names)} required positional argument{s}: "
                     f"{listed}")


def check_keywords(snake, keys, required, args, kwargs):
    """TensorFlow's TypeErrors for a call of raw function `snake` with
    positional arguments, a keyword not in `keys`, or one of `required` missing."""
    if args:
        raise TypeError(f"{snake} only takes keyword args (possible keys: {keys}). "
                        "Please pass these args as kwargs instead.")
    for k in kwargs:
        if k not in keys:
            raise TypeError(f"{snake}() got an unexpected keyword argument '{k}'")
    missing = [k for k in required if k not in kwargs]
    if missing:
        raise _missing(snake, missing)


def hand_written(opname, snake, keys, required, what="called as TensorFlow calls it"):
    """Decorator: exports `body(**kwargs)` as `tf.raw_ops.<opname>`, keyword-only
    as TensorFlow's raw functions are (for the ops in HAND_WRITTEN, whose
    kernels take other arguments than TensorFlow's)."""
    keys = list(keys) + ["name"]

    def wrap(body):
        def fn(*args, **kwargs):
            check_keywords(snake, keys, required, args, kwargs)
            kwargs.pop("name", None)
            return body(**kwargs)
        fn.__name__ = fn.__qualname__ = snake
        fn.__doc__ = (f"The {opname} op (`tf.raw_ops.{opname}`), {what}: keyword arguments "
                      f"only ({', '.join(keys)}).")
        export("raw_ops." + opname)(fn)
        return fn
    return wrap


def _attr_value(snake, kw, attr_type, value):
    if value is None:
        return None
    if attr_type == "type":
        try:
            return D.as_dtype(value)
        except TypeError:
            raise TypeError(f"Expected DataType for argument '{kw}' not {value!r}.") from None
    if attr_type == "list(type)":
        return [D.as_dtype(v) for v in value]
    if attr_type == "shape":
        return as_shape(value)
    if attr_type == "list(shape)":
        return [as_shape(v) for v in value]
    if attr_type == "string" and isinstance(value, bytes):
        return value.decode()
    if attr_type.startswith("list(") and not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{kw}' argument to '{snake}' Op, not {value!r}.")
    return list(value) if attr_type.startswith("list(") else value


def _default_value(attr_type, default):
    if isinstance(default, tuple) and default and default[0] == "shape":
        return as_shape(None if default[1] is None else list(default[1]))
    return _attr_value("", "", attr_type, default) if attr_type in ("type", "list(type)") \
        else default


def _convert_inputs(opname, inputs, kwargs, type_attrs):
    """Tensors for the inputs, flat, and the attrs they bind: the inputs of
    one type attr convert to the dtype of the first of them that is already
    a tensor (else of the first), as TensorFlow's eager raw ops do."""
    bound, groups = {}, {}
    for kw, dtype, lst in inputs:
        vals = kwargs[kw]
        if lst and not lst.startswith("*"):
            if not isinstance(vals, (list, tuple)):
                raise TypeError(f"Expected list for '{kw}' argument to '{opname}' Op, "
                                f"not {vals!r}.")
            bound[lst] = len(vals)
        if not dtype.startswith("=") and dtype:
            for v in (vals if lst else [vals]):
                if isinstance(v, Tensor):
                    groups.setdefault(dtype, v.dtype)
    flat = []
    for kw, dtype, lst in inputs:
        vals = list(kwargs[kw]) if lst else [kwargs[kw]]
        converted = []
        for v in vals:
            if isinstance(v, Tensor):
                t = convert_to_tensor(v)    # a wrong dtype is _check_flat's error
            elif dtype.startswith("="):
                t = convert_to_tensor(v, dtype=dtype[1:])
            elif not dtype:      # an element of a type list: its own dtype
                t = convert_to_tensor(v)
            elif dtype in groups:
                t = convert_to_tensor(v, dtype=groups[dtype])
            else:
                t = convert_to_tensor(v, dtype_hint=type_attrs.get(dtype, (None,))[0])
                groups[dtype] = t.dtype
            converted.append(t)
        if lst.startswith("*"):
            bound[lst[1:]] = [t.dtype for t in converted]
        flat.extend(converted)
    bound.update(groups)
    return flat, bound


def make(opname):
    """The `tf.raw_ops.<opname>` function: keyword arguments only, TensorFlow's
    keywords and defaults, a namedtuple for several outputs and a list for a
    list output."""
    opdef = REGISTRY[opname]
    snake, inputs, attrs, outputs = TABLE[opname]
    type_attrs = TYPE_ATTRS.get(opname, {})
    keys = [i[0] for i in inputs] + [a[0] for a in attrs] + ["name"]
    required = [i[0] for i in inputs] + [a[0] for a in attrs if a[3] is None]
    _, named, _, varkw = _kernel_params(opdef)
    defaults = {a[1]: _default_value(a[2], a[3]) for a in attrs if a[3] is not None}
    result = collections.namedtuple(opname, [o[0] for o in outputs]) \
        if len(outputs) > 1 else None

    def fn(*args, **kwargs):
        check_keywords(snake, keys, required, args, kwargs)
        flat, bound = _convert_inputs(opname, inputs, kwargs, type_attrs)
        _check_flat(opname, inputs, kwargs, flat, type_attrs)
        values = dict(bound)
        for kw, op_name, attr_type, default in attrs:
            if kw in kwargs:
                values[op_name] = _attr_value(snake, kw, attr_type, kwargs[kw])
            else:
                values[op_name] = defaults[op_name]
        call = {}
        for k, v in values.items():
            if k in named or varkw:
                call[k] = v
            elif k not in _IGNORED_ATTRS and k in defaults and v != defaults[k]:
                raise errors.UnimplementedError(
                    None, None, f"{opname} with {k}={v!r} is not supported by rillflow")
        name = kwargs.get("name") or opname
        if not outputs:
            if state.graph is None:
                apply(opdef, flat, call, name=name, multi=True)
                return None
            return apply_op(opdef, flat, call, name=name)
        if len(outputs) == 1 and not outputs[0][1]:
            return apply(opdef, flat, call, name=name)
        out = list(apply(opdef, flat, call, name=name, multi=True))
        groups, i = [], 0
        for _, lst in outputs:
            if not lst:
                groups.append(out[i])
                i += 1
                continue
            n = values[lst.lstrip("*")]
            n = len(n) if isinstance(n, list) else n
            groups.append(out[i:i + n])
            i += n
        return groups[0] if result is None else result(*groups)

    fn.__name__ = snake
    fn.__qualname__ = snake
    fn.__doc__ = (f"The {opname} op (`tf.raw_ops.{opname}`), called as TensorFlow calls it: "
                  f"keyword arguments only ({', '.join(keys)}).")
    return fn


def _check_flat(opname, inputs, kwargs, flat, type_attrs):
    """TensorFlow's errors when tensors bound to one type attr differ in
    dtype, or have a dtype the attr does not allow."""
    first, i = {}, 0
    for kw, dtype, lst in inputs:
        n = len(kwargs[kw]) if lst else 1
        for t in flat[i:i + n]:
            if dtype and not dtype.startswith("="):
                want = first.setdefault(dtype, t.dtype)
                if t.dtype != want:
                    raise errors.InvalidArgumentError(
                        None, None, f"cannot compute {opname} as input #{i}(zero-based) was "
                        f"expected to be a {_cc(want)} tensor but is a {_cc(t.dtype)} tensor "
                        f"[Op:{opname}] name: ")
                allowed = type_attrs.get(dtype, (None, None))[1]
                if allowed and t.dtype.name not in allowed:
                    if state.graph is not None:
                        raise TypeError(f"Value passed to parameter '{kw}' has DataType "
                                        f"{t.dtype.name} not in list of allowed values: "
                                        f"{', '.join(allowed)}")
                    raise errors.InvalidArgumentError(
                        None, None, f"Value for attr '{dtype}' of {_cc(t.dtype)} is not in the "
                        f"list of allowed values: {', '.join(allowed)} [Op:{opname}]")
            i += 1


# Ops whose rillflow kernels take TensorFlow's inputs differently, though the
# parameter names fit: the tensor-list kernels take `element_shape` as an attr
# (TensorFlow: an input) and have no EmptyTensorList/TensorListFromTensor to
# start from; ParallelBatchDataset's kernel binds output_types positionally.
_MISMATCHED = frozenset({
    "TensorListConcat", "TensorListGather", "TensorListGetItem", "TensorListLength",
    "TensorListPopBack", "TensorListPushBack", "TensorListReserve",
    "TensorListScatterIntoExistingList", "TensorListSetItem", "TensorListSplit",
    "TensorListStack", "ParallelBatchDataset"})


def exposed():
    """The names of the registered ops the generic `tf.raw_ops` functions cover."""
    return sorted(n for n, e in TABLE.items() if n in REGISTRY and n not in _MISMATCHED
                  and _compatible(REGISTRY[n], e))


# Registered ops exported by hand-written functions that take TensorFlow's
# inputs and convert them for rillflow's kernels: the tensor-list ops
# (control_flow/list_raw_ops.py), the function calls (function/raw_call.py)
# and the Generator ops (random/stateful_raw_ops.py).
HAND_WRITTEN = frozenset({
    "TensorListConcat", "TensorListFromTensor", "TensorListGather", "TensorListGetItem",
    "TensorListLength", "TensorListPopBack", "TensorListPushBack", "TensorListReserve",
    "TensorListScatterIntoExistingList", "TensorListSetItem", "TensorListSplit",
    "TensorListStack", "PartitionedCall", "StatefulPartitionedCall", "StatefulUniform",
    "StatefulStandardNormalV2", "StatefulTruncatedNormal", "StatefulUniformFullInt",
    "StatefulUniformInt"})


def covered():
    """The registered ops TensorFlow also has that `tf.raw_ops` exports:
    the generic functions' ops and the hand-written ones."""
    return sorted(set(exposed()) | {n for n in HAND_WRITTEN if n in REGISTRY})


def install():
    """Exports `tf.raw_ops.<Op>` for every exposed op (replacing any earlier
    export of that name, so that every raw op takes keywords only)."""
    for name in exposed():
        export("raw_ops." + name)(make(name))

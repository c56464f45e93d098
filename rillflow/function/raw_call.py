"""`tf.raw_ops.PartitionedCall` and `tf.raw_ops.StatefulPartitionedCall`:
a call of a traced function, as TensorFlow's raw ops make it.

`f` is a ConcreteFunction (TensorFlow's raw ops take one) or, beyond
TensorFlow (whose runtime cannot find a `tf.function` by name), a
`tf.function`, whose concrete function for `args` is called. As in
TensorFlow, `args` holds the function's arguments followed by its captured
inputs (`f.captured_inputs`), and one output is returned per `Tout` dtype.
"""
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply
from ..framework.tensor import Tensor
from ..ops.core.op_util import tf_type_name
from ..ops.raw_ops import check_keywords
from . import concrete_function as C

__all__ = []

_KEYS = ["args", "Tout", "f", "config", "config_proto", "executor_type", "name"]


def _concrete(f, args):
    """The ConcreteFunction to call: `f` itself, or a tf.function's concrete
    function for the arguments (captured inputs are its own)."""
    if isinstance(f, C.ConcreteFunction):
        return f
    get = getattr(f, "get_concrete_function", None)
    if get is None:
        raise TypeError(f"f must be a ConcreteFunction or a tf.function, not {f!r}")
    if getattr(f, "input_signature", None) is not None:
        return get()
    return get(*args)


def _make(opname, snake, opdef_of):
    def fn(*pos, **kwargs):
        check_keywords(snake, _KEYS, ("args", "Tout", "f"), pos, kwargs)
        args = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in kwargs["args"]]
        f = _concrete(kwargs["f"], args)
        if not isinstance(kwargs["f"], C.ConcreteFunction):
            # A tf.function's arguments are completed with its captures.
            args = args + list(f.captured_inputs)
        inputs = list(f.graph.inputs)
        if len(args) != len(inputs):
            raise errors.InvalidArgumentError(
                None, None, "InstantiateOptions.input_devices must have the same length as the "
                f"number of arguments: input_devices length = {len(args)} number of "
                f"arguments = {len(inputs)} [Op:{opname}]")
        for i, (a, ph) in enumerate(zip(args, inputs)):
            if a.dtype != ph.dtype:
                rt = [tf_type_name(d) for d in (ph.dtype, a.dtype)]
                raise errors.InvalidArgumentError(
                    None, None, f"Expects arg[{i}] to be {rt[0]} but {rt[1]} is provided "
                    f"[Op:{opname}]")
        tout = [D.as_dtype(t) for t in kwargs["Tout"]]
        outs = apply(opdef_of(f), args, {"f": f, "Tout": [t.dtype for t in f.graph.outputs]},
                     name=kwargs.get("name") or opname, multi=True)
        # TensorFlow returns as many outputs as Tout names.
        return list(outs)[:len(tout)]

    fn.__name__ = fn.__qualname__ = snake
    fn.__doc__ = (f"The {opname} op (`tf.raw_ops.{opname}`): calls `f` (a ConcreteFunction "
                  "or a tf.function) on `args` (its arguments, then its captured inputs); "
                  "keyword arguments only.")
    export("raw_ops." + opname)(fn)
    return fn


# PartitionedCall on a function with stateful ops still runs them as
# TensorFlow's does; the stateful op keeps them from being pruned in graphs.
partitioned_call = _make("PartitionedCall", "partitioned_call",
                         lambda f: C._StatefulCall if C._has_stateful(f.graph) else C._Call)
stateful_partitioned_call = _make("StatefulPartitionedCall", "stateful_partitioned_call",
                                  lambda f: C._StatefulCall)

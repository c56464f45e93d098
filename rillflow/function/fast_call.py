"""Generated eager entry points of concrete functions.

The common call passes eager tensors positionally and returns a tensor or
a flat tuple/list of tensors. For it, a tiny Python function is generated
per ConcreteFunction: unwrap the arguments, call the compiled graph with
the captured values, wrap the outputs. Anything else (tapes, structured
outputs, errors) goes through `ConcreteFunction._call_flat`.
"""
import numpy as np

from ..compiler import runtime_errors
from ..framework import blas_threads
from ..framework import context as _context
from ..framework.tensor import DeviceResult, EagerTensor, SymbolicTensor


def _output_shape(structured):
    """'single', 'tuple', 'list' or None (needs the general packer)."""
    if isinstance(structured, SymbolicTensor):
        return "single"
    if isinstance(structured, (tuple, list)) and not hasattr(structured, "_fields") and \
            all(isinstance(s, SymbolicTensor) for s in structured):
        return "tuple" if isinstance(structured, tuple) else "list"
    return None


def make_fast_call(cf, tensors, n_args):
    """A callable(args) running `cf` on a call's `n_args` arguments, of which
    those at positions `tensors` are eager tensors (the others are the Python
    values the function was traced with); None when not applicable. Its
    `source` attribute is its body (`_fast_body`), for `make_dispatch`."""
    made = _fast_body(cf, tensors, n_args)
    if made is None:
        return None
    head, unpack, tail, ns = made
    exec(compile("def fast(args):\n" + head + unpack + tail, "<rillflow fast call %s>" % cf.name,
                 "exec"), ns)
    fast = ns["fast"]
    # (the dispatch checks the tapes itself, with the other conditions)
    fast.source = ("    blas_check()\n" if blas_threads.ENABLED else "") + tail, ns
    return fast


def make_dispatch(fast, key, args, general, name):
    """The `__call__` of a tf.function called with one signature only: the
    arguments' types checked against `key` (the fast-path key: per argument
    (dtype, shape) of a tensor or (type, value) of a Python scalar; a
    numeric NumPy scalar class for a single scalar tensor) and `fast`'s body
    inline, one Python call less than `__call__` and `fast`; any other call
    goes to `general(*args, **kwargs)`. `args` are the arguments of the call
    that made `fast`. None where `fast` has no body."""
    made = getattr(fast, "source", None)
    if made is None:
        return None
    body, ns = made
    ns = dict(ns)
    if key.__class__ is type:
        key = (key,)
    n = len(key)
    checks = []
    for i, k in enumerate(key):
        a = args[i]
        if a.__class__ is EagerTensor and isinstance(a._v, np.generic) and \
                a._v.dtype.kind in "biufc":
            # A numeric NumPy scalar: its class says its dtype and shape.
            ns["K%d" % i] = a._v.__class__
            checks.append("a%d.__class__ is T and a%d._v.__class__ is K%d" % (i, i, i))
        elif k[0].__class__ is type:     # a Python scalar: (type, value)
            ns["K%d" % i], ns["V%d" % i] = k
            checks.append("a%d.__class__ is K%d and a%d == V%d" % (i, i, i, i))
        else:    # a tensor: (dtype, shape); (NumPy scalars' dtypes may not be unique)
            ns["D%d" % i], ns["S%d" % i] = k
            checks.append("a%d.__class__ is T and a%d._v.__class__ is ndarray and "
                          "a%d._v.dtype == D%d and a%d._v.shape == S%d" % ((i,) * 6))
    names = ", ".join("a%d" % i for i in range(n)) + ("," if n == 1 else "")
    inner = "".join("        " + line + "\n" if line else "\n" for line in body.split("\n"))
    src = ("def dispatch(*args, **kwargs):\n"
           "    if not kwargs and len(args) == %d and state.graph is None and not state.tapes "
           "and not config.run_functions_eagerly:\n"
           "%s"
           "        if %s:\n"
           "%s"
           "    return general(*args, **kwargs)\n") % (
               n, "        %s = args\n" % names if n else "",
               " and ".join("(%s)" % c for c in checks) or "True", inner)
    ns.update({"general": general, "config": _context.config, "ndarray": np.ndarray})
    exec(compile(src, "<rillflow dispatch %s>" % name, "exec"), ns)
    return ns["dispatch"]


def _fast_body(cf, tensors, n_args):
    """The body (indented by 4) of `fast(args)` as (its first lines, the
    arguments' unpacking, the rest), and its globals; None when the call
    needs the general path.

    A compiled graph with an `inline_call` method (XLA's: compiler/
    xla_compile.py) supplies the code of its call, generated into this
    body: one Python call less on the way to JAX's."""
    compiled = cf._ensure_compiled()
    kind = _output_shape(cf.graph.structured_outputs)
    if kind is None or cf._num_args != len(tensors):
        return None
    caps = cf._capture_values
    names = ["a%d" % i if i in tensors else "_" for i in range(n_args)]
    vals = ["a%d._v" % i for i in tensors] + ["c%d" % i for i in range(len(caps))]
    tensor_names = ["a%d" % i for i in tensors]
    n_out = len(cf.graph.outputs)

    def wrapped(item, make="T(%s)"):
        if kind == "single":
            return make % item(0)
        items = ", ".join(make % item(i) for i in range(n_out))
        return ("(%s%s)" % (items, "," if n_out == 1 else "")) if kind == "tuple" \
            else "[%s]" % items
    unpack = ("    %s = args\n" % (", ".join(names) + ("," if n_args == 1 else ""))
              if n_args else "")
    ns = {"fn": compiled.fn, "T": EagerTensor, "state": _context.state, "tensors": tensors,
          "slow": cf._call_flat, "translate": runtime_errors.translate,
          "blas_check": blas_threads.check, "new": object.__new__, "R": DeviceResult}
    inline = getattr(compiled, "inline_call", None)
    block = inline and inline(tensor_names + vals[len(tensors):], n_out,
                              "translate(error).with_traceback(None) from None",
                              lazy=True, tensors=len(tensors))
    if block:
        code, inline_ns = block
        ns.update(inline_ns)
        # The results become tensors holding their device arrays
        # (framework/tensor.DeviceResult): their host values are made when
        # first looked at, so a call costs JAX's and a few attribute writes
        # (a host copy took a fifth of JAX's call on a scalar).
        made = "".join("        t%d = new(R)\n        t%d._d = h%d\n" % (i, i, i)
                       for i in range(n_out))
        block = code.replace("RET_R", wrapped(lambda i: "r[%d]" % i)).replace(
            "        return RET_H\n",
            made + "        return %s\n" % wrapped(lambda i: "t%d" % i, "%s"))
    head = (("    blas_check()\n" if blas_threads.ENABLED else "") +
            "    if state.tapes:\n"
            "        return slow([args[i] for i in tensors])\n")
    tail = ((block or "") +
            "    try:\n"
            "        r = fn(%s)\n"
            "    except Exception as e:\n"
            "        raise translate(e).with_traceback(None) from None\n"
            "    return %s\n") % (", ".join(vals), wrapped(lambda i: "r[%d]" % i))
    ns.update({"c%d" % i: v for i, v in enumerate(caps)})
    return head, unpack, tail, ns

"""Generated eager entry points of concrete functions.

The common call passes eager tensors positionally and returns a tensor or
a flat tuple/list of tensors. For it, a tiny Python function is generated
per ConcreteFunction: unwrap the arguments, call the compiled graph with
the captured values, wrap the outputs. Anything else (tapes, structured
outputs, errors) goes through `ConcreteFunction._call_flat`.
"""
from ..compiler import runtime_errors
from ..framework import blas_threads
from ..framework import context as _context
from ..framework.tensor import EagerTensor, SymbolicTensor


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
    values the function was traced with); None when not applicable.

    A compiled graph with an `inline_call` method (XLA's: compiler/
    xla_compile.py) supplies the code of its call, generated into this
    function: one Python call less on the way to JAX's."""
    compiled = cf._ensure_compiled()
    kind = _output_shape(cf.graph.structured_outputs)
    if kind is None or cf._num_args != len(tensors):
        return None
    caps = cf._capture_values
    names = ["a%d" % i if i in tensors else "_" for i in range(n_args)]
    vals = ["a%d._v" % i for i in tensors] + ["c%d" % i for i in range(len(caps))]
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
          "blas_check": blas_threads.check, "new": object.__new__}
    inline = getattr(compiled, "inline_call", None)
    block = inline and inline(vals, n_out, "translate(error).with_traceback(None) from None")
    if block:
        code, inline_ns = block
        ns.update(inline_ns)
        # The results become tensors without a call of EagerTensor.__init__
        # (which only sets `_v`: tests/test_xla_call.py checks that): a
        # tenth of what this call adds to JAX's own on a scalar.
        made = "".join("        t%d = new(T)\n        t%d._v = h%d\n" % (i, i, i)
                       for i in range(n_out))
        block = code.replace("RET_R", wrapped(lambda i: "r[%d]" % i)).replace(
            "        return RET_H\n",
            made + "        return %s\n" % wrapped(lambda i: "t%d" % i, "%s"))
    src = ("def fast(args):\n"
           + ("    blas_check()\n" if blas_threads.ENABLED else "") +
           "    if state.tapes:\n"
           "        return slow([args[i] for i in tensors])\n"
           + unpack + (block or "") +
           "    try:\n"
           "        r = fn(%s)\n"
           "    except Exception as e:\n"
           "        raise translate(e).with_traceback(None) from None\n"
           "    return %s\n") % (", ".join(vals), wrapped(lambda i: "r[%d]" % i))
    ns.update({"c%d" % i: v for i, v in enumerate(caps)})
    exec(compile(src, "<rillflow fast call %s>" % cf.name, "exec"), ns)
    return ns["fast"]

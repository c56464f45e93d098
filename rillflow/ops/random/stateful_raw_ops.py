"""`tf.raw_ops.StatefulUniform`, `StatefulStandardNormalV2`,
`StatefulTruncatedNormal`, `StatefulUniformFullInt` and `StatefulUniformInt`
on a `tf.random.Generator`'s state variable (`resource=g.state.handle`).

rillflow's kernels (generator.py) take the state's storage as an attr, not
the resource input TensorFlow's ops take, so the generic raw functions
cannot call them; these take the handle of an eager state variable (created
outside any tf.function, as a Generator's is; inside one, its capture) and
give TensorFlow's numbers: the same Philox draws as the Generator's methods. StatefulRandomBinomial is
left out: rillflow's binomial draws NumPy's numbers, not TensorFlow's.
"""

from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.tensor import EagerTensor
from ..core import math_ops
from ..core import op_util as U
from ..state.resource_ops import ResourceHandle
from . import generator as G
from .random_util import _shape_arg
from ..raw_ops import hand_written


def _raw(opname, snake, keys, required):
    """hand_written for the ops on a Generator's state."""
    return hand_written(opname, snake, keys, required, "on a Generator's state")


__all__ = []

_PHILOX, _THREEFRY, _AUTO = 1, 2, 3


def _outer_handle(h):
    """The eager handle behind `h`: `h` itself, or the eager tensor a
    function graph captured it from (a Generator's state used inside a
    tf.function); None for a handle made in a graph."""
    from ...framework.context import state
    g = state.graph
    while not isinstance(h, EagerTensor):
        if g is None:
            return None
        found = next((ext for ext, internal in getattr(g, "captures", [])
                      if internal is h), None)
        if found is None:
            value = U.constant_value(h)
            return value if isinstance(value, ResourceHandle) else None
        h, g = found, getattr(g, "outer_graph", None)
    return h.numpy()


def _storage(opname, resource, algorithm):
    """The state variable's storage behind `resource`, with TensorFlow's
    checks of the algorithm and of the state's dtype."""
    h = _outer_handle(convert_to_tensor(resource, dtype=D.resource))
    if h is None:
        raise errors.UnimplementedError(
            None, None, f"rillflow's {opname} takes the handle of an eager state variable "
                        "(a tf.random.Generator's state), not one made in a graph")
    storage = h
    alg = convert_to_tensor(algorithm, dtype=D.int64)
    if isinstance(alg, EagerTensor):
        a = int(alg.numpy())
        if a == _THREEFRY:
            raise errors.UnimplementedError(
                None, None, f"Non-XLA devices don't support the ThreeFry algorithm. "
                            f"[Op:{opname}]")
        if a not in (_PHILOX, _AUTO):
            raise errors.InvalidArgumentError(None, None,
                                              f"Unsupported algorithm id: {a} [Op:{opname}]")
    dtype = D.as_dtype(storage.dtype)
    if dtype != D.int64:
        raise errors.InvalidArgumentError(
            None, None, f"dtype of RNG state variable must be int64, not "
                        f"{U.tf_type_name(dtype)} [Op:{opname}]")
    return storage


def _float_op(opname, snake, opdef, default):
    @_raw(opname, snake, ["resource", "algorithm", "shape", "dtype"],
          ["resource", "algorithm", "shape"])
    def body(resource, algorithm, shape, dtype=default):
        storage = _storage(opname, resource, algorithm)
        return apply1(opdef, _shape_arg(opname, shape),
                      {"dtype": D.as_dtype(dtype), "_gen": storage}, name=opname)
    return body


_float_op("StatefulUniform", "stateful_uniform", G._StatefulUniform, D.float32)
_float_op("StatefulStandardNormalV2", "stateful_standard_normal_v2",
          G._StatefulStandardNormalV2, D.float32)
_float_op("StatefulTruncatedNormal", "stateful_truncated_normal", G._StatefulTruncatedNormal,
          D.float32)
_float_op("StatefulUniformFullInt", "stateful_uniform_full_int", G._StatefulUniformFullInt,
          D.uint64)


@_raw("StatefulUniformInt", "stateful_uniform_int",
      ["resource", "algorithm", "shape", "minval", "maxval"],
      ["resource", "algorithm", "shape", "minval", "maxval"])
def _uniform_int(resource, algorithm, shape, minval, maxval):
    storage = _storage("StatefulUniformInt", resource, algorithm)
    lo = convert_to_tensor(minval)
    hi = convert_to_tensor(maxval, dtype=lo.dtype)
    # TensorFlow's StatefulUniformInt kernel draws a 64-bit word pair per
    # value for 32-bit types too (unlike Generator.uniform, whose stateless
    # kernel uses one word): the int64 draw, cast, gives its numbers.
    out = apply(G._StatefulUniformInt,
                [_shape_arg("StatefulUniformInt", shape), math_ops.cast(lo, D.int64),
                 math_ops.cast(hi, D.int64)], {"dtype": D.int64, "_gen": storage},
                name="StatefulUniformInt")
    return out if lo.dtype == D.int64 else math_ops.cast(out, lo.dtype)

"""The public elementwise functions that take a SparseTensor, as in
TensorFlow: the ones whose value at zero is zero (`tf.abs`, `tf.sqrt`,
`tf.math.negative`, `tf.sin`, ...) and `tf.cast`, applied to the stored
values with the indices and dense shape kept. The list is what TensorFlow
2.21 accepts (checked one API at a time); any other `tf.*` function given a
SparseTensor fails converting it to a tensor, with TensorFlow's message.
"""
import inspect

from ...framework import dispatch
from ...framework.api_export import EXPORTS
from ...framework.sparse_tensor import SparseTensor

__all__ = ["SPARSE_UNARY"]

SPARSE_UNARY = (
    "math.abs", "math.sign", "math.sqrt", "math.negative", "math.square", "math.erf",
    "math.sin", "math.tan", "math.tanh", "math.asin", "math.asinh", "math.atan",
    "math.atanh", "math.bessel_i0e", "math.bessel_i1e", "cast", "compat.v1.to_float",
    "compat.v1.to_double", "compat.v1.to_int32", "compat.v1.to_int64",
    "compat.v1.to_bfloat16", "compat.v1.to_complex64", "compat.v1.to_complex128",
)


def _values_target(api):
    """The implementation of `api` for a SparseTensor first argument: `api`
    on its values, the other arguments passed on."""
    first = next(iter(inspect.signature(api).parameters))

    def on_values(*args, **kwargs):
        if args:
            sp, args = args[0], args[1:]
        else:
            sp = kwargs.pop(first)
        return SparseTensor(sp.indices, api(sp.values, *args, **kwargs), sp.dense_shape)
    on_values.__name__ = f"sparse_{getattr(api, '__name__', 'op')}"
    return on_values, first


def _register():
    done = []
    for name in SPARSE_UNARY:
        api = EXPORTS.get(name)
        if api is None:
            continue  # not exported by rillflow yet
        api = dispatch.dispatch_target_of(api)
        if any(api is d for d in done):
            continue
        done.append(api)
        target, first = _values_target(api)
        dispatch.register(api, {first: SparseTensor}, target, check_target_signature=False)


_register()

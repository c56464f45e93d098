"""`tf.nondifferentiable_batch_function`: a decorator that runs a function on
batches of concurrent calls (TensorFlow's BatchFunction op). rillflow runs
each call as its own batch: the function is traced with `tf.function` for the
arguments' specs (named batch_0, batch_1, ... as TensorFlow names them) and
called, so the results are the function's."""
import functools

from ..framework import errors, nest
from ..framework.api_export import export
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from .polymorphic_function import function


@export("nondifferentiable_batch_function")
def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True, enable_large_batch_splitting=True):
    """Decorator: calls of the function (with tensor arguments) are batched
    by TensorFlow along their first dimension; here each call is computed as
    it comes. Gradients do not flow through it.

    Raises (when called):
      ValueError: for an argument that is not a tensor.
    """
    def decorator(fn):
        traced = function(fn, autograph=autograph)

        @functools.wraps(fn)
        def decorated(*args):
            # TensorFlow reads each argument's dtype first (an AttributeError
            # for a Python number), then checks that all are tensors.
            specs = [TensorSpec(dtype=x.dtype, shape=x.shape, name="batch_" + str(i))
                     for i, x in enumerate(args)]
            for a in args:
                if not isinstance(a, Tensor):
                    raise ValueError("All arguments to functions decorated with "
                                     "`batch_function`  are supposed to be Tensors; found %r"
                                     % (a,))
            out = traced.get_concrete_function(*specs)(*args)
            batch = sum(int(a.shape[0]) for a in args[:1]) if args else 0
            for t in nest.flatten(out):
                # The outputs are split back along their first dimension.
                if t.shape.rank == 0:
                    raise errors.FailedPreconditionError(
                        None, None, "Batched output tensor has 0 dimensions")
                if args and t.shape[0] != batch:
                    raise errors.FailedPreconditionError(
                        None, None, "Batched output tensor's 0th dimension does not equal the "
                        "sum of the 0th dimension sizes of the input tensors")
            return out
        return decorated
    return decorator

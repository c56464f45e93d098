"""`tf.linalg.experimental.conjugate_gradient`: the (preconditioned)
conjugate gradient method for a self-adjoint positive definite
LinearOperator, as a while loop, returning TensorFlow's CGState."""
import collections

from ...framework.api_export import export
from ..control_flow.while_loop import while_loop
from ..core.math_ops import logical_and, greater, less
from ..core.reduction_ops import reduce_any
from .linear_operator import T
from .norm_ops import norm

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(x, y):
    """sum(conj(x) * y) over the last axis."""
    return T.reduce_sum(T.conj(x) * y, axis=-1)


@export("linalg.experimental.conjugate_gradient",
        "compat.v1.linalg.experimental.conjugate_gradient")
def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """Solves operator @ x = rhs by conjugate gradients.

    Stops after `max_iter` steps or once every residual's norm is at most
    tol * |rhs| (per batch member). `preconditioner` approximates the
    operator's inverse; `x` is the starting point (zeros when None).

    Returns:
      CGState(i, x, r, p, gamma): the step count, the solution, the residual,
      the search direction and the (preconditioned) residual's squared norm.

    Raises:
      ValueError: the operator is not hinted self-adjoint and positive definite.
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    with T.scope(name):
        rhs = T.convert(rhs, name="rhs")
        batch = T.broadcast_dynamic_shape(T.shape(rhs)[:-1], operator.batch_shape_tensor())
        if preconditioner is not None:
            batch = T.broadcast_dynamic_shape(batch, preconditioner.batch_shape_tensor())
        rhs_shape = T.concat([batch, T.shape(rhs)[-1:]], 0)
        r0 = T.broadcast_to(rhs, rhs_shape)
        tol = tol * norm(r0, axis=-1)
        if x is None:
            x = T.zeros(rhs_shape, rhs.dtype)
        else:
            x = T.convert(x, dtype=rhs.dtype, name="x")
            r0 = rhs - operator.matvec(x)
        p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
        gamma0 = _dot(r0, p0)

        def cond(i, x, r, p, gamma):
            return logical_and(less(i, max_iter), reduce_any(greater(norm(r, axis=-1), tol)))

        def body(i, x, r, p, gamma):
            z = operator.matvec(p)
            alpha = gamma / _dot(p, z)
            x = x + T.expand_dims(alpha, -1) * p
            r = r - T.expand_dims(alpha, -1) * z
            q = r if preconditioner is None else preconditioner.matvec(r)
            new_gamma = _dot(r, q)
            p = q + T.expand_dims(new_gamma / gamma, -1) * p
            return [i + 1, x, r, p, new_gamma]

        i0 = T.zeros([], "int32")
        out = while_loop(cond, body, [i0, x, r0, p0, gamma0], maximum_iterations=max_iter)
        return CGState(*out)

"""The elementary linear operators: `LinearOperatorFullMatrix`, `Diag`,
`LowerTriangular`, `Identity`, `ScaledIdentity`, `Zeros`, and the wrappers
`Adjoint` and `Inversion`, each with TensorFlow's hints, checks and the
operator types its products, solves, inverse, adjoint and Cholesky factor
return (TensorFlow's registrations)."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from .linear_operator import (LinearOperator, T, _CLASSES, _register_class, check_dtype,
                              combined_non_singular, static_int)


def commuting_self_adjoint(a, b):
    """TensorFlow's hint for a product of commuting operators: self-adjoint
    if both are, not if exactly one is, else unknown."""
    if a.is_self_adjoint and b.is_self_adjoint:
        return True
    if (a.is_self_adjoint is True and b.is_self_adjoint is False) or \
            (a.is_self_adjoint is False and b.is_self_adjoint is True):
        return False
    return None


def commuting_positive_definite(a, b):
    if a.is_positive_definite and b.is_positive_definite and a.is_self_adjoint and \
            b.is_self_adjoint:
        return True
    return None


def operator_hint(operator, attr, provided, message):
    """The operator's hint where it has one, else the provided one.

    Raises:
      ValueError: `message`, when the two contradict each other.
    """
    op_hint = getattr(operator, attr)
    if (op_hint is False and provided) or (op_hint and provided is False):
        raise ValueError(message)
    return op_hint if op_hint is not None else provided


def _batch_broadcast(a, b):
    return T.broadcast_static_shape(a, b)


@export("linalg.LinearOperatorFullMatrix", "compat.v1.linalg.LinearOperatorFullMatrix")
@_register_class("FullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """A (batch of) dense M x N matrix as an operator."""

    _composite_tensor_fields = ("matrix",)
    _experimental_parameter_ndims_to_matrix_ndims = {"matrix": 2}

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        """Wraps `matrix` [..., M, N] (float16/32/64 or complex64/128).

        Raises:
          TypeError: another dtype. ValueError: rank below 2.
        """
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with T.scope(name):
            m = T.nonref(matrix, name="matrix")
        if m.dtype not in (D.float16, D.float32, D.float64, D.complex64, D.complex128):
            raise TypeError("Argument `matrix` must have dtype in [tf.float16, tf.float32, "
                            "tf.float64, tf.complex64, tf.complex128]. Received: "
                            f"{m.dtype!s}.")
        if m.shape.rank is not None and m.shape.rank < 2:
            raise ValueError(f"Argument `matrix` must have at least 2 dimensions. "
                             f"Received: {m}.")
        self._matrix = m
        super().__init__(dtype=m.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters, name=name)

    @property
    def matrix(self):
        """The wrapped matrix."""
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return T.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


def _check_diag_hints(diag, is_self_adjoint, is_square):
    if is_square is False:
        raise ValueError("Only square diagonal operators currently supported.")
    if not diag.dtype.is_complex:
        if is_self_adjoint is False:
            raise ValueError("A real diagonal operator is always self adjoint.")
        is_self_adjoint = True
    return is_self_adjoint


def _modulus_nonzero(x, message):
    return T.assert_less(T.zeros([], x.dtype.real_dtype), T.abs(x), message=message)


@export("linalg.LinearOperatorDiag", "compat.v1.linalg.LinearOperatorDiag")
@_register_class("Diag")
class LinearOperatorDiag(LinearOperator):
    """A (batch of) diagonal matrix given by its diagonal [..., N]."""

    _composite_tensor_fields = ("diag",)
    _experimental_parameter_ndims_to_matrix_ndims = {"diag": 1}

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        """Raises:
          ValueError: `diag` of rank 0, is_square False, or is_self_adjoint
            False for a real diagonal.
        """
        parameters = dict(diag=diag, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with T.scope(name):
            d = T.nonref(diag, name="diag")
        if d.shape.rank is not None and d.shape.rank < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {d!s}")
        self._diag = d
        is_self_adjoint = _check_diag_hints(d, is_self_adjoint, is_square)
        super().__init__(dtype=d.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def diag(self):
        """The diagonal."""
        return self._diag

    def _shape(self):
        s = self._diag.shape
        if s.rank is None:
            return TensorShape(None)
        return s.concatenate([s[-1]])

    def _shape_tensor(self):
        ds = T.shape(self._diag)
        return T.concat([ds, ds[-1:]], 0)

    def _term(self, adjoint):
        return T.conj(self._diag) if adjoint else self._diag

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        return T.expand_dims(self._term(adjoint), -1) * x

    def _matvec(self, x, adjoint=False):
        return self._term(adjoint) * x

    def _determinant(self):
        return T.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        out = T.reduce_sum(T.log(T.abs(self._diag)), axis=-1)
        return out

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        return rhs * T.expand_dims(1. / self._term(adjoint), -1)

    def _solvevec(self, rhs, adjoint=False):
        return rhs / self._term(adjoint)

    def _to_dense(self):
        return T.matrix_diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return T.set_diag(x, self._diag + T.matrix_diag_part(x))

    def _eigvals(self):
        return self._diag

    def _cond(self):
        a = T.abs(self._diag)
        return T.reduce_max(a, axis=-1) / T.reduce_min(a, axis=-1)

    def _assert_non_singular(self):
        return _modulus_nonzero(self._diag, "Singular operator:  Diagonal contained zero "
                                            "values.")

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            msg = ("Diagonal operator had diagonal entries with non-positive real part, "
                   "thus was not positive definite.")
        else:
            msg = ("Real diagonal operator had non-positive diagonal entries, thus was not "
                   "positive definite.")
        return T.assert_positive(T.real(self._diag) if self.dtype.is_complex else self._diag,
                                 message=msg)

    def _assert_self_adjoint(self):
        if not self.dtype.is_complex:
            return T.no_op()
        return T.assert_equal(T.zeros([], self.dtype.real_dtype), T.imag(self._diag),
                              message="This diagonal operator contained non-zero imaginary "
                                      "values.  Thus it was not self-adjoint.")

    def _linop_adjoint(self):
        return LinearOperatorDiag(T.conj(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_inverse(self):
        return LinearOperatorDiag(1. / self._diag, is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorDiag(T.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True,
                                  is_square=True)

    def _linop_matmul(self, left, right):
        return _diag_matmul(left, right) or super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        return _diag_solve(left, right) or super()._linop_solve(left, right)


def _diag_of(op):
    """The diagonal of a Diag or ScaledIdentity operator as a tensor, else None."""
    if isinstance(op, LinearOperatorDiag):
        return op.diag
    if isinstance(op, LinearOperatorScaledIdentity):
        return T.expand_dims(op.multiplier, -1) * T.ones(
            [op.domain_dimension_tensor()], op.dtype)
    return None


def _diag_matmul(left, right):
    """TensorFlow's products with a diagonal factor: Diag @ Diag (or with a
    ScaledIdentity) is Diag, Diag @ LowerTriangular and LowerTriangular @ Diag
    are LowerTriangular; None for the other pairs."""
    if isinstance(right, _CLASSES["Identity"]) and not isinstance(
            right, LinearOperatorScaledIdentity):
        return left
    if isinstance(right, _CLASSES["Zeros"]):
        return None
    dl, dr = _diag_of(left), _diag_of(right)
    if dl is not None and dr is not None and (isinstance(left, LinearOperatorDiag) or
                                              isinstance(right, LinearOperatorDiag)):
        if isinstance(left, LinearOperatorDiag) and isinstance(right, LinearOperatorDiag):
            d = left.diag * right.diag
        elif isinstance(left, LinearOperatorDiag):
            d = left.diag * T.expand_dims(right.multiplier, -1)
        else:
            d = T.expand_dims(left.multiplier, -1) * right.diag
        return LinearOperatorDiag(d, is_non_singular=combined_non_singular(left, right),
                                  is_self_adjoint=commuting_self_adjoint(left, right),
                                  is_positive_definite=commuting_positive_definite(left, right),
                                  is_square=True)
    if isinstance(left, LinearOperatorDiag) and isinstance(right,
                                                           LinearOperatorLowerTriangular):
        return LinearOperatorLowerTriangular(
            T.expand_dims(left.diag, -1) * right.to_dense(),
            is_non_singular=combined_non_singular(left, right), is_square=True)
    if isinstance(left, LinearOperatorLowerTriangular) and isinstance(right,
                                                                      LinearOperatorDiag):
        return LinearOperatorLowerTriangular(
            left.to_dense() * T.expand_dims(right.diag, -2),
            is_non_singular=combined_non_singular(left, right), is_square=True)
    return None


def _diag_solve(left, right):
    """TensorFlow's solves with a diagonal left side (see `_diag_matmul`)."""
    if isinstance(right, _CLASSES["Identity"]) and not isinstance(
            right, LinearOperatorScaledIdentity):
        return left.inverse()
    dl, dr = _diag_of(left), _diag_of(right)
    if dl is not None and dr is not None and (isinstance(left, LinearOperatorDiag) or
                                              isinstance(right, LinearOperatorDiag)):
        if isinstance(left, LinearOperatorDiag) and isinstance(right, LinearOperatorDiag):
            d = right.diag / left.diag
        elif isinstance(left, LinearOperatorDiag):
            d = T.expand_dims(right.multiplier, -1) / left.diag
        else:
            d = right.diag / T.expand_dims(left.multiplier, -1)
        return LinearOperatorDiag(d, is_non_singular=combined_non_singular(left, right),
                                  is_self_adjoint=commuting_self_adjoint(left, right),
                                  is_positive_definite=commuting_positive_definite(left, right),
                                  is_square=True)
    if isinstance(left, LinearOperatorDiag) and isinstance(right,
                                                           LinearOperatorLowerTriangular):
        return LinearOperatorLowerTriangular(
            right.to_dense() / T.expand_dims(left.diag, -1),
            is_non_singular=combined_non_singular(left, right), is_square=True)
    return None


@export("linalg.LinearOperatorLowerTriangular", "compat.v1.linalg.LinearOperatorLowerTriangular")
@_register_class("LowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """A (batch of) square lower-triangular matrix; entries above the
    diagonal of `tril` are ignored."""

    _composite_tensor_fields = ("tril",)
    _experimental_parameter_ndims_to_matrix_ndims = {"tril": 2}

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        """Raises:
          ValueError: is_square False, or `tril` of rank below 2.
        """
        parameters = dict(tril=tril, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with T.scope(name):
            t = T.nonref(tril, name="tril")
        check_dtype(t, "tril")
        if t.shape.rank is not None and t.shape.rank < 2:
            raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {t!s}")
        self._tril = t
        super().__init__(dtype=t.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def tril(self):
        """The matrix whose lower triangle is the operator."""
        return self._tril

    def _get_tril(self):
        return T.band_part(self._tril, -1, 0)

    def _get_diag(self):
        return T.matrix_diag_part(self._tril)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return T.shape(self._tril)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        return T.reduce_prod(self._get_diag(), axis=-1)

    def _log_abs_determinant(self):
        return T.reduce_sum(T.log(T.abs(self._get_diag())), axis=-1)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        return T.triangular_solve(self._get_tril(), rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _diag_part(self):
        return self._get_diag()

    def _eigvals(self):
        return self._get_diag()

    def _assert_non_singular(self):
        return _modulus_nonzero(self._get_diag(), "Singular operator:  Diagonal contained "
                                                  "zero values.")

    def _linop_matmul(self, left, right):
        return _diag_matmul(left, right) or super()._linop_matmul(left, right)


def _check_num_rows(n, what="num_rows"):
    if isinstance(n, Tensor):
        if not n.dtype.is_integer:
            raise TypeError(f"Argument {what} must be integer type.  Found: {n!s}")
        v = static_int(n)
    elif isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        v = int(n)
    else:
        t = T.convert(n)
        if not t.dtype.is_integer:
            raise TypeError(f"Argument {what} must be integer type.  Found: {t!s}")
        v = static_int(t)
    if v is not None and v < 0:
        raise ValueError(f"Argument {what} must be non-negative.  Found: {v}")
    return v


class _BaseIdentity(LinearOperator):
    """What Identity and ScaledIdentity share: n x n, batch shape apart."""

    def _min_matrix_dim(self):
        return self._num_rows_static

    def _ones_diag(self):
        batch = self.batch_shape.as_list() if self.batch_shape.is_fully_defined() else \
            self.batch_shape_tensor()
        n = self._num_rows_static if self._num_rows_static is not None else \
            self.domain_dimension_tensor()
        if isinstance(batch, list):
            return T.ones(batch + [n], self.dtype)
        return T.ones(T.concat([batch, [n]], 0), self.dtype)

    def _shape_tensor(self):
        return T.concat([self.batch_shape_tensor(), [self._num_rows, self._num_rows]], 0)


@export("linalg.LinearOperatorIdentity", "compat.v1.linalg.LinearOperatorIdentity")
@_register_class("Identity")
class LinearOperatorIdentity(_BaseIdentity):
    """The identity matrix of size `num_rows`, optionally batched."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        """Raises:
          ValueError: a hint set False, or negative sizes. TypeError: a
            non-integer num_rows.
        """
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = D.as_dtype(dtype or D.float32)
        if not is_self_adjoint:
            raise ValueError("An identity operator is always self adjoint.")
        if not is_non_singular:
            raise ValueError("An identity operator is always non-singular.")
        if not is_positive_definite:
            raise ValueError("An identity operator is always positive-definite.")
        if not is_square:
            raise ValueError("An identity operator is always square.")
        self._num_rows_static = _check_num_rows(num_rows)
        self._num_rows = T.convert(num_rows, dtype=D.int32) if self._num_rows_static is None \
            else self._num_rows_static
        self._batch_shape_arg = None if batch_shape is None else _static_batch(batch_shape)
        self._assert_proper_shapes = assert_proper_shapes
        super().__init__(dtype=dtype, is_non_singular=True, is_self_adjoint=True,
                         is_positive_definite=True, is_square=True, parameters=parameters,
                         name=name)

    def _shape(self):
        batch = TensorShape([]) if self._batch_shape_arg is None else \
            TensorShape(self._batch_shape_arg)
        return batch.concatenate([self._num_rows_static, self._num_rows_static])

    def _possibly_broadcast(self, x):
        if self._batch_shape_arg is None:
            return x
        special = TensorShape(list(self._batch_shape_arg) + [1, 1])
        if x.shape.rank is not None and _batch_broadcast(x.shape, special) == x.shape:
            return x
        return x + T.zeros(special.as_list(), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        return self._possibly_broadcast(x)

    def _matvec(self, x, adjoint=False):
        if self._batch_shape_arg is None:
            return x
        special = list(self._batch_shape_arg) + [1]
        if x.shape.rank is not None and _batch_broadcast(x.shape, TensorShape(special)) == \
                x.shape:
            return x
        return x + T.zeros(special, self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._matvec(rhs)

    def _batch_ones(self):
        return T.ones(self.batch_shape.as_list() if self.batch_shape.is_fully_defined()
                      else self.batch_shape_tensor(), self.dtype)

    def _determinant(self):
        return self._batch_ones()

    def _log_abs_determinant(self):
        return T.zeros_like(self._batch_ones())

    def _trace(self):
        return self._batch_ones() * T.cast(self.domain_dimension_tensor(), self.dtype)

    def _diag_part(self):
        return self._ones_diag()

    def _to_dense(self):
        batch = self.batch_shape.as_list() if self.batch_shape.is_fully_defined() else \
            self.batch_shape_tensor()
        return T.eye(self._num_rows, batch_shape=batch or None, dtype=self.dtype)

    def _add_to_tensor(self, x):
        return T.set_diag(x, 1 + T.matrix_diag_part(x))

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return self._batch_ones()

    def _assert_non_singular(self):
        return T.no_op()

    def _assert_positive_definite(self):
        return T.no_op()

    def _assert_self_adjoint(self):
        return T.no_op()

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self

    def _linop_matmul(self, left, right):
        if isinstance(left, LinearOperatorIdentity) and not isinstance(
                left, LinearOperatorScaledIdentity):
            if isinstance(right, _CLASSES["Zeros"]):
                return super()._linop_matmul(left, right)
            return right
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        return right


def _static_batch(batch_shape):
    if isinstance(batch_shape, Tensor):
        v = static_int_list(batch_shape)
        if v is None:
            raise ValueError("batch_shape must be known statically")
        batch_shape = v
    b = [int(d) for d in batch_shape]
    if any(d < 0 for d in b):
        raise ValueError("Argument batch_shape must be non-negative.")
    return b


def static_int_list(t):
    from ..core import op_util as U
    v = U.constant_value(t)
    return None if v is None else [int(d) for d in np.asarray(v).reshape(-1)]


@export("linalg.LinearOperatorScaledIdentity", "compat.v1.linalg.LinearOperatorScaledIdentity")
@_register_class("ScaledIdentity")
class LinearOperatorScaledIdentity(_BaseIdentity):
    """`multiplier` times the identity of size `num_rows`; the multiplier's
    shape is the batch shape."""

    _composite_tensor_fields = ("multiplier",)
    _experimental_parameter_ndims_to_matrix_ndims = {"multiplier": 0}

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        """Raises:
          ValueError: is_square False or negative num_rows.
        """
        parameters = dict(num_rows=num_rows, multiplier=multiplier,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        with T.scope(name):
            m = T.nonref(multiplier, name="multiplier")
        self._multiplier = m
        if not m.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True
        self._num_rows_static = _check_num_rows(num_rows)
        self._num_rows = T.convert(num_rows, dtype=D.int32) if self._num_rows_static is None \
            else self._num_rows_static
        self._assert_proper_shapes = assert_proper_shapes
        super().__init__(dtype=m.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def multiplier(self):
        """The scalar (or batch of scalars) multiplying the identity."""
        return self._multiplier

    def _shape(self):
        return self._multiplier.shape.concatenate([self._num_rows_static,
                                                   self._num_rows_static])

    def _m(self, adjoint=False, extra=2):
        m = T.conj(self._multiplier) if adjoint else self._multiplier
        for _ in range(extra):
            m = T.expand_dims(m, -1)
        return m

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        return x * self._m(adjoint)

    def _matvec(self, x, adjoint=False):
        return x * self._m(adjoint, 1)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._m(adjoint)

    def _solvevec(self, rhs, adjoint=False):
        return rhs / self._m(adjoint, 1)

    def _n(self, dtype):
        return T.cast(self.domain_dimension_tensor(), dtype)

    def _determinant(self):
        return self._multiplier ** self._n(self.dtype)

    def _log_abs_determinant(self):
        return self._n(self.dtype.real_dtype) * T.log(T.abs(self._multiplier))

    def _trace(self):
        return self._multiplier * self._n(self.dtype)

    def _diag_part(self):
        return self._ones_diag() * self._m(extra=1)

    def _to_dense(self):
        return T.eye(self._num_rows, dtype=self.dtype) * self._m()

    def _add_to_tensor(self, x):
        return T.set_diag(x, self._m(extra=1) + T.matrix_diag_part(x))

    def _eigvals(self):
        return self._ones_diag() * self._m(extra=1)

    def _cond(self):
        return T.ones_like(T.abs(self._multiplier))

    def _assert_non_singular(self):
        return _modulus_nonzero(self._multiplier, "LinearOperator was singular")

    def _assert_positive_definite(self):
        return T.assert_positive(T.real(self._multiplier),
                                 message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        return T.assert_equal(T.imag(self._multiplier), T.zeros([], self.dtype.real_dtype),
                              message="LinearOperator was not self-adjoint")

    def _new(self, m, **hints):
        return LinearOperatorScaledIdentity(self._num_rows, m, **hints)

    def _linop_adjoint(self):
        return self._new(T.conj(self._multiplier), is_non_singular=self.is_non_singular,
                         is_self_adjoint=self.is_self_adjoint,
                         is_positive_definite=self.is_positive_definite)

    def _linop_inverse(self):
        return self._new(1. / self._multiplier, is_non_singular=self.is_non_singular,
                         is_self_adjoint=True if not self.dtype.is_complex else None,
                         is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return self._new(T.sqrt(self._multiplier), is_non_singular=True,
                         is_self_adjoint=True, is_positive_definite=True)

    def _linop_matmul(self, left, right):
        if isinstance(right, LinearOperatorScaledIdentity):
            return self._new(left.multiplier * right.multiplier,
                             is_non_singular=combined_non_singular(left, right),
                             is_self_adjoint=commuting_self_adjoint(left, right),
                             is_positive_definite=commuting_positive_definite(left, right))
        return _diag_matmul(left, right) or super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if isinstance(right, LinearOperatorScaledIdentity):
            return self._new(right.multiplier / left.multiplier,
                             is_non_singular=combined_non_singular(left, right),
                             is_self_adjoint=commuting_self_adjoint(left, right),
                             is_positive_definite=commuting_positive_definite(left, right))
        return _diag_solve(left, right) or super()._linop_solve(left, right)


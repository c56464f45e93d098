"""The zero operator and the operators made from others: `LinearOperatorZeros`,
`LinearOperatorAdjoint`, `LinearOperatorInversion` and
`LinearOperatorComposition` (the generic result of an operator product),
with TensorFlow's hints, names and checks."""
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.tensor_shape import TensorShape
from .linear_operator import LinearOperator, T, _register_class, _zeros_product
from .linear_operator_basic import _batch_broadcast, _check_num_rows, _static_batch
from .linear_operator_basic import operator_hint
from .linear_operator_lists import (_all_hint, _batch_of, _batch_tensor_of, _operator_list,
                                    _same_dtype)
from .linear_operator_lists import _product_of, _sum_of


@export("linalg.LinearOperatorZeros", "compat.v1.linalg.LinearOperatorZeros")
@_register_class("Zeros")
class LinearOperatorZeros(LinearOperator):
    """The zero matrix of shape batch_shape + [num_rows, num_columns]."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        """Raises:
          ValueError: hints a zero matrix cannot have, or is_square with
            num_rows != num_columns.
        """
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape,
                          dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = D.as_dtype(dtype or D.float32)
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        self._num_rows_static = _check_num_rows(num_rows)
        if num_columns is None:
            num_columns = num_rows
        self._num_columns_static = _check_num_rows(num_columns, "num_columns")
        if is_square and self._num_rows_static is not None and \
                self._num_columns_static is not None and \
                self._num_rows_static != self._num_columns_static:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._num_rows_static}) != "
                             f"num_columns({self._num_columns_static})")
        self._batch_shape_arg = None if batch_shape is None else _static_batch(batch_shape)
        self._assert_proper_shapes = assert_proper_shapes
        super().__init__(dtype=dtype, is_non_singular=False,
                         is_self_adjoint=is_self_adjoint if is_square else None,
                         is_positive_definite=False, is_square=is_square,
                         parameters=parameters, name=name)

    def _batch(self):
        return [] if self._batch_shape_arg is None else list(self._batch_shape_arg)

    def _shape(self):
        return TensorShape(self._batch() + [self._num_rows_static, self._num_columns_static])

    def _shape_tensor(self):
        return T.convert(self._shape().as_list(), dtype=D.int32)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        rows = self.domain_dimension if adjoint else self.range_dimension
        batch = _batch_broadcast(TensorShape(self._batch()), x.shape[:-2])
        return T.zeros(batch.as_list() + [rows, x.shape[-1]], self.dtype)

    def _matvec(self, x, adjoint=False):
        rows = self.domain_dimension if adjoint else self.range_dimension
        batch = _batch_broadcast(TensorShape(self._batch()), x.shape[:-1])
        return T.zeros(batch.as_list() + [rows], self.dtype)

    def _determinant(self):
        return T.zeros(self._batch(), self.dtype)

    def _log_abs_determinant(self):
        return T.log(T.zeros(self._batch(), self.dtype.real_dtype))

    def _trace(self):
        return T.zeros(self._batch(), self.dtype)

    def _diag_part(self):
        return T.zeros(self._batch() + [min(self._num_rows_static,
                                            self._num_columns_static)], self.dtype)

    def _to_dense(self):
        return T.zeros(self._shape().as_list(), self.dtype)

    def _add_to_tensor(self, x):
        return T.identity(x)

    def _eigvals(self):
        return self._diag_part()

    def _assert_non_singular(self):
        raise ValueError("Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise ValueError("Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return T.no_op()

    def _linop_adjoint(self):
        return LinearOperatorZeros(self._num_columns_static, self._num_rows_static,
                                   batch_shape=self._batch_shape_arg, dtype=self.dtype,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_square=self.is_square)

    def _linop_matmul(self, left, right):
        return _zeros_product(left, right)


def _swap_last2(s):
    if s.rank is None:
        return TensorShape(None)
    d = s.as_list()
    return TensorShape(d[:-2] + [d[-1], d[-2]])


def _init_mirrored(self, init, operator, relation, suffix, is_non_singular,
                   is_self_adjoint, is_positive_definite, is_square, name):
    """Constructs `self`, the `relation` ("adjoint" or "inverse") of
    `operator`, through `init` (the base constructor): it has each hint's
    property exactly when the operator has it, so each hint is the
    operator's where it has one, else the given one; named `name`, else the
    operator's name plus `suffix`.

    Raises:
      ValueError: a given hint contradicting the operator's.
    """
    parameters = dict(operator=operator, is_non_singular=is_non_singular,
                      is_self_adjoint=is_self_adjoint,
                      is_positive_definite=is_positive_definite, is_square=is_square,
                      name=name)
    self._operator = operator
    given = (("non-singular", "is_non_singular", is_non_singular),
             ("self-adjoint", "is_self_adjoint", is_self_adjoint),
             ("positive-definite", "is_positive_definite", is_positive_definite),
             ("square", "is_square", is_square))
    is_non_singular, is_self_adjoint, is_positive_definite, is_square = (
        operator_hint(operator, attr, hint,
                      f"An operator is {word} if and only if its {relation} is {word}.")
        for word, attr, hint in given)
    init(dtype=operator.dtype, is_non_singular=is_non_singular,
         is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
         is_square=is_square, parameters=parameters, name=name or operator.name + suffix)


@export("linalg.LinearOperatorAdjoint", "compat.v1.linalg.LinearOperatorAdjoint")
@_register_class("Adjoint")
class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose of another operator, computed through it."""

    _composite_tensor_fields = ("operator",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operator": 0}

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Hints default to the operator's.

        Raises:
          ValueError: a hint contradicting the operator's.
        """
        _init_mirrored(self, super().__init__, operator, "adjoint", "_adjoint",
                       is_non_singular, is_self_adjoint, is_positive_definite, is_square, name)

    @property
    def operator(self):
        """The operator this is the adjoint of."""
        return self._operator

    def _shape(self):
        return _swap_last2(self._operator.shape)

    def _shape_tensor(self):
        s = self._operator.shape_tensor()
        return T.concat([s[:-2], s[-1:], s[-2:-1]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _determinant(self):
        d = self._operator.determinant()
        return T.conj(d) if self.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        t = self._operator.trace()
        return T.conj(t) if self.dtype.is_complex else t

    def _diag_part(self):
        d = self._operator.diag_part()
        return T.conj(d) if self.dtype.is_complex else d

    def _to_dense(self):
        return T.adjoint(self._operator.to_dense())

    def _eigvals(self):
        e = self._operator.eigvals()
        return T.conj(e) if e.dtype.is_complex else e

    def _cond(self):
        return self._operator.cond()

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _linop_adjoint(self):
        return self._operator


@export("linalg.LinearOperatorInversion", "compat.v1.linalg.LinearOperatorInversion")
@_register_class("Inversion")
class LinearOperatorInversion(LinearOperator):
    """The inverse of another (square, non-singular) operator: its products
    are the operator's solves and its solves the operator's products."""

    _composite_tensor_fields = ("operator",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operator": 0}

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises:
          ValueError: the operator (or a hint) is singular or not square, or a
            hint contradicts the operator's.
        """
        for attr, given in (("is_non_singular", is_non_singular), ("is_square", is_square)):
            if getattr(operator, attr) is False or given is False:
                raise ValueError(
                    f"Argument `{attr}` or argument `operator` must have supplied hint "
                    f"`{attr}` equal to `True` or `None`. Found `operator.{attr}`: "
                    f"{getattr(operator, attr)}, `{attr}`: {given}.")
        _init_mirrored(self, super().__init__, operator, "inverse", "_inv",
                       is_non_singular, is_self_adjoint, is_positive_definite, is_square, name)

    @property
    def operator(self):
        """The operator this is the inverse of."""
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.solvevec(x, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.matvec(rhs, adjoint=adjoint)

    def _determinant(self):
        return 1. / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1. * self._operator.log_abs_determinant()

    def _cond(self):
        return self._operator.cond()

    def _eigvals(self):
        return 1. / self._operator.eigvals()

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _linop_inverse(self):
        return self._operator

    def _linop_solve(self, left, right):
        return left.operator.matmul(right)


@export("linalg.LinearOperatorComposition", "compat.v1.linalg.LinearOperatorComposition")
@_register_class("Composition")
class LinearOperatorComposition(LinearOperator):
    """The product A1 A2 ... An of operators, applied right to left."""

    _composite_tensor_fields = ("operators",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operators": 0}

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises:
          ValueError: no operators, dimensions that do not chain, or
            is_non_singular False for non-singular factors. TypeError: mixed
            dtypes.
        """
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        operators = _operator_list(operators)
        dtype = _same_dtype(operators, lambda d: d.name)
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The composition of non-singular operators is always "
                                    "non-singular.")
        self._operators = operators
        super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters,
                         name=name or "_o_".join(op.name for op in operators))
        self.shape  # noqa: B018  (checks the dimensions chain)

    @property
    def operators(self):
        """The factors, leftmost first."""
        return self._operators

    def _shape(self):
        domain = self._operators[0].domain_dimension
        for op in self._operators[1:]:
            self._check_dims(domain, op.range_dimension)
            domain = op.domain_dimension
        return _batch_of(self._operators).concatenate(
            [self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _shape_tensor(self):
        return T.concat([_batch_tensor_of(self._operators),
                         [self._operators[0].range_dimension_tensor(),
                          self._operators[-1].domain_dimension_tensor()]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else list(reversed(self._operators))
        out = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.matmul(out, adjoint=adjoint)
        return out

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self._operators)) if adjoint else self._operators
        out = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.solve(out, adjoint=adjoint)
        return out

    def _determinant(self):
        return _product_of(self._operators, "determinant")

    def _log_abs_determinant(self):
        return _sum_of(self._operators, "log_abs_determinant")

    def _to_dense(self):
        out = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            out = op.matmul(out)
        return out

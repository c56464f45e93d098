"""`tf.linalg.LinearOperator`: the base of the structured matrices (the
`LinearOperator*` classes of the sibling `linear_operator_*` modules).

An operator stands for a (batch of) M x N matrix without necessarily holding
it: subclasses give `_shape`/`_shape_tensor` and `_matmul`, and override the
other `_` methods where their structure gives a cheaper or exact answer. The
public methods here do TensorFlow's argument checks (dtypes, dimensions, the
`is_*` hints) and fall back, as TensorFlow does, on the dense matrix.

An operator is a composite tensor: its tensor parameters (and those of the
operators it holds) are its components, the rest of its parameters are part
of its spec, so it can be passed to and returned from a `tf.function`.

What `matmul`, `solve`, `inverse`, `adjoint` and `cholesky` return for
operators is decided by the `_linop_*` methods, which subclasses override
with TensorFlow's registrations; classes that the base must build (a
Composition, an Inversion...) are looked up in `_CLASSES`, filled as each
module defines them, so that this module imports none of them.
"""
import types

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from .linear_operator_spec import LinearOperatorSpec, _flat, _spec_of, slice_operator
from ..core import op_util as U
from ..core.broadcast_ops import broadcast_dynamic_shape, broadcast_static_shape, broadcast_to
from ..core.broadcast_ops import where
from ..core.constant_ops import ones, zeros, zeros_like, ones_like, fill
from ..core.creation_ops import eye, range as _range
from ..core.dim_ops import expand_dims, squeeze, transpose
from ..core.join_ops import concat, stack, unstack
from ..core.math_ops import (cast, conj, equal, maximum, minimum, not_equal, add, multiply,
                             truediv, less, logical_and)
from ..core.reduction_ops import reduce_max, reduce_min, reduce_prod, reduce_sum, reduce_all
from ..core.shape_ops import identity, rank, reshape, shape, size
from ..core.special_math_ops import imag, real, complex as _complex
from ..core.unary_ops import abs as _abs, exp, log, sqrt, reciprocal, sign, square
from ..core.gather_ops import gather
from ..core.split_pad_ops import pad
from ..debugging.check_ops import assert_equal, assert_less, assert_positive
from ..control_flow.control_ops import no_op
from ..state.module import Module
from .decomposition_ops import cholesky as _cholesky, svd
from .eig_ops import eigvalsh
from .linalg_util import _scope
from .matmul_ops import matmul as _matmul
from .solve_ops import det, slogdet, solve as _solve, triangular_solve
from .structure_ops import adjoint as _adjoint_t, band_part, diag as _diag, diag_part as _dpart
from .structure_ops import set_diag, matrix_transpose
from .linalg_extra_ops import cholesky_solve

# The ops the operator modules compose, under TensorFlow's short names.
T = types.SimpleNamespace(
    convert=convert_to_tensor, nonref=lambda *a, **k: convert_nonref(*a, **k),
    broadcast_to=broadcast_to, where=where, ones=ones, zeros=zeros,
    zeros_like=zeros_like, ones_like=ones_like, fill=fill, eye=eye, range=_range,
    expand_dims=expand_dims, squeeze=squeeze, transpose=transpose, concat=concat, stack=stack,
    unstack=unstack, cast=cast, conj=conj, equal=equal, not_equal=not_equal, maximum=maximum,
    minimum=minimum, add=add, multiply=multiply, truediv=truediv, less=less,
    logical_and=logical_and, reduce_max=reduce_max, reduce_min=reduce_min,
    reduce_prod=reduce_prod, reduce_sum=reduce_sum, reduce_all=reduce_all, identity=identity,
    rank=rank, reshape=reshape, shape=shape, size=size, imag=imag, real=real,
    complex=_complex, abs=_abs, exp=exp, log=log, sqrt=sqrt, reciprocal=reciprocal, sign=sign,
    square=square, gather=gather, pad=pad, cholesky=_cholesky, svd=svd, eigvalsh=eigvalsh,
    matmul=_matmul, det=det, slogdet=slogdet, solve=_solve, triangular_solve=triangular_solve,
    adjoint=_adjoint_t, band_part=band_part, matrix_diag=_diag, matrix_diag_part=_dpart,
    set_diag=set_diag, matrix_transpose=matrix_transpose, cholesky_solve=cholesky_solve,
    assert_equal=assert_equal, assert_less=assert_less, assert_positive=assert_positive,
    no_op=no_op, broadcast_static_shape=broadcast_static_shape,
    broadcast_dynamic_shape=broadcast_dynamic_shape, scope=_scope)

# Operator classes by short name ("Composition", "Inversion", ...), for the
# base's generic results.
_CLASSES = {}

_ALLOWED = (D.float16, D.float32, D.float64, D.complex64, D.complex128)


def _register_class(short):
    """Class decorator: records an operator class under its short name."""
    def deco(cls):
        _CLASSES[short] = cls
        return cls
    return deco


def convert_nonref(x, dtype=None, name=None):
    """x as a tensor, except that a variable stays a variable (read where it
    is used, so that gradients reach it), as TensorFlow's operators keep them.

    Raises:
      TypeError: a variable of another dtype than `dtype`.
    """
    if hasattr(x, "_storage") and hasattr(x, "assign"):
        if dtype is not None and x.dtype.base_dtype != D.as_dtype(dtype):
            raise TypeError(f"Expected {name or 'argument'} to have dtype "
                            f"{D.as_dtype(dtype)!s}, got a variable of {x.dtype!s}")
        return x
    return convert_to_tensor(x, dtype=dtype, name=name)


def is_operator(x):
    """Whether x is a LinearOperator."""
    return isinstance(x, LinearOperator)


def check_dtype(tensor, name, allowed=_ALLOWED):
    """TensorFlow's `assert_... dtype` of the operator constructors."""
    if tensor.dtype.base_dtype not in allowed:
        raise TypeError(f"Argument {name} must have dtype in "
                        f"{[d.name for d in allowed]}. Found: {tensor.dtype.name}")


def static_int(x):
    """A Python int from an int, a NumPy integer or a tensor with a known
    value, else None."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, Tensor):
        v = U.constant_value(x)
        return None if v is None else int(v)
    return None


def shape_tensor_of(dims, static):
    """`static` (a TensorShape) as an int32 tensor when fully known, else the
    tensor `dims()` builds."""
    if static.is_fully_defined():
        return convert_to_tensor(static.as_list(), dtype=D.int32)
    return dims()


def combined_non_singular(a, b):
    """TensorFlow's hint for a product: False if either is singular, True if
    both are non-singular, else None."""
    if a.is_non_singular is False or b.is_non_singular is False:
        return False
    return a.is_non_singular and b.is_non_singular


def combined_square(a, b):
    if a.is_square and b.is_square:
        return True
    if a.is_square is False or b.is_square is False:
        return False
    return None


@export("linalg.LinearOperator", "compat.v1.linalg.LinearOperator")
class LinearOperator(Module):
    """Base class of the linear operators: a (batch of) matrix A of shape
    batch_shape + [M, N], defined by how it acts (`matmul`) rather than by
    its entries. A `tf.Module` (its `variables` are those it was built from).

    Subclasses define `_shape()` (a TensorShape), `_shape_tensor()` and
    `_matmul(x, adjoint=False, adjoint_arg=False)`, and may override the other
    `_` methods. The `is_*` hints are promises the caller makes (checked
    against each other here and by the subclasses where TensorFlow does).
    """

    _is_composite_tensor = True
    _is_tensor_like = False
    _is_linear_operator = True

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        """Records the dtype, name, hints and constructor `parameters`.

        Raises:
          ValueError: contradictory hints (a positive definite operator that
            is singular, a non-singular or self-adjoint one that is not square).
        """
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._dtype = D.as_dtype(dtype).base_dtype if dtype is not None else None
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        # A tf.Module, as in TensorFlow: it tracks the variables it holds.
        Module.__init__(self, name=name or type(self).__name__)
        self._graph_parents = list(graph_parents or [])
        self._parameters = dict(parameters) if parameters is not None else {}
        self._cached_shape = None

    # --- composite tensor ----------------------------------------------------------
    # The parameters that are tensors or operators (TensorFlow's name); the
    # subclasses name theirs. Each is read from the attribute `_<name>` where
    # the constructor keeps the converted tensor, else from `parameters`.
    _composite_tensor_fields = ()
    # Per tensor (or operator) parameter, how many of its trailing dimensions
    # are not batch dimensions (TensorFlow's name): what batch slicing slices.
    _experimental_parameter_ndims_to_matrix_ndims = {}

    def __getitem__(self, key):
        """The operator of the batch members `key` selects (integers and
        slices over the batch dimensions)."""
        return slice_operator(self, key)

    def _spec_params(self):
        out = {}
        for k, v in self._parameters.items():
            if k in self._composite_tensor_fields:
                v = getattr(self, "_" + k, v)
                if v is not None and not _has_tensor(v):
                    v = convert_to_tensor(v)
            elif _has_tensor(v):
                v = None  # not a component: left out of the spec
            out[k] = v
        return out

    @property
    def _type_spec(self):
        return LinearOperatorSpec(type(self), {k: _spec_of(v)
                                               for k, v in self._spec_params().items()})

    @property
    def _arg_spec(self):
        return self._type_spec

    def _component_specs(self):
        return self._type_spec._component_specs

    def _to_components(self):
        out = []
        _flat(self._spec_params(), out)
        return out

    def _from_components(self, components):
        return self._type_spec._from_components(components)

    def _trace_key(self):
        return self._type_spec._trace_key()

    # --- properties ----------------------------------------------------------------
    @property
    def dtype(self):
        """The DType of the matrix entries."""
        return self._dtype

    @property
    def name(self):
        """The operator's name."""
        return self._name

    @property
    def parameters(self):
        """The constructor's arguments, as a dict."""
        return dict(self._parameters)

    @property
    def graph_parents(self):
        """Deprecated in TensorFlow: the tensors the operator was built from."""
        return self._graph_parents

    @property
    def is_non_singular(self):
        """The hint that the matrix is invertible (True, False or None)."""
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        """The hint that the matrix equals its conjugate transpose."""
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        """The hint that Re(x^H A x) > 0 for every non-zero x."""
        return self._is_positive_definite

    @property
    def is_square(self):
        """Whether the matrix is square: the hint, or what the static shape says.

        Raises:
          ValueError: the hint said not square but the shape is square.
        """
        auto = self.domain_dimension == self.range_dimension if (
            self.domain_dimension is not None and self.range_dimension is not None) else None
        if self._is_square_set_or_implied_by_hints is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto
        return self._is_square_set_or_implied_by_hints

    @property
    def shape(self):
        """The static TensorShape batch_shape + [M, N]."""
        if self._cached_shape is None:
            self._cached_shape = as_shape(self._shape())
        return self._cached_shape

    def shape_tensor(self, name="shape_tensor"):
        """The shape as a 1-D int32 tensor."""
        with self._op_scope(name):
            return shape_tensor_of(self._shape_tensor, self.shape)

    @property
    def batch_shape(self):
        """The static batch dimensions (all but the last two)."""
        s = self.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch dimensions as a 1-D int32 tensor."""
        with self._op_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=D.int32)
            return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        """The rank of the (batch) matrix: len(batch_shape) + 2 (None if unknown)."""
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        """The rank as an int32 scalar tensor."""
        with self._op_scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank, dtype=D.int32)
            return size(self.shape_tensor())

    @property
    def domain_dimension(self):
        """N, the number of columns (the static value or None)."""
        s = self.shape
        return None if s.rank is None else s[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        """N as an int32 scalar tensor."""
        with self._op_scope(name):
            if self.domain_dimension is not None:
                return convert_to_tensor(self.domain_dimension, dtype=D.int32)
            return self.shape_tensor()[-1]

    @property
    def range_dimension(self):
        """M, the number of rows (the static value or None)."""
        s = self.shape
        return None if s.rank is None else s[-2]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        """M as an int32 scalar tensor."""
        with self._op_scope(name):
            if self.range_dimension is not None:
                return convert_to_tensor(self.range_dimension, dtype=D.int32)
            return self.shape_tensor()[-2]

    def _op_scope(self, name=None):
        return _scope(f"{self.name}/{name}" if name else self.name)

    # --- checks ----------------------------------------------------------------
    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype!s}.  Found: "
                            f"{arg.dtype!s} in tensor {arg!s}")

    def _can_use_cholesky(self):
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def _check_dims(self, a, b):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions {a} and {b} are not compatible")

    def assert_non_singular(self, name="assert_non_singular"):
        """An op (None eagerly) checking that the matrix is invertible: its
        condition number is below 1 / (max(100, M N) eps)."""
        with self._op_scope(name):
            return self._assert_non_singular()

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        s = svd(self.to_dense(), compute_uv=False)
        cond = reduce_max(s, axis=-1) / reduce_min(s, axis=-1)
        return assert_less(cond, self._max_condition_number_to_be_non_singular(),
                           message="Singular matrix up to precision epsilon.")

    def _max_condition_number_to_be_non_singular(self):
        rdt = self.dtype.real_dtype
        eps = np.finfo(rdt.as_numpy_dtype).eps
        mn = cast(self.range_dimension_tensor(), rdt) * cast(self.domain_dimension_tensor(),
                                                             rdt)
        return 1. / (maximum(convert_to_tensor(100., dtype=rdt), mn) * eps)

    def assert_positive_definite(self, name="assert_positive_definite"):
        """An op (None eagerly) checking that the matrix is positive definite
        (by its Cholesky factor, for self-adjoint operators).

        Raises:
          NotImplementedError: no generic check for a non-self-adjoint operator.
        """
        with self._op_scope(name):
            return self._assert_positive_definite()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return assert_positive(_dpart(_cholesky(self.to_dense())),
                                   message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """An op (None eagerly) checking that the matrix equals its adjoint."""
        with self._op_scope(name):
            return self._assert_self_adjoint()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return assert_equal(dense, _adjoint_t(dense),
                            message="Matrix was not equal to its adjoint.")

    # --- products --------------------------------------------------------------
    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """A @ x (or A^H with adjoint, x^H with adjoint_arg); x a tensor
        [..., N, R] or an operator (the result's type follows TensorFlow's
        rules: an operator).

        Raises:
          TypeError: x of another dtype. ValueError: dimensions that do not match.
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            if right.range_dimension is not None and left.domain_dimension is not None and \
                    left.domain_dimension != right.range_dimension:
                raise ValueError(f"Operators are incompatible. Expected `x` to have dimension "
                                 f"{left.domain_dimension} but got {right.range_dimension}.")
            with self._op_scope(name):
                return left._linop_matmul(left, right)
        with self._op_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            arg_dim = -1 if adjoint_arg else -2
            if self.shape.rank is not None and x.shape.rank is not None:
                self._check_dims(self.shape[self_dim], x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError(f"{type(self).__name__} does not implement _matmul")

    def matvec(self, x, adjoint=False, name="matvec"):
        """A @ x for vectors x [..., N] (A^H with adjoint)."""
        with self._op_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            if self.shape.rank is not None and x.shape.rank is not None:
                self._check_dims(self.shape[self_dim], x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    def _matvec(self, x, adjoint=False):
        return squeeze(self.matmul(expand_dims(x, -1), adjoint=adjoint), -1)

    def _linop_matmul(self, left, right):
        if isinstance(right, _CLASSES["Identity"]) and not isinstance(
                right, _CLASSES["ScaledIdentity"]):
            return left
        if isinstance(right, _CLASSES["Zeros"]):
            return _zeros_product(left, right)
        return _CLASSES["Composition"](
            operators=[left, right], is_non_singular=combined_non_singular(left, right),
            is_square=combined_square(left, right))

    # --- determinants, solves --------------------------------------------------
    def _check_square_for_determinant(self):
        """Raises NotImplementedError when the operator is hinted not square."""
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is "
                                      "expected to not be square.")

    def determinant(self, name="det"):
        """det(A) per batch member.

        Raises:
          NotImplementedError: the operator is hinted not square.
        """
        self._check_square_for_determinant()
        with self._op_scope(name):
            return self._determinant()

    def _determinant(self):
        if self._can_use_cholesky():
            return exp(self.log_abs_determinant())
        return det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """log|det(A)| per batch member (real).

        Raises:
          NotImplementedError: the operator is hinted not square.
        """
        self._check_square_for_determinant()
        with self._op_scope(name):
            return self._log_abs_determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            d = _dpart(_cholesky(self.to_dense()))
            return 2. * reduce_sum(log(real(d) if d.dtype.is_complex else d), axis=-1)
        _, logdet = slogdet(self.to_dense())
        return real(logdet) if logdet.dtype.is_complex else logdet

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with A X = rhs (A^H X = rhs with adjoint; rhs^H with adjoint_arg);
        rhs a tensor [..., M, R] or an operator (giving an operator).

        Raises:
          NotImplementedError: the operator is hinted singular or not square.
        """
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            if right.range_dimension is not None and left.domain_dimension is not None and \
                    left.domain_dimension != right.range_dimension:
                raise ValueError(f"Operators are incompatible. Expected `rhs` to have "
                                 f"dimension {left.domain_dimension} but got "
                                 f"{right.range_dimension}.")
            with self._op_scope(name):
                return left._linop_solve(left, right)
        with self._op_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            arg_dim = -1 if adjoint_arg else -2
            if self.shape.rank is not None and rhs.shape.rank is not None:
                self._check_dims(self.shape[self_dim], rhs.shape[arg_dim])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint_t(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return cholesky_solve(*broadcast_matrix_batch(_cholesky(self.to_dense()), rhs))
        return _solve(*broadcast_matrix_batch(self.to_dense(), rhs), adjoint=adjoint)

    def _linop_solve(self, left, right):
        if isinstance(right, _CLASSES["Identity"]) and not isinstance(
                right, _CLASSES["ScaledIdentity"]):
            return left.inverse()
        return _CLASSES["Composition"](
            operators=[left.inverse(), right],
            is_non_singular=combined_non_singular(left, right),
            is_square=combined_square(left, right))

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with A x = rhs for vectors rhs [..., M] (A^H with adjoint)."""
        self._check_solvable()
        with self._op_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            if self.shape.rank is not None and rhs.shape.rank is not None:
                self._check_dims(self.shape[self_dim], rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    def _solvevec(self, rhs, adjoint=False):
        return squeeze(self.solve(expand_dims(rhs, -1), adjoint=adjoint), -1)

    # --- derived operators -----------------------------------------------------
    def adjoint(self, name="adjoint"):
        """The conjugate transpose as an operator (this one when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        with self._op_scope(name):
            return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self):
        return _CLASSES["Adjoint"](self, is_non_singular=self.is_non_singular,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_positive_definite=self.is_positive_definite,
                                   is_square=self.is_square)

    def inverse(self, name="inverse"):
        """The inverse as an operator.

        Raises:
          ValueError: the operator is hinted not square or singular.
        """
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non "
                             "square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a "
                             "singular matrix.")
        with self._op_scope(name):
            return self._linop_inverse()

    def _linop_inverse(self):
        return _CLASSES["Inversion"](self, is_non_singular=self.is_non_singular,
                                     is_self_adjoint=self.is_self_adjoint,
                                     is_positive_definite=self.is_positive_definite,
                                     is_square=self.is_square)

    def cholesky(self, name="cholesky"):
        """The lower Cholesky factor as an operator.

        Raises:
          ValueError: the operator is not hinted self-adjoint and positive definite.
        """
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive "
                             "definite self adjoint matrix.")
        with self._op_scope(name):
            return self._linop_cholesky()

    def _linop_cholesky(self):
        return _CLASSES["LowerTriangular"](_cholesky(self.to_dense()), is_non_singular=True,
                                           is_self_adjoint=False, is_square=True)

    # --- dense views -----------------------------------------------------------
    def to_dense(self, name="to_dense"):
        """The matrix as a dense tensor batch_shape + [M, N]."""
        with self._op_scope(name):
            return self._to_dense()

    def _to_dense(self):
        if self.batch_shape.is_fully_defined():
            batch = self.batch_shape.as_list()
        else:
            batch = self.batch_shape_tensor()
        n = self.domain_dimension
        n = self.domain_dimension_tensor() if n is None else n
        return self.matmul(eye(n, batch_shape=batch, dtype=self.dtype))

    def diag_part(self, name="diag_part"):
        """The main diagonal, batch_shape + [min(M, N)]."""
        with self._op_scope(name):
            return self._diag_part()

    def _diag_part(self):
        return _dpart(self.to_dense())

    def trace(self, name="trace"):
        """The sum of the main diagonal, per batch member."""
        with self._op_scope(name):
            return self._trace()

    def _trace(self):
        return reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """x + A for a tensor x of the operator's shape."""
        with self._op_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def eigvals(self, name="eigvals"):
        """The eigenvalues (self-adjoint operators only), batch_shape + [N].

        Raises:
          NotImplementedError: the operator is not hinted self-adjoint.
        """
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._op_scope(name):
            return self._eigvals()

    def _eigvals(self):
        return eigvalsh(self.to_dense())

    def cond(self, name="cond"):
        """The condition number: the ratio of the largest to the smallest
        singular value (eigenvalue modulus for self-adjoint operators)."""
        with self._op_scope(name):
            return self._cond()

    def _cond(self):
        if not self.is_self_adjoint:
            vals = svd(self.to_dense(), compute_uv=False)
        else:
            vals = _abs(self._eigvals())
        return reduce_max(vals, axis=-1) / reduce_min(vals, axis=-1)


def _has_tensor(v):
    if isinstance(v, (Tensor, LinearOperator)):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    return False


def broadcast_matrix_batch(a, b):
    """a and b with their batch dimensions (all but the last two) broadcast
    against each other, as TensorFlow's solves with broadcasting do."""
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sb.rank is not None and sa[:-2].is_fully_defined() and \
            sb[:-2].is_fully_defined():
        batch = broadcast_static_shape(sa[:-2], sb[:-2])
        if batch != sa[:-2]:
            a = broadcast_to(a, batch.concatenate(sa[-2:]).as_list() if
                             sa[-2:].is_fully_defined() else
                             concat([batch.as_list(), shape(a)[-2:]], 0))
        if batch != sb[:-2]:
            b = broadcast_to(b, batch.concatenate(sb[-2:]).as_list() if
                             sb[-2:].is_fully_defined() else
                             concat([batch.as_list(), shape(b)[-2:]], 0))
        return a, b
    batch = broadcast_dynamic_shape(shape(a)[:-2], shape(b)[:-2])
    return (broadcast_to(a, concat([batch, shape(a)[-2:]], 0)),
            broadcast_to(b, concat([batch, shape(b)[-2:]], 0)))


def _zeros_product(left, right):
    """TensorFlow's result of left @ Zeros: a Zeros operator of the product's shape."""
    batch = T.broadcast_static_shape(left.batch_shape, right.batch_shape) if (
        left.batch_shape.is_fully_defined() and right.batch_shape.is_fully_defined()) else None
    return _CLASSES["Zeros"](
        num_rows=left.range_dimension, num_columns=right.domain_dimension,
        batch_shape=None if batch is None or batch.rank == 0 else batch.as_list(),
        dtype=left.dtype, is_square=None if left.range_dimension is None else (
            left.range_dimension == right.domain_dimension))

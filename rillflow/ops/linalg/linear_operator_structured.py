"""Structured square operators: `LinearOperatorCirculant` (and its 2-D and 3-D
nested-block forms, applied by FFT), `LinearOperatorToeplitz`,
`LinearOperatorTridiag`, `LinearOperatorHouseholder` and
`LinearOperatorPermutation`, with TensorFlow's names, hints and checks."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.tensor_shape import TensorShape
from ..core.creation_ops import one_hot
from ..core.sort_ops import argsort
from ..signal.fft_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d
from .linalg_extra_ops import tridiagonal_matmul, tridiagonal_solve, _to_compact
from .linalg_extra_ops import _tridiag_adjoint
from .linear_operator import LinearOperator, T, _register_class, combined_non_singular
from .linear_operator import broadcast_matrix_batch
from .linear_operator_basic import _batch_broadcast, commuting_self_adjoint
from .norm_ops import l2_normalize

_FFT = {1: (fft, ifft), 2: (fft2d, ifft2d), 3: (fft3d, ifft3d)}
_COMPLEX_OF = {D.float16: D.complex64, D.float32: D.complex64, D.float64: D.complex128,
               D.complex64: D.complex64, D.complex128: D.complex128,
               D.int32: D.complex64, D.int64: D.complex64}


class _BaseCirculant(LinearOperator):
    """A (nested block) circulant operator of `block_depth` levels: diagonal in
    the d-dimensional Fourier basis, with `spectrum` [..., N1, ..., Nd] its
    eigenvalues."""

    _composite_tensor_fields = ("spectrum",)
    _block_depth = 1

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"spectrum": self._block_depth}

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant", parameters=None):
        """Raises:
          ValueError: is_square False, or spectrum of too low a rank.
          TypeError: a spectrum that is not float or complex.
        """
        parameters = parameters or dict(
            spectrum=spectrum, input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if not is_square:
            raise ValueError("A [[nested] block] circulant operator is always square. "
                             f"Expected argument `is_square` to be True. Received: "
                             f"{is_square}.")
        with T.scope(name):
            s = T.nonref(spectrum, name="spectrum")
        if s.dtype not in _COMPLEX_OF:
            raise TypeError(f"Argument spectrum must have dtype in [float16, float32, "
                            f"float64, complex64, complex128, int32, int64]. Found: "
                            f"{s.dtype.name}")
        d = self._block_depth
        if s.shape.rank is not None and s.shape.rank < d:
            raise ValueError(f"Argument spectrum must have at least {d} dimensions. "
                             f"Received: {s}")
        self._spectrum = s
        if not s.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real spectrum always corresponds to a self-adjoint "
                                 "operator.")
            is_self_adjoint = True
        super().__init__(dtype=D.as_dtype(input_output_dtype), is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def spectrum(self):
        """The eigenvalues, [..., N1, ..., Nd]."""
        return self._spectrum

    @property
    def block_depth(self):
        """The nesting depth: 1, 2 or 3."""
        return self._block_depth

    @property
    def block_shape(self):
        """The static [N1, ..., Nd]."""
        return self._spectrum.shape[-self._block_depth:]

    def block_shape_tensor(self):
        """[N1, ..., Nd] as a tensor."""
        return T.shape(self._spectrum)[-self._block_depth:]

    def _n(self):
        n = 1
        for s in self.block_shape.as_list():
            n = None if n is None or s is None else n * s
        return n

    def _shape(self):
        s = self._spectrum.shape
        if s.rank is None:
            return TensorShape(None)
        n = self._n()
        return s[:-self._block_depth].concatenate([n, n])

    def _shape_tensor(self):
        s = T.shape(self._spectrum)
        n = T.reduce_prod(s[-self._block_depth:])
        return T.concat([s[:-self._block_depth], [n, n]], 0)

    def _complex_spectrum(self):
        s = self._spectrum
        return s if s.dtype.is_complex else T.cast(s, _COMPLEX_OF[s.dtype])

    def _to_out(self, y):
        return y if self.dtype.is_complex else T.cast(T.real(y), self.dtype)

    def _apply(self, x, spectrum_fn, adjoint_arg):
        """ifft(spectrum_fn(spectrum) * fft(x)) over the block dimensions."""
        x = T.adjoint(x) if adjoint_arg else x
        spec = spectrum_fn(self._complex_spectrum())
        x = T.cast(x, spec.dtype)
        d = self._block_depth
        fwd, inv = _FFT[d]
        xt = T.matrix_transpose(x)  # [..., R, N]
        shaped = T.reshape(xt, T.concat([T.shape(xt)[:-1], self.block_shape_tensor()], 0))
        spec = T.expand_dims(spec, -d - 1)
        y = inv(spec * fwd(shaped))
        y = T.reshape(y, T.shape(xt) if xt.shape.rank is not None and
                      y.shape.rank == xt.shape.rank + d - 1 and
                      xt.shape[:-2] == y.shape[:-d - 1] else
                      T.concat([T.shape(y)[:-d], [-1]], 0))
        return self._to_out(T.matrix_transpose(y))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, T.conj if adjoint else (lambda s: s), adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, (lambda s: 1. / T.conj(s)) if adjoint else
                           (lambda s: 1. / s), adjoint_arg)

    def _axes(self):
        return list(range(-self._block_depth, 0))

    def _determinant(self):
        return self._cast_dtype(T.reduce_prod(self._complex_spectrum(), axis=self._axes()))

    def _cast_dtype(self, v):
        if self.dtype.is_complex:
            return T.cast(v, self.dtype)
        return T.cast(T.real(v) if v.dtype.is_complex else v, self.dtype)

    def _log_abs_determinant(self):
        return T.cast(T.reduce_sum(T.log(T.abs(self._complex_spectrum())), axis=self._axes()),
                      self.dtype)

    def _trace(self):
        return self._cast_dtype(T.reduce_sum(self._complex_spectrum(), axis=self._axes()))

    def _diag_part(self):
        mean = self._cast_dtype(T.reduce_sum(self._complex_spectrum(), axis=self._axes())
                                / T.cast(self._n(), self._complex_spectrum().dtype))
        return T.expand_dims(mean, -1) * T.ones([self._n()], self.dtype)

    def _eigvals(self):
        s = self._spectrum
        return T.reshape(s, T.concat([T.shape(s)[:-self._block_depth], [-1]], 0))

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column of the matrix (the kernel h with A x = h * x),
        [..., N1, ..., Nd]."""
        with self._op_scope(name):
            return self._to_out(_FFT[self._block_depth][1](self._complex_spectrum()))

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op (None eagerly) checking that spectrum[k] == conj(spectrum[-k]),
        so that the matrix is real."""
        with self._op_scope(name):
            s = self._complex_spectrum()
            flipped = s
            for ax in self._axes():
                n = s.shape[ax]
                idx = [(-k) % n for k in range(n)]
                flipped = T.gather(flipped, idx, axis=ax)
            return T.assert_equal(s, T.conj(flipped),
                                  message="Spectrum was not Hermitian")

    def _assert_non_singular(self):
        return T.assert_less(T.zeros([], self._spectrum.dtype.real_dtype),
                             T.abs(self._spectrum),
                             message="Singular operator:  Spectrum contained zero values.")

    def _assert_positive_definite(self):
        s = self._spectrum
        return T.assert_positive(T.real(s) if s.dtype.is_complex else s,
                                 message="Not positive definite:  Real part of spectrum "
                                         "was not all positive.")

    def _assert_self_adjoint(self):
        s = self._spectrum
        if not s.dtype.is_complex:
            return T.no_op()
        return T.assert_equal(T.imag(s), T.zeros([], s.dtype.real_dtype),
                              message="Not self-adjoint:  The spectrum contained non-zero "
                                      "imaginary part.")

    def _new(self, spectrum, keep_dtype=False, **hints):
        # TensorFlow's registrations keep the dtype for the inverse only.
        if keep_dtype:
            return type(self)(spectrum, input_output_dtype=self.dtype, **hints)
        return type(self)(spectrum, **hints)

    def _linop_adjoint(self):
        return self._new(T.conj(self._spectrum), is_non_singular=self.is_non_singular,
                         is_self_adjoint=self.is_self_adjoint,
                         is_positive_definite=self.is_positive_definite)

    def _linop_inverse(self):
        return self._new(1. / self._spectrum, keep_dtype=True,
                         is_non_singular=self.is_non_singular,
                         is_self_adjoint=self.is_self_adjoint,
                         is_positive_definite=self.is_positive_definite)

    def _linop_matmul(self, left, right):
        if type(right) is type(left) and left.block_depth == right.block_depth:
            return left._new(left.spectrum * right.spectrum,
                             is_non_singular=combined_non_singular(left, right),
                             is_self_adjoint=commuting_self_adjoint(left, right))
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if type(right) is type(left) and left.block_depth == right.block_depth:
            return left._new(right.spectrum / left.spectrum,
                             is_non_singular=combined_non_singular(left, right),
                             is_self_adjoint=commuting_self_adjoint(left, right))
        return super()._linop_solve(left, right)


@export("linalg.LinearOperatorCirculant", "compat.v1.linalg.LinearOperatorCirculant")
@_register_class("Circulant")
class LinearOperatorCirculant(_BaseCirculant):
    """A circulant matrix given by its spectrum [..., N] (the FFT of its first
    column); `input_output_dtype` is the dtype it acts on."""

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant"):
        """See the class docstring."""
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


@export("linalg.LinearOperatorCirculant2D", "compat.v1.linalg.LinearOperatorCirculant2D")
@_register_class("Circulant2D")
class LinearOperatorCirculant2D(_BaseCirculant):
    """A block circulant matrix with circulant blocks, given by its 2-D
    spectrum [..., N1, N2]."""

    _block_depth = 2

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant2D"):
        """See the class docstring."""
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


@export("linalg.LinearOperatorCirculant3D", "compat.v1.linalg.LinearOperatorCirculant3D")
@_register_class("Circulant3D")
class LinearOperatorCirculant3D(_BaseCirculant):
    """A doubly nested block circulant matrix given by its 3-D spectrum
    [..., N1, N2, N3]."""

    _block_depth = 3

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant3D"):
        """See the class docstring."""
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)


@export("linalg.LinearOperatorToeplitz", "compat.v1.linalg.LinearOperatorToeplitz")
@_register_class("Toeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """A Toeplitz matrix from its first column `col` and first row `row`
    [..., N] (row[0] is ignored: col[0] is the diagonal)."""

    _composite_tensor_fields = ("col", "row")
    _experimental_parameter_ndims_to_matrix_ndims = {"col": 1, "row": 1}

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        """Raises:
          ValueError: is_square False.
        """
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        with T.scope(name):
            self._col = T.nonref(col, name="col")
            self._row = T.nonref(row, dtype=self._col.dtype, name="row")
        super().__init__(dtype=self._col.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def col(self):
        """The first column."""
        return self._col

    @property
    def row(self):
        """The first row."""
        return self._row

    def _shape(self):
        batch = _batch_broadcast(self._col.shape[:-1], self._row.shape[:-1])
        n = self._col.shape[-1]
        return batch.concatenate([n, n])

    def _shape_tensor(self):
        return T.convert(self.shape.as_list())

    def _to_dense(self):
        n = self._col.shape[-1]
        batch = self.batch_shape
        col = T.broadcast_to(self._col, batch.concatenate([n]).as_list())
        row = T.broadcast_to(self._row, batch.concatenate([n]).as_list())
        # vec[n - 1 + i - j]: the row reversed (without its first entry), then col.
        vec = T.concat([T.gather(row, list(range(n - 1, 0, -1)), axis=-1), col], axis=-1)
        idx = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return T.gather(vec, idx.astype(np.int32), axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        return T.expand_dims(self._col[..., 0], -1) * T.ones([self._col.shape[-1]],
                                                             self.dtype)

    def _trace(self):
        return self._col[..., 0] * T.cast(self._col.shape[-1], self.dtype)


@export("linalg.LinearOperatorTridiag", "compat.v1.linalg.LinearOperatorTridiag")
@_register_class("Tridiag")
class LinearOperatorTridiag(LinearOperator):
    """A square tridiagonal matrix from its diagonals, in the formats of
    `tf.linalg.tridiagonal_solve` ('compact', 'sequence' or 'matrix')."""

    _composite_tensor_fields = ("diagonals",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"diagonals": 1 if self._diagonals_format == "sequence" else 2}

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        """Raises:
          ValueError: an unknown format or is_square False.
        """
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError("Argument `diagonals_format` must be one of compact, matrix, "
                             f"or sequence. Received : {diagonals_format}.")
        if is_square is False:
            raise ValueError("Only square tridiagonal operators currently supported.")
        with T.scope(name):
            if diagonals_format == "sequence":
                self._diagonals = [T.nonref(d, name="diag_{i}") for i, d in
                                   enumerate(diagonals)]
            else:
                self._diagonals = T.nonref(diagonals, name="diagonals")
        self._diagonals_format = diagonals_format
        sup, main, sub, _ = _to_compact(self._diagonals, diagonals_format, name)
        self._compact = T.stack([sup, main, sub], axis=-2)
        super().__init__(dtype=main.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def diagonals(self):
        """The diagonals as given."""
        return self._diagonals

    @property
    def diagonals_format(self):
        """'compact', 'sequence' or 'matrix'."""
        return self._diagonals_format

    def _shape(self):
        s = self._compact.shape
        n = s[-1]
        return s[:-2].concatenate([n, n])

    def _shape_tensor(self):
        s = T.shape(self._compact)
        return T.concat([s[:-2], s[-1:], s[-1:]], 0)

    def _diags(self, adjoint):
        return _tridiag_adjoint(self._compact) if adjoint else self._compact

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        return tridiagonal_matmul(self._diags(adjoint), x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        diags, rhs = broadcast_matrix_batch(self._diags(adjoint), rhs)
        return tridiagonal_solve(diags, rhs)

    def _to_dense(self):
        return T.matrix_diag(self._compact, k=(-1, 1), align="LEFT_RIGHT")

    def _diag_part(self):
        return self._compact[..., 1, :]

    def _trace(self):
        return T.reduce_sum(self._compact[..., 1, :], axis=-1)


@export("linalg.LinearOperatorHouseholder", "compat.v1.linalg.LinearOperatorHouseholder")
@_register_class("Householder")
class LinearOperatorHouseholder(LinearOperator):
    """The reflection I - 2 v v^H / (v^H v) through the hyperplane orthogonal
    to `reflection_axis` v [..., N]."""

    _composite_tensor_fields = ("reflection_axis",)
    _experimental_parameter_ndims_to_matrix_ndims = {"reflection_axis": 1}

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorHouseholder"):
        """Raises:
          ValueError: hints a reflection cannot have, or a rank-0 axis.
        """
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        with T.scope(name):
            v = T.nonref(reflection_axis, name="reflection_axis")
        if v.shape.rank is not None and v.shape.rank < 1:
            raise ValueError(f"Argument reflection_axis must have at least 1 dimension.  "
                             f"Found: {v!s}")
        self._reflection_axis = v
        super().__init__(dtype=v.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=False, is_square=True, parameters=parameters,
                         name=name)

    @property
    def reflection_axis(self):
        """v."""
        return self._reflection_axis

    def _shape(self):
        s = self._reflection_axis.shape
        return s.concatenate([s[-1]])

    def _shape_tensor(self):
        s = T.shape(self._reflection_axis)
        return T.concat([s, s[-1:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        mat = T.expand_dims(l2_normalize(self._reflection_axis, axis=-1), -1)
        return x - 2 * T.matmul(mat, T.matmul(mat, x, adjoint_a=True))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _batch_ones(self):
        return T.ones(self.batch_shape.as_list(), self.dtype)

    def _determinant(self):
        return -self._batch_ones()

    def _log_abs_determinant(self):
        return T.zeros(self.batch_shape.as_list(), self.dtype.real_dtype)

    def _trace(self):
        return self._batch_ones() * T.cast(self.domain_dimension - 2, self.dtype)

    def _diag_part(self):
        v = l2_normalize(self._reflection_axis, axis=-1)
        return 1 - 2 * v * T.conj(v)

    def _eigvals(self):
        n = self.domain_dimension
        vals = T.convert([-1.] + [1.] * (n - 1), dtype=self.dtype)
        return T.broadcast_to(vals, self.batch_shape.concatenate([n]).as_list())

    def _cond(self):
        return self._batch_ones()

    def _assert_non_singular(self):
        return T.no_op()

    def _assert_self_adjoint(self):
        return T.no_op()

    def _assert_positive_definite(self):
        raise errors.InvalidArgumentError(
            None, None, "Householder operators are always non-positive definite.")

    def _linop_inverse(self):
        return self


@export("linalg.LinearOperatorPermutation", "compat.v1.linalg.LinearOperatorPermutation")
@_register_class("Permutation")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P[i, perm[i]] = 1: (P x)[i] = x[perm[i]]."""

    _composite_tensor_fields = ("perm",)
    _experimental_parameter_ndims_to_matrix_ndims = {"perm": 1}

    def __init__(self, perm, dtype=D.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorPermutation"):
        """Raises:
          TypeError: a non-integer perm. ValueError: a rank-0 perm, or
            is_non_singular / is_square False.
        """
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with T.scope(name):
            p = T.nonref(perm, name="perm")
        if not p.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {p}.")
        if p.shape.rank is not None and p.shape.rank < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {p}.")
        for attr, given in (("non-singular", is_non_singular), ("square", is_square)):
            if given is False:
                arg = "is_non_singular" if attr == "non-singular" else "is_square"
                raise ValueError(f"A Permutation operator is always {attr}. Expected "
                                 f"argument `{arg}` to be True. Received: False.")
        self._perm = p
        super().__init__(dtype=D.as_dtype(dtype), is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         parameters=parameters, name=name)

    @property
    def perm(self):
        """The permutation, [..., N]."""
        return self._perm

    def _shape(self):
        s = self._perm.shape
        return s.concatenate([s[-1]])

    def _shape_tensor(self):
        s = T.shape(self._perm)
        return T.concat([s, s[-1:]], 0)

    def _permute(self, x, perm):
        batch = _batch_broadcast(perm.shape[:-1], x.shape[:-2])
        n = perm.shape[-1]
        perm = T.broadcast_to(perm, batch.concatenate([n]).as_list())
        x = T.broadcast_to(x, batch.concatenate(x.shape[-2:]).as_list())
        return T.gather(x, perm, axis=-2, batch_dims=batch.rank)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        perm = argsort(self._perm, axis=-1) if adjoint else self._perm
        return self._permute(x, perm)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return one_hot(self._perm, self.domain_dimension, dtype=self.dtype)

    def _determinant(self):
        return T.det(self.to_dense())

    def _log_abs_determinant(self):
        return T.zeros(self.batch_shape.as_list(), self.dtype.real_dtype)

    def _diag_part(self):
        n = self.domain_dimension
        return T.cast(T.equal(self._perm, T.range(n, dtype=self._perm.dtype)), self.dtype)

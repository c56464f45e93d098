"""Operators built from blocks and factors: `LinearOperatorBlockDiag` (direct
sums), `LinearOperatorBlockLowerTriangular`, `LinearOperatorKronecker` and
`LinearOperatorLowRankUpdate` (L + U D V^H, solved by Woodbury's identity),
with TensorFlow's names, hints and checks."""
import string

from ...framework.api_export import export
from .einsum_ops import einsum
from .linear_operator import LinearOperator, T, _CLASSES, _register_class
from .linear_operator import broadcast_matrix_batch
from .linear_operator_basic import _batch_broadcast
from .linear_operator_lists import (_all_hint, _batch_of, _batch_tensor_of, _operator_list, _product_of,
                                    _same_dtype, _sum_of)


def _dims(ops, attr):
    return [getattr(op, attr) for op in ops]


def _split_rows(x, sizes):
    """x [..., sum(sizes), R] split along its rows."""
    out, start = [], 0
    for n in sizes:
        out.append(x[..., start:start + n, :])
        start += n
    return out


def _broadcast_batch(x, batch):
    """x broadcast to the batch dims `batch` (a TensorShape) before its last two."""
    if batch.rank is None or x.shape.rank is None:
        return x
    want = _batch_broadcast(x.shape[:-2], batch)
    if want == x.shape[:-2]:
        return x
    return T.broadcast_to(x, want.concatenate(x.shape[-2:]).as_list())


@export("linalg.LinearOperatorBlockDiag", "compat.v1.linalg.LinearOperatorBlockDiag")
@_register_class("BlockDiag")
class LinearOperatorBlockDiag(LinearOperator):
    """The direct sum of operators: a block-diagonal matrix with them as blocks."""

    _composite_tensor_fields = ("operators",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operators": 0}

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        """Raises:
          ValueError: no operators, or a hint contradicting the blocks'.
          TypeError: mixed dtypes.
        """
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        operators = _operator_list(operators)
        dtype = _same_dtype(operators)
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The direct sum of non-singular operators is always "
                                    "non-singular.")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint,
                                    "The direct sum of self-adjoint operators is always "
                                    "self-adjoint.")
        is_positive_definite = _all_hint(operators, "is_positive_definite",
                                         is_positive_definite,
                                         "The direct sum of positive definite operators is "
                                         "always positive definite.")
        self._operators = operators
        super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters,
                         name=name or "_ds_".join(op.name for op in operators))

    @property
    def operators(self):
        """The diagonal blocks."""
        return self._operators

    def _shape(self):
        rows = _dims(self._operators, "range_dimension")
        cols = _dims(self._operators, "domain_dimension")
        m = None if None in rows else sum(rows)
        n = None if None in cols else sum(cols)
        return _batch_of(self._operators).concatenate([m, n])

    def _shape_tensor(self):
        batch = _batch_tensor_of(self._operators)
        m = sum(op.range_dimension_tensor() for op in self._operators)
        n = sum(op.domain_dimension_tensor() for op in self._operators)
        return T.concat([batch, T.stack([m, n])], 0)

    def _blockwise(self, fn, x, in_attr, adjoint_arg):
        """Applies fn(op, block) per block of x split by `in_attr` sizes and
        joins the results; x may be a list of blocks (a list comes back)."""
        if isinstance(x, (list, tuple)):
            return [fn(op, xi) for op, xi in zip(self._operators, x)]
        x = T.adjoint(x) if adjoint_arg else x
        parts = _split_rows(x, _dims(self._operators, in_attr))
        outs = [fn(op, xi) for op, xi in zip(self._operators, parts)]
        batch = _batch_of([*self._operators])
        outs = [_broadcast_batch(o, batch) for o in outs]
        if x.shape.rank is not None:
            outs = [_broadcast_batch(o, x.shape[:-2]) for o in outs]
        return T.concat(outs, axis=-2)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """As LinearOperator.matmul; x may also be a list of blocks."""
        if isinstance(x, (list, tuple)):
            return [op.matmul(xi, adjoint=adjoint, adjoint_arg=adjoint_arg)
                    for op, xi in zip(self._operators, x)]
        return super().matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """As LinearOperator.solve; rhs may also be a list of blocks."""
        if isinstance(rhs, (list, tuple)):
            self._check_solvable()
            return [op.solve(xi, adjoint=adjoint, adjoint_arg=adjoint_arg)
                    for op, xi in zip(self._operators, rhs)]
        return super().solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        attr = "range_dimension" if adjoint else "domain_dimension"
        return self._blockwise(lambda op, b: op.matmul(b, adjoint=adjoint), x, attr,
                               adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        attr = "domain_dimension" if adjoint else "range_dimension"
        return self._blockwise(lambda op, b: op.solve(b, adjoint=adjoint), rhs, attr,
                               adjoint_arg)

    def _determinant(self):
        return _product_of(self._operators, "determinant")

    def _log_abs_determinant(self):
        return _sum_of(self._operators, "log_abs_determinant")

    def _diag_part(self):
        if not all(op.is_square for op in self._operators):
            return super()._diag_part()
        batch = _batch_of(self._operators)
        parts = []
        for op in self._operators:
            d = op.diag_part()
            if batch.is_fully_defined():
                d = T.broadcast_to(d, batch.concatenate(d.shape[-1:]).as_list())
            parts.append(d)
        return T.concat(parts, axis=-1)

    def _trace(self):
        return _sum_of(self._operators, "trace")

    def _to_dense(self):
        batch = _batch_of(self._operators)
        cols = _dims(self._operators, "domain_dimension")
        n = sum(cols)
        rows, start = [], 0
        for op, c in zip(self._operators, cols):
            block = _broadcast_batch(op.to_dense(), batch)
            pad = [[0, 0]] * (block.shape.rank - 1) + [[start, n - start - c]]
            rows.append(T.pad(block, pad))
            start += c
        return T.concat(rows, axis=-2)

    def _eigvals(self):
        return T.concat([op.eigvals() for op in self._operators], axis=-1)

    def _assert_non_singular(self):
        return [op.assert_non_singular() for op in self._operators]

    def _assert_self_adjoint(self):
        return [op.assert_self_adjoint() for op in self._operators]

    def _assert_positive_definite(self):
        return [op.assert_positive_definite() for op in self._operators]

    def _hinted(self, operators):
        return LinearOperatorBlockDiag(operators, is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)

    def _linop_adjoint(self):
        return self._hinted([op.adjoint() for op in self._operators])

    def _linop_inverse(self):
        return self._hinted([op.inverse() for op in self._operators])

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators],
                                       is_non_singular=True, is_self_adjoint=None,
                                       is_square=True)

    def _same_blocks(self, other):
        return isinstance(other, LinearOperatorBlockDiag) and \
            len(other.operators) == len(self._operators) and all(
                a.domain_dimension == b.range_dimension
                for a, b in zip(self._operators, other.operators))

    def _linop_matmul(self, left, right):
        if left._same_blocks(right):
            return LinearOperatorBlockDiag(
                [a.matmul(b) for a, b in zip(left.operators, right.operators)],
                is_non_singular=_combined(left, right, "is_non_singular"),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if left._same_blocks(right):
            return LinearOperatorBlockDiag(
                [a.solve(b) for a, b in zip(left.operators, right.operators)],
                is_non_singular=_combined(left, right, "is_non_singular"),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_solve(left, right)


def _combined(a, b, attr):
    if getattr(a, attr) is False or getattr(b, attr) is False:
        return False
    return getattr(a, attr) and getattr(b, attr)


@export("linalg.LinearOperatorBlockLowerTriangular",
        "compat.v1.linalg.LinearOperatorBlockLowerTriangular")
@_register_class("BlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular matrix: row i of `operators` holds the blocks
    (i, 0) .. (i, i), the diagonal blocks square."""

    _composite_tensor_fields = ("operators",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operators": 0}

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        """Raises:
          ValueError: rows of the wrong length or blocks whose dimensions do
            not fit. TypeError: mixed dtypes.
        """
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                                 f"Received: {len(row)} blocks.")
        _same_dtype([op for row in operators for op in row])
        for i, row in enumerate(operators):
            for j, op in enumerate(row[:-1]):
                a, b = op.range_dimension, row[-1].range_dimension
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].range_dimension` ({a}) must be the "
                        f"same as `operators[{i}][{i}].range_dimension` ({b}).")
                a, b = op.domain_dimension, operators[j][j].domain_dimension
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].domain_dimension` ({a}) must be the "
                        f"same as `operators[{j}][{j}].domain_dimension` ({b}).")
        diag = [row[-1] for row in operators]
        if all(op.is_non_singular for op in diag):
            if is_non_singular is False:
                raise ValueError("A blockwise lower-triangular operator with non-singular "
                                 "operators on the main diagonal is always non-singular.")
            is_non_singular = True
        self._operators = operators
        super().__init__(dtype=operators[0][0].dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters, name=name)

    @property
    def operators(self):
        """The rows of blocks."""
        return self._operators

    def _diag_ops(self):
        return [row[-1] for row in self._operators]

    def _shape(self):
        d = self._diag_ops()
        rows, cols = _dims(d, "range_dimension"), _dims(d, "domain_dimension")
        return _batch_of([op for row in self._operators for op in row]).concatenate(
            [None if None in rows else sum(rows), None if None in cols else sum(cols)])

    def _shape_tensor(self):
        return T.convert(self.shape.as_list())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        d = self._diag_ops()
        n = len(d)
        batch = self.batch_shape
        if not adjoint:
            parts = _split_rows(x, _dims(d, "domain_dimension"))
            outs = []
            for i, row in enumerate(self._operators):
                acc = None
                for j, op in enumerate(row):
                    y = op.matmul(parts[j])
                    acc = y if acc is None else acc + y
                outs.append(acc)
        else:
            parts = _split_rows(x, _dims(d, "range_dimension"))
            outs = []
            for j in range(n):
                acc = None
                for i in range(j, n):
                    y = self._operators[i][j].matmul(parts[i], adjoint=True)
                    acc = y if acc is None else acc + y
                outs.append(acc)
        return T.concat([_broadcast_batch(_broadcast_batch(o, batch), x.shape[:-2])
                         for o in outs], axis=-2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        d = self._diag_ops()
        n = len(d)
        parts = _split_rows(rhs, _dims(d, "range_dimension" if not adjoint else
                                       "domain_dimension"))
        sol = [None] * n
        order = range(n) if not adjoint else range(n - 1, -1, -1)
        for i in order:
            b = parts[i]
            if not adjoint:
                for j in range(i):
                    b = b - self._operators[i][j].matmul(sol[j])
            else:
                for k in range(i + 1, n):
                    b = b - self._operators[k][i].matmul(sol[k], adjoint=True)
            sol[i] = d[i].solve(b, adjoint=adjoint)
        return T.concat([_broadcast_batch(_broadcast_batch(s, self.batch_shape),
                                          rhs.shape[:-2]) for s in sol], axis=-2)

    def _determinant(self):
        out = None
        for op in self._diag_ops():
            out = op.determinant() if out is None else out * op.determinant()
        return out

    def _log_abs_determinant(self):
        out = None
        for op in self._diag_ops():
            v = op.log_abs_determinant()
            out = v if out is None else out + v
        return out

    def _to_dense(self):
        d = self._diag_ops()
        cols = _dims(d, "domain_dimension")
        n = sum(cols)
        batch = self.batch_shape
        rows = []
        for row in self._operators:
            blocks = [_broadcast_batch(op.to_dense(), batch) for op in row]
            dense = T.concat(blocks, axis=-1)
            width = sum(cols[:len(row)])
            rows.append(T.pad(dense, [[0, 0]] * (dense.shape.rank - 1) + [[0, n - width]]))
        return T.concat(rows, axis=-2)

    def _diag_part(self):
        return T.concat([_broadcast_batch(T.expand_dims(op.diag_part(), -2), self.batch_shape)
                         [..., 0, :] for op in self._diag_ops()], axis=-1)

    def _linop_inverse(self):
        # Blockwise forward substitution: X_ii = A_ii^-1 and, below the
        # diagonal, X_ij = -A_ii^-1 sum_{j<=k<i} A_ik X_kj (dense).
        d = self._diag_ops()
        inv = [[None] * (i + 1) for i in range(len(d))]
        for i in range(len(d)):
            inv[i][i] = d[i].inverse()
            for j in range(i):
                acc = None
                for k in range(j, i):
                    y = self._operators[i][k].matmul(inv[k][j].to_dense())
                    acc = y if acc is None else acc + y
                inv[i][j] = _CLASSES["FullMatrix"](-d[i].solve(acc))
        return LinearOperatorBlockLowerTriangular(inv, is_non_singular=self.is_non_singular)


def _kron_mode_apply(fn, x, sizes, i, out_size):
    """Applies fn (a map of [..., n_i, K] matrices) along factor i of the rows
    of x [..., prod(sizes), R], giving [..., prod(sizes with out_size), R]."""
    k = len(sizes)
    lead = x.shape.rank - 2
    shaped = T.reshape(x, T.concat([T.shape(x)[:-2], sizes, T.shape(x)[-1:]], 0))
    # Move factor axis i to just before the merged rest: [..., n_i, rest...].
    axes = list(range(lead))
    perm = axes + [lead + i] + [lead + j for j in range(k) if j != i] + [lead + k]
    moved = T.transpose(shaped, perm)
    rest = [s for j, s in enumerate(sizes) if j != i]
    mat = T.reshape(moved, T.concat([T.shape(x)[:-2], [sizes[i], -1]], 0))
    y = fn(mat)
    y = T.reshape(y, T.concat([T.shape(y)[:-2], [out_size], rest, T.shape(x)[-1:]], 0))
    inv = [0] * (lead + k + 1)
    for dst, src in enumerate(perm):
        inv[src] = dst
    y = T.transpose(y, inv)
    new_sizes = list(sizes)
    new_sizes[i] = out_size
    total = 1
    for s in new_sizes:
        total *= s
    return T.reshape(y, T.concat([T.shape(y)[:lead], [total], T.shape(x)[-1:]], 0))


@export("linalg.LinearOperatorKronecker", "compat.v1.linalg.LinearOperatorKronecker")
@_register_class("Kronecker")
class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product A1 x A2 x ... of operators, applied one factor at
    a time."""

    _composite_tensor_fields = ("operators",)
    _experimental_parameter_ndims_to_matrix_ndims = {"operators": 0}

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises:
          ValueError: no operators, or hints contradicting the factors'.
          TypeError: mixed dtypes.
        """
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        operators = _operator_list(operators)
        dtype = _same_dtype(operators)
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The Kronecker product of non-singular operators is "
                                    "always non-singular.")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint,
                                    "The Kronecker product of self-adjoint operators is "
                                    "always self-adjoint.")
        if all(op.is_positive_definite and op.is_self_adjoint for op in operators):
            if is_positive_definite is False:
                raise ValueError("The Kronecker product of positive-definite operators is "
                                 "always positive-definite.")
            is_positive_definite = True
        self._operators = operators
        super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters,
                         name=name or "_x_".join(op.name for op in operators))

    @property
    def operators(self):
        """The factors, leftmost first."""
        return self._operators

    def _shape(self):
        rows = _dims(self._operators, "range_dimension")
        cols = _dims(self._operators, "domain_dimension")
        m = n = 1
        for r in rows:
            m = None if m is None or r is None else m * r
        for c in cols:
            n = None if n is None or c is None else n * c
        return _batch_of(self._operators).concatenate([m, n])

    def _shape_tensor(self):
        return T.convert(self.shape.as_list())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = T.adjoint(x) if adjoint_arg else x
        x = _broadcast_batch(x, self.batch_shape)
        ins = _dims(self._operators, "range_dimension" if adjoint else "domain_dimension")
        outs = _dims(self._operators, "domain_dimension" if adjoint else "range_dimension")
        sizes = list(ins)
        for i, op in enumerate(self._operators):
            x = _kron_mode_apply(lambda m, op=op: op.matmul(m, adjoint=adjoint), x, sizes, i,
                                 outs[i])
            sizes[i] = outs[i]
        return x

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        rhs = _broadcast_batch(rhs, self.batch_shape)
        sizes = _dims(self._operators, "range_dimension")
        for i, op in enumerate(self._operators):
            rhs = _kron_mode_apply(lambda m, op=op: op.solve(m, adjoint=adjoint), rhs, sizes,
                                   i, sizes[i])
        return rhs

    def _others(self, i):
        n = 1
        for j, op in enumerate(self._operators):
            if j != i:
                n *= op.domain_dimension
        return n

    def _determinant(self):
        out = None
        for i, op in enumerate(self._operators):
            v = op.determinant() ** T.cast(self._others(i), self.dtype)
            out = v if out is None else out * v
        return out

    def _log_abs_determinant(self):
        out = None
        for i, op in enumerate(self._operators):
            v = op.log_abs_determinant() * T.cast(self._others(i), self.dtype.real_dtype)
            out = v if out is None else out + v
        return out

    def _trace(self):
        out = None
        for op in self._operators:
            out = op.trace() if out is None else out * op.trace()
        return out

    def _outer_flat(self, vectors):
        letters = string.ascii_lowercase
        out = vectors[0]
        for v in vectors[1:]:
            k = out.shape[-1]
            out = einsum(f"...{letters[0]},...{letters[1]}->...{letters[0]}{letters[1]}", out,
                         v)
            out = T.reshape(out, T.concat([T.shape(out)[:-2], [k * v.shape[-1]]], 0))
        return out

    def _diag_part(self):
        return self._outer_flat([op.diag_part() for op in self._operators])

    def _eigvals(self):
        return self._outer_flat([op.eigvals() for op in self._operators])

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            b = op.to_dense()
            m, n = out.shape[-2] * b.shape[-2], out.shape[-1] * b.shape[-1]
            k = einsum("...ij,...kl->...ikjl", out, b)
            out = T.reshape(k, T.concat([T.shape(k)[:-4], [m, n]], 0))
        return out

    def _hinted(self, operators):
        return LinearOperatorKronecker(operators, is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)

    def _linop_adjoint(self):
        return self._hinted([op.adjoint() for op in self._operators])

    def _linop_inverse(self):
        return self._hinted([op.inverse() for op in self._operators])

    def _linop_cholesky(self):
        return LinearOperatorKronecker([op.cholesky() for op in self._operators],
                                       is_non_singular=True, is_square=True)


@export("linalg.LinearOperatorLowRankUpdate", "compat.v1.linalg.LinearOperatorLowRankUpdate")
@_register_class("LowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """L + U D V^H: a base operator L plus a low-rank update (V = U when not
    given, D = I when `diag_update` is None); solves and determinants by
    Woodbury's identity and the matrix determinant lemma."""

    _composite_tensor_fields = ("base_operator", "u", "diag_update", "v")
    _experimental_parameter_ndims_to_matrix_ndims = {"base_operator": 0, "u": 2,
                                                     "diag_update": 1, "v": 2}

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        """Raises:
          ValueError: hints that contradict, or a non-square base operator.
          TypeError: dtypes that differ from the base operator's.
        """
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        dtype = base_operator.dtype
        with T.scope(name):
            self._u = T.nonref(u, dtype=dtype, name="u")
            self._v = None if v is None else T.nonref(v, dtype=dtype, name="v")
            self._diag_update = None if diag_update is None else T.nonref(
                diag_update, dtype=dtype, name="diag_update")
        self._base_operator = base_operator
        self._is_diag_update_positive = True if diag_update is None else \
            is_diag_update_positive
        if v is None and base_operator.is_self_adjoint and (
                diag_update is None or not self._diag_update.dtype.is_complex):
            if is_self_adjoint is False:
                raise ValueError("A self-adjoint update of a self-adjoint operator is always "
                                 "self-adjoint.")
            is_self_adjoint = True
        if v is None and base_operator.is_positive_definite and \
                self._is_diag_update_positive and is_self_adjoint:
            if is_positive_definite is False:
                raise ValueError("A positive definite update of a positive definite "
                                 "operator is always positive definite.")
            is_positive_definite = True
        self._set_diag_operators()
        super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         parameters=parameters, name=name)

    def _set_diag_operators(self):
        if self._diag_update is not None:
            self._diag_operator = _CLASSES["Diag"](
                self._diag_update, is_positive_definite=self._is_diag_update_positive)
        else:
            r = self._u.shape[-1]
            self._diag_operator = _CLASSES["Identity"](r, dtype=self._u.dtype)

    @property
    def u(self):
        """U, [..., M, K]."""
        return self._u

    @property
    def v(self):
        """V, [..., N, K] (U when not given)."""
        return self._u if self._v is None else self._v

    @property
    def diag_update(self):
        """The diagonal of D (None: the identity)."""
        return self._diag_update

    @property
    def diag_operator(self):
        """D as an operator."""
        return self._diag_operator

    @property
    def is_diag_update_positive(self):
        """The hint that D's diagonal is positive (True when D = I)."""
        return self._is_diag_update_positive

    @property
    def base_operator(self):
        """L."""
        return self._base_operator

    def _shape(self):
        batch = _batch_broadcast(self._base_operator.batch_shape, self._u.shape[:-2])
        if self._diag_update is not None:
            batch = _batch_broadcast(batch, self._diag_update.shape[:-1])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        return T.convert(self.shape.as_list())

    def _use_cholesky(self):
        return bool(self._base_operator.is_positive_definite and self._v is None
                    and self._is_diag_update_positive and self.is_self_adjoint)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self.u, self.v
        left, right = (v, u) if adjoint else (u, v)
        lx = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vhx = T.matmul(right, x, adjoint_a=True, adjoint_b=adjoint_arg)
        dvhx = self._diag_operator.matmul(vhx, adjoint=adjoint)
        return lx + T.matmul(left, dvhx)

    def _capacitance(self):
        # C = D^-1 + V^H L^-1 U.
        linv_u = self._base_operator.solve(self.u)
        vh_linv_u = T.matmul(self.v, linv_u, adjoint_a=True)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        l_op = self._base_operator
        u, v = self.u, self.v
        if adjoint:
            u, v = v, u
        linv_rhs = l_op.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = T.matmul(v, linv_rhs, adjoint_a=True)
        cap = self._capacitance()
        if adjoint:
            cap = T.adjoint(cap)
        if self._use_cholesky():
            solved = T.cholesky_solve(*broadcast_matrix_batch(T.cholesky(cap), vh_linv_rhs))
        else:
            solved = T.solve(*broadcast_matrix_batch(cap, vh_linv_rhs))
        return linv_rhs - l_op.solve(T.matmul(u, solved), adjoint=adjoint)

    def _log_abs_determinant(self):
        cap = self._capacitance()
        if self._use_cholesky():
            d = T.matrix_diag_part(T.cholesky(cap))
            log_cap = 2. * T.reduce_sum(T.log(T.abs(d)), axis=-1)
        else:
            _, log_cap = T.slogdet(cap)
            log_cap = T.real(log_cap) if log_cap.dtype.is_complex else log_cap
        out = log_cap + self._base_operator.log_abs_determinant()
        if self._diag_update is not None:
            out = out + self._diag_operator.log_abs_determinant()
        return out

    def _determinant(self):
        if self.is_positive_definite:
            return T.exp(self.log_abs_determinant())
        out = T.det(self._capacitance()) * self._base_operator.determinant()
        if self._diag_update is not None:
            out = out * self._diag_operator.determinant()
        return out

    def _diag_part(self):
        upd = self.u * T.conj(self.v)
        if self._diag_update is not None:
            upd = upd * T.expand_dims(self._diag_update, -2)
        return self._base_operator.diag_part() + T.reduce_sum(upd, axis=-1)

    def _to_dense(self):
        du = self.u if self._diag_update is None else \
            self.u * T.expand_dims(self._diag_update, -2)
        return self._base_operator.to_dense() + T.matmul(du, self.v, adjoint_b=True)

"""`tf.experimental.numpy`'s products and contractions: `dot`, `matmul`,
`tensordot`, `inner`, `outer`, `vdot`, `cross`, `kron`, `einsum`, `trace`
and `polyval`. They run on `tf.linalg.matmul`/`tf.tensordot`/`tf.einsum`, so
their last bits follow the BLAS NumPy uses."""
import sys

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.tensor import Tensor
from ..core import broadcast_ops, constant_ops, creation_ops, dim_ops, join_ops, math_ops
from ..core import shape_ops, special_composites, split_pad_ops
from ..linalg import einsum_ops, matmul_ops, structure_ops
from . import np_array_core as A
from . import np_dtypes, np_utils
from .np_array_manip import diagonal
from .np_math_binary import bin_op
from .np_math_unary import conj
from .np_reductions import sum as _sum
from .np_utils import np_doc


@export("experimental.numpy.dot")
@np_doc("dot", check_signature=False)
def dot(a, b):
    """The product of scalars, or the sum over a's last axis and b's second
    to last (last for 1-D b)."""
    def f(a, b):
        return np_utils.cond(
            np_utils.logical_or(math_ops.equal(shape_ops.rank(a), 0),
                                math_ops.equal(shape_ops.rank(b), 0)),
            lambda: a * b,
            lambda: np_utils.cond(
                math_ops.equal(shape_ops.rank(b), 1),
                lambda: einsum_ops.tensordot(a, b, axes=[[-1], [-1]]),
                lambda: einsum_ops.tensordot(a, b, axes=[[-1], [-2]])))
    return bin_op(f, a, b)


@export("experimental.numpy.matmul")
@np_doc("matmul")
def matmul(x1, x2):
    """The matrix product, with NumPy's rules for 1-D arguments.

    Raises:
      ValueError: for shapes that do not multiply.
    """
    def f(x1, x2):
        try:
            if x1.shape.rank == 2 and x2.shape.rank == 2:
                # The MatMul op itself for two matrices.
                return matmul_ops.matmul(x1, x2)
            return np_utils.cond(
                math_ops.equal(np_utils.tf_rank(x2), 1),
                lambda: einsum_ops.tensordot(x1, x2, axes=1),
                lambda: np_utils.cond(
                    math_ops.equal(np_utils.tf_rank(x1), 1),
                    lambda: einsum_ops.tensordot(x1, x2, axes=[[0], [-2]]),
                    lambda: matmul_ops.matmul(x1, x2)))
        except errors.InvalidArgumentError as err:
            raise ValueError(str(err)).with_traceback(sys.exc_info()[2])
    return bin_op(f, x1, x2)


@export("experimental.numpy.tensordot")
@np_doc("tensordot")
def tensordot(a, b, axes=2):
    """The sum of products over the given axes (the last `axes` of a, first of b)."""
    return bin_op(lambda a, b: einsum_ops.tensordot(a, b, axes=axes), a, b)


@export("experimental.numpy.inner")
@np_doc("inner", check_signature=False)
def inner(a, b):
    """The sum of products over the last axes (the product for scalars)."""
    def f(a, b):
        return np_utils.cond(
            np_utils.logical_or(math_ops.equal(shape_ops.rank(a), 0),
                                math_ops.equal(shape_ops.rank(b), 0)),
            lambda: a * b,
            lambda: einsum_ops.tensordot(a, b, axes=[[-1], [-1]]))
    return bin_op(f, a, b)


@export("experimental.numpy.cross")
@np_doc("cross")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along the given axes."""
    def f(a, b):
        if axis is None:
            axis_a, axis_b, axis_c = axisa, axisb, axisc
        else:
            axis_a = axis_b = axis_c = axis
        if axis_a < 0:
            axis_a = np_utils.add(axis_a, shape_ops.rank(a))
        if axis_b < 0:
            axis_b = np_utils.add(axis_b, shape_ops.rank(b))

        def maybe_move_axis_to_last(a, axis):
            def move_axis_to_last(a, axis):
                return dim_ops.transpose(a, join_ops.concat(
                    [creation_ops.range(axis),
                     creation_ops.range(axis + 1, shape_ops.rank(a)), [axis]], axis=0))
            return np_utils.cond(axis == np_utils.subtract(shape_ops.rank(a), 1),
                                 lambda: a, lambda: move_axis_to_last(a, axis))

        a = maybe_move_axis_to_last(a, axis_a)
        b = maybe_move_axis_to_last(b, axis_b)
        a_dim = np_utils.getitem(shape_ops.shape(a), -1)
        b_dim = np_utils.getitem(shape_ops.shape(b), -1)

        def maybe_pad_0(a, size_of_last_dim):
            # 2-vectors get a zero z component.
            def pad_0(a):
                return split_pad_ops.pad(a, join_ops.concat(
                    [constant_ops.zeros([shape_ops.rank(a) - 1, 2], D.int32),
                     constant_ops.constant([[0, 1]], D.int32)], axis=0))
            return np_utils.cond(math_ops.equal(size_of_last_dim, 2),
                                 lambda: pad_0(a), lambda: a)

        a = maybe_pad_0(a, a_dim)
        b = maybe_pad_0(b, b_dim)
        c = matmul_ops.cross(*np_utils.tf_broadcast(a, b))
        if axis_c < 0:
            axis_c = np_utils.add(axis_c, shape_ops.rank(c))

        def move_last_to_axis(a, axis):
            r = shape_ops.rank(a)
            return dim_ops.transpose(a, join_ops.concat(
                [creation_ops.range(axis), [r - 1], creation_ops.range(axis, r - 1)], axis=0))

        # Two 2-vectors give only the z component.
        return np_utils.cond(
            (a_dim == 2) & (b_dim == 2),
            lambda: c[..., 2],
            lambda: np_utils.cond(axis_c == np_utils.subtract(shape_ops.rank(c), 1),
                                  lambda: c, lambda: move_last_to_axis(c, axis_c)))
    return bin_op(f, a, b)


@export("experimental.numpy.vdot")
@np_doc("vdot", check_signature=False)
def vdot(a, b):
    """The dot product of the flattened arrays, `a` conjugated."""
    a, b = A.promote_dtype(a, b)
    a = A.reshape(a, [-1])
    b = A.reshape(b, [-1])
    if a.dtype == np_dtypes.complex128 or a.dtype == np_dtypes.complex64:
        a = conj(a)
    return dot(a, b)


@export("experimental.numpy.kron")
@np_doc("kron")
def kron(a, b):
    """The Kronecker product."""
    a, b = A.promote_dtype(a, b)
    t_a = np_utils.cond(a.shape.rank < b.shape.rank,
                        lambda: A.reshape(a, A.pad_left_to(b.shape.rank, a.shape)),
                        lambda: a)
    t_b = np_utils.cond(b.shape.rank < a.shape.rank,
                        lambda: A.reshape(b, A.pad_left_to(a.shape.rank, b.shape)),
                        lambda: b)

    def _make_shape(shape, prepend):
        ones = constant_ops.ones_like(shape)
        shapes = [ones, shape] if prepend else [shape, ones]
        return shape_ops.reshape(join_ops.stack(shapes, axis=1), [-1])

    a_shape = shape_ops.shape(t_a)
    b_shape = shape_ops.shape(t_b)
    a_reshaped = A.reshape(t_a, _make_shape(a_shape, False))
    b_reshaped = A.reshape(t_b, _make_shape(b_shape, True))
    out_shape = a_shape * b_shape
    return A.reshape(a_reshaped * b_reshaped, out_shape)


@export("experimental.numpy.outer")
@np_doc("outer")
def outer(a, b):
    """The outer product of the flattened arrays."""
    def f(a, b):
        return shape_ops.reshape(a, [-1, 1]) * shape_ops.reshape(b, [-1])
    return bin_op(f, a, b)


@export("experimental.numpy.polyval")
@np_doc("polyval")
def polyval(p, x):
    """The polynomial with coefficients `p` (highest power first) at `x`."""
    def f(p, x):
        if p.shape.rank == 0:
            p = shape_ops.reshape(p, [1])
        p = join_ops.unstack(p)
        # tf.math.polyval on a list of one coefficient returns it unbroadcast.
        y = special_composites.polyval(p, x)
        if len(p) == 1:
            y = broadcast_ops.broadcast_to(y, x.shape)
        return y
    return bin_op(f, p, x)


@export("experimental.numpy.einsum")
@np_doc("einsum", check_signature=False)
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation; `casting` 'safe' (promote) or 'no', `optimize`
    False, True, 'greedy' or 'optimal'."""
    casting = kwargs.get("casting", "safe")
    optimize = kwargs.get("optimize", False)
    if casting == "safe":
        operands = A.promote_dtype(*operands)
    elif casting == "no":
        operands = [A.asarray(x) for x in operands]
    else:
        raise ValueError("Invalid value for argument `casting`. "
                         f"Expected casting=\"safe\" or casting=\"no\". Received: casting={casting}")
    if not optimize or optimize is True or optimize == "greedy":
        tf_optimize = "greedy"
    elif optimize == "optimal":
        tf_optimize = "optimal"
    else:
        raise ValueError("Invalid value for argument `optimize`. Expected one of {True, "
                         f"\"greedy\", \"optimal\"}}. Received: optimize={optimize}")
    return einsum_ops.einsum(subscripts, *operands, optimize=tf_optimize)


@export("experimental.numpy.trace")
@np_doc("trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of diagonal `offset` of the planes of axes `axis1`, `axis2`."""
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    a = A.asarray(a, dtype)
    if offset == 0:
        a_shape = a.shape
        if a_shape.rank is not None:
            rank = len(a_shape)
            if (axis1 == -2 or axis1 == rank - 2) and (axis2 == -1 or axis2 == rank - 1):
                return structure_ops.trace(a)
    a = diagonal(a, offset, axis1, axis2)
    return _sum(a, -1, dtype)


# tf.Tensor's `@` under NumPy behavior calls this (`a._matmul(b)` in TensorFlow).
Tensor._matmul = matmul

"""Linear algebra ops: matmul, einsum, tensordot, norms and `tf.linalg`."""
import time

import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder
from rillflow.framework.tensor_shape import TensorShape

RNG = np.random.default_rng(1234)


def rand(*shape):
    return tf.constant(RNG.standard_normal(shape))


def ph(dtype, shape):
    return placeholder(dtype, TensorShape(shape))


def well_conditioned(n):
    return tf.constant(RNG.standard_normal((n, n)) + n * np.eye(n))


def graph_op_types(g):
    return [op.type for op in g.get_operations() if op.type not in ("Const", "Placeholder")]


# --- matmul: values and dtypes ----------------------------------------------

def test_matmul_rank2_values_and_printed_form():
    a = tf.constant([[1., 2.], [3., 4.]])
    r = tf.matmul(a, a)
    assert str(r) == "tf.Tensor(\n[[ 7. 10.]\n [15. 22.]], shape=(2, 2), dtype=float32)"
    np.testing.assert_array_equal((a @ a).numpy(), r.numpy())
    assert tf.linalg.matmul is tf.matmul


def test_matmul_int32_stays_int32_and_wraps_on_overflow():
    r = tf.matmul([[1, 2]], [[3], [4]])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[11]]
    big = tf.constant([[2 ** 30, 2 ** 30]], tf.int32)
    assert tf.matmul(big, tf.transpose(big)).numpy().tolist() == [[0]]
    assert tf.matmul(tf.ones([2, 3], tf.int64), tf.ones([3, 2], tf.int64)).dtype == tf.int64


@pytest.mark.parametrize("n,hi", [(10, 100), (64, 1000), (64, 2 ** 30)])
def test_int32_matmul_is_exact_for_every_size_and_range(n, hi):
    a = RNG.integers(-hi, hi, (n, n)).astype(np.int32)
    b = RNG.integers(-hi, hi, (n, n)).astype(np.int32)
    expected = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    r = tf.matmul(tf.constant(a), tf.constant(b))
    assert r.dtype == tf.int32
    np.testing.assert_array_equal(r.numpy(), expected)


def test_small_int32_matmul_is_fast():
    a = tf.constant(np.arange(100, dtype=np.int32).reshape(10, 10))
    tf.matmul(a, a)
    n = 2000
    start = time.perf_counter()
    for _ in range(n):
        tf.matmul(a, a)
    per_call = (time.perf_counter() - start) / n
    assert per_call < 100e-6, per_call


def test_matmul_float16_and_complex():
    h = tf.matmul(tf.ones([2, 3], tf.float16), tf.ones([3, 2], tf.float16))
    assert h.dtype == tf.float16 and h.numpy().tolist() == [[3, 3], [3, 3]]
    c = tf.constant([[1 + 1j, 2]])
    r = tf.matmul(c, c, adjoint_b=True)
    assert r.dtype == tf.complex128
    np.testing.assert_allclose(r.numpy(), [[6 + 0j]])


@pytest.mark.parametrize("flag", ["transpose", "adjoint"])
def test_matmul_transpose_and_adjoint_flags(flag):
    a = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
    b = RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))
    r = tf.matmul(a, b, **{flag + "_a": True, flag + "_b": True})
    op = np.conj if flag == "adjoint" else (lambda x: x)
    np.testing.assert_allclose(r.numpy(), op(a).T @ op(b).T)


def test_batch_matmul_broadcasts_batch_dims():
    a = RNG.standard_normal((2, 1, 3, 4))
    b = RNG.standard_normal((5, 4, 2))
    r = tf.matmul(a, b)
    assert r.shape == (2, 5, 3, 2)
    np.testing.assert_allclose(r.numpy(), np.matmul(a, b))
    r = tf.matmul(tf.ones([2, 2, 3], tf.int32), tf.ones([3, 2], tf.int32))
    assert r.dtype == tf.int32 and r.shape == (2, 2, 2)


def test_matmul_output_type_widens_int8():
    r = tf.matmul(tf.ones([2, 2], tf.int8), tf.ones([2, 2], tf.int8), output_type=tf.int32)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[2, 2], [2, 2]]


# --- matmul: errors -----------------------------------------------------------

def test_matmul_eager_errors_match_tensorflow():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\] "
                             r"\[Op:MatMul\]"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[4,2,3\], In\[1\]: \[4,2,3\]"):
        tf.matmul(tf.ones([4, 2, 3]), tf.ones([4, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="compatible batch dimensions"):
        tf.matmul(tf.ones([4, 2, 3]), tf.ones([3, 3, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ndims must be == 2: 1"):
        tf.matmul(tf.constant([1., 2.]), tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="different ndims"):
        tf.matmul(tf.constant([[1., 2.]]), tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"ndims must be >= 2: 1"):
        tf.matmul(tf.ones([2]), tf.ones([2, 2, 2]))


def test_matmul_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expected to be a float tensor but is a double tensor"):
        tf.matmul(tf.ones([2, 3]), tf.ones([3, 2], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int8 is not in the list"):
        tf.matmul(tf.ones([2, 3], tf.int8), tf.ones([3, 2], tf.int8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool is not in the list"):
        tf.matmul(tf.ones([2, 3], tf.bool), tf.ones([3, 2], tf.bool))
    with pytest.raises(tf.errors.NotFoundError):
        tf.matmul(tf.ones([2, 3], tf.uint8), tf.ones([3, 2], tf.uint8))
    with pytest.raises(ValueError, match="Only one of `transpose_a` and `adjoint_a`"):
        tf.matmul(tf.ones([3, 2]), tf.ones([3, 2]), transpose_a=True, adjoint_a=True)


# --- matmul: graph construction ----------------------------------------------

def test_matmul_graph_shapes_and_op_types():
    with tf.Graph().as_default() as g:
        r = tf.matmul(ph(tf.float32, [None, 3]), ph(tf.float32, [3, 4]))
        assert r.shape.as_list() == [None, 4] and r.dtype == tf.float32
        assert r.op.type == "MatMul" and r.op.name == "MatMul"
        r = tf.matmul(ph(tf.float32, [None, None, 3]), ph(tf.float32, [3, 4]))
        assert r.shape.as_list() == [None, None, 4] and r.op.type == "BatchMatMulV2"
        r = tf.matmul(ph(tf.float32, [None, 2, 3]), ph(tf.float32, [2, 1, 3, 4]))
        assert r.shape.as_list() == [2, None, 2, 4]
        r = tf.matmul(ph(tf.float32, [5, None, 3]), ph(tf.float32, [1, 3, 4]))
        assert r.shape.as_list() == [5, None, 4]
        r = tf.matmul(ph(tf.float32, [None, 3]), ph(tf.float32, None))
        assert r.shape.rank is None and r.op.type == "BatchMatMulV2"
        r = tf.matmul(ph(tf.float32, [2, 3, 5]), ph(tf.float32, [4, 3]), transpose_a=True,
                      transpose_b=True)
        assert r.shape.as_list() == [2, 5, 4]
        r = ph(tf.float32, [2, 3]) @ ph(tf.float32, [3, 4])
        assert r.op.name.startswith("matmul") and r.shape.as_list() == [2, 4]
        r = tf.matmul(ph(tf.int8, [2, 3]), ph(tf.int8, [3, 4]), output_type=tf.int32)
        assert r.dtype == tf.int32 and r.op.type == "BatchMatMulV3"
        tf.matmul(ph(tf.complex64, [3, 2]), ph(tf.complex64, [3, 4]), adjoint_a=True)
        assert graph_op_types(g)[-2:] == ["Conj", "MatMul"]


def test_matmul_graph_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
            tf.matmul(tf.ones([4, 2, 3]), tf.ones([3, 3, 2]))
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            tf.matmul(tf.ones([2]), tf.ones([2]))
        with pytest.raises(ValueError, match="at least rank 2 but is rank 1"):
            tf.matmul(ph(tf.float32, [2]), ph(tf.float32, [2, 2, 2]))
        with pytest.raises(TypeError, match="Input 'b' of 'MatMul' Op has type float64"):
            tf.matmul(tf.ones([2, 3]), tf.ones([3, 2], tf.float64))
        with pytest.raises(TypeError, match="DataType int8 not in list of allowed values"):
            tf.matmul(tf.ones([2, 3], tf.int8), tf.ones([3, 2], tf.int8))


# --- matmul: gradients ----------------------------------------------------------

@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("flag", ["transpose", "adjoint"])
def test_matmul_gradients(ta, tb, flag):
    a = rand(3, 2) if ta else rand(2, 3)
    b = rand(4, 3) if tb else rand(3, 4)
    assert_gradients_match(
        lambda x, y: tf.matmul(x, y, **{flag + "_a": ta, flag + "_b": tb}), [a, b])


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_batch_matmul_gradients_reduce_broadcast_dims(ta, tb):
    a = rand(2, 1, 3, 2) if ta else rand(2, 1, 2, 3)
    b = rand(5, 4, 3) if tb else rand(5, 3, 4)
    assert_gradients_match(lambda x, y: tf.matmul(x, y, adjoint_a=ta, adjoint_b=tb), [a, b])


def test_batch_matmul_gradient_shapes():
    a, b = rand(2, 3), rand(4, 3, 5)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = tf.matmul(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga.shape == (2, 3) and gb.shape == (4, 3, 5)
    expected = np.sum(np.ones((4, 2, 5)) @ np.swapaxes(b.numpy(), 1, 2), axis=0)
    np.testing.assert_allclose(ga.numpy(), expected)


def test_matmul_graph_gradient_with_partial_shapes():
    with tf.Graph().as_default():
        x, y = ph(tf.float64, [None, 2, 3]), ph(tf.float64, [3, 4])
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = tf.matmul(x, y)
        gx, gy = tape.gradient(z, [x, y])
        assert gx.shape.as_list() == [None, 2, 3] and gy.shape.as_list() == [3, 4]


# --- matvec -----------------------------------------------------------------------

def test_matvec():
    r = tf.linalg.matvec(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 1]))
    assert r.dtype == tf.int32 and r.numpy().tolist() == [3, 7]
    r = tf.linalg.matvec(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 1]), transpose_a=True)
    assert r.numpy().tolist() == [4, 6]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        tf.linalg.matvec(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 1, 1]))
    with tf.Graph().as_default():
        r = tf.linalg.matvec(ph(tf.float32, [None, 4, 3]), ph(tf.float32, [3]))
        assert r.shape.as_list() == [None, 4]
    assert_gradients_match(tf.linalg.matvec, [rand(2, 2, 3), rand(3)])


# --- einsum -----------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("iji->j", [(2, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("i,i,i,i->", [(2,), (2,), (2,), (2,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i...j->j...i", [(2, 3, 4, 2)]),
    ("...i,...i->...", [(3,), (2, 3)]),
    ("ii,ij->j", [(2, 2), (2, 3)]),
    (" ij , jk -> ik ", [(2, 3), (3, 4)]),
    ("iJ->Ji", [(2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_values_and_gradients(eq, shapes):
    xs = [RNG.standard_normal(s) for s in shapes]
    np_eq = eq if "..." not in eq or "->" in eq else eq
    np.testing.assert_allclose(tf.einsum(eq, *xs).numpy(), np.einsum(np_eq, *xs), rtol=1e-12)
    assert_gradients_match(lambda *a: tf.einsum(eq, *a), [tf.constant(x) for x in xs])


def test_einsum_dtypes_and_aliases():
    r = tf.einsum("ij,jk->ik", tf.ones([2, 3], tf.int32), tf.ones([3, 4], tf.int32))
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[3] * 4] * 2
    assert tf.einsum("ii", tf.constant([[1, 2], [3, 4]])).numpy() == 5
    r = tf.einsum("ij,jk->ik", tf.ones([2, 3], tf.float16), tf.ones([3, 4], tf.float16))
    assert r.dtype == tf.float16
    big = tf.constant([[2 ** 40]], tf.int64)
    assert tf.einsum("ij,jk->ik", big, big).numpy().tolist() == [[0]]
    assert tf.linalg.einsum is tf.einsum
    assert tf.einsum(",->", tf.constant(3.), tf.constant(4.)).numpy() == 12.0
    a = RNG.standard_normal((64, 64))
    np.testing.assert_allclose(tf.einsum("ij,jk->ik", a, a).numpy(), a @ a)


def test_einsum_errors():
    with pytest.raises(ValueError, match="label appearing more than once"):
        tf.einsum("i->ii", tf.ones([2]))
    with pytest.raises(ValueError, match='Got 1 inputs for equation "ij,jk->ik", expecting 2'):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]))
    with pytest.raises(ValueError, match="label z not present"):
        tf.einsum("ij,jk->iz", tf.ones([2, 3]), tf.ones([3, 4]))
    with pytest.raises(ValueError, match="Subscripts have incorrect format"):
        tf.einsum("i1,jk->ik", tf.ones([2, 3]), tf.ones([3, 4]))
    with pytest.raises(TypeError, match="Invalid keyword arguments for einsum: foo"):
        tf.einsum("ij->ji", tf.ones([2, 3]), foo=1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension 3 at axis 0 of the input shaped \[4,4\] but got "
                             "dimension 4"):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([4, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected dimension 1 at axis 1"):
        tf.einsum("ij,ij->ij", tf.ones([2, 1]), tf.ones([2, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Expected input 0 to have rank 3 but got: 2"):
        tf.einsum("ijk,jk->ik", tf.ones([2, 3]), tf.ones([3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid broadcasting dimensions"):
        tf.einsum("...ij,...jk->...ik", tf.ones([2, 2, 3]), tf.ones([5, 3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="no ellipsis"):
        tf.einsum("...ij,...jk", tf.ones([2, 2, 3]), tf.ones([2, 3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor"):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4], tf.float64))
    with pytest.raises(tf.errors.NotFoundError):
        tf.einsum("ij,jk->ik", tf.ones([2, 3], tf.bool), tf.ones([3, 4], tf.bool))


def test_einsum_graph_shapes_and_errors():
    with tf.Graph().as_default() as g:
        r = tf.einsum("ij,jk->ik", ph(tf.float32, [None, 3]), ph(tf.float32, [3, 5]))
        assert r.shape.as_list() == [None, 5] and r.op.type == "Einsum"
        assert r.op.name == "einsum/Einsum" and r.op.get_attr("equation") == "ij,jk->ik"
        r = tf.einsum("...ij,...jk->...ik", ph(tf.float32, [None, 1, 2, 3]),
                      ph(tf.float32, [5, 3, 4]))
        assert r.shape.as_list() == [None, 5, 2, 4]
        r = tf.einsum("...ij,...jk->...ik", ph(tf.float32, None), ph(tf.float32, [None, 3, 4]))
        assert r.shape.rank is None
        r = tf.einsum("ij,jk->ik", ph(tf.float32, None), ph(tf.float32, [None, 4]))
        assert r.shape.as_list() == [None, 4]
        r = tf.einsum("ij,jk,kl->il", ph(tf.float32, [2, 3]), ph(tf.float32, [3, 4]),
                      ph(tf.float32, [4, 5]))
        assert r.shape.as_list() == [2, 5]
        assert graph_op_types(g).count("Einsum") == 6
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.einsum("ij,jk->ik", ph(tf.float32, [2, 3]), ph(tf.float32, [4, 5]))
        with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
            tf.einsum("ijk,jk->ik", ph(tf.float32, [2, 3]), ph(tf.float32, [3, 4]))
        with pytest.raises(TypeError, match="don't all match"):
            tf.einsum("ij,jk->ik", ph(tf.float32, [2, 3]), ph(tf.float64, [3, 4]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.einsum("ii->i", ph(tf.float32, [2, 3]))


def test_einsum_graph_gradients_with_unknown_dims():
    with tf.Graph().as_default():
        x, y = ph(tf.float64, [None, 1, 2, 3]), ph(tf.float64, [None, 3, 4])
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = tf.einsum("...ij,...jk->...ik", x, y)
        gx, gy = tape.gradient(z, [x, y])
        assert gx.shape.as_list() == [None, 1, 2, 3] and gy.shape.as_list() == [None, 3, 4]
        m = ph(tf.float64, [None, None])
        with tf.GradientTape() as tape:
            tape.watch(m)
            t = tf.einsum("ii->", m)
        assert tape.gradient(t, m).shape.as_list() == [None, None]


# --- tensordot ------------------------------------------------------------------

@pytest.mark.parametrize("sa,sb,axes", [
    ((2, 3), (3, 4), 1),
    ((2,), (3,), 0),
    ((2, 3), (2, 3), 2),
    ((2, 3), (3, 2), [1, 0]),
    ((2, 3), (4, 3), [[1], [1]]),
    ((2, 4, 3), (3, 5, 2), [[0, 2], [2, 0]]),
    ((2, 3), (3, 2), [[-1], [0]]),
])
def test_tensordot_values_and_gradients(sa, sb, axes):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    np.testing.assert_allclose(tf.tensordot(a, b, axes).numpy(), np.tensordot(a, b, axes))
    assert_gradients_match(lambda x, y: tf.tensordot(x, y, axes), [tf.constant(a),
                                                                    tf.constant(b)])


def test_tensordot_errors_and_dtypes():
    x = tf.ones([2, 2])
    with pytest.raises(ValueError, match="`axes` must be at least 0. Received: -1."):
        tf.tensordot(x, x, -1)
    with pytest.raises(ValueError, match="must not be larger than the number of dimensions"):
        tf.tensordot(x, x, 3)
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(x, x, [[1], [0, 1]])
    with pytest.raises(ValueError, match="must be an integer or have length 2"):
        tf.tensordot(x, x, [[1], [1], [0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        tf.tensordot(tf.ones([2, 3]), tf.ones([2, 3]), 1)
    assert tf.tensordot(tf.constant([[1, 2]]), tf.constant([[1], [2]]), 1).dtype == tf.int32
    assert tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), tf.constant(1)).shape == (2, 2)


def test_tensordot_graph():
    with tf.Graph().as_default():
        r = tf.tensordot(ph(tf.float32, [2, 3]), ph(tf.float32, [3, 5]), 1)
        assert r.op.type == "MatMul" and r.op.name == "Tensordot/MatMul"
        r = tf.tensordot(ph(tf.float32, [None, 4, 3]), ph(tf.float32, [3, 5]), [[2], [0]])
        assert r.shape.as_list() == [None, 4, 5]
        r = tf.tensordot(ph(tf.float32, [2, 4, 3]), ph(tf.float32, [3, 5, 2]), [[0, 2], [2, 0]])
        assert r.shape.as_list() == [4, 5]


# --- norm and l2_normalize --------------------------------------------------------

X = np.array([[3., -4.], [1., 2.]], np.float32)


@pytest.mark.parametrize("kwargs,expected", [
    ({}, np.sqrt(30.)),
    ({"axis": 1}, [5., np.sqrt(5.)]),
    ({"ord": 1}, 10.),
    ({"ord": np.inf}, 4.),
    ({"ord": 3}, 100. ** (1 / 3)),
    ({"ord": 0.5, "axis": 1}, [(np.sqrt(3) + 2) ** 2, (1 + np.sqrt(2)) ** 2]),
    ({"ord": "fro", "axis": [0, 1]}, np.sqrt(30.)),
    ({"ord": 1, "axis": [0, 1]}, 6.),
    ({"ord": 1, "axis": [1, 0]}, 7.),
    ({"ord": np.inf, "axis": (0, 1)}, 7.),
    ({"ord": 2, "axis": [0, 1]}, np.linalg.norm(X.astype(np.float64), 2)),
    ({"axis": -1, "keepdims": True}, [[5.], [np.sqrt(5.)]]),
    ({"keepdims": True}, [[np.sqrt(30.)]]),
])
def test_norm_values(kwargs, expected):
    r = tf.norm(X, **kwargs)
    assert r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy(), expected, rtol=1e-5)
    assert tf.linalg.norm is tf.norm


def test_norm_dtypes_and_batches():
    assert tf.norm(tf.constant([3, 4]), 1).dtype == tf.int32
    c = tf.norm(tf.constant([3 + 4j, 1]))
    assert c.dtype == tf.complex128 and np.isclose(c.numpy(), np.sqrt(26))
    assert tf.norm(tf.constant([3 + 4j, 1]), 1).dtype == tf.float64
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    r = tf.norm(x, ord=2, axis=[2, 1], keepdims=True)
    assert r.shape == (2, 1, 1)
    np.testing.assert_allclose(r.numpy().ravel(), [np.linalg.norm(m, 2) for m in x], rtol=1e-5)
    np.testing.assert_allclose(tf.norm(x, ord=1, axis=[2, 1]).numpy(), [38., 86.])


def test_norm_errors():
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(X, "fro", axis=1)
    for bad in (0, -1, -np.inf):
        with pytest.raises(ValueError, match="supported vector norm"):
            tf.norm(X, bad)
    with pytest.raises(ValueError, match="supported matrix norm in"):
        tf.norm(X, "nuc", axis=[0, 1])
    with pytest.raises(ValueError, match="tuple of 2 unique integers, got \\(1, 1\\)"):
        tf.norm(X, axis=[1, 1])
    with pytest.raises(ValueError, match="tuple of 2 unique integers"):
        tf.norm(X, axis=[0, 1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.norm(X, axis=3)


def test_norm_graph_ops():
    with tf.Graph().as_default() as g:
        r = tf.norm(ph(tf.float32, [None, 3]), axis=1)
        assert r.shape.as_list() == [None] and r.op.name == "norm/Squeeze"
        assert graph_op_types(g) == ["Mul", "Sum", "Sqrt", "Squeeze"]
        r = tf.norm(ph(tf.float32, [2, 4, 3]), ord=np.inf, axis=[-2, -1], keepdims=True)
        assert r.shape.as_list() == [2, 1, 1]


@pytest.mark.parametrize("kwargs", [
    {}, {"axis": 1}, {"ord": 1, "axis": 0}, {"ord": np.inf}, {"ord": 3, "axis": 1},
    {"ord": "fro", "axis": [0, 1]}, {"ord": 1, "axis": [0, 1]}, {"ord": np.inf, "axis": [1, 0]},
    {"ord": 2, "axis": [0, 1]},
])
def test_norm_gradients(kwargs):
    x = tf.constant([[3., -4., 0.5], [1., 2., -2.5]], tf.float64)
    assert_gradients_match(lambda t: tf.norm(t, **kwargs), [x])


def test_l2_normalize():
    np.testing.assert_allclose(tf.math.l2_normalize(X, axis=1).numpy(),
                               X / np.linalg.norm(X, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.l2_normalize(X, dim=1).numpy(),
                               X / np.linalg.norm(X, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(tf.math.l2_normalize(X).numpy(), X / np.sqrt(30.), rtol=1e-6)
    assert tf.math.l2_normalize([0., 0.]).numpy().tolist() == [0., 0.]
    np.testing.assert_allclose(tf.math.l2_normalize([0.1, 0.], epsilon=1.).numpy(), [0.1, 0.])
    c = tf.math.l2_normalize(tf.constant([3 + 4j, 0]))
    assert c.dtype == tf.complex128
    np.testing.assert_allclose(c.numpy(), [0.6 + 0.8j, 0])
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'."):
        tf.math.l2_normalize(X, axis=0, dim=1)
    with pytest.raises(TypeError, match="Cannot convert 1e-12 to EagerTensor of dtype int32"):
        tf.math.l2_normalize(tf.constant([3, 4]))
    with tf.Graph().as_default():
        r = tf.math.l2_normalize(ph(tf.float32, [None, 3]), axis=1)
        assert r.shape.as_list() == [None, 3]
    assert_gradients_match(lambda t: tf.math.l2_normalize(t, axis=1), [rand(2, 3)])


# --- diagonals, bands, transposes, trace --------------------------------------

def test_diag_and_diag_part():
    assert tf.linalg.diag([1, 2]).numpy().tolist() == [[1, 0], [0, 2]]
    assert tf.linalg.diag([1, 2], k=1).numpy().tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert tf.linalg.diag([[1, 2], [3, 4]], k=(0, 1)).numpy().tolist() == [[3, 2], [0, 4]]
    assert tf.linalg.diag([[1, 2, 0], [3, 4, 5]], k=(-1, 0), num_rows=3).numpy().tolist() == \
        [[1, 0, 0], [3, 2, 0], [0, 4, 0]]
    assert tf.linalg.diag([1, 2], num_rows=3, padding_value=9).numpy().tolist() == \
        [[1, 9], [9, 2], [9, 9]]
    m = [[1, 2, 3], [4, 5, 6]]
    assert tf.linalg.diag_part(m).numpy().tolist() == [1, 5]
    assert tf.linalg.diag_part(m, k=(-1, 1)).numpy().tolist() == [[2, 6], [1, 5], [4, 0]]
    assert tf.linalg.diag_part(m, k=(-1, 1), align="LEFT_LEFT", padding_value=7).numpy() \
        .tolist() == [[2, 6], [1, 5], [4, 7]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must be at least 2-dim, received shape: \[2\]"):
        tf.linalg.diag_part([1, 2])
    assert tf.linalg.set_diag([[1, 2], [3, 4]], [9, 8]).numpy().tolist() == [[9, 2], [3, 8]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="lower_diag_index is out of bound: 3. It must be between -2 and 3"):
        tf.linalg.diag_part(m, k=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="number of columns is too small"):
        tf.linalg.diag([1, 2], k=1, num_rows=2, num_cols=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected diagonal shape: \\[2\\]"):
        tf.linalg.set_diag([[1, 2], [3, 4]], [1, 2, 3])


def test_diag_graph_shapes():
    with tf.Graph().as_default():
        assert tf.linalg.diag(ph(tf.float32, [None, 4])).shape.as_list() == [None, 4, 4]
        r = tf.linalg.diag_part(ph(tf.float32, [None, 4, 3]))
        assert r.shape.as_list() == [None, 3] and r.op.type == "MatrixDiagPartV3"
        r = tf.linalg.diag_part(ph(tf.float32, [None, 4, 3]), k=(-1, 1))
        assert r.shape.as_list() == [None, 3, 3]
        assert tf.linalg.trace(ph(tf.float32, [None, 4, 4])).shape.as_list() == [None]


def test_trace():
    r = tf.linalg.trace(tf.constant([[1, 2], [3, 4]]))
    assert r.dtype == tf.int32 and r.numpy() == 5
    assert tf.linalg.trace(tf.ones([2, 3])).numpy() == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 2-dim"):
        tf.linalg.trace(tf.constant([1, 2]))


def test_band_part():
    x = tf.reshape(tf.constant(np.arange(16, dtype=np.int32)), [4, 4])
    assert tf.linalg.band_part(x, 1, 0).numpy().tolist() == \
        [[0, 0, 0, 0], [4, 5, 0, 0], [0, 9, 10, 0], [0, 0, 14, 15]]
    np.testing.assert_array_equal(tf.linalg.band_part(x, -1, 0).numpy(), np.tril(x.numpy()))
    np.testing.assert_array_equal(tf.linalg.band_part(x, 0, -1).numpy(), np.triu(x.numpy()))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"num_lower must be negative or less or equal to number of rows "
                             r"\(4\) got: 5"):
        tf.linalg.band_part(x, 5, 7)
    with tf.Graph().as_default():
        r = tf.linalg.band_part(ph(tf.float32, [None, 4, 3]), 1, -1)
        assert r.shape.as_list() == [None, 4, 3] and r.op.type == "MatrixBandPart"


def test_matrix_transpose_and_adjoint():
    c = tf.constant([[1 + 2j, 3]])
    np.testing.assert_array_equal(tf.linalg.adjoint(c).numpy(), [[1 - 2j], [3]])
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(c).numpy(), [[1 + 2j], [3]])
    assert tf.linalg.matrix_transpose(tf.ones([2, 3, 4])).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="should be a \\(batch\\) matrix with rank >= 2"):
        tf.linalg.matrix_transpose(tf.constant([0, 1, 2, 3]))
    with tf.Graph().as_default():
        r = tf.linalg.matrix_transpose(ph(tf.float32, [None, 4, 3]))
        assert r.shape.as_list() == [None, 3, 4] and r.op.name == "matrix_transpose/transpose"


@pytest.mark.parametrize("f,shapes", [
    (tf.linalg.trace, [(2, 3, 3)]),
    (tf.linalg.diag, [(2, 3)]),
    (lambda d: tf.linalg.diag(d, k=(-1, 1)), [(3, 3)]),
    (tf.linalg.diag_part, [(2, 3, 4)]),
    (lambda x: tf.linalg.diag_part(x, k=(-1, 1)), [(3, 4)]),
    (tf.linalg.set_diag, [(3, 3), (3,)]),
    (lambda x: tf.linalg.band_part(x, 1, 0), [(3, 4)]),
    (tf.linalg.matrix_transpose, [(2, 3, 4)]),
    (tf.linalg.cross, [(2, 3), (2, 3)]),
])
def test_structural_gradients(f, shapes):
    assert_gradients_match(f, [rand(*s) for s in shapes])


# --- cross ------------------------------------------------------------------------

def test_cross():
    r = tf.linalg.cross(tf.constant([1., 2., 3.]), tf.constant([4., 5., 6.]))
    assert r.numpy().tolist() == [-3., 6., -3.]
    assert tf.linalg.cross([1, 2, 3], [4, 5, 6]).dtype == tf.int32
    with pytest.raises(tf.errors.FailedPreconditionError, match="3-element vectors"):
        tf.linalg.cross(tf.constant([1., 2.]), tf.constant([4., 5.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Both inputs must be of same shape"):
        tf.linalg.cross(tf.ones([2, 3]), tf.ones([3]))
    with tf.Graph().as_default():
        r = tf.linalg.cross(ph(tf.float32, [None, 3]), ph(tf.float32, [None, 3]))
        assert r.shape.as_list() == [None, 3]
        with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
            tf.linalg.cross(ph(tf.float32, [None, 2]), ph(tf.float32, [None, 2]))


# --- inverse, determinants, solvers, decompositions ------------------------------

A = np.array([[1., 2.], [3., 4.]], np.float32)


def test_inverse_and_determinants():
    np.testing.assert_allclose(tf.linalg.inv(A).numpy(), np.linalg.inv(A), rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.inv(A, adjoint=True).numpy(), np.linalg.inv(A.T),
                               rtol=1e-6)
    assert tf.linalg.inv(tf.ones([0, 0])).shape == (0, 0)
    assert tf.linalg.det(A).numpy() == pytest.approx(-2.0)
    assert tf.linalg.det(tf.ones([0, 0])).numpy() == 1.0
    d = tf.linalg.det(tf.ones([2, 3, 3], tf.float64))
    assert d.dtype == tf.float64 and d.shape == (2,)
    s = tf.linalg.slogdet(A)
    assert s.sign.numpy() == -1.0 and s.log_abs_determinant.numpy() == pytest.approx(np.log(2))
    s = tf.linalg.slogdet(tf.constant([[1., 2.], [2., 4.]]))
    assert s.sign.numpy() == 0 and s.log_abs_determinant.numpy() == -np.inf
    assert tf.linalg.logdet(tf.constant([[4., 2.], [2., 3.]])).numpy() == pytest.approx(np.log(8))


def test_linalg_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
        tf.linalg.inv(tf.constant([[1., 2.], [2., 4.]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.inv(tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank >= 2, got 1"):
        tf.linalg.inv(tf.ones([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 is not in the list"):
        tf.linalg.inv(tf.ones([2, 2], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.det(tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible."):
        tf.linalg.solve(tf.constant([[1., 2.], [2., 4.]]), tf.constant([[1.], [2.]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same rank"):
        tf.linalg.solve(A, tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix and rhs are "
                                                             "incompatible."):
        tf.linalg.solve(A, tf.constant([[1.], [2.], [3.]]))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.linalg.inv(ph(tf.float32, [None, 2, 3]))
        with pytest.raises(TypeError, match="DataType int32 not in list"):
            tf.linalg.det(ph(tf.int32, [2, 2]))


def test_cholesky_solve_and_triangular_solve():
    chol = tf.linalg.cholesky(tf.constant([[4., 2.], [2., 3.]]))
    np.testing.assert_allclose(chol.numpy(), [[2., 0.], [1., np.sqrt(2.)]], rtol=1e-6)
    # Only the lower triangle is read.
    np.testing.assert_allclose(tf.linalg.cholesky(tf.constant([[4., 100.], [2., 3.]])).numpy(),
                               chol.numpy())
    assert np.isnan(tf.linalg.cholesky(tf.constant([[1., 2.], [2., 1.]])).numpy()).any()
    np.testing.assert_allclose(tf.linalg.solve(A, [[1.], [2.]]).numpy(), [[0.], [0.5]],
                               atol=1e-6)
    np.testing.assert_allclose(tf.linalg.solve(A, [[1.], [2.]], adjoint=True).numpy(),
                               [[1.], [0.]], atol=1e-6)
    m = tf.constant([[1., 5.], [3., 4.]])
    np.testing.assert_allclose(tf.linalg.triangular_solve(m, [[1.], [2.]]).numpy(),
                               [[1.], [-0.25]])
    np.testing.assert_allclose(tf.linalg.triangular_solve(m, [[1.], [2.]], lower=False).numpy(),
                               [[-1.5], [0.5]])
    np.testing.assert_allclose(tf.linalg.triangular_solve(m, [[1.], [2.]], adjoint=True).numpy(),
                               [[-0.5], [0.5]])
    r = tf.linalg.triangular_solve(m, tf.ones([3, 2, 1]))
    assert r.shape == (3, 2, 1)
    r = tf.linalg.triangular_solve(tf.constant([[0., 0.], [3., 4.]]), tf.ones([2, 1]))
    assert np.isinf(r.numpy()[0, 0])


def test_qr_and_svd():
    x = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)
    q, r = tf.linalg.qr(x)
    assert q.shape == (3, 2) and r.shape == (2, 2)
    np.testing.assert_allclose((q @ r).numpy(), x, rtol=1e-5)
    np.testing.assert_allclose(r.numpy()[0, 0], -5.91608, rtol=1e-5)
    q, r = tf.linalg.qr(x, full_matrices=True)
    assert q.shape == (3, 3) and r.shape == (3, 2)
    s = tf.linalg.svd(x, compute_uv=False)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-5)
    s, u, v = tf.linalg.svd(x)
    np.testing.assert_allclose((u * s @ tf.linalg.adjoint(v)).numpy(), x, rtol=1e-5)
    c = tf.linalg.svd(tf.constant([[1 + 1j, 2]]), compute_uv=False)
    assert c.dtype == tf.float64


def test_decomposition_graph_shapes():
    with tf.Graph().as_default():
        assert tf.linalg.inv(ph(tf.float32, [None, 3, 3])).shape.as_list() == [None, 3, 3]
        assert tf.linalg.det(ph(tf.float32, [None, 3, 3])).shape.as_list() == [None]
        s = tf.linalg.slogdet(ph(tf.float32, [None, 3, 3]))
        assert s.sign.shape.as_list() == [None] and s.log_abs_determinant.op.type == \
            "LogMatrixDeterminant"
        assert tf.linalg.cholesky(ph(tf.float32, [None, 3, 3])).shape.as_list() == [None, 3, 3]
        r = tf.linalg.solve(ph(tf.float32, [None, 3, 3]), ph(tf.float32, [None, 3, 2]))
        assert r.shape.as_list() == [None, 3, 2]
        r = tf.linalg.triangular_solve(ph(tf.float32, [3, 3]), ph(tf.float32, [None, 3, 2]))
        assert r.shape.as_list() == [None, 3, 2] and r.op.type == "MatrixTriangularSolve"
        q, r = tf.linalg.qr(ph(tf.float32, [None, 5, 3]))
        assert q.shape.as_list() == [None, 5, 3] and r.shape.as_list() == [None, 3, 3]
        s, u, v = tf.linalg.svd(ph(tf.float32, [None, 5, 3]))
        assert s.shape.as_list() == [None, 3] and v.shape.as_list() == [None, 3, 3]


@pytest.mark.parametrize("f", [
    tf.linalg.inv,
    lambda a: tf.linalg.inv(a, adjoint=True),
    tf.linalg.det,
    lambda a: tf.linalg.slogdet(a).log_abs_determinant,
    lambda a: tf.linalg.cholesky(tf.matmul(a, a, transpose_b=True)),
    lambda a: tf.linalg.qr(a)[0],
    lambda a: tf.linalg.qr(a)[1],
    lambda a: tf.linalg.svd(a, compute_uv=False),
    lambda a: tf.linalg.svd(a)[1] ** 2,
    lambda a: tf.linalg.svd(a)[2] ** 2,
])
def test_decomposition_gradients(f):
    assert_gradients_match(f, [well_conditioned(3)])


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_solver_gradients(lower, adjoint):
    a = well_conditioned(3)
    assert_gradients_match(lambda m, r: tf.linalg.solve(m, r, adjoint=adjoint), [a, rand(3, 2)])
    assert_gradients_match(
        lambda m, r: tf.linalg.triangular_solve(m, r, lower=lower, adjoint=adjoint),
        [a, rand(2, 3, 2)])


# --- complex gradients (TensorFlow's convention: dL = Re(sum(conj(grad) * dx))) --

def crand(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def assert_complex_gradient(f_tf, f_np, x0):
    """Checks the tape gradient of Re(<w, f(x)>) against complex central differences."""
    y0 = np.asarray(f_np(x0))
    w = crand(*y0.shape)
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f_tf(x)
    g = tape.gradient(y, x, output_gradients=tf.constant(w)).numpy()

    def loss(v):
        return np.real(np.sum(np.conj(w) * f_np(v)))
    eps = 1e-6
    num = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[idx] = eps
        num[idx] = ((loss(x0 + e) - loss(x0 - e)) + 1j * (loss(x0 + 1j * e)
                                                        - loss(x0 - 1j * e))) / (2 * eps)
    np.testing.assert_allclose(g, num, atol=1e-6)


@pytest.mark.parametrize("f_tf,f_np", [
    (lambda a: tf.matmul(a, a, adjoint_a=True), lambda a: a.conj().T @ a),
    (lambda a: tf.matmul(a[None], a, adjoint_b=True), lambda a: (a @ a.conj().T)[None]),
    (lambda a: tf.einsum("ij,jk->ik", a, a), lambda a: a @ a),
    (lambda a: tf.einsum("ii->i", a), np.diagonal),
    (tf.linalg.inv, np.linalg.inv),
    (tf.linalg.det, np.linalg.det),
    (lambda a: tf.linalg.cholesky(tf.matmul(a, a, adjoint_b=True)),
     lambda a: np.linalg.cholesky(a @ a.conj().T)),
    (lambda a: tf.linalg.qr(a).r, lambda a: np.linalg.qr(a)[1]),
    (lambda a: tf.linalg.qr(a).q, lambda a: np.linalg.qr(a)[0]),
])
def test_complex_gradients(f_tf, f_np):
    assert_complex_gradient(f_tf, f_np, crand(3, 3) + 3 * np.eye(3))


def test_svd_gradients_wide_and_complex_values():
    assert_gradients_match(lambda a: tf.linalg.svd(a)[1] ** 2, [rand(3, 4)])
    assert_gradients_match(lambda a: tf.linalg.svd(a)[2] ** 2, [rand(3, 4)])
    x = tf.constant(crand(2, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tf.linalg.svd(x, compute_uv=False)
    g = tape.gradient(s, x)
    u, _, vh = np.linalg.svd(x.numpy())
    np.testing.assert_allclose(g.numpy(), u @ vh, atol=1e-12)



def test_einsum_bfloat16_accumulates_in_float32():
    # TensorFlow 2.21 gives these bfloat16 values for the same inputs
    # (Keras' int4/int8-quantized EinsumDense runs bfloat16 einsums).
    rng = np.random.RandomState(0)
    a = tf.cast(tf.constant(rng.rand(2, 3, 4).astype("float32")), tf.bfloat16)
    b = tf.cast(tf.constant(rng.rand(4, 5).astype("float32")), tf.bfloat16)
    r = tf.einsum("abc,cd->abd", a, b)
    assert r.dtype == tf.bfloat16 and r.shape == (2, 3, 5)
    assert np.asarray(tf.cast(r, tf.float32)).ravel()[:8].tolist() == [
        0.7421875, 1.1015625, 1.234375, 1.59375, 1.296875, 0.93359375, 1.03125, 1.21875]


def test_svd_and_lstsq_of_matrices_holding_inf_or_nan_do_not_hang():
    # LAPACK's SVD asked for U and V, and its least squares, loop forever on
    # an inf (np.linalg.svd and lstsq never returned). TensorFlow 2.21 gives
    # NaN in every SVD output of such a matrix, and the others' values; its
    # least squares (fast=False) gives zeros for a matrix holding inf or NaN.
    x = np.ones((3, 3, 4), np.float32)
    x[0, 1, 2], x[1, 0, 0] = np.nan, np.inf
    for full in (False, True):
        s, u, v = tf.linalg.svd(x, full_matrices=full)
        assert np.isnan(s.numpy()[:2]).all() and np.isnan(u.numpy()[:2]).all() and \
            np.isnan(v.numpy()[:2]).all()
        want = np.linalg.svd(x[2].astype(np.float64), compute_uv=False)
        np.testing.assert_allclose(s.numpy()[2], want, atol=1e-5)
        np.testing.assert_allclose((u.numpy()[2][:, :3] * s.numpy()[2]) @ v.numpy()[2][:, :3].T,
                                   x[2], atol=1e-5)
    s = tf.linalg.svd(x, compute_uv=False).numpy()
    assert np.isnan(s[:2]).all() and np.isfinite(s[2]).all()
    assert np.isnan(tf.norm(x, ord=2, axis=[-2, -1]).numpy()[:2]).all()
    a = np.ones((2, 4, 3))
    a[0, 0, 0] = np.inf
    b = np.ones((2, 4, 1))
    b[1, 2, 0] = np.nan
    np.testing.assert_array_equal(tf.linalg.lstsq(a, b, fast=False).numpy().ravel(),
                                  [0, 0, 0, np.nan, np.nan, np.nan])


def test_expm_of_a_matrix_holding_inf_or_nan_is_nan_and_returns():
    # Its squaring count is inf for an inf norm: the loop never ended. As
    # TensorFlow's expm, a batch with a non-finite norm gives NaN everywhere.
    x = np.eye(3, dtype=np.float32) * 2 + 1
    x[0, 1] = np.inf
    assert np.isnan(tf.linalg.expm(x).numpy()).all()
    assert np.isnan(tf.linalg.expm(np.stack([np.eye(3, dtype=np.float32), x])).numpy()).all()
    x[0, 1] = np.nan
    assert np.isnan(tf.function(tf.linalg.expm)(x).numpy()).all()
    rot = np.array([[0.0, 1.0], [-1.0, 0.0]], np.float32)
    np.testing.assert_allclose(tf.linalg.expm(rot).numpy(),
                               [[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]], rtol=1e-6)

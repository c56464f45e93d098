"""GPU placement (framework/placement.py): `tf.device("/GPU:i")` for eager
tensors and variables, compiled (`jit_compile=True`) calls on the device a
scope names, `.device` and `.numpy()`.

Without a GPU the same checks run in a subprocess where one of two JAX host
devices stands in for "GPU 0" (every code path but the CUDA kernels); on a
machine where JAX sees a GPU, `test_real_gpu` runs them on it, with a
training step compared against the CPU.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The checks, as a script: `gpu` is the JAX device that "/GPU:0" means and
# `default` JAX's default device.
CHECKS = textwrap.dedent('''
    import numpy as np
    import rillflow as tf
    from rillflow.framework import placement

    GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
    CPU = "/job:localhost/replica:0/task:0/device:CPU:0"

    def where(t):
        copy = placement.device_copy(t._v)
        return None if copy is None else next(iter(copy.devices()))

    assert [d.name for d in tf.config.list_physical_devices("GPU")][:1] == \\
        ["/physical_device:GPU:0"]
    assert [d.name for d in tf.config.list_logical_devices("GPU")][:1] == ["/device:GPU:0"]
    assert tf.test.is_gpu_available() and tf.test.gpu_device_name() == "/device:GPU:0"
    gpu_dev = tf.config.list_physical_devices("GPU")[0]
    tf.config.experimental.set_memory_growth(gpu_dev, True)
    assert tf.config.experimental.get_memory_growth(gpu_dev) is True

    # Eager tensors and variables placed by a scope; a CPU scope or none: CPU.
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    plain = tf.constant(src)
    assert plain.device == CPU and where(plain) is None
    with tf.device("/GPU:0"):
        x = tf.constant(src)
        s = tf.constant(2.5)
        y = tf.identity(plain)
        w0 = np.ones((3, 2), np.float32)
        v = tf.Variable(w0)
        eager_sum = x + 1.0      # eager ops compute on the CPU and say so
    assert x.device == GPU and where(x) == gpu, (x.device, where(x))
    assert s.device == GPU and y.device == GPU and v.device == GPU
    assert eager_sum.device == CPU
    assert plain.device == CPU      # identity copied, the source stays
    # The tensor's value is its own: the user's array changing later, or
    # the source of tf.constant being written, changes nothing.
    src[0, 0] = 100.0
    w0[:] = 7.0
    np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(v.numpy(), np.ones((3, 2), np.float32))
    n = x.numpy()
    n[0, 0] = -1.0          # .numpy() is a copy back to the host
    assert float(x[0, 0]) == 0.0

    @tf.function(jit_compile=True)
    def f(a):
        v.assign_add(tf.ones_like(v))
        return tf.matmul(a, v) * 2.0

    expect = np.arange(6, dtype=np.float32).reshape(2, 3) @ np.full((3, 2), 2.0, np.float32) * 2
    with tf.device("/GPU:0"):
        r = f(x)
    assert r.device == GPU and where(r) == gpu and v.device == GPU
    np.testing.assert_allclose(r.numpy(), expect, rtol=1e-6)
    # A result passed on to a compiled call is taken from the device.
    g = tf.function(lambda a: a + 1.0, jit_compile=True)
    with tf.device("/GPU:0"):
        q = g(r)
    assert where(q) == gpu
    np.testing.assert_allclose(q.numpy(), expect + 1.0, rtol=1e-6)
    with tf.device("/GPU:0"):
        r2 = f(x)
    np.testing.assert_allclose(r2.numpy(), expect * 1.5, rtol=1e-6)
    with tf.device("/CPU:0"):
        r3 = f(x)
    assert r3.device == CPU and where(r3).platform == "cpu"
    np.testing.assert_allclose(r3.numpy(), expect * 2.0, rtol=1e-6)
    assert v.device == CPU      # written by a call that ran on the CPU
    # An eager assignment between compiled calls is seen by the next call.
    v.assign(np.zeros((3, 2), np.float32))
    with tf.device("/GPU:0"):
        r4 = f(x)
    np.testing.assert_allclose(r4.numpy(), expect / 2.0, rtol=1e-6)
    assert v.device == GPU

    # A training step on the GPU and on the CPU from the same weights: the
    # same losses and weights within float tolerance (TensorFloat-32 off).
    tf.config.experimental.enable_tensor_float_32_execution(False)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 20)).astype(np.float32)
    ys = rng.integers(0, 5, size=64)
    w1_0 = rng.normal(scale=0.3, size=(20, 32)).astype(np.float32)
    w2_0 = rng.normal(scale=0.3, size=(32, 5)).astype(np.float32)

    def train(device):
        with tf.device(device):
            w1, w2 = tf.Variable(w1_0), tf.Variable(w2_0)
            xt, yt = tf.constant(xs), tf.constant(ys)

        @tf.function(jit_compile=True)
        def step(a, b):
            with tf.GradientTape() as tape:
                h = tf.nn.relu(tf.matmul(a, w1))
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    b, tf.matmul(h, w2)))
            g1, g2 = tape.gradient(loss, [w1, w2])
            w1.assign_sub(0.1 * g1)
            w2.assign_sub(0.1 * g2)
            return loss

        with tf.device(device):
            losses = [float(step(xt, yt)) for _ in range(20)]
        return losses, w1.numpy(), w2.numpy(), w1.device

    gl, g1, g2, gdev = train("/GPU:0")
    cl, c1, c2, cdev = train("/CPU:0")
    assert gdev == GPU and cdev == CPU
    assert gl[-1] < gl[0]
    np.testing.assert_allclose(gl, cl, rtol=1e-5)
    np.testing.assert_allclose(g1, c1, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(g2, c2, rtol=1e-4, atol=1e-6)
    tf.config.experimental.enable_tensor_float_32_execution(True)
    print("placement checks passed")
''')

SIMULATED = '''
from rillflow.framework import lowering
jax = lowering.load()
gpu = jax.devices("cpu")[1]
lowering._gpus.append([gpu])        # JAX's second host device plays GPU 0
'''

REAL = '''
from rillflow.framework import lowering
gpu = lowering.gpu_devices()[0]
'''


def _gpus():
    from rillflow.framework import lowering
    return lowering.gpu_devices()


def test_placement_on_a_stand_in_gpu():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", SIMULATED + CHECKS], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "placement checks passed" in out.stdout


def test_without_gpus_everything_is_on_the_cpu():
    import rillflow as tf
    if _gpus():
        pytest.skip("this machine has a GPU")
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    with tf.device("/GPU:0"):   # soft placement: the CPU
        x = tf.constant([1.0, 2.0])
        v = tf.Variable(3.0)
    f = tf.function(lambda a: a * v, jit_compile=True)
    with tf.device("/GPU:0"):
        r = f(x)
    assert x.device == v.device == r.device == cpu
    np.testing.assert_array_equal(r.numpy(), [3.0, 6.0])
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_logical_devices("GPU") == []
    assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""


@pytest.mark.skipif(not _gpus(), reason="JAX sees no GPU here")
def test_real_gpu():
    out = subprocess.run([sys.executable, "-c", REAL + CHECKS],
                         env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "placement checks passed" in out.stdout


LAZY = '''
import numpy as np
import rillflow as tf
from rillflow.compiler import xla_compile
from rillflow.ops.state.resource_ops import ResourceHandle

with tf.device("/GPU:0"):
    v = tf.Variable(np.ones(3, np.float32))
    x = tf.constant(np.arange(3, dtype=np.float32))

@tf.function(jit_compile=True)
def step(a):
    v.assign_add(a)
    return tf.reduce_sum(v)

storage = v._storage
sums = []
with tf.device("/GPU:0"):
    for _ in range(3):
        sums.append(float(step(x)))
        # The newest value stays on the device until eager code reads it,
        # step after step.
        assert storage.__class__ is xla_compile._PendingHost
assert sums == [6.0, 9.0, 12.0], sums
assert v.device.endswith("GPU:0")
np.testing.assert_array_equal(v.numpy(), [1.0, 4.0, 7.0])
assert storage.__class__ is ResourceHandle
with tf.device("/GPU:0"):
    step(x)
assert storage.__class__ is xla_compile._PendingHost
v.assign([0.0, 0.0, 1.0])          # an eager write replaces the pending value
assert storage.__class__ is ResourceHandle
np.testing.assert_array_equal(v.numpy(), [0.0, 0.0, 1.0])
with tf.device("/GPU:0"):
    assert float(step(x)) == 4.0
ckpt = tf.train.Checkpoint(v=v)     # saving reads the host value
import tempfile, os
path = ckpt.write(os.path.join(tempfile.mkdtemp(), "c"))
v.assign([9.0, 9.0, 9.0])
ckpt.read(path)
np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 3.0])
print("lazy host values passed")
'''


def test_variables_written_on_a_gpu_copy_to_the_host_when_read():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", SIMULATED + LAZY], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "lazy host values passed" in out.stdout

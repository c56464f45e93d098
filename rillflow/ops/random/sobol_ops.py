"""`tf.math.sobol_sample` (SobolSample): points of the unscrambled Sobol
sequence with Joe and Kuo's direction numbers, the zero point left out, as in
TensorFlow. The direction numbers (the same table TensorFlow uses) come from
SciPy's `scipy.stats.qmc.Sobol` (the `signal` extra); without SciPy the kernel
raises an ImportError that says so.
"""

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U

_MAX_DIM = 21200
# TensorFlow's attr messages name dtypes as its C++ enum does.
_TF_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _dtype_message(dt):
    return (f"Value for attr 'dtype' of {_TF_NAMES.get(dt.name, dt.name)} is not in the list "
            "of allowed values: float, double")


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _sobol_kernel(dim, num_results, skip, dtype=D.float32):
    dim, num_results, skip = int(dim), int(num_results), int(skip)
    if dim < 1:
        raise _invalid("dim must be at least one")
    if dim > _MAX_DIM:
        raise _invalid(f"dim must be at most {_MAX_DIM}")
    if num_results < 1:
        raise _invalid("num_results must be at least one")
    if skip < 0:
        raise _invalid("skip must be non-negative")
    try:
        from scipy.stats import qmc
    except ImportError:
        raise ImportError("tf.math.sobol_sample needs SciPy (install rillflow's `signal` "
                          "extra) for the Sobol direction numbers.") from None
    sampler = qmc.Sobol(dim, scramble=False)
    # TensorFlow's sequence starts after the all-zero point.
    sampler.fast_forward(skip + 1)
    # Dyadic rationals with at most 32 bits: exact in float64, rounded once to float32.
    return sampler.random(num_results).astype(D.as_dtype(dtype).as_numpy_dtype)


def _sobol_infer(inputs, attrs):
    dt = D.as_dtype(attrs.get("dtype", D.float32))
    if dt not in (D.float32, D.float64):
        raise TypeError(_dtype_message(dt))
    dims = [U.constant_value(inputs[1]), U.constant_value(inputs[0])]
    return [(TensorShape([None if v is None else int(v) for v in dims]), dt)]


_SobolSample = register("SobolSample", _sobol_kernel, _sobol_infer, None)


@export("math.sobol_sample", "compat.v1.math.sobol_sample")
def sobol_sample(dim, num_results, skip=0, dtype=D.float32, name=None):
    """The first `num_results` points (after `skip`) of the `dim`-dimensional
    Sobol sequence in [0, 1)^dim, shape [num_results, dim].

    Raises:
      InvalidArgumentError: dim outside [1, 21200], num_results < 1 or skip < 0.
    """
    dt = D.as_dtype(dtype)
    if dt not in (D.float32, D.float64):
        raise errors.InvalidArgumentError(None, None, _dtype_message(dt))
    ins = [convert_to_tensor(v, dtype=D.int32) for v in (dim, num_results, skip)]
    return apply(_SobolSample, ins, {"dtype": dt}, name=name or "SobolSample")


# The inputs are shape-like scalars: computed at compile time (framework/lowering.py).
XL.set_lowerings({"SobolSample": XL.host_rule})

"""`tf.train.ExponentialMovingAverage`: shadow variables that follow
variables by `shadow -= (shadow - value) * (1 - decay)` (TensorFlow's
assign_moving_average, in the variables' dtype), with TensorFlow's shadow
names (`<var>/ExponentialMovingAverage`) and the `num_updates` warm-up
`decay = min(decay, (1 + n) / (10 + n))`."""
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..control_flow.control_ops import group
from ..core import math_ops as M
from ..core.creation_ops import name_scope
from .variables import Variable

_FLOATS = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64) if d is not None)


def _base_name(var):
    return var.name[:-2] if var.name.endswith(":0") else var.name


@export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """Moving averages of variables (`apply` creates and updates them).

    Args:
      decay: the decay (e.g. 0.999).
      num_updates: a step count for the warm-up of the decay, or None.
      zero_debias: accepted for the shadow variables of tensors (graphs only).
      name: the name of the shadow variables' scope.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        """The name of the shadow variables' scope."""
        return self._name

    def apply(self, var_list=None):
        """Creates shadow variables for `var_list` (once, holding their
        values) and moves each toward its variable; returns the update op
        (None eagerly).

        Raises:
          TypeError: for a tensor eagerly or a variable that is not floating.
        """
        var_list = list(var_list or [])
        for v in var_list:
            if not isinstance(v, Variable) and _context.executing_eagerly():
                raise TypeError("tf.train.ExponentialMovingAverage does not support "
                                "non-Variable tensors when eager execution is enabled.")
        for var in var_list:
            if var.dtype not in _FLOATS:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if id(var) not in self._averages:
                with _context.init_scope():
                    value = var.read_value()
                    with name_scope(None):
                        avg = Variable(value, trainable=False,
                                       name=_base_name(var) + "/" + self._name)
                self._averages[id(var)] = (var, avg)
        with name_scope(self._name):
            decay = convert_to_tensor(self._decay, dtype=D.float32, name="decay")
            if self._num_updates is not None:
                n = M.cast(self._num_updates, D.float32, name="num_updates")
                decay = M.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = [self._assign_moving_average(self._averages[id(v)][1], v, decay)
                       for v in var_list]
            return group(*updates)

    @staticmethod
    def _assign_moving_average(avg, value, decay):
        with name_scope("AssignMovingAvg"):
            one_minus = 1.0 - decay
            if one_minus.dtype is not avg.dtype:
                one_minus = M.cast(one_minus, avg.dtype)
            return avg.assign_sub((avg - value) * one_minus)

    def average(self, var):
        """The shadow variable of `var`, or None."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var):
        """The name of `var`'s shadow variable (without ':0')."""
        entry = self._averages.get(id(var))
        if entry is not None:
            return _base_name(entry[1])
        return _base_name(var) + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        """{shadow name: variable} for `moving_avg_variables` (TensorFlow's
        mapping for restoring variables from their averages)."""
        out = {}
        for v in moving_avg_variables or []:
            out[self.average_name(v)] = v
        return out

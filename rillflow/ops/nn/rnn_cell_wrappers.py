"""`tf.nn.RNNCellDropoutWrapper`, `RNNCellResidualWrapper` and
`RNNCellDeviceWrapper`: wrappers around an RNN cell (a Keras 3 cell such as
`keras.layers.LSTMCell`, or any object with `call(inputs, states)`,
`state_size` and `output_size`) that add dropout to its inputs, states and
outputs, add its inputs to its outputs, or run it under `tf.device`.

As TensorFlow 2.21's (its legacy Keras copy), a wrapper builds the cell on
its first call with the inputs' shape and then runs the cell's `call`
directly. Dropout is `tf.nn.dropout` with TensorFlow's per-part seeds (the
first 8 hex digits of md5(str(seed) + "input_0"), ...), so seeded wrappers
drop what TensorFlow's drop; `variational_recurrent` draws one noise tensor
per part at construction and reuses it every step.
"""
import hashlib
import numbers

from ...framework import nest
from ...framework.convert import convert_to_tensor
from ...framework.device import device as _device
from ...framework.tensor_shape import TensorShape
from ...framework.api_export import export
from ..core import op_util as U
from ..core.constant_ops import zeros
from ..core.math_ops import cast, divide, multiply
from ..core.unary_ops import floor
from ..core.math_ops import add
from ..random.stateful_ops import uniform
from ..state.module import Module
from .dropout_embedding import dropout


def _enumerated_map_up_to(shallow, fn, *args):
    """map_structure_up_to(shallow, fn(i, ...), *args), i counting the leaves."""
    counter = [0]

    def enumerated(*inner):
        r = fn(counter[0], *inner)
        counter[0] += 1
        return r
    return nest.map_structure_up_to(shallow, enumerated, *args)


def _traverse_shallow(fn, structure):
    """The shallow structure of `structure` whose True leaves are the parts
    `fn` (called on each level) asks to traverse, as tf.nest's
    get_traverse_shallow_structure."""
    flag = fn(structure)
    if not nest.is_nested(structure):
        if not isinstance(flag, bool):
            raise TypeError("If the structure is not nested, the traverse function must "
                            f"return a bool, got {flag!r}")
        return flag
    children = nest._children(structure)
    if isinstance(flag, bool):
        if not flag:
            return False
        flags = [True] * len(children)
    else:
        flags = nest._children(flag)
    out = [(_traverse_shallow(fn, c) if f else False) for c, f in zip(children, flags)]
    return nest._rebuild(structure, out)


def _is_lstm_state(s):
    return isinstance(s, tuple) and type(s).__name__ == "LSTMStateTuple" and \
        getattr(s, "_fields", None) == ("c", "h")


def _default_state_filter(substate):
    """Dropout on every state part but the `c` of an LSTMStateTuple and
    TensorArrays."""
    if _is_lstm_state(substate):
        return type(substate)(c=False, h=True)
    if type(substate).__name__ == "TensorArray":
        return False
    return True


class _RNNCellWrapper(Module):
    """What the three wrappers share: the wrapped cell, its sizes, building
    it on the first call, and the Keras-style config."""

    def __init__(self, cell, name=None, dtype=None, **kwargs):
        super().__init__(name=name)
        self.cell = cell
        self._dtype = dtype
        self.built = False

    @property
    def wrapped_cell(self):
        """The wrapped cell."""
        return self.cell

    @property
    def state_size(self):
        """The wrapped cell's state size."""
        return self.cell.state_size

    @property
    def output_size(self):
        """The wrapped cell's output size."""
        return self.cell.output_size

    @property
    def compute_dtype(self):
        """The wrapped cell's compute dtype (Keras reads it)."""
        return getattr(self.cell, "compute_dtype", self._dtype or "float32")

    @property
    def trainable_weights(self):
        """The wrapped cell's trainable weights."""
        return list(getattr(self.cell, "trainable_weights", ()))

    @property
    def non_trainable_weights(self):
        """The wrapped cell's non-trainable weights."""
        return list(getattr(self.cell, "non_trainable_weights", ()))

    @property
    def weights(self):
        """The wrapped cell's weights."""
        return list(getattr(self.cell, "weights", ()))

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def variables(self):
        return self.weights

    def build(self, inputs_shape):
        """Builds the wrapped cell for inputs of shape `inputs_shape`."""
        if not getattr(self.cell, "built", False):
            self.cell.build(inputs_shape)
        self.built = True

    def __call__(self, inputs, state, **kwargs):
        """One step: (output, new state) of the wrapped cell, wrapped."""
        # As a Keras layer does, NumPy and Python inputs become tensors.
        inputs = nest.map_structure(
            lambda v: v if hasattr(v, "shape") and hasattr(v, "dtype") and
            not hasattr(v, "__array_interface__") else convert_to_tensor(v), inputs)
        if not self.built:
            first = nest.flatten(inputs)[0]
            self.build(TensorShape(getattr(first, "shape", None)))
        return self.call(inputs, state, **kwargs)

    def call(self, inputs, state, **kwargs):
        """One step, the cell already built."""
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.call, **kwargs)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The wrapped cell's initial state (zeros of `state_size`)."""
        if hasattr(self.cell, "get_initial_state"):
            try:
                return self.cell.get_initial_state(batch_size=batch_size)
            except TypeError:
                return self.cell.get_initial_state(inputs=inputs, batch_size=batch_size,
                                                   dtype=dtype)
        return self.zero_state(batch_size, dtype or "float32")

    def zero_state(self, batch_size, dtype):
        """Zeros of the state's structure for `batch_size` rows."""
        if hasattr(self.cell, "zero_state"):
            return self.cell.zero_state(batch_size, dtype)
        return nest.map_structure(
            lambda s: zeros([batch_size] + TensorShape(s).as_list(), dtype=dtype),
            self.state_size)

    def get_config(self):
        """The Keras-style config: the cell's class name and config."""
        return {"name": self.name, "cell": {"class_name": type(self.cell).__name__,
                                            "config": self.cell.get_config()}}


@export("nn.RNNCellDropoutWrapper")
class RNNCellDropoutWrapper(_RNNCellWrapper):
    """Adds dropout to a cell's inputs, states and outputs.

    Args:
      cell: the RNN cell.
      input_keep_prob, output_keep_prob, state_keep_prob: keep probabilities
        (floats in [0, 1] or scalar tensors); 1 adds no dropout.
      variational_recurrent: reuse one dropout pattern at every step (needs
        `dtype`, and `input_size` when inputs are dropped).
      input_size: the (nested) depths of the inputs, for variational dropout.
      dtype: the inputs' dtype, for variational dropout.
      seed: an int seed; each dropped part gets its own seed from it.
      dropout_state_filter_visitor: a function of a state level returning a
        bool, or a level of bools, for the parts to drop (default: all but
        an LSTMStateTuple's `c`).

    Raises:
      TypeError: if dropout_state_filter_visitor is not callable.
      ValueError: for a keep probability outside [0, 1], or variational
        dropout without dtype (or input_size).
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_state_filter
        for prob, attr in ((input_keep_prob, "input_keep_prob"),
                           (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")):
            t = convert_to_tensor(prob)
            c = U.constant_value(t)
            if c is not None:
                if c < 0 or c > 1:
                    raise ValueError(f"Parameter {attr} must be between 0 and 1: {int(c)}")
                setattr(self, "_" + attr, float(c))
            else:
                setattr(self, "_" + attr, t)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s, inner_seed):
                shape = [1] + TensorShape(s).as_list()
                return uniform(shape, seed=inner_seed, dtype=dtype)
            if not isinstance(self._input_keep_prob, numbers.Real) or \
                    self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 "
                                     "or is unknown, input_size must be provided")
                self._recurrent_input_noise = _enumerated_map_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)),
                    input_size)
            self._recurrent_state_noise = _enumerated_map_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)),
                cell.state_size)
            self._recurrent_output_noise = _enumerated_map_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)),
                cell.output_size)

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        text = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, shallow=None):
        if shallow is None:
            shallow = values
        if not self._variational_recurrent:
            def drop(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return dropout(v, rate=1. - keep_prob, seed=self._gen_seed(salt_prefix, i))
                return v
            return _enumerated_map_up_to(shallow, drop, shallow, values)

        def drop_variational(i, do_dropout, v, noise):
            if not isinstance(do_dropout, bool) or do_dropout:
                keep = convert_to_tensor(keep_prob, dtype=v.dtype)
                binary = floor(add(keep, cast(noise, v.dtype)))
                return multiply(divide(v, keep), binary)
            return v
        return _enumerated_map_up_to(shallow, drop_variational, shallow, values,
                                     recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_drop(p):
            return not isinstance(p, float) or p < 1
        if should_drop(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise,
                                   self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_drop(self._state_keep_prob):
            shallow = _traverse_shallow(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise,
                                      self._state_keep_prob, shallow)
        if should_drop(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise,
                                   self._output_keep_prob)
        return output, new_state

    def get_config(self):
        """The wrapper's Keras-style config."""
        config = super().get_config()
        config.update({"input_keep_prob": self._input_keep_prob,
                       "output_keep_prob": self._output_keep_prob,
                       "state_keep_prob": self._state_keep_prob,
                       "variational_recurrent": self._variational_recurrent,
                       "input_size": self._input_size, "seed": self._seed})
        return config


@export("nn.RNNCellResidualWrapper")
class RNNCellResidualWrapper(_RNNCellWrapper):
    """Adds a cell's inputs to its outputs (or combines them with
    `residual_fn(inputs, outputs)`).

    Raises (when called):
      TypeError, ValueError: if the inputs and outputs differ in structure or
        shape (default residual_fn).
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)

            def check(inp, out):
                TensorShape(inp.shape).assert_is_compatible_with(TensorShape(out.shape))
            nest.map_structure(check, inputs, outputs)
            return nest.map_structure(lambda inp, out: inp + out, inputs, outputs)
        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


@export("nn.RNNCellDeviceWrapper")
class RNNCellDeviceWrapper(_RNNCellWrapper):
    """Runs a cell under `tf.device(device)`."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        """The cell's zero state, made on the wrapper's device."""
        with _device(self._device):
            return super().zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with _device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

    def get_config(self):
        """The wrapper's Keras-style config."""
        config = super().get_config()
        config["device"] = self._device
        return config

"""`tf.GradientTape`: records operations for automatic differentiation.

A tape records every op whose inputs depend on a watched tensor (or
variable); `gradient` runs the backprop engine over the records. Tapes
work eagerly and while tracing a function (they then record graph ops and
the gradient is built as graph ops).
"""
import contextlib
import enum
import logging

from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import Tensor
from ..ops.gradients.backprop import backprop, is_differentiable
from ..ops.core.constant_ops import ones_like, zeros, zeros_like
from ..ops.core.creation_ops import one_hot
from ..ops.core.join_ops import stack
from ..ops.core.shape_ops import identity_n, reshape

_state = _context.state
# TensorFlow reports tape misuse on its Python logger, not as Python warnings.
_logger = logging.getLogger("tensorflow")
_watch_warnings = [0]   # TensorFlow logs the integer-watch warning 5 times at most


@export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


def _handle_or_self(x):
    """A variable-like object that is not a rillflow Variable but declares
    `_should_act_as_resource_variable` (Keras' backend Variable wraps a
    tf.Variable so) stands for its `.handle`, as in TensorFlow's backprop."""
    if (not isinstance(x, Tensor) and not hasattr(x, "_tape_handle")
            and getattr(x, "_should_act_as_resource_variable", False)):
        return x.handle
    return x


def _as_source(x):
    """The tensor the tape tracks for a watched object (a variable's handle)."""
    handle = getattr(x, "_tape_handle", None)
    if handle is not None:
        return handle()
    g = _context.state.graph
    if g is not None and hasattr(g, "capture") and isinstance(x, Tensor) and \
            getattr(x, "graph", None) is not g:
        # An outside tensor used in a function: its ops read the capture.
        return g.capture(x)
    return x


@export("GradientTape", "autodiff.GradientTape")
class GradientTape:
    """Records operations so that gradients can be computed (`tf.GradientTape`).

    Args:
      persistent: allow more than one call of `gradient`/`jacobian`.
      watch_accessed_variables: automatically watch trainable variables that
        are read while the tape is active.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._records = []
        self._tracked = set()
        self._keep = []           # keeps watched objects alive so ids stay unique
        self._watched_vars = []
        self._recording = False
        self._used = False

    # --- context manager --------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()

    def _push(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        tapes = _state.tapes
        # Before any ForwardAccumulator (forwardprop.py): an accumulator then
        # computes its tangents after every tape has recorded the op.
        k = len(tapes)
        while k and getattr(tapes[k - 1], "_is_accumulator", False):
            k -= 1
        tapes.insert(k, self)
        self._recording = True

    def _pop(self):
        try:
            _state.tapes.remove(self)
        except ValueError:
            pass
        self._recording = False

    # --- recording (called by the runtime) ---------------------------------
    def _should_record(self, inputs):
        tracked = self._tracked
        for t in inputs:
            if id(t) in tracked:
                return True
        return False

    def _record(self, op):
        self._records.append(op)
        for t in op.outputs:
            self._tracked.add(id(t))

    def _variable_accessed(self, variable):
        if self._watch_accessed_variables and variable.trainable:
            self._watch_one(variable)   # no dtype warning: TensorFlow logs none here

    # --- public API --------------------------------------------------------
    def watch(self, tensor):
        """Tracks `tensor` (or a variable, or a nested structure of them).

        Raises:
          ValueError: for something that is neither a tensor nor a variable.
        """
        # Composite tensors (ExtensionTypes, weak tensors) are watched through
        # their component tensors, as in TensorFlow.
        for t in nest.flatten(tensor, expand_composites=True):
            t = _handle_or_self(t)
            if not isinstance(t, Tensor) and not hasattr(t, "_tape_handle"):
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 "tf.Tensor or tf.Variable or ExtensionType.")
            if not is_differentiable(t.dtype) and _watch_warnings[0] < 5:
                _watch_warnings[0] += 1
                _logger.warning("The dtype of the watched tensor must be floating (e.g. "
                                "tf.float32), got %r", t.dtype)
            self._watch_one(t)

    def _watch_one(self, t):
        if hasattr(t, "_tape_handle"):
            if not any(v is t for v in self._watched_vars):
                self._watched_vars.append(t)
        src = _as_source(t)
        if id(src) not in self._tracked:
            self._tracked.add(id(src))
            self._keep.append(src)

    def watched_variables(self):
        """The variables watched so far, in creation order (as TensorFlow sorts
        them by variable id)."""
        return tuple(sorted(self._watched_vars, key=lambda v: getattr(v, "_unique_id", 0)))

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stops recording on this tape.

        Raises:
          RuntimeError: if the tape is not recording.
        """
        if not self._recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Clears everything recorded; the tape keeps recording if it was."""
        self._records = []
        self._tracked = set()
        self._keep = []
        self._watched_vars = []
        self._used = False

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of `target` (summed if nested) with respect to `sources`.

        Args:
          target: a tensor or nested structure of tensors.
          sources: a tensor/variable or nested structure of them; the result
            has the same structure.
          output_gradients: initial gradients, one per target.
          unconnected_gradients: `'none'` or `'zero'` (or the enum).

        Raises:
          RuntimeError: on a second call of a non-persistent tape.
          ValueError: for bad arguments.
        """
        self._check_reusable()
        if self._recording and self._persistent:
            _logger.warning(
                "Calling GradientTape.gradient on a persistent tape inside its context is "
                "significantly less efficient than calling it outside the context (it causes "
                "the gradient ops to be recorded on the tape, leading to increased CPU and "
                "memory usage). Only call GradientTape.gradient inside the context if you "
                "actually want to trace the gradient in order to compute higher order "
                "derivatives.")
        result = self._gradient(target, sources, output_gradients, unconnected_gradients,
                                consume=not self._persistent)
        self._finish_use()
        return result

    def _gradient(self, target, sources, output_gradients, unconnected_gradients,
                  consume=False):
        unconnected = _unconnected(unconnected_gradients)
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, "
                            "Variables or CompositeTensors to be differentiated, but received "
                            "None.")
        flat_targets = [convert_to_tensor(t) if not isinstance(t, Tensor) else t
                        for t in (_read(x) for x in nest.flatten(target,
                                                                  expand_composites=True))]
        given_sources = nest.flatten(sources, expand_composites=True)
        flat_sources = [_handle_or_self(s) for s in given_sources]
        for s in flat_sources:
            if not isinstance(s, Tensor) and not hasattr(s, "_tape_handle"):
                # TensorFlow fails reading the source's dtype: same classes and texts.
                if s is None:
                    raise TypeError("Cannot convert the argument `type_value`: None to a "
                                    "TensorFlow DType.")
                raise AttributeError(f"'{type(s).__name__}' object has no attribute 'dtype'")
        src_tensors = [_as_source(s) for s in flat_sources]
        if output_gradients is None:
            tgrads = [ones_like(t) if is_differentiable(t.dtype) else None for t in flat_targets]
        else:
            tgrads = [None if g is None else convert_to_tensor(g)
                      for g in nest.flatten(output_gradients)]
            if len(tgrads) != len(flat_targets):
                raise ValueError("`output_gradients` must have one gradient per target")
        if consume:
            # A non-persistent tape hands its records over: the backward pass
            # drops each op's tensors once the op is differentiated, so the
            # forward pass's activations are freed as the gradients are made
            # (the tape is spent from here on, even if the backward pass fails).
            records, self._records = self._records, []
            self._used = True
        else:
            records = list(self._records)
        grads = backprop(records, flat_targets, tgrads, src_tensors, consume=consume,
                         overrides=False)
        del records
        out = []
        for s, g in zip(given_sources, grads):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                g = zeros_like(s)
            out.append(g)
        return nest.pack_sequence_as(sources, out, expand_composites=True)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...] for every element pair: for each
        source, a tensor of shape `target.shape + source.shape`.

        Raises:
          RuntimeError: on a second call of a non-persistent tape.
          ValueError: if the target's shape is not fully defined.
        """
        if not experimental_use_pfor and not self._persistent and _state.graph is None:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the jacobian with eager execution enabled and with  "
                               "experimental_use_pfor set to False.")
        target = _read(target)
        if not isinstance(target, Tensor):
            raise AttributeError(f"'{type(target).__name__}' object has no attribute 'shape'")
        self._check_reusable()
        flat_sources = nest.flatten(sources)
        n = target.shape.num_elements()
        if n is None:
            raise ValueError("jacobian needs a target of fully defined shape")
        rows = [[] for _ in flat_sources]
        for i in range(n):
            seed = reshape(one_hot(i, n, dtype=target.dtype), target.shape.as_list())
            gs = self._gradient(target, flat_sources, [seed], unconnected_gradients)
            for k, g in enumerate(gs):
                rows[k].append(g)
        out = []
        for s, rs in zip(flat_sources, rows):
            if all(r is None for r in rs):
                out.append(None)
                continue
            rs = [zeros_like(_read(s)) if r is None else r for r in rs]
            st = stack(rs) if rs else zeros([0] + s.shape.as_list(), s.dtype)
            out.append(reshape(st, target.shape.as_list() + s.shape.as_list()))
        self._finish_use()
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobian: for target [b, t...] and source [b, s...],
        the [b, t..., s...] derivatives of each example's target with respect
        to the same example's source (examples must be independent).
        """
        if not experimental_use_pfor and not self._persistent and _state.graph is None:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the batch_jacobian with eager execution enabled and with  "
                               "experimental_use_pfor set to False.")
        target = convert_to_tensor(_read(target))
        _check_batch_shapes(target.shape, _read(source).shape)
        self._check_reusable()
        ts = target.shape.as_list()
        b, inner = ts[0], ts[1:]
        n = 1
        for d in inner:
            n *= d
        rows = []
        for j in range(n):
            seed = one_hot([j] * b, n, dtype=target.dtype)
            seed = reshape(seed, ts)
            g = self._gradient(target, [source], [seed], unconnected_gradients)[0]
            if g is None:
                g = zeros_like(_read(source))
            rows.append(g)
        self._finish_use()
        st = stack(rows, axis=1)  # [b, n, s...]
        return reshape(st, [b] + inner + source.shape.as_list()[1:])

    def _check_reusable(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if self._recording and not self._persistent:
            self._pop()

    def _finish_use(self):
        if not self._persistent:
            self._used = True
            self._records = []
            self._keep = []


def _unconnected(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _check_batch_shapes(target_shape, source_shape):
    """TensorFlow's batch_jacobian argument checks (rank >= 2, same batch size)."""
    for shape in (target_shape, source_shape):
        if shape.rank is not None and shape.rank < 2:
            raise ValueError(f"Shape {shape} must have rank at least 2")
    b1, b2 = target_shape[0], source_shape[0]
    if b1 is not None and b2 is not None and b1 != b2:
        raise ValueError(f"Need first dimension of target shape ({target_shape}) and source "
                         f"shape ({source_shape}) to match.")


def _read(x):
    v = getattr(x, "_dense_var_to_tensor", None)
    return v() if v is not None else x


@export("custom_gradient")
def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; `grad_fn(*dy)` gives the
    gradients of the inputs (and, with a `variables` keyword, of the
    variables `f` read, as a second list)."""
    if f is None:
        return lambda g: custom_gradient(g)
    import functools
    import inspect

    def tensor_like_to_tensor(a):
        # Tensor-likes that are neither tensors nor variables (Keras' variables)
        # are read here, as TensorFlow converts every argument: `f` gets the
        # value, and the gradient returned for it flows into the read.
        if isinstance(a, Tensor) or hasattr(a, "_tape_handle") or \
                not getattr(a, "_is_tensor_like", False):
            return a
        return convert_to_tensor(a)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        args = tuple(nest.map_structure(tensor_like_to_tensor, list(args)))
        flat_args = [a for a in nest.flatten(list(args)) if isinstance(a, Tensor)
                     or hasattr(a, "_tape_handle")]
        arg_tensors = [_read(a) if hasattr(a, "_tape_handle") else a for a in flat_args]
        watcher = _VariableWatcher()
        saved = _state.tapes
        _state.tapes = [watcher]
        try:
            y, grad_fn = f(*args, **kwargs)
        finally:
            _state.tapes = saved
        flat_y = [convert_to_tensor(v) for v in nest.flatten(y)]
        variables = [v for v in watcher.variables if not any(v is a for a in flat_args)]
        var_handles = [v._tape_handle() for v in variables]
        n_y = len(flat_y)

        def grad(op, *dys):
            dys = list(dys[:n_y])
            try:
                params = inspect.signature(grad_fn).parameters
            except (TypeError, ValueError):
                params = {}
            takes_vars = "variables" in params or any(
                p.kind is p.VAR_KEYWORD for p in params.values())
            if variables and takes_vars:
                in_grads, var_grads = grad_fn(*dys, variables=variables)
            else:
                # As TensorFlow: without variables read in `f`, grad_fn is called
                # without `variables` and returns the inputs' gradients only.
                if variables:
                    raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument "
                                    f"'variables', since function uses variables: {variables}")
                in_grads, var_grads = grad_fn(*dys), []
            in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
            if len(in_grads) != len(arg_tensors):
                raise ValueError(f"custom_gradient function expected to return "
                                 f"{len(arg_tensors)} gradients, but returned {len(in_grads)} "
                                 "instead.")
            var_grads = list(var_grads or [])
            if len(var_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient "
                                 "grad_fn.")
            return [None] * n_y + in_grads + var_grads

        outs = identity_n(flat_y + arg_tensors + var_handles, _grad_fn=grad)
        return nest.pack_sequence_as(y, outs[:n_y])
    return wrapped


@export("recompute_grad")
def recompute_grad(f):
    """Decorator: `f` runs without keeping its intermediates for backprop; the
    gradient runs `f` again under a fresh tape (`tf.recompute_grad`), trading
    compute for memory. Gradients flow to the tensor arguments and to the
    variables `f` reads."""
    import functools

    @functools.wraps(f)
    def inner(*args, **kwargs):
        @custom_gradient
        def call(*call_args):
            result = f(*call_args, **kwargs)  # custom_gradient records nothing here

            def grad(*dys, variables=None):
                sources = [a for a in nest.flatten(list(call_args)) if isinstance(a, Tensor)
                           or hasattr(a, "_tape_handle")]
                variables = list(variables or [])
                with GradientTape(watch_accessed_variables=False) as tape:
                    tape.watch(sources + variables)
                    again = f(*call_args, **kwargs)
                grads = tape.gradient(nest.flatten(again), sources + variables,
                                      output_gradients=list(dys))
                if not variables:
                    return grads
                return grads[:len(sources)], grads[len(sources):]
            return result, grad
        return call(*args)
    return inner


class _VariableWatcher:
    """Stands in for a tape while a custom-gradient function runs: records
    nothing, notes the variables read."""

    def __init__(self):
        self.variables = []

    def _should_record(self, inputs):
        return False

    def _variable_accessed(self, variable):
        if not any(variable is v for v in self.variables):
            self.variables.append(variable)


@contextlib.contextmanager
def stop_recording_all():
    """Pauses every active tape (the `tf.autodiff` internals)."""
    saved = _state.tapes
    _state.tapes = []
    try:
        yield
    finally:
        _state.tapes = saved


@export("grad_pass_through")
def grad_pass_through(f):
    """`f` with the identity as its gradient: its output's gradient is passed
    to its inputs unchanged (variables `f` reads get None), e.g. to
    differentiate through an assignment or a rounding."""
    import functools

    @custom_gradient
    def _grad_pass_through_op(*args, **kwargs):
        def grad(*dys, **grad_kwargs):
            variables = grad_kwargs.get("variables")
            if variables is not None:
                # The variables the wrapped op reads get no gradient.
                return dys, [None] * len(variables)
            return dys
        return f(*args, **kwargs), grad

    return functools.wraps(f)(_grad_pass_through_op)

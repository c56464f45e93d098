"""`tf.function`: a Python function traced once per input signature.

A Function keeps a cache of ConcreteFunctions keyed by the trace key of
the call's arguments (see trace_key.py). The common call — positional
eager tensors whose dtypes and shapes were seen before — takes a fast path:
one tuple, one dict lookup, then the compiled code.
"""
import collections
import functools
import inspect
import operator
import threading
import weakref

import numpy as np

from ..autograph import api as _autograph
from ..compiler.codegen import compile_graph, needed_ops
from ..framework import context as _context
from ..framework import core_types, nest, user_frames
from ..framework.api_export import export
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..framework.tensor_spec import TensorSpec
from . import trace_key as K
from . import traced_errors
from .concrete_function import ConcreteFunction, _runtime_value
from .fast_call import make_dispatch, make_fast_call
from .function_type import FunctionType, split_bound
from ..framework.func_graph import trace_function
from ..ops.debugging import logging_ops

__all__ = ["Function", "function"]

_state = _context.state
_config = _context.config
_MAX_CACHE = 128
# Python argument types the fast call path keys by value.
_SCALARS = frozenset((int, float, bool, str, type(None)))


class _Pending:
    """A trace in progress: the thread making it, and an event set when done."""

    __slots__ = ("owner", "done")

    def __init__(self, owner):
        self.owner = owner
        self.done = threading.Event()


_trace_local = threading.local()


def _tracing_stack():
    """The Functions this thread is tracing, outermost first."""
    stack = getattr(_trace_local, "stack", None)
    if stack is None:
        stack = _trace_local.stack = []
    return stack


class _RetracingDetector:
    """TensorFlow's frequent-retracing warning, logged through
    `tf.get_logger()` ("WARNING:tensorflow:5 out of the last 5 calls to
    <function f at 0x...> triggered tf.function retracing. ...").

    Calls are counted per Python function code (so a `tf.function` made
    anew in a loop counts too), over about the last 10 calls: when 5 of them
    traced, a warning is logged, at most twice per code. rillflow adds which
    argument changed. Only calls made eagerly count, and (unlike
    TensorFlow) calls served by the fast path of an existing trace are not
    seen, so "out of the last N calls" counts the calls that were not.
    """

    HISTORY = 10
    THRESHOLD = 5
    MAX_WARNINGS = 2

    def __init__(self):
        self._lock = threading.Lock()
        self._by_code = {}   # code -> [calls per trace (oldest first), calls, warnings]

    @staticmethod
    def _code(fn):
        target = fn._python_function
        while hasattr(target, "__wrapped__"):
            target = target.__wrapped__
        target = getattr(target, "__func__", target)
        return getattr(target, "__code__", target)

    def reset(self):
        """Forgets every call counted so far."""
        with self._lock:
            self._by_code.clear()

    def note_call(self, fn, traced, key):
        """Counts one eager call of Function `fn`; `traced`: it traced."""
        with self._lock:
            entry = self._by_code.setdefault(self._code(fn), [[], 0, 0])
            per_trace = entry[0]
            entry[1] += 1
            if not traced:
                if not per_trace:
                    per_trace.append(0)
                per_trace[-1] += 1
                return
            per_trace.append(1)
            while per_trace and entry[1] - per_trace[0] > self.HISTORY:
                entry[1] -= per_trace.pop(0)
            if entry[2] >= self.MAX_WARNINGS or len(per_trace) < self.THRESHOLD:
                return
            entry[2] += 1
            traces, calls = len(per_trace), entry[1]
        with fn._lock:
            keys = [k for k in fn._cache if k != key]
        reason = ""
        if keys and key[0] != "S":
            reason = " (rillflow: in the last retrace, %s.)" % K.describe_difference(
                fn._spec.arg_names, _strip(key), _strip(keys[-1]))
        logging_ops.get_logger().warning(
            f"{traces} out of the last {calls} calls to {fn._python_function!r} triggered "
            f"tf.function retracing. Tracing is expensive and the excessive number of "
            f"tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) "
            f"passing tensors with different shapes, (3) passing Python objects instead of "
            f"tensors. For (1), please define your @tf.function outside of the loop. For (2), "
            f"@tf.function has reduce_retracing=True option that can avoid unnecessary "
            f"retracing. For (3), please refer to "
            f"https://www.tensorflow.org/guide/function#controlling_retracing and "
            f"https://www.tensorflow.org/api_docs/python/tf/function for  more details."
            + reason)


_retracing_detector = _RetracingDetector()


class _FunctionSpec:
    """The Python signature of a Function and its input_signature."""

    def __init__(self, fn, input_signature):
        self.fullargspec = inspect.getfullargspec(fn) if callable(fn) else None
        self.input_signature = input_signature
        self.function_type = FunctionType(fn, input_signature)
        try:
            self.signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self.signature = None

    @property
    def arg_names(self):
        """The names of the positional parameters."""
        if self.signature is None:
            return []
        return [p.name for p in self.signature.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    @property
    def has_var_positional(self):
        """Whether the function takes `*args`."""
        return self.signature is not None and any(
            p.kind is p.VAR_POSITIONAL for p in self.signature.parameters.values())

    def names_for(self, n):
        """Names of `n` positional values: the parameters', then `args_0`,
        `args_1`, ... (after the `*args` parameter's name) for the rest."""
        names = self.arg_names[:n]
        var = "args"
        if self.signature is not None:
            var = next((p.name for p in self.signature.parameters.values()
                        if p.kind is p.VAR_POSITIONAL), var)
        return names + ["%s_%d" % (var, i) for i in range(n - len(names))]


# Converted code calls a Function as it is: it converts its own code when it traces.
@_autograph.register_self_converting
class Function(core_types.PolymorphicFunction):
    """A callable that traces `python_function` into graphs (`tf.function`).

    See `function()` for the arguments.
    """

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 jit_compile=None, reduce_retracing=False, experimental_autograph_options=None,
                 experimental_attributes=None):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._autograph_options = experimental_autograph_options
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._attributes = experimental_attributes
        if input_signature is not None:
            input_signature = tuple(input_signature)
            for s in nest.flatten(list(input_signature)):
                if not isinstance(s, TensorSpec) and not hasattr(s, "_check_value"):
                    raise TypeError(f"input_signature must be a possibly nested sequence of "
                                    f"TensorSpec objects, got invalid args {s!r} with type "
                                    f"{type(s)}.")
        self._spec = _FunctionSpec(python_function, input_signature)
        sig = self._spec.signature
        self._simple = sig is not None and all(
            p.kind is p.POSITIONAL_OR_KEYWORD or p.kind is p.POSITIONAL_ONLY
            for p in sig.parameters.values())
        self._n_params = len(sig.parameters) if sig is not None else -1
        self._cache = collections.OrderedDict()   # key -> ConcreteFunction
        self._fast = {}                           # ((dtype, shape), ...) -> ConcreteFunction
        self._tracing_count = 0
        self._created_variables = False
        self._first_trace_done = False
        self._lock = threading.Lock()     # guards the cache, never held while tracing
        self._pending = {}                # key -> _Pending: traces in progress
        self._pending_first = None        # the first trace, while in progress
        self._bound = weakref.WeakKeyDictionary()
        self._bound_by_id = {}
        functools.update_wrapper(self, python_function, updated=())

    # --- properties ---------------------------------------------------------
    @property
    def python_function(self):
        """The wrapped Python function."""
        return self._python_function

    @property
    def function_spec(self):
        """The signature information (`fullargspec`, `input_signature`)."""
        return self._spec

    @property
    def input_signature(self):
        """The input_signature given to `tf.function`, or None."""
        return self._spec.input_signature

    @property
    def function_type(self):
        """The FunctionType of the Python function (with the input_signature's
        constraints, if one was given)."""
        return self._spec.function_type

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return self._tracing_count

    # --- methods --------------------------------------------------------------
    def __get__(self, instance, owner):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = self._bound_by_id.get(id(instance))
        if bound is None:
            bound = Function(self._python_function.__get__(instance, owner), self._name,
                             self._spec.input_signature, self._autograph, self._jit_compile,
                             self._reduce_retracing, self._autograph_options,
                             self._attributes)
            try:
                self._bound[instance] = bound
            except TypeError:
                self._bound_by_id[id(instance)] = bound
        return bound

    def __deepcopy__(self, memo):
        """A new Function of the same Python function and options (its traces
        are made again when called)."""
        new = Function(self._python_function, self._name, self._spec.input_signature,
                       self._autograph, self._jit_compile, self._reduce_retracing,
                       self._autograph_options, self._attributes)
        memo[id(self)] = new
        return new

    # --- calling --------------------------------------------------------------
    # `f(...)` calls the instance's `_call`: the method below, or, while the
    # function has been called with one signature only, a generated
    # function checking that signature with the fast path's body inline
    # (fast_call.make_dispatch): a Python call less per call. (operator.
    # attrgetter and property run no Python code of their own.)
    __call__ = property(operator.attrgetter("_call"),
                        doc="Calls the function (tracing it first where needed).")

    def _call(self, *args, **kwargs):
        """Runs the function on these arguments: the trace made for their
        signature (tracing it if needed)."""
        if not kwargs and _state.graph is None and not _config.run_functions_eagerly:
            if len(args) == 1:
                a = args[0]
                if a.__class__ is EagerTensor:
                    v = a._v
                    # A NumPy scalar of a numeric type: its class says its
                    # dtype and shape (see _call_slow).
                    fast = self._fast.get(v.__class__) or self._fast.get((v.dtype, v.shape))
                    if fast is not None:
                        return fast(args)
            else:
                key = []
                for a in args:
                    c = a.__class__
                    if c is EagerTensor:
                        v = a._v
                        key.append((v.dtype, v.shape))
                    elif c in _SCALARS:
                        key.append((c, a))
                    else:
                        break
                else:
                    fast = self._fast.get(tuple(key))
                    if fast is not None:
                        return fast(args)
        try:
            return self._call_slow(args, kwargs)
        except Exception as e:
            # Show the user's frames (their function, converted code at their
            # own lines), not the framework's; as TensorFlow, without the
            # exceptions it was raised from.
            raise e.with_traceback(user_frames.filter_traceback(e.__traceback__)) from None

    # The one framework frame a user's traceback shows reads `__call__`.
    _call.__code__ = _call.__code__.replace(co_name="__call__")

    def _call_slow(self, args, kwargs):
        if _config.run_functions_eagerly:
            return self._python_function(*args, **kwargs)
        pos, kw = self._canonicalize(args, kwargs)
        cf, flat = self._concrete_for(pos, kw)
        if _state.graph is None and self._simple and not kwargs and \
                len(args) == self._n_params and all(
                    a.__class__ is EagerTensor or a.__class__ in _SCALARS for a in args):
            # Remember the choice for the fast path of __call__: tensors by
            # dtype and shape, Python scalars by type and value.
            tensors = tuple(i for i, a in enumerate(args) if a.__class__ is EagerTensor)
            fast = make_fast_call(cf, tensors, len(args))
            if fast is None:
                def fast(call_args, cf=cf, tensors=tensors):
                    return cf._call_flat([call_args[i] for i in tensors])
            key = tuple((a._v.dtype, a._v.shape) if a.__class__ is EagerTensor
                        else (a.__class__, a) for a in args)
            self._fast[key[0] if len(args) == 1 and tensors else key] = fast
            if len(args) == 1 and tensors and isinstance(args[0]._v, np.generic) and \
                    args[0]._v.dtype.kind in "biufc":
                self._fast[args[0]._v.__class__] = fast
            self._set_dispatch(fast, key, args)
        return cf._call_flat(flat)

    def _set_dispatch(self, fast, key, args):
        """Makes `self(...)` check for `key` first and run `fast`'s body while
        `fast` is the only fast path; the general `_call` otherwise."""
        if all(f is fast for f in list(self._fast.values())):
            ref = weakref.ref(self)

            def general(*args, **kwargs):
                function = ref()
                if function is None:
                    raise ReferenceError("the tf.function of this call was deleted")
                return Function._call(function, *args, **kwargs)
            dispatch = make_dispatch(fast, key, args, general, self._name)
            if dispatch is not None:
                self._call = dispatch
                return
        self.__dict__.pop("_call", None)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors, TensorSpecs or
        Python values), tracing if needed."""
        if self._spec.input_signature is not None and not args and not kwargs:
            args = self._spec.input_signature
        pos, kw = self._canonicalize(args, kwargs, specs_ok=True)
        cf, _ = self._concrete_for(pos, kw, count_call=False)
        return cf

    def _list_all_concrete_functions(self):
        """The traces made so far, oldest first (each once)."""
        seen, out = set(), []
        with self._lock:
            traces = list(self._cache.values())
        for cf in traces:
            if id(cf) not in seen:
                seen.add(id(cf))
                out.append(cf)
        return out

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """TensorFlow's Trackable children: none in a checkpoint; in a
        SavedModel its traces, `trace_0`, `trace_1`, ... (a function with an
        input_signature is traced first)."""
        if getattr(save_type, "value", save_type) == "checkpoint":
            return {}
        if self.input_signature is not None:
            self.get_concrete_function()
        return {"trace_%d" % n: cf for n, cf in enumerate(self._list_all_concrete_functions())}

    def pretty_printed_concrete_signatures(self, verbose=True):
        """The signatures of all traces, as TensorFlow prints them: each
        trace's `pretty_printed_signature(verbose)`, separated by blank lines
        (one line each with `verbose=False`)."""
        joiner = "\n\n" if verbose else "\n"
        return joiner.join(cf.pretty_printed_signature(verbose=verbose)
                           for cf in self._list_all_concrete_functions())

    # --- binding ----------------------------------------------------------------
    def _canonicalize(self, args, kwargs, specs_ok=False):
        """Binds a call to the signature: (positional values, keyword-only values)."""
        sig = self._spec.signature
        ftype = self._spec.function_type
        if sig is None or ftype.signature is None:
            return tuple(args), dict(kwargs)
        bound = ftype.bind(args, kwargs, specs_ok)
        if self._spec.input_signature is not None:
            return tuple(bound.values())[:ftype.num_constrained], {}
        return split_bound(sig, bound)

    # --- the cache -----------------------------------------------------------------
    def _call_key(self, pos, kw):
        key = ("A", tuple(K.make_key(v) for v in pos) +
               tuple(("K", k, K.make_key(v)) for k, v in kw.items()))
        # As TensorFlow's function context: the graph init_scope lifts to, so a
        # trace made inside another tf.function serves eager calls too.
        g = _context.outermost_graph()
        return key if g is None else ("G", id(g), key)

    def _concrete_for(self, pos, kw, count_call=True):
        """The ConcreteFunction for bound arguments and their flat runtime
        values, tracing if no trace fits. `count_call`: a call of the
        function (not `get_concrete_function`), seen by the retracing warning."""
        if self._spec.input_signature is not None:
            g = _context.outermost_graph()
            key = ("S", g is None or id(g))
        else:
            key = self._call_key(pos, kw)
        cf, traced = self._get_or_trace(key, pos, kw)
        if count_call and _state.graph is None:
            _retracing_detector.note_call(self, traced, key)
        return cf, _flat_values(pos, kw)

    # Threads: the cache is read and written under `_lock`, never held while
    # tracing. A trace in progress is announced in `_pending` (per key) so
    # that other first calls with the same key wait for it instead of
    # tracing again; calls with other keys go on (while the first trace of
    # the function is in progress, the one that may create variables, every
    # other trace waits for it). A thread that calls the function again
    # while tracing it (recursion) traces again, as TensorFlow does.

    def _lookup(self, key):
        """The cached trace usable for `key`, or None (call with `_lock` held)."""
        if key[0] == "S":
            cf = self._cache.get(key)
            return cf if cf is not None and _usable_here(cf) else None
        try:
            cf = self._cache.get(key)
        except TypeError:
            cf = None
        if cf is not None and not _usable_here(cf):
            cf = None
        if cf is None:
            return self._find_compatible(key)
        self._cache.move_to_end(key)
        return cf

    def _get_or_trace(self, key, pos, kw):
        """(ConcreteFunction, whether this call traced it) for `key`."""
        me = threading.get_ident()
        while True:
            with self._lock:
                cf = self._lookup(key)
                if cf is not None:
                    return cf, False
                pending = self._pending.get(key)
                first = self._pending_first
                if pending is not None and pending.owner != me:
                    wait = pending
                elif first is not None and first.owner != me:
                    wait = first
                else:
                    if key[0] == "S":
                        trace_args = key, tuple(self._spec.input_signature), {}
                    elif self._reduce_retracing:
                        trace_args = self._relaxed(key, pos, kw)
                    else:
                        trace_args = key, pos, kw
                    mine = _Pending(me)
                    if pending is None:
                        self._pending[key] = mine
                    if not self._first_trace_done and first is None:
                        self._pending_first = mine
                    break
            wait.done.wait()
        try:
            gen_key, trace_pos, trace_kw = trace_args
            cf = self._trace(trace_pos, trace_kw)
            with self._lock:
                self._cache[gen_key] = cf
                if gen_key != key:
                    self._cache[key] = cf
                while len(self._cache) > _MAX_CACHE:
                    self._cache.popitem(last=False)
                    self._fast.clear()
                    self.__dict__.pop("_call", None)
        finally:
            with self._lock:
                if self._pending.get(key) is mine:
                    del self._pending[key]
                if self._pending_first is mine:
                    self._pending_first = None
            mine.done.set()
        for listener in list(_context.trace_listeners):
            listener(cf)
        return cf, True

    def _find_compatible(self, key):
        for k in reversed(self._cache):
            if k != key and K.is_subtype(_strip(key), _strip(k)) and _ctx(k) == _ctx(key) \
                    and _usable_here(self._cache[k]):
                return self._cache[k]
        return None

    def _relaxed(self, key, pos, kw):
        """With reduce_retracing: generalizes the new key against earlier
        traces. Returns (key, positional, keyword arguments) to trace with."""
        for k in reversed(self._cache):
            if _ctx(k) != _ctx(key):
                continue
            r = K.relax(_strip(key), _strip(k))
            if r is not None and r != _strip(key):
                specs = _specs_from_key(pos, kw, r)
                return _with_ctx(key, r), specs[0], specs[1]
        return key, pos, kw

    # --- tracing ------------------------------------------------------------------
    def _python_callable(self):
        if self._autograph:
            return _autograph.convert_for_function(self._python_function,
                                                   self._autograph_options)
        return self._python_function

    def _trace(self, pos, kw):
        """A new ConcreteFunction for these arguments (not cached here)."""
        first = not self._first_trace_done
        cf, created = self._trace_once(pos, kw, allow_variables=first)
        self._first_trace_done = True
        if created:
            self._created_variables = True
            if self._run_initializers(cf, pos, kw):
                cf, _ = self._trace_once(pos, kw, allow_variables=False)
            # else the first trace stays: its InitializeVariableOnce ops
            # initialize the variables on its first run (TensorFlow's
            # cond-guarded initialization, when lifting is not possible).
        return cf

    def _trace_once(self, pos, kw, allow_variables):
        created = []

        def hook(v):
            if not allow_variables:
                raise ValueError("tf.function only supports singleton tf.Variables created on "
                                 "the first call. Make sure the tf.Variable is only created "
                                 "once or created outside tf.function. See "
                                 "https://www.tensorflow.org/guide/function#creating_tfvariables"
                                 " for more information.")
            created.append(v)
        names = self._spec.names_for(len(pos))
        pos = K.placeholder_values(pos)
        kw = K.placeholder_values(kw)
        # Conversion errors are raised as they are (no user code ran yet).
        python_callable = self._python_callable()
        saved = getattr(_state, "variable_created_hook", None)
        _state.variable_created_hook = hook
        with self._lock:
            self._tracing_count += 1
        stack = _tracing_stack()
        # As TensorFlow: with AutoGraph, an error escaping the outermost
        # AutoGraph trace reads "in user code: ..." with the user's frames --
        # when AutoGraph converted the function; one it could not convert (no
        # source) runs as-is and its errors are raised as they are.
        converted = python_callable is not self._python_function
        outermost = self._autograph and converted and not any(f._autograph for f in stack)
        stack.append(self)
        try:
            fg = trace_function(self._name, python_callable, pos, kw,
                                arg_names=names, outer_graph=_state.graph,
                                jit_compile=self._jit_compile)
        except Exception as e:
            if not outermost or getattr(e, "_not_user_code_error", False):
                raise
            raise traced_errors.in_user_code_error(e).with_traceback(e.__traceback__) from None
        finally:
            stack.pop()
            _state.variable_created_hook = saved
        return ConcreteFunction(fg, names, self._spec), created

    def _run_initializers(self, cf, pos, kw):
        """Runs the initializers of the variables the first trace created from
        traced values, before the trace without them is made.

        Called eagerly, they run on the call's arguments. Traced inside
        another function (Keras' optimizer builds its variables inside the
        train step's trace), the arguments have no values yet, so, as
        TensorFlow lifts such initializers out of the function into the
        eager context, those that do not depend on the arguments or on the
        enclosing graph's tensors run now; the others are left to the first
        trace, which keeps its initializers (TensorFlow
        initializes them under a cond in the function).

        Returns whether every initializer ran.
        """
        g = cf.graph
        inits = [op for op in g.get_operations() if op.type == "InitializeVariableOnce"]
        if not inits:
            return True
        ran_all = True
        captures = list(g.external_captures)
        n_args = len(g.inputs) - len(captures)
        flat = _flat_values(pos, kw)
        if _state.graph is not None:
            # Placeholders whose values are unknown now: the arguments and the
            # captures of the enclosing graph's (symbolic) tensors. Only the
            # initial value counts, not the ops the initializer is ordered
            # after (automatic control dependencies), as in TensorFlow's lifting.
            unknown = {id(t) for t in g.inputs[:n_args]}
            unknown.update(id(t) for t, ext in zip(g.inputs[n_args:], captures)
                           if isinstance(ext, SymbolicTensor))
            liftable = [op for op in inits if not _depends_on(op.inputs[1], unknown)]
            ran_all = len(liftable) == len(inits)
            inits = liftable
            if not inits:
                return False
            flat = [None] * n_args
            captures = [None if isinstance(t, SymbolicTensor) else t for t in captures]
        # The initial values and the initializers, in graph order (a value may
        # read a variable initialized before it), without the ops the
        # initializers are ordered after.
        keep = {id(op) for op in needed_ops(g.get_operations(), [op.inputs[1] for op in inits],
                                            keep_stateful=False)}
        keep.update(id(op) for op in inits)
        ops = [op for op in g.get_operations() if id(op) in keep]
        compiled = compile_graph(g, g.inputs, [], name=g.name + "_init", ops=ops)
        # (None for the values the initial values do not read.)
        vals = [None if a is None else _runtime_value(a) for a in flat + captures]
        with _context.init_scope():
            compiled.fn(*vals)
        return ran_all


    def __repr__(self):
        return "<rillflow.function.Function %s>" % self._name


def _depends_on(tensor, tensor_ids):
    """Whether `tensor` is computed, through data or control inputs, from one
    of the tensors whose ids are `tensor_ids`."""
    if id(tensor) in tensor_ids:
        return True
    seen = set()
    stack = [tensor.op]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        for t in o.inputs:
            if id(t) in tensor_ids:
                return True
            stack.append(t.op)
        stack.extend(o.control_inputs)
    return False


def _usable_here(cf):
    """Whether a trace can run here: one made inside another function may
    capture that function's tensors, usable only while tracing inside it."""
    caps = [t for t in cf.graph.external_captures if isinstance(t, SymbolicTensor)]
    if not caps:
        return True
    g = _state.graph
    return g is not None and all(t.graph is g or (hasattr(g, "_reachable") and
                                                   g._reachable(t.graph)) for t in caps)


def _strip(key):
    return key[2] if key[0] == "G" else key


def _ctx(key):
    return key[1] if key[0] == "G" else None


def _with_ctx(key, inner):
    return ("G", key[1], inner) if key[0] == "G" else inner


def _flat_values(pos, kw):
    """The runtime values for a trace's placeholders, in placeholder order."""
    out = []
    for v in list(pos) + list(kw.values()):
        for leaf in nest.flatten(v):
            if hasattr(leaf, "_component_specs") and not isinstance(leaf, Tensor):
                out.extend(leaf._to_components())
            elif K.is_tensor_leaf(leaf):
                out.append(leaf)
    return out


def _specs_from_key(pos, kw, key):
    """Arguments with tensor leaves replaced by TensorSpecs of the relaxed key."""
    parts = list(key[1])

    def rebuild(v, k):
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return type(v)(rebuild(x, kk) for x, kk in zip(v, k[1]))
        if isinstance(v, dict):
            return {kk: rebuild(v[kk], sub) for kk, sub in zip(k[1], k[2])}
        if k[0] == "T" and K.is_tensor_leaf(v) and not hasattr(v, "_storage"):
            return TensorSpec(None if k[2] is None else list(k[2]), k[1])
        if k[0] == "C" and K._is_shaped(k[1]):
            return v._type_spec.__class__(None if k[1][2] is None else list(k[1][2]), k[1][1])
        return v
    new_pos = tuple(rebuild(v, k) for v, k in zip(pos, parts[:len(pos)]))
    new_kw = {name: rebuild(v, k[2]) for (name, v), k in zip(kw.items(), parts[len(pos):])}
    return new_pos, new_kw


@export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, name=None):
    """Compiles a Python function into a callable graph (`tf.function`).

    Usable as `@tf.function`, `@tf.function(...)` or `tf.function(f, ...)`.

    Args:
      func: the function to compile.
      input_signature: a sequence of TensorSpecs fixing the argument types;
        one trace serves every call.
      autograph: convert Python control flow on tensors into graph control
        flow.
      jit_compile: with True, each concrete function runs as one XLA
        computation through JAX (the `xla` extra; compiler/xla_compile.py),
        and a graph with an op that has no XLA lowering raises TensorFlow's
        "Detected unsupported operations" error; without JAX it runs as
        rillflow's compiled code. Either way, ops that TensorFlow runs only
        under XLA on a CPU (grouped convolutions, NCHW layouts) are allowed.
        None follows `tf.config.optimizer.set_jit`; False never uses XLA.
      reduce_retracing: generalize shapes instead of retracing for every
        new shape (`experimental_relax_shapes` is the old name).
      experimental_compile: old name of `jit_compile`.
      name: the function's name in graphs.
    """
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile

    def decorate(f):
        if isinstance(f, Function):
            f = f.python_function
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        jit_compile=jit_compile, reduce_retracing=reduce_retracing,
                        experimental_autograph_options=experimental_autograph_options,
                        experimental_attributes=experimental_attributes)
    if func is None:
        return decorate
    return decorate(func)

"""When a compiler pass fails: the record, and the debug flag that shows it.

A compiler pass (specialization, CSE, fusion, in-place reuse, the loop
passes) that raises while compiling a graph must not fail the user's call:
`codegen.compile_graph` compiles the graph again without that pass, or in the
end on the plain path (one kernel call per op), and reports here which pass
gave up, on which graph, and why. Errors that are the user's (an unfed
placeholder, a kernel failing at run time) are not the compiler's and are
raised as before.

Set the environment variable `RILLFLOW_COMPILER_DEBUG=1` (or call
`set_debug(True)`) to have each fallback logged as a warning on the
`rillflow.compiler` logger (stderr by default), with the exception's
traceback; without it the same message is logged at DEBUG level. `records()`
returns the recent fallbacks. Tests of the compiler run it `strict`, where
the pass's exception propagates instead.
"""
import collections
import logging
import os
import traceback

__all__ = ["PASSES", "Fallback", "set_debug", "debug_enabled", "strict", "records",
           "record"]

logger = logging.getLogger("rillflow.compiler")

# The passes compile_graph can switch off one at a time, in the order it
# tries them: the later ones change more of the generated code.
PASSES = ("broadcast_sink", "kernel_fusion", "fusion", "in_place", "accumulate", "loop_batch", "loop_lists", "loop_invariant",
          "scalar_loop_inputs", "cse", "specialize")
# The name recorded when no single pass was to blame: all optimizations off.
ALL = "optimizations"

_state = {"debug": os.environ.get("RILLFLOW_COMPILER_DEBUG", "") not in ("", "0"),
          "strict": os.environ.get("RILLFLOW_COMPILER_STRICT", "") not in ("", "0")}
_records = collections.deque(maxlen=100)


class Fallback:
    """One fallback: the graph's name, the pass that gave up (one of
    PASSES, or "optimizations" when the graph compiled only without any),
    and the exception that pass led to."""

    __slots__ = ("graph", "pass_name", "exception", "traceback")

    def __init__(self, graph, pass_name, exception, tb):
        self.graph, self.pass_name = graph, pass_name
        self.exception, self.traceback = exception, tb

    def __repr__(self):
        return "Fallback(graph=%r, pass=%r, %s: %s)" % (
            self.graph, self.pass_name, type(self.exception).__name__, self.exception)


def set_debug(on):
    """Logs every fallback as a warning (on) or at DEBUG level only (off)."""
    _state["debug"] = bool(on)


def debug_enabled():
    """Whether fallbacks are logged as warnings."""
    return _state["debug"]


class strict:
    """`with fallback.strict():` -- a pass's exception propagates instead of
    falling back (the compiler's own tests, which must see every failure)."""

    def __enter__(self):
        self._saved = _state["strict"]
        _state["strict"] = True
        return self

    def __exit__(self, *exc):
        _state["strict"] = self._saved
        return False


def is_strict():
    """Whether pass failures propagate."""
    return _state["strict"]


def records():
    """The recent fallbacks (oldest first), as `Fallback` objects."""
    return list(_records)


def record(graph_name, pass_name, exc):
    """Notes that `pass_name` gave up on `graph_name` with `exc`, and logs it."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    entry = Fallback(graph_name, pass_name, exc, tb)
    _records.append(entry)
    how = "without the %s pass" % pass_name if pass_name != ALL else \
        "on the plain path (every optimization off)"
    msg = "rillflow compiler: the %s pass gave up on graph %r (%s: %s); compiled %s" % (
        pass_name if pass_name != ALL else "optimizing", graph_name,
        type(exc).__name__, exc, how)
    if _state["debug"]:
        logger.warning("%s\n%s", msg, tb)
    else:
        logger.debug(msg)
    return entry

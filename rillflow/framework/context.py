"""Execution context: eager or building a graph, active tapes, global flags.

The state is thread-local because a background thread (a dataset prefetcher,
say) runs ops eagerly while the main thread may be building a graph.
"""
import contextlib
import threading


class _ThreadState(threading.local):
    def __init__(self):
        # The graph ops are added to; None means ops execute eagerly.
        self.graph = None
        self.graph_stack = []
        # Active gradient tapes; hidden while building a function graph so an
        # outer tape sees the function call as one op.
        self.tapes = []
        # Name scope used by eager code (variables take their names from it).
        self.eager_scope = ""
        self.device = ""


state = _ThreadState()


class _Config:
    """Process-wide switches (`tf.config`)."""

    def __init__(self):
        self.run_functions_eagerly = False
        self.soft_device_placement = True


config = _Config()

# Callables notified with each ConcreteFunction traced (tf.summary.trace_on
# registers one to export the graphs of functions traced while tracing is on).
trace_listeners = []


def executing_eagerly():
    """Whether ops run immediately (True) or are added to a graph (False)."""
    return state.graph is None


def get_default_graph():
    """The graph being built, or None when executing eagerly."""
    return state.graph


@contextlib.contextmanager
def graph_mode(graph, hide_tapes=False):
    """Makes `graph` the graph that new ops are added to.

    `hide_tapes` starts an empty tape stack for the graph, which function
    tracing uses: tapes outside the function see its call, not its ops.
    Recorders marked `_keep_in_graphs` (the check-numerics checker) stay:
    they watch the ops of every graph built while they are on.
    """
    st = state
    st.graph_stack.append(st.graph)
    st.graph = graph
    saved_tapes = st.tapes
    if hide_tapes:
        st.tapes = [t for t in saved_tapes if getattr(t, "_keep_in_graphs", False)] \
            if saved_tapes else []
    try:
        yield graph
    finally:
        st.graph = st.graph_stack.pop()
        st.tapes = saved_tapes


@contextlib.contextmanager
def eager_mode():
    """Runs ops eagerly inside, e.g. to create a variable while tracing (init_scope)."""
    with graph_mode(None, hide_tapes=False):
        yield


def outermost_graph():
    """The outermost graph on the stack that is not a function graph, or None."""
    for g in [state.graph] + state.graph_stack[::-1]:
        if g is None or not getattr(g, "is_function_graph", False):
            return g
    return None


@contextlib.contextmanager
def init_scope():
    """Lifts out of every function graph being built (`tf.init_scope`).

    Inside, ops run eagerly, or in the outermost ordinary graph when the
    function is being traced inside a v1 graph.
    """
    graph = state.graph
    outer = outermost_graph()
    if outer is not None or graph is None or not getattr(graph, "is_function_graph", False):
        with graph_mode(outer, hide_tapes=True):
            yield
        return
    # Lifted out of a function into eager execution: the function's name
    # scope becomes the eager one, as TensorFlow's init_scope enters it
    # (variables a function creates are named under its scopes).
    saved = state.eager_scope
    state.eager_scope = graph.get_name_scope()
    try:
        with graph_mode(None, hide_tapes=True):
            yield
    finally:
        state.eager_scope = saved

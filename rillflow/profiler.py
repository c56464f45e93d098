"""`tf.profiler.experimental`: host traces of rillflow's ops.

`start(logdir)` (or the `Profile` context manager) begins a session; until
`stop()`, every op kernel that runs (eagerly, or as a kernel call inside a
compiled function) is timed, on whichever thread runs it, together with the
spans of `Trace(name, **kwargs)` blocks. `stop()` writes, under
`logdir/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/`:

- `<host>.xplane.pb`: an XSpace proto, as TensorFlow writes for
  TensorBoard's profile plugin: a "/host:CPU" plane with a line per thread
  and an event per op or Trace span (Trace keyword arguments as event
  stats), and the "Task Environment" plane with the start and stop times;
- `<host>.trace.json.gz`: the same events as a Chrome trace (the format
  chrome://tracing and Perfetto open, and older profile plugins read).

How ops are timed: while a session is on, the kernels of the op registry
are replaced by timing wrappers (put back on `stop`), and the thread that
started it sends its eager ops down their recording path (a marker in its
tape list), so that operators such as `+` call the kernel rather than
NumPy directly; on other threads those shortcuts stay untimed. Functions compiled
before `start` call their kernels directly and show as one event per call
(their PartitionedCall); the ops the compiler turns into plain NumPy
expressions are inside their function's event. There is no device plane
(rillflow runs on the CPU), no Python tracer, and no profiler server:
`server.start`, `client.trace` and `client.monitor` raise.
"""
import collections
import gzip
import json
import os
import socket
import struct
import threading
import time

from .framework import context as _context
from .framework import errors
from .framework import op_registry
from .framework.api_export import export
from .io import wire

__all__ = ["ProfilerOptions", "start", "stop", "Profile", "Trace"]

_lock = threading.Lock()
_session = None


@export("profiler.experimental.ProfilerOptions")
class ProfilerOptions(collections.namedtuple(
        "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level",
                            "delay_ms"])):
    """Options of a profiling session (TensorFlow's fields; rillflow traces
    the host's ops at every level and has no Python or device tracer)."""

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1,
                delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level,
                               device_tracer_level, delay_ms)


class _Session:
    """The events of one profiling session."""

    def __init__(self, logdir, options):
        self.logdir, self.options = logdir, options
        self.start_ns = time.time_ns()
        self.start_perf = time.perf_counter_ns()
        self.events = []            # (thread id, name, start ns, end ns, stats)
        self.threads = {}
        self.kernels = {}

    def add(self, name, begin, end, stats=None):
        t = threading.current_thread()
        self.threads.setdefault(t.ident, t.name)
        self.events.append((t.ident, name, begin, end, stats))


class _SlowPath:
    """Sits in the starting thread's tape list while profiling: eager ops
    then take their recording path, which calls the (timed) registered
    kernel, rather than the operators' NumPy shortcuts. Records nothing."""

    _observer = True       # sees ops, takes no gradients (function_gradients.py)

    def _should_record(self, inputs):
        return False

    def _variable_accessed(self, variable):
        """Nothing to note."""


def _timed(opdef, kernel):
    name = opdef.name

    def timed(*args, **kwargs):
        s = _session
        if s is None:
            return kernel(*args, **kwargs)
        begin = time.perf_counter_ns()
        try:
            return kernel(*args, **kwargs)
        finally:
            s.add(name, begin, time.perf_counter_ns())
    timed.__name__ = getattr(kernel, "__name__", name)
    timed.__wrapped__ = kernel
    return timed


@export("profiler.experimental.start")
def start(logdir, options=None):
    """Starts profiling; the trace is written under `logdir` by `stop`.

    Raises:
      AlreadyExistsError: if a session is already running.
    """
    global _session
    with _lock:
        if _session is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        s = _Session(os.fspath(logdir), options or ProfilerOptions())
        if s.options.delay_ms:
            time.sleep(s.options.delay_ms / 1000.0)
        for opdef in list(op_registry.REGISTRY.values()):
            s.kernels[opdef] = opdef.kernel
            opdef.kernel = _timed(opdef, opdef.kernel)
        s.slow_path = (_context.state, _SlowPath())
        _context.state.tapes.append(s.slow_path[1])
        _session = s


@export("profiler.experimental.stop")
def stop(save=True):
    """Stops profiling and, with `save`, writes the trace (see the module
    docstring for the files).

    Raises:
      UnavailableError: if no session is running.
    """
    global _session
    with _lock:
        s = _session
        if s is None:
            raise errors.UnavailableError(None, None, "Cannot export profiling results. No "
                                                      "profiler is running.")
        _session = None
        for opdef, kernel in s.kernels.items():
            opdef.kernel = kernel
        state, marker = s.slow_path
        state.tapes[:] = [t for t in state.tapes if t is not marker]
    if save:
        _write(s, time.perf_counter_ns())


@export("profiler.experimental.Profile")
class Profile:
    """`with Profile(logdir):` profiles the block (start, then stop)."""

    def __init__(self, logdir, options=None):
        self._logdir, self._options = logdir, options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()


@export("profiler.experimental.Trace")
class Trace:
    """`with Trace("train", step_num=3):` marks a span of the trace, with
    its keyword arguments as the event's stats (nothing when no session is
    running)."""

    def __init__(self, name, **kwargs):
        self._name, self._kwargs = name, kwargs
        self._begin = None

    def __enter__(self):
        if _session is not None:
            self._begin = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        s = _session
        if s is not None and self._begin is not None:
            s.add(self._name, self._begin, time.perf_counter_ns(), dict(self._kwargs))
        self._begin = None


# --- the profiler service (not available) -----------------------------------------------------------

_NO_SERVICE = ("rillflow has no profiler service: profile in the process itself with "
               "tf.profiler.experimental.start/stop or Profile.")


@export("profiler.experimental.server.start")
def server_start(port):
    """TensorFlow starts a gRPC profiler server on `port`.

    Raises:
      UnimplementedError: always (rillflow has no gRPC runtime).
    """
    raise errors.UnimplementedError(None, None, f"Cannot start a profiler server on port "
                                                f"{port}: " + _NO_SERVICE)


@export("profiler.experimental.client.trace")
def client_trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3,
                 options=None):
    """TensorFlow asks the profiler server at `service_addr` for a trace.

    Raises:
      RuntimeError: always, as TensorFlow's when no server answers.
    """
    raise RuntimeError(f"UNAVAILABLE: No trace event was collected from {service_addr}: "
                       + _NO_SERVICE)


@export("profiler.experimental.client.monitor")
def client_monitor(service_addr, duration_ms, level=1):
    """TensorFlow asks the profiler server at `service_addr` for metrics.

    Raises:
      RuntimeError: always (no server can answer).
    """
    raise RuntimeError(f"UNAVAILABLE: No monitoring result from {service_addr}: " + _NO_SERVICE)


# --- writing ------------------------------------------------------------------------------------------

def _stat(metadata_id, value):
    out = wire.key(1, wire.VARINT) + wire.encode_varint(metadata_id)
    if isinstance(value, bool) or isinstance(value, int):
        return out + wire.key(4, wire.VARINT) + wire.encode_varint(int(value))
    if isinstance(value, float):
        return out + wire.key(2, wire.FIXED64) + struct.pack("<d", value)
    return out + wire.len_field(5, str(value).encode("utf-8"))


def _map_entry(number, key, value_payload):
    entry = wire.key(1, wire.VARINT) + wire.encode_varint(key) + wire.len_field(2, value_payload)
    return wire.len_field(number, entry)


def _xspace(s, stop_perf, host):
    """The serialized XSpace of a session."""
    event_ids, stat_ids = {}, {}

    def event_id(name):
        return event_ids.setdefault(name, len(event_ids) + 1)

    def stat_id(name):
        return stat_ids.setdefault(name, len(stat_ids) + 1)
    by_thread = collections.defaultdict(list)
    for tid, name, begin, end, stats in s.events:
        by_thread[tid].append((name, begin, end, stats))
    lines = []
    for tid, events in by_thread.items():
        events.sort(key=lambda e: e[1])
        line_start = events[0][1]
        payload = [wire.key(1, wire.VARINT) + wire.encode_varint(tid),
                   wire.len_field(2, s.threads.get(tid, "").encode("utf-8")),
                   wire.key(3, wire.VARINT) + wire.encode_varint(
                       s.start_ns + (line_start - s.start_perf))]
        for name, begin, end, stats in events:
            ev = [wire.key(1, wire.VARINT) + wire.encode_varint(event_id(name)),
                  wire.key(2, wire.VARINT) + wire.encode_varint((begin - line_start) * 1000),
                  wire.key(3, wire.VARINT) + wire.encode_varint(max(end - begin, 0) * 1000)]
            for k, v in (stats or {}).items():
                ev.append(wire.len_field(4, _stat(stat_id(k), v)))
            payload.append(wire.len_field(4, b"".join(ev)))
        payload.append(wire.key(10, wire.VARINT) + wire.encode_varint(tid))
        payload.append(wire.len_field(11, s.threads.get(tid, "").encode("utf-8")))
        lines.append(wire.len_field(3, b"".join(payload)))
    host_plane = [wire.len_field(2, b"/host:CPU")] + lines
    for name, k in event_ids.items():
        host_plane.append(_map_entry(4, k, wire.key(1, wire.VARINT) + wire.encode_varint(k) +
                                     wire.len_field(2, name.encode("utf-8"))))
    for name, k in stat_ids.items():
        host_plane.append(_map_entry(5, k, wire.key(1, wire.VARINT) + wire.encode_varint(k) +
                                     wire.len_field(2, name.encode("utf-8"))))
    stop_ns = s.start_ns + (stop_perf - s.start_perf)
    env = [wire.len_field(2, b"Task Environment")]
    for k, name in ((1, "profile_start_time"), (2, "profile_stop_time")):
        env.append(_map_entry(5, k, wire.key(1, wire.VARINT) + wire.encode_varint(k) +
                              wire.len_field(2, name.encode())))
    for k, value in ((1, s.start_ns), (2, stop_ns)):
        env.append(wire.len_field(6, wire.key(1, wire.VARINT) + wire.encode_varint(k) +
                                  wire.key(3, wire.VARINT) + wire.encode_varint(value)))
    return (wire.len_field(1, b"".join(host_plane)) + wire.len_field(1, b"".join(env)) +
            wire.len_field(4, host.encode("utf-8")))


def _chrome_trace(s):
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}}]
    for tid, name in s.threads.items():
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                       "args": {"name": name}})
    for tid, name, begin, end, stats in s.events:
        ev = {"ph": "X", "name": name, "pid": 1, "tid": tid,
              "ts": (s.start_ns + begin - s.start_perf) / 1000.0,
              "dur": max(end - begin, 0) / 1000.0}
        if stats:
            ev["args"] = {k: v if isinstance(v, (int, float, bool)) else str(v)
                          for k, v in stats.items()}
        events.append(ev)
    return {"displayTimeUnit": "ns", "traceEvents": events}


def _write(s, stop_perf):
    host = socket.gethostname()
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(s.start_ns / 1e9))
    d = os.path.join(s.logdir, "plugins", "profile", run)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, host + ".xplane.pb"), "wb") as f:
        f.write(_xspace(s, stop_perf, host))
    with gzip.open(os.path.join(d, host + ".trace.json.gz"), "wt", encoding="utf-8") as f:
        json.dump(_chrome_trace(s), f)

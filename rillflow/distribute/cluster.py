"""`tf.train.ClusterSpec` (the jobs and task addresses of a cluster) and
`tf.train.Coordinator` (stopping a set of threads together, reporting the
first exception one of them raised), as TensorFlow's pure-Python classes.
rillflow runs in one process; a ClusterSpec describes, it connects nothing."""
import contextlib
import logging
import sys
import threading
import time

from ..framework import errors
from ..framework.api_export import export
from ..io.cluster_pb import ClusterDef

_log = logging.getLogger("rillflow")


@export("train.ClusterSpec")
class ClusterSpec:
    """A cluster: {job name: [addresses] or {task index: address}}.

    Raises:
      TypeError: for tasks that are not a list or a dict, or a cluster that
        is not a dict or a ClusterSpec.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = {i: task for i, task in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError("The tasks for job %r must be a list or a dictionary from "
                                    "integers to strings." % job_name)
                self._cluster_spec[job_name] = job_tasks
        elif isinstance(cluster, ClusterDef):
            self._cluster_spec = {}
            for job in cluster.job:
                self._cluster_spec[job.name] = {int(i): a for i, a in sorted(job.tasks.items())}
        elif isinstance(cluster, ClusterSpec):
            # TensorFlow copies through its ClusterDef proto, in job-name order.
            self._cluster_spec = {j: dict(sorted(t.items()))
                                  for j, t in sorted(cluster._cluster_spec.items())}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    def __repr__(self):
        d = self.as_dict()
        return "ClusterSpec({" + ", ".join(repr(k) + ": " + repr(d[k]) for k in sorted(d)) + "})"

    def as_dict(self):
        """{job: [addresses]} (or {index: address} for sparse task indices)."""
        ret = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self):
        """The cluster as a `tf.train.ClusterDef` (jobs by name, tasks by index)."""
        cd = ClusterDef()
        for job_name in sorted(self._cluster_spec):
            job = cd.job.add(name=job_name)
            for i, address in sorted(self._cluster_spec[job_name].items()):
                job.tasks[i] = address
        return cd

    @property
    def jobs(self):
        """The job names."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % job_name) from None

    def num_tasks(self, job_name):
        """The number of tasks of a job.

        Raises:
          ValueError: for an unknown job.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of a job.

        Raises:
          ValueError: for an unknown job.
        """
        return list(sorted(self._job(job_name).keys()))

    def task_address(self, job_name, task_index):
        """The address of one task.

        Raises:
          ValueError: for an unknown job or task.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name)) \
                from None

    def job_tasks(self, job_name):
        """The addresses of a job by index (None where an index is missing).

        Raises:
          ValueError: for an unknown job.
        """
        job = self._job(job_name)
        ret = [None for _ in range(max(job.keys()) + 1)]
        for i, task in job.items():
            ret[i] = task
        return ret


@export("train.Coordinator")
class Coordinator:
    """Coordinates the stopping of threads (`tf.train.Coordinator`): a
    thread calls `request_stop` (with the exception that ended it), the
    others see `should_stop()`, and `join` waits for them and re-raises the
    first exception. `clean_stop_exception_types` (default OutOfRangeError)
    stop without being an error."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(ex2, self._clean) else ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; `ex` (an exception or an exc_info tuple)
        is re-raised by `join`, unless it is a clean-stop type.

        Raises:
          the exception, when the threads were already joined.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise sys.exc_info()[1]
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        _log.info("Error reported to Coordinator: %s", ex[1])
                        self._exc_info_to_raise = ex
                    else:
                        _log.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = sys.exc_info()
                    if len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0] \
                            or not self._exc_info_to_raise[1]:
                        try:
                            raise ValueError("ex must be a tuple or sys.exc_info must return "
                                             f"the current exception: {self._exc_info_to_raise}")
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self):
        """Clears the stop request and the recorded exception."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        """Whether a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Inside, an exception requests a stop with it instead of propagating."""
        try:
            yield
        except BaseException:  # TensorFlow's bare except: every exception stops
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (or `timeout` seconds); returns whether it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds a thread that `join` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads to end after a stop (at most
        `stop_grace_period_secs` after it), then re-raises the reported exception.

        Raises:
          the reported exception, or RuntimeError for threads still running
          (unless `ignore_live_threads`).
        """
        with self._lock:
            threads = self._registered_threads if threads is None else \
                self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        wait = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(wait)
            stop_grace_period_secs -= wait
            wait = max(min(2 * wait, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    _log.info("Coordinator stopped with threads still running: %s",
                              " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: %s"
                                       % " ".join(stragglers))

    @property
    def joined(self):
        """Whether `join` has run."""
        return self._joined

    def raise_requested_exception(self):
        """Re-raises the reported exception, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]

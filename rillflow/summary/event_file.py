"""An event file: TFRecord-framed `Event` protos in `events.out.tfevents.*`.

Records are framed as in every TFRecord file (rillflow/io/tfrecord.py:
length, masked CRC-32C of the length, data, masked CRC-32C of the data).
Events wait in a queue and reach the file when `max_queue` of them are
waiting, when `flush_millis` have passed since the last flush (checked as
each event arrives), on `flush()` and on `close()`, as TensorFlow's writer
does.
"""
import itertools
import os
import socket
import threading
import time

from ..io.tfrecord import encode_record
from . import protos

__all__ = ["EventFile"]

_file_ids = itertools.count()




class EventFile:
    """Writes Event protos to a new event file in `logdir`.

    Attributes:
      path: the file's path.
    """

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        os.makedirs(logdir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%d.%d%s" % (
            time.time(), socket.gethostname(), os.getpid(), next(_file_ids), filename_suffix)
        self.path = os.path.join(logdir, name)
        self._file = open(self.path, "wb")
        self._queue = []
        self._max_queue = max_queue
        self._flush_secs = flush_millis / 1000.0
        self._last_flush = time.time()
        self._lock = threading.Lock()
        P = protos.load()
        self.write(P.event_pb2.Event(
            wall_time=time.time(), file_version="brain.Event:2",
            source_metadata=P.event_pb2.SourceMetadata(writer="rillflow.summary")))
        self.flush()

    @property
    def closed(self):
        """Whether `close` was called."""
        return self._file is None

    def write(self, event):
        """Queues an Event proto; flushes when the queue is full or old."""
        data = event.SerializeToString()
        with self._lock:
            if self._file is None:
                raise ValueError("I/O operation on a closed event file")
            self._queue.append(encode_record(data))
            if len(self._queue) >= self._max_queue or \
                    time.time() - self._last_flush >= self._flush_secs:
                self._flush_locked()

    def flush(self):
        """Writes the queued events to the file and flushes it to the OS."""
        with self._lock:
            if self._file is not None:
                self._flush_locked()

    def _flush_locked(self):
        if self._queue:
            self._file.write(b"".join(self._queue))
            self._queue.clear()
        self._file.flush()
        self._last_flush = time.time()

    def close(self):
        """Flushes and closes the file (again: no effect)."""
        with self._lock:
            if self._file is not None:
                self._flush_locked()
                self._file.close()
                self._file = None

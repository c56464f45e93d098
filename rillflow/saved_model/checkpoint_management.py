"""The `checkpoint` state file of a directory, `tf.train.latest_checkpoint`,
`tf.train.get_checkpoint_state` and `tf.train.CheckpointManager`.

The state file is TensorFlow's `CheckpointState` in protobuf text format:

    model_checkpoint_path: "ckpt-4"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-4"
    all_model_checkpoint_timestamps: 1795327324.58
    last_preserved_timestamp: 1795327323.55

Paths inside the directory are written relative to it and read back absolute.
"""
import collections
import glob
import logging
import os
import re
import time

from ..framework.api_export import export
from ..io import tensor_bundle

STATE_FILENAME = "checkpoint"
_log = logging.getLogger("rillflow")


def _escape(text):
    """Protobuf text escaping; non-ASCII stays UTF-8, as TensorFlow writes it."""
    out = []
    for c in text:
        if c in '"\'\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 32 or ord(c) == 127:
            out.append("\\%03o" % ord(c))
        else:
            out.append(c)
    return "".join(out)


_ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\"}


def _unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt in _ESCAPES:
            out += _ESCAPES[nxt]
            i += 2
        elif re.match(r"[0-7]{3}", text[i + 1:i + 4]):
            out.append(int(text[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            raise ValueError("bad escape")
    return out.decode("utf-8")


@export("train.CheckpointState")
class CheckpointState:
    """The contents of a directory's `checkpoint` state file (TensorFlow's
    `CheckpointState` proto): the latest checkpoint, all kept checkpoints and
    their timestamps."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_text(self):
        """The protobuf text form written to the state file."""
        lines = []
        if self.model_checkpoint_path:
            lines.append(f'model_checkpoint_path: "{_escape(self.model_checkpoint_path)}"')
        lines += [f'all_model_checkpoint_paths: "{_escape(p)}"'
                  for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}"
                  for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_text(cls, text):
        """Parses the text form. Raises ValueError when it is not one."""
        state = cls()
        for line in text.splitlines():
            line = line.strip()
            if not line:
                continue
            m = re.fullmatch(r'(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eE]+|inf|nan))', line)
            if m is None:
                raise ValueError(f"cannot parse {line!r}")
            field, text_value, number = m.groups()
            if field in ("model_checkpoint_path", "all_model_checkpoint_paths") and \
                    text_value is not None:
                value = _unescape(text_value)
                if field == "model_checkpoint_path":
                    state.model_checkpoint_path = value
                else:
                    state.all_model_checkpoint_paths.append(value)
            elif field == "all_model_checkpoint_timestamps" and number is not None:
                state.all_model_checkpoint_timestamps.append(float(number))
            elif field == "last_preserved_timestamp" and number is not None:
                state.last_preserved_timestamp = float(number)
            else:
                raise ValueError(f"unknown field {field!r}")
        return state

    def __repr__(self):
        return self.to_text()

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and vars(self) == vars(other)


def _state_path(directory, latest_filename=None):
    return os.path.join(os.fspath(directory), latest_filename or STATE_FILENAME)


@export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The `CheckpointState` of `checkpoint_dir` (paths made absolute), or
    None when it has no readable state file."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    try:
        state = CheckpointState.from_text(text)
    except (ValueError, UnicodeDecodeError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", path)
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Writes the state file of `save_dir` (atomically), with paths inside
    `save_dir` made relative to it, as TensorFlow's `save_relative_paths`."""
    save_dir = os.fspath(save_dir)
    if all_model_checkpoint_paths is None:
        all_model_checkpoint_paths = []
    if not all_model_checkpoint_paths or all_model_checkpoint_paths[-1] != model_checkpoint_path:
        all_model_checkpoint_paths = list(all_model_checkpoint_paths) + [model_checkpoint_path]

    def relative(p):
        # Relative paths are relative to the working directory, as save_dir is.
        return os.path.relpath(os.path.abspath(p), os.path.abspath(save_dir or "."))
    state = CheckpointState(relative(model_checkpoint_path),
                            [relative(p) for p in all_model_checkpoint_paths],
                            all_model_checkpoint_timestamps or (),
                            last_preserved_timestamp or 0.0)
    os.makedirs(save_dir or ".", exist_ok=True)
    path = _state_path(save_dir)
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(state.to_text())
    os.replace(tmp, path)


@export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`'s
    state file, or None when there is none (or its files are gone)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if tensor_bundle.exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def _delete_checkpoint_files(prefix):
    for path in [tensor_bundle.index_filename(prefix)] + glob.glob(
            glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def _as_int(value):
    if hasattr(value, "numpy"):
        value = value.numpy()
    return int(value)


@export("train.CheckpointManager")
class CheckpointManager:
    """Saves numbered checkpoints of `checkpoint` in `directory`, keeping the
    newest `max_to_keep` (all when None) plus one every
    `keep_checkpoint_every_n_hours`, and recovers that list from the
    directory's state file when created again.

    With `step_counter` and `checkpoint_interval`, `save()` only writes when
    the step has advanced by at least `checkpoint_interval` since the last save.

    Raises:
      ValueError: for a non-positive `max_to_keep`, or `checkpoint_interval`
        without `step_counter`.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, "
                             f"got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        state = get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete = collections.OrderedDict()
        if state is None:
            self._latest_checkpoint = None
            # A little in the past, so a manager re-created at once still
            # counts the checkpoints saved by this one as deletable.
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = state.model_checkpoint_path
            self._last_preserved_timestamp = min(state.last_preserved_timestamp, now)
            stamps = state.all_model_checkpoint_timestamps or (
                [self._last_preserved_timestamp] * len(state.all_model_checkpoint_paths))
            for path, stamp in zip(state.all_model_checkpoint_paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = stamp

    @property
    def directory(self):
        """The directory checkpoints are saved in."""
        return self._directory

    @property
    def checkpoint(self):
        """The managed `tf.train.Checkpoint`."""
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        """The minimum step difference between two saves, or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The prefixes of the kept (deletable) checkpoints, oldest first."""
        return list(self._maybe_delete)

    def _record_state(self):
        update_checkpoint_state(self._directory, self._latest_checkpoint,
                                list(self._maybe_delete),
                                list(self._maybe_delete.values()),
                                self._last_preserved_timestamp)

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                # Kept on disk for good but no longer listed, so the state
                # file does not grow without bound.
                self._last_preserved_timestamp = stamp
                continue
            _delete_checkpoint_files(path)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a checkpoint numbered `checkpoint_number` (default: the
        checkpoint's `save_counter` after incrementing it), deletes the
        oldest beyond `max_to_keep`, and returns its prefix — or None when
        `checkpoint_interval` steps have not passed yet."""
        if self._checkpoint_interval is not None:
            step = _as_int(self._step_counter)
            if (check_interval and self._last_checkpoint_step is not None and
                    step < self._last_checkpoint_step + self._checkpoint_interval):
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = counter
        prefix = "%s-%d" % (self._checkpoint_prefix, _as_int(checkpoint_number))
        path = self._checkpoint.write(prefix)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        # The state names the new checkpoint before anything is deleted, so an
        # interruption while deleting still finds it.
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path; with none,
        calls `init_fn` (if given) and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _as_int(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

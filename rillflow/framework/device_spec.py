"""`tf.DeviceSpec`: a (possibly partial) device name taken apart into its job,
replica, task, device type and index; immutable, as TensorFlow 2's."""
from .api_export import export

__all__ = ["DeviceSpec"]

# TensorFlow's device types (pluggable devices would add theirs).
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _str_or_none(v):
    return None if v is None else str(v)


def _int_or_none(v):
    return None if v is None else int(v)


def _device_type(v):
    # Only the lower-case spellings of CPU and GPU are normalized, as TensorFlow does.
    return v.upper() if v in ("cpu", "gpu") else _str_or_none(v)


def _components(spec):
    """(job, replica, task, device_type, device_index) of a device string.

    Raises:
      ValueError: for an unknown part or two device types.
    """
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for y in (x.split(":") for x in spec.split("/")):
        n = len(y)
        if n == 2 and y[0] == "job":
            job = y[1]
        elif n == 2 and y[0] == "replica":
            replica = y[1]
        elif n == 2 and y[0] == "task":
            task = y[1]
        elif n in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError("Multiple device types are not allowed while parsing the "
                                 f"device spec: {spec}.")
            device_type = y[0].upper()
            if n == 2 and y[1] != "*":
                device_index = int(y[1])
        elif n == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError("Multiple device types are not allowed while parsing the "
                                 f"device spec: {spec}.")
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif n and y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the "
                             f"device spec: '{spec}'.")
    return job, replica, task, device_type, device_index


@export("DeviceSpec")
class DeviceSpec:
    """A device specification: `/job:<name>/replica:<i>/task:<i>/device:<type>:<i>`,
    each part optional (`tf.DeviceSpec`).

    Args:
      job: the job name.
      replica: the replica index.
      task: the task index.
      device_type: "CPU", "GPU", ... ("cpu" and "gpu" are upper-cased).
      device_index: the device index; None means any (`*`).
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index",
                 "_as_string", "_hash")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = _str_or_none(job)
        self._replica = _int_or_none(replica)
        self._task = _int_or_none(task)
        self._device_type = _device_type(device_type)
        self._device_index = _int_or_none(device_index)
        out = []
        if self._job is not None:
            out.append("/job:" + self._job)
        if self._replica is not None:
            out.append("/replica:%d" % self._replica)
        if self._task is not None:
            out.append("/task:%d" % self._task)
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            out.append("/device:%s:%s" % (self._device_type, index))
        self._as_string = "".join(out)
        self._hash = hash(self._as_string)

    def to_string(self):
        """The spec as a device string, e.g. `/job:ps/device:GPU:0`."""
        return self._as_string

    @classmethod
    def from_string(cls, spec):
        """Parses a device string into a DeviceSpec.

        Raises:
          ValueError: if the string is not a device spec.
        """
        return cls(*_components(spec))

    def parse_from_string(self, spec):
        """The DeviceSpec of `spec` (DeviceSpecs are immutable: `self` is unchanged)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev):
        """A new DeviceSpec: `dev`'s parts where it has them, else this one's."""
        return self.__class__(*[b if b is not None else a for a, b in zip(
            self._parts(), dev._parts())])

    def replace(self, **kwargs):
        """A new DeviceSpec with the parts given as keywords replaced."""
        init = dict(job=self.job, replica=self.replica, task=self.task,
                    device_type=self.device_type, device_index=self.device_index)
        init.update(kwargs)
        return self.__class__(**init)

    def _parts(self):
        return (self._job, self._replica, self._task, self._device_type, self._device_index)

    @property
    def job(self):
        """The job name, or None."""
        return self._job

    @property
    def replica(self):
        """The replica index, or None."""
        return self._replica

    @property
    def task(self):
        """The task index, or None."""
        return self._task

    @property
    def device_type(self):
        """The device type, or None."""
        return self._device_type

    @property
    def device_index(self):
        """The device index, or None (any)."""
        return self._device_index

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")

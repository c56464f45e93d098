"""The containers of message fields (repeated numbers and bytes, repeated
messages, string-keyed message maps) and the element checks with protobuf's
error messages. Containers tell their message when they change, so an
unset submessage becomes set once written to."""
import numpy as np
from .descriptor import map_entry_class

__all__ = ["CHECKS", "RepeatedScalar", "RepeatedMessage", "MessageMap"]

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


# --- value checks: protobuf's messages for wrong element types -------------------------------

def _check_int64(owner, v):
    if isinstance(v, bool):
        raise TypeError(f"Field {owner._FULL_NAME}.value: Expected an int, got a boolean.")
    v = _index(v)
    if not _I64_MIN <= v <= _I64_MAX:
        raise ValueError(f"Value out of range: {v}")
    return v


def _index(v):
    try:
        return v.__index__()
    except AttributeError:
        raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer") \
            from None


def _check_float(owner, v):
    if isinstance(v, (str, bytes)) or not hasattr(v, "__float__"):
        raise TypeError(f"must be real number, not {type(v).__name__}")
    # Stored as float32 (what the field holds), read back as a Python float.
    with np.errstate(over="ignore"):
        return float(np.float32(float(v)))


def _check_bytes(owner, v):
    if not isinstance(v, bytes):
        raise TypeError(f"expected bytes, {type(v).__name__} found")
    return bytes(v)


CHECKS = {"int64": _check_int64, "float": _check_float, "bytes": _check_bytes}


# --- containers --------------------------------------------------------------------------------

class RepeatedScalar(list):
    """A repeated number or bytes field: a list that checks its elements and
    tells its message when it changes."""

    __slots__ = ("_owner", "_check")

    def __init__(self, owner, check):
        super().__init__()
        self._owner, self._check = owner, check

    def _c(self, v):
        return self._check(self._owner, v)

    def append(self, v):
        super().append(self._c(v))
        self._owner._mark()

    def extend(self, vs):
        super().extend([self._c(v) for v in vs])
        self._owner._mark()

    def insert(self, i, v):
        super().insert(i, self._c(v))
        self._owner._mark()

    def __setitem__(self, i, v):
        super().__setitem__(i, [self._c(x) for x in v] if isinstance(i, slice) else self._c(v))
        self._owner._mark()

    def __iadd__(self, vs):
        self.extend(vs)
        return self

    def __reduce__(self):
        return list, (list(self),)


class RepeatedMessage(list):
    """A repeated message field: `add(**fields)` makes a new element."""

    __slots__ = ("_owner", "_cls")

    def __init__(self, owner, cls):
        super().__init__()
        self._owner, self._cls = owner, cls

    def add(self, **kwargs):
        """Appends a new message built from `kwargs` and returns it."""
        m = self._cls(**kwargs)
        m._parent = self._owner
        super().append(m)
        self._owner._mark()
        return m

    def append(self, m):
        self.add().CopyFrom(m)

    def extend(self, ms):
        for m in ms:
            self.append(m)


class MessageMap(dict):
    """A map<string, message> field; reading a missing key inserts an empty
    message, as protobuf does."""

    __slots__ = ("_owner", "_cls")

    def __init__(self, owner, cls):
        super().__init__()
        self._owner, self._cls = owner, cls

    def __missing__(self, k):
        if not isinstance(k, str):
            raise TypeError("bad argument type for built-in operation")
        m = self._cls()
        m._parent = self._owner
        super().__setitem__(k, m)
        self._owner._mark()
        return m

    def GetEntryClass(self):  # noqa: N802 - protobuf's API
        """The class of one key/value entry (text_format parses into it)."""
        return map_entry_class(self._cls)

    def get_or_create(self, k):
        """The value at `k`, inserted empty if missing."""
        return self[k]

    def __setitem__(self, k, v):
        raise ValueError("Message objects may not be assigned")

"""Undefined values and checked loads.

Converted code initializes variables that control flow may assign with
`Undefined(name)`; reading one (`ld`) raises UnboundLocalError as Python
would. A function's return value starts as `UndefinedReturnValue`."""


class Undefined:
    """The value of a variable not assigned yet."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def read(self):
        raise UnboundLocalError(f"'{self.symbol_name}' is used before assignment")

    def __repr__(self):
        return "<undefined %s>" % self.symbol_name

    def __getattr__(self, name):
        # As TensorFlow's Undefined: an attribute of an undefined value is
        # undefined too (a read through `ag__.ld` raises first). Private names
        # are the framework probing for protocols: not there.
        if name.startswith("_"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        # An item of a variable the converted code reads without `ld` (the
        # value of an augmented assignment): Python's error for reading it.
        # (Not itself, as TensorFlow's Undefined: `iter()` would never end.)
        self.read()

    # As TensorFlow's: its conversion protocol is the object itself, so
    # converting it to a tensor is TypeError "'Undefined' object is not
    # callable" (an undefined operand of an augmented assignment, say).
    @property
    def __tf_tensor__(self):
        return self


class UndefinedReturnValue:
    """The return value of a function before any `return` ran."""

    __slots__ = ()

    def __repr__(self):
        return "<no return value>"


def ld(value):
    """The value of a variable read in converted code.

    Raises:
      UnboundLocalError: if the variable is undefined.
    """
    if value.__class__ is Undefined:
        value.read()
    return value


def ldu(load, name):
    """The value of an attribute or item (`lambda: a.x`), or Undefined when
    it does not exist yet (a control-flow statement may create it)."""
    try:
        return load()
    except (AttributeError, KeyError, IndexError, NameError):
        return Undefined(name)


def store(container, kind, key, value):
    """Writes an attribute (`kind` "attr") or item of `container()` back from
    control-flow state. An Undefined value removes it: it did not exist
    before the statement (so a branch's write does not leak into the other)."""
    try:
        obj = container()
    except (AttributeError, KeyError, IndexError, NameError):
        return
    if is_undefined(value):
        try:
            if kind == "attr":
                delattr(obj, key)
            else:
                del obj[key]
        except (AttributeError, KeyError, IndexError, TypeError):
            pass
    elif kind == "attr":
        setattr(obj, key, value)
    else:
        obj[key] = value


def retval(value):
    """The function's result: None when no return statement ran."""
    if value.__class__ is UndefinedReturnValue:
        return None
    return value


def is_undefined(value):
    """Whether a value is undefined (a variable or return value)."""
    return value.__class__ is Undefined or value.__class__ is UndefinedReturnValue

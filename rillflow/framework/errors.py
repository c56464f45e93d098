"""`tf.errors`: the OpError hierarchy with TensorFlow's names and codes.

Runtime failures of ops raise an OpError subclass chosen by the kind of
failure (bad argument, out of range, ...), as TensorFlow does.
"""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op.

    Args:
      node_def: the node that failed, or None.
      op: the Operation that failed, or None.
      message: what went wrong.
      error_code: one of the `tf.errors` codes.
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = {}

    @property
    def message(self):
        """The error message."""
        return self._message

    @property
    def op(self):
        """The Operation that failed, if known."""
        return self._op

    @property
    def node_def(self):
        """The node that failed, if known."""
        return self._node_def

    @property
    def error_code(self):
        """The integer error code of this error's class."""
        return self._error_code

    @property
    def experimental_payloads(self):
        """Extra payloads attached to the error (always empty here)."""
        return self._experimental_payloads

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)

    def __str__(self):
        return self._message


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)
    cls = type(name, (OpError,), {"__init__": __init__, "__doc__": doc,
                                  "__module__": __name__})
    return cls


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
                              "A deadline expired before the operation finished.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS,
                           "An entity that was to be created already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED,
                              "The caller may not run the operation.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
                             "The request has no valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "A resource (memory, quota) ran out.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation "
                                "(e.g. an uninitialized variable was read).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
                        "An operation went past the valid range (e.g. end of a sequence).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
                           "The operation is not implemented or supported.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration, ...) was applied to a symbolic tensor."""


class InaccessibleTensorError(ValueError):
    """A tensor of a graph nested in this one (a loop body, a branch) is used
    outside it, where it does not exist (TensorFlow's class, not exported
    under tf.errors there either)."""


_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError, DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError, ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError, UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError, FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError, UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code):
    """The OpError subclass for an error code."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    """The error code of an OpError subclass."""
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    return UNKNOWN

"""`tf.errors`: TensorFlow's exception classes.

Each also subclasses the Python exception a Python user would catch for the
same fault (`InvalidArgumentError` is a `ValueError`, `NotFoundError` a
`FileNotFoundError`, ...), so both `except tf.errors.InvalidArgumentError` and
`except ValueError` work.
"""

from __future__ import annotations

from typing import Any

# The canonical error codes (`tensorflow/core/protobuf/error_codes.proto`), as `tf.errors`.
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
    """The base class of TensorFlow's op errors: `OpError(node_def, op, message, error_code)`.

    `error_code` is the canonical code of the class (`tf.errors.INVALID_ARGUMENT` for
    `InvalidArgumentError`, ...; `UNKNOWN` for `OpError` itself), as TensorFlow sets it."""

    _code = UNKNOWN

    def __init__(self, node_def: Any = None, op: Any = None, message: str = "",
                 error_code: int | None = None, *args: Any):
        if op is None and not message and isinstance(node_def, str):
            node_def, message = None, node_def  # OpError("message") as a convenience
        if error_code is not None and not isinstance(error_code, int):
            # a subclass's `InvalidArgumentError(node_def, op, message, payloads)`
            args, error_code = (error_code, *args), None
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        if error_code is not None:  # OpError(node_def, op, message, error_code)
            self._code = error_code
        self._payloads = args[0] if args else {}

    @property
    def experimental_payloads(self) -> Any:
        """The details given after the message (TF's Abseil-style payloads dict; {} if none)."""
        return self._payloads

    @property
    def error_code(self) -> int:
        """The canonical error code of this error (an int of `tf.errors`)."""
        return self._code


class InvalidArgumentError(OpError, ValueError):
    """An op received an invalid argument (a bad shape, a value out of range)."""

    _code = INVALID_ARGUMENT


class NotFoundError(OpError, FileNotFoundError):
    """A requested file or entity was not found."""

    _code = NOT_FOUND


class AlreadyExistsError(OpError, FileExistsError):
    """An entity that was to be created already exists."""

    _code = ALREADY_EXISTS


class PermissionDeniedError(OpError, PermissionError):
    """The caller is not allowed to run the operation."""

    _code = PERMISSION_DENIED


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in a state the operation needs (e.g. an uninitialized value)."""

    _code = FAILED_PRECONDITION


class OutOfRangeError(OpError, IndexError):
    """An operation iterated past the valid range (end of input)."""

    _code = OUT_OF_RANGE


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented here."""

    _code = UNIMPLEMENTED


class InternalError(OpError, RuntimeError):
    """An internal invariant broke."""

    _code = INTERNAL


class UnknownError(OpError, RuntimeError):
    """An unknown error."""

    _code = UNKNOWN


class ResourceExhaustedError(OpError, MemoryError):
    """Some resource (memory, disk) is exhausted."""

    _code = RESOURCE_EXHAUSTED


class DeadlineExceededError(OpError, TimeoutError):
    """A deadline expired before the operation could complete."""

    _code = DEADLINE_EXCEEDED


class CancelledError(OpError, RuntimeError):
    """The operation was cancelled."""

    _code = CANCELLED


class AbortedError(OpError, RuntimeError):
    """The operation was aborted."""

    _code = ABORTED


class UnavailableError(OpError, ConnectionError):
    """The service is unavailable."""

    _code = UNAVAILABLE


class DataLossError(OpError, OSError):
    """Unrecoverable data loss or corruption (a corrupt file)."""

    _code = DATA_LOSS


class UnauthenticatedError(OpError, PermissionError):
    """The request has no valid authentication credentials."""

    _code = UNAUTHENTICATED


class OperatorNotAllowedInGraphError(TypeError):
    """Raised by TensorFlow when a Python operation on a symbolic tensor is not allowed in a
    graph (iterating it, using it as a bool). Here functions run eagerly, so nothing raises it;
    the class exists so that `except tf.errors.OperatorNotAllowedInGraphError` keeps working."""

"""`tf.errors`: TensorFlow's exception classes.

Each also subclasses the Python exception a Python user would catch for the
same fault (`InvalidArgumentError` is a `ValueError`, `NotFoundError` a
`FileNotFoundError`, ...), so both `except tf.errors.InvalidArgumentError` and
`except ValueError` work.
"""

from __future__ import annotations

from typing import Any


class OpError(Exception):
    """The base class of TensorFlow's op errors: `OpError(node_def, op, message)`."""

    def __init__(self, node_def: Any = None, op: Any = None, message: str = "", *args: Any):
        if op is None and not message and isinstance(node_def, str):
            node_def, message = None, node_def  # OpError("message") as a convenience
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message


class InvalidArgumentError(OpError, ValueError):
    """An op received an invalid argument (a bad shape, a value out of range)."""


class NotFoundError(OpError, FileNotFoundError):
    """A requested file or entity was not found."""


class AlreadyExistsError(OpError, FileExistsError):
    """An entity that was to be created already exists."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller is not allowed to run the operation."""


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in a state the operation needs (e.g. an uninitialized value)."""


class OutOfRangeError(OpError, IndexError):
    """An operation iterated past the valid range (end of input)."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented here."""


class InternalError(OpError, RuntimeError):
    """An internal invariant broke."""


class UnknownError(OpError, RuntimeError):
    """An unknown error."""


class ResourceExhaustedError(OpError, MemoryError):
    """Some resource (memory, disk) is exhausted."""


class DeadlineExceededError(OpError, TimeoutError):
    """A deadline expired before the operation could complete."""


class CancelledError(OpError, RuntimeError):
    """The operation was cancelled."""


class AbortedError(OpError, RuntimeError):
    """The operation was aborted."""


class UnavailableError(OpError, ConnectionError):
    """The service is unavailable."""


class DataLossError(OpError, OSError):
    """Unrecoverable data loss or corruption (a corrupt file)."""


class UnauthenticatedError(OpError, PermissionError):
    """The request has no valid authentication credentials."""

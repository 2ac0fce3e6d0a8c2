"""tf.errors: the canonical error codes and each class's `error_code`, as TF 2.15."""

from __future__ import annotations

import pytest

import torchestimator as tf

# (class, code name, code) as TF 2.15 has them
CLASSES = [
    ("CancelledError", "CANCELLED", 1), ("UnknownError", "UNKNOWN", 2),
    ("InvalidArgumentError", "INVALID_ARGUMENT", 3), ("DeadlineExceededError", "DEADLINE_EXCEEDED", 4),
    ("NotFoundError", "NOT_FOUND", 5), ("AlreadyExistsError", "ALREADY_EXISTS", 6),
    ("PermissionDeniedError", "PERMISSION_DENIED", 7), ("ResourceExhaustedError", "RESOURCE_EXHAUSTED", 8),
    ("FailedPreconditionError", "FAILED_PRECONDITION", 9), ("AbortedError", "ABORTED", 10),
    ("OutOfRangeError", "OUT_OF_RANGE", 11), ("UnimplementedError", "UNIMPLEMENTED", 12),
    ("InternalError", "INTERNAL", 13), ("UnavailableError", "UNAVAILABLE", 14),
    ("DataLossError", "DATA_LOSS", 15), ("UnauthenticatedError", "UNAUTHENTICATED", 16),
]


@pytest.mark.parametrize("cls,code_name,code", CLASSES)
def test_each_error_carries_its_canonical_code(cls, code_name, code):
    assert getattr(tf.errors, code_name) == code
    error = getattr(tf.errors, cls)(None, None, "what went wrong")
    assert error.error_code == code and error.message == "what went wrong"
    assert isinstance(error, tf.errors.OpError)


def test_op_error_takes_the_code_it_is_given():
    assert tf.errors.OK == 0
    assert tf.errors.OpError(None, None, "m", tf.errors.ABORTED).error_code == 10
    assert tf.errors.OpError(None, None, "m").error_code == tf.errors.UNKNOWN


def test_operator_not_allowed_in_graph_is_a_type_error():
    with pytest.raises(TypeError):
        raise tf.errors.OperatorNotAllowedInGraphError("iterating over a symbolic tensor")

"""The LinearOperators' argument and hint checks, shared in `linalg/_linear_operator_util.py`,
raise TF's messages from every operator that uses them."""

import pytest
import torch

import torchestimator as tf

L = tf.linalg


@pytest.mark.parametrize("make,message", [
    (lambda: L.LinearOperatorDiag(torch.tensor(1.0)), "Argument diag must have at least 1 dimension.  Found: "),
    (lambda: L.LinearOperatorDiag([1.0, 2.0], is_self_adjoint=False), "A real diagonal operator is always self adjoint."),
    (lambda: L.LinearOperatorLowerTriangular([1.0, 2.0]), "Argument tril must have at least 2 dimensions.  Found: "),
    (lambda: L.LinearOperatorIdentity(2, is_square=False), "An identity operator is always square."),
    (lambda: L.LinearOperatorIdentity(2, is_self_adjoint=False), "An identity operator is always self adjoint."),
    (lambda: L.LinearOperatorZeros(2, is_non_singular=True), "A zero operator is always singular."),
    (lambda: L.LinearOperatorZeros(2, is_positive_definite=True), "A zero operator is always not positive-definite."),
    (lambda: L.LinearOperatorScaledIdentity(2, 3.0, is_self_adjoint=False),
     "A real diagonal operator is always self adjoint."),
    (lambda: L.LinearOperatorScaledIdentity(2, 3.0, is_square=False), "A ScaledIdentity operator is always square."),
    (lambda: L.LinearOperatorHouseholder([1.0, 0.0], is_positive_definite=True),
     "A Householder operator is always non-positive definite."),
    (lambda: L.LinearOperatorHouseholder(torch.tensor(1.0)),
     "Argument reflection_axis must have at least 1 dimension.  Found: "),
    (lambda: L.LinearOperatorToeplitz(torch.tensor(1.0), torch.tensor(1.0)),
     "Argument row must have at least 1 dimension.  Found: "),
])
def test_checks_raise_tfs_messages(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert str(err.value).startswith(message)


def test_a_real_diagonal_is_self_adjoint_and_a_complex_one_keeps_the_hint():
    assert L.LinearOperatorDiag([1.0, 2.0]).is_self_adjoint is True
    assert L.LinearOperatorScaledIdentity(2, 3.0).is_self_adjoint is True
    assert L.LinearOperatorDiag(torch.tensor([1j, 2.0])).is_self_adjoint is None

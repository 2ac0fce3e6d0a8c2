"""`tf.linalg.experimental`: experimental linear algebra (the conjugate gradient solver)."""

from torchestimator.linalg._linalg_functions import conjugate_gradient

__all__ = ["conjugate_gradient"]

"""Weight regularizers: `L1`, `L2`, `L1L2` and `OrthogonalRegularizer`.

A regularizer is called on a weight tensor and returns a scalar tensor, the
penalty that Keras adds to the training loss. Computation stays in torch, so
the penalty carries gradients back to the weight.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator.keras._tensors import as_float_tensor


def _check_penalty_number(x: Any, name: str) -> float:
    """Returns `x` as a float if it is a valid penalty factor, else raises ValueError."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        raise ValueError(
            f"Value {x!r} is not a valid regularization penalty number for `{name}`, "
            "expected an int or a float value."
        )
    return float(x)


class Regularizer:
    """Regularizer base class.

    Subclasses override `__call__(self, x)` (returning a scalar penalty tensor)
    and `get_config()`. The base class applies no penalty: it returns 0.
    """

    def __call__(self, x: Any) -> torch.Tensor:
        """Computes a regularization penalty from an input tensor; the base class returns 0."""
        x = as_float_tensor(x)
        return torch.zeros((), dtype=x.dtype, device=x.device)

    def get_config(self) -> dict[str, Any]:
        """Returns the config of the regularizer, a JSON-serializable dict of its arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        """Creates a regularizer from its config (the output of `get_config`). Returns it."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class L1(Regularizer):
    """A regularizer that applies a L1 regularization penalty.

    The L1 regularization penalty is computed as `loss = l1 * reduce_sum(abs(x))`.
    L1 may be passed to a layer as a string identifier (`'l1'`), in which case
    the default value `l1=0.01` is used.

    Args:
        l1: Float; L1 regularization factor.
    """

    def __init__(self, l1: float = 0.01, **kwargs: Any) -> None:
        l1 = kwargs.pop("l", l1)  # Backwards compatibility with Keras' `l` argument.
        if kwargs:
            raise TypeError(f"L1: unknown arguments {sorted(kwargs)}; expected `l1`")
        self.l1 = _check_penalty_number(0.01 if l1 is None else l1, "l1")

    def __call__(self, x: Any) -> torch.Tensor:
        """Returns `l1 * sum(abs(x))` as a scalar tensor."""
        x = as_float_tensor(x)
        return self.l1 * torch.sum(torch.abs(x))

    def get_config(self) -> dict[str, Any]:
        """Returns `{"l1": l1}`."""
        return {"l1": self.l1}


class L2(Regularizer):
    """A regularizer that applies a L2 regularization penalty.

    The L2 regularization penalty is computed as `loss = l2 * reduce_sum(square(x))`.
    L2 may be passed to a layer as a string identifier (`'l2'`), in which case
    the default value `l2=0.01` is used.

    Args:
        l2: Float; L2 regularization factor.
    """

    def __init__(self, l2: float = 0.01, **kwargs: Any) -> None:
        l2 = kwargs.pop("l", l2)  # Backwards compatibility with Keras' `l` argument.
        if kwargs:
            raise TypeError(f"L2: unknown arguments {sorted(kwargs)}; expected `l2`")
        self.l2 = _check_penalty_number(0.01 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> torch.Tensor:
        """Returns `l2 * sum(square(x))` as a scalar tensor."""
        x = as_float_tensor(x)
        return self.l2 * torch.sum(torch.square(x))

    def get_config(self) -> dict[str, Any]:
        """Returns `{"l2": l2}`."""
        return {"l2": self.l2}


class L1L2(Regularizer):
    """A regularizer that applies both L1 and L2 regularization penalties.

    The penalty is `l1 * reduce_sum(abs(x)) + l2 * reduce_sum(square(x))`.
    L1L2 may be passed to a layer as the string identifier `'l1_l2'`, in which
    case `l1=0.01` and `l2=0.01` are used.

    Args:
        l1: Float; L1 regularization factor.
        l2: Float; L2 regularization factor.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _check_penalty_number(0.0 if l1 is None else l1, "l1")
        self.l2 = _check_penalty_number(0.0 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> torch.Tensor:
        """Returns `l1 * sum(abs(x)) + l2 * sum(square(x))` as a scalar tensor."""
        x = as_float_tensor(x)
        penalty = torch.zeros((), dtype=x.dtype, device=x.device)
        if self.l1:
            penalty = penalty + self.l1 * torch.sum(torch.abs(x))
        if self.l2:
            penalty = penalty + self.l2 * torch.sum(torch.square(x))
        return penalty

    def get_config(self) -> dict[str, Any]:
        """Returns `{"l1": l1, "l2": l2}`."""
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Regularizer that encourages input vectors to be orthogonal to each other.

    It can be applied to either the rows of a matrix (`mode="rows"`) or its
    columns (`mode="columns"`). When applied to a Dense kernel of shape
    `(input_dim, units)`, rows mode will seek to make the feature vectors
    (i.e. the basis of the output space) orthogonal to each other. The penalty
    is `factor * mean(abs(dot products))` over all distinct pairs of
    L2-normalized vectors, i.e. `factor * 0.5 * sum(|off-diagonal of V V^T|) / n_pairs`.

    Args:
        factor: Float. The regularization factor.
        mode: String, one of `{"rows", "columns"}`.
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _check_penalty_number(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                "Invalid value for argument `mode`. Expected one of {'rows', 'columns'}. "
                f"Received: mode={mode!r}"
            )
        self.mode = mode

    def __call__(self, x: Any) -> torch.Tensor:
        """Returns the orthogonality penalty of the rows (or columns) of the 2D tensor `x`."""
        x = as_float_tensor(x)
        if x.dim() != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. "
                f"Received: inputs.shape == {tuple(x.shape)}"
            )
        vectors = x if self.mode == "rows" else x.T
        size = vectors.shape[0]
        if size < 2:
            return torch.zeros((), dtype=x.dtype, device=x.device)
        vectors = torch.nn.functional.normalize(vectors, p=2.0, dim=1, eps=1e-6)
        product = vectors @ vectors.T
        off_diagonal = product * (1.0 - torch.eye(size, dtype=x.dtype, device=x.device))
        num_pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * torch.sum(torch.abs(off_diagonal)) / num_pairs

    def get_config(self) -> dict[str, Any]:
        """Returns `{"factor": factor, "mode": mode}`."""
        return {"factor": self.factor, "mode": self.mode}


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """Creates a regularizer for L1 and L2 regularization.

    Args:
        l1: Float; L1 regularization factor.
        l2: Float; L2 regularization factor.

    Returns:
        An L1L2 regularizer with the given regularization factors.
    """
    return L1L2(l1=l1, l2=l2)

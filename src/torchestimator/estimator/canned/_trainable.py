"""The trainable variables of a canned model's layers, as one list kept across steps, and the
fraction of them that is zero (the linear models' sparsity summary)."""

from __future__ import annotations

import torch


def trainable_variables(layers: list) -> list[torch.Tensor]:
    """The trainable weights of `layers` (built), in order, without repeats.

    The list is kept on the first layer and handed back while the same layers keep their
    `trainable` flags: a canned model_fn calls this every step, and the same list object lets
    the train op skip rebuilding the optimizer (`TrainOp.run`). Assumes the layers create no
    new weights once built and that a weight's `requires_grad` changes only with its layer's
    `trainable` flag.
    """
    key = tuple((id(layer), layer.trainable) for layer in layers)
    cached = layers[0].__dict__.get("_trainable_weights_of_net")
    if cached is not None and cached[0] == key:
        return cached[1]
    out, seen = [], set()
    for layer in layers:
        for p in layer.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    layers[0].__dict__["_trainable_weights_of_net"] = (key, out)
    return out


def compute_fraction_of_zero(variables: list[torch.Tensor]) -> torch.Tensor:
    """The fraction of zero entries over all `variables` (the linear model's sparsity)."""
    total = sum(v.numel() for v in variables)
    if total == 0:
        return torch.tensor(float("nan"))
    zeros = sum((v.detach() == 0).sum() for v in variables)
    return zeros.float() / total

"""`backward(loss)`: `loss.backward()` for the training loop's scalar loss, in fewer microseconds.

`Tensor.backward` goes through `torch.autograd.backward`, whose Python argument handling
(tensor-or-tuple normalisation, the `__torch_function__` check, `_make_grads`' validation
of each output) costs about 9 us a call: a tenth of a step of a tiny model (W3's linear
regression) and a few percent of a small one (Iris). The training loop's loss is one
plain, real, scalar tensor with a `grad_fn`, which is everything that handling checks, so
that case goes to `torch.autograd.graph._engine_run_backward` (what `torch.autograd.backward`
itself calls, with its autograd logging and the context stash compiled code needs) with the
seed gradient `ones_like(loss)`, as `_make_grads` builds it. Anything else (a tensor
subclass, a loss without a graph, a non-scalar) takes `Tensor.backward`, and with it torch's
own errors.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

try:  # torch >= 2.3; the pinned 2.13 has it
    from torch.autograd.graph import _engine_run_backward
except ImportError:  # pragma: no cover - an older or newer torch without it
    _engine_run_backward = None


def backward(loss: torch.Tensor, inputs: Sequence[torch.Tensor] | None = None,
             retain_graph: bool = False) -> None:
    """Accumulates the gradient of the scalar `loss` into `.grad` of the leaves it depends on
    (only of `inputs` when given), as `loss.backward(inputs=inputs, retain_graph=retain_graph)`."""
    if (_engine_run_backward is not None and type(loss) is torch.Tensor
            and loss.grad_fn is not None and loss.ndim == 0 and loss.is_floating_point()
            and (inputs is None or len(inputs))):
        _engine_run_backward(
            (loss,), (torch.ones_like(loss),), retain_graph, False,
            tuple(inputs) if inputs else (), allow_unreachable=True, accumulate_grad=True,
        )
        return
    loss.backward(inputs=None if inputs is None else list(inputs), retain_graph=retain_graph)

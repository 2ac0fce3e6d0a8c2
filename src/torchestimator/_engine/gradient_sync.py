"""The gradient reduction of a data-parallel run, seen by every optimizer.

While `tf.distribute` trains on several processes it sets `reducer`, a function
`(gradients, variables) -> gradients averaged over the replicas`; an optimizer's
update calls it first. None, the default, costs one attribute read.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

reducer: Callable[[list[torch.Tensor], list[torch.Tensor]], list[torch.Tensor]] | None = None

shards: Callable[[list[torch.Tensor]], list[torch.Tensor]] | None = None
"""While `tf.distribute.experimental.FSDPStrategy` trains: maps a train op's variables (the
model's full `tf.Variable`s) to the FSDP shards that stand for them; a train op then
back-propagates into every weight (FSDP's gathered weights are the graph's leaves) and
its optimizers update the shards. None otherwise."""

"""`tf.keras.optimizers`: Keras 2.15's optimizers and learning-rate schedules on PyTorch.

Each optimizer keeps Keras' names, arguments, defaults and update rule; the
update runs as a `torch.optim.Optimizer` (multi-tensor ops, or torch's own
functional implementation where its math is TF's). Training engines call
`optimizer.build(params)`, then `optimizer.step()` after `loss.backward()`.

`compile(optimizer=torch.optim.Adam(model.parameters()))` takes a torch optimizer, and
`(optimizer, lr_scheduler)` one with a scheduler stepped every epoch (`from_torch`; the
model's `optimizer` is then a `TorchOptimizer` holding them, see `_torch.py`).
"""

from torchestimator.keras.optimizers import experimental, legacy, schedules
from torchestimator.keras.optimizers._serialization import deserialize, get, serialize
from torchestimator.keras.optimizers._torch import from_torch
from torchestimator.keras.optimizers.adadelta import Adadelta
from torchestimator.keras.optimizers.adafactor import Adafactor
from torchestimator.keras.optimizers.adagrad import Adagrad
from torchestimator.keras.optimizers.adam import Adam
from torchestimator.keras.optimizers.adamax import Adamax
from torchestimator.keras.optimizers.adamw import AdamW
from torchestimator.keras.optimizers.ftrl import Ftrl
from torchestimator.keras.optimizers.lion import Lion
from torchestimator.keras.optimizers.nadam import Nadam
from torchestimator.keras.optimizers.optimizer import Optimizer
from torchestimator.keras.optimizers.rmsprop import RMSprop
from torchestimator.keras.optimizers.sgd import SGD

__all__ = [
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lion",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "experimental",
    "from_torch",
    "get",
    "legacy",
    "schedules",
    "serialize",
]

"""`tf.distribute.experimental`: communication options and the experimental strategies."""

from torchestimator.distribute._communication import (
    CollectiveCommunication,
    CommunicationImplementation,
    CommunicationOptions,
)
from torchestimator.distribute._fsdp import FSDPStrategy
from torchestimator.distribute._strategies import (
    CentralStorageStrategy,
    ParameterServerStrategy,
    TPUStrategy,
)
from torchestimator.distribute._strategies_experimental import MultiWorkerMirroredStrategy

__all__ = [
    "CentralStorageStrategy",
    "CollectiveCommunication",
    "CommunicationImplementation",
    "CommunicationOptions",
    "FSDPStrategy",
    "MultiWorkerMirroredStrategy",
    "ParameterServerStrategy",
    "TPUStrategy",
]

"""`tf.config.experimental_connect_to_cluster` / `experimental_connect_to_host`: TF's remote
eager execution (ops placed on remote workers or TPU hosts), refused by name."""

from __future__ import annotations

from torchestimator._refused import refuse

_REMOTE = ("remote eager execution (ops placed on other machines' devices, TPU hosts) does not exist "
           "here: run one process per device with `torchestimator launch` or torchrun and a "
           "tf.distribute.MultiWorkerMirroredStrategy")

experimental_connect_to_cluster = refuse("tf.config.experimental_connect_to_cluster", _REMOTE)
experimental_connect_to_host = refuse("tf.config.experimental_connect_to_host", _REMOTE)

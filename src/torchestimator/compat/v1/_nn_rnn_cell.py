"""`tf.compat.v1.nn.rnn_cell`: TF 1.x's RNN cells (`BasicRNNCell`, `BasicLSTMCell`, `LSTMCell`,
`GRUCell`, `MultiRNNCell`, the `DropoutWrapper`/`ResidualWrapper`/`DeviceWrapper` wrappers,
`LSTMStateTuple`), whose variables get TF1's names (`rnn/lstm_cell/kernel`). See
`compat/v1/_rnn_cell.py`. (Kept under a private module name so that no `tf.compat.v1.rnn_cell`
appears: TF has only `tf.compat.v1.nn.rnn_cell`.)
"""

from __future__ import annotations

from torchestimator.compat.v1._rnn_cell import (
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)
from torchestimator.compat.v1._rnn_cell_wrappers import (
    DeviceWrapper,
    DropoutWrapper,
    ResidualWrapper,
)

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
]

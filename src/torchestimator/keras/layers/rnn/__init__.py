"""Keras layers: rnn — recurrent layers (`SimpleRNN`, `LSTM`, `GRU`, the generic `RNN` and
its cells, the convolutional `ConvLSTM1D/2D/3D`) and the sequence wrappers `Bidirectional` and `TimeDistributed`."""

from torchestimator.keras.layers.rnn.abstract_rnn_cell import AbstractRNNCell
from torchestimator.keras.layers.rnn.base_rnn import RNN
from torchestimator.keras.layers.rnn.base_wrapper import Wrapper
from torchestimator.keras.layers.rnn.bidirectional import Bidirectional
from torchestimator.keras.layers.rnn.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from torchestimator.keras.layers.rnn.gru import GRU, GRUCell
from torchestimator.keras.layers.rnn.lstm import LSTM, LSTMCell
from torchestimator.keras.layers.rnn.simple_rnn import SimpleRNN, SimpleRNNCell
from torchestimator.keras.layers.rnn.stacked_rnn_cells import StackedRNNCells
from torchestimator.keras.layers.rnn.time_distributed import TimeDistributed

__all__ = [
    "AbstractRNNCell", "Bidirectional", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "GRU", "GRUCell",
    "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell", "StackedRNNCells", "TimeDistributed",
    "Wrapper",
]

"""`AbstractRNNCell`: the base of custom cells — the Keras docs' MinimalRNNCell runs in
`RNN` (checked against a hand loop), zero initial states, config and `.keras` round trips of a
registered cell, and the abstract members raise NotImplementedError."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer
from _harness.layers import on_default_device

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


@tf.keras.saving.register_keras_serializable(package="test31")
class MinimalRNNCell(layers.AbstractRNNCell):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=(self.units, self.units))
        self.built = True

    def call(self, inputs, states):
        output = inputs @ self.kernel + states[0] @ self.recurrent_kernel
        return output, [output]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_minimal_cell_runs_in_rnn():
    x = on_default_device(torch.randn(2, 4, 3))
    rnn = layers.RNN(MinimalRNNCell(5), return_sequences=True)
    y = rnn(x)
    cell = rnn.cell
    h = on_default_device(torch.zeros(2, 5))
    for t in range(4):
        h = x[:, t] @ cell.kernel + h @ cell.recurrent_kernel
        torch.testing.assert_close(y[:, t], h)


def test_initial_state_is_zeros():
    cell = MinimalRNNCell(3)
    state = cell.get_initial_state(batch_size=2, dtype=torch.float32)
    assert torch.equal(state, torch.zeros(2, 3))
    state = cell.get_initial_state(inputs=torch.ones(4, 7, dtype=torch.float64))
    assert state.shape == (4, 3) and state.dtype == torch.float64


def test_rnn_of_custom_cell_round_trips(tmp_path):
    check_layer(layers.RNN, {"cell": MinimalRNNCell(2)}, (2, 4, 3), expected_output_shape=(2, 2), tmp_dir=tmp_path)
    check_layer(layers.RNN, {"cell": MinimalRNNCell(2), "return_sequences": True}, (2, 4, 3),
                expected_output_shape=(2, 4, 2), tmp_dir=tmp_path)


def test_abstract_members_raise():
    cell = layers.AbstractRNNCell()
    with pytest.raises(NotImplementedError, match="state_size"):
        cell.state_size  # noqa: B018
    with pytest.raises(NotImplementedError, match="output_size"):
        cell.output_size  # noqa: B018
    with pytest.raises(NotImplementedError, match="call"):
        cell.call(torch.zeros(1, 2), [torch.zeros(1, 2)])

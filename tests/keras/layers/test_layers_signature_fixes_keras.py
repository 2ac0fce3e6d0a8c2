"""TF 2.15's signatures of Keras layers: RNN/Bidirectional/StackedRNNCells `constants`,
wrappers' `from_config(config, custom_objects)`, `GroupNormalization.call(inputs, mask)`,
`compute_output_signature(input_spec)`, ConvLSTM's tuple defaults, `MultiHeadAttention.build
(input_shape)`, `EinsumDense.compute_output_shape(_)`, and the `tf.nn.RNNCell*Wrapper`s'
`build(inputs_shape)` / `call(inputs, state)`. Expected values were printed by TF 2.15.1."""

import inspect

import numpy as np
import pytest

import torchestimator as tf

X = np.arange(12, dtype="float32").reshape(2, 3, 2) / 10
C = np.array([[1, 2, 3], [4, 5, 6]], dtype="float32")
# TF 2.15.1: RNN(ConstantCell(3), return_sequences=True)(X, constants=[C])
TF_SEQUENCE = [[[1.1, 2.1, 3.1], [2.05, 3.55, 5.05], [2.925, 4.675, 6.425]],
               [[5.3, 6.3, 7.3], [8.35, 9.85, 11.35], [10.275, 12.025, 13.775]]]


class ConstantCell(tf.keras.layers.Layer):
    """`h = x @ ones + 0.5 h + constants[0]` (not registered: Bidirectional copies it anyway)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def get_config(self):
        return dict(super().get_config(), units=self.units)

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="ones")

    def call(self, inputs, states, constants):
        h = tf.matmul(inputs, self.kernel) + states[0] * 0.5 + constants[0]
        return h, [h]


def test_rnn_passes_constants_to_the_cell_at_every_step():
    rnn = tf.keras.layers.RNN(ConstantCell(3), return_sequences=True)
    out = rnn(tf.constant(X), constants=[tf.constant(C)])
    np.testing.assert_allclose(out.numpy(), TF_SEQUENCE, rtol=1e-5)
    assert rnn.get_config()["num_constants"] == 1


def test_rnn_constants_in_a_functional_model_and_its_config_round_trip():
    xi, ci = tf.keras.Input((3, 2)), tf.keras.Input((3,))
    model = tf.keras.Model([xi, ci], tf.keras.layers.RNN(ConstantCell(3))(xi, constants=[ci]))
    np.testing.assert_allclose(model.predict([X, C], verbose=0), np.array(TF_SEQUENCE)[:, -1],
                               rtol=1e-5)
    rnn = model.layers[-1]
    again = tf.keras.layers.RNN.from_config(rnn.get_config(), {"ConstantCell": ConstantCell})
    assert again._num_constants == 1 and isinstance(again.cell, ConstantCell)


def test_bidirectional_and_stacked_cells_pass_constants():
    bi = tf.keras.layers.Bidirectional(tf.keras.layers.RNN(ConstantCell(3)), merge_mode="sum")
    np.testing.assert_allclose(bi(tf.constant(X), constants=[tf.constant(C)]).numpy(),
                               [[5.25, 8.75, 12.25], [19.95, 23.45, 26.95]], rtol=1e-5)
    stacked = tf.keras.layers.RNN(tf.keras.layers.StackedRNNCells([ConstantCell(3), ConstantCell(3)]))
    np.testing.assert_allclose(stacked(tf.constant(X), constants=[tf.constant(C)]).numpy(),
                               [[22.675, 24.425, 26.175], [62.575, 64.325, 66.075]], rtol=1e-5)
    assert list(inspect.signature(tf.keras.layers.StackedRNNCells.call).parameters)[3] == "constants"


def test_constants_need_a_cell_that_takes_them():
    with pytest.raises(ValueError, match="does not support constants"):
        tf.keras.layers.SimpleRNN(3)(tf.constant(X), constants=[tf.constant(C)])


def test_wrapper_from_config_takes_custom_objects():
    td = tf.keras.layers.TimeDistributed(tf.keras.layers.RNN(ConstantCell(2)))
    config = td.get_config()
    with pytest.raises(ValueError, match="Unknown class"):
        tf.keras.layers.TimeDistributed.from_config(config)
    again = tf.keras.layers.TimeDistributed.from_config(config, custom_objects={"ConstantCell": ConstantCell})
    assert isinstance(again.layer.cell, ConstantCell)
    stack = tf.keras.layers.StackedRNNCells([ConstantCell(2)])
    assert isinstance(tf.keras.layers.StackedRNNCells.from_config(
        stack.get_config(), {"ConstantCell": ConstantCell}).cells[0], ConstantCell)
    bi = tf.keras.layers.Bidirectional(tf.keras.layers.RNN(ConstantCell(2)))
    assert isinstance(tf.keras.layers.Bidirectional.from_config(
        bi.get_config(), custom_objects={"ConstantCell": ConstantCell}).forward_layer.cell, ConstantCell)


def test_group_normalization_mask_weights_the_moments_as_tf():
    x = tf.constant([[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]])
    mask = tf.constant([[[True, True, False, True], [False, True, True, True]]])
    layer = tf.keras.layers.GroupNormalization(groups=2, epsilon=1e-3)
    np.testing.assert_allclose(layer(x, mask=mask).numpy(),
                               [[[-0.9257, -0.4629, -1.9608, -1.3726], [0.9257, 1.3886, 0.3922, 0.9804]]],
                               atol=1e-4)
    np.testing.assert_allclose(layer(x, None).numpy(),
                               [[[-1.2125, -0.7275, -1.2125, -0.7275], [0.7275, 1.2125, 0.7275, 1.2125]]],
                               atol=1e-4)


def test_compute_output_signature_takes_input_spec_and_gives_the_output_dtype():
    layers = tf.keras.layers
    spec = tf.TensorSpec
    cases = [  # TF 2.15.1's shapes and dtypes
        (layers.Hashing(num_bins=3), spec((None, 2), tf.string), (None, 2), tf.int64),
        (layers.StringLookup(vocabulary=["a", "b"]), spec((None, 2), tf.string), (None, 2), tf.int64),
        (layers.StringLookup(vocabulary=["a", "b"], invert=True), spec((None, 2), tf.int64),
         (None, 2), tf.string),
        (layers.IntegerLookup(vocabulary=[1, 2, 3], output_mode="multi_hot"),
         spec((None, 2), tf.int64), (None, 4), tf.float32),
        (layers.Discretization(bin_boundaries=[0.0, 1.0]), spec((None, 3), tf.float32), (None, 3), tf.int64),
        (layers.TextVectorization(vocabulary=["a", "b"], output_sequence_length=4),
         spec((None, 1), tf.string), (None, 4), tf.int64),
        (layers.Normalization(mean=0.0, variance=1.0), spec((None, 2), tf.float32), (None, 2), tf.float32),
    ]
    for layer, input_spec, shape, dtype in cases:
        out = layer.compute_output_signature(input_spec=input_spec)
        assert tuple(out.shape) == shape and out.dtype == dtype, type(layer).__name__
    crossed = layers.HashedCrossing(num_bins=3).compute_output_signature(
        input_specs=(spec((None,), tf.int64), spec((None,), tf.string)))
    assert tuple(crossed.shape) == (None,) and crossed.dtype == tf.int64


def test_conv_lstm_strides_and_dilation_default_to_tuples():
    for cls, ones in ((tf.keras.layers.ConvLSTM2D, (1, 1)), (tf.keras.layers.ConvLSTM3D, (1, 1, 1))):
        params = inspect.signature(cls.__init__).parameters
        assert params["strides"].default == ones and params["dilation_rate"].default == ones
        layer = cls(2, 3)
        assert layer.strides == ones and layer.dilation_rate == ones
    out = tf.keras.layers.ConvLSTM2D(2, 3)(tf.ones((1, 2, 5, 5, 1)))
    assert tuple(out.shape) == (1, 3, 3, 2)


def test_renamed_shape_arguments():
    mha = tf.keras.layers.MultiHeadAttention(2, 4)
    mha.build(input_shape=(None, 3, 8))  # TF 2.15: marks it built, weights wait for the call
    assert mha.built and not mha.weights
    einsum = tf.keras.layers.EinsumDense("ab,bc->ac", output_shape=4)
    assert einsum.compute_output_shape((None, 3)) == (None, 4)
    column = tf.feature_column.numeric_column("a")
    features = tf.keras.layers.DenseFeatures([column])
    features.build(None)
    assert features.built


@pytest.mark.parametrize("wrapper", ["RNNCellDropoutWrapper", "RNNCellResidualWrapper",
                                     "RNNCellDeviceWrapper"])
def test_rnn_cell_wrappers_take_tf_argument_names(wrapper):
    cell = tf.keras.layers.SimpleRNNCell(2, kernel_initializer="ones", recurrent_initializer="ones")
    extra = {"device": "/cpu:0"} if wrapper == "RNNCellDeviceWrapper" else {}
    wrapped = getattr(tf.nn, wrapper)(cell, **extra)
    wrapped.build(inputs_shape=(None, 2))
    assert cell.built
    out, state = wrapped.call(tf.ones((1, 2)), state=[tf.zeros((1, 2))])
    expected = np.tanh(2.0) + (1.0 if wrapper == "RNNCellResidualWrapper" else 0.0)
    np.testing.assert_allclose(out.numpy(), [[expected, expected]], rtol=1e-5)

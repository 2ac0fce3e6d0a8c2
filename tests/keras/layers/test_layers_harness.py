"""Every layer class of `tf.keras.layers` through `check_layer` (tests/_harness/layers.py): build
and call, config and `serialize` round trips, a functional model through `.keras`, one `fit`
step, `predict` against `model(x)`, `training=` against `train()`/`eval()`, and a `state_dict`
round trip. Layers checked in their own test files (and the abstract bases) are listed in
`ELSEWHERE`; `test_every_layer_class_is_checked` keeps the table complete."""

import inspect

import numpy as np
import pytest

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers
INT = "int64"
#: Keras' random image layers augment unless told `training=False` (Keras 2.15 defaults).
INFERENCE = {"training": False}


def case(cls, kwargs=None, input_shape=None, *, id=None, marks=(), **options):
    return pytest.param(cls, kwargs or {}, input_shape, options, id=id or cls.__name__, marks=marks)


CASES = [
    # core
    case(layers.Dense, {"units": 3, "activation": "relu"}, (4, 5), expected_output_shape=(4, 3)),
    case(layers.Activation, {"activation": "tanh"}, (3, 4), expected_output_shape=(3, 4)),
    case(layers.Embedding, {"input_dim": 10, "output_dim": 3}, (2, 5), input_dtype=INT,
         expected_output_shape=(2, 5, 3)),
    case(layers.Embedding, {"input_dim": 10, "output_dim": 3, "mask_zero": True}, (2, 5), input_dtype=INT,
         id="Embedding-mask_zero", supports_masking=True),
    case(layers.Masking, {"mask_value": 0.0}, (2, 3, 4), expected_output_shape=(2, 3, 4), supports_masking=True),
    # activations
    case(layers.ELU, {"alpha": 0.5}, (3, 4)),
    case(layers.LeakyReLU, {"alpha": 0.2}, (3, 4)),
    case(layers.PReLU, {}, (3, 4)),
    case(layers.ReLU, {"max_value": 1.0, "negative_slope": 0.1}, (3, 4)),
    case(layers.Softmax, {"axis": -1}, (3, 4)),
    # merging
    *[case(cls, {}, [(2, 3), (2, 3)], expected_output_shape=(2, 3)) for cls in (
        layers.Add, layers.Subtract, layers.Multiply, layers.Average, layers.Maximum, layers.Minimum)],
    case(layers.Concatenate, {"axis": -1}, [(2, 3), (2, 4)], expected_output_shape=(2, 7)),
    case(layers.Dot, {"axes": 1, "normalize": True}, [(2, 3), (2, 3)], expected_output_shape=(2, 1)),
    # attention
    case(layers.Attention, {"use_scale": True}, [(2, 3, 4), (2, 5, 4)], expected_output_shape=(2, 3, 4)),
    case(layers.AdditiveAttention, {}, [(2, 3, 4), (2, 5, 4)], expected_output_shape=(2, 3, 4)),
    case(layers.MultiHeadAttention, {"num_heads": 2, "key_dim": 3}, [(2, 3, 4), (2, 5, 4)],
         unpack_inputs=True, expected_output_shape=(2, 3, 4)),
    # convolution
    case(layers.Conv1D, {"filters": 2, "kernel_size": 3}, (2, 6, 3), expected_output_shape=(2, 4, 2)),
    case(layers.Conv2D, {"filters": 2, "kernel_size": 3, "padding": "same"}, (2, 5, 5, 3),
         expected_output_shape=(2, 5, 5, 2)),
    case(layers.Conv3D, {"filters": 2, "kernel_size": 2}, (1, 3, 3, 3, 2), expected_output_shape=(1, 2, 2, 2, 2)),
    case(layers.Conv2DTranspose, {"filters": 2, "kernel_size": 2, "strides": 2}, (2, 3, 3, 2),
         expected_output_shape=(2, 6, 6, 2)),
    case(layers.DepthwiseConv2D, {"kernel_size": 2, "depth_multiplier": 2}, (2, 4, 4, 3),
         expected_output_shape=(2, 3, 3, 6)),
    case(layers.SeparableConv2D, {"filters": 4, "kernel_size": 2}, (2, 4, 4, 3), expected_output_shape=(2, 3, 3, 4)),
    # pooling
    *[case(cls, {}, shape, expected_output_shape=out) for cls, shape, out in (
        (layers.AveragePooling1D, (2, 6, 3), (2, 3, 3)),
        (layers.AveragePooling2D, (2, 4, 4, 3), (2, 2, 2, 3)),
        (layers.AveragePooling3D, (1, 4, 4, 4, 2), (1, 2, 2, 2, 2)),
        (layers.MaxPooling1D, (2, 6, 3), (2, 3, 3)),
        (layers.MaxPooling2D, (2, 4, 4, 3), (2, 2, 2, 3)),
        (layers.MaxPooling3D, (1, 4, 4, 4, 2), (1, 2, 2, 2, 2)),
        (layers.GlobalAveragePooling1D, (2, 6, 3), (2, 3)),
        (layers.GlobalAveragePooling2D, (2, 4, 4, 3), (2, 3)),
        (layers.GlobalAveragePooling3D, (1, 4, 4, 4, 2), (1, 2)),
        (layers.GlobalMaxPooling1D, (2, 6, 3), (2, 3)),
        (layers.GlobalMaxPooling2D, (2, 4, 4, 3), (2, 3)),
        (layers.GlobalMaxPooling3D, (1, 4, 4, 4, 2), (1, 2)),
    )],
    # normalization
    case(layers.BatchNormalization, {"momentum": 0.9}, (4, 3), expected_output_shape=(4, 3)),
    case(layers.BatchNormalization, {"axis": 1}, (4, 3, 5, 5), id="BatchNormalization-channels_first"),
    case(layers.LayerNormalization, {}, (2, 3, 4)),
    case(layers.GroupNormalization, {"groups": 2}, (2, 3, 4)),
    case(layers.UnitNormalization, {}, (2, 4)),
    case(layers.Normalization, {"mean": 0.5, "variance": 2.0}, (2, 3)),
    # regularization
    case(layers.Dropout, {"rate": 0.5}, (4, 5)),
    case(layers.GaussianDropout, {"rate": 0.2}, (4, 5)),
    case(layers.GaussianNoise, {"stddev": 0.1}, (4, 5)),
    case(layers.SpatialDropout1D, {"rate": 0.2}, (2, 4, 3)),
    case(layers.SpatialDropout2D, {"rate": 0.2}, (2, 4, 4, 3)),
    case(layers.ActivityRegularization, {"l1": 0.01, "l2": 0.01}, (3, 4)),
    # reshaping
    case(layers.Flatten, {}, (2, 3, 4), expected_output_shape=(2, 12)),
    case(layers.Reshape, {"target_shape": (6,)}, (2, 2, 3), expected_output_shape=(2, 6)),
    case(layers.Permute, {"dims": (2, 1)}, (2, 3, 4), expected_output_shape=(2, 4, 3)),
    case(layers.RepeatVector, {"n": 3}, (2, 4), expected_output_shape=(2, 3, 4)),
    case(layers.Cropping1D, {"cropping": 1}, (2, 5, 3), expected_output_shape=(2, 3, 3)),
    case(layers.Cropping2D, {"cropping": ((1, 0), (0, 1))}, (2, 5, 5, 3), expected_output_shape=(2, 4, 4, 3)),
    case(layers.UpSampling1D, {"size": 2}, (2, 3, 2), expected_output_shape=(2, 6, 2)),
    case(layers.UpSampling2D, {"size": 2, "interpolation": "bilinear"}, (2, 3, 3, 2),
         expected_output_shape=(2, 6, 6, 2)),
    case(layers.ZeroPadding1D, {"padding": 1}, (2, 3, 2), expected_output_shape=(2, 5, 2)),
    case(layers.ZeroPadding2D, {"padding": 1}, (2, 3, 3, 2), expected_output_shape=(2, 5, 5, 2)),
    # recurrent
    case(layers.SimpleRNN, {"units": 3}, (2, 4, 5), expected_output_shape=(2, 3)),
    case(layers.GRU, {"units": 3, "return_sequences": True}, (2, 4, 5), expected_output_shape=(2, 4, 3)),
    case(layers.LSTM, {"units": 3}, (2, 4, 5), expected_output_shape=(2, 3)),
    case(layers.LSTM, {"units": 3, "return_state": True}, (2, 4, 5), id="LSTM-return_state"),
    case(layers.RNN, {"cell": layers.SimpleRNNCell(3)}, (2, 4, 5), id="SimpleRNNCell", expected_output_shape=(2, 3)),
    case(layers.RNN, {"cell": layers.GRUCell(3)}, (2, 4, 5), id="GRUCell", expected_output_shape=(2, 3)),
    case(layers.RNN, {"cell": layers.LSTMCell(3)}, (2, 4, 5), id="LSTMCell", expected_output_shape=(2, 3)),
    case(layers.RNN, {"cell": layers.StackedRNNCells([layers.LSTMCell(3), layers.GRUCell(2)])}, (2, 4, 5),
         id="StackedRNNCells", expected_output_shape=(2, 2)),
    case(layers.Bidirectional, {"layer": layers.LSTM(2, return_sequences=True)}, (2, 4, 3),
         expected_output_shape=(2, 4, 4)),
    case(layers.TimeDistributed, {"layer": layers.Dense(2)}, (2, 3, 4), expected_output_shape=(2, 3, 2)),
    case(layers.ConvLSTM1D, {"filters": 2, "kernel_size": 2}, (2, 3, 5, 3), expected_output_shape=(2, 4, 2)),
    case(layers.ConvLSTM2D, {"filters": 2, "kernel_size": 2}, (2, 3, 4, 4, 2), expected_output_shape=(2, 3, 3, 2)),
    case(layers.ConvLSTM3D, {"filters": 1, "kernel_size": 2}, (1, 2, 3, 3, 3, 1),
         expected_output_shape=(1, 2, 2, 2, 1)),
    # preprocessing
    case(layers.CategoryEncoding, {"num_tokens": 5, "output_mode": "multi_hot"}, None,
         input_data=np.array([[0, 1], [4, 4], [2, 3]]), expected_output_shape=(3, 5)),
    case(layers.Discretization, {"bin_boundaries": [-0.5, 0.0, 0.5]}, (2, 3), expected_output_dtype=INT),
    case(layers.Hashing, {"num_bins": 3}, (2, 4), input_dtype=INT, expected_output_shape=(2, 4)),
    case(layers.HashedCrossing, {"num_bins": 5}, [(3,), (3,)], input_dtype=INT, expected_output_shape=(3,)),
    case(layers.IntegerLookup, {"vocabulary": [1, 2, 3]}, (2, 4), input_dtype=INT, expected_output_shape=(2, 4)),
    case(layers.StringLookup, {"vocabulary": ["a", "b", "c"]}, None,
         input_data=np.array([["a", "c"], ["d", "b"]]), expected_output=np.array([[1, 3], [0, 2]])),
    case(layers.TextVectorization, {"vocabulary": ["the", "cat"], "output_sequence_length": 3}, None,
         input_data=np.array(["the cat", "a cat sat"]), expected_output=np.array([[2, 3, 0], [1, 3, 1]])),
    case(layers.Rescaling, {"scale": 1 / 255, "offset": -0.5}, (2, 3)),
    case(layers.Resizing, {"height": 2, "width": 3}, (2, 4, 4, 3), expected_output_shape=(2, 2, 3, 3)),
    case(layers.CenterCrop, {"height": 2, "width": 2}, (2, 4, 4, 3), expected_output_shape=(2, 2, 2, 3)),
    # variants: other data formats, recurrent options, output modes
    case(layers.Conv2D, {"filters": 2, "kernel_size": 2, "data_format": "channels_first"}, (2, 3, 4, 4),
         id="Conv2D-channels_first", expected_output_shape=(2, 2, 3, 3)),
    case(layers.Conv2D, {"filters": 4, "kernel_size": 3, "groups": 2}, (2, 5, 5, 4), id="Conv2D-groups"),
    case(layers.Conv1D, {"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2}, (2, 6, 3),
         id="Conv1D-causal-dilated", expected_output_shape=(2, 6, 2)),
    case(layers.GRU, {"units": 2, "reset_after": False, "go_backwards": True}, (2, 4, 3), id="GRU-v1-backwards"),
    case(layers.SimpleRNN, {"units": 2, "return_sequences": True, "return_state": True}, (2, 4, 3),
         id="SimpleRNN-sequences-state"),
    case(layers.Bidirectional, {"layer": layers.GRU(2), "merge_mode": "sum"}, (2, 4, 3), id="Bidirectional-GRU-sum",
         expected_output_shape=(2, 2)),
    case(layers.Attention, {"score_mode": "concat", "dropout": 0.1}, [(2, 3, 4), (2, 5, 4)],
         id="Attention-concat-dropout"),
    case(layers.Normalization, {"invert": True, "mean": 0.5, "variance": 2.0}, (2, 3), id="Normalization-invert"),
    case(layers.StringLookup, {"vocabulary": ["a", "b"], "output_mode": "multi_hot"}, None,
         id="StringLookup-multi_hot", input_data=np.array([["a", "b"], ["b", "z"]]),
         expected_output=np.array([[0, 1, 1], [1, 0, 1]], np.float32)),
    case(layers.Resizing, {"height": 3, "width": 3, "crop_to_aspect_ratio": True}, (2, 4, 6, 1),
         id="Resizing-crop_to_aspect_ratio", expected_output_shape=(2, 3, 3, 1)),
    case(layers.RandomCrop, {"height": 2, "width": 2, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE, expected_output_shape=(2, 2, 2, 3)),
    case(layers.RandomFlip, {"seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomRotation, {"factor": 0.1, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomTranslation, {"height_factor": 0.1, "width_factor": 0.1, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomZoom, {"height_factor": 0.1, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomHeight, {"factor": 0.2, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomWidth, {"factor": 0.2, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomBrightness, {"factor": 0.2, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
    case(layers.RandomContrast, {"factor": 0.2, "seed": 1}, (2, 4, 4, 3), call_kwargs=INFERENCE),
]

#: Layer classes checked by `check_layer` in their own test files, or not checkable alone.
ELSEWHERE = {
    # their own files call check_layer
    "ThresholdedReLU", "DepthwiseConv1D", "SeparableConv1D", "Conv1DTranspose", "Conv3DTranspose",
    "LocallyConnected1D", "LocallyConnected2D", "SpectralNormalization", "AlphaDropout", "SpatialDropout3D",
    "ZeroPadding3D", "UpSampling3D", "Cropping3D", "EinsumDense", "Identity",
    "Wrapper", "AbstractRNNCell",  # abstract: rnn/test_wrapper.py, rnn/test_abstract_rnn_cell.py
    # feature columns: tests/feature_column/test_fc_harness.py
    "DenseFeatures",
    # cells run inside RNN: the RNN cases with `id=...Cell` check them
    "SimpleRNNCell", "GRUCell", "LSTMCell", "StackedRNNCells",
    # the base class, the model input placeholder, and Lambda (its .keras file needs safe_mode=False:
    # tests/keras/layers/test_layers_core.py)
    "Layer", "InputLayer", "Lambda",
}


@pytest.mark.parametrize("cls,kwargs,input_shape,options", CASES)
def test_check_layer(cls, kwargs, input_shape, options, tmp_path):
    check_layer(cls, kwargs, input_shape, tmp_dir=tmp_path, **options)


def test_every_layer_class_is_checked():
    classes = {obj for name in dir(layers) if inspect.isclass(obj := getattr(layers, name))
               and issubclass(obj, layers.Layer)}
    checked = {param.values[0] for param in CASES}
    missing = sorted(c.__name__ for c in classes - checked if c.__name__ not in ELSEWHERE)
    assert not missing, f"layer classes without a check_layer case: {missing}"

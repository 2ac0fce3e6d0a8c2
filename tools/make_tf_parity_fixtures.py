"""Records tf.keras 2.15's numbers for the parity suite in tests/keras/parity/.

Run with a Python that has `tensorflow-cpu==2.15.1` (never a dependency of the
package or of its tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_parity_fixtures.py

It writes one `.npz` per family under `tests/keras/parity/fixtures/`
(`layers.npz`, `optimizers.npz`, `losses.npz`, `metrics.npz`, `models.npz`). Each file holds a
JSON manifest under the key `__manifest__` (one entry per case: the class name,
its constructor arguments, how it is called) and the arrays of every case under
`<case id>/<name>`:

- layers: `in<i>` (inputs), `w<i>` (TF's weights in `get_weights()` order, set on
  the layer before the call), `out<i>` (outputs), `after<i>` (weights after a
  training-mode call, e.g. BatchNormalization's moving statistics), `arg_<name>`
  (array arguments of the call, e.g. masks), `mask<i>` (the Keras mask TF attaches to
  output i, where it does);
- optimizers: the initial variables `init/<var>` and `step<k>/<var>` after each
  of the steps of a fixed loss (an Embedding lookup, whose TF gradient is an
  `IndexedSlices`, then a dense layer); the ids of each step;
- losses and metrics: inputs, sample weights and TF's values;
- models (tests/keras/parity/_parity_models.py, built by the same code in both
  frameworks): the starting weights, `evaluate` before and after `fit`, `predict`,
  the `fit` history and the weights after it; a nested model's `get_weights()` and
  its h5 weights file (`nested_batchnorm.weights.h5`).

Constructor arguments that are layers (Bidirectional, TimeDistributed, RNN cells)
are written as `{"__layer__": class name, "config": {...}}`.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "parity", "fixtures")


def L(name: str, **config):
    """A layer argument, written as JSON."""
    return {"__layer__": name, "config": config}


def build_arg(value):
    """Turns `{"__layer__": ...}` values into TF layers (recursively)."""
    if isinstance(value, dict) and "__layer__" in value:
        config = {k: build_arg(v) for k, v in value["config"].items()}
        return getattr(tf.keras.layers, value["__layer__"])(**config)
    if isinstance(value, list):
        return [build_arg(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------
# layers: (case id, class, kwargs, inputs, options)
# inputs: list of (shape, kind); kind: "f" normal float32, "p" positive float32, "i<N>" int32 in
# [0, N), "s" strings, "b" bool. options: call ("single" | "list" | "args"), training, call_args
# ({name: (shape, kind)} arrays, or plain values), randomize (weights), adapt (index of input)
# --------------------------------------------------------------------------------------------

F = "f"
ACTIVATIONS = [
    "relu", "sigmoid", "tanh", "softmax", "softplus", "softsign", "selu", "elu", "exponential",
    "hard_sigmoid", "linear", "swish", "gelu", "mish", "relu6", "log_softmax", "silu",
]

LAYER_CASES = [
    # core
    ("dense", "Dense", {"units": 4}, [((3, 5), F)], {}),
    ("dense_relu_nobias", "Dense", {"units": 4, "activation": "relu", "use_bias": False}, [((3, 5), F)], {}),
    ("dense_3d", "Dense", {"units": 2, "activation": "tanh"}, [((2, 3, 5), F)], {}),
    ("embedding", "Embedding", {"input_dim": 10, "output_dim": 3}, [((2, 4), "i10")], {}),
    ("embedding_mask_zero", "Embedding", {"input_dim": 10, "output_dim": 3, "mask_zero": True}, [((2, 4), "i10")], {}),
    ("flatten", "Flatten", {}, [((2, 3, 4), F)], {}),
    ("reshape", "Reshape", {"target_shape": [2, -1]}, [((2, 3, 4), F)], {}),
    ("permute", "Permute", {"dims": [2, 1]}, [((2, 3, 4), F)], {}),
    ("repeat_vector", "RepeatVector", {"n": 3}, [((2, 4), F)], {}),
    ("masking", "Masking", {"mask_value": 0.0}, [((2, 4, 3), "fz")], {}),
    *[(f"activation_{a}", "Activation", {"activation": a}, [((3, 5), F)], {}) for a in ACTIVATIONS],
    # activation layers
    ("elu", "ELU", {"alpha": 0.5}, [((3, 5), F)], {}),
    ("leaky_relu", "LeakyReLU", {"alpha": 0.2}, [((3, 5), F)], {}),
    ("prelu", "PReLU", {}, [((3, 5), F)], {}),
    ("prelu_shared", "PReLU", {"shared_axes": [1]}, [((2, 3, 4), F)], {}),
    ("relu", "ReLU", {}, [((3, 5), F)], {}),
    ("relu_args", "ReLU", {"max_value": 1.0, "negative_slope": 0.1, "threshold": 0.2}, [((3, 5), F)], {}),
    ("softmax", "Softmax", {}, [((3, 5), F)], {}),
    ("softmax_axis", "Softmax", {"axis": 1}, [((2, 3, 4), F)], {}),
    ("softmax_mask", "Softmax", {}, [((2, 5), F)], {"call_args": {"mask": ((2, 5), "b")}}),
    # convolutions
    ("conv1d", "Conv1D", {"filters": 4, "kernel_size": 3}, [((2, 7, 3), F)], {}),
    ("conv1d_causal_dilated", "Conv1D", {"filters": 4, "kernel_size": 3, "padding": "causal", "dilation_rate": 2}, [((2, 9, 3), F)], {}),
    ("conv1d_same_strided", "Conv1D", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same", "activation": "relu"}, [((2, 8, 3), F)], {}),
    ("conv1d_groups", "Conv1D", {"filters": 4, "kernel_size": 2, "groups": 2}, [((2, 6, 4), F)], {}),
    ("conv2d", "Conv2D", {"filters": 3, "kernel_size": 3}, [((2, 6, 5, 2), F)], {}),
    ("conv2d_same_strided", "Conv2D", {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"}, [((2, 7, 6, 2), F)], {}),
    ("conv2d_dilated", "Conv2D", {"filters": 2, "kernel_size": [3, 2], "dilation_rate": 2, "use_bias": False}, [((2, 8, 7, 3), F)], {}),
    ("conv2d_groups", "Conv2D", {"filters": 4, "kernel_size": 2, "groups": 2}, [((2, 5, 5, 4), F)], {}),
    ("conv3d", "Conv3D", {"filters": 2, "kernel_size": 2}, [((2, 4, 5, 3, 2), F)], {}),
    ("conv3d_same_strided", "Conv3D", {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"}, [((1, 5, 4, 5, 2), F)], {}),
    ("conv2d_transpose", "Conv2DTranspose", {"filters": 3, "kernel_size": 3}, [((2, 4, 3, 2), F)], {}),
    ("conv2d_transpose_same_strided", "Conv2DTranspose", {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"}, [((2, 4, 3, 2), F)], {}),
    ("conv2d_transpose_output_padding", "Conv2DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": 1}, [((1, 3, 4, 2), F)], {}),
    ("depthwise_conv2d", "DepthwiseConv2D", {"kernel_size": 3, "depth_multiplier": 2}, [((2, 5, 6, 3), F)], {}),
    ("depthwise_conv2d_same_strided", "DepthwiseConv2D", {"kernel_size": 3, "strides": 2, "padding": "same"}, [((2, 5, 6, 3), F)], {}),
    ("separable_conv2d", "SeparableConv2D", {"filters": 4, "kernel_size": 3, "depth_multiplier": 2}, [((2, 5, 6, 3), F)], {}),
    ("separable_conv2d_same_strided", "SeparableConv2D", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"}, [((2, 5, 6, 3), F)], {}),
    # pooling
    ("max_pooling1d", "MaxPooling1D", {}, [((2, 7, 3), F)], {}),
    ("max_pooling1d_same", "MaxPooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, [((2, 8, 3), F)], {}),
    ("average_pooling1d_same", "AveragePooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, [((2, 8, 3), F)], {}),
    ("max_pooling2d", "MaxPooling2D", {}, [((2, 5, 6, 3), F)], {}),
    ("max_pooling2d_same", "MaxPooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, [((2, 5, 6, 3), F)], {}),
    ("average_pooling2d", "AveragePooling2D", {"pool_size": [2, 3]}, [((2, 5, 6, 3), F)], {}),
    ("average_pooling2d_same", "AveragePooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, [((2, 5, 6, 3), F)], {}),
    ("max_pooling3d", "MaxPooling3D", {}, [((2, 4, 5, 4, 2), F)], {}),
    ("average_pooling3d_same", "AveragePooling3D", {"pool_size": 2, "padding": "same"}, [((2, 3, 5, 4, 2), F)], {}),
    ("global_average_pooling1d", "GlobalAveragePooling1D", {}, [((2, 5, 3), F)], {}),
    ("global_average_pooling1d_mask", "GlobalAveragePooling1D", {}, [((2, 5, 3), F)], {"call_args": {"mask": ((2, 5), "b")}}),
    ("global_max_pooling1d_keepdims", "GlobalMaxPooling1D", {"keepdims": True}, [((2, 5, 3), F)], {}),
    ("global_average_pooling2d", "GlobalAveragePooling2D", {}, [((2, 4, 5, 3), F)], {}),
    ("global_max_pooling2d", "GlobalMaxPooling2D", {}, [((2, 4, 5, 3), F)], {}),
    ("global_average_pooling3d_keepdims", "GlobalAveragePooling3D", {"keepdims": True}, [((2, 3, 4, 2, 3), F)], {}),
    ("global_max_pooling3d", "GlobalMaxPooling3D", {}, [((2, 3, 4, 2, 3), F)], {}),
    # normalization
    ("batch_norm_inference", "BatchNormalization", {}, [((4, 3), F)], {}),
    ("batch_norm_training", "BatchNormalization", {"momentum": 0.9}, [((6, 3), F)], {"training": True}),
    ("batch_norm_axis1_training", "BatchNormalization", {"axis": 1, "epsilon": 0.01}, [((4, 3, 2, 2), F)], {"training": True}),
    ("batch_norm_no_center_scale", "BatchNormalization", {"center": False, "scale": False}, [((2, 4, 3), F)], {}),
    ("batch_norm_no_center_scale_training", "BatchNormalization", {"center": False, "scale": False}, [((2, 4, 3), F)], {"training": True}),
    ("layer_norm", "LayerNormalization", {}, [((3, 5), F)], {}),
    ("layer_norm_axes", "LayerNormalization", {"axis": [1, 2], "epsilon": 0.01}, [((2, 3, 4), F)], {}),
    ("group_norm", "GroupNormalization", {"groups": 2}, [((2, 3, 4), F)], {}),
    ("group_norm_4d", "GroupNormalization", {"groups": 3, "epsilon": 0.01}, [((2, 3, 2, 6), F)], {}),
    ("unit_norm", "UnitNormalization", {}, [((3, 5), F)], {}),
    ("unit_norm_axes", "UnitNormalization", {"axis": [1, 2]}, [((2, 3, 4), F)], {}),
    # merging
    *[(f"merge_{n.lower()}", n, {}, [((3, 4), F), ((3, 4), F)], {"call": "list"})
      for n in ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum")],
    ("add_three", "Add", {}, [((3, 4), F)] * 3, {"call": "list"}),
    ("concatenate", "Concatenate", {}, [((3, 4), F), ((3, 2), F)], {"call": "list"}),
    ("concatenate_axis1", "Concatenate", {"axis": 1}, [((2, 3, 4), F), ((2, 2, 4), F)], {"call": "list"}),
    ("dot", "Dot", {"axes": 1}, [((3, 4), F), ((3, 4), F)], {"call": "list"}),
    ("dot_normalize", "Dot", {"axes": 1, "normalize": True}, [((3, 4), F), ((3, 4), F)], {"call": "list"}),
    ("dot_3d", "Dot", {"axes": [2, 2]}, [((2, 3, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    # attention
    ("attention", "Attention", {}, [((2, 3, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    ("attention_scale_key", "Attention", {"use_scale": True}, [((2, 3, 4), F), ((2, 5, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    ("attention_concat", "Attention", {"score_mode": "concat"}, [((2, 3, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    ("attention_mask_causal", "Attention", {}, [((2, 4, 4), F), ((2, 4, 4), F)],
     {"call": "list", "call_args": {"mask": [((2, 4), "b"), ((2, 4), "b")], "use_causal_mask": True}}),
    ("additive_attention", "AdditiveAttention", {}, [((2, 3, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    ("additive_attention_noscale", "AdditiveAttention", {"use_scale": False}, [((2, 3, 4), F), ((2, 5, 4), F), ((2, 5, 4), F)], {"call": "list"}),
    ("mha", "MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [((2, 4, 5), F), ((2, 6, 5), F)], {"call": "args"}),
    ("mha_key_value_dim", "MultiHeadAttention", {"num_heads": 2, "key_dim": 3, "value_dim": 2, "output_shape": [4]},
     [((2, 4, 5), F), ((2, 6, 3), F), ((2, 6, 6), F)], {"call": "args"}),
    ("mha_mask_scores", "MultiHeadAttention", {"num_heads": 3, "key_dim": 2, "use_bias": False},
     [((2, 4, 5), F), ((2, 6, 5), F)], {"call": "args", "call_args": {"attention_mask": ((2, 4, 6), "b"), "return_attention_scores": True}}),
    ("mha_causal", "MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [((2, 5, 4), F), ((2, 5, 4), F)], {"call": "args", "call_args": {"use_causal_mask": True}}),
    ("mha_attention_axes", "MultiHeadAttention", {"num_heads": 2, "key_dim": 2, "attention_axes": [2]}, [((2, 3, 4, 5), F), ((2, 3, 4, 5), F)], {"call": "args"}),
    # preprocessing
    ("category_encoding_one_hot", "CategoryEncoding", {"num_tokens": 6, "output_mode": "one_hot"}, [((4,), "i6")], {"randomize": False}),
    ("category_encoding_multi_hot", "CategoryEncoding", {"num_tokens": 6, "output_mode": "multi_hot"}, [((4, 3), "i6")], {"randomize": False}),
    ("category_encoding_count", "CategoryEncoding", {"num_tokens": 6, "output_mode": "count"}, [((4, 3), "i6")], {"randomize": False}),
    ("hashing_strings", "Hashing", {"num_bins": 7}, [((5, 1), "s")], {"randomize": False}),
    ("hashing_salt", "Hashing", {"num_bins": 7, "salt": 133}, [((5, 1), "s")], {"randomize": False}),
    ("hashing_ints_mask", "Hashing", {"num_bins": 5, "mask_value": 0}, [((6, 1), "i9")], {"randomize": False}),
    ("hashing_one_hot", "Hashing", {"num_bins": 4, "output_mode": "one_hot"}, [((5,), "s")], {"randomize": False}),
    ("integer_lookup", "IntegerLookup", {"vocabulary": [3, 5, 7, 2]}, [((3, 4), "i9")], {"randomize": False}),
    ("integer_lookup_multi_hot", "IntegerLookup", {"vocabulary": [3, 5, 7, 2], "output_mode": "multi_hot"}, [((3, 4), "i9")], {"randomize": False}),
    ("integer_lookup_count_oov2", "IntegerLookup", {"vocabulary": [3, 5, 7, 2], "output_mode": "count", "num_oov_indices": 2}, [((3, 4), "i9")], {"randomize": False}),
    ("integer_lookup_tf_idf", "IntegerLookup", {"vocabulary": [3, 5, 7, 2], "output_mode": "tf_idf", "idf_weights": [0.5, 1.0, 1.5, 2.0]}, [((3, 4), "i9")], {"randomize": False}),
    ("integer_lookup_invert", "IntegerLookup", {"vocabulary": [3, 5, 7, 2], "invert": True}, [((3, 2), "i5")], {"randomize": False}),
    ("string_lookup", "StringLookup", {"vocabulary": ["a", "bb", "c", "dd"]}, [((3, 4), "s")], {"randomize": False}),
    ("string_lookup_one_hot_mask", "StringLookup", {"vocabulary": ["a", "bb", "c", "dd"], "mask_token": "", "output_mode": "one_hot"}, [((5,), "s")], {"randomize": False}),
    ("string_lookup_multi_hot", "StringLookup", {"vocabulary": ["a", "bb", "c", "dd"], "output_mode": "multi_hot"}, [((3, 4), "s")], {"randomize": False}),
    ("normalization_values", "Normalization", {"mean": [1.0, 2.0, -1.0], "variance": [4.0, 0.25, 1.0]}, [((4, 3), F)], {"randomize": False}),
    ("normalization_invert", "Normalization", {"mean": 2.0, "variance": 9.0, "invert": True}, [((4, 3), F)], {"randomize": False}),
    ("normalization_adapt", "Normalization", {}, [((8, 3), F)], {"randomize": False, "adapt": 0}),
    ("normalization_adapt_axis_none", "Normalization", {"axis": None}, [((8, 3), F)], {"randomize": False, "adapt": 0}),
    ("rescaling", "Rescaling", {"scale": 0.5, "offset": -1.0}, [((3, 5), F)], {}),
    # regularization (inference: identity)
    ("dropout", "Dropout", {"rate": 0.5}, [((3, 5), F)], {}),
    ("spatial_dropout1d", "SpatialDropout1D", {"rate": 0.5}, [((2, 3, 5), F)], {}),
    ("spatial_dropout2d", "SpatialDropout2D", {"rate": 0.5}, [((2, 3, 4, 5), F)], {}),
    ("gaussian_noise", "GaussianNoise", {"stddev": 0.5}, [((3, 5), F)], {}),
    ("gaussian_dropout", "GaussianDropout", {"rate": 0.5}, [((3, 5), F)], {}),
    ("activity_regularization", "ActivityRegularization", {"l1": 0.1}, [((3, 5), F)], {}),
    # reshaping
    ("cropping1d", "Cropping1D", {"cropping": [1, 2]}, [((2, 6, 3), F)], {}),
    ("cropping2d", "Cropping2D", {"cropping": [[1, 0], [0, 2]]}, [((2, 5, 6, 3), F)], {}),
    ("up_sampling1d", "UpSampling1D", {"size": 2}, [((2, 3, 4), F)], {}),
    ("up_sampling2d", "UpSampling2D", {"size": [2, 3]}, [((2, 3, 2, 2), F)], {}),
    ("up_sampling2d_bilinear", "UpSampling2D", {"size": 2, "interpolation": "bilinear"}, [((2, 3, 4, 2), F)], {}),
    ("zero_padding1d", "ZeroPadding1D", {"padding": [1, 2]}, [((2, 3, 2), F)], {}),
    ("zero_padding2d", "ZeroPadding2D", {"padding": [[1, 0], [2, 1]]}, [((2, 3, 2, 2), F)], {}),
    # recurrent
    ("simple_rnn", "SimpleRNN", {"units": 4}, [((2, 5, 3), F)], {}),
    ("simple_rnn_seq_backwards", "SimpleRNN", {"units": 4, "return_sequences": True, "go_backwards": True, "activation": "relu"}, [((2, 5, 3), F)], {}),
    ("lstm", "LSTM", {"units": 4}, [((2, 5, 3), F)], {}),
    ("lstm_seq_state", "LSTM", {"units": 4, "return_sequences": True, "return_state": True}, [((2, 5, 3), F)], {}),
    ("lstm_backwards_no_bias", "LSTM", {"units": 3, "go_backwards": True, "use_bias": False, "recurrent_activation": "hard_sigmoid"}, [((2, 5, 3), F)], {}),
    ("lstm_mask", "LSTM", {"units": 4, "return_sequences": True}, [((2, 5, 3), F)], {"call_args": {"mask": ((2, 5), "bt")}}),
    ("gru", "GRU", {"units": 4}, [((2, 5, 3), F)], {}),
    ("gru_v1_seq", "GRU", {"units": 4, "reset_after": False, "return_sequences": True}, [((2, 5, 3), F)], {}),
    ("gru_state_backwards", "GRU", {"units": 3, "return_state": True, "go_backwards": True}, [((2, 5, 3), F)], {}),
    ("gru_mask", "GRU", {"units": 4}, [((2, 5, 3), F)], {"call_args": {"mask": ((2, 5), "bt")}}),
    ("rnn_lstm_cell", "RNN", {"cell": L("LSTMCell", units=3), "return_sequences": True}, [((2, 4, 3), F)], {}),
    ("rnn_simple_cell_state", "RNN", {"cell": L("SimpleRNNCell", units=3), "return_state": True}, [((2, 4, 3), F)], {}),
    ("rnn_stacked_cells", "RNN", {"cell": L("StackedRNNCells", cells=[L("LSTMCell", units=3), L("GRUCell", units=2)])}, [((2, 4, 3), F)], {}),
    ("bidirectional_lstm", "Bidirectional", {"layer": L("LSTM", units=3, return_sequences=True)}, [((2, 4, 3), F)], {}),
    ("bidirectional_gru_sum", "Bidirectional", {"layer": L("GRU", units=3), "merge_mode": "sum"}, [((2, 4, 3), F)], {}),
    ("bidirectional_simple_ave", "Bidirectional", {"layer": L("SimpleRNN", units=2, return_sequences=True), "merge_mode": "ave"}, [((2, 4, 3), F)], {}),
    ("time_distributed_dense", "TimeDistributed", {"layer": L("Dense", units=3)}, [((2, 4, 5), F)], {}),
    ("time_distributed_conv2d", "TimeDistributed", {"layer": L("Conv2D", filters=2, kernel_size=2)}, [((2, 3, 4, 4, 2), F)], {}),
    # convolutional recurrent
    ("conv_lstm1d", "ConvLSTM1D", {"filters": 3, "kernel_size": 3}, [((2, 4, 6, 2), F)], {}),
    ("conv_lstm1d_same_seq", "ConvLSTM1D", {"filters": 2, "kernel_size": 3, "padding": "same", "return_sequences": True}, [((2, 4, 6, 2), F)], {}),
    ("conv_lstm2d", "ConvLSTM2D", {"filters": 3, "kernel_size": 3}, [((2, 3, 5, 6, 2), F)], {}),
    ("conv_lstm2d_same_seq_state", "ConvLSTM2D", {"filters": 2, "kernel_size": [3, 2], "padding": "same", "return_sequences": True, "return_state": True}, [((2, 3, 5, 4, 2), F)], {}),
    ("conv_lstm2d_strided_backwards", "ConvLSTM2D", {"filters": 2, "kernel_size": 3, "strides": 2, "go_backwards": True, "use_bias": False}, [((2, 3, 7, 6, 2), F)], {}),
    ("conv_lstm2d_dilated_same", "ConvLSTM2D", {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "padding": "same", "recurrent_activation": "sigmoid", "activation": "relu"}, [((2, 3, 5, 5, 2), F)], {}),
    ("conv_lstm2d_mask", "ConvLSTM2D", {"filters": 2, "kernel_size": 3, "return_sequences": True}, [((2, 4, 5, 5, 2), F)], {"call_args": {"mask": ((2, 4), "bt")}}),
    ("conv_lstm3d", "ConvLSTM3D", {"filters": 2, "kernel_size": 2}, [((2, 3, 4, 3, 4, 2), F)], {}),
    # channels_first (where TF's CPU kernels allow it)
    ("global_average_pooling2d_channels_first", "GlobalAveragePooling2D", {"data_format": "channels_first"}, [((2, 3, 4, 5), F)], {}),
    ("global_max_pooling1d_channels_first", "GlobalMaxPooling1D", {"data_format": "channels_first"}, [((2, 3, 4), F)], {}),
    ("up_sampling2d_channels_first", "UpSampling2D", {"size": 2, "data_format": "channels_first"}, [((2, 3, 2, 4), F)], {}),
    ("zero_padding2d_channels_first", "ZeroPadding2D", {"padding": 1, "data_format": "channels_first"}, [((2, 3, 2, 4), F)], {}),
    ("cropping2d_channels_first", "Cropping2D", {"cropping": [[1, 0], [1, 1]], "data_format": "channels_first"}, [((2, 3, 4, 5), F)], {}),
    ("conv1d_channels_first", "Conv1D", {"filters": 2, "kernel_size": 3, "data_format": "channels_first"}, [((2, 3, 6), F)], {}),
    ("conv2d_channels_first", "Conv2D", {"filters": 2, "kernel_size": 3, "data_format": "channels_first"}, [((2, 3, 6, 5), F)], {}),
    ("max_pooling2d_channels_first", "MaxPooling2D", {"data_format": "channels_first"}, [((2, 3, 6, 5), F)], {}),
    ("conv_lstm2d_channels_first", "ConvLSTM2D", {"filters": 2, "kernel_size": 3, "data_format": "channels_first", "return_sequences": True}, [((2, 3, 2, 5, 6), F)], {}),
    ("conv_lstm2d_even_kernel_same_strided", "ConvLSTM2D", {"filters": 2, "kernel_size": [2, 4], "strides": [2, 1], "padding": "same"}, [((2, 2, 7, 6, 3), F)], {}),
    ("conv_lstm1d_no_forget_bias", "ConvLSTM1D", {"filters": 3, "kernel_size": 2, "unit_forget_bias": False, "return_state": True}, [((2, 3, 5, 2), F)], {}),
    ("conv_lstm3d_same_seq", "ConvLSTM3D", {"filters": 2, "kernel_size": 3, "padding": "same", "return_sequences": True}, [((1, 2, 3, 4, 3, 2), F)], {}),
]


def make_array(rng: np.random.Generator, shape, kind):
    """A deterministic input of `shape` and `kind` (see LAYER_CASES)."""
    shape = tuple(shape)
    if kind == "f":
        return rng.normal(size=shape).astype(np.float32)
    if kind == "fz":  # some all-zero timesteps, for Masking
        x = rng.normal(size=shape).astype(np.float32)
        x[0, 1] = 0.0
        x[1, 3] = 0.0
        return x
    if kind == "p":
        return rng.uniform(0.1, 2.0, size=shape).astype(np.float32)
    if kind.startswith("i"):
        return rng.integers(0, int(kind[1:]), size=shape).astype(np.int32)
    if kind == "s":
        words = np.array(["a", "bb", "c", "dd", "zz", "", "hello", "bb"])
        return words[rng.integers(0, len(words), size=shape)]
    if kind == "b":
        m = rng.uniform(size=shape) > 0.3
        m[..., 0] = True
        return m
    if kind == "bt":  # a sequence mask: trailing padding
        m = np.ones(shape, dtype=bool)
        m[0, -2:] = False
        m[1, -1:] = False
        return m
    raise ValueError(kind)


def random_weights(rng, layer):
    """Random values for the layer's float weights (positive for variances), in get_weights() order."""
    values = []
    for variable, value in zip(layer.weights, layer.get_weights()):
        if value.dtype.kind != "f":
            values.append(value)
            continue
        new = (rng.normal(size=value.shape) * 0.5).astype(value.dtype)
        if "variance" in variable.name:
            new = np.abs(new) + 0.5
        values.append(new)
    return values


def _json_default(value):
    """JSON for the odd values in TF configs (numpy scalars and arrays, tuples)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "as_list"):  # TensorShape
        return value.as_list()
    raise TypeError(f"not JSON serializable: {value!r}")


def make_call_arg(rng, spec):
    if isinstance(spec, list) and spec and isinstance(spec[0], tuple):
        return [make_array(rng, *s) for s in spec]
    if isinstance(spec, tuple):
        return make_array(rng, *spec)
    return spec


def record_layers():
    arrays, manifest = {}, []
    for index, (case, cls_name, kwargs, input_specs, options) in enumerate(LAYER_CASES):
        if not hasattr(tf.keras.layers, cls_name):
            print(f"skip {case}: tf.keras.layers has no {cls_name}", file=sys.stderr)
            continue
        try:
            arrays_case, entry = record_layer(index, case, cls_name, kwargs, input_specs, options)
        except Exception as e:  # noqa: BLE001 - TF's CPU kernels lack some layouts (e.g. NCHW pooling)
            print(f"skip {case}: TF cannot run it: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
            continue
        arrays.update(arrays_case)
        manifest.append(entry)
    return arrays, manifest


def record_layer(index, case, cls_name, kwargs, input_specs, options):
    """TF's arrays and the manifest entry of one layer case."""
    arrays = {}
    rng = np.random.default_rng(1000 + index)
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(index)
    layer = getattr(tf.keras.layers, cls_name)(**{k: build_arg(v) for k, v in kwargs.items()})
    inputs = [make_array(rng, shape, kind) for shape, kind in input_specs]
    call = options.get("call", "single")
    call_args = {k: make_call_arg(rng, v) for k, v in options.get("call_args", {}).items()}
    training = options.get("training", False)

    def run(training, layer=layer, inputs=inputs, call=call, call_args=call_args):
        tensors = [tf.constant(x) for x in inputs]
        kw = {
            k: ([tf.constant(m) for m in v] if isinstance(v, list) else tf.constant(v))
            if isinstance(v, (np.ndarray, list)) else v
            for k, v in call_args.items()
        }
        if call == "list":
            return layer(tensors, training=training, **kw)
        if call == "args":
            return layer(*tensors, training=training, **kw)
        return layer(tensors[0], training=training, **kw)

    if "adapt" in options:
        layer.adapt(inputs[options["adapt"]])
    run(False)  # builds the weights
    if options.get("randomize", True):
        layer.set_weights(random_weights(rng, layer))
    weights = layer.get_weights()
    outputs = run(training)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    entry = {
        "id": case, "class": cls_name, "kwargs": kwargs, "call": call, "training": training,
        "n_in": len(inputs), "n_w": len(weights), "n_out": len(outputs),
        "weight_names": [v.name for v in layer.weights],
        "call_args": {}, "after": False, "adapt": options.get("adapt"), "masks": [],
        "tf_config": json.loads(json.dumps(layer.get_config(), default=_json_default)),
    }
    for i, x in enumerate(inputs):
        arrays[f"{case}/in{i}"] = x
    for i, w in enumerate(weights):
        arrays[f"{case}/w{i}"] = w
    for i, y in enumerate(outputs):
        arrays[f"{case}/out{i}"] = y.numpy()
        mask = getattr(y, "_keras_mask", None)
        if mask is not None:
            arrays[f"{case}/mask{i}"] = mask.numpy()
            entry["masks"].append(i)
    for name, value in call_args.items():
        if isinstance(value, list):
            for j, v in enumerate(value):
                arrays[f"{case}/arg_{name}{j}"] = v
            entry["call_args"][name] = {"arrays": len(value)}
        elif isinstance(value, np.ndarray):
            arrays[f"{case}/arg_{name}"] = value
            entry["call_args"][name] = {"array": True}
        else:
            entry["call_args"][name] = {"value": value}
    if training:
        for i, w in enumerate(layer.get_weights()):
            arrays[f"{case}/after{i}"] = w
        entry["after"] = True
    return arrays, entry


# --------------------------------------------------------------------------------------------
# optimizers: 10 steps on a fixed loss. emb (6, 3) is looked up (TF: IndexedSlices gradient),
# the mean of the looked-up rows goes through a dense layer (kernel (3, 4), bias (4,)) and tanh,
# loss = mean((h - target)^2).
# --------------------------------------------------------------------------------------------

STEPS = 10
OPTIMIZER_CASES = [
    # (case id, "new" | "legacy", class, kwargs)
    ("sgd", "new", "SGD", {"learning_rate": 0.1}),
    ("sgd_momentum", "new", "SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("sgd_nesterov", "new", "SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("sgd_clipnorm", "new", "SGD", {"learning_rate": 0.1, "clipnorm": 0.05}),
    ("sgd_clipvalue", "new", "SGD", {"learning_rate": 0.1, "clipvalue": 0.01}),
    ("sgd_global_clipnorm", "new", "SGD", {"learning_rate": 0.1, "momentum": 0.5, "global_clipnorm": 0.05}),
    ("sgd_weight_decay", "new", "SGD", {"learning_rate": 0.1, "weight_decay": 0.05}),
    ("sgd_schedule", "new", "SGD", {"learning_rate": {"class_name": "ExponentialDecay", "config": {"initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5}}}),
    ("adam", "new", "Adam", {"learning_rate": 0.05}),
    ("adam_amsgrad", "new", "Adam", {"learning_rate": 0.05, "amsgrad": True}),
    ("adam_ema", "new", "Adam", {"learning_rate": 0.05, "use_ema": True, "ema_momentum": 0.9, "ema_overwrite_frequency": 4}),
    ("adam_ema_no_overwrite", "new", "Adam", {"learning_rate": 0.05, "use_ema": True, "ema_momentum": 0.8}),
    ("adam_clipvalue_wd", "new", "Adam", {"learning_rate": 0.05, "clipvalue": 0.02, "weight_decay": 0.1}),
    ("adamw", "new", "AdamW", {"learning_rate": 0.05, "weight_decay": 0.1}),
    ("adamw_amsgrad", "new", "AdamW", {"learning_rate": 0.05, "weight_decay": 0.1, "amsgrad": True}),
    ("adagrad", "new", "Adagrad", {"learning_rate": 0.1}),
    ("adadelta", "new", "Adadelta", {"learning_rate": 1.0}),
    ("adamax", "new", "Adamax", {"learning_rate": 0.05}),
    ("nadam", "new", "Nadam", {"learning_rate": 0.05}),
    ("ftrl", "new", "Ftrl", {"learning_rate": 0.1}),
    ("ftrl_l1_l2_shrinkage_beta", "new", "Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02, "l2_shrinkage_regularization_strength": 0.05, "beta": 0.1}),
    ("rmsprop", "new", "RMSprop", {"learning_rate": 0.02}),
    ("rmsprop_momentum", "new", "RMSprop", {"learning_rate": 0.02, "momentum": 0.9}),
    ("rmsprop_centered", "new", "RMSprop", {"learning_rate": 0.02, "centered": True}),
    ("rmsprop_centered_momentum", "new", "RMSprop", {"learning_rate": 0.02, "momentum": 0.5, "centered": True}),
    ("legacy_sgd", "legacy", "SGD", {"learning_rate": 0.1}),
    ("legacy_sgd_momentum", "legacy", "SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("legacy_sgd_nesterov", "legacy", "SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("legacy_sgd_decay", "legacy", "SGD", {"learning_rate": 0.1, "decay": 0.5}),
    ("legacy_sgd_clipnorm", "legacy", "SGD", {"learning_rate": 0.1, "clipnorm": 0.05}),
    ("legacy_sgd_clipvalue", "legacy", "SGD", {"learning_rate": 0.1, "clipvalue": 0.01}),
    ("legacy_sgd_global_clipnorm", "legacy", "SGD", {"learning_rate": 0.1, "global_clipnorm": 0.05}),
    ("legacy_adam", "legacy", "Adam", {"learning_rate": 0.05}),
    ("legacy_adam_amsgrad", "legacy", "Adam", {"learning_rate": 0.05, "amsgrad": True}),
    ("legacy_adagrad", "legacy", "Adagrad", {"learning_rate": 0.1}),
    ("legacy_adadelta", "legacy", "Adadelta", {"learning_rate": 1.0}),
    ("legacy_adamax", "legacy", "Adamax", {"learning_rate": 0.05}),
    ("legacy_nadam", "legacy", "Nadam", {"learning_rate": 0.05}),
    ("legacy_ftrl", "legacy", "Ftrl", {"learning_rate": 0.1}),
    ("legacy_ftrl_l1_l2_shrinkage_beta", "legacy", "Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02, "l2_shrinkage_regularization_strength": 0.05, "beta": 0.1}),
    ("legacy_rmsprop", "legacy", "RMSprop", {"learning_rate": 0.02}),
    ("legacy_rmsprop_momentum", "legacy", "RMSprop", {"learning_rate": 0.02, "momentum": 0.9}),
    ("legacy_rmsprop_centered", "legacy", "RMSprop", {"learning_rate": 0.02, "centered": True}),
    ("legacy_rmsprop_centered_momentum", "legacy", "RMSprop", {"learning_rate": 0.02, "momentum": 0.5, "centered": True}),
]

# A large epsilon makes where each rule adds it (inside or outside the square root, scaled or
# not) visible in a few steps.
for _kind in ("new", "legacy"):
    _prefix = "legacy_" if _kind == "legacy" else ""
    OPTIMIZER_CASES += [
        (f"{_prefix}adagrad_large_epsilon", _kind, "Adagrad", {"learning_rate": 0.1, "epsilon": 0.1, "initial_accumulator_value": 0.01}),
        (f"{_prefix}adam_large_epsilon", _kind, "Adam", {"learning_rate": 0.05, "epsilon": 0.1}),
        (f"{_prefix}adam_amsgrad_large_epsilon", _kind, "Adam", {"learning_rate": 0.05, "epsilon": 0.1, "amsgrad": True}),
        (f"{_prefix}adamax_large_epsilon", _kind, "Adamax", {"learning_rate": 0.05, "epsilon": 0.1}),
        (f"{_prefix}nadam_large_epsilon", _kind, "Nadam", {"learning_rate": 0.05, "epsilon": 0.1}),
        (f"{_prefix}adadelta_large_epsilon", _kind, "Adadelta", {"learning_rate": 1.0, "epsilon": 0.1, "rho": 0.5}),
        (f"{_prefix}rmsprop_large_epsilon", _kind, "RMSprop", {"learning_rate": 0.02, "epsilon": 0.1}),
        (f"{_prefix}rmsprop_momentum_large_epsilon", _kind, "RMSprop", {"learning_rate": 0.02, "epsilon": 0.1, "momentum": 0.5}),
        (f"{_prefix}rmsprop_centered_large_epsilon", _kind, "RMSprop", {"learning_rate": 0.02, "epsilon": 0.1, "centered": True}),
        (f"{_prefix}rmsprop_centered_momentum_large_epsilon", _kind, "RMSprop", {"learning_rate": 0.02, "epsilon": 0.1, "centered": True, "momentum": 0.5}),
    ]
OPTIMIZER_CASES += [
    ("legacy_adam_decay", "legacy", "Adam", {"learning_rate": 0.05, "decay": 0.3}),
    ("legacy_ftrl_decay_power", "legacy", "Ftrl", {"learning_rate": 0.1, "decay": 0.2, "learning_rate_power": -0.7, "initial_accumulator_value": 0.5}),
    ("legacy_adagrad_clipnorm", "legacy", "Adagrad", {"learning_rate": 0.1, "clipnorm": 0.05}),
    ("legacy_rmsprop_momentum_clipvalue", "legacy", "RMSprop", {"learning_rate": 0.02, "momentum": 0.9, "clipvalue": 0.01}),
    ("nadam_global_clipnorm", "new", "Nadam", {"learning_rate": 0.05, "global_clipnorm": 0.05}),
    ("ftrl_power_zero", "new", "Ftrl", {"learning_rate": 0.1, "learning_rate_power": 0.0}),
    ("adamax_weight_decay_ema", "new", "Adamax", {"learning_rate": 0.05, "weight_decay": 0.1, "use_ema": True, "ema_momentum": 0.5, "ema_overwrite_frequency": 3}),
]

OPT_VARS = ("emb", "kernel", "bias")


def optimizer_problem():
    """The fixed problem: initial variables, ids of each step, target."""
    rng = np.random.default_rng(7)
    init = {
        "emb": (rng.normal(size=(6, 3)) * 0.5).astype(np.float32),
        "kernel": (rng.normal(size=(3, 4)) * 0.5).astype(np.float32),
        "bias": (rng.normal(size=(4,)) * 0.1).astype(np.float32),
    }
    # rows 0-3 are looked up (some steps touch only a few of them); row 4 is looked up once; row 5 never
    ids = np.array([[[0, 1], [2, 0]], [[1, 1], [3, 2]], [[0, 0], [0, 2]], [[4, 1], [2, 3]], [[1, 2], [1, 2]]],
                   dtype=np.int32)
    ids = np.concatenate([ids, ids[::-1]])[:STEPS]
    target = rng.uniform(-0.5, 0.5, size=(2, 4)).astype(np.float32)
    return init, ids, target


def run_optimizer_case(arrays, prefix, kind, cls_name, kwargs, mode, init, ids, target) -> tuple:
    """TF's trajectory of one optimizer: "sparse" looks rows up with tf.gather (an IndexedSlices
    gradient), "dense" multiplies by one-hot rows (a dense gradient). Returns (whether EMA
    values were finalized, the optimizer's get_config())."""
    module = tf.keras.optimizers.legacy if kind == "legacy" else tf.keras.optimizers
    kw = dict(kwargs)
    if isinstance(kw.get("learning_rate"), dict):
        kw["learning_rate"] = tf.keras.optimizers.schedules.deserialize(kw["learning_rate"])
    opt = getattr(module, cls_name)(**kw)
    variables = [tf.Variable(init[n], name=n) for n in OPT_VARS]
    emb, kernel, bias = variables
    for step in range(STEPS):
        with tf.GradientTape() as tape:
            if mode == "sparse":
                rows = tf.gather(emb, ids[step])
            else:
                rows = tf.matmul(tf.one_hot(ids[step], emb.shape[0]), emb)
            x = tf.reduce_mean(rows, axis=1)
            h = tf.tanh(tf.matmul(x, kernel) + bias)
            loss = tf.reduce_mean(tf.square(h - target))
        grads = tape.gradient(loss, variables)
        assert isinstance(grads[0], tf.IndexedSlices) == (mode == "sparse")
        opt.apply_gradients(zip(grads, variables))
        for n, v in zip(OPT_VARS, variables):
            arrays[f"{prefix}/step{step}_{n}"] = v.numpy()
    config = json.loads(json.dumps(opt.get_config(), default=_json_default))
    if kwargs.get("use_ema"):
        opt.finalize_variable_values(variables)
        for n, v in zip(OPT_VARS, variables):
            arrays[f"{prefix}/final_{n}"] = v.numpy()
        return True, config
    return False, config


def record_optimizers():
    init, ids, target = optimizer_problem()
    arrays = {"problem/ids": ids, "problem/target": target}
    for name in OPT_VARS:
        arrays[f"problem/init_{name}"] = init[name]
    manifest = []
    for case, kind, cls_name, kwargs in OPTIMIZER_CASES:
        finalized, config = False, None
        for mode in ("sparse", "dense"):
            finalized, config = run_optimizer_case(
                arrays, f"{case}/{mode}", kind, cls_name, kwargs, mode, init, ids, target
            )
        manifest.append({"id": case, "kind": kind, "class": cls_name, "kwargs": kwargs, "steps": STEPS,
                         "finalized": finalized, "tf_config": config})
    return arrays, manifest


# --------------------------------------------------------------------------------------------
# losses: class, kwargs, y_true/y_pred kinds, sample weights
# --------------------------------------------------------------------------------------------

def loss_inputs(rng, kind):
    """(y_true, y_pred) for a family of losses."""
    if kind == "binary":
        return rng.integers(0, 2, size=(4, 3)).astype(np.float32), rng.uniform(0.02, 0.98, size=(4, 3)).astype(np.float32)
    if kind == "binary_logits":
        return rng.integers(0, 2, size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32) * 2
    if kind == "categorical":
        y = np.eye(5, dtype=np.float32)[rng.integers(0, 5, size=4)]
        p = rng.uniform(0.05, 1.0, size=(4, 5)).astype(np.float32)
        return y, p / p.sum(-1, keepdims=True)
    if kind == "categorical_logits":
        return np.eye(5, dtype=np.float32)[rng.integers(0, 5, size=4)], rng.normal(size=(4, 5)).astype(np.float32) * 2
    if kind == "sparse":
        p = rng.uniform(0.05, 1.0, size=(4, 5)).astype(np.float32)
        return rng.integers(0, 5, size=(4, 1)).astype(np.int32), p / p.sum(-1, keepdims=True)
    if kind == "sparse_logits":
        return rng.integers(0, 5, size=(4,)).astype(np.int32), rng.normal(size=(4, 5)).astype(np.float32) * 2
    if kind == "sparse_seq_logits":
        return rng.integers(0, 5, size=(2, 3)).astype(np.int32), rng.normal(size=(2, 3, 5)).astype(np.float32)
    if kind == "hinge":
        return rng.choice([-1.0, 1.0], size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    if kind == "positive":
        return rng.uniform(0.1, 3.0, size=(4, 3)).astype(np.float32), rng.uniform(0.1, 3.0, size=(4, 3)).astype(np.float32)
    if kind == "probs":
        a = rng.uniform(0.05, 1.0, size=(4, 3)).astype(np.float32)
        b = rng.uniform(0.05, 1.0, size=(4, 3)).astype(np.float32)
        return a / a.sum(-1, keepdims=True), b / b.sum(-1, keepdims=True)
    if kind == "regression":
        return rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32) * 1.5
    if kind == "regression_3d":
        return rng.normal(size=(2, 3, 4)).astype(np.float32), rng.normal(size=(2, 3, 4)).astype(np.float32)
    raise ValueError(kind)


LOSS_CASES = [
    ("binary_crossentropy", "BinaryCrossentropy", {}, "binary"),
    ("binary_crossentropy_logits_smoothing", "BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "binary_logits"),
    ("binary_crossentropy_axis0_sum", "BinaryCrossentropy", {"axis": 0, "reduction": "sum"}, "binary"),
    ("binary_focal_crossentropy", "BinaryFocalCrossentropy", {"gamma": 2.0}, "binary"),
    ("binary_focal_crossentropy_balanced_logits", "BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.3, "from_logits": True, "label_smoothing": 0.1}, "binary_logits"),
    ("categorical_crossentropy", "CategoricalCrossentropy", {}, "categorical"),
    ("categorical_crossentropy_logits_smoothing", "CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, "categorical_logits"),
    ("categorical_focal_crossentropy", "CategoricalFocalCrossentropy", {}, "categorical"),
    ("categorical_focal_crossentropy_logits", "CategoricalFocalCrossentropy", {"from_logits": True, "alpha": 0.5, "gamma": 1.0}, "categorical_logits"),
    ("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy", {}, "sparse"),
    ("sparse_categorical_crossentropy_logits", "SparseCategoricalCrossentropy", {"from_logits": True}, "sparse_logits"),
    ("sparse_categorical_crossentropy_seq_ignore", "SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 2}, "sparse_seq_logits"),
    ("hinge", "Hinge", {}, "hinge"),
    ("squared_hinge", "SquaredHinge", {}, "hinge"),
    ("categorical_hinge", "CategoricalHinge", {}, "categorical"),
    ("huber", "Huber", {"delta": 0.5}, "regression"),
    ("log_cosh", "LogCosh", {}, "regression"),
    ("kl_divergence", "KLDivergence", {}, "probs"),
    ("poisson", "Poisson", {}, "positive"),
    ("cosine_similarity", "CosineSimilarity", {"axis": -1}, "regression"),
    ("mean_squared_error", "MeanSquaredError", {}, "regression"),
    ("mean_squared_error_3d", "MeanSquaredError", {}, "regression_3d"),
    ("mean_absolute_error", "MeanAbsoluteError", {}, "regression"),
    ("mean_absolute_percentage_error", "MeanAbsolutePercentageError", {}, "regression"),
    ("mean_squared_logarithmic_error", "MeanSquaredLogarithmicError", {}, "positive"),
]

REDUCTIONS = ("sum_over_batch_size", "sum", "none")


def sample_weights(rng, y_true_shape, kind):
    """Sample weights of the batch: one per sample, and one per element (for 3D/seq cases)."""
    batch = y_true_shape[0]
    out = {"sw_batch": rng.uniform(0.0, 2.0, size=(batch,)).astype(np.float32)}
    out["sw_batch"][1] = 0.0
    if kind in ("regression_3d", "sparse_seq_logits"):
        out["sw_elem"] = rng.uniform(0.0, 2.0, size=y_true_shape[:2]).astype(np.float32)
    return out


def record_losses():
    arrays, manifest = {}, []
    for index, (case, cls_name, kwargs, kind) in enumerate(LOSS_CASES):
        rng = np.random.default_rng(2000 + index)
        y_true, y_pred = loss_inputs(rng, kind)
        arrays[f"{case}/y_true"], arrays[f"{case}/y_pred"] = y_true, y_pred
        weights = sample_weights(rng, y_true.shape, kind) if kwargs.get("axis") != 0 else {}
        results = []
        reductions = (kwargs["reduction"],) if "reduction" in kwargs else REDUCTIONS
        for reduction in reductions:
            kw = dict(kwargs, reduction=reduction)
            loss = getattr(tf.keras.losses, cls_name)(**kw)
            for sw_name in (None, *weights):
                value = loss(y_true, y_pred, sample_weight=None if sw_name is None else weights[sw_name]).numpy()
                key = f"{case}/{reduction}_{sw_name or 'nosw'}"
                arrays[key] = value
                results.append({"reduction": reduction, "sample_weight": sw_name, "key": key})
        for sw_name, sw in weights.items():
            arrays[f"{case}/{sw_name}"] = sw
        # the function form (per-sample values)
        fn = getattr(tf.keras.losses, cls_name)(**kwargs).fn
        fn_kwargs = {k: v for k, v in kwargs.items() if k not in ("reduction", "name")}
        arrays[f"{case}/fn"] = fn(y_true, y_pred, **fn_kwargs).numpy()
        manifest.append({"id": case, "class": cls_name, "kwargs": kwargs, "fn": fn.__name__, "fn_kwargs": fn_kwargs,
                         "results": results})
    return arrays, manifest


# --------------------------------------------------------------------------------------------
# metrics: two update_state calls (the second with sample weights), result after each
# --------------------------------------------------------------------------------------------

def metric_inputs(rng, kind):
    if kind in ("binary", "binary_logits", "categorical", "sparse", "sparse_logits", "hinge", "positive",
                "probs", "regression"):
        return loss_inputs(rng, kind)
    if kind == "binary_scores":  # many distinct scores, for thresholds/AUC
        return rng.integers(0, 2, size=(8, 3)).astype(np.float32), rng.uniform(0, 1, size=(8, 3)).astype(np.float32)
    if kind == "sparse_topk":
        return rng.integers(0, 6, size=(6,)).astype(np.int32), rng.normal(size=(6, 6)).astype(np.float32)
    if kind == "categorical_topk":
        return np.eye(6, dtype=np.float32)[rng.integers(0, 6, size=6)], rng.normal(size=(6, 6)).astype(np.float32)
    if kind == "classes":
        return rng.integers(0, 3, size=(6,)).astype(np.int32), rng.integers(0, 3, size=(6,)).astype(np.int32)
    if kind == "binary_iou":
        return rng.integers(0, 2, size=(6,)).astype(np.float32), rng.uniform(0, 1, size=(6,)).astype(np.float32)
    if kind == "one_hot_iou":
        return np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=6)], rng.uniform(0, 1, size=(6, 3)).astype(np.float32)
    if kind == "values":
        return None, rng.normal(size=(4, 3)).astype(np.float32)
    raise ValueError(kind)


METRIC_CASES = [
    ("mean", "Mean", {}, "values"),
    ("sum", "Sum", {}, "values"),
    ("mean_tensor", "MeanTensor", {}, "values"),
    ("accuracy", "Accuracy", {}, "classes"),
    ("binary_accuracy", "BinaryAccuracy", {"threshold": 0.4}, "binary"),
    ("categorical_accuracy", "CategoricalAccuracy", {}, "categorical"),
    ("sparse_categorical_accuracy", "SparseCategoricalAccuracy", {}, "sparse"),
    ("top_k_categorical_accuracy", "TopKCategoricalAccuracy", {"k": 2}, "categorical_topk"),
    ("sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy", {"k": 3}, "sparse_topk"),
    ("binary_crossentropy", "BinaryCrossentropy", {"label_smoothing": 0.1}, "binary"),
    ("binary_crossentropy_logits", "BinaryCrossentropy", {"from_logits": True}, "binary_logits"),
    ("categorical_crossentropy", "CategoricalCrossentropy", {}, "categorical"),
    ("sparse_categorical_crossentropy_logits", "SparseCategoricalCrossentropy", {"from_logits": True}, "sparse_logits"),
    ("hinge", "Hinge", {}, "hinge"),
    ("squared_hinge", "SquaredHinge", {}, "hinge"),
    ("categorical_hinge", "CategoricalHinge", {}, "categorical"),
    ("kl_divergence", "KLDivergence", {}, "probs"),
    ("poisson", "Poisson", {}, "positive"),
    ("cosine_similarity", "CosineSimilarity", {}, "regression"),
    ("log_cosh_error", "LogCoshError", {}, "regression"),
    ("mean_squared_error", "MeanSquaredError", {}, "regression"),
    ("root_mean_squared_error", "RootMeanSquaredError", {}, "regression"),
    ("mean_absolute_error", "MeanAbsoluteError", {}, "regression"),
    ("mean_absolute_percentage_error", "MeanAbsolutePercentageError", {}, "regression"),
    ("mean_squared_logarithmic_error", "MeanSquaredLogarithmicError", {}, "positive"),
    ("mean_relative_error", "MeanRelativeError", {"normalizer": [1.0, 2.0, 0.5]}, "regression"),
    ("r2_score", "R2Score", {}, "regression"),
    ("r2_score_variance_weighted", "R2Score", {"class_aggregation": "variance_weighted_average"}, "regression"),
    ("true_positives", "TruePositives", {}, "binary_scores"),
    ("false_positives_thresholds", "FalsePositives", {"thresholds": [0.2, 0.5, 0.8]}, "binary_scores"),
    ("true_negatives", "TrueNegatives", {}, "binary_scores"),
    ("false_negatives", "FalseNegatives", {"thresholds": 0.7}, "binary_scores"),
    ("precision", "Precision", {}, "binary_scores"),
    ("precision_top_k", "Precision", {"top_k": 2}, "binary_scores"),
    ("recall_thresholds", "Recall", {"thresholds": [0.3, 0.6]}, "binary_scores"),
    ("recall_class_id", "Recall", {"class_id": 1}, "binary_scores"),
    ("auc_roc", "AUC", {}, "binary_scores"),
    ("auc_pr", "AUC", {"curve": "PR"}, "binary_scores"),
    ("auc_roc_minoring", "AUC", {"num_thresholds": 50, "summation_method": "minoring"}, "binary_scores"),
    ("auc_multi_label", "AUC", {"multi_label": True}, "binary_scores"),
    ("precision_at_recall", "PrecisionAtRecall", {"recall": 0.5}, "binary_scores"),
    ("recall_at_precision", "RecallAtPrecision", {"precision": 0.5}, "binary_scores"),
    ("sensitivity_at_specificity", "SensitivityAtSpecificity", {"specificity": 0.5}, "binary_scores"),
    ("specificity_at_sensitivity", "SpecificityAtSensitivity", {"sensitivity": 0.5}, "binary_scores"),
    ("f1_score", "F1Score", {"threshold": 0.5}, "binary_scores"),
    ("f1_score_macro", "F1Score", {"average": "macro", "threshold": 0.4}, "binary_scores"),
    ("fbeta_score_micro", "FBetaScore", {"average": "micro", "beta": 2.0, "threshold": 0.5}, "binary_scores"),
    ("f1_score_weighted_argmax", "F1Score", {"average": "weighted"}, "one_hot_iou"),
    ("iou", "IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, "classes"),
    ("mean_iou", "MeanIoU", {"num_classes": 3}, "classes"),
    ("binary_iou", "BinaryIoU", {"target_class_ids": [0, 1], "threshold": 0.4}, "binary_iou"),
    ("one_hot_iou", "OneHotIoU", {"num_classes": 3, "target_class_ids": [1]}, "one_hot_iou"),
    ("one_hot_mean_iou", "OneHotMeanIoU", {"num_classes": 3}, "one_hot_iou"),
]


def record_metrics():
    arrays, manifest = {}, []
    for index, (case, cls_name, kwargs, kind) in enumerate(METRIC_CASES):
        rng = np.random.default_rng(3000 + index)
        metric = getattr(tf.keras.metrics, cls_name)(**kwargs)
        results = []
        for batch in range(2):
            y_true, y_pred = metric_inputs(rng, kind)
            sw = None
            if batch == 1:
                sw = rng.uniform(0.0, 2.0, size=(y_pred.shape[0],)).astype(np.float32)
                sw[0] = 0.0
                arrays[f"{case}/sw{batch}"] = sw
            if y_true is None:
                metric.update_state(y_pred, sample_weight=sw)
            else:
                arrays[f"{case}/y_true{batch}"] = y_true
                metric.update_state(y_true, y_pred, sample_weight=sw)
            arrays[f"{case}/y_pred{batch}"] = y_pred
            arrays[f"{case}/result{batch}"] = np.asarray(metric.result().numpy())
            results.append(batch)
        manifest.append({"id": case, "class": cls_name, "kwargs": kwargs, "batches": 2, "values_only": kind == "values"})
    return arrays, manifest


# --------------------------------------------------------------------------------------------
# models: compile / evaluate / predict / fit of the small models of tests/keras/parity/_parity_models.py
# --------------------------------------------------------------------------------------------

def record_models():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "keras", "parity"))
    import _parity_models as models

    arrays, manifest = {}, []
    for index, (case, builder) in enumerate(sorted(models.CASES.items())):
        tf.keras.backend.clear_session()  # the same layer names however the script is run
        tf.keras.utils.set_random_seed(index)
        rng = np.random.default_rng(4000 + index)
        model, compile_kwargs = builder(tf)
        model.compile(**compile_kwargs)
        weights = random_weights(rng, model)
        model.set_weights(weights)
        x, y, sw = models.data(case)
        before = model.evaluate(x, y, sample_weight=sw, batch_size=8, verbose=0, return_dict=True)
        predictions = model.predict(x, batch_size=8, verbose=0)
        predictions = predictions if isinstance(predictions, list) else [predictions]
        history = model.fit(x, y, sample_weight=sw, **models.FIT).history
        after = model.evaluate(x, y, sample_weight=sw, batch_size=8, verbose=0, return_dict=True)
        for i, w in enumerate(weights):
            arrays[f"{case}/w{i}"] = w
        for i, w in enumerate(model.get_weights()):
            arrays[f"{case}/fitted{i}"] = w
        for i, p in enumerate(predictions):
            arrays[f"{case}/pred{i}"] = p
        for name, value in before.items():
            arrays[f"{case}/evaluate/{name}"] = np.float32(value)
        for name, value in after.items():
            arrays[f"{case}/evaluate_after_fit/{name}"] = np.float32(value)
        for name, values in history.items():
            arrays[f"{case}/history/{name}"] = np.asarray(values, dtype=np.float32)
        manifest.append({"id": case, "n_w": len(weights), "n_pred": len(predictions),
                         "evaluate": sorted(before), "history": sorted(history),
                         "weight_names": [v.name for v in model.weights]})
    # weight order: get_weights() of a nested model, and its h5 weights file
    tf.keras.backend.clear_session()
    model = models.nested_batchnorm(tf)
    weights = random_weights(np.random.default_rng(4100), model)
    model.set_weights(weights)
    x = np.random.default_rng(4101).normal(size=(3, 4)).astype(np.float32)
    for i, w in enumerate(weights):
        arrays[f"nested_batchnorm/w{i}"] = w
    arrays["nested_batchnorm/x"] = x
    arrays["nested_batchnorm/pred"] = model.predict(x, verbose=0)
    path = os.path.join(OUT, "nested_batchnorm.weights.h5")
    model.save_weights(path + ".tmp.h5")
    os.replace(path + ".tmp.h5", path)
    return arrays, manifest


def save(name: str, arrays: dict, manifest: list) -> None:
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, f"{name}.npz")
    arrays = dict(arrays)
    arrays["__manifest__"] = np.array(json.dumps(manifest, sort_keys=True))
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)
    print(f"{path}: {len(manifest)} cases, {os.path.getsize(path) / 1024:.0f} KiB")


def main(argv: list[str]) -> None:
    families = argv or ["layers", "optimizers", "losses", "metrics", "models"]
    recorders = {"layers": record_layers, "optimizers": record_optimizers, "losses": record_losses,
                 "metrics": record_metrics, "models": record_models}
    print(f"TensorFlow {tf.__version__}, Keras {tf.keras.__version__ if hasattr(tf.keras, '__version__') else '?'}")
    for family in families:
        arrays, manifest = recorders[family]()
        save(family, arrays, manifest)


if __name__ == "__main__":
    main(sys.argv[1:])

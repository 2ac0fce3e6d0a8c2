"""tf.estimator.experimental.RNNClassifier / RNNEstimator and the sequential head: variable
names and shapes, returned keys and prediction shapes as TF 2.15 gives them (recorded by
running TF 2.15 on the same configurations), training, and argument errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

N, T = 32, 5
RNG = np.random.default_rng(0)
TOKENS = RNG.integers(0, 10, size=(N, T))
LENGTHS = RNG.integers(1, T + 1, size=N)
PADDED = np.where(np.arange(T)[None, :] < LENGTHS[:, None], TOKENS, -1)  # -1: no token

SEQ = tf.feature_column.embedding_column(tf.feature_column.sequence_categorical_column_with_identity("tok", 10), 4)
CTX = tf.feature_column.numeric_column("ctx", shape=(2,))

# TF 2.15: est.get_variable_names() and shapes after one step (optimizer slots left out)
TF_VARIABLES = {
    "lstm_list": {"rnn_model/logits/bias": [1], "rnn_model/logits/kernel": [8, 1],
                  "rnn_model/rnn/lstm_cell/bias": [32], "rnn_model/rnn/lstm_cell/kernel": [6, 32],
                  "rnn_model/rnn/lstm_cell/recurrent_kernel": [8, 32],
                  "sequence_features/tok_embedding/embedding_weights": [10, 4]},
    "gru_int": {"rnn_model/gru/gru_cell/bias": [2, 24], "rnn_model/gru/gru_cell/kernel": [6, 24],
                "rnn_model/gru/gru_cell/recurrent_kernel": [8, 24], "rnn_model/logits/bias": [1],
                "rnn_model/logits/kernel": [8, 1], "sequence_features/tok_embedding/embedding_weights": [10, 4]},
    "stacked": {"rnn_model/logits/bias": [1], "rnn_model/logits/kernel": [4, 1],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/bias": [8],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/kernel": [6, 8],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/recurrent_kernel": [8, 8],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/bias": [4],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/kernel": [8, 4],
                "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/recurrent_kernel": [4, 4],
                "sequence_features/tok_embedding/embedding_weights": [10, 4]},
}
CONFIGS = {"lstm_list": {"units": [8], "cell_type": "lstm"}, "gru_int": {"units": 8, "cell_type": "gru"},
           "stacked": {"units": [8, 4]}}
EVAL_KEYS = ["accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss", "global_step",
             "label/mean", "loss", "precision", "prediction/mean", "recall"]
PREDICT_KEYS = ["all_class_ids", "all_classes", "class_ids", "classes", "logistic", "logits", "probabilities"]


def _input_fn(labels_per_step: bool = False):
    def input_fn():
        labels = (TOKENS > 4).astype(np.int64) if labels_per_step else (TOKENS[:, 0] > 4).astype(np.int64)
        ctx = np.stack([LENGTHS, TOKENS[:, 0]], 1).astype(np.float32)
        return tf.data.Dataset.from_tensor_slices(({"tok": PADDED, "ctx": ctx}, labels)).batch(8)
    return input_fn


@pytest.mark.parametrize("config", list(CONFIGS))
def test_variables_and_keys_are_tfs(tmp_path, config):
    est = tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[SEQ], context_feature_columns=[CTX], model_dir=str(tmp_path), **CONFIGS[config])
    est.train(_input_fn(), steps=1)
    ours = {n: list(est.get_variable_value(n).shape) for n in est.get_variable_names()
            if n != "global_step" and not n.startswith("training/") and "Adagrad" not in n}
    assert ours == TF_VARIABLES[config]
    assert sorted(est.evaluate(_input_fn(), steps=1)) == EVAL_KEYS
    assert sorted(next(iter(est.predict(_input_fn())))) == PREDICT_KEYS


def test_training_lowers_the_loss(tmp_path):
    est = tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[SEQ], context_feature_columns=[CTX], units=[16], cell_type="lstm",
        model_dir=str(tmp_path), optimizer=tf.keras.optimizers.Adam(0.05))
    est.train(_input_fn(), steps=1)
    first = est.evaluate(_input_fn(), steps=4)["loss"]
    est.train(lambda: _input_fn()().repeat(), steps=60)
    assert est.evaluate(_input_fn(), steps=4)["loss"] < first * 0.8


def test_return_sequences_classifies_every_step_and_masks_the_padding(tmp_path):
    est = tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[SEQ], units=[8], cell_type="simple_rnn", return_sequences=True,
        model_dir=str(tmp_path))
    est.train(_input_fn(labels_per_step=True), steps=2)
    assert sorted(est.evaluate(_input_fn(labels_per_step=True), steps=1)) == EVAL_KEYS
    first = next(iter(est.predict(_input_fn(labels_per_step=True))))
    # TF 2.15's shapes for one example
    assert {k: list(np.shape(v)) for k, v in first.items()} == {
        "logits": [5, 1], "logistic": [5, 1], "probabilities": [5, 2], "class_ids": [5, 1], "classes": [5, 1],
        "all_class_ids": [2], "all_classes": [2], "sequence_mask": [5]}
    assert np.asarray(first["sequence_mask"]).tolist() == [t < LENGTHS[0] for t in range(T)]


def test_rnn_estimator_with_a_cell_fn_and_a_regression_head(tmp_path):
    est = tf.estimator.experimental.RNNEstimator(
        head=tf.estimator.RegressionHead(), sequence_feature_columns=[SEQ],
        rnn_cell_fn=lambda: [tf.keras.layers.GRUCell(4), tf.keras.layers.LSTMCell(3, name="last")],
        model_dir=str(tmp_path))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"tok": PADDED}, LENGTHS.astype(np.float32))).batch(8)

    est.train(input_fn, steps=2)
    names = est.get_variable_names()
    assert "rnn_model/rnn/stacked_rnn_cells/gru_cell/kernel" in names
    assert "rnn_model/rnn/stacked_rnn_cells/last/kernel" in names  # a name the user gave is kept
    assert sorted(next(iter(est.predict(input_fn)))) == ["predictions"]


def test_sequential_head_counts_only_the_unmasked_steps():
    head = tf.estimator.BinaryClassHead()
    from torchestimator.estimator.head.sequential_head import SequentialHeadWrapper

    seq_head = SequentialHeadWrapper(head, sequence_length_mask="mask")
    logits = torch.tensor([[[1.0], [2.0], [9.0]], [[-1.0], [9.0], [9.0]]])
    labels = torch.tensor([[[1], [0], [1]], [[0], [1], [1]]])
    mask = torch.tensor([[True, True, False], [True, False, False]])
    loss = seq_head.loss(labels, logits, features={"mask": mask})
    expected = head.loss(torch.tensor([[1], [0], [0]]), torch.tensor([[1.0], [2.0], [-1.0]]))
    assert torch.allclose(loss, expected)
    with pytest.raises(ValueError, match="sequence_length_mask key `mask`"):
        seq_head.loss(labels, logits, features={})
    with pytest.raises(ValueError, match="MultiHead"):
        SequentialHeadWrapper(tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a")]))
    with pytest.raises(TypeError, match="must be a string"):
        SequentialHeadWrapper(head, sequence_length_mask=3)


@pytest.mark.parametrize("kwargs,message", [
    ({"units": [4], "rnn_cell_fn": lambda: tf.keras.layers.LSTMCell(4)},
     "units and cell_type must not be specified when using rnn_cell_fn"),
    ({"units": [4], "cell_type": "transformer"}, "Supported strings are"),
    ({}, "give `units`"),
])
def test_bad_rnn_arguments_are_refused(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        est = tf.estimator.experimental.RNNClassifier(sequence_feature_columns=[SEQ], model_dir=str(tmp_path), **kwargs)
        est.train(_input_fn(), steps=1)


def test_column_errors_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="sequence_feature_columns must be sequence columns.*'ctx'"):
        tf.estimator.experimental.RNNClassifier(sequence_feature_columns=[CTX], units=[4])
    with pytest.raises(ValueError, match="Provided head must be a `_SequentialHead`"):
        tf.estimator.experimental.RNNEstimator(head=tf.estimator.RegressionHead(), sequence_feature_columns=[SEQ],
                                               units=[4], return_sequences=True)

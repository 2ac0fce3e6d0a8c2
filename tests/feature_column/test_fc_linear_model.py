"""LinearModel / linear_model: TF's weight names, zero init, sparse combiners by hand."""

import math

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.feature_column._linear_model import LinearModel

fc = tf.feature_column
linear_model = tf.compat.v1.feature_column.linear_model

AGE = fc.numeric_column("age")
COLOR = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
FEATS = {"age": [1.0, 3.0], "color": [["r", "g"], ["b", "x"]]}


def model_with_weights(combiner):
    model = LinearModel([COLOR, AGE], sparse_combiner=combiner, name="linear_model")
    model(FEATS)
    with torch.no_grad():
        weights = {p._keras_name: p for p in model.weights}
        weights["linear_model/age/weights"].copy_(torch.tensor([[2.0]]))
        weights["linear_model/color/weights"].copy_(torch.tensor([[1.0], [10.0], [100.0]]))
        weights["linear_model/bias_weights"].copy_(torch.tensor([0.5]))
    return model


def test_weights_are_named_as_tf_checkpoints_and_start_at_zero():
    model = LinearModel([COLOR, AGE, fc.bucketized_column(AGE, [2.0])], units=3, name="linear_model")
    out = model(FEATS)
    assert out.shape == (2, 3) and float(out.detach().abs().sum()) == 0.0
    shapes = {p._keras_name: tuple(p.shape) for p in model.weights}
    assert shapes == {
        "linear_model/age/weights": (1, 3),
        "linear_model/age_bucketized/weights": (2, 3),  # bucketized is categorical: one row per bucket
        "linear_model/color/weights": (3, 3),
        "linear_model/bias_weights": (3,),
    }
    assert model.bias is model.weights[-1]


@pytest.mark.parametrize(
    "combiner, expected",
    [
        ("sum", [2 + 11 + 0.5, 6 + 100 + 0.5]),
        ("mean", [2 + 5.5 + 0.5, 6 + 100 + 0.5]),  # 'x' is OOV (-1) and not counted
        ("sqrtn", [2 + 11 / math.sqrt(2) + 0.5, 6 + 100 + 0.5]),
    ],
)
def test_sparse_combiners_by_hand(combiner, expected):
    np.testing.assert_allclose(model_with_weights(combiner)(FEATS).detach().numpy()[:, 0], expected, rtol=1e-6)


def test_weighted_column_and_multi_dimensional_dense_column():
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    pos = fc.numeric_column("pos", shape=2)
    model = LinearModel([weighted, pos])
    feats = {"i": [[0, 2], [1]], "w": [[0.5, 2.0], [3.0]], "pos": [[1.0, 2.0], [3.0, 4.0]]}
    model(feats)
    with torch.no_grad():
        for p in model.weights:
            if p._keras_name.endswith("i_weighted_by_w/weights"):
                p.copy_(torch.tensor([[1.0], [10.0], [100.0]]))
            elif p._keras_name.endswith("pos/weights"):
                p.copy_(torch.tensor([[1.0], [-1.0]]))
    np.testing.assert_allclose(model(feats).detach().numpy()[:, 0], [0.5 + 200 - 1, 30 - 1])


def test_gradients_reach_only_the_ids_seen():
    model = LinearModel([COLOR])
    with tf.GradientTape():  # numpy inputs at the top level record gradients only under a tape
        out = model(FEATS)
    out.sum().backward()
    (w,) = [p for p in model.weights if p._keras_name.endswith("color/weights")]
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [1, 1, 1])
    assert model.bias.grad.tolist() == [2.0]


def test_linear_model_function_fills_cols_to_vars():
    cols_to_vars = {}
    out = linear_model(FEATS, [AGE, COLOR], units=2, cols_to_vars=cols_to_vars)
    assert out.shape == (2, 2)
    assert [tuple(v.shape) for v in cols_to_vars[COLOR]] == [(3, 2)]
    assert [v._keras_name for v in cols_to_vars["bias"]] == ["linear_model/bias_weights"]


def test_embedding_column_inside_a_linear_model():
    emb = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2)
    model = LinearModel([emb], name="linear_model")
    assert model({"i": [1, 3]}).shape == (2, 1)
    names = sorted(p._keras_name for p in model.weights)
    assert names == [
        "linear_model/bias_weights", "linear_model/i_embedding/embedding_weights",
        "linear_model/i_embedding/weights",
    ]


def test_linear_model_errors():
    with pytest.raises(ValueError, match="units must be a positive integer"):
        LinearModel([AGE], units=0)
    with pytest.raises(ValueError, match="sparse_combiner must be one of"):
        LinearModel([AGE], sparse_combiner="max")
    with pytest.raises(ValueError, match="either a DenseColumn or CategoricalColumn"):
        LinearModel(["age"])
    with pytest.raises(ValueError, match="does not take sequence columns"):
        LinearModel([fc.sequence_categorical_column_with_identity("s", 3)])
    with pytest.raises(ValueError, match="Feature 'color' is required"):
        LinearModel([COLOR])({"age": [1.0]})


def test_config_round_trip():
    model = LinearModel([COLOR, AGE], units=2, sparse_combiner="mean", name="lin")
    config = model.get_config()
    clone = LinearModel.from_config(config)
    assert clone.units == 2 and clone.sparse_combiner == "mean" and clone.name == "lin"
    assert clone.feature_columns == model.feature_columns


def test_a_run_of_numeric_columns_is_one_matmul_with_the_per_column_result():
    """Consecutive plain numeric columns are stacked and multiplied by their concatenated
    weights; the predictions equal the sum of each column's own product (float rounding aside),
    and the gradient reaches each column's own weight."""
    fc = tf.feature_column
    cat = fc.categorical_column_with_vocabulary_list("cat", ["p", "q"])
    cols = [fc.numeric_column("x0"), fc.numeric_column("x1"), fc.numeric_column("x2"), cat]
    layer = LinearModel(cols, units=2)
    rng = np.random.default_rng(0)
    features = {k: torch.tensor(rng.normal(size=5), dtype=torch.float32) for k in ("x0", "x1", "x2")}
    features["cat"] = np.array(["p", "q", "q", "p", "q"])
    layer(features)  # build
    with torch.no_grad():
        for column in layer._feature_columns:
            w = layer._state_manager.get_variable(column, "weights")
            w.copy_(torch.tensor(rng.normal(size=tuple(w.shape)), dtype=torch.float32))
    assert [keys for keys, _ in layer._segments] == [None, ("x0", "x1", "x2")]
    out = layer(features)
    # expected values on the host (the layer may run on an accelerator: the GPU check)
    expected = layer.bias.detach().cpu().expand(5, 2).clone()
    for column in layer._feature_columns:
        w = layer._state_manager.get_variable(column, "weights").detach().cpu()
        if column.name == "cat":
            expected += w[torch.tensor([0, 1, 1, 0, 1])]
        else:
            expected += features[column.name][:, None] @ w
    torch.testing.assert_close(out.detach().cpu(), expected, rtol=1e-6, atol=1e-6)
    out.sum().backward()
    x1 = layer._state_manager.get_variable(cols[1], "weights")
    torch.testing.assert_close(x1.grad.cpu(), features["x1"].sum().expand(1, 2).clone())

"""BoostedTreesClassifier / BoostedTreesRegressor on LightGBM: quality, resume adding trees,
checkpointed booster, feature importances, errors."""

import os

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator.canned import (
    BoostedTreesClassifier,
    BoostedTreesEstimator,
    BoostedTreesRegressor,
)
from torchestimator.estimator.head import BinaryClassHead, MultiLabelHead

pytest.importorskip("lightgbm")


def _whole(features, labels):
    n = len(labels)
    return lambda: tf.data.Dataset.from_tensor_slices((features, labels)).batch(n)


def test_breast_cancer_resume_adds_trees(tmp_path, breast_cancer, roc_auc):
    x, y, xt, yt, names = breast_cancer
    columns = [tf.feature_column.numeric_column(n) for n in names]
    first = BoostedTreesClassifier(columns, n_batches_per_layer=1, n_trees=10, max_depth=3,
                                   model_dir=str(tmp_path))
    first.train(_whole(x, y), max_steps=50)
    result = first.evaluate(_whole(xt, yt))
    assert sorted(result) == ["accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
                              "global_step", "label/mean", "loss", "precision", "prediction/mean", "recall"]
    assert result["global_step"] == 1  # one batch collected, trees grown, training stopped
    assert result["accuracy"] > 0.9
    assert list(first.get_variable_value("boosted_trees/tree_ensemble"))[0] == 10
    files = os.listdir(tmp_path / "boosted_trees")
    assert len(files) == 1 and files[0].endswith(".txt")
    first.train(_whole(x, y))  # complete: a second train stops at once, adding nothing
    assert list(first.get_variable_value("boosted_trees/tree_ensemble"))[0] == 10

    more = BoostedTreesClassifier(columns, n_batches_per_layer=1, n_trees=30, max_depth=3,
                                  model_dir=str(tmp_path))
    before = [p["logits"][0] for p in more.predict(_whole(xt, yt))]
    np.testing.assert_allclose(before, [p["logits"][0] for p in first.predict(_whole(xt, yt))], rtol=1e-6)
    more.train(_whole(x, y))
    assert list(more.get_variable_value("boosted_trees/tree_ensemble"))[0] == 30
    after = more.evaluate(_whole(xt, yt))
    assert after["average_loss"] < result["average_loss"]
    scores = [p["logistic"][0] for p in more.predict(_whole(xt, yt))]
    assert roc_auc(yt, scores) > 0.97
    importances = more.experimental_feature_importances(normalize=True)
    assert list(importances) == sorted(importances, key=lambda k: -importances[k])
    assert set(importances) == set(names)
    assert sum(importances.values()) == pytest.approx(1.0)


def test_multiclass_batches_and_bucketized_indicator_columns(tmp_path, iris):
    ((x, y), (xt, yt)), names = iris
    fc = tf.feature_column
    columns = [fc.numeric_column(names[0]), fc.bucketized_column(fc.numeric_column(names[2]), [2.5, 5.0]),
               fc.numeric_column(names[3])]
    features = {n: x[:, i] for i, n in enumerate(names)}
    est = BoostedTreesClassifier(columns, n_batches_per_layer=4, n_classes=3, n_trees=20,
                                 model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).repeat().batch(30))
    assert est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(
        ({n: xt[:, i] for i, n in enumerate(names)}, yt)).batch(30))["global_step"] == 4
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(
        ({n: xt[:, i] for i, n in enumerate(names)}, yt)).batch(30))
    assert sorted(result) == ["accuracy", "average_loss", "global_step", "loss"]
    assert result["accuracy"] >= 0.9
    assert set(est.experimental_feature_importances()) == {c.name for c in columns}

    colors = np.array(["red", "blue"] * 50)
    labels = (colors == "red").astype(np.int64)
    indicator = fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["red", "blue"]))
    est = BoostedTreesClassifier([indicator], n_batches_per_layer=1, n_trees=5, center_bias=True,
                                 model_dir=str(tmp_path / "ind"))
    est.train(_whole({"c": colors}, labels))
    assert est.evaluate(_whole({"c": colors}, labels))["accuracy"] == 1.0


def test_input_ending_early_grows_on_what_was_collected(tmp_path, diabetes):
    x, y, xt, yt, names = diabetes
    columns = [tf.feature_column.numeric_column(n) for n in names]
    est = BoostedTreesRegressor(columns, n_batches_per_layer=100, n_trees=40, max_depth=2,
                                learning_rate=0.1, model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(50))  # 7 batches, not 100
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((xt, yt)).batch(100))
    assert result["global_step"] == 7
    assert sorted(result) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    assert result["average_loss"] < 0.8 * np.var(yt)
    # the last checkpoint refers to the grown booster
    assert list(est.get_variable_value("boosted_trees/tree_ensemble"))[0] == 40


def test_weights_and_string_labels(tmp_path, breast_cancer):
    x, y, xt, yt, names = breast_cancer
    columns = [tf.feature_column.numeric_column(n) for n in names[:5]]
    features = dict(x, w=np.where(y == 1, 1.0, 4.0).astype(np.float32))
    labels = np.where(y == 1, "benign", "malignant")
    est = BoostedTreesClassifier(columns, 1, label_vocabulary=["malignant", "benign"], weight_column="w",
                                 n_trees=5, model_dir=str(tmp_path))
    est.train(_whole(features, labels))
    pred = next(iter(est.predict(lambda: tf.data.Dataset.from_tensor_slices(xt).batch(10))))
    assert pred["classes"][0] in (b"malignant", b"benign")
    heavy = est.evaluate(_whole(dict(xt, w=np.ones(len(yt), np.float32)),
                                np.where(yt == 1, "benign", "malignant")))
    assert heavy["accuracy"] > 0.85


def test_errors(tmp_path):
    fc = tf.feature_column
    num = fc.numeric_column("x")
    emb = fc.embedding_column(fc.categorical_column_with_identity("i", 5), 2)
    with pytest.raises(ValueError, match="only bucketized_column, indicator_column and numeric_column"):
        BoostedTreesClassifier([emb], n_batches_per_layer=1)
    with pytest.raises(ValueError, match="n_batches_per_layer must be a positive int"):
        BoostedTreesClassifier([num], n_batches_per_layer=0)
    with pytest.raises(ValueError, match="tree_complexity must be positive when pruning_mode is 'pre'"):
        BoostedTreesClassifier([num], 1, pruning_mode="pre")
    with pytest.raises(ValueError, match="pruning_mode must be one of"):
        BoostedTreesClassifier([num], 1, pruning_mode="both")
    with pytest.raises(ValueError, match="center_bias is not supported for multi-class"):
        BoostedTreesClassifier([num], 1, n_classes=3, center_bias=True)
    with pytest.raises(ValueError, match="label_dimension must be 1"):
        BoostedTreesRegressor([num], 1, label_dimension=2)
    with pytest.raises(ValueError, match="n_classes must be an int >= 2"):
        BoostedTreesClassifier([num], 1, n_classes=1)
    with pytest.raises(ValueError, match="head must be a BinaryClassHead"):
        BoostedTreesEstimator([num], 1, head=MultiLabelHead(2))
    est = BoostedTreesEstimator([num], 1, head=BinaryClassHead(), model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Could not find trained model"):
        est.experimental_feature_importances()
    with pytest.raises(ValueError, match="Labels must be <= 2 - 1"):
        est.train(_whole({"x": np.arange(4, dtype=np.float32)}, np.array([0, 1, 2, 1])))


def test_predict_with_explanations_sums_to_the_prediction(tmp_path, breast_cancer, diabetes):
    x, y, xt, yt, names = breast_cancer
    fc = tf.feature_column
    columns = [fc.numeric_column(n) for n in names[:6]] + [
        fc.bucketized_column(fc.numeric_column(names[6]), [0.05, 0.1, 0.2])]
    est = BoostedTreesClassifier(columns, n_batches_per_layer=1, n_trees=15, max_depth=3, center_bias=True,
                                 model_dir=str(tmp_path / "c"))
    est.train(_whole(x, y))
    head = {k: v[:40] for k, v in xt.items()}
    explained = list(est.experimental_predict_with_explanations(_whole(head, yt[:40])))
    plain = list(est.predict(_whole(head, yt[:40])))
    assert len(explained) == 40
    for with_dfc, without in zip(explained, plain):
        dfc = with_dfc["dfc"]
        assert list(dfc) == sorted(dfc, key=lambda k: -abs(dfc[k]))  # largest contribution first
        assert set(dfc) == {c.name for c in columns}
        assert with_dfc["bias"] + sum(dfc.values()) == pytest.approx(without["probabilities"][1], abs=1e-5)
        np.testing.assert_allclose(with_dfc["logits"], without["logits"])
    biases = {round(p["bias"], 9) for p in explained}
    assert len(biases) == 1 and 0 < biases.pop() < 1  # the prior, as a probability
    assert any(abs(v) > 0.01 for p in explained for v in p["dfc"].values())
    only = next(iter(est.experimental_predict_with_explanations(
        _whole({k: v[:3] for k, v in xt.items()}, yt[:3]), predict_keys="probabilities")))
    assert sorted(only) == ["bias", "dfc", "probabilities"]

    x, y, xt, yt, names = diabetes
    reg = BoostedTreesRegressor([fc.numeric_column(n) for n in names], n_batches_per_layer=1, n_trees=10,
                                max_depth=2, center_bias=True, model_dir=str(tmp_path / "r"))
    reg.train(_whole(x, y))
    for p in reg.experimental_predict_with_explanations(_whole({k: v[:10] for k, v in xt.items()}, yt[:10])):
        assert p["bias"] + sum(p["dfc"].values()) == pytest.approx(float(p["predictions"][0]), abs=1e-4)


def test_predict_with_explanations_errors(tmp_path, iris):
    ((x, y), _), names = iris
    columns = [tf.feature_column.numeric_column(n) for n in names]
    no_bias = BoostedTreesClassifier(columns, n_batches_per_layer=1, model_dir=str(tmp_path / "a"))
    with pytest.raises(ValueError, match="center_bias must be enabled"):
        next(no_bias.experimental_predict_with_explanations(_whole(x, y)))
    multi = BoostedTreesClassifier(columns, n_batches_per_layer=1, n_classes=3, model_dir=str(tmp_path / "b"))
    with pytest.raises(ValueError, match="does not yet support multi-class"):
        next(multi.experimental_predict_with_explanations(_whole(x, y)))

"""DNNClassifier / DNNRegressor / DNNEstimator on Iris, diabetes and string labels."""

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator.canned import DNNClassifier, DNNEstimator, DNNRegressor
from torchestimator.estimator.head import MultiLabelHead


def _adagrad(rate):
    return lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=rate)


def _iris_inputs(iris, labels_fn=lambda y: y, weights=False):
    ((x, y), (xt, yt)), names = iris

    def make(xs, ys, training):
        def input_fn():
            feats = {n: xs[:, i] for i, n in enumerate(names)}
            if weights:
                feats["w"] = np.where(ys == 0, 2.0, 1.0).astype(np.float32)
            ds = tf.data.Dataset.from_tensor_slices((feats, labels_fn(ys)))
            if training:
                ds = ds.shuffle(200, seed=0).repeat()
            return ds.batch(32)
        return input_fn

    columns = [tf.feature_column.numeric_column(n) for n in names]
    return make(x, y, True), make(xt, yt, False), columns


def test_iris_train_evaluate_predict_and_variable_names(tmp_path, iris):
    train, test, columns = _iris_inputs(iris)
    est = DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,
                        optimizer=_adagrad(0.1), model_dir=str(tmp_path))
    est.train(train, steps=300)
    result = est.evaluate(test)
    assert sorted(result) == ["accuracy", "average_loss", "global_step", "loss"]
    assert result["accuracy"] >= 0.9 and result["global_step"] == 300
    names = est.get_variable_names()
    for name in ("dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_1/kernel",
                 "dnn/logits/kernel", "dnn/logits/bias", "global_step"):
        assert name in names
    assert est.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (4, 10)
    assert est.get_variable_value("dnn/logits/kernel").shape == (10, 3)
    preds = list(est.predict(test))
    assert len(preds) == 30
    assert sorted(preds[0]) == ["all_class_ids", "all_classes", "class_ids", "classes", "logits",
                                "probabilities"]
    assert preds[0]["class_ids"].shape == (1,) and preds[0]["probabilities"].shape == (3,)
    accuracy = np.mean([p["class_ids"][0] for p in preds] == iris[0][1][1])
    assert accuracy == pytest.approx(result["accuracy"])


def test_resume_from_checkpoint(tmp_path, iris):
    train, test, columns = _iris_inputs(iris)
    kwargs = dict(hidden_units=[8], feature_columns=columns, n_classes=3, optimizer=_adagrad(0.1),
                  model_dir=str(tmp_path))
    first = DNNClassifier(**kwargs)
    first.train(train, steps=40)
    before = first.evaluate(test)
    second = DNNClassifier(**kwargs)
    assert second.evaluate(test)["average_loss"] == pytest.approx(before["average_loss"], rel=1e-6)
    second.train(train, steps=40)
    assert second.evaluate(test)["global_step"] == 80
    names = second.get_variable_names()
    # the optimizer state is checkpointed under TF 2.15's names
    assert "training/Adagrad/dnn/hiddenlayer_0/kernel/accumulator" in names
    assert int(second.get_variable_value("training/Adagrad/iter")) == 80
    assert second.get_variable_value("training/Adagrad/learning_rate") == pytest.approx(0.1)


def test_string_labels_and_weights(tmp_path, iris):
    species = np.array(tf.datasets.iris.SPECIES)
    train, test, columns = _iris_inputs(iris, labels_fn=lambda y: species[y], weights=True)
    est = DNNClassifier(hidden_units=[16, 8], feature_columns=columns, n_classes=3,
                        label_vocabulary=list(species), weight_column="w", optimizer=_adagrad(0.1),
                        dropout=0.1, model_dir=str(tmp_path))
    est.train(train, steps=200)
    result = est.evaluate(test)
    assert result["accuracy"] >= 0.8
    pred = next(iter(est.predict(test)))
    assert pred["classes"][0] in [s.encode() for s in species]
    np.testing.assert_array_equal(pred["all_classes"], [s.encode() for s in species])


def test_batch_norm_variables(tmp_path, iris):
    train, test, columns = _iris_inputs(iris)
    est = DNNClassifier(hidden_units=[8, 4], feature_columns=columns, n_classes=3, batch_norm=True,
                        model_dir=str(tmp_path))
    est.train(train, steps=3)
    names = est.get_variable_names()
    for name in ("dnn/hiddenlayer_0/batchnorm_0/gamma", "dnn/hiddenlayer_0/batchnorm_0/moving_mean",
                 "dnn/hiddenlayer_1/batchnorm_1/beta", "dnn/hiddenlayer_1/batchnorm_1/moving_variance"):
        assert name in names
    # momentum 0.999, as TF: three steps barely move the moving mean from 0
    assert np.abs(est.get_variable_value("dnn/hiddenlayer_0/batchnorm_0/moving_mean")).max() < 0.05


def test_regressor_on_diabetes(tmp_path, diabetes, make_input_fn):
    x, y, xt, yt, names = diabetes
    columns = [tf.feature_column.numeric_column(n) for n in names]
    est = DNNRegressor(hidden_units=[16], feature_columns=columns,
                       optimizer=lambda: tf.keras.optimizers.Adam(learning_rate=0.02), model_dir=str(tmp_path))
    est.train(make_input_fn(x, y, batch_size=32, epochs=None), steps=250)
    result = est.evaluate(make_input_fn(xt, yt, batch_size=100, shuffle=False))
    assert sorted(result) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    assert result["average_loss"] < 0.85 * np.var(yt)  # least squares: 0.66 * var
    assert result["label/mean"] == pytest.approx(yt.mean(), rel=1e-5)
    pred = next(iter(est.predict(make_input_fn(xt, yt, shuffle=False))))
    assert list(pred) == ["predictions"] and pred["predictions"].shape == (1,)


def test_dnn_estimator_with_multi_label_head(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3)).astype(np.float32)
    labels = np.stack([x[:, 0] > 0, x[:, 1] > 0], axis=1).astype(np.int64)
    est = DNNEstimator(head=MultiLabelHead(n_classes=2), hidden_units=[8],
                       feature_columns=[tf.feature_column.numeric_column("x", shape=(3,))],
                       optimizer=_adagrad(0.3), model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).repeat().batch(50), steps=60)
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(100))
    assert result["auc"] > 0.85


def test_errors(tmp_path, iris):
    train, _, columns = _iris_inputs(iris)
    color = tf.feature_column.categorical_column_with_vocabulary_list("color", ["a", "b"])
    with pytest.raises(ValueError, match="n_classes must be an int >= 2"):
        DNNClassifier([4], columns, n_classes=1)
    with pytest.raises(ValueError, match="must be dense columns.*embedding_column or indicator_column"):
        DNNClassifier([4], [color])
    with pytest.raises(ValueError, match="hidden_units must be a list of positive ints"):
        DNNClassifier([4, 0], columns)
    with pytest.raises(ValueError, match="Unsupported optimizer name: adagrad"):
        DNNClassifier([4], columns, optimizer="adagrad")
    with pytest.raises(ValueError, match="dropout must be None or a probability"):
        DNNClassifier([4], columns, dropout=1.5)
    est = DNNClassifier([4], columns, n_classes=2, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Labels must be <= 2 - 1"):
        est.train(train, steps=1)
    with pytest.raises(ValueError, match="features should be a dictionary"):
        DNNClassifier([4], columns, model_dir=str(tmp_path / "b")).train(
            lambda: tf.data.Dataset.from_tensor_slices((np.zeros((4, 4), np.float32), np.zeros(4))).batch(2),
            steps=1)


def test_warm_start_from_another_model_dir(tmp_path, iris):
    train, test, columns = _iris_inputs(iris)
    source = DNNClassifier([8], columns, n_classes=3, optimizer=_adagrad(0.1), model_dir=str(tmp_path / "a"))
    source.train(train, steps=30)
    warm = DNNClassifier([8], columns, n_classes=3, optimizer=_adagrad(0.1), model_dir=str(tmp_path / "b"),
                         warm_start_from=str(tmp_path / "a"))
    warm.train(train, steps=1)
    assert warm.evaluate(test)["global_step"] == 1
    kernel = source.get_variable_value("dnn/hiddenlayer_0/kernel")
    moved = np.abs(warm.get_variable_value("dnn/hiddenlayer_0/kernel") - kernel).max()
    assert moved < 0.2  # started from the source's kernel, then one step
    fresh = DNNClassifier([8], columns, n_classes=3, model_dir=str(tmp_path / "c"))
    fresh.train(train, steps=1)
    assert np.abs(fresh.get_variable_value("dnn/hiddenlayer_0/kernel") - kernel).max() > moved

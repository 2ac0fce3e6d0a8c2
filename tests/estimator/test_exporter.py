"""Exporters with real exports: TF's train_and_evaluate guide program (Iris DNNClassifier,
LatestExporter), BestExporter keeping only better models across a restart, FinalExporter,
garbage collection of old exports, and the exporters' argument checks."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from _estimator_testlib import config, input_fn, single_thread

import torchestimator as tf

pytestmark = pytest.mark.skipif(
    not hasattr(tf.estimator.Estimator, "export_saved_model"),
    reason="Estimator.export_saved_model (the export issue) is not there yet",
)


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def export_dirs(model_dir, name):
    base = os.path.join(model_dir, "export", name)
    return sorted(d for d in os.listdir(base) if d.isdigit()) if os.path.isdir(base) else []


def as_str(path):
    return path.decode() if isinstance(path, bytes) else path


@pytest.mark.slow  # ~7 s: seven exports (torch.export each)
def test_the_guide_program_iris_dnn_classifier_with_exporters(tmp_path):
    (x_train, y_train), (x_test, y_test) = tf.datasets.iris.load_data()
    names = tf.datasets.iris.FEATURE_NAMES

    def train_input_fn():
        features = {k: x_train[:, i] for i, k in enumerate(names)}
        return tf.data.Dataset.from_tensor_slices((features, y_train)).shuffle(120, seed=0).repeat().batch(32)

    def eval_input_fn():
        features = {k: x_test[:, i] for i, k in enumerate(names)}
        return tf.data.Dataset.from_tensor_slices((features, y_test)).batch(32)

    feature_columns = [tf.feature_column.numeric_column(k) for k in names]
    estimator = tf.estimator.DNNClassifier(
        hidden_units=[10, 10], feature_columns=feature_columns, n_classes=3, model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=0, log_step_count_steps=None))
    serving_input_receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(feature_columns))
    exporters = [tf.estimator.LatestExporter("iris", serving_input_receiver_fn, exports_to_keep=2),
                 tf.estimator.BestExporter("best", serving_input_receiver_fn, exports_to_keep=2),
                 tf.estimator.FinalExporter("final", serving_input_receiver_fn)]
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=30)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None, exporters=exporters,
                                      throttle_secs=0)
    result, exports = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)

    assert int(result["global_step"]) == 30 and {"accuracy", "average_loss", "loss"} <= set(result)
    # As TF 2.15 (verified): latest and best keep 2 exports, final exports once.
    assert len(export_dirs(str(tmp_path), "iris")) == 2
    assert len(export_dirs(str(tmp_path), "final")) == 1
    assert 1 <= len(export_dirs(str(tmp_path), "best")) <= 2
    latest, best, final = (as_str(p) if p is not None else None for p in exports)
    assert os.path.dirname(latest) == os.path.join(str(tmp_path), "export", "iris")
    assert os.path.basename(latest) == export_dirs(str(tmp_path), "iris")[-1]
    assert final is not None and os.path.basename(final) == export_dirs(str(tmp_path), "final")[0]

    # The exported model classifies as the Estimator predicts.
    loaded = tf.saved_model.load(final)
    sig = loaded.signatures["predict"]
    rows = {k: x_test[:5, i] for i, k in enumerate(names)}
    examples = [tf.train.Example(features=tf.train.Features(feature={
        k: tf.train.Feature(float_list=tf.train.FloatList(value=[float(rows[k][i])])) for k in names
    })).SerializeToString() for i in range(5)]
    served = sig(examples=examples)
    predicted = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(rows).batch(5)))
    np.testing.assert_allclose(np.asarray(served["probabilities"]),
                               np.stack([p["probabilities"] for p in predicted]), rtol=1e-5, atol=1e-6)


def signed_model_fn(features, labels, mode, params):
    """A logistic regression whose training follows `params['direction']` (-1 climbs the loss)."""
    logits = tf.keras.layers.Dense(1, name="logits")(features["x"])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.2).minimize(
        params["direction"] * loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


RECEIVER = tf.estimator.export.build_raw_serving_input_receiver_fn(
    {"x": tf.TensorSpec([None, 3], tf.float32)})


def run_best(tmp_path, direction, max_steps, exporter):
    est = tf.estimator.Estimator(signed_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=5), params={"direction": direction})
    return tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=max_steps),
        tf.estimator.EvalSpec(input_fn(2), throttle_secs=0, exporters=exporter))


def test_best_exporter_keeps_only_better_models_across_a_restart(tmp_path):
    result, exports = run_best(tmp_path, +1.0, 10, tf.estimator.BestExporter(
        serving_input_receiver_fn=RECEIVER, exports_to_keep=None))
    first = export_dirs(str(tmp_path), "best_exporter")
    assert len(first) == 2 and exports[0] is not None  # the loss fell at 5 and at 10
    # Restarted (a new exporter, as after preemption), training that makes the loss worse:
    # the best loss so far is read back from the eval event files, so nothing is exported.
    result, exports = run_best(tmp_path, -1.0, 20, tf.estimator.BestExporter(
        serving_input_receiver_fn=RECEIVER, exports_to_keep=None))
    assert int(result["global_step"]) == 20 and exports == [None]
    assert export_dirs(str(tmp_path), "best_exporter") == first
    # Training on that improves again beyond the best: exported.
    result, exports = run_best(tmp_path, +1.0, 60, tf.estimator.BestExporter(
        serving_input_receiver_fn=RECEIVER, exports_to_keep=1))
    assert exports[0] is not None
    assert export_dirs(str(tmp_path), "best_exporter") == [os.path.basename(as_str(exports[0]))]


def test_best_exporter_with_a_custom_compare_fn(tmp_path):
    calls = []

    def higher_loss(best_eval_result, current_eval_result):
        calls.append((best_eval_result["loss"], current_eval_result["loss"]))
        return current_eval_result["loss"] > best_eval_result["loss"]

    _, exports = run_best(tmp_path, +1.0, 15, tf.estimator.BestExporter(
        "worst", RECEIVER, compare_fn=higher_loss))
    assert len(export_dirs(str(tmp_path), "worst")) == 1  # only the first evaluation's model
    assert exports == [None] and calls


def test_final_exporter_only_at_max_steps_and_never_without(tmp_path):
    est = tf.estimator.Estimator(signed_model_fn, model_dir=str(tmp_path / "a"),
                                 config=config(save_checkpoints_steps=5), params={"direction": 1.0})
    _, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=10),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0,
                              exporters=tf.estimator.FinalExporter("final", RECEIVER)))
    assert exports[0] is not None and len(export_dirs(str(tmp_path / "a"), "final")) == 1
    # max_steps None: training ends with the input; the final exporter never exports.
    est = tf.estimator.Estimator(signed_model_fn, model_dir=str(tmp_path / "b"),
                                 config=config(save_checkpoints_steps=5), params={"direction": 1.0})
    result, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(7)),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0,
                              exporters=tf.estimator.FinalExporter("final", RECEIVER)))
    assert int(result["global_step"]) == 7 and exports == [None]
    assert export_dirs(str(tmp_path / "b"), "final") == []


def test_latest_exporter_garbage_collects_and_none_keeps_all(tmp_path):
    for keep, expected in ((1, 1), (None, 3)):
        model_dir = tmp_path / f"keep{keep}"
        est = tf.estimator.Estimator(signed_model_fn, model_dir=str(model_dir),
                                     config=config(save_checkpoints_steps=5), params={"direction": 1.0})
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn(), max_steps=15),
            tf.estimator.EvalSpec(input_fn(1), throttle_secs=0, exporters=tf.estimator.LatestExporter(
                "latest", RECEIVER, exports_to_keep=keep)))
        assert len(export_dirs(str(model_dir), "latest")) == expected


def test_exporter_argument_checks():
    with pytest.raises(ValueError, match="`exports_to_keep`, if provided, must be a positive number. Got 0"):
        tf.estimator.LatestExporter("a", RECEIVER, exports_to_keep=0)
    with pytest.raises(ValueError, match="must be a positive number. Got -1"):
        tf.estimator.BestExporter("b", RECEIVER, exports_to_keep=-1)
    with pytest.raises(ValueError, match="`compare_fn` must not be None"):
        tf.estimator.BestExporter(compare_fn=None)
    with pytest.raises(ValueError, match="must include best_eval_result argument"):
        tf.estimator.BestExporter(compare_fn=lambda a, current_eval_result: True)
    with pytest.raises(ValueError, match="must include current_eval_result argument"):
        tf.estimator.BestExporter(compare_fn=lambda best_eval_result, b: True)
    with pytest.raises(ValueError, match=r"has following not expected args: \['extra'\]"):
        tf.estimator.BestExporter(
            compare_fn=lambda best_eval_result, current_eval_result, extra=1: True)
    exporter = tf.estimator.FinalExporter("f", RECEIVER)
    assert exporter.name == "f" and isinstance(exporter, tf.estimator.Exporter)
    assert tf.estimator.BestExporter().name == "best_exporter"


def test_default_compare_fn_errors():
    from torchestimator.estimator._exporter import _loss_smaller

    assert _loss_smaller({"loss": 2.0}, {"loss": 1.0}) and not _loss_smaller({"loss": 1.0}, {"loss": 1.0})
    with pytest.raises(ValueError, match="best_eval_result cannot be empty or no loss is found in it."):
        _loss_smaller({}, {"loss": 1.0})
    with pytest.raises(ValueError, match="current_eval_result cannot be empty or no loss is found"):
        _loss_smaller({"loss": 1.0}, {"accuracy": 1.0})


def test_exporter_without_a_receiver_names_it(tmp_path):
    est = tf.estimator.Estimator(signed_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=5), params={"direction": 1.0})
    with pytest.raises(ValueError, match="Exporter 'best_exporter' has no serving_input_receiver_fn"):
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn(), max_steps=5),
            tf.estimator.EvalSpec(input_fn(1), throttle_secs=0, exporters=tf.estimator.BestExporter()))

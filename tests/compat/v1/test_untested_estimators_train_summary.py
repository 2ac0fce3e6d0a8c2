"""`tf.compat.v1` estimators, optimizers' configs, train/saver/monitored sessions, variable
scopes, mixed precision loss scales and summaries that no other test called: each is used as
a TF 1.x program would, and its result checked (values, TF1's defaults, returned keys)."""

from __future__ import annotations

import glob
import io
import os
import wave

import numpy as np
import pytest
import torch
from tensorboard.util import tensor_util

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

v1 = tf.compat.v1
E = v1.estimator
X = np.linspace(-1, 1, 8).astype(np.float32)
Y = (2 * X + 1).astype(np.float32)
COLUMNS = [tf.feature_column.numeric_column("x")]
REGRESSOR_EVAL = {"average_loss", "label/mean", "loss", "prediction/mean", "global_step"}


def _input_fn(labels=Y):
    return lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, labels)).batch(4)


def _predict_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X}).batch(4)


def _train_and_check(est, eval_keys, predict_keys, labels=Y):
    est.train(_input_fn(labels), steps=2)
    result = est.evaluate(_input_fn(labels), steps=1)
    assert set(result) == eval_keys
    assert result["global_step"] == 2
    predictions = list(est.predict(_predict_fn))
    assert len(predictions) == 8 and set(predictions[0]) == predict_keys
    return result, predictions


def _rates(est):
    return {type(o).__name__: o.learning_rate for o in est._state.optimizers()}


# ------------------------------------------------------------------------------ estimators
def test_baseline_classifier_v1(tmp_path):
    labels = (X > 0).astype(np.int64)
    est = E.BaselineClassifier(model_dir=str(tmp_path), n_classes=2)
    result, predictions = _train_and_check(
        est, {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss", "label/mean",
              "loss", "precision", "prediction/mean", "recall", "global_step"},
        {"logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"}, labels)
    assert _rates(est) == pytest.approx({"FtrlOptimizer": 0.3})
    assert result["loss"] == pytest.approx(4 * result["average_loss"], rel=1e-4)  # TF1's SUM reduction
    # the baseline predicts the same class prior for every example
    assert len({tuple(p["probabilities"]) for p in predictions}) == 1


def test_linear_regressor_and_estimator_v1(tmp_path):
    est = E.LinearRegressor(COLUMNS, model_dir=str(tmp_path / "r"), partitioner=None)
    result, _ = _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert _rates(est) == pytest.approx({"FtrlOptimizer": 0.2})
    assert result["loss"] == pytest.approx(4 * result["average_loss"], rel=1e-4)
    est = E.LinearEstimator(tf.estimator.RegressionHead(), COLUMNS, model_dir=str(tmp_path / "e"),
                            optimizer="SGD", partitioner=None)
    _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert type(est._state.optimizers()[0]) is v1.train.GradientDescentOptimizer


def test_dnn_regressor_and_estimator_v1(tmp_path):
    est = E.DNNRegressor([3], COLUMNS, model_dir=str(tmp_path / "r"), input_layer_partitioner=None)
    result, _ = _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert _rates(est) == pytest.approx({"AdagradOptimizer": 0.05})
    assert result["loss"] == pytest.approx(4 * result["average_loss"], rel=1e-4)
    est = E.DNNEstimator(tf.estimator.RegressionHead(), [3], COLUMNS, model_dir=str(tmp_path / "e"))
    _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert _rates(est) == pytest.approx({"AdagradOptimizer": 0.05})


def test_dnn_linear_combined_regressor_and_estimator_v1(tmp_path):
    est = E.DNNLinearCombinedRegressor(model_dir=str(tmp_path / "r"), linear_feature_columns=COLUMNS,
                                       dnn_feature_columns=COLUMNS, dnn_hidden_units=[3])
    result, _ = _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert _rates(est) == pytest.approx({"AdagradOptimizer": 0.001, "FtrlOptimizer": 0.005})
    assert result["loss"] == pytest.approx(4 * result["average_loss"], rel=1e-4)
    est = E.DNNLinearCombinedEstimator(tf.estimator.RegressionHead(), model_dir=str(tmp_path / "e"),
                                       linear_feature_columns=COLUMNS, dnn_feature_columns=COLUMNS,
                                       dnn_hidden_units=[3], input_layer_partitioner=None)
    _train_and_check(est, REGRESSOR_EVAL, {"predictions"})
    assert _rates(est) == pytest.approx({"AdagradOptimizer": 0.001, "FtrlOptimizer": 0.005})


# ------------------------------------------------------------------------------ optimizers
OPTIMIZERS = [
    ("AdadeltaOptimizer", dict(learning_rate=0.5, rho=0.8, epsilon=1e-6, name="ada")),
    ("AdamOptimizer", dict(learning_rate=0.01, beta1=0.8, beta2=0.99, epsilon=1e-7, name="adam")),
    ("MomentumOptimizer", dict(learning_rate=0.1, momentum=0.7, use_nesterov=True, name="mom")),
    ("ProximalAdagradOptimizer", dict(learning_rate=0.2, initial_accumulator_value=0.3,
                                      l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                                      name="pa")),
    ("ProximalGradientDescentOptimizer", dict(learning_rate=0.2, l1_regularization_strength=0.01,
                                              l2_regularization_strength=0.02, name="pgd")),
    ("RMSPropOptimizer", dict(learning_rate=0.1, decay=0.8, momentum=0.5, epsilon=1e-6, centered=True,
                              name="rms")),
]


@pytest.mark.parametrize("cls_name,kwargs", OPTIMIZERS, ids=[c for c, _ in OPTIMIZERS])
def test_v1_optimizer_get_config_round_trips(cls_name, kwargs):
    cls = getattr(v1.train, cls_name)
    opt = cls(**kwargs)
    config = opt.get_config()
    assert config == pytest.approx(kwargs)
    assert opt.get_name() == kwargs["name"]
    again = cls(**config)
    w1, w2 = tf.Variable([1.0, -2.0]), tf.Variable([1.0, -2.0])
    for opt_, w in ((opt, w1), (again, w2)):
        for _ in range(2):
            opt_.minimize(lambda w=w: tf.reduce_sum(w * w * tf.constant([1.0, 3.0])), var_list=[w])
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-6)
    assert not np.allclose(w1.numpy(), [1.0, -2.0])


def test_adagrad_da_get_config():
    gs = tf.Variable(0, dtype=tf.int64)
    opt = v1.train.AdagradDAOptimizer(0.3, gs, initial_gradient_squared_accumulator_value=0.2,
                                      l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                                      name="da")
    assert opt.get_config() == pytest.approx({
        "learning_rate": 0.3, "initial_gradient_squared_accumulator_value": 0.2,
        "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02, "name": "da"})
    assert opt.get_name() == "da"
    again = v1.train.AdagradDAOptimizer(global_step=gs, **opt.get_config())
    assert again.get_config() == opt.get_config()


class _PlainSGD(v1.train.Optimizer):
    def __init__(self, learning_rate, use_locking=False, name="PlainSGD"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self.get_name())

    def _prepare(self):
        self._beta = self._create_non_slot_variable(0.9, "beta_power")

    def _resource_apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        m.assign(0.5 * m + grad)
        return var.assign_sub(self._lr * m)


def test_optimizer_subclass_variables_and_config():
    opt = _PlainSGD(0.1)
    assert opt.get_config() == {"name": "PlainSGD"} and opt.variables() == []
    w = tf.Variable([1.0, 2.0])
    opt.minimize(lambda: tf.reduce_sum(w * w), var_list=[w])
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    variables = opt.variables()
    assert len(variables) == 2
    assert any(v is opt.get_slot(w, "m") for v in variables)
    np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), [2.0, 4.0])
    assert any(float(np.asarray(v.numpy()).reshape(-1)[0]) == pytest.approx(0.9) for v in variables)


# ------------------------------------------------------------------------------ mixed precision
def test_loss_scales_from_config_and_properties():
    e = v1.train.experimental
    dyn = e.DynamicLossScale(initial_loss_scale=8.0, increment_period=3, multiplier=4.0)
    assert (dyn.initial_loss_scale, dyn.increment_period, dyn.multiplier) == (8.0, 3, 4.0)
    again = e.DynamicLossScale.from_config(dyn.get_config())
    assert (again.initial_loss_scale, again.increment_period, again.multiplier) == (8.0, 3, 4.0)
    again.update([tf.constant([float("inf")])])
    assert float(again()) == 2.0  # 8 / 4 after a non-finite step
    fixed = e.FixedLossScale(16)
    assert fixed.get_config() == {"loss_scale_value": 16.0}
    assert float(e.FixedLossScale.from_config(fixed.get_config())()) == 16.0
    assert v1.mixed_precision.FixedLossScale is e.FixedLossScale


def test_mixed_precision_optimizer_delegates_slots_variables_and_name():
    inner = v1.train.MomentumOptimizer(0.1, momentum=0.9, name="Mom")
    opt = v1.train.experimental.MixedPrecisionLossScaleOptimizer(inner, 4.0)
    assert opt.get_name() == "Mom"  # TF's wrapper takes the wrapped optimizer's name
    w = tf.Variable([1.0, 2.0])
    opt.minimize(lambda: tf.reduce_sum(w * w), var_list=[w])
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)  # gradient unscaled
    assert opt.get_slot_names() == inner.get_slot_names() == ["momentum"]
    slot = opt.get_slot(w, "momentum")
    assert slot is inner.get_slot(w, "momentum")
    np.testing.assert_allclose(slot.numpy(), [2.0, 4.0], rtol=1e-6)
    got, want = opt.variables(), inner.variables()  # the wrapped optimizer's (iterations, slots)
    assert len(got) == len(want) == 2 and any(v is slot for v in got)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# ------------------------------------------------------------------------------ sessions and savers
def test_session_creators_and_singular_monitored_session(tmp_path):
    with pytest.raises(NotImplementedError):
        v1.train.SessionCreator().create_session()
    v1.reset_default_graph()
    try:
        creator = v1.train.WorkerSessionCreator(scaffold=None, master="", config=None, max_wait_secs=5)
        assert isinstance(creator, v1.train.SessionCreator)
        session = creator.create_session()
        assert session is not None
        with v1.train.SingularMonitoredSession(checkpoint_dir=str(tmp_path)) as sess:
            raw = sess.raw_session()
            assert raw is sess._sess
            step = sess.run(lambda: {"x": tf.constant([1.0, 2.0])})["x"]  # a hooked step advances the step
            np.testing.assert_array_equal(step, [1.0, 2.0])
            before = raw.global_step
            assert raw.run(tf.constant(3.0)) == pytest.approx(3.0)  # a raw run: no hooks, no step
            assert raw.run({"a": lambda: tf.constant([4])})["a"].tolist() == [4]
            assert raw.run(lambda y: y * 2, feed_dict={"y": tf.constant(5.0)}) == pytest.approx(10.0)
            assert raw.global_step == before == 1
    finally:
        v1.reset_default_graph()


def test_saver_recovers_and_sets_last_checkpoints(tmp_path):
    var = tf.Variable(1.0, name="rv")
    first = v1.train.Saver([var], max_to_keep=2)
    paths = [first.save(None, str(tmp_path / "m"), global_step=step) for step in (1, 2)]
    assert first.last_checkpoints == paths
    restarted = v1.train.Saver([var], max_to_keep=2)
    assert restarted.last_checkpoints == []
    restarted.recover_last_checkpoints(paths + [str(tmp_path / "missing-9")])
    assert restarted.last_checkpoints == paths
    third = restarted.save(None, str(tmp_path / "m"), global_step=3)
    assert restarted.last_checkpoints == [paths[1], third]
    assert not glob.glob(paths[0] + ".*")  # the oldest recovered one is deleted
    other = v1.train.Saver([var], max_to_keep=5)
    other.set_last_checkpoints_with_time([(paths[1], 1.0), (third, 2.0)])
    assert other.last_checkpoints == [paths[1], third]


# ------------------------------------------------------------------------------ variable scopes
def test_variable_scope_setters_and_queries():
    v1.reset_default_graph()
    try:
        with v1.variable_scope("outer") as scope:
            scope.set_initializer(tf.constant_initializer(3.0))
            scope.set_regularizer(lambda w: tf.reduce_sum(w) * 0.5)
            scope.set_dtype(tf.float64)
            scope.set_caching_device("/cpu:0")
            scope.set_partitioner(None)
            scope.set_use_resource(True)
            assert scope.dtype == tf.float64 and scope.use_resource is True
            assert scope.caching_device == "/cpu:0" and scope.partitioner is None
            a = v1.get_variable("a", [2])
            assert a.dtype == tf.float64
            np.testing.assert_array_equal(a.numpy(), [3.0, 3.0])
            losses = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
            assert len(losses) == 1 and float(losses[0].detach()) == pytest.approx(3.0)
            seen = []

            def getter(getter_fn, name, *args, **kwargs):
                seen.append(name)
                return getter_fn(name, *args, **kwargs)
            scope.set_custom_getter(getter)
            assert scope.custom_getter is getter
            v1.get_variable("b", [1], trainable=False)
            assert seen == ["outer/b"]
        c = scope.get_variable(None, "c", [1], initializer=tf.zeros_initializer(), dtype=tf.float32)
        assert c.name.split(":")[0] == "outer/c" and seen == ["outer/b", "outer/c"]
        v1.get_variable("elsewhere", [1])
        assert [v.name.split(":")[0] for v in scope.global_variables()] == ["outer/a", "outer/b", "outer/c"]
        assert [v.name.split(":")[0] for v in scope.trainable_variables()] == ["outer/a", "outer/c"]
        with v1.variable_scope(scope, reuse=True):
            assert v1.get_variable("a") is a
    finally:
        v1.reset_default_graph()


# ------------------------------------------------------------------------------ summaries
def _in_model_fn(fn):
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    with scope:
        result = fn()
    return result, scope.context.summaries


def test_audio_and_tensor_summary_record_in_the_step():
    clips = torch.linspace(-1, 1, 10).reshape(2, 5)
    matrix = torch.arange(6.0).reshape(2, 3)

    def model_fn():
        returned = v1.summary.audio("sound", clips, 8000, max_outputs=1)
        assert returned is clips
        assert v1.summary.tensor_summary("scalar", torch.tensor(2.5)) is not None
        v1.summary.tensor_summary("matrix", matrix, summary_description="m")
        return v1.summary.merge([returned])

    merged, recorded = _in_model_fn(model_fn)
    assert merged._merge_all and type(merged) is type(v1.summary.merge_all())
    audio = recorded["sound"]
    assert audio.kind == "audio" and audio.options["sample_rate"] == 8000 and audio.options["max_outputs"] == 1
    assert tuple(audio.value.shape) == (2, 5, 1)  # [k, t] clips get a channel dimension
    np.testing.assert_allclose(audio.value[..., 0].numpy(), clips.numpy())
    assert float(recorded["scalar"]) == 2.5
    assert recorded["matrix"].kind == "histogram"
    np.testing.assert_array_equal(recorded["matrix"].value.numpy(), matrix.numpy())
    # outside a model_fn, nothing is recorded and the value comes back
    assert v1.summary.tensor_summary("t", matrix) is matrix
    assert v1.summary.all_v2_summary_ops() is None  # TF's answer when executing eagerly


def test_get_summary_description_reads_the_json_attribute():
    node = v1.NodeDef(op="TensorSummary")
    node.attr["description"].s = b'{"type_hint": "audio"}'
    assert v1.summary.get_summary_description(node).type_hint == "audio"
    with pytest.raises(ValueError, match="Can't get_summary_description on ScalarSummary"):
        v1.summary.get_summary_description(v1.NodeDef(op="ScalarSummary"))


def _events(logdir):
    events = []
    for path in sorted(glob.glob(os.path.join(logdir, "*tfevents*"))):
        events.extend(v1.train.summary_iterator(path))
    return events


def test_file_writer_logdir_session_log_run_metadata_flush_reopen(tmp_path):
    logdir = str(tmp_path)
    writer = v1.summary.FileWriter(logdir, filename_suffix=".mine")
    assert writer.get_logdir() == logdir
    writer.add_session_log(v1.SessionLog(status=v1.SessionLog.START), global_step=4)
    writer.add_run_metadata(v1.RunMetadata(), "step_5", global_step=5)
    writer.flush()
    events = _events(logdir)
    logs = [(e.step, e.session_log.status) for e in events if e.HasField("session_log")]
    assert logs == [(4, v1.SessionLog.START)]
    tagged = [(e.step, e.tagged_run_metadata.tag) for e in events if e.HasField("tagged_run_metadata")]
    assert tagged == [(5, "step_5")]
    writer.close()
    writer.reopen()
    writer.add_session_log(v1.SessionLog(status=v1.SessionLog.STOP), global_step=6)
    writer.close()
    files = glob.glob(os.path.join(logdir, "*tfevents*"))
    assert len(files) == 2 and all(f.endswith(".mine") for f in files)  # a new file, same settings
    logs = [(e.step, e.session_log.status) for e in _events(logdir) if e.HasField("session_log")]
    assert sorted(logs) == [(4, v1.SessionLog.START), (6, v1.SessionLog.STOP)]


def test_v1_metrics_in_an_estimator_evaluation(tmp_path):
    labels = (X > 0.1).astype(np.float32)
    weights = np.array([1, 2, 0, 1, 1, 0, 2, 1], np.float32)

    def model_fn(features, labels, mode):
        w = v1.get_variable("w", [], initializer=tf.constant_initializer(1.0))
        probs = torch.sigmoid(features["x"] * w)
        loss = tf.reduce_mean((probs - labels) ** 2)
        if mode == tf.estimator.ModeKeys.EVAL:
            metrics = {"auc": v1.metrics.auc(labels, probs, curve="PR"),
                       "mae": v1.metrics.mean_absolute_error(labels, probs, weights=features["w"])}
            return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
        step = v1.train.get_or_create_global_step()
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step.assign_add(1))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X, "w": weights}, labels)).batch(4), steps=1)
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X, "w": weights}, labels)).batch(3))
    probs = 1 / (1 + np.exp(-X))
    assert result["mae"] == pytest.approx((weights * np.abs(probs - labels)).sum() / weights.sum(), rel=1e-5)
    # TF1's PR trapezoid over every batch: the same as one call on all the data
    _, want = v1.metrics.auc(labels, probs.astype(np.float32), curve="PR")
    assert result["auc"] == pytest.approx(float(want), rel=1e-5)


def test_audio_and_tensor_summaries_reach_the_event_file(tmp_path):
    def model_fn(features, labels, mode):
        w = v1.get_variable("w", [], initializer=tf.constant_initializer(1.0))
        loss = tf.reduce_mean((features["x"] * w - labels) ** 2)
        v1.summary.audio("sound", torch.linspace(-1, 1, 10).reshape(2, 5), 8000, max_outputs=1)
        v1.summary.tensor_summary("scalar", torch.tensor(2.5))
        step = v1.train.get_or_create_global_step()
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step.assign_add(1))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(save_summary_steps=1))
    est.train(_input_fn(), steps=1)
    values = {v.tag: v for e in _events(str(tmp_path)) for v in e.summary.value}
    assert values["scalar"].simple_value == pytest.approx(2.5)
    clips = tensor_util.make_ndarray(values["sound"].tensor)
    assert clips.shape == (1, 2)  # max_outputs=1: one (wav, label) pair
    with wave.open(io.BytesIO(clips[0][0])) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getnframes()) == (8000, 1, 5)
        samples = np.frombuffer(wav.readframes(5), dtype=np.int16) / 32767.0
    np.testing.assert_allclose(samples, np.linspace(-1, 1, 10)[:5], atol=1e-3)

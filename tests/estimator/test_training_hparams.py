"""An Estimator's params in TensorBoard's HParams dashboard: two runs with different HParams under
one log directory, read back with TensorBoard's own multiplexer, data provider and HParams
plugin handlers (what the dashboard's /experiment and /session_groups routes return)."""

from __future__ import annotations

import os

import pytest
import torch
from _estimator_testlib import config, input_fn, single_thread
from google.protobuf import json_format

import torchestimator as tf
from torchestimator.estimator._hparams_summary import hparams_values


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def model_fn(features, labels, mode, params):
    logits = tf.keras.layers.Dense(1, name="logits")(features["x"])
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    if mode == tf.estimator.ModeKeys.EVAL:
        metrics = {"mse": tf.compat.v1.metrics.mean_squared_error(labels, torch.sigmoid(logits))}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    learning_rate = params.learning_rate if hasattr(params, "learning_rate") else params["learning_rate"]
    train_op = tf.compat.v1.train.GradientDescentOptimizer(learning_rate).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def hparams_plugin(logdir):
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider
    from tensorboard.backend.event_processing import plugin_event_multiplexer as event_multiplexer
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.hparams import hparams_plugin as plugin_lib

    multiplexer = event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    tb_context = base_plugin.TBContext(logdir=logdir, multiplexer=multiplexer, data_provider=provider)
    return context.RequestContext(), plugin_lib.HParamsPlugin(tb_context)._context


def test_runs_with_different_hparams_compare_in_the_hparams_dashboard(tmp_path):
    from tensorboard.plugins.hparams import api_pb2, get_experiment, list_session_groups

    logdir = str(tmp_path)
    finals = {}
    for lr in (0.01, 0.5):
        params = tf.training.HParams(learning_rate=lr, layers=[4, 2], optimizer="sgd")
        est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(logdir, f"lr{lr}"), params=params,
                                     config=config(save_checkpoints_steps=10))
        finals[lr], _ = tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn(), max_steps=20),
            tf.estimator.EvalSpec(input_fn(2), throttle_secs=0))
        # A resumed run does not write its params again.
        est.train(input_fn(), steps=1)

    request_context, plugin_context = hparams_plugin(logdir)
    experiment = get_experiment.Handler(request_context, plugin_context, "",
                                        api_pb2.GetExperimentRequest()).run()
    infos = {h.name: h for h in experiment.hparam_infos}
    assert set(infos) == {"learning_rate", "layers", "optimizer"}
    assert infos["learning_rate"].type == api_pb2.DATA_TYPE_FLOAT64 and infos["learning_rate"].differs
    assert [v.string_value for v in infos["layers"].domain_discrete.values] == ["[4, 2]"]
    metric_names = {(m.name.group, m.name.tag) for m in experiment.metric_infos}
    assert {("eval", "loss"), ("eval", "mse")} <= metric_names

    request = json_format.Parse("""{"startIndex": 0, "sliceSize": 10,
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": [{"hparam": "learning_rate", "order": "ORDER_ASC", "includeInResult": true},
                      {"metric": {"group": "eval", "tag": "loss"}, "includeInResult": true}]}""",
                                api_pb2.ListSessionGroupsRequest())
    groups = list_session_groups.Handler(request_context, plugin_context, "", request).run()
    assert groups.total_size == 2
    by_lr = {}
    for group in groups.session_groups:
        assert [s.name for s in group.sessions] == [f"lr{group.hparams['learning_rate'].number_value}"]
        values = {(m.name.group, m.name.tag): (m.value, m.training_step) for m in group.metric_values}
        by_lr[group.hparams["learning_rate"].number_value] = values
    for lr, result in finals.items():
        assert by_lr[lr][("eval", "loss")] == (pytest.approx(float(result["loss"]), rel=1e-6), 20)
        assert by_lr[lr][("eval", "mse")][0] == pytest.approx(float(result["mse"]), rel=1e-6)
    assert by_lr[0.5][("eval", "loss")][0] < by_lr[0.01][("eval", "loss")][0]
    # One session start per run, though each run trained twice.
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
    from tensorboard.plugins.hparams import metadata

    for lr in finals:
        run = os.path.join(logdir, f"lr{lr}")
        starts = [e for name in os.listdir(run) if name.startswith("events.out.tfevents")
                  for e in LegacyEventFileLoader(os.path.join(run, name)).Load()
                  if e.HasField("summary") and any(v.tag == metadata.SESSION_START_INFO_TAG
                                                   for v in e.summary.value)]
        assert len(starts) == 1


def test_plain_dict_params_and_their_conversion(tmp_path):
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "run"), config=config(),
                                 params={"learning_rate": 0.1, "net": {"units": [3], "act": "relu"}})
    est.train(input_fn(), steps=2)
    request_context, plugin_context = hparams_plugin(str(tmp_path))
    from tensorboard.plugins.hparams import api_pb2, get_experiment

    experiment = get_experiment.Handler(request_context, plugin_context, "",
                                        api_pb2.GetExperimentRequest()).run()
    assert {h.name for h in experiment.hparam_infos} == {"learning_rate", "net.units", "net.act"}
    assert hparams_values({"a": True, "b": 2, "c": [1, 2], "d": None}) == {
        "a": True, "b": 2, "c": "[1, 2]", "d": "null"}
    assert hparams_values(None) == {} and hparams_values(tf.training.HParams()) == {}


def test_no_params_no_hparams_summary(tmp_path):
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

    def plain_model_fn(features, labels, mode):
        return model_fn(features, labels, mode, {"learning_rate": 0.1})

    est = tf.estimator.Estimator(plain_model_fn, model_dir=str(tmp_path), config=config())
    est.train(input_fn(), steps=1)
    tags = {v.tag for name in os.listdir(str(tmp_path)) if name.startswith("events.out")
            for e in LegacyEventFileLoader(os.path.join(str(tmp_path), name)).Load()
            if e.HasField("summary") for v in e.summary.value}
    assert not any(tag.startswith("_hparams_") for tag in tags)

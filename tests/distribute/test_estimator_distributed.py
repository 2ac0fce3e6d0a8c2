"""Estimator under MultiWorkerMirroredStrategy: real processes over gloo on loopback.

Each run starts 2 processes (from torchrun's variables or from TF_CONFIG); a
non-chief process refuses every write under model_dir (an audit hook in
`_dist_worker.py`), so a worker that writes a checkpoint or summary fails the run.
"""

from __future__ import annotations

import numpy as np
import pytest
from _dist_worker import input_fn_plain, input_fn_sharded_by_context, make_estimator
from _distlib import check_ok, free_port, launch, load, tf_config_envs, torchrun_envs

import torchestimator as tf


def _reference(kind: str, model_dir: str, batch: int, more_steps: int):
    """A single process training on the concatenated per-worker batches (the global batch)."""
    config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=100)
    est = make_estimator(kind, model_dir, config)
    est.train(input_fn_plain(batch))
    est.train(input_fn_plain(batch), steps=more_steps)
    return est


def _assert_replicas_identical(weights: list[dict]) -> None:
    assert sorted(weights[0]) == sorted(weights[1])
    for name in weights[0]:
        assert np.array_equal(weights[0][name], weights[1][name]), f"replicas differ in {name}"


@pytest.mark.slow
def test_custom_model_fn_two_workers_from_torchrun_variables(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    check_ok(launch(["custom", str(model_dir), str(out)], torchrun_envs(2, free_port())))
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    _assert_replicas_identical([w0, w1])
    # 64 rows, 32 per worker in batches of 8: 4 synchronous steps, then 2 more.
    assert r0["global_step"] == r1["global_step"] == 6
    assert (r0["is_chief"], r1["is_chief"]) == (True, False)

    reference = _reference("custom", str(tmp_path / "ref"), 16, 2)
    ref = {k: v.detach().numpy() for k, v in reference._state.named_variables().items()}
    assert sorted(ref) == sorted(w0)
    for name in ref:
        np.testing.assert_allclose(w0[name], ref[name], rtol=2e-5, atol=2e-6, err_msg=name)

    # eval_distribute: each worker evaluates half the rows; the reduced metrics equal one process
    # evaluating every row from the chief's checkpoint.
    assert r0["eval"] == r1["eval"]
    single = tf.estimator.Estimator(make_estimator.__globals__["model_fn"], model_dir=str(model_dir))
    expected = single.evaluate(input_fn_plain(8))
    assert r0["eval"]["acc"] == pytest.approx(float(expected["acc"]), abs=0)
    assert r0["eval"]["auc"] == pytest.approx(float(expected["auc"]), rel=1e-6)
    assert r0["eval"]["loss"] == pytest.approx(float(expected["loss"]), rel=1e-5)
    assert r0["eval"]["global_step"] == 6
    # Only the chief wrote (the worker's audit hook refuses writes): checkpoints, and event files of
    # one process (one per train() call).
    assert tf.train.latest_checkpoint(str(model_dir)).endswith("model.ckpt-6")
    events = list(model_dir.glob("events.out.tfevents.*"))
    assert len(events) == 2 and len({e.name.split(".")[4] for e in events}) == 1


@pytest.mark.slow
def test_premade_estimator_two_workers_from_tf_config_auto_sharded(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    check_ok(launch(["premade", str(model_dir), str(out)], tf_config_envs(2, free_port())))
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    _assert_replicas_identical([w0, w1])
    assert r0["global_step"] == 6
    # input_fn without input_context: worker i gets batches i, i+2, ...: step k trains on rows
    # 16k..16k+15, the batch of 16 of one process.
    reference = _reference("premade", str(tmp_path / "ref"), 16, 2)
    ref = {k: v.detach().numpy() for k, v in reference._state.named_variables().items()}
    for name in ref:
        np.testing.assert_allclose(w0[name], ref[name], rtol=2e-5, atol=2e-6, err_msg=name)
    assert r0["eval"] == r1["eval"]


@pytest.mark.slow
@pytest.mark.parametrize("with_strategy", [True, False])
def test_tf_config_with_ps_tasks_trains_synchronously_and_ps_exits(tmp_path, with_strategy):
    # With MultiWorkerMirroredStrategy, or with none (TF's asynchronous parameter-server layout):
    # both train synchronously, and the ps task exits with status 0.
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    envs = tf_config_envs(2, free_port(), ps=1)
    if not with_strategy:
        envs = [dict(env, DIST_TEST_NO_STRATEGY="1") for env in envs]
    results = launch(["custom", str(model_dir), str(out)], envs)
    check_ok(results)
    assert "not needed" in results[2].stderr
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    _assert_replicas_identical([w0, w1])
    assert r0["global_step"] == r1["global_step"] == 6


def test_input_fn_helpers_match_the_worker_script():
    # The reference's plain batches of 16 hold exactly the rows the two workers' batches of 8 hold.
    (feat16, _), = list(input_fn_plain(16)().take(1))
    context = [tf.distribute.InputContext(2, i, 2) for i in range(2)]
    halves = [next(iter(input_fn_sharded_by_context(8)(c)))[0]["x"] for c in context]
    assert sorted(map(tuple, np.concatenate(halves).tolist())) == sorted(map(tuple, feat16["x"].tolist()))


@pytest.mark.slow
def test_distributed_evaluate_with_an_empty_shard_fails_on_every_replica(tmp_path):
    import json

    results = launch(["eval_empty", str(tmp_path / "model"), str(tmp_path)], torchrun_envs(2, free_port()))
    check_ok(results)
    errors = [json.loads((tmp_path / f"rank{r}.json").read_text())["error"] for r in (0, 1)]
    assert all("yielded no batch (its shard is empty)" in (e or "") for e in errors), errors

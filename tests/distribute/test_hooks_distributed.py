"""What hooks see under MultiWorkerMirroredStrategy, with real processes over gloo on loopback
(`_hooks_worker.py`): the loss reduced over the replicas, a NaN on one replica stopping all of
them, InMemoryEvaluatorHook, and a finite input used up at a checkpoint step."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from _dist_worker import input_fn_sharded_by_context, model_fn
from _distlib import HERE, check_ok, free_port, launch, load, torchrun_envs
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import torchestimator as tf

HOOKS_WORKER = HERE / "_hooks_worker.py"


def _run(scenario: str, tmp_path, timeout: float = 120, env: dict | None = None) -> list:
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    envs = [dict(e, **(env or {})) for e in torchrun_envs(2, free_port())]
    return launch([scenario, str(model_dir), str(out)], envs, timeout=timeout, script=HOOKS_WORKER)


def _result(tmp_path, rank: int) -> dict:
    return json.loads((tmp_path / "out" / f"rank{rank}.json").read_text())


@pytest.mark.slow
def test_hooks_see_the_loss_averaged_over_the_replicas(tmp_path):
    check_ok(_run("loss_mean", tmp_path))
    r0, r1 = _result(tmp_path, 0), _result(tmp_path, 1)
    own0, own1 = np.array(r0["own"]), np.array(r1["own"])
    assert len(own0) == len(own1) == 4
    assert not np.allclose(own0, own1)  # the shards differ: each replica's own loss differs
    mean = (own0 + own1) / 2
    for r in (r0, r1):  # a hook fetching "loss", or the spec's loss tensor, sees the mean on every replica
        np.testing.assert_allclose(r["fetched"], mean, rtol=1e-6)
        np.testing.assert_allclose(r["by_tensor"], mean, rtol=1e-6)
    # TF's log line, on each replica (LoggingTensorHook is a worker hook), and the final loss.
    for r in (r0, r1):
        logged = [float(re.match(r"loss = ([^,]+), step = (\d+)", line).group(1)) for line in r["logged"]]
        np.testing.assert_allclose(logged, mean, rtol=1e-5)
        assert r["final"] == r0["final"]
        assert float(r["final"][0].split(": ")[1].rstrip(".")) == pytest.approx(mean[-1], rel=1e-6)
    # The chief's loss summary (SummarySaverHook, every step) holds the mean too.
    acc = EventAccumulator(str(tmp_path / "model"))
    acc.Reload()
    summary = sorted((e.step, e.value) for e in acc.Scalars("loss"))
    assert [s for s, _ in summary] == [1, 2, 3, 4]
    np.testing.assert_allclose([v for _, v in summary], mean, rtol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("nan_step", [3, 4])
def test_nan_loss_on_one_replica_stops_every_replica_at_once(tmp_path, nan_step):
    # Step 3 is caught by NanTensorHook on both replicas; step 4 is a checkpoint step, where the
    # chief's saver finds the NaN first (its pre-save check) and the worker's NanTensorHook too.
    results = _run("nan_one", tmp_path, timeout=90, env={"DIST_TEST_NAN_STEP": str(nan_step)})
    assert all(r.returncode == 0 for r in results), [r.stderr[-2000:] for r in results]
    r0, r1 = _result(tmp_path, 0), _result(tmp_path, 1)
    for r in (r0, r1):
        assert r["error"] == "NanLossDuringTrainingError: NaN loss during training.", r
        assert r["secs"] < 30  # both at the same step, not after a collective's timeout
    assert r0["global_step"] == r1["global_step"] == nan_step
    # The chief kept the last good checkpoint: none is written from the diverged model.
    assert r0["latest"].endswith("model.ckpt-2")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["in_memory", "in_memory_together"])
def test_in_memory_evaluator_hook_under_a_strategy(tmp_path, scenario):
    check_ok(_run(scenario, tmp_path))
    (r0, w0), (r1, w1) = load(tmp_path / "out", 0), load(tmp_path / "out", 1)
    assert r0["global_step"] == r1["global_step"] == 4
    # Before training, at steps 2 and 4: the same results on every replica.
    assert r0["results"] == r1["results"]
    assert [int(r["global_step"]) for r in r0["results"]] == [0, 2, 4]
    # The last one equals one process evaluating every row with the final weights; the chief wrote
    # them into eval_mem (a worker's write would have failed its run).
    assert all(np.array_equal(w0[k], w1[k]) for k in w0)
    final = tf.train.latest_checkpoint(str(tmp_path / "model"))
    assert final.endswith("model.ckpt-4")
    single = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "single"))
    expected = single.evaluate(input_fn_sharded_by_context(8), checkpoint_path=final)
    assert r0["results"][-1]["loss"] == pytest.approx(float(expected["loss"]), rel=1e-5)
    assert r0["results"][-1]["acc"] == pytest.approx(float(expected["acc"]), abs=1e-7)
    acc = EventAccumulator(str(tmp_path / "model" / "eval_mem"))
    acc.Reload()
    assert [e.step for e in acc.Scalars("loss")] == [0, 2, 4]


@pytest.mark.slow
def test_finite_input_used_up_at_a_checkpoint_step_is_read_afresh_by_the_next_train(tmp_path):
    check_ok(_run("input_end", tmp_path))
    assert _result(tmp_path, 0)["steps"] == _result(tmp_path, 1)["steps"] == [4, 8]


def test_in_memory_evaluator_refuses_a_cluster_without_strategy_as_tf(monkeypatch, tmp_path):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]},
                                                "task": {"type": "chief", "index": 0}}))
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=tf.estimator.RunConfig())
    with pytest.raises(ValueError, match=r"^InMemoryEvaluator supports only single machine \(aka Local\) setting\.$"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn_sharded_by_context(8))
    # With a strategy the RunConfig counts one worker until training assigns the roles: accepted, as TF.
    config = tf.estimator.RunConfig(train_distribute=tf.distribute.MirroredStrategy())
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn_sharded_by_context(8))

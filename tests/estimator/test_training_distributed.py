"""train_and_evaluate with TF_CONFIG: the evaluator task (waiting for checkpoints, counted with a
fake clock whose sleeps let the chief train), chief and worker roles, role errors, and a real
three-process run (chief, worker, evaluator) on one model_dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from _estimator_testlib import config, input_fn, linear_model_fn, single_thread

import torchestimator as tf
from torchestimator.estimator import _training
from torchestimator.estimator.hooks import read_eval_metrics

CLUSTER = {"chief": ["localhost:2222"], "worker": ["localhost:2223"]}
MAIN = os.path.join(os.path.dirname(__file__), "_training_role_main.py")


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def tf_config(task_type, index=0):
    return json.dumps({"cluster": CLUSTER, "task": {"type": task_type, "index": index}})


class TrainingClock:
    """A fake clock whose sleep lets the chief make `steps` more steps (no real waiting)."""

    def __init__(self, chief=None, steps=5, max_steps=20):
        self.now, self.slept = 0.0, []
        self.chief, self.steps, self.max_steps = chief, steps, max_steps

    def time(self):
        return self.now

    def sleep(self, secs):
        self.slept.append(secs)
        self.now += secs
        if self.chief is not None:
            step = self.chief.latest_checkpoint()
            done = int(step.rsplit("-", 1)[1]) if step else 0
            if done < self.max_steps:
                self.chief.train(input_fn(), max_steps=min(done + self.steps, self.max_steps))


def eval_steps(model_dir):
    return list(read_eval_metrics(os.path.join(model_dir, "eval")))


def test_evaluator_evaluates_each_new_checkpoint_until_max_steps(tmp_path, monkeypatch):
    chief = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                   config=config(save_checkpoints_steps=5))
    clock = TrainingClock(chief, steps=5, max_steps=20)
    monkeypatch.setattr(_training, "_CLOCK", clock)
    monkeypatch.setenv("TF_CONFIG", tf_config("evaluator"))
    evaluator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    assert evaluator.config.task_type == "evaluator" and not evaluator.config.is_chief
    result = tf.estimator.train_and_evaluate(
        evaluator, tf.estimator.TrainSpec(input_fn(), max_steps=20),
        tf.estimator.EvalSpec(input_fn(1), start_delay_secs=30, throttle_secs=10))
    assert result is None  # as TF in distributed mode
    # Waited start_delay_secs; each sleep let the chief checkpoint 5 more steps.
    assert clock.slept[0] == 30
    assert eval_steps(str(tmp_path)) == [5, 10, 15, 20]
    assert all(s == 10 for s in clock.slept[1:])


def test_evaluator_skips_checkpoints_it_already_evaluated(tmp_path, monkeypatch):
    chief = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                   config=config(save_checkpoints_steps=5))
    chief.train(input_fn(), max_steps=10)
    clock = TrainingClock(chief, steps=10, max_steps=20)
    monkeypatch.setattr(_training, "_CLOCK", clock)
    monkeypatch.setenv("TF_CONFIG", tf_config("evaluator"))
    evaluator = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    evaluator_spec = tf.estimator.EvalSpec(input_fn(1), start_delay_secs=0, throttle_secs=0)
    runner = _training._TrainingExecutor(evaluator, tf.estimator.TrainSpec(input_fn(), max_steps=20),
                                         evaluator_spec)
    runner.run_evaluator()
    assert eval_steps(str(tmp_path)) == [10, 20]
    assert clock.slept == [0.05]  # one pause while there was no new checkpoint


def test_chief_trains_and_checkpoints_without_evaluating(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", tf_config("chief"))
    chief = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                   config=config(save_checkpoints_steps=5))
    assert chief.config.is_chief
    assert tf.estimator.train_and_evaluate(
        chief, tf.estimator.TrainSpec(input_fn(), max_steps=10),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0)) is None
    assert os.path.basename(chief.latest_checkpoint()) == "model.ckpt-10"
    assert not os.path.exists(os.path.join(str(tmp_path), "eval"))


def test_worker_waits_then_trains_alone_without_writing_checkpoints(tmp_path, monkeypatch):
    clock = TrainingClock()
    monkeypatch.setattr(_training, "_CLOCK", clock)
    monkeypatch.setenv("TF_CONFIG", tf_config("worker", 0))
    steps = []

    class Count(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            steps.append(run_context.session.global_step)

    worker = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                    config=config(save_checkpoints_steps=5))
    tf.estimator.train_and_evaluate(worker, tf.estimator.TrainSpec(input_fn(), max_steps=7, hooks=[Count()]),
                                    tf.estimator.EvalSpec(input_fn(1)))
    assert clock.slept == [5]  # (task_id + 1) * 5 seconds
    assert steps == [1, 2, 3, 4, 5, 6, 7]
    assert worker.latest_checkpoint() is None  # only the chief writes checkpoints
    monkeypatch.setenv("TF_CONFIG", tf_config("worker", 0))
    capped = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "capped"),
                                    config=config(experimental_max_worker_delay_secs=2))
    tf.estimator.train_and_evaluate(capped, tf.estimator.TrainSpec(input_fn(), max_steps=1),
                                    tf.estimator.EvalSpec(input_fn(1)))
    assert clock.slept == [5, 2]


def test_legacy_master_trains_and_evaluates_in_process(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"master": ["localhost:2222"]},
                                                "task": {"type": "master", "index": 0}}))
    master = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                    config=config(save_checkpoints_steps=5))
    assert master.config.task_type == "master" and master.config.is_chief
    assert tf.estimator.train_and_evaluate(
        master, tf.estimator.TrainSpec(input_fn(), max_steps=10),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0)) is None
    assert eval_steps(str(tmp_path)) == [5, 10]


def test_role_errors(tmp_path, monkeypatch):
    specs = (tf.estimator.TrainSpec(input_fn(), max_steps=1), tf.estimator.EvalSpec(input_fn(1)))
    monkeypatch.setenv("TF_CONFIG", tf_config("evaluator", 1))
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    with pytest.raises(ValueError, match="there can only be one `evaluator` task .*Given task id 1"):
        tf.estimator.train_and_evaluate(est, *specs)


def test_evaluator_task_with_a_distribution_strategy(tmp_path, monkeypatch):
    """With RunConfig(train_distribute=...) and a cluster (TF's distribute-coordinator mode) the
    role still comes from TF_CONFIG's task: the evaluator evaluates."""
    strategy_class = getattr(tf.distribute, "MirroredStrategy", None)
    if strategy_class is None:
        pytest.skip("tf.distribute.MirroredStrategy is not there yet")
    chief = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                   config=config(save_checkpoints_steps=5))
    chief.train(input_fn(), max_steps=10)
    monkeypatch.setenv("TF_CONFIG", tf_config("evaluator"))
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(train_distribute=strategy_class()))
    assert tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=10),
        tf.estimator.EvalSpec(input_fn(1), start_delay_secs=0, throttle_secs=0)) is None
    assert eval_steps(str(tmp_path)) == [10]


@pytest.mark.slow
def test_three_processes_chief_worker_evaluator(tmp_path):
    """Real processes on one machine: the evaluator's last result is the chief's last checkpoint."""
    env_base = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.dirname(__file__))), os.environ.get("PYTHONPATH", "")])}
    procs = {}
    for role in ("evaluator", "chief", "worker"):
        env = {**env_base, "TF_CONFIG": tf_config(role)}
        procs[role] = subprocess.Popen([sys.executable, MAIN, str(tmp_path), "40"], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outputs = {}
    for role, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{role} failed:\n{err[-3000:]}"
        outputs[role] = json.loads(out.strip().splitlines()[-1])
    assert outputs["chief"]["result"] is None and outputs["worker"]["result"] is None
    assert outputs["chief"]["evaluated"] == [] and outputs["worker"]["evaluated"] == []
    evaluated = outputs["evaluator"]["evaluated"]
    assert evaluated and evaluated[-1] == 40 and evaluated == sorted(set(evaluated))
    assert set(evaluated) <= {0, 10, 20, 30, 40}
    assert eval_steps(str(tmp_path)) == evaluated
    assert os.path.basename(tf.train.latest_checkpoint(str(tmp_path))) == "model.ckpt-40"


def test_ps_task_logs_that_it_is_not_needed_and_exits_zero(tmp_path, monkeypatch):
    cluster = dict(CLUSTER, ps=["localhost:2224"])
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": {"type": "ps", "index": 0}}))
    ps = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    with pytest.raises(SystemExit) as exit_info:
        tf.estimator.train_and_evaluate(ps, tf.estimator.TrainSpec(input_fn(), max_steps=10),
                                        tf.estimator.EvalSpec(input_fn(1)))
    assert exit_info.value.code == 0
    assert ps.latest_checkpoint() is None

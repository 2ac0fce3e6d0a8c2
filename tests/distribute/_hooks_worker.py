"""One process of a distributed hooks test (started by `_distlib.launch(..., script=HOOKS_WORKER)`).

    python _hooks_worker.py SCENARIO MODEL_DIR OUT_DIR

Scenarios (each writes `OUT_DIR/rank<R>.json`; a non-chief replica refuses every write
under MODEL_DIR, as in `_dist_worker.py`):

* `loss_mean`: 2 replicas train on different shards; records, per step, the replica's own
  loss, the loss hooks fetch (`"loss"`, and the spec's loss tensor itself) and the
  `loss = ..., step = ...` log lines.
* `nan_one`: only replica 1's loss turns NaN at step `$DIST_TEST_NAN_STEP` (3); records the
  error each replica raised and how long training took.
* `in_memory` / `in_memory_together`: `InMemoryEvaluatorHook` every 2 steps (the chief
  evaluates alone / every replica evaluates its shard under `eval_distribute`).
* `input_end`: a finite input of 4 steps per replica with `save_checkpoints_steps=2`, trained
  twice: the second `train()` reads the input afresh.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time

import numpy as np
from _dist_worker import data, forbid_writes_under, input_fn_sharded_by_context, model_fn

import torchestimator as tf


class _Lines(logging.Handler):
    """Collects the messages of the `torchestimator` logger."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


class _RecordLoss(tf.estimator.SessionRunHook):
    """Records, after each step, the replica's own loss and what a hook fetching the loss sees."""

    def __init__(self) -> None:
        self.own: list[float] = []
        self.fetched: list[float] = []
        self.by_tensor: list[float] = []

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs("loss")

    def after_run(self, run_context, run_values):
        session = run_context.session
        self.own.append(float(session.spec.loss.detach()))
        self.fetched.append(float(run_values.results))
        self.by_tensor.append(float(session.run(session.spec.loss)))


def _config(rank: int, **kwargs) -> tf.estimator.RunConfig:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    kwargs.setdefault("save_checkpoints_steps", 100)
    return tf.estimator.RunConfig(train_distribute=strategy, tf_random_seed=rank + 1, **kwargs)


def run_loss_mean(model_dir: str, rank: int) -> dict:
    lines = _Lines()
    logging.getLogger("torchestimator").addHandler(lines)
    logging.getLogger("torchestimator").setLevel(logging.INFO)
    config = _config(rank, log_step_count_steps=1, save_summary_steps=1)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    if rank != 0:
        forbid_writes_under(model_dir)
    record = _RecordLoss()
    est.train(input_fn_sharded_by_context(8), hooks=[record])
    return {"own": record.own, "fetched": record.fetched, "by_tensor": record.by_tensor,
            "logged": [line for line in lines.lines if line.startswith("loss = ")],
            "final": [line for line in lines.lines if line.startswith("Loss for final step")]}


def run_nan_one(model_dir: str, rank: int) -> dict:
    calls = [0]
    nan_step = int(os.environ.get("DIST_TEST_NAN_STEP", "3"))

    def nan_model_fn(features, labels, mode):
        spec = model_fn(features, labels, mode)
        if mode != tf.estimator.ModeKeys.TRAIN:
            return spec
        calls[0] += 1
        # model_fn's first call builds the model (before step 1): step k is call k + 1
        loss = spec.loss * float("nan") if rank == 1 and calls[0] >= nan_step + 1 else spec.loss
        optimizer = tf.keras.optimizers.SGD(0.1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss))

    est = tf.estimator.Estimator(nan_model_fn, model_dir=model_dir, config=_config(rank, save_checkpoints_steps=2))
    if rank != 0:
        forbid_writes_under(model_dir)
    x, y = data()

    def input_fn(input_context):
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).shard(
            input_context.num_input_pipelines, input_context.input_pipeline_id).batch(8).repeat()

    start = time.monotonic()
    error = None
    try:
        est.train(input_fn, max_steps=50)
    except Exception as e:  # the test reads which error each replica raised
        error = f"{type(e).__name__}: {e}"
    return {"error": error, "secs": time.monotonic() - start, "global_step": int(est._state.global_step),
            "latest": tf.train.latest_checkpoint(model_dir)}


def run_in_memory(model_dir: str, out_dir: str, rank: int, together: bool) -> dict:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy if together else None,
                                    tf_random_seed=rank + 1, save_checkpoints_steps=100)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    if rank != 0:
        forbid_writes_under(model_dir)
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn_sharded_by_context(8), every_n_iter=2,
                                                           name="mem")
    results: list[dict] = []

    class Collect(tf.estimator.SessionRunHook):  # after the evaluator hook: sees each new result
        def after_run(self, run_context, run_values):
            if hook.eval_result is not None and (not results or results[-1] != _plain(hook.eval_result)):
                results.append(_plain(hook.eval_result))

    est.train(input_fn_sharded_by_context(8), hooks=[hook, Collect()])
    if results[-1] != _plain(hook.eval_result):  # the evaluation of end(), when after the last step's
        results.append(_plain(hook.eval_result))
    weights = {k: v.detach().cpu().numpy() for k, v in est._state.named_variables().items()}
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **weights)
    return {"results": results, "global_step": int(est._state.global_step)}


def _plain(result: dict) -> dict:
    return {k: float(v) for k, v in result.items()}


def run_input_end(model_dir: str, rank: int) -> dict:
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=_config(rank, save_checkpoints_steps=2))
    if rank != 0:
        forbid_writes_under(model_dir)
    steps = []
    for _ in range(2):
        est.train(input_fn_sharded_by_context(8))  # 32 rows per replica: 4 steps
        steps.append(int(est._state.global_step))
    return {"steps": steps}


def main() -> None:
    """Runs the scenario named on the command line."""
    scenario, model_dir, out_dir = sys.argv[1:4]
    rank = int(os.environ["RANK"])
    if scenario == "loss_mean":
        result = run_loss_mean(model_dir, rank)
    elif scenario == "nan_one":
        result = run_nan_one(model_dir, rank)
    elif scenario in ("in_memory", "in_memory_together"):
        result = run_in_memory(model_dir, out_dir, rank, scenario == "in_memory_together")
    elif scenario == "input_end":
        result = run_input_end(model_dir, rank)
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

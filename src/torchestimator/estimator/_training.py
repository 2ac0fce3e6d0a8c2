"""`tf.estimator.train_and_evaluate` with its `TrainSpec` and `EvalSpec`, as TF 2.15.

Locally (no `cluster` in `TF_CONFIG`) `train_and_evaluate` calls `train` once
with a saving listener that evaluates each new checkpoint (the first one,
written before any step, is skipped) no more often than
`EvalSpec.throttle_secs`, runs the exporters after every evaluation, and
evaluates the final checkpoint when training ends. With a `TF_CONFIG`
cluster each process takes its role: `chief` and `worker` train (only the
chief writes checkpoints; without a distribution strategy each worker trains
alone), and the `evaluator` task evaluates every new checkpoint as it
appears until the evaluated global step reaches `TrainSpec.max_steps`.

Time is read through `_CLOCK` (`time()` and `sleep()`), which tests replace
with a fake clock to count throttled evaluations without sleeping.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from torchestimator.distribute._data_parallel import leave_if_ps_task
from torchestimator.estimator._exporter import Exporter
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.hooks.basic_hooks import CheckpointSaverListener
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook

logger = logging.getLogger("torchestimator")

_MAX_DELAY_SECS = 60
_DELAY_SECS_PER_WORKER = 5
_WARNING_INTERVAL_SECS = 600


class _SystemClock:
    """The wall clock: `time()` and `sleep(secs)`."""

    def time(self) -> float:
        """Seconds since the epoch."""
        return time.time()

    def sleep(self, secs: float) -> None:
        """Waits `secs` seconds."""
        time.sleep(secs)


#: The clock train_and_evaluate throttles and waits with (tests put a fake one here).
_CLOCK: Any = _SystemClock()


# ---------------------------------------------------------------------------------- specs
def _validate_input_fn(input_fn: Any) -> None:
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks: Any) -> tuple:
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be `SessionRunHook` instances, given: {hook}")
    return hooks


def _validate_saving_listeners(saving_listeners: Any) -> tuple:
    saving_listeners = tuple(saving_listeners or [])
    for listener in saving_listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError(
                f"All saving_listeners must be `CheckpointSaverListener` instances, given: {listener}"
            )
    return saving_listeners


def _validate_exporters(exporters: Any) -> tuple:
    """`exporters` as a tuple of Exporters with unique, non-empty string names."""
    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    unique_names: list[str] = []
    try:
        exporters = list(exporters)
        for exporter in exporters:
            if not isinstance(exporter, Exporter):
                raise TypeError
            if not exporter.name:
                raise ValueError(
                    "An Exporter cannot have a name that is `None` or empty. All exporter names: "
                    f"{[e.name for e in exporters]}"
                )
            if not isinstance(exporter.name, str):
                raise ValueError(f"An Exporter must have a string name. Given: {type(exporter.name)}")
            if exporter.name in unique_names:
                raise ValueError(
                    "`exporters` must have unique names. Such a name cannot be `None`. All exporter "
                    f"names: {[e.name for e in exporters]}"
                )
            unique_names.append(exporter.name)
    except TypeError:
        raise TypeError(
            f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, found {exporters}."
        ) from None
    return tuple(exporters)


class TrainSpec(NamedTuple("TrainSpec", [("input_fn", Callable), ("max_steps", Any), ("hooks", tuple),
                                         ("saving_listeners", tuple)])):
    """Configuration for the "train" part of `train_and_evaluate`: the training `input_fn`,
    `max_steps` (the only stop condition; None trains forever), `hooks` run on every worker
    and `saving_listeners` run on the chief.

    Raises TypeError/ValueError naming the argument when one is invalid.
    """

    def __new__(cls, input_fn: Callable, max_steps: int | None = None, hooks: Iterable | None = None,
                saving_listeners: Iterable | None = None) -> TrainSpec:
        _validate_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, _validate_hooks(hooks),
                               _validate_saving_listeners(saving_listeners))


class EvalSpec(NamedTuple("EvalSpec", [("input_fn", Callable), ("steps", Any), ("name", Any),
                                       ("hooks", tuple), ("exporters", tuple),
                                       ("start_delay_secs", float), ("throttle_secs", float)])):
    """Configuration for the "eval" part of `train_and_evaluate`: the evaluation `input_fn`,
    `steps` (100 by default; None runs to the end of the input), the evaluation `name`
    (metrics go to `model_dir/eval_<name>`), `hooks`, the `exporters` run after each
    evaluation, `start_delay_secs` (the evaluator task waits that long before its first
    evaluation) and `throttle_secs` (no evaluation starts sooner than that after the last).

    Raises TypeError/ValueError naming the argument when one is invalid.
    """

    def __new__(cls, input_fn: Callable, steps: int | None = 100, name: str | None = None,
                hooks: Iterable | None = None, exporters: Any = None, start_delay_secs: float = 120,
                throttle_secs: float = 600) -> EvalSpec:
        _validate_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        hooks = _validate_hooks(hooks)
        exporters = _validate_exporters(exporters)
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn, steps, name, hooks, exporters, start_delay_secs,
                               throttle_secs)


def _assert_eval_spec(eval_spec: Any) -> None:
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}")


# ---------------------------------------------------------------------------------- evaluation
class _EvalStatus:
    """What one evaluation attempt found: a new checkpoint (EVALUATED), none yet, or no new one."""

    EVALUATED = "evaluated"
    MISSING_CHECKPOINT = "missing checkpoint"
    NO_NEW_CHECKPOINT = "no new checkpoint"


class _EvalResult(NamedTuple):
    """The status of an evaluation attempt, with the metrics and checkpoint when EVALUATED."""

    status: str
    metrics: dict | None = None
    checkpoint_path: str | None = None


class _Evaluator:
    """Evaluates the latest checkpoint (when it is new) and runs the exporters on the result."""

    def __init__(self, estimator: Any, eval_spec: EvalSpec, max_training_steps: int | None):
        _assert_eval_spec(eval_spec)
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_ckpt_path: str | None = None
        self._last_warning_time = 0.0
        self.is_final_export_triggered = False

    def evaluate_and_export(self) -> tuple[_EvalResult, list]:
        """Evaluates the newest checkpoint if it was not evaluated yet, then exports; returns
        `(_EvalResult, export results)`."""
        latest = self._estimator.latest_checkpoint()
        if not latest:
            self._log_err_msg("Estimator is not trained yet. Will start an evaluation when a "
                              "checkpoint is ready.")
            return _EvalResult(_EvalStatus.MISSING_CHECKPOINT), []
        if latest == self._previous_ckpt_path:
            self._log_err_msg("No new checkpoint ready for evaluation. Skip the current evaluation "
                              "pass as evaluation results are expected to be same for the same "
                              "checkpoint.")
            return _EvalResult(_EvalStatus.NO_NEW_CHECKPOINT), []
        spec = self._eval_spec
        metrics = self._estimator.evaluate(input_fn=spec.input_fn, steps=spec.steps, name=spec.name,
                                           checkpoint_path=latest, hooks=list(spec.hooks))
        if not isinstance(metrics, dict) or "global_step" not in metrics:
            raise ValueError(
                f"Internal error: `Estimator.evaluate` result should be a dict with `global_step`; "
                f"given {metrics!r:.200}"
            )
        result = _EvalResult(_EvalStatus.EVALUATED, metrics, latest)
        final = bool(self._max_training_steps) and int(metrics["global_step"]) >= self._max_training_steps
        export_results = self._export(result, final)
        if final:
            self.is_final_export_triggered = True
        self._last_warning_time = 0.0
        self._previous_ckpt_path = latest
        return result, export_results

    def _log_err_msg(self, message: str) -> None:
        now = _CLOCK.time()
        if now - self._last_warning_time > _WARNING_INTERVAL_SECS:
            logger.warning(message)
            self._last_warning_time = now

    def _export(self, result: _EvalResult, is_the_final_export: bool) -> list:
        export_dir_base = os.path.join(os.fspath(self._estimator.model_dir), "export")
        return [
            exporter.export(estimator=self._estimator,
                            export_path=os.path.join(export_dir_base, exporter.name),
                            checkpoint_path=result.checkpoint_path, eval_result=result.metrics,
                            is_the_final_export=is_the_final_export)
            for exporter in self._eval_spec.exporters
        ]


class _NewCheckpointListenerForEvaluate(CheckpointSaverListener):
    """Evaluates (and exports) after each checkpoint save, at most every `eval_throttle_secs`;
    skips the save made before the first step; evaluates the last checkpoint at the end."""

    def __init__(self, evaluator: _Evaluator, eval_throttle_secs: float):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self.eval_result: _EvalResult | None = None
        self.export_results: list | None = None
        self._last_time: float | None = None
        self._last_step: int | None = None
        self._is_first_run = True

    def begin(self) -> None:
        self._last_time = self._last_step = None
        self._is_first_run = True

    def after_save(self, session: Any, global_step_value: int) -> None:
        if self._is_first_run:  # the checkpoint written at session creation: nothing trained yet
            self._is_first_run = False
            return
        if self._should_trigger(global_step_value):
            self._evaluate(global_step_value)
        else:
            logger.info("Skip the current checkpoint eval due to throttle secs (%s secs).",
                        self._eval_throttle_secs)

    def end(self, session: Any, global_step_value: int) -> None:
        if global_step_value != self._last_step:
            self._evaluate(global_step_value)

    def _should_trigger(self, step: int) -> bool:
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        return _CLOCK.time() >= self._last_time + self._eval_throttle_secs

    def _evaluate(self, step: int) -> None:
        self._last_time, self._last_step = _CLOCK.time(), step
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
        if self.eval_result.status != _EvalStatus.EVALUATED:
            raise RuntimeError(
                f"There was no new checkpoint after the training. Eval status: {self.eval_result.status}"
            )


# ---------------------------------------------------------------------------------- roles
class _TrainingExecutor:
    """Runs `train_and_evaluate` for this process's role (`RunConfig.task_type`)."""

    def __init__(self, estimator: Any, train_spec: TrainSpec, eval_spec: EvalSpec):
        if not isinstance(estimator, Estimator):
            raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}")
        if not isinstance(train_spec, TrainSpec):
            raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}")
        _assert_eval_spec(eval_spec)
        self._estimator = estimator
        self._train_spec = train_spec
        self._eval_spec = eval_spec

    def run(self) -> tuple[dict | None, list | None] | None:
        """Runs the procedure of this task's type; returns `(eval metrics, export results)` in
        local mode (None in distributed mode, as TF)."""
        config = self._estimator.config
        task_type = config.task_type
        if not config.cluster_spec and task_type != "evaluator":
            logger.info("Running training and evaluation locally (non-distributed).")
            return self.run_local()
        if not task_type:
            raise ValueError("`estimator.config` must have task_type set. This usually means "
                             "TF_CONFIG environment is not set correctly.")
        if task_type == "local":
            raise ValueError("`task.type` in TF_CONFIG cannot be `local`. Leaving `cluster` and `task` "
                             "properties in TF_CONFIG absent triggers train and evaluate `Estimator` "
                             "locally (non-distributed).")
        runners = {"chief": self.run_chief, "worker": self.run_worker, "master": self.run_master,
                   "evaluator": self.run_evaluator, "ps": self.run_ps}
        if task_type not in runners:
            raise ValueError(f"Task type {task_type} is not supported. Supported task types are "
                             f"{sorted(runners)}")
        runners[task_type]()
        return None

    def run_local(self) -> tuple[dict | None, list | None]:
        """Trains once with an evaluating saving listener; returns the last evaluation's metrics
        and export results."""
        config = self._estimator.config
        logger.info("Start train and evaluate loop. The evaluate will happen after every checkpoint. "
                    "Checkpoint frequency is determined based on RunConfig arguments: "
                    "save_checkpoints_steps %s or save_checkpoints_secs %s.",
                    config.save_checkpoints_steps, config.save_checkpoints_secs)
        listener = self._evaluating_listener()
        self._train(self._train_spec.saving_listeners + (listener,))
        if listener.eval_result is None:
            # max_steps was already reached: train() made no checkpoint, so evaluate the last one.
            result, exports = self._evaluator().evaluate_and_export()
            listener.eval_result, listener.export_results = result, exports
        return listener.eval_result.metrics, listener.export_results

    def run_chief(self) -> None:
        """The chief trains and writes the checkpoints (with the TrainSpec's listeners)."""
        self._train(self._train_spec.saving_listeners)

    def run_worker(self) -> None:
        """A worker waits `(task_id + 1) * 5` s (at most `experimental_max_worker_delay_secs`,
        default 60), then trains (without a distribution strategy: on its own)."""
        config = self._estimator.config
        max_delay = _MAX_DELAY_SECS
        if config.experimental_max_worker_delay_secs is not None:
            max_delay = int(config.experimental_max_worker_delay_secs)
        delay = min(max_delay, (int(config.task_id or 0) + 1) * _DELAY_SECS_PER_WORKER)
        if delay > 0:
            logger.info("Waiting %d secs before starting training.", delay)
            _CLOCK.sleep(delay)
        self._train(None)

    def run_master(self) -> None:
        """The legacy `master` trains and evaluates in-process, as the local mode."""
        self._train(self._train_spec.saving_listeners + (self._evaluating_listener(),))

    def run_ps(self) -> None:
        """Parameter servers do not exist here (variables live with each trainer, and chief and
        workers train synchronously): a `ps` task logs that it is not needed and exits 0, so
        an existing TFJob spec keeps working."""

        leave_if_ps_task(self._estimator.config)

    def run_evaluator(self) -> None:
        """Waits `start_delay_secs`, then evaluates every new checkpoint (at most every
        `throttle_secs`) until one at or past `TrainSpec.max_steps` is evaluated."""
        config = self._estimator.config
        if config.task_id:
            raise ValueError("For distributed training, there can only be one `evaluator` task (with "
                             f"task id 0).  Given task id {config.task_id}")
        if self._eval_spec.start_delay_secs:
            logger.info("Waiting %f secs before starting eval.", self._eval_spec.start_delay_secs)
            _CLOCK.sleep(self._eval_spec.start_delay_secs)
        evaluator = self._evaluator()
        max_steps = self._train_spec.max_steps
        throttle = self._eval_spec.throttle_secs
        while True:
            start = _CLOCK.time()
            result, _ = evaluator.evaluate_and_export()
            if result.status == _EvalStatus.EVALUATED:
                step = int(result.metrics["global_step"])
                if max_steps and step >= max_steps:
                    logger.info("Exiting evaluation, global_step=%s >= train max_steps=%s", step, max_steps)
                    return
            remaining = throttle - (_CLOCK.time() - start)
            if remaining > 0:
                logger.info("Waiting %f secs before starting next eval run.", remaining)
                _CLOCK.sleep(remaining)
            elif result.status != _EvalStatus.EVALUATED:
                if throttle == 0:
                    logger.warning("EvalSpec.throttle_secs is set as 0. This might overload the job "
                                   "before finding (next) new checkpoint. Please consider to increase it.")
                _CLOCK.sleep(0.05)  # no new checkpoint: do not spin

    # -------------------------------------------------------------------------- helpers
    def _evaluator(self) -> _Evaluator:
        return _Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)

    def _evaluating_listener(self) -> _NewCheckpointListenerForEvaluate:
        return _NewCheckpointListenerForEvaluate(self._evaluator(), self._eval_spec.throttle_secs)

    def _train(self, saving_listeners: tuple | None) -> None:
        self._estimator.train(input_fn=self._train_spec.input_fn, max_steps=self._train_spec.max_steps,
                              hooks=list(self._train_spec.hooks),
                              saving_listeners=list(saving_listeners or ()))


def train_and_evaluate(estimator: Any, train_spec: TrainSpec,
                       eval_spec: EvalSpec) -> tuple[dict | None, list | None] | None:
    """Trains and evaluates the `estimator`, and exports it with `eval_spec.exporters`.

    Locally: trains until `train_spec.max_steps` (or the end of the input),
    evaluating each new checkpoint at most every `eval_spec.throttle_secs`
    seconds and once more at the end, and runs the exporters after each
    evaluation. Returns `(eval_result, export_results)`: the metrics dict of
    the last evaluation and the list of what each exporter returned then.

    With `TF_CONFIG` naming a cluster, the process takes the role of its task:
    `chief`/`worker` train, `evaluator` evaluates new checkpoints until one at
    `max_steps`; returns None there, as TF.
    """
    _assert_eval_spec(eval_spec)
    executor = _TrainingExecutor(estimator, train_spec, eval_spec)
    config = estimator.config
    if getattr(config, "_distribute_coordinator_mode", None):
        # A distribution strategy with a TF_CONFIG cluster (TF's distribute coordinator): the
        # process's role is TF_CONFIG's task; trainers train under the strategy (without the
        # saving listeners, as TF), the evaluator evaluates new checkpoints.
        task = (json.loads(os.environ.get("TF_CONFIG") or "{}").get("task") or {})
        if task.get("type") == "evaluator":
            if int(task.get("index") or 0) > 0:
                raise ValueError("For distributed training, there can only be one `evaluator` task "
                                 f"(with task id 0).  Given task id {task.get('index')}")
            executor.run_evaluator()
            return None
        executor._train(None)
        return None
    if config.task_type == "evaluator" and config.task_id and config.task_id > 0:
        raise ValueError("For distributed training, there can only be one `evaluator` task (with task "
                         f"id 0).  Given task id {config.task_id}")
    return executor.run()

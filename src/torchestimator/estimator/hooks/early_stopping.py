"""Early stopping, as `tf.estimator.experimental`: hooks that stop training when the eval
metrics written under `model_dir/eval` (by `evaluate`, e.g. inside `train_and_evaluate`)
stop improving or cross a threshold.

The eval results are read back from the TensorBoard event files with the
`tensorboard` package's reader, as TF's `read_eval_metrics` did.
"""

from __future__ import annotations

import collections
import glob
import logging
import operator
import os
from collections.abc import Callable
from typing import Any

from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
from tensorboard.util import tensor_util

from torchestimator._engine import checkpoint as ckpt
from torchestimator.estimator.hooks.basic_hooks import SecondOrStepTimer, StopAtStepHook
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook

logger = logging.getLogger("torchestimator")

_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"


def _summaries(eval_dir: str):
    if not os.path.isdir(eval_dir):
        return
    for path in sorted(glob.glob(os.path.join(eval_dir, _EVENT_FILE_GLOB_PATTERN))):
        yield from LegacyEventFileLoader(path).Load()


def _scalar(value: Any) -> float | None:
    if value.HasField("simple_value"):
        return float(value.simple_value)
    if value.HasField("tensor") and value.metadata.plugin_data.plugin_name == "scalars":
        array = tensor_util.make_ndarray(value.tensor)
        if array.size == 1:
            return float(array.reshape(()))
    return None


def read_eval_metrics(eval_dir: str) -> collections.OrderedDict:
    """Reads the eval metrics in the event files of `eval_dir`.

    Returns an OrderedDict {global_step: {metric name: value}} sorted by step.
    """
    metrics_by_step: dict[int, dict] = collections.defaultdict(dict)
    for event in _summaries(eval_dir):
        if not event.HasField("summary"):
            continue
        metrics = {}
        for value in event.summary.value:
            number = _scalar(value)
            if number is not None:
                metrics[value.tag] = number
        if metrics:
            metrics_by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(metrics_by_step.items(), key=lambda t: t[0]))


class _StopOnPredicateHook(SessionRunHook):
    """Requests a stop once `should_stop_fn()` returns True (checked on a timer)."""

    def __init__(self, should_stop_fn: Callable[[], bool], run_every_secs: float | None = 60,
                 run_every_steps: int | None = None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)

    def begin(self) -> None:
        self._timer.reset()

    def after_run(self, run_context: Any, run_values: Any) -> None:
        global_step = run_context.session.step_start_global_step
        if self._timer.should_trigger_for_step(global_step):
            self._timer.update_last_triggered_step(global_step)
            if self._should_stop_fn():
                logger.info("Requesting early stopping at global step %d", global_step)
                run_context.request_stop()


def make_early_stopping_hook(estimator: Any, should_stop_fn: Callable[[], bool],
                             run_every_secs: float | None = 60,
                             run_every_steps: int | None = None) -> SessionRunHook:
    """Creates an early-stopping hook: training stops when `should_stop_fn()` returns True.

    The predicate runs at most every `run_every_secs` seconds or `run_every_steps`
    steps (not both). Returns a `SessionRunHook` for `train(hooks=...)` or
    `TrainSpec(hooks=...)`.
    """
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of run_every_secs and run_every_steps can be provided.")
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _no_improvement_hook(estimator: Any, metric_name: str, max_steps_without_improvement: int,
                         higher_is_better: bool, eval_dir: str | None, min_steps: int,
                         run_every_secs: float | None, run_every_steps: int | None) -> SessionRunHook:
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    increase_or_decrease = "increase" if higher_is_better else "decrease"

    def stop_if_no_metric_improvement_fn() -> bool:
        best_val = best_val_step = None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError(
                    f"Early stopping: metric {metric_name!r} is not in the eval results of step "
                    f"{step} in {eval_dir}; it has {sorted(metrics)}."
                )
            val = metrics[metric_name]
            if best_val is None or is_lhs_better(val, best_val):
                best_val, best_val_step = val, step
            if step - best_val_step >= max_steps_without_improvement:
                logger.info(
                    'No %s in metric "%s" for %s steps, which is greater than or equal to max steps '
                    "(%s) configured for early stopping.", increase_or_decrease, metric_name,
                    step - best_val_step, max_steps_without_improvement,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stop_if_no_metric_improvement_fn,
                                    run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def _threshold_hook(estimator: Any, metric_name: str, threshold: float, higher_is_better: bool,
                    eval_dir: str | None, min_steps: int, run_every_secs: float | None,
                    run_every_steps: int | None) -> SessionRunHook:
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    greater_or_lesser = "greater than" if higher_is_better else "less than"

    def stop_if_threshold_crossed_fn() -> bool:
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError(
                    f"Early stopping: metric {metric_name!r} is not in the eval results of step "
                    f"{step} in {eval_dir}; it has {sorted(metrics)}."
                )
            val = metrics[metric_name]
            if is_lhs_better(val, threshold):
                logger.info(
                    'At step %s, metric "%s" has value %s which is %s the configured threshold (%s) '
                    "for early stopping.", step, metric_name, val, greater_or_lesser, threshold,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stop_if_threshold_crossed_fn,
                                    run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def stop_if_higher_hook(estimator: Any, metric_name: str, threshold: float, eval_dir: str | None = None,
                        min_steps: int = 0, run_every_secs: float | None = 60,
                        run_every_steps: int | None = None) -> SessionRunHook:
    """Creates a hook that stops training when `metric_name` is higher than `threshold` in an
    eval at a global step >= `min_steps`. Returns a SessionRunHook."""
    return _threshold_hook(estimator, metric_name, threshold, True, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator: Any, metric_name: str, threshold: float, eval_dir: str | None = None,
                       min_steps: int = 0, run_every_secs: float | None = 60,
                       run_every_steps: int | None = None) -> SessionRunHook:
    """Creates a hook that stops training when `metric_name` is lower than `threshold` in an
    eval at a global step >= `min_steps`. Returns a SessionRunHook."""
    return _threshold_hook(estimator, metric_name, threshold, False, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator: Any, metric_name: str, max_steps_without_increase: int,
                             eval_dir: str | None = None, min_steps: int = 0,
                             run_every_secs: float | None = 60,
                             run_every_steps: int | None = None) -> SessionRunHook:
    """Creates a hook that stops training when `metric_name` has not increased for
    `max_steps_without_increase` global steps of evals. Returns a SessionRunHook."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase, True, eval_dir,
                                min_steps, run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator: Any, metric_name: str, max_steps_without_decrease: int,
                             eval_dir: str | None = None, min_steps: int = 0,
                             run_every_secs: float | None = 60,
                             run_every_steps: int | None = None) -> SessionRunHook:
    """Creates a hook that stops training when `metric_name` has not decreased for
    `max_steps_without_decrease` global steps of evals. Returns a SessionRunHook."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease, False, eval_dir,
                                min_steps, run_every_secs, run_every_steps)


class _StopAtCheckpointStepHook(SessionRunHook):
    """Stops a non-chief worker once the newest checkpoint on disk reaches `last_step`."""

    def __init__(self, model_dir: str, last_step: int, wait_after_file_check_secs: float = 30):
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait = wait_after_file_check_secs
        self._timer = SecondOrStepTimer(every_secs=wait_after_file_check_secs)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_context.session.global_step
        if step >= self._last_step:
            run_context.request_stop()
            return
        if not self._timer.should_trigger_for_step(step):
            return
        self._timer.update_last_triggered_step(step)
        latest = ckpt.latest_checkpoint(self._model_dir)
        if latest is not None and int(latest.rsplit("-", 1)[-1]) >= self._last_step:
            run_context.request_stop()


def make_stop_at_checkpoint_step_hook(estimator: Any, last_step: int,
                                      wait_after_file_check_secs: float = 30) -> SessionRunHook:
    """Creates a hook that stops training at `last_step`: on the chief a StopAtStepHook, on
    other workers a hook that stops once the checkpoint in model_dir reaches it."""
    if estimator.config.is_chief:
        return StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)

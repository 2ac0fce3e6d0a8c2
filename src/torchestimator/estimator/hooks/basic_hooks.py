"""The built-in hooks every Estimator training run uses, as TF's `basic_session_run_hooks`:
StopAtStepHook, NanTensorHook, LoggingTensorHook, StepCounterHook, CheckpointSaverHook
(with CheckpointSaverListener), SummarySaverHook, and the SecondOrStepTimer they share."""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator.estimator.hooks.session_run_hook import SessionRunArgs, SessionRunHook
from torchestimator.summary._summary import Recorded

logger = logging.getLogger("torchestimator")


class NanLossDuringTrainingError(RuntimeError):
    """Raised by NanTensorHook when the loss is NaN: "NaN loss during training."."""

    def __str__(self) -> str:
        return "NaN loss during training."


class SecondOrStepTimer:
    """Triggers every `every_secs` seconds or every `every_steps` steps (exactly one)."""

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError(
                "Either every_secs or every_steps should be provided, but not both; received "
                f"every_secs={every_secs}, every_steps={every_steps}."
            )
        self._every_secs = every_secs
        self._every_steps = every_steps
        self._last_time: float | None = None
        self._last_step: int | None = None

    def reset(self) -> None:
        """Forgets the last trigger."""
        self._last_time = self._last_step = None

    def should_trigger_for_step(self, step: int) -> bool:
        """True on the first call and when enough seconds or steps passed since the last trigger."""
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.time() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple[float | None, int | None]:
        """Records a trigger at `step`; returns (seconds, steps) since the previous one."""
        now = time.time()
        elapsed = (None, None) if self._last_time is None else (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self) -> int | None:
        """The step of the last trigger, or None."""
        return self._last_step


class StopAtStepHook(SessionRunHook):
    """Requests stop at a global step: `num_steps` after the start, or at `last_step`."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified, but not both.")
        if num_steps is not None and num_steps < 0:
            raise ValueError(f"num_steps must be non-negative; received {num_steps}")
        self._num_steps = num_steps
        self._last_step = last_step

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = session.global_step + self._num_steps

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if run_context.session.global_step >= self._last_step:
            run_context.request_stop()


class NanTensorHook(SessionRunHook):
    """Monitors the loss tensor and stops training if the loss is NaN: raises
    `NanLossDuringTrainingError` ("NaN loss during training.") when `fail_on_nan_loss`, else
    requests a stop.

    A loss on the CPU is checked after every step, as TF does. A loss on an accelerator is
    checked through the training loop's deferred checks (`_engine.loop.defer_check`): each
    step folds `isnan(loss)` into an on-device flag without waiting for the device, and the
    flag is read at the loop's next flush point -- every `loop.CHECK_EVERY_N_STEPS` steps, a
    logging hook's line, a checkpoint save, the end of training -- where the error is raised
    (or, with `fail_on_nan_loss=False`, the stop requested at the next step's end). A
    checkpoint is never written from a model that has diverged: the checks are flushed, and
    the loss of the step being saved read, before every save; the last checkpoint stays the
    last good one.

    Under a distribution strategy the hook checks the loss reduced over the
    replicas (it rode along the step's gradient all-reduce, and is on the CPU): a
    NaN on one replica is a NaN on every replica, so all of them stop at the same
    step instead of some waiting for the others in the next all-reduce.
    """

    # Kept for compatibility: the loop's `CHECK_EVERY_N_STEPS` sets how often deferred checks are read.
    _CHECK_EVERY_N_STEPS = 100

    _model_fn_attributes = ("_loss",)

    def __init__(self, loss_tensor: Any = "loss", fail_on_nan_loss: bool = True):
        self._loss = loss_tensor
        self._fail = fail_on_nan_loss
        self._deferred: bool | None = None  # None: deferred where the loop defers (not the CPU)
        self._session: Any = None
        self._diverged = False

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._session = session
        self._diverged = False
        if hasattr(session, "add_pre_save_check"):
            session.add_pre_save_check(self._check_before_save)

    def _current_loss(self, session: Any) -> Any:
        value = session.tensor(self._loss) if isinstance(self._loss, str) else self._loss
        spec = getattr(session, "spec", None)
        if spec is not None and value is spec.loss and hasattr(session, "step_loss"):
            value = session.step_loss()  # under a strategy: the mean over the replicas, alike on all
        return value

    def _is_nan_now(self, value: Any) -> bool:
        if isinstance(value, torch.Tensor):
            value = value.detach()
            if value.numel() == 1:
                return math.isnan(value.item())
            return bool(torch.isnan(value).any())
        return bool(np.isnan(np.asarray(value, dtype=np.float64)).any())

    def _diverge(self, run_context: Any = None) -> None:
        self._diverged = True
        logger.error("Model diverged with loss = NaN.")
        if self._fail:
            raise NanLossDuringTrainingError
        if run_context is not None:
            run_context.request_stop()

    def _verdict(self, nan: torch.Tensor) -> Exception | None:
        """The deferred check's verdict, on the host: the error to raise (None: no NaN, or
        `fail_on_nan_loss=False`, which requests the stop at the next step's end instead)."""
        if self._diverged or not bool(nan):
            return None
        self._diverged = True
        logger.error("Model diverged with loss = NaN.")
        return NanLossDuringTrainingError() if self._fail else None

    def _defers(self, value: Any) -> bool:
        if self._deferred is not None:
            return self._deferred and isinstance(value, torch.Tensor)
        return isinstance(value, torch.Tensor) and loop.defers_checks(value.device)

    def before_run(self, run_context: Any) -> None:
        if self._diverged and not self._fail:  # a flush point found the NaN after the last step
            run_context.request_stop()
        return None

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._diverged:  # found by a flush since the last step (fail_on_nan_loss=False)
            run_context.request_stop()
            return
        value = self._current_loss(run_context.session)
        if not self._defers(value):
            if self._is_nan_now(value):
                self._diverge(run_context)
            return
        nan = torch.isnan(value.detach())
        loop.defer_check(("NanTensorHook", id(self)), (nan.any() if nan.dim() else nan,),
                         _ANY_NAN, self._verdict)

    def _check_before_save(self) -> bool:
        """Run by the session before each checkpoint save: False (or the error) if the loss of
        any step so far, this one included, was NaN."""
        # the session read the deferred checks back just before (`checks_before_save`): a NaN
        # recorded by an earlier step raised NanLossDuringTrainingError, or set `_diverged`
        session = self._session
        if not self._diverged and session is not None and session.spec is not None:
            if self._is_nan_now(self._current_loss(session)):  # this step's, not recorded yet
                self._diverge()
        if self._diverged:
            step = session.global_step if session is not None else "?"
            logger.warning("Not saving a checkpoint at step %s: the loss is NaN.", step)
            return False
        return True

    def end(self, session: Any) -> None:
        if not self._diverged:
            loop.flush_deferred_checks()


# Folds deferred NaN flags: any of them.
_ANY_NAN = loop.fold_by(torch.any)


def _tag_order(tensors: Any) -> tuple[list[str], dict]:
    if isinstance(tensors, dict):
        return sorted(tensors), dict(tensors)
    if isinstance(tensors, (list, tuple)):
        names = [t if isinstance(t, str) else f"tensor_{i}" for i, t in enumerate(tensors)]
        return names, dict(zip(names, tensors))
    raise TypeError(f"tensors must be a dict or a list of names/tensors; received {tensors!r}")


class LoggingTensorHook(SessionRunHook):
    """Logs the values of `tensors` every `every_n_iter` steps, every `every_n_secs` seconds,
    and/or at the end; `formatter(dict) -> str` customizes the line."""

    _model_fn_attributes = ("_tensors",)

    def __init__(self, tensors: Any, every_n_iter: int | None = None, every_n_secs: float | None = None,
                 at_end: bool = False, formatter: Callable | None = None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        self._tag_order, self._tensors = _tag_order(tensors)
        self._timer = None if only_log_at_end else SecondOrStepTimer(every_n_secs, every_n_iter)
        self._log_at_end = at_end
        self._formatter = formatter
        self._iter = 0
        self._should_trigger = False

    def begin(self) -> None:
        if self._timer is not None:
            self._timer.reset()
        self._iter = 0

    def before_run(self, run_context: Any) -> SessionRunArgs | None:
        self._should_trigger = self._timer is not None and self._timer.should_trigger_for_step(self._iter)
        if self._should_trigger:
            return SessionRunArgs(self._tensors)
        return None

    def _log(self, values: dict, elapsed: float | None = None) -> None:
        if self._formatter is not None:
            logger.info(self._formatter(values))
            return
        line = ", ".join(f"{tag} = {_fmt(values[tag])}" for tag in self._tag_order)
        if elapsed is not None:
            line += f" ({elapsed:.3f} sec)"
        logger.info(line)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._should_trigger:
            loop.flush_deferred_checks()  # a log line reads values back: the deferred checks too
            elapsed, _ = self._timer.update_last_triggered_step(self._iter)
            self._log(run_values.results, elapsed)
        self._iter += 1

    def end(self, session: Any) -> None:
        if self._log_at_end and self._iter > 0:
            self._log(session.run(self._tensors))  # the values of the last step


def _fmt(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.6g}"
    return str(value)


class StepCounterHook(SessionRunHook):
    """Counts steps per second: every N steps or seconds logs `global_step/sec: R` and writes it
    as the `global_step/sec` summary (into `output_dir`, default model_dir)."""

    def __init__(self, every_n_steps: int | None = 100, every_n_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_n_secs, every_n_steps)
        self._output_dir = output_dir
        self._writer = summary_writer
        self._summary_tag = "global_step/sec"

    def begin(self) -> None:
        self._timer.reset()

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._writer is None:
            self._writer = session.summary_writer(self._output_dir)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_context.session.global_step
        if self._timer.should_trigger_for_step(step):
            elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(step)
            if elapsed_time is not None:
                rate = elapsed_steps / elapsed_time if elapsed_time > 0 else float("inf")
                logger.info("%s: %g", self._summary_tag, rate)
                if self._writer is not None:
                    self._writer.scalar(self._summary_tag, rate, step, legacy=True)


class CheckpointSaverListener:
    """Interface for listeners that take action before or after checkpoint save: `begin`,
    `before_save`, `after_save` (returning True requests that training stop), `end`."""

    def begin(self) -> None:
        """Called before the first save."""

    def before_save(self, session: Any, global_step_value: int) -> None:
        """Called before each checkpoint is written."""

    def after_save(self, session: Any, global_step_value: int) -> bool | None:
        """Called after each checkpoint is written; returning True requests a stop."""
        return None

    def end(self, session: Any, global_step_value: int) -> None:
        """Called at the end of training."""


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every N steps or seconds, when the session is created and at the end.

    `checkpoint_dir/checkpoint_basename-<step>` (default `model.ckpt`); `listeners`
    (`CheckpointSaverListener`s) are told before and after each save. `saver`,
    `scaffold` and `save_graph_def` are accepted for compatibility (there is no graph).
    """

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None, save_steps: int | None = None,
                 saver: Any = None, checkpoint_basename: str = "model.ckpt", scaffold: Any = None,
                 listeners: list | None = None, save_graph_def: bool = True):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._dir = checkpoint_dir
        self._basename = checkpoint_basename
        self._timer = SecondOrStepTimer(save_secs, save_steps)
        self._listeners = list(listeners or [])
        for listener in self._listeners:
            if not isinstance(listener, CheckpointSaverListener):
                raise TypeError(f"listeners must be CheckpointSaverListener instances; received {listener!r}")

    def begin(self) -> None:
        self._timer.reset()
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._save(session, session.global_step)
        self._timer.update_last_triggered_step(session.global_step)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_context.session.global_step
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._save(run_context.session, step):
                run_context.request_stop()

    def end(self, session: Any) -> None:
        step = session.global_step
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session: Any, step: int) -> bool:
        """Saves a checkpoint; returns True if a listener asked to stop. The session's save
        reads the training loop's deferred checks (labels out of range, a NaN loss on an
        accelerator) back first (`_session.checks_before_save`), and a failed one raises before
        anything is written: a failed step never lands in the checkpoint dir."""
        logger.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logger.info("Saving checkpoints for %d into %s.", step, os.path.join(self._dir, self._basename))
        if session.save_checkpoint(self._dir, self._basename) is None:
            return False
        logger.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logger.info("A CheckpointSaverListener requested that training be stopped. "
                            "listener: %s", listener)
                stop = True
        return stop


class SummarySaverHook(SessionRunHook):
    """Saves summaries every N steps or seconds: the loss and the `tf.summary` /
    `tf.compat.v1.summary` scalars, histograms, images, texts and audio model_fn recorded in
    that step (or only `summary_op`: a tag, a list of tags, or
    a dict tag -> tensor), written at the global step after the step, as TF's."""

    _model_fn_attributes = ("_summary_op",)

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None, scaffold: Any = None,
                 summary_op: Any = None):
        if scaffold is not None and summary_op is not None:
            raise ValueError("Exactly one of scaffold or summary_op should be passed.")
        self._timer = SecondOrStepTimer(save_secs, save_steps)
        self._output_dir = output_dir
        self._writer = summary_writer
        self._summary_op = summary_op
        self._next_step: int | None = None
        self._request = False

    def begin(self) -> None:
        self._timer.reset()
        self._next_step = None

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._writer is None:
            self._writer = session.summary_writer(self._output_dir)

    def before_run(self, run_context: Any) -> None:
        self._request = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        return None

    def _values(self, session: Any) -> dict:
        op = self._summary_op
        if op is None or getattr(op, "_merge_all", False):
            return session.summaries()
        if isinstance(op, str):
            return {op: session.tensor(op)}
        if isinstance(op, (list, tuple)):
            return {name: session.tensor(name) for name in op}
        if isinstance(op, dict):
            return dict(op)
        raise TypeError(
            f"summary_op must be a summary tag, a list of tags or a dict tag -> tensor; received {op!r}"
        )

    def after_run(self, run_context: Any, run_values: Any) -> None:
        session = run_context.session
        step = session.global_step
        if self._request:
            self._timer.update_last_triggered_step(step)

            for tag, value in self._values(session).items():
                if isinstance(value, Recorded):  # a histogram, image, text or audio of the step
                    value.write(self._writer, tag, step)
                    continue
                array = np.asarray(session.resolve(value))
                if array.size == 1:
                    self._writer.scalar(tag, float(array), step, legacy=True)
        self._next_step = step + 1

    def end(self, session: Any = None) -> None:
        """Flushes the summary writer (`session` is not needed, as TF's)."""
        if self._writer is not None:
            self._writer.flush()

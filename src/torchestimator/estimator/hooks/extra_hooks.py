"""The other built-in hooks of TF's `basic_session_run_hooks`: ProfilerHook, FinalOpsHook,
GlobalStepWaiterHook and FeedFnHook."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator.estimator.hooks.basic_hooks import SecondOrStepTimer
from torchestimator.estimator.hooks.session_run_hook import SessionRunArgs, SessionRunHook

logger = logging.getLogger("torchestimator")


class ProfilerHook(SessionRunHook):
    """Captures a profile of one step every N steps or seconds, as a Chrome trace
    `timeline-<global step>.json` (open it in chrome://tracing or Perfetto).

    The trace is taken with `torch.profiler` (CPU, and CUDA when available) and
    covers the whole step: model_fn, backward and the optimizer. As in TF, the
    first step is never traced. `output_dir` defaults to the Estimator's model_dir
    (TF's default '' meant the working directory). `show_dataflow` records the
    operators' input shapes, `show_memory` their memory use.
    """

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str = "", show_dataflow: bool = True, show_memory: bool = False):
        self._output_dir = output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._next_step: int | None = None
        self._profiler: Any = None
        self._directory = output_dir

    def begin(self) -> None:
        self._next_step = None
        self._timer.reset()

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._directory = self._output_dir or session.model_dir
        os.makedirs(self._directory, exist_ok=True)

    def before_run(self, run_context: Any) -> None:
        if self._next_step is not None and self._timer.should_trigger_for_step(self._next_step):
            activities = [torch.profiler.ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(torch.profiler.ProfilerActivity.CUDA)
            self._profiler = torch.profiler.profile(
                activities=activities, record_shapes=self._show_dataflow,
                profile_memory=self._show_memory,
            )
            self._profiler.__enter__()
        return None

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_context.session.global_step
        if self._next_step is None:
            self._timer.update_last_triggered_step(step - 1)
        if self._profiler is not None:
            profiler, self._profiler = self._profiler, None
            profiler.__exit__(None, None, None)
            self._timer.update_last_triggered_step(step)
            path = os.path.join(self._directory, f"timeline-{step}.json")
            profiler.export_chrome_trace(path)
            logger.info("Saved the profile of step %d to %s.", step, path)
        self._next_step = step + 1

    def end(self, session: Any) -> None:
        if self._profiler is not None:
            self._profiler.__exit__(None, None, None)
            self._profiler = None


class FinalOpsHook(SessionRunHook):
    """Evaluates `final_ops` (names, tensors or metrics, or a list/dict of them) when the
    session ends; their numpy values are then in `final_ops_values`."""

    _model_fn_attributes = ("_final_ops",)

    def __init__(self, final_ops: Any, final_ops_feed_dict: Any = None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values: Any = None

    @property
    def final_ops_values(self) -> Any:
        """The values of `final_ops` at the end of the session (None before it ends)."""
        return self._final_ops_values

    def end(self, session: Any) -> None:
        if self._final_ops_feed_dict:
            logger.warning("FinalOpsHook: final_ops_feed_dict is ignored (there are no placeholders).")
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops)


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first step until the global step reaches `wait_until_step` (TF's staggered
    start of workers).

    The global step seen is the larger of this process's and that of the newest
    checkpoint in model_dir, which is how a worker sees the chief's progress here
    (there are no shared variables). A wait with no other process training would
    not end, as in TF.
    """

    _POLL_SECS = 0.5

    def __init__(self, wait_until_step: int):
        self._wait_until_step = int(wait_until_step)
        self._worker_is_started = False

    def begin(self) -> None:
        self._worker_is_started = False

    def _current_step(self, session: Any) -> int:
        step = session.global_step
        latest = ckpt.latest_checkpoint(session.model_dir)
        if latest is not None:
            step = max(step, int(latest.rsplit("-", 1)[-1]))
        return step

    def before_run(self, run_context: Any) -> None:
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        logger.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = self._current_step(run_context.session)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                logger.info("Waiting for global step %d before starting training. Current step is %d.",
                            self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(self._POLL_SECS)


class FeedFnHook(SessionRunHook):
    """Calls `feed_fn()` before every step, as TF's; the feed_dict it returns is ignored (with a
    one-time warning): model_fn runs eagerly on input_fn's data, there are no placeholders."""

    def __init__(self, feed_fn: Callable[[], dict]):
        if not callable(feed_fn):
            raise TypeError(f"feed_fn must be callable; received {feed_fn!r}")
        self.feed_fn = feed_fn

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())

"""`tf.compat.v1.train.MonitoredSession` & co. for eager step functions.

There is no graph: `sess.run(fetches)` calls `fetches` when it is a Python callable (the step
function), or returns the numpy values of tensors / variables / nested structures of them.
Hooks (`SessionRunHook`s, the Estimator's: StopAtStepHook, CheckpointSaverHook, ...) run around
each call. After a run whose step function did not change the global step, the session advances
it by 1 (the train op's `global_step` increment in TF1). Checkpoints hold every TF1 global
variable (`tf.compat.v1.get_variable`, layers, the global step) under its TF name.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import torch

from torchestimator import summary
from torchestimator._engine.checkpoint import latest_checkpoint
from torchestimator.compat.v1 import _train_global_step as _gs
from torchestimator.compat.v1._train_saver import Saver
from torchestimator.estimator._session import checks_before_save
from torchestimator.estimator.hooks import CheckpointSaverHook
from torchestimator.estimator.hooks.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunValues,
)

USE_DEFAULT = object()


def _numpy(value: Any) -> Any:
    if callable(value) and not isinstance(value, torch.Tensor):
        return _numpy(value())
    if isinstance(value, torch.Tensor):
        array = value.detach().cpu().numpy()
        return array[()] if array.ndim == 0 else array
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    return value


class _EagerSession:
    """What hooks see as `session`: the global step, checkpoint saving, and the last results."""

    def __init__(self, checkpoint_dir: str | None, scaffold: Any):
        self.model_dir = checkpoint_dir
        saver = getattr(scaffold, "saver", None) if scaffold is not None else None
        self._saver = saver if isinstance(saver, Saver) else Saver(allow_empty=True)
        self._pre_save_checks: list[Callable[[], bool]] = []
        self._results: Any = None
        self.step_start_global_step = self.global_step

    @property
    def global_step(self) -> int:
        """The current global step (an int)."""
        step = _gs.get_or_create_global_step()
        return int(step.numpy())

    def add_pre_save_check(self, check: Callable[[], bool]) -> None:
        """Registers a check run before each save; False skips the save."""
        self._pre_save_checks.append(check)

    def save_checkpoint(self, checkpoint_dir: str | None = None,
                        checkpoint_basename: str = "model.ckpt") -> str | None:
        """Saves the TF1 global variables to `<checkpoint_dir>/<basename>-<global_step>`."""
        if not checks_before_save(self._pre_save_checks):  # deferred checks raise first
            return None
        directory = checkpoint_dir or self.model_dir
        return self._saver.save(None, os.path.join(directory, checkpoint_basename),
                                global_step=self.global_step)

    def tensor(self, name: str) -> Any:
        """`'global_step'` (its value before the step) or a key of the last run's dict result."""
        name = name.split(":")[0]
        if name == "global_step":
            return self.step_start_global_step
        if isinstance(self._results, dict) and name in self._results:
            return self._results[name]
        raise ValueError(f"MonitoredSession: a hook fetched {name!r}; the step function returns "
                         "no such key (return a dict to expose values to hooks).")

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None) -> Any:
        """A raw session's `run` (TF1's `tf.Session.run`, no hooks, no step): `fetches` (a
        callable is called with `**feed_dict` if given) read as numpy."""
        if callable(fetches) and not isinstance(fetches, torch.Tensor):
            return _numpy(fetches(**feed_dict) if feed_dict else fetches())
        return _numpy(fetches)

    def resolve(self, value: Any) -> Any:
        """The numpy value of a hook fetch (a name, a tensor, or a structure of them)."""
        if isinstance(value, str):
            return _numpy(self.tensor(value))
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.resolve(v) for v in value)
        return _numpy(value)

    def summary_writer(self, logdir: str | None = None) -> Any:
        """TensorBoard writer of `logdir` (default: the checkpoint dir)."""

        return summary.create_file_writer(logdir or self.model_dir)

    def summaries(self) -> dict[str, Any]:
        """Scalar results of the last run (a dict result's entries)."""
        return dict(self._results) if isinstance(self._results, dict) else {}


class SessionCreator:
    """A factory of sessions (`create_session()`), as TF's abstract `SessionCreator`."""

    def create_session(self) -> Any:
        """Creates the session hooks see."""
        raise NotImplementedError


class ChiefSessionCreator(SessionCreator):
    """Creates a session that restores the latest checkpoint of `checkpoint_dir` (or of
    `checkpoint_filename_with_path`) if any, else runs `scaffold.init_fn`."""

    def __init__(self, scaffold: Any = None, master: str = "", config: Any = None,
                 checkpoint_dir: str | None = None, checkpoint_filename_with_path: str | None = None):
        self._scaffold = scaffold
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_path = checkpoint_filename_with_path

    def create_session(self) -> _EagerSession:
        """Restores or initializes the TF1 variables; returns the session."""
        _gs.get_or_create_global_step()
        session = _EagerSession(self._checkpoint_dir, self._scaffold)
        path = self._checkpoint_path or (latest_checkpoint(self._checkpoint_dir)
                                         if self._checkpoint_dir else None)
        if path:
            Saver(allow_empty=True).restore(None, path)
        elif self._scaffold is not None and getattr(self._scaffold, "init_fn", None):
            self._scaffold.init_fn(self._scaffold, session)
        session.step_start_global_step = session.global_step
        return session


class WorkerSessionCreator(ChiefSessionCreator):
    """A worker's session creator; with one process, the same as `ChiefSessionCreator`
    (restores the latest checkpoint of `checkpoint_dir` if given)."""

    def __init__(self, scaffold: Any = None, master: str = "", config: Any = None,
                 max_wait_secs: float = 30 * 60):
        super().__init__(scaffold=scaffold)


class _MonitoredSessionBase:
    def __init__(self, session_creator: SessionCreator | None, hooks: Any, should_recover: bool):
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._creator = session_creator or ChiefSessionCreator()
        self._sess: _EagerSession = self._creator.create_session()
        for hook in self._hooks:
            hook.after_create_session(self._sess, None)
        self._stop = False
        self._closed = False

    def __enter__(self) -> _MonitoredSessionBase:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._close(exc_type is None or issubclass(exc_type, StopIteration)
                    or exc_type.__name__ == "OutOfRangeError")
        return None

    @property
    def graph(self) -> None:
        """There is no graph: None."""
        return None

    def should_stop(self) -> bool:
        """True once a hook requested a stop (or the session is closed)."""
        return self._stop or self._closed

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs one step: hooks' `before_run`, then `fetches` (a callable is called with
        `**feed_dict` if given; tensors are read as numpy), then hooks' `after_run`.
        Returns the numpy result."""
        if self._closed:
            raise RuntimeError("Run called even after should_stop requested.")
        sess = self._sess
        sess.step_start_global_step = sess.global_step
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), sess)
        hook_fetches = [hook.before_run(context) for hook in self._hooks]
        if callable(fetches) and not isinstance(fetches, torch.Tensor):
            result = fetches(**feed_dict) if feed_dict else fetches()
        else:
            result = fetches
        sess._results = result
        if sess.global_step == sess.step_start_global_step:
            _gs.get_or_create_global_step().assign_add(1)
        for hook, args in zip(self._hooks, hook_fetches):
            values = sess.resolve(args.fetches) if args is not None else None
            hook.after_run(context, SessionRunValues(values, options, run_metadata))
        if context.stop_requested:
            self._stop = True
        return _numpy(result)

    def run_step_fn(self, step_fn: Callable) -> Any:
        """Calls `step_fn(step_context)`; `step_context.run_with_hooks(fetches)` is `run`."""
        monitored = self

        class _StepContext:
            session = self._sess

            def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
                return monitored.run(*args, **kwargs)

            def request_stop(self) -> None:
                monitored._stop = True

        return step_fn(_StepContext())

    def close(self) -> None:
        """Runs the hooks' `end` and closes the session."""
        self._close(True)

    def _close(self, run_end: bool) -> None:
        if self._closed:
            return
        self._closed = True
        if run_end:
            for hook in self._hooks:
                hook.end(self._sess)


class MonitoredSession(_MonitoredSessionBase):
    """Session-like object that runs hooks around each `run`, restores from checkpoints and
    stops when a hook asks to, as TF's `tf.compat.v1.train.MonitoredSession`."""

    def __init__(self, session_creator: SessionCreator | None = None, hooks: Any = None,
                 stop_grace_period_secs: float = 120):
        super().__init__(session_creator, hooks, should_recover=True)


class SingularMonitoredSession(_MonitoredSessionBase):
    """`MonitoredSession` for a single process (chief), as TF's `SingularMonitoredSession`."""

    def __init__(self, hooks: Any = None, scaffold: Any = None, master: str = "", config: Any = None,
                 checkpoint_dir: str | None = None, stop_grace_period_secs: float = 120,
                 checkpoint_filename_with_path: str | None = None):
        creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False)

    def raw_session(self) -> _EagerSession:
        """The underlying session (what hooks see)."""
        return self._sess


def MonitoredTrainingSession(master: str = "", is_chief: bool = True,  # noqa: N802 (TF's name)
                             checkpoint_dir: str | None = None, scaffold: Any = None,
                             hooks: Any = None, chief_only_hooks: Any = None,
                             save_checkpoint_secs: Any = USE_DEFAULT,
                             save_summaries_steps: Any = USE_DEFAULT,
                             save_summaries_secs: Any = USE_DEFAULT, config: Any = None,
                             stop_grace_period_secs: float = 120, log_step_count_steps: int = 100,
                             max_wait_secs: float = 7200, save_checkpoint_steps: Any = USE_DEFAULT,
                             summary_dir: str | None = None, save_graph_def: bool = True
                             ) -> MonitoredSession:
    """Creates a `MonitoredSession` for training, as TF 1.x: restores the latest checkpoint of
    `checkpoint_dir` and, on the chief, adds a `CheckpointSaverHook` (every 600 s by default,
    or `save_checkpoint_steps`) writing `model.ckpt-<step>` there. Summary and step-counter
    hooks are not added (add them to `hooks` when wanted)."""
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    all_hooks = list(hooks or [])
    if is_chief:
        all_hooks.extend(chief_only_hooks or [])
        if checkpoint_dir and (save_checkpoint_secs or save_checkpoint_steps):
            all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_secs=save_checkpoint_secs,
                                                 save_steps=save_checkpoint_steps))
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir)
    return MonitoredSession(session_creator=creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)


def basic_train_loop(supervisor: Any, train_step_fn: Callable, args: Any = None,
                     kwargs: Any = None, master: str = "") -> None:
    """Calls `train_step_fn(sess, *args, **kwargs)` until it returns True or `supervisor`
    (anything with `should_stop()`, or a `MonitoredSession`) says to stop."""
    args = tuple(args or ())
    kwargs = dict(kwargs or {})
    sess = supervisor
    while not sess.should_stop():
        if train_step_fn(sess, *args, **kwargs):
            break



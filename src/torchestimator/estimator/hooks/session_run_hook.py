"""`SessionRunHook` and the objects passed to it, as TF's `tf.estimator.SessionRunHook`.

There is no TF session here: `session` is the Estimator's running state (the
model's objects, the global step, the checkpoint writer), and a "run" is one
training, evaluation or prediction step. `before_run` may ask for values
(`SessionRunArgs(fetches)`): names of spec entries (`'loss'`, prediction keys,
metric names), `'global_step'`, or tensors the model_fn returned; they
arrive, as numpy values, in `after_run`'s `run_values.results`.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any


class SessionRunHook:
    """Hook to extend calls to `train`, `evaluate` and `predict`; every method is optional."""

    #: For a hook `model_fn` returns in its `EstimatorSpec` (made anew on every step): the names
    #: of the attributes that hold what model_fn made (tensors, metrics), which the Estimator
    #: gives the hook it keeps from each step's new hook. None: the attributes holding tensors
    #: or metrics on the first spec's hook, until the hook changes one itself (see
    #: `estimator/_spec_hooks.py`).
    _model_fn_attributes: tuple[str, ...] | None = None

    def begin(self) -> None:
        """Called once before using the session (before the first step)."""

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Called when the model's state is ready (restored or initialized), before the first step."""

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        """Called before each step; may return `SessionRunArgs(fetches)` to receive values."""
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        """Called after each step with the requested values in `run_values.results`."""

    def end(self, session: Any) -> None:
        """Called at the end of the session (not after an error other than the input's end)."""


class SessionRunArgs(namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to the next step: `fetches` (a name, tensor, or a list/dict of them)."""

    __slots__ = ()

    def __new__(cls, fetches: Any, feed_dict: Any = None, options: Any = None) -> SessionRunArgs:
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """The values a hook asked for: `results` in the structure of its fetches."""

    __slots__ = ()


class SessionRunContext:
    """Information about the step being run; `request_stop()` ends the loop after this step."""

    def __init__(self, original_args: SessionRunArgs | None, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs | None:
        """The arguments of the step (the loop's own fetches)."""
        return self._original_args

    @property
    def session(self) -> Any:
        """The running state the step belongs to."""
        return self._session

    @property
    def stop_requested(self) -> bool:
        """True once a hook asked to stop."""
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the loop to stop after this step."""
        self._stop_requested = True

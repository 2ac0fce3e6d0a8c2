"""`tf.estimator.experimental.InMemoryEvaluatorHook`: evaluates the model being trained, in
the training process, every N steps and at the end of training.

TF copied the training session's variables into an evaluation graph. Here the
hook writes the training run's current state to a private checkpoint (in a
temporary folder, removed at the end) and runs `estimator.evaluate` from it, so
the evaluation sees exactly the weights of this step and never the training
run's own checkpoints; the results land in `model_dir/eval[_name]` at the
global step, like any evaluation (early-stopping hooks read them there).

Under `RunConfig.train_distribute` (TF supported the hook with a strategy on
one machine) every replica runs the hook at the same steps: with an
`eval_distribute` of several replicas they evaluate together, each its shard;
otherwise the chief evaluates alone, the other replicas wait and then receive
its results. Give the hook to `train()` on every replica (as any hook): it takes
part in collectives. As TF, a `TF_CONFIG` cluster without a strategy (several
worker replicas or parameter servers) is refused with TF's ValueError.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from torchestimator.distribute._collectives import all_agree
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.hooks.basic_hooks import SecondOrStepTimer
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook

logger = logging.getLogger("torchestimator")


class InMemoryEvaluatorHook(SessionRunHook):
    """Hook to run evaluation in training without a checkpoint: before the first step, every
    `every_n_iter` steps and when training ends, evaluates `input_fn` (`steps` batches, or all of it) with the
    model's current weights, through `estimator.evaluate(..., hooks=hooks, name=name)`.

    Raises TypeError/ValueError naming the argument when one is invalid.
    """

    def __init__(self, estimator: Any, input_fn: Callable, steps: int | None = None,
                 hooks: list | None = None, name: str | None = None, every_n_iter: int = 100):
        if not isinstance(estimator, Estimator):
            raise TypeError(f"`estimator` must be a tf.estimator.Estimator; received {estimator!r}.")
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        for hook in hooks or []:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"All hooks must be `SessionRunHook` instances, given: {hook}")
        config = estimator.config
        if config.num_ps_replicas > 0 or config.num_worker_replicas > 1:
            # TF's check, word for word: a TF_CONFIG cluster without a strategy (the RunConfig of
            # a strategy counts one worker until training assigns the roles, as TF's).
            raise ValueError("InMemoryEvaluator supports only single machine (aka Local) setting.")
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = list(hooks or [])
        self._name = name
        self._every_n_iter = every_n_iter
        self._timer = SecondOrStepTimer(every_steps=every_n_iter)
        self._iter_count = 0
        self._tmpdir: str | None = None
        self._last_step: int | None = None
        #: The metrics of the latest evaluation (None before the first).
        self.eval_result: dict | None = None

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._last_step = None
        self._tmpdir = tempfile.mkdtemp(prefix="in_memory_eval_")

    def after_create_session(self, session: Any, coord: Any) -> None:
        # As TF: a first evaluation shows the metrics before training.
        self._timer.update_last_triggered_step(0)
        self._evaluate(session)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._timer.update_last_triggered_step(self._iter_count)
            self._evaluate(run_context.session)

    def end(self, session: Any) -> None:
        try:
            if self._last_step != session.global_step:
                self._evaluate(session)
        finally:
            self._cleanup()

    def _evaluate(self, session: Any) -> None:
        estimator = self._estimator
        training = estimator._runtime.parallel  # the replicas of train_distribute (None: one process)
        self._last_step = session.global_step
        if training is None:
            self._evaluate_here(session)
            return
        # Every replica calls this at the same step (the timer counts steps). Under an
        # eval_distribute of several replicas they evaluate together, each its shard (the weights
        # are the same on every replica); else the chief evaluates alone and the others wait.
        together = getattr(estimator.config.eval_distribute, "num_replicas_in_sync", 1) > 1
        error: BaseException | None = None
        try:
            if together or training.is_chief:
                self._evaluate_here(session)
        except Exception as e:  # told to the other replicas below, then raised
            error = e
        if together:
            if error is not None:
                raise error
            return

        if not all_agree(error is None):
            if error is not None:
                raise error
            raise RuntimeError("InMemoryEvaluatorHook: the evaluation on the chief failed (see the chief's "
                               "log); every replica stops.")
        result = training.broadcast_object(_portable(self.eval_result) if training.is_chief else None)
        if not training.is_chief:
            self.eval_result = {k: np.dtype(dtype).type(value) for k, (dtype, value) in result.items()}

    def _evaluate_here(self, session: Any) -> None:
        estimator = self._estimator
        runtime = estimator._runtime
        path = runtime.save_checkpoint(session, self._tmpdir, "in_memory.ckpt")
        try:
            self.eval_result = estimator.evaluate(self._input_fn, steps=self._steps, hooks=self._hooks,
                                                  checkpoint_path=path, name=self._name)
        finally:
            runtime.set_training(True)  # training goes on (evaluate left the layers in inference mode)

    def _cleanup(self) -> None:
        if self._tmpdir is None:
            return
        self._estimator._runtime.forget_checkpoint_managers(self._tmpdir)
        shutil.rmtree(self._tmpdir, ignore_errors=True)
        self._tmpdir = None


def _portable(results: dict | None) -> dict:
    """`results` as `{name: (dtype name, Python value)}`, for sending to the other replicas."""
    out = {}
    for key, value in (results or {}).items():
        array = np.asarray(value)
        if array.size == 1 and array.dtype.kind in "fiub":
            out[key] = (array.dtype.name, array.item())
    return out

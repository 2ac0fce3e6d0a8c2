"""`tf.keras.utils.SidecarEvaluator`: evaluates each new checkpoint a training job writes."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchestimator._variable import Variable
from torchestimator.errors import OpError
from torchestimator.keras.optimizers import Optimizer

_log = logging.getLogger(__name__)

_ITERATIONS_UNINITIALIZED = -1
_CHECKPOINT_TIMEOUT_SEC = 30  # as Keras: stop when no new checkpoint appears for this long
_POLL_SEC = 1.0  # as tf.train.checkpoints_iterator: look for a new checkpoint every second

# weights files written by `model.save_weights` / `ModelCheckpoint(save_weights_only=True)`
# with a numbered name, e.g. `ckpt-{epoch}` -> `ckpt-3`
_WEIGHTS_FILE = re.compile(
    r"^(?P<stem>[^.].*)-(?P<number>\d+)(?P<ext>\.weights\.safetensors|\.safetensors|\.weights\.h5"
    r"|\.h5|\.keras)?$"
)


def checkpoint_number(path: str) -> int | None:
    """The `<k>` of a checkpoint path ending in `-<k>` (before a weights file's extension)."""
    match = _WEIGHTS_FILE.match(os.path.basename(path))
    return int(match.group("number")) if match else None


def _newest_weights_file(checkpoint_dir: str) -> str | None:
    """The numbered weights file of `checkpoint_dir` with the highest number (then the newest)."""
    try:
        names = os.listdir(checkpoint_dir)
    except OSError:
        return None
    best: tuple[int, float, str] | None = None
    for name in names:
        match = _WEIGHTS_FILE.match(name)
        path = os.path.join(checkpoint_dir, name)
        if match is None or not os.path.isfile(path):
            continue
        if name.endswith(".safetensors") and os.path.exists(path[: -len(".safetensors")] + ".json"):
            continue  # the tensors of an object checkpoint (tf.train.Checkpoint)
        try:
            key = (int(match.group("number")), os.path.getmtime(path), path)
        except OSError:  # removed meanwhile
            continue
        if best is None or key > best:
            best = key
    return best[2] if best else None


def latest_checkpoint_or_weights(checkpoint_dir: str) -> tuple[str | None, bool]:
    """The checkpoint to evaluate in `checkpoint_dir`: `(path, is_object_checkpoint)`.

    The latest object checkpoint (`tf.train.Checkpoint.save`, `tf.train.CheckpointManager`)
    named by the folder's `checkpoint` index; else the numbered weights file
    (`ModelCheckpoint(os.path.join(checkpoint_dir, 'ckpt-{epoch}'), save_weights_only=True)`)
    with the highest number. `(None, False)` if there is none.
    """
    from torchestimator.train import latest_checkpoint  # lazy: heavy (torchestimator.train, 647 ms)

    if os.path.isdir(checkpoint_dir):
        try:
            path = latest_checkpoint(checkpoint_dir)
        except (OSError, ValueError):
            path = None
        if path is not None:  # a file: the weights `Model.save_weights` named in the index
            return path, not os.path.isfile(path)
    return _newest_weights_file(checkpoint_dir), False


def checkpoints_iterator(checkpoint_dir: str, timeout: float | None,
                         timeout_fn: Callable[[], bool] | None) -> Iterator[tuple[str, bool]]:
    """Yields `(path, is_object_checkpoint)` each time a new latest checkpoint appears, as
    `tf.train.checkpoints_iterator`: after `timeout` seconds without one, calls `timeout_fn`
    and stops unless it returns True."""
    last = None
    while True:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            path, is_object = latest_checkpoint_or_weights(checkpoint_dir)
            if path is not None and path != last:
                break
            if deadline is not None and time.monotonic() + _POLL_SEC > deadline:
                path = None
                break
            time.sleep(_POLL_SEC)
        if path is None:
            if timeout_fn is not None and timeout_fn():
                continue
            return
        last = path
        yield path, is_object


class SidecarEvaluator:
    """A dedicated evaluator: evaluates the checkpoints a training job writes, as they come.

    `start()` repeatedly waits for a checkpoint in `checkpoint_dir` that has not
    been evaluated, loads it into `model` and runs `model.evaluate(data,
    steps=steps, callbacks=callbacks)`; callbacks see `on_test_begin/end` and
    the batch events (a `tf.keras.callbacks.TensorBoard` writes
    `evaluation_<metric>_vs_iterations` at the optimizer's restored
    `iterations`). The latest checkpoint is always taken, so some may be
    skipped when training writes faster than evaluation runs.

    The training side writes either object checkpoints that track the model
    and the optimizer::

        checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
        tf.train.CheckpointManager(checkpoint, checkpoint_dir, max_to_keep=3).save()

    or, with `fit`, numbered weights files::

        tf.keras.callbacks.ModelCheckpoint(os.path.join(checkpoint_dir, "ckpt-{epoch}"),
                                           save_weights_only=True)

    (weights files hold no optimizer state: `optimizer.iterations` is then
    not restored).

    Args:
        model: the `tf.keras.Model` to evaluate, built as in training and
            compiled with its metrics.
        data: the evaluation data, anything `model.evaluate` takes as `x`.
        checkpoint_dir: the folder the training job writes checkpoints to.
        steps: the number of batches of one evaluation; None evaluates until
            `data` is exhausted (a repeated dataset needs `steps`).
        max_evaluations: stop after evaluating a checkpoint whose path ends
            with `-<k>`, `k >= max_evaluations`; None: evaluate until no new
            checkpoint appears for 30 seconds.
        callbacks: `tf.keras.callbacks.Callback`s called during evaluation.
    """

    def __init__(self, model: Any, data: Any, checkpoint_dir: str | os.PathLike,
                 steps: int | None = None, max_evaluations: int | None = None,
                 callbacks: list | None = None) -> None:
        if not hasattr(model, "evaluate"):
            raise TypeError(
                f"SidecarEvaluator: `model` must be a tf.keras.Model; received {type(model).__name__}."
            )
        if max_evaluations is not None and (isinstance(max_evaluations, bool)
                                            or not isinstance(max_evaluations, int)):
            raise TypeError(
                "SidecarEvaluator: `max_evaluations` must be an int or None; received "
                f"{max_evaluations!r}."
            )
        self.model = model
        self.data = data
        self.checkpoint_dir = os.fspath(checkpoint_dir)
        self._iterations = Variable.create(
            torch.tensor(_ITERATIONS_UNINITIALIZED, dtype=torch.int64), trainable=False,
            name="iterations",
        )
        self.max_evaluations = max_evaluations
        self.steps = steps
        self.callbacks = callbacks or []

    def _timeout_fn(self) -> bool:
        _log.info(
            "No checkpoints appear to be found after %s seconds. Please check if you are properly "
            "using a `tf.train.Checkpoint/CheckpointManager` or "
            "`tf.keras.callbacks.ModelCheckpoint(save_weights_only=True)` to save checkpoints by "
            "the training. See `tf.keras.SidecarEvaluator` doc for recommended flows of saving "
            "checkpoints.", _CHECKPOINT_TIMEOUT_SEC,
        )
        return False

    def _has_keras_optimizer(self) -> bool:
        return isinstance(getattr(self.model, "optimizer", None), Optimizer)

    def _checkpoint(self) -> Any:
        from torchestimator.train import Checkpoint  # lazy: heavy (torchestimator.train, 362 ms)

        if self._has_keras_optimizer():
            return Checkpoint(model=self.model, optimizer=self.model.optimizer)
        return Checkpoint(model=self.model, optimizer=Checkpoint(iter=self._iterations))

    def _load(self, checkpoint: Any, path: str, is_object: bool) -> None:
        from torchestimator.train import (  # lazy: heavy (torchestimator.train, 307 ms)
            list_variables,
        )

        if not is_object:
            self.model.load_weights(path)
            return
        checkpoint.restore(path).expect_partial()
        attributes = {name.split("/")[0] for name, _ in list_variables(path)}
        if "model" not in attributes:
            raise ValueError(
                f"the checkpoint at {path} tracks no `model` (it tracks {sorted(attributes)}); "
                "save it with tf.train.Checkpoint(model=model, optimizer=optimizer)"
            )
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and not self._has_keras_optimizer() and hasattr(
                getattr(optimizer, "iterations", None), "assign"):
            optimizer.iterations.assign(int(self._iterations.numpy()))

    def start(self) -> None:
        """Starts the evaluation loop; returns after the checkpoint numbered `max_evaluations`
        (or later) is evaluated, or when no new checkpoint appears for 30 seconds."""

        checkpoint = self._checkpoint()
        for path, is_object in checkpoints_iterator(
                self.checkpoint_dir, _CHECKPOINT_TIMEOUT_SEC, self._timeout_fn):
            try:
                self._load(checkpoint, path, is_object)
            except (OpError, OSError, ValueError) as error:
                # the training job may be writing or deleting it right now: wait for the next one
                _log.info(
                    "SidecarEvaluator encountered an error when loading the checkpoint at %s. "
                    "Retrying. Error: %s: %s", path, type(error).__name__, error,
                )
                continue
            if (is_object and int(self._iterations.numpy()) == _ITERATIONS_UNINITIALIZED
                    and not self._has_keras_optimizer()):
                raise RuntimeError(
                    "Variable `iterations` cannot be loaded from the checkpoint file at "
                    f"{self.checkpoint_dir}. Please ensure `iterations` is included in the "
                    "checkpoint saved during training."
                )
            _log.info("Evaluation starts: Model weights loaded from latest checkpoint file %s", path)
            self.model.evaluate(self.data, steps=self.steps, callbacks=self.callbacks, verbose=2)
            _log.info("End of evaluation. Metrics: %s", " ".join(
                f"{name}={value}" for name, value in self._metric_results().items()))
            number = checkpoint_number(path)
            if self.max_evaluations and number is not None and self.max_evaluations <= number:
                _log.info("Last checkpoint evaluated. SidecarEvaluator stops.")
                return

    def _metric_results(self) -> dict[str, Any]:
        results: dict[str, Any] = {}
        for metric in self.model.metrics:
            result = metric.result()
            if isinstance(result, dict):
                results.update(result)
            else:
                results[metric.name] = result.tolist() if hasattr(result, "tolist") else result
        return results

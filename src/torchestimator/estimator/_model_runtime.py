"""`ModelRuntime`: what an Estimator runs its model with, behind one named interface.

It owns the `model_fn` and the objects a call of it builds (`ModelState`: layers, optimizers,
metrics, the global step), the device, the replicas of a distribution strategy while a call
runs (`parallel`), the summary writers and the checkpoint managers of `model_dir`. The
`Estimator` (train/evaluate/predict), the hooks' `Session`, the export and the in-memory
evaluator all go through this interface, not through the Estimator's private members:

    runtime.call_model_fn(features, labels, mode)   # -> EstimatorSpec, in the object scope
    runtime.prepare(mode, first_batch, checkpoint)  # first call, then restore or warm start
    with runtime.distributed("train_distribute"):    # `parallel` for the length of a call
    with runtime.mode_run(mode, input_fn, ...) as run:  # set-up and tear-down of one call
    runtime.save_checkpoint(session, directory)     # through the directory's manager
    runtime.set_training(True)                      # the layers' train()/eval() mode
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import loop, storage
from torchestimator._engine.device_moves import move_training_state
from torchestimator._engine.summary import SummaryWriter
from torchestimator._engine.train_op import TrainOp, parameters_of
from torchestimator._ops.control_ops._context import placement_scope
from torchestimator.distribute._collectives import all_agree
from torchestimator.distribute._data_parallel import (
    data_parallel,
    implicit_strategy,
    takes_input_context,
)
from torchestimator.estimator import _inputs
from torchestimator.estimator._model_state import ModelState
from torchestimator.estimator._runtime import (
    chain_batches,
    check_train_op,
    close_iterator,
    seeded_rng,
    transfer_device,
)
from torchestimator.estimator._session import HookRunner, Session
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.hooks import basic_hooks
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.estimator.warm_starting import warm_start
from torchestimator.keras.engine._device_moves import keras_optimizer_state
from torchestimator.keras.mixed_precision._autocast import step_autocast

logger = logging.getLogger("torchestimator")


def _takes_input_context(input_fn: Callable) -> bool:
    return takes_input_context(input_fn)


def _all_agree(flag: bool) -> bool:
    return all_agree(flag)


class ModeRun(NamedTuple):
    """What `ModelRuntime.mode_run` yields: the hooks' session and runner, the batches (the
    first one included) and the device later batches move to (None: they stay where they are)."""

    session: Session
    runner: HookRunner
    batches: Iterator
    device: torch.device | None


class ModelRuntime:
    """The model an Estimator trains, evaluates, predicts with and exports (module docstring).

    Args:
      model_fn: the user's `model_fn`; `model_fn_args` the names of its arguments.
      params, config, model_dir: the Estimator's (`config` a `RunConfig`).
      warm_start_settings: a resolved `WarmStartSettings`, or None.
    """

    def __init__(self, model_fn: Callable, model_fn_args: set[str], params: dict, config: Any,
                 model_dir: str, warm_start_settings: Any):
        self.model_fn = model_fn
        self.model_fn_args = model_fn_args
        self.params = params
        self.config = config
        self.model_dir = model_dir
        self.warm_start_settings = warm_start_settings
        self.state = ModelState()
        self.device = loop.default_device()
        self.parallel: Any = None  # the replicas of train/eval_distribute, while a call runs
        self._writers: dict[str, Any] = {}
        self._managers: dict[tuple, ckpt.CheckpointManager] = {}

    # ------------------------------------------------------------------ writers and checkpoints
    def summary_writer(self, logdir: str) -> Any:
        """The shared TensorBoard writer of `logdir` (opened on first use)."""

        key = storage.abspath(logdir)
        writer = self._writers.get(key)
        if writer is None or writer.closed:
            writer = SummaryWriter(logdir)
            self._writers[key] = writer
        return writer

    def close_writers(self, logdir: str | None = None) -> None:
        """Closes the writer of `logdir` (every writer when None)."""
        keys = list(self._writers) if logdir is None else [storage.abspath(logdir)]
        for key in keys:
            writer = self._writers.pop(key, None)
            if writer is not None:
                writer.close()

    def forget_writer(self, logdir: str) -> None:
        """Drops the writer of `logdir` without closing it (its directory failed)."""
        self._writers.pop(storage.abspath(logdir), None)

    def checkpoint_manager(self, checkpoint_dir: str | None = None,
                           basename: str = "model.ckpt") -> ckpt.CheckpointManager:
        """The `CheckpointManager` of `checkpoint_dir` (default model_dir) and `basename`, kept
        with `config.keep_checkpoint_max` / `keep_checkpoint_every_n_hours`."""
        directory = storage.abspath(checkpoint_dir or self.model_dir)
        manager = self._managers.get((directory, basename))
        if manager is None:
            manager = ckpt.CheckpointManager(
                directory, max_to_keep=self.config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self.config.keep_checkpoint_every_n_hours,
                checkpoint_basename=basename,
            )
            self._managers[(directory, basename)] = manager
        return manager

    def forget_checkpoint_managers(self, directory: str) -> None:
        """Drops the managers of `directory` (a temporary one that is being removed)."""
        for key in [k for k in self._managers if k[0] == directory]:
            del self._managers[key]

    def save_checkpoint(self, session: Session, checkpoint_dir: str | None = None,
                        basename: str = "model.ckpt") -> str:
        """Writes the model's state at the global step; returns the checkpoint's path."""
        # A position resumes an interrupted train(); a used-up input is read from its start by the
        # next train(), as TF's: under a strategy (which reads one batch ahead) a checkpoint after
        # the last batch records no position; in one process `_inputs.batches_from` finds it out.
        extra = {"input_position": None if session.input_ended else session.input_position}
        full_state = getattr(self.parallel, "full_state", None)  # FSDPStrategy: the gathered weights
        with full_state() if full_state is not None else contextlib.nullcontext():
            return self.state.save(self.checkpoint_manager(checkpoint_dir, basename), extra)

    # ------------------------------------------------------------------ the model_fn
    def call_model_fn(self, features: Any, labels: Any, mode: str) -> EstimatorSpec:
        """Calls model_fn in the runtime's object scope (its layers, optimizers and metrics are
        made on the first call and reused); returns its EstimatorSpec, checked."""
        kwargs: dict[str, Any] = {}
        args = self.model_fn_args
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError(
                "model_fn does not take labels, but input_fn returns labels. Add a `labels` "
                "argument to model_fn or make input_fn return features only."
            )
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        scope = self.state.scope
        scope.context.begin_call(mode, self.state.global_step)
        with scope, placement_scope(self.device):  # what model_fn creates lands on its device
            spec = self.model_fn(features=features, **kwargs)
        if type(spec) is not EstimatorSpec and not isinstance(spec, EstimatorSpec):
            raise ValueError(
                f"model_fn should return an EstimatorSpec; it returned {type(spec).__name__}: {spec!r:.200}"
            )
        if spec.mode != mode:
            raise ValueError(
                f"model_fn was called in mode {mode!r} but returned an EstimatorSpec for mode "
                f"{spec.mode!r}."
            )
        if spec.scaffold is not None:
            self.state.use_scaffold(spec.scaffold)
        return spec

    def prepare(self, mode: str, first_batch: Any, checkpoint_path: str | None,
                restore_rng: bool = False) -> EstimatorSpec:
        """Calls model_fn on the first batch (creating its objects on the first call), then
        loads the checkpoint (or warm-starts); returns that call's EstimatorSpec."""
        features, labels = _inputs.split_batch(first_batch, mode)
        if self.state.is_built():  # a later call, maybe on another device: the model goes there first
            self.place_model()
        try:
            with torch.set_grad_enabled(mode == ModeKeys.TRAIN), step_autocast(self.device):
                spec = self.call_model_fn(features, labels, mode)
        except Exception as e:
            # As TF, a model_fn taking labels gets None when input_fn yields features only (the
            # TF guides' model_fns read labels from the features); name that when it fails.
            if mode == ModeKeys.TRAIN and labels is None and "labels" in self.model_fn_args:
                raise ValueError(
                    "Labels are missing in TRAIN mode: input_fn returned features only, so model_fn "
                    f"received labels=None, and it failed: {type(e).__name__}: {e}. Make input_fn "
                    "return (features, labels)."
                ) from e
            raise
        if mode == ModeKeys.TRAIN:
            self.build_optimizers(check_train_op(spec.train_op))
        path = checkpoint_path
        if path is not None and storage.isdir(path):
            path = ckpt.latest_checkpoint(path)
        if path is not None:
            self.state.restore(path, restore_rng=restore_rng)
            return spec
        self.state.initialize_step()
        if self.warm_start_settings is not None:
            warm_start(self.state, self.warm_start_settings)
        init_fn = getattr(spec.scaffold, "init_fn", None)
        if init_fn is not None and not self.state.scaffold_initialized:
            self.state.scaffold_initialized = True  # once, when the model is first created
            init_fn(Session(self, mode))
        return spec

    def build_optimizers(self, train_op: TrainOp) -> None:
        """Builds each optimizer of `train_op` for its variables (those the loss depends on
        when model_fn named none)."""

        for index, (optimizer, loss, var_list) in enumerate(train_op.entries):
            if callable(var_list):
                var_list = var_list()
            if var_list is None:
                var_list = self.state.var_cache.setdefault(
                    index, [p for p in parameters_of(loss) if p.requires_grad]
                )
            optimizer.build(list(var_list))

    def place_model(self) -> None:
        """Moves the model's layers (weights and buffers), the variables model_fn made outside
        any layer (`tf.Variable`, `tf.compat.v1.get_variable`) and the state of the optimizers
        model_fn made (slots, EMA copies) to the runtime's device, in place: each Parameter,
        variable and slot keeps its object, so the optimizers keep training the model's own
        weights."""
        move_training_state(self.state.layers(), self.state.optimizers(), self.device,
                            keras_optimizer_state,
                            variables=[v for _, v in self.state.free_variables()])

    @contextlib.contextmanager
    def on_device(self, device: torch.device) -> Iterator[None]:
        """The runtime on `device` for the block: model_fn creates its objects there and
        `prepare` moves a model built earlier there. Afterwards the runtime's device is back,
        and so is a model that was built before the block (with its optimizers' state)."""
        previous, was_built = self.device, self.state.is_built()
        self.device = device
        try:
            yield
        finally:
            self.device = previous
            if was_built and previous is not None and previous != device:
                self.place_model()

    def set_training(self, training: bool = True) -> None:
        """Puts the model's layers in train (True) or eval mode."""
        for layer in self.state.layers():
            layer.train(training)

    # ------------------------------------------------------------------ distribution
    @contextlib.contextmanager
    def distributed(self, field: str) -> Iterator[Any]:
        """`parallel` is the `DataParallel` of `config.<field>` ('train_distribute' or
        'eval_distribute') for the block, when it has several replicas (this process then takes
        its role in the cluster: only the chief writes), else None; yields it."""

        strategy = getattr(self.config, field)
        if strategy is None and field == "train_distribute":
            strategy = implicit_strategy(self.config)  # a TF_CONFIG with ps tasks: synchronous
        parallel = None
        if strategy is not None:
            parallel = data_parallel(strategy)
            if parallel is not None:
                self.config._init_from_worker_context(parallel.task_type, parallel.task_id,
                                                      parallel.is_chief)
        previous, self.parallel = self.parallel, parallel
        try:
            yield parallel
        finally:
            self.parallel = previous

    def broadcast_state(self) -> None:
        """Gives every replica the chief's weights, buffers and global step."""
        variables = self.state.named_variables()
        self.parallel.broadcast_([variables[name] for name in sorted(variables)])
        self.state.global_step = int(self.parallel.broadcast_object(int(self.state.global_step)))
        begin_training = getattr(self.parallel, "begin_training", None)
        if begin_training is not None:  # FSDPStrategy: the layers sharded across the replicas
            begin_training(self.state)

    # ------------------------------------------------------------------ one call
    def first_batch(self, input_fn: Callable, mode: str,
                    skip: int = 0) -> tuple[Any, Iterator, torch.device | None]:
        """Calls input_fn, skips `skip` batches (none when that used the input up: see
        `_inputs.batches_from`); returns (first batch on the device or None, the iterator of the
        rest, the device later batches must be moved to or None)."""
        parallel = self.parallel
        context = parallel.input_context() if parallel is not None else None

        def make_batches() -> Any:
            batches = _inputs.call_input_fn(input_fn, mode, self.params, self.config, context)
            if parallel is not None and not _takes_input_context(input_fn):
                batches = parallel.shard(batches)  # TF's auto-sharding: by file, else by element
            return batches

        first, iterator = _inputs.batches_from(make_batches, skip)
        if first is None:
            return None, iterator, None
        return loop.to_device(first, self.device), iterator, transfer_device(first, self.device)

    @contextlib.contextmanager
    def mode_run(self, mode: str, input_fn: Callable, hook_layout: Callable[[], list],
                 checkpoint_path: str | None, position: int = 0) -> Iterator[ModeRun | None]:
        """One train/evaluate/predict call's set-up and tear-down around the caller's steps.

        Calls input_fn (skipping `position` batches), builds the model on the first
        batch and restores `checkpoint_path` (`prepare`), places the model, resets
        streaming metrics (not in predict), makes the Session and the HookRunner
        with `hook_layout()` (the spec's hooks in their places), calls `begin` and
        `after_create_session`, and yields a `ModeRun`; None (nothing set up) when
        input_fn yields no batch. Hooks' `end` runs only when the caller's block
        completes; the input iterator is closed however it ends; train closes the
        summary writers, and on Ctrl-C saves the steps made (the CheckpointSaverHook's
        `end`, as TF) before re-raising. Predict seeds its set-up only
        (`tf_random_seed`): its steps run between its caller's code.
        """
        training = mode == ModeKeys.TRAIN
        setup_rng = seeded_rng(self.config.tf_random_seed) if mode == ModeKeys.PREDICT else contextlib.nullcontext()
        with setup_rng:
            first, iterator, device = self.first_batch(input_fn, mode, position)
            if mode != ModeKeys.PREDICT and self.parallel is not None and not _all_agree(first is not None):
                if not training:  # evaluation sums every replica's state: each needs data
                    close_iterator(iterator)
                    raise ValueError(
                        "evaluate() under eval_distribute: the input_fn of at least one replica yielded "
                        "no batch (its shard is empty); give every replica at least one batch.")
                first = None  # a replica has no input: none trains (the replicas step together)
            try:
                build_spec = None if first is None else self.prepare(mode, first, checkpoint_path,
                                                                     restore_rng=training)
            except BaseException:
                close_iterator(iterator)
                raise
        if first is None:
            close_iterator(iterator)
            yield None
            return
        session = Session(self, mode)
        runner = None
        try:
            self.place_model()
            if training and self.parallel is not None:
                self.broadcast_state()  # every replica starts from the chief's weights
            self.set_training(training)
            if mode != ModeKeys.PREDICT:
                for metric in self.state.metrics():  # streaming metrics start afresh, as TF's locals
                    metric.reset_state()
            if training:
                session.input_position = position
            runner = HookRunner(hook_layout(), session)
            runner.set_spec_hooks(build_spec)
            runner.begin()
            runner.after_create_session()
            yield ModeRun(session, runner, chain_batches(first, iterator), device)
            runner.end()
        except KeyboardInterrupt:
            if training and runner is not None:
                # As TF's CheckpointSaverHook.end: keep the steps made so far, then stop.
                for hook in runner.hooks:
                    if isinstance(hook, basic_hooks.CheckpointSaverHook):
                        hook.end(session)
            raise
        finally:
            close_iterator(iterator)
            if training:
                self.close_writers()

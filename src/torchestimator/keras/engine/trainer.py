"""Keras' training API — `compile`, `fit`, `evaluate`, `predict` — as a front on the
project's one training loop (`torchestimator._engine.loop`).

`train_step`, `test_step` and `predict_step` are the overridable units of
work; `fit` runs `train_step` on each batch through `run_steps`, with Keras
callbacks as the step events. Logged values stay tensors until a callback or
the progress bar reads them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine import loop
from torchestimator._engine.dir_lock import hold_locks
from torchestimator._engine.interrupts import interrupts_between_steps
from torchestimator._ops import nest
from torchestimator.config import functions_run_eagerly as _functions_run_eagerly
from torchestimator.distribute._data_parallel import data_parallel
from torchestimator.keras import optimizers
from torchestimator.keras.callbacks import CallbackList
from torchestimator.keras.engine._callback_events import CallbackEvents as _CallbackEvents
from torchestimator.keras.engine._compile_config import serialize_compile_config
from torchestimator.keras.engine._device_moves import StepPlacement
from torchestimator.keras.engine._distribute_callbacks import adapt_callbacks
from torchestimator.keras.engine._fit_arguments import (
    concat_outputs,
    replica_data_type,
    resolve_verbose,
    should_validate,
    strategy_in_scope,
)
from torchestimator.keras.engine._jit_compile import compiled_forward as _compiled_forward
from torchestimator.keras.engine._jit_compile import forget_compiled
from torchestimator.keras.engine._layer_extras import ADDED_METRICS, added_metrics
from torchestimator.keras.engine._model_extras import ModelExtras
from torchestimator.keras.engine._trainer_methods import BatchMethods, ModelFiles
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.compile_utils import (
    LossesContainer,
    LossTracker,
    MetricsContainer,
    python_metric_logs,
    result_logs,
    to_python_logs,
)
from torchestimator.keras.engine.data_adapter import (
    ArrayData,
    apply_class_weight,
    make_data,
    pack_x_y_sample_weight,
    unpack_x_y_sample_weight,
)
from torchestimator.keras.mixed_precision._grad_scaler import (
    loss_scaled_for_float16,
    scaled_torch_step,
)
from torchestimator.keras.utils._spe_tuning import tuner_for

# Keras 2.15 raises "Unexpected result of `train_function` (Empty logs)..." when fit's first
# epoch makes no step; ours keeps that opening and says what it means.
_EMPTY_FIT = (
    "Unexpected result of `train_function` (Empty logs): fit() made no training step because "
    "the training data produced no batches (an empty array, a Dataset that is empty after "
    "filter/take/shard, an empty file, or a generator that was already consumed: a generator "
    "can be iterated only once). Check `x`; to train several epochs from a generator, "
    "pass a Dataset or repeat() it and give steps_per_epoch."
)
_EMPTY_EVALUATE = (
    "{what} received no data: the evaluation input produced no batches, so there is no loss "
    "or metric to report (an empty array, a Dataset that is empty after filter/take/shard, or "
    "a generator that was already consumed). Check the data passed to {what}."
)


class Trainer(StepPlacement, BatchMethods, ModelFiles, ModelExtras):
    """The mixin that gives `Model` Keras' training and inference methods (the `*_on_batch`
    methods and the model-file methods are in `_trainer_methods.py`, the step functions, the
    deprecated `*_generator` fronts and other `Model` methods in `_model_extras.py`)."""

    def _init_trainer(self) -> None:
        self.optimizer = None
        self.compiled_loss: LossesContainer | None = None
        self.compiled_metrics: MetricsContainer | None = None
        self.loss = None
        self._is_compiled = False
        self.stop_training = False
        self.history = None
        self._initial_epoch: int | None = None
        self._initial_step = 0
        self._device: torch.device | None = None
        self._run_eagerly: bool | None = None  # None: tf.config.functions_run_eagerly()
        self._jit_compile = False
        self._steps_per_execution = 1
        self._compile_config: dict | None = None
        self._optimizer_built_for: int = -1
        self._loss_sources: list | None = None
        self._step_autocast: Any = None  # the forward's autocast while a mixed model's steps run
        self._grad_scaler: Any = None  # a torch optimizer's loss scaling under mixed_float16

    # ------------------------------------------------------------------ compile
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        loss_weights: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool | None = None,
        steps_per_execution: int | str | None = None,
        jit_compile: bool | None = None,
        **kwargs: Any,
    ) -> None:
        """Configures the model for training: optimizer, loss(es) and metrics.

        Each may be a string identifier or an object; for models with several
        outputs, `loss`, `metrics` and `loss_weights` may be lists (by output
        position) or dicts (by output name). `jit_compile=True` runs the
        forward pass through `torch.compile`; None (TF's default) is False.
        `steps_per_execution` None (TF's default) is 1. `run_eagerly` None (TF's default)
        leaves `model.run_eagerly` to `tf.config.functions_run_eagerly()`, as TF does (every
        step runs eagerly on PyTorch whatever it says).

        PyTorch objects work too: `optimizer` may be a `torch.optim.Optimizer`,
        `(optimizer, lr_scheduler)` (the scheduler steps at the end of every epoch)
        or `{"optimizer": ..., "lr_scheduler": ...}` (`tf.keras.optimizers.from_torch`);
        a `torch.nn` loss module (or `torch.nn.functional` function) is called as
        torch calls it, `loss(y_pred, y_true)` with the labels as given
        (`tf.keras.losses.from_torch` marks any function so); torchmetrics
        `Metric`s in `metrics` are updated with `update(y_pred, y_true)`.
        """

        kwargs.pop("sample_weight_mode", None)
        kwargs.pop("target_tensors", None)
        kwargs.pop("pss_evaluation_shards", None)
        if kwargs:
            raise TypeError(f"compile() got unexpected keyword argument(s) {sorted(kwargs)}")
        if steps_per_execution is None:
            steps_per_execution = 1
        autotune = isinstance(steps_per_execution, str) and steps_per_execution == "auto"
        if autotune:  # Keras 2.15: start at 1, a StepsPerExecutionTuner changes it during fit
            steps_per_execution = 1
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(
                "steps_per_execution must be a positive integer or 'auto'; received "
                f"{steps_per_execution!r}"
            )
        self.optimizer = loss_scaled_for_float16(self, optimizers.get(optimizer))
        self._grad_scaler = None
        self._optimizer_built_for = -1
        # a torch loss module is what compile got, not a child of the model (its buffers are
        # no weights of the model's state_dict)
        self._modules.pop("loss", None)
        object.__setattr__(self, "loss", loss)
        # the arguments as JSON (loss and metric objects with their Keras config), taken before
        # the metric containers prefix metric names with output names (_compile_config.py)

        self._compile_config = serialize_compile_config(
            optimizer, loss, metrics, loss_weights, weighted_metrics
        )
        names = self._compiled_output_names()
        self.compiled_loss = LossesContainer(loss, loss_weights, names)
        self.compiled_metrics = MetricsContainer(
            metrics, weighted_metrics, names, self.compiled_loss.loss_fns
        )
        self._run_eagerly = None if run_eagerly is None else bool(run_eagerly)
        self._steps_per_execution = steps_per_execution
        self._autotune_steps_per_execution = autotune
        self._jit_compile = bool(jit_compile)
        forget_compiled(self)
        self._reset_compile_cache()
        self._is_compiled = True
        self._distribute_strategy = strategy_in_scope()  # `with strategy.scope(): compile(...)`

    def _compiled_output_names(self) -> list[str]:
        outputs = getattr(self, "_nested_outputs", None)
        if isinstance(outputs, dict):
            return sorted(outputs)
        names = self.output_names
        if outputs is None or len(nest.flatten(outputs)) <= 1:
            return names[:1] or ["output_1"]
        return names

    def _assert_compiled(self, what: str) -> None:
        if not self._is_compiled:
            raise RuntimeError(
                f"You must compile your model before {what}. Call `model.compile(optimizer, loss)`."
            )

    @property
    def run_eagerly(self) -> bool:
        """Accepted for compatibility: every step runs eagerly on PyTorch. As in TF, it is the
        value set (by `compile` or this setter), else `tf.config.functions_run_eagerly()`."""
        if self._run_eagerly is None:
            return bool(_functions_run_eagerly())
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._run_eagerly = bool(value)

    @property
    def distribute_strategy(self) -> Any:
        """The distribution strategy the model trains under (None when not distributed)."""
        return getattr(self, "_distribute_strategy", None)

    # ------------------------------------------------------------------ metrics
    @property
    def metrics(self) -> list:
        """The model's metric objects: loss trackers, then compiled metrics, then the metrics
        its layers added with `add_metric`."""
        out = []
        if self.compiled_loss is not None:
            out.extend(self.compiled_loss.metrics)
        if self.compiled_metrics is not None:
            out.extend(self.compiled_metrics.metrics)
        if ADDED_METRICS[0]:
            out.extend(added_metrics(self))
        return out

    @property
    def metrics_names(self) -> list[str]:
        """The names of the values `evaluate` returns (`['loss', 'accuracy']`)."""
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Resets the state of every metric of the model."""
        for metric in self.metrics:
            metric.reset_state()

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None
    ) -> torch.Tensor:
        """Returns the total loss of a batch: compiled losses plus the model's `losses`."""
        if self.compiled_loss is None:
            self._assert_compiled("computing a loss")
        if self._loss_sources is None:
            self._loss_sources = [
                layer for layer in self._flatten_layers()
                if any(p._keras_regularizer is not None for p in layer._own_weights)
            ]
        added = CONTEXT.losses_generation == CONTEXT.generation
        extra = self.losses if (self._loss_sources or added) else None
        return self.compiled_loss(y, y_pred, sample_weight, extra)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> dict:
        """Updates the compiled metrics with a batch and returns `get_metrics_result()`."""
        if y is not None:
            self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict:
        """Returns `{name: value}` of every metric (tensors; no device sync)."""
        return result_logs(self.metrics)

    def _python_metrics_result(self) -> dict:
        """`get_metrics_result()` as Python numbers (the logs of an epoch or an evaluation);
        without an override of `get_metrics_result`, loss trackers are read on the host."""
        if type(self).get_metrics_result is Trainer.get_metrics_result:
            return python_metric_logs(self.metrics)
        return to_python_logs(self.get_metrics_result())

    def _epoch_logs(self, last_outputs: Any) -> dict:
        """An epoch's logs, as Keras 2.15's fit: the metrics' results, unless an overridden
        `train_step` returned a dict whose keys are not the metrics' names (e.g. `{'loss': loss}`
        from a step that never called the compiled loss, whose loss metric Keras has not built
        then): that last dict."""
        logs = self._python_metrics_result()
        if type(self).train_step is Trainer.train_step or not isinstance(last_outputs, Mapping):
            return logs
        unused = {m.name for m in self.metrics if isinstance(m, LossTracker) and not m.updated()}
        logs = {k: v for k, v in logs.items() if k not in unused}
        if set(last_outputs) != set(logs):
            return to_python_logs(last_outputs)
        return logs

    def _step_of(self, step: Any, default: Any, data: Any) -> Any:
        """`step` as the loop calls it: an overridden train/test/predict step gets `x` itself,
        not `(x,)`, for an `x` given alone (as Keras 2.15's: `data` is the images of an
        autoencoder's `train_step`); the default steps unpack either."""
        if getattr(type(self), step.__name__) is default:
            return step

        def call(batch: Any) -> Any:
            if type(batch) is tuple and len(batch) == 1 and getattr(data, "single_x", False):
                return step(batch[0])
            return step(batch)

        return call

    # ------------------------------------------------------------------ steps
    def _forward(self, x: Any, training: bool) -> Any:
        """`self(x, training=training)` (through `torch.compile` with `jit_compile=True`), under
        `torch.autocast` to the compute dtype while the steps of a mixed-precision model run
        (`mixed_precision._autocast.model_precision`)."""
        autocast = self._step_autocast
        if autocast is not None:
            with autocast():
                return self._forward_in_dtype(x, training)
        return self._forward_in_dtype(x, training)

    def _forward_in_dtype(self, x: Any, training: bool) -> Any:
        if self._jit_compile:
            return _compiled_forward(self, x, training)
        # `training=` is given as the call context's flag, which is what the argument sets for
        # the model's `call` and every nested layer (`Layer._call_in_context`): the call then
        # has one positional argument, the form `Layer.__call__`'s fast path takes.
        context = CONTEXT
        previous = context.training
        context.training = training
        try:
            return self(x)
        finally:
            context.training = previous

    def _data_parallel(self) -> Any:
        """The `DataParallel` of the strategy the model was compiled under, when it has several
        replicas (else None)."""
        strategy = getattr(self, "_distribute_strategy", None)
        if strategy is None or strategy.num_replicas_in_sync <= 1:
            return None

        return data_parallel(strategy)

    def _apply_optimizer(self, loss: torch.Tensor) -> None:
        if self._optimizer_built_for < 0:
            weights = self.trainable_weights
            self.optimizer.build(weights)
            self._optimizer_built_for = len(weights)
        if self._optimizer_built_for == 0 and not loss.requires_grad:
            return  # no trainable weights: as TF's, applying no gradients is a no-op
        scaler = self._grad_scaler
        if scaler is not None and scaler[0] == loss.device.type:
            scaled_torch_step(scaler[1], scaler[2], loss, self.optimizer)
            return
        scaled = getattr(self.optimizer, "get_scaled_loss", None)  # a LossScaleOptimizer
        loop.optimize(loss if scaled is None else scaled(loss), self.optimizer)

    def _optimizer_state(self) -> dict | None:
        """The training state of the compiled optimizer(s) that a backup of training keeps
        (`optimizer.state_dict()`), or None when there is no optimizer with a state."""
        optimizer = getattr(self, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "state_dict"):
            return None
        return optimizer.state_dict()

    def _load_optimizer_state(self, state: dict) -> None:
        """Restores the state `_optimizer_state` returned into the compiled optimizer(s)."""
        self.optimizer.load_state_dict(state)

    def train_step(self, data: Any) -> dict:
        """One training step on a batch `(x, y[, sample_weight])`: forward, loss, gradient,
        optimizer update, metrics. Returns the metrics' current values."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, training=True)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._apply_optimizer(loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict:
        """One evaluation step: forward, loss and metrics. Returns the metrics' values."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, training=False)
        if y is not None:
            self.compute_loss(x, y, y_pred, sample_weight)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """One inference step: returns the model's outputs for the batch's `x`."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self._forward(x, training=False)

    # ------------------------------------------------------------------ helpers
    def _callback_list(self, callbacks: Any, verbose: int, epochs: int, steps: int | None,
                       add_history: bool) -> Any:
        if callbacks is not None and not isinstance(callbacks, (list, tuple, CallbackList)):
            callbacks = [callbacks]
        if isinstance(callbacks, CallbackList):
            return callbacks
        return CallbackList(
            list(callbacks or []), add_history=add_history, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=epochs, steps=steps,
        )

    def _build_from_data(self, data: Any, device: torch.device) -> None:
        """Builds the model's weights with one forward pass on the first batch (so callbacks that
        restore weights at train begin find them); the epochs' iterator is left alone."""
        peek = getattr(data, "peek", None)
        batch = peek() if peek is not None else next(iter(data), None)
        if batch is None:
            return
        x, _, _ = unpack_x_y_sample_weight(loop.to_device(batch, device))
        with torch.no_grad():
            self(x, training=False)

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: dict | None = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: Any = 1,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Trains the model for `epochs` epochs and returns a `History` whose `history` dict
        holds the loss and metric values of each epoch (`val_` ones with validation)."""
        if "nb_epoch" in kwargs:
            warnings.warn("The `nb_epoch` argument in `fit` has been renamed `epochs`.", stacklevel=2)
            epochs = kwargs.pop("nb_epoch")
        if kwargs:
            raise TypeError(f"fit() got unexpected keyword argument(s) {sorted(kwargs)}")
        self._assert_compiled("training/testing")
        verbose = resolve_verbose(verbose)
        queue_args = dict(workers=workers, use_multiprocessing=use_multiprocessing,
                          max_queue_size=max_queue_size)
        data = make_data(x, y, sample_weight, batch_size, steps_per_epoch, shuffle,
                         epochs=epochs - initial_epoch, **queue_args)
        val_data = None
        if validation_data is not None:
            vx, vy, vsw = (
                unpack_x_y_sample_weight(validation_data)
                if isinstance(validation_data, (tuple, list)) else (validation_data, None, None)
            )
            val_data = make_data(vx, vy, vsw, validation_batch_size or batch_size, validation_steps,
                                 **queue_args)
        elif validation_split:
            if not isinstance(data, ArrayData):
                raise ValueError(
                    "`validation_split` is only supported for numpy arrays, tensors and "
                    "DataFrames, not for datasets or generators; pass `validation_data` instead."
                )
            val_data = data.split(validation_split)
            val_data.batch_size = validation_batch_size or data.batch_size
        parallel = self._data_parallel()
        if parallel is not None:  # each replica trains on its part of every global batch
            data = parallel.replica_data(data, synced=True)
            val_data = None if val_data is None else parallel.replica_data(val_data, synced=False)
        device = self._place()
        if isinstance(data, ArrayData):  # (validation data: in `_evaluate_data`)
            data.device = device  # one-hot labels' class ids recorded where the steps run
        if not self.built:
            self._build_from_data(data, device)
        self._loss_sources = None
        self._optimizer_built_for = -1
        cbs = self._callback_list(callbacks, verbose, epochs, data.steps, add_history=True)
        if parallel is not None:
            adapt_callbacks(parallel, cbs)  # file-writing callbacks run on the chief only
        self.stop_training = False
        self._initial_epoch = None
        self._initial_step = 0
        tuner = None
        if getattr(self, "_autotune_steps_per_execution", False):
            tuner = tuner_for(self)
        events = _CallbackEvents(self, cbs, "train", self._steps_per_execution,
                                 tuned=tuner.steps_per_execution if tuner is not None else None,
                                 steps=data.steps)
        train_fn = self._step_of(self.train_step, Trainer.train_step, data)
        custom = self._front_step("train")  # an overriding make_train_function's function
        if custom is not None:
            train_fn = custom
        if class_weight:
            def train_fn(batch: Any, _step=custom or self.train_step) -> dict:
                bx, by, bsw = unpack_x_y_sample_weight(batch)
                return _step(pack_x_y_sample_weight(bx, by, apply_class_weight(by, bsw, class_weight)))
        # one writer per directory the callbacks write; Ctrl-C between steps for every epoch
        with contextlib.ExitStack() as locks, interrupts_between_steps(), self._mixed_precision(device):
            hold_locks(locks, [lock for c in cbs.callbacks
                               for lock in getattr(c, "_write_locks", list)()], "Model.fit")
            cbs.on_train_begin()
            if tuner is not None:
                tuner.start()
            if parallel is not None:  # every replica starts from the chief's weights and epoch
                parallel.broadcast_module_(self)
                self._initial_epoch, self._initial_step = parallel.broadcast_object(
                    (self._initial_epoch, self._initial_step))
            start = initial_epoch if self._initial_epoch is None else self._initial_epoch
            # A backup made inside an epoch (BackupAndRestore's save_freq=N) resumes that epoch
            # at the batch after it, as TF's `_initial_step`: the batches before it are skipped.
            skip = max(0, int(self._initial_step or 0)) if self._initial_epoch is not None else 0
            self._initial_epoch, self._initial_step = None, 0
            logs: dict = {}
            trained = 0  # the steps this fit made
            end_epoch = getattr(self.optimizer, "_end_epoch", None)  # a torch LR scheduler's step
            for epoch in range(start, epochs):
                self.reset_metrics()
                cbs.on_epoch_begin(epoch)
                if not self.training:
                    self.train()
                events.first = skip
                with parallel.averaging_gradients() if parallel is not None else contextlib.nullcontext():
                    made = loop.run_steps(train_fn, data.batches(skip) if skip else data, events,
                                          device=device)
                if made == 0 and trained == 0 and not skip:
                    raise ValueError(_EMPTY_FIT)
                trained += made
                events.first = skip = 0
                if parallel is not None:
                    parallel.sum_metric_state(self.metrics)  # the epoch's metrics over all replicas
                logs = self._epoch_logs(events.last_outputs)
                if val_data is not None and should_validate(epoch, validation_freq):
                    val_logs = self._evaluate_data(val_data, device, None, verbose=0,
                                                   what="fit(validation_data=...)")
                    logs.update({f"val_{k}": v for k, v in val_logs.items()})
                if end_epoch is not None:
                    end_epoch(logs)
                cbs.on_epoch_end(epoch, logs)
                if self.stop_training or getattr(data, "ran_out", False):
                    break  # TF's `_insufficient_data`: the input ended before its steps
            self.eval()
            cbs.on_train_end(logs)
            if tuner is not None:
                tuner.stop()
        self.history = getattr(cbs, "history", None) or next(
            (c for c in getattr(cbs, "callbacks", []) if type(c).__name__ == "History"), None
        )
        return self.history

    # ------------------------------------------------------------------ evaluate
    def _evaluate_data(self, data: Any, device: torch.device, callbacks: Any, verbose: int,
                       what: str = "evaluate()") -> dict:
        self.reset_metrics()
        if self.training:
            self.eval()
        restart = getattr(data, "restart", None)
        if restart is not None:
            restart()  # each evaluation reads the input from its start, as TF's
        if isinstance(data, ArrayData):
            data.device = device  # one-hot labels' class ids recorded where the steps run
        events = _CallbackEvents(self, callbacks, "test") if callbacks is not None else None
        if callbacks is not None:
            callbacks.on_test_begin()
        test_fn = self._front_step("test") or self._step_of(self.test_step, Trainer.test_step, data)
        with self._mixed_precision(device):
            made = loop.run_steps(test_fn, data, events, device=device, grad_enabled=False)
        if made == 0:
            raise ValueError(_EMPTY_EVALUATE.format(what=what))
        parallel = self._data_parallel()
        if parallel is not None and isinstance(data, replica_data_type()):
            parallel.sum_metric_state(self.metrics)  # each replica evaluated its part
        logs = self._python_metrics_result()
        if callbacks is not None:
            callbacks.on_test_end(logs)
        return logs

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        return_dict: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Returns the loss and metric values on the data: `[loss, *metrics]` (the scalar loss
        when there are no metrics), or a dict with `return_dict=True`."""
        if kwargs:
            raise TypeError(f"evaluate() got unexpected keyword argument(s) {sorted(kwargs)}")
        self._assert_compiled("evaluating")
        verbose = resolve_verbose(verbose)
        data = make_data(x, y, sample_weight, batch_size, steps, workers=workers,
                         use_multiprocessing=use_multiprocessing, max_queue_size=max_queue_size)
        parallel = self._data_parallel()
        if parallel is not None:
            data = parallel.replica_data(data, synced=False)
        device = self._place()
        cbs = self._callback_list(callbacks, verbose, 1, data.steps, add_history=False)
        return self._format_batch_logs(self._evaluate_data(data, device, cbs, verbose), return_dict)

    # ------------------------------------------------------------------ predict
    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
    ) -> Any:
        """Returns the model's outputs for `x` as numpy arrays, in the structure of the outputs."""
        verbose = resolve_verbose(verbose)
        data = make_data(x, None, None, batch_size, steps, workers=workers,
                         use_multiprocessing=use_multiprocessing, max_queue_size=max_queue_size)
        device = self._place()
        cbs = self._callback_list(callbacks, verbose, 1, data.steps, add_history=False)
        self.eval()
        outputs: list = []

        predict_step = (self._front_step("predict")
                        or self._step_of(self.predict_step, Trainer.predict_step, data))

        def step(batch: Any) -> Any:
            out = predict_step(batch)
            outputs.append(out)
            return {"outputs": out}

        cbs.on_predict_begin()
        with self._mixed_precision(device):
            loop.run_steps(step, data, _CallbackEvents(self, cbs, "predict"), device=device,
                           grad_enabled=False)
        cbs.on_predict_end()
        if not outputs:
            raise ValueError("predict() received no data: the input is empty.")
        return concat_outputs(outputs)

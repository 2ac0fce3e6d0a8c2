"""`Estimator`: trains, evaluates and predicts with a `model_fn`, on the project's one loop.

`model_fn(features, labels, mode, params, config)` runs eagerly on every batch
inside the Estimator's object scope, so the layers, optimizers and metrics it
constructs are made once and reused (see `_engine.object_scope`). The
global step, checkpoints (`model_dir/model.ckpt-<step>`), summaries and
hooks follow TF 2.15's Estimator.
"""

from __future__ import annotations

import copy
import inspect
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import gradient_sync, loop, storage
from torchestimator._engine.dir_lock import directory_lock
from torchestimator._engine.train_op import TrainOp
from torchestimator.distribute._data_parallel import leave_if_ps_task
from torchestimator.estimator import _fsdp, _inputs
from torchestimator.estimator._hparams_summary import write_hparams
from torchestimator.estimator._model_runtime import ModelRuntime
from torchestimator.estimator._model_state import ModelState
from torchestimator.estimator._placement import HostFeatures, device_fn_scope, device_for_call
from torchestimator.estimator._predictions import extract_predictions, split_examples
from torchestimator.estimator._runtime import (
    check_train_op,
    loss_step_formatter,
    seed_everything,
    seeded_rng,
)
from torchestimator.estimator._session import _to_numpy
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.export._estimator_export import export_saved_model
from torchestimator.estimator.hooks import basic_hooks
from torchestimator.estimator.hooks._progress import ProgressHook, progress_enabled
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.estimator.run_config import RunConfig
from torchestimator.estimator.warm_starting import resolve_warm_start
from torchestimator.io.gfile import _split
from torchestimator.keras.mixed_precision._autocast import step_autocast
from torchestimator.train import _global_step

logger = logging.getLogger("torchestimator")

_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "config", "self"}


def _fn_args(fn: Callable) -> set[str]:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


def _warn_eval_summaries_not_written(logdir: str, error: Exception) -> None:
    """The warning of an evaluation whose summaries could not be written to `logdir`."""
    warnings.warn(
        f"Estimator.evaluate: could not write the eval summaries to {logdir} ({error}); the "
        "metrics are returned but not recorded for TensorBoard. Make the model_dir writable "
        "(or remove what is in the way at that path) to record them.",
        stacklevel=5,  # evaluate()'s caller
    )


def _check_hooks(hooks: Any, what: str) -> list:
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"{what} must be SessionRunHook instances; received {hook!r}")
    return hooks



def _local_model_dir(model_dir: str) -> str:
    """`model_dir` as the Estimator keeps it: a local path (`file://` stripped), or the URL of a
    store (`s3://bucket/run`, `gs://...`, `memory://...`) written through fsspec, whose package
    must be installed (s3fs for s3://): the error names the scheme and the package otherwise."""
    model_dir = storage.local(model_dir)
    if storage.is_url(model_dir):
        _split(model_dir)  # UnimplementedError naming the package when the scheme has none
    return model_dir


def _distributed_run() -> bool:
    """Whether this process is one of several of a torch.distributed group."""
    return torch.distributed.is_available() and torch.distributed.is_initialized() and \
        torch.distributed.get_world_size() > 1


class Estimator:
    """Estimator class to train and evaluate models, as `tf.estimator.Estimator`.

    Args:
        model_fn: `(features, labels, mode, params, config) -> EstimatorSpec`
            (any subset of those argument names, `features` required).
        model_dir: where checkpoints and summaries go: a folder, or the URL of one on a store
            (`s3://bucket/run`, `gs://...`; see docs/migrating-from-tensorflow.md); a temporary
            folder if None.
        config: a `RunConfig`.
        params: a dict handed to `model_fn` (and `input_fn`) when they take `params`.
        warm_start_from: a checkpoint path/folder or `WarmStartSettings`.
    """

    def __init__(self, model_fn: Callable, model_dir: str | None = None, config: RunConfig | None = None,
                 params: dict | None = None, warm_start_from: Any = None):
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        args = _fn_args(model_fn)
        if "features" not in args:
            raise ValueError(f"model_fn ({model_fn}) must include features argument.")
        unknown = args - _MODEL_FN_ARGS
        if unknown:
            raise ValueError(
                f"model_fn ({model_fn}) has following not expected args: {sorted(unknown)}; it may "
                f"take {sorted(_MODEL_FN_ARGS - {'self'})}."
            )
        if params is not None and "params" not in args:
            raise ValueError(
                f"model_fn ({model_fn}) does not include params argument, but params ({params}) "
                "is passed to Estimator."
            )
        if params is None and "params" in args:
            logger.warning("Estimator's model_fn (%s) includes params argument, but params are not "
                           "passed to Estimator.", model_fn)
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of RunConfig, but provided {config!r}.")
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
            if model_dir == "":
                raise ValueError("model_dir should be non-empty.")
            if config.model_dir is not None and storage.abspath(config.model_dir) != storage.abspath(model_dir):
                raise ValueError(
                    f"model_dir are set both in constructor and RunConfig, but with different values. "
                    f"In constructor: '{model_dir}', in RunConfig: '{config.model_dir}' "
                )
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            logger.warning("Using temporary folder as model directory: %s", model_dir)
        model_dir = _local_model_dir(model_dir)
        if not storage.is_url(model_dir):  # a store gets its objects when they are written
            os.makedirs(model_dir, exist_ok=True)
        self._model_dir = model_dir
        self._config = config.replace(model_dir=model_dir)
        self._params = copy.deepcopy(params or {})
        self._model_fn = model_fn
        self._model_fn_args = args

        # The model_fn caller, the model's state, device, writers and checkpoint managers: the
        # interface this class, export, the hooks' Session and the in-memory evaluator share.
        self._runtime = ModelRuntime(model_fn, args, self._params, self._config, model_dir,
                                     resolve_warm_start(warm_start_from))
        logger.info("Using config: %s", self._config)

    # ------------------------------------------------------------------ properties
    @property
    def model_dir(self) -> str:
        """The folder of checkpoints and summaries."""
        return self._model_dir

    @property
    def config(self) -> RunConfig:
        """A copy of the RunConfig."""
        return copy.deepcopy(self._config)

    @property
    def params(self) -> dict:
        """A copy of the params dict."""
        return copy.deepcopy(self._params)

    @property
    def model_fn(self) -> Callable:
        """The model_fn, bound to this Estimator's params: `(features, labels, mode, config)`."""

        def bound(features: Any, labels: Any, mode: str, config: RunConfig) -> EstimatorSpec:
            return self._runtime.call_model_fn(features, labels, mode)

        return bound

    def eval_dir(self, name: str | None = None) -> str:
        """`model_dir/eval` or `model_dir/eval_<name>`: where evaluate writes its summaries."""
        return storage.join(self._model_dir, "eval" if not name else f"eval_{name}")

    def latest_checkpoint(self) -> str | None:
        """The path of the newest complete checkpoint in model_dir, or None."""
        return ckpt.latest_checkpoint(self._model_dir)

    def get_variable_names(self) -> list[str]:
        """The names of the variables in the latest checkpoint (weights, optimizer state, global_step)."""
        path = self._require_checkpoint()
        return [name for name, _ in ckpt.list_variables(path) if not name.startswith("_rng/")]

    def get_variable_value(self, name: str) -> np.ndarray:
        """The value of variable `name` in the latest checkpoint, as numpy."""
        return ckpt.load_variable(self._require_checkpoint(), name)

    def _require_checkpoint(self) -> str:
        path = self.latest_checkpoint()
        if path is None:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return path

    @property
    def _state(self) -> ModelState:
        """The model's state (layers, optimizers, metrics, global step): the runtime's."""
        return self._runtime.state

    # ------------------------------------------------------------------ train
    def train(self, input_fn: Callable, hooks: list | None = None, steps: int | None = None,
              max_steps: int | None = None, saving_listeners: list | None = None) -> Estimator:
        """Trains the model on the batches of `input_fn`, resuming from the latest checkpoint.

        `steps` adds that many steps to the global step; `max_steps` stops at
        that global step (a no-op once reached); otherwise training runs until
        the input ends or a hook asks to stop. Returns self.

        The chief holds `model_dir`'s write lock for the whole call: a second
        process training into the same directory fails at once with an error
        naming the holder (see `TORCHESTIMATOR_LOCK_WAIT_SECS` to wait instead).
        """
        if self._config.task_type == "ps" and self._config.train_distribute is None:
            leave_if_ps_task(self._config)  # no parameter servers here: a ps task exits (status 0)
        if self._config.task_type in ("evaluator", "ps"):
            raise ValueError(
                f"Train has been called wrong configuration. Please use "
                f"tf.estimator.train_and_evaluate which calls proper API according to given "
                f"configuration. Current configuration: {self._config.task_type}."
            )
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        hooks = _check_hooks(hooks, "hooks")
        listeners = list(saving_listeners or [])
        for listener in listeners:
            if not isinstance(listener, basic_hooks.CheckpointSaverListener):
                raise TypeError(
                    f"saving_listeners must be CheckpointSaverListener instances; received {listener!r}"
                )
        self._runtime.device = device_for_call(self._config)
        with device_fn_scope(self._config), self._runtime.distributed("train_distribute") as parallel:
            with directory_lock(self._model_dir, "Estimator.train", enabled=self._config.is_chief):
                self._train(input_fn, hooks, steps, max_steps, listeners)
            if parallel is not None:
                parallel.barrier()  # the chief's last checkpoint is on disk for every replica
        return self

    def _train(self, input_fn: Callable, hooks: list, steps: int | None,
               max_steps: int | None, listeners: list) -> Estimator:
        latest = self.latest_checkpoint()
        meta = ckpt.checkpoint_metadata(latest) if latest is not None else {}
        if max_steps is not None and max_steps <= int(meta.get("global_step", 0)):
            logger.info("Skipping training since max_steps has already saved.")
            return self
        position = int((meta.get("extra") or {}).get("input_position") or 0)
        if latest is None and self._params and self._config.is_chief:
            write_hparams(self._runtime.summary_writer(self._model_dir), self._params)  # once per run
        if self._config.tf_random_seed is not None:
            seed_everything(self._config.tf_random_seed)  # TF's graph-level seed, every train()

        def hook_layout() -> list:
            return self._training_hooks(hooks, steps, max_steps, listeners)

        runtime = self._runtime
        with runtime.mode_run(ModeKeys.TRAIN, input_fn, hook_layout, latest, position) as run:
            if run is None:
                logger.warning("Training with estimator made no steps. Perhaps input is empty or misspecified.")
                logger.info("Loss for final step: None.")
                return self
            session = run.session
            state = runtime.state
            call_model_fn = runtime.call_model_fn
            var_cache = state.var_cache
            context = state.scope.context
            advance_global_step = _global_step.advance
            parallel = runtime.parallel
            sync = gradient_sync.NONE  # the strategy's GradientSync while its averaging is open (below)

            host, batches, device = HostFeatures.batches(run, parallel)
            forward_precision = step_autocast(self._runtime.device)

            def step_fn(batch: Any) -> Any:
                features, labels = _inputs.split_batch(batch, ModeKeys.TRAIN)
                with forward_precision:  # the global mixed policy's autocast (else a no-op)
                    spec = call_model_fn(features, labels, ModeKeys.TRAIN)
                if host.learning:
                    host.learn(features)
                train_op = spec.train_op
                if type(train_op) is not TrainOp:
                    train_op = check_train_op(train_op)
                if parallel is not None:  # the loss rides along the gradient all-reduce, for the hooks
                    parallel.carry_loss(spec.loss)
                if type(train_op) is TrainOp:
                    train_op.run(var_cache, sync)
                else:  # a NoOp, an assign's or BoostedTrees' op: steps no optimizer, takes no sync
                    train_op.run(var_cache)
                if parallel is not None:
                    parallel.finish_step()
                # One advance per train op: what model_fn's `global_step.assign_add(...)` recorded, or 1.
                state.global_step = advance_global_step(state.global_step, context.global_step_updates)
                session.input_position += 1
                session.spec = spec
                return spec

            def input_ends() -> None:
                session.input_ended = True

            if parallel is None:
                made = loop.run_steps(step_fn, batches, run.runner, device=device)
            else:  # gradients averaged over the replicas; a step runs when every replica has a batch
                with parallel.averaging_gradients() as sync:
                    made = loop.run_steps(step_fn, parallel.synced(run.batches, input_ends), run.runner,
                                          device=run.device)
            session.input_position = None  # completed: the next train() calls input_fn afresh
        if made == 0:
            logger.warning("Training with estimator made no steps. Perhaps input is empty or misspecified.")
        last = session.step_loss()
        logger.info("Loss for final step: %s.", None if last is None else float(last.detach()))
        return self

    def _training_hooks(self, hooks: list, steps: int | None, max_steps: int | None,
                        listeners: list) -> list:
        """The hooks of train() in TF's order: chief-only hooks (the checkpoint saver, the spec's
        training_chief_hooks), step counter, summary saver, then the worker hooks (the user's,
        stop-at-step, NaN, logging, the spec's training_hooks). `(field, None)` marks where the
        spec's hooks go."""
        config = self._config
        savers = [h for h in hooks if isinstance(h, basic_hooks.CheckpointSaverHook)]
        checkpointing = config.save_checkpoints_steps is not None or config.save_checkpoints_secs is not None
        chief: list = []
        if savers:
            savers[0]._listeners.extend(listeners)
        elif checkpointing:
            chief.append(basic_hooks.CheckpointSaverHook(
                self._model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, listeners=listeners,
            ))
        elif listeners:
            raise ValueError(
                "There should be a CheckpointSaverHook to use saving_listeners. Please set one of "
                "the RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs."
            )
        chief.append(("training_chief_hooks", None))
        if config.log_step_count_steps:
            chief.append(basic_hooks.StepCounterHook(every_n_steps=config.log_step_count_steps))
        if config.save_summary_steps:
            chief.append(basic_hooks.SummarySaverHook(save_steps=config.save_summary_steps))
        if progress_enabled():
            chief.append(ProgressHook(num_steps=steps, last_step=max_steps))
        if not config.is_chief:
            chief = []
        parallel = self._runtime.parallel
        if getattr(parallel, "shards_weights", False):  # FSDPStrategy: every replica gathers when the chief saves
            chief = _fsdp.training_hooks(parallel, chief, config, bool(savers))
        worker = list(hooks)
        if steps is not None or max_steps is not None:
            worker.append(basic_hooks.StopAtStepHook(num_steps=steps, last_step=max_steps))
        worker.append(basic_hooks.NanTensorHook("loss"))
        if config.log_step_count_steps:
            worker.append(basic_hooks.LoggingTensorHook(
                {"loss": "loss", "step": "global_step"}, every_n_iter=config.log_step_count_steps,
                formatter=loss_step_formatter(),
            ))
        worker.append(("training_hooks", None))
        return chief + worker

    # ------------------------------------------------------------------ evaluate
    def evaluate(self, input_fn: Callable, steps: int | None = None, hooks: list | None = None,
                 checkpoint_path: str | None = None, name: str | None = None) -> dict:
        """Evaluates the model on `input_fn`'s batches (all, or `steps` of them) and returns a dict
        of every eval metric plus `loss` and `global_step`; writes them to `eval_dir(name)`."""
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        hooks = _check_hooks(hooks, "hooks")
        path = checkpoint_path or self.latest_checkpoint()
        if path is None:
            logger.warning(
                "Could not find trained model in model_dir: %s, running initialization to evaluate.",
                self._model_dir,
            )
        self._runtime.device = device_for_call(self._config)
        with device_fn_scope(self._config), seeded_rng(self._config.tf_random_seed), \
                self._runtime.distributed("eval_distribute"):
            return self._evaluate(input_fn, steps, hooks, path, name)

    def _evaluate(self, input_fn: Callable, steps: int | None, hooks: list, path: str | None,
                  name: str | None) -> dict:
        def hook_layout() -> list:
            return list(hooks) + [("evaluation_hooks", None)]

        runtime = self._runtime
        with runtime.mode_run(ModeKeys.EVAL, input_fn, hook_layout, path) as run:
            if run is None:
                raise ValueError(
                    "evaluate() received no data: input_fn returned an empty input. Check input_fn."
                )
            session = run.session
            totals: list = [None, 0]
            call_model_fn = runtime.call_model_fn

            host, batches, device = HostFeatures.batches(run, runtime.parallel)
            forward_precision = step_autocast(self._runtime.device)

            def step_fn(batch: Any) -> Any:
                features, labels = _inputs.split_batch(batch, ModeKeys.EVAL)
                with forward_precision:  # the global mixed policy's autocast (else a no-op)
                    spec = call_model_fn(features, labels, ModeKeys.EVAL)
                if host.learning:
                    host.learn(features)
                loss = spec.loss.detach().to(torch.float64)
                totals[0] = loss if totals[0] is None else totals[0] + loss
                totals[1] += 1
                session.spec = spec
                return spec

            loop.run_steps(step_fn, batches, run.runner, max_steps=steps, device=device,
                           grad_enabled=False)
        parallel = runtime.parallel
        if parallel is not None:  # exact: the metric states and the loss totals are sums
            parallel.sum_metric_state(runtime.state.metrics())
            totals = parallel.sum_([torch.as_tensor(totals[0], dtype=torch.float64).reshape(()),
                                          torch.tensor(float(totals[1]), dtype=torch.float64)])
        spec = session.spec
        results: dict[str, Any] = {}
        for metric_name, value in (spec.eval_metric_ops if spec else {}).items():
            if metric_name in ("loss", "global_step"):
                raise ValueError(
                    f"Metric with name {metric_name!r} is not allowed, because Estimator already "
                    "defines a default metric with the same name."
                )
            results[metric_name] = _to_numpy(value)
        results["loss"] = np.float32(float(totals[0]) / max(float(totals[1]), 1))
        results["global_step"] = np.int64(self._state.global_step)
        if self._config.is_chief or self._config.task_type == "evaluator" or not _distributed_run():
            self._write_eval_summaries(results, name, path)  # a worker of a cluster writes nothing
        logger.info("Saving dict for global step %d: %s", self._state.global_step,
                    ", ".join(f"{k} = {v}" for k, v in sorted(results.items())))
        return results

    def _write_eval_summaries(self, results: dict, name: str | None, path: str | None) -> None:
        """Each scalar result as a TF1 `simple_value` summary at the global step (as TF's
        Estimator), and the checkpoint path as a text summary, into eval_dir(name).

        A directory that cannot be written (a read-only model_dir, a file where `eval/` would
        be, a full disk) does not lose the evaluation: a warning names the directory and the
        cause, and `evaluate` returns its metrics (TF's FileWriter would raise instead)."""
        logdir = self.eval_dir(name)
        try:
            writer = self._runtime.summary_writer(logdir)
        except (OSError, ValueError) as error:  # ValueError: a file sits at `logdir`
            _warn_eval_summaries_not_written(logdir, error)
            return
        step = int(results["global_step"])
        try:
            for key, value in results.items():
                if key == "global_step":
                    continue
                array = np.asarray(value)
                if array.size == 1 and array.dtype.kind in "fiub":
                    writer.scalar(key, float(array), step, legacy=True)
            if path is not None:
                writer.text("checkpoint_path", str(path), step)
            writer.flush()
            self._runtime.close_writers(logdir)
        except OSError as error:
            self._runtime.forget_writer(logdir)
            _warn_eval_summaries_not_written(logdir, error)

    # ------------------------------------------------------------------ predict
    def predict(self, input_fn: Callable, predict_keys: list | None = None, hooks: list | None = None,
                checkpoint_path: str | None = None, yield_single_examples: bool = True) -> Iterator[dict]:
        """Yields predictions for `input_fn`'s features: one dict of numpy values per example
        (or per batch with `yield_single_examples=False`)."""
        hooks = _check_hooks(hooks, "hooks")
        path = checkpoint_path or self.latest_checkpoint()
        if path is None:
            logger.info(
                "Could not find trained model in model_dir: %s, running initialization to predict.",
                self._model_dir,
            )

        def hook_layout() -> list:
            return list(hooks) + [("prediction_hooks", None)]

        self._runtime.device = device_for_call(self._config)
        with self._runtime.mode_run(ModeKeys.PREDICT, input_fn, hook_layout, path) as run:
            if run is None:
                return
            session = run.session
            call_model_fn = self._runtime.call_model_fn

            host, batches, device = HostFeatures.batches(run, self._runtime.parallel)
            forward_precision = step_autocast(self._runtime.device)

            def step_fn(batch: Any) -> Any:
                features, _ = _inputs.split_batch(batch, ModeKeys.PREDICT)
                with forward_precision:
                    spec = call_model_fn(features, None, ModeKeys.PREDICT)
                if host.learning:
                    host.learn(features)
                session.spec = spec
                return spec

            # The loop's generator form: a step runs only when the caller asks for more.
            for spec in loop.iterate_steps(step_fn, batches, run.runner, device=device,
                                           grad_enabled=False):
                predictions = extract_predictions(spec.predictions, predict_keys)
                if yield_single_examples:
                    yield from split_examples(predictions)
                else:
                    yield predictions

    # ------------------------------------------------------------------ export
    def export_saved_model(self, export_dir_base: Any, serving_input_receiver_fn: Callable,
                           assets_extra: dict | None = None, as_text: bool = False,
                           checkpoint_path: str | None = None,
                           experimental_mode: str = ModeKeys.PREDICT) -> bytes:
        """Exports the model for serving (TF's `export_saved_model`).

        Calls `serving_input_receiver_fn` for the receiver, `model_fn` in PREDICT mode on it,
        restores `checkpoint_path` (default: the latest checkpoint), and writes a
        self-contained export under `export_dir_base/<timestamp>/` (written to a temporary
        directory and renamed): the receiver and feature-column preprocessing as data, the
        tensor part as a `torch.export` program with its weights in safetensors, one
        signature per export output (`serving_default`, `predict`, `classification`,
        `regression`, ...). `tf.saved_model.load(path)` opens it without this code.
        `assets_extra` maps destinations inside `assets.extra/` to source files; `as_text` is
        accepted (the description is always JSON text).

        Returns:
            The export directory, as bytes (as TF).

        Raises:
            ValueError when there is no receiver fn or no trained model; `ExportError` (a
            ValueError) naming the line when model_fn cannot be exported.
        """
        return export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra,
                                  as_text, checkpoint_path, experimental_mode)

    def experimental_export_all_saved_models(self, export_dir_base: Any, input_receiver_fn_map: dict,
                                             assets_extra: dict | None = None, as_text: bool = False,
                                             checkpoint_path: str | None = None) -> bytes:
        """Exports the PREDICT graph of `input_receiver_fn_map` (TF's method; TRAIN and EVAL
        receivers are refused: exports here are served models). Returns the directory (bytes)."""
        if not isinstance(input_receiver_fn_map, dict) or not input_receiver_fn_map:
            raise ValueError("input_receiver_fn_map must be a non-empty dict of mode -> receiver fn.")
        other = sorted(set(input_receiver_fn_map) - {ModeKeys.PREDICT})
        if other:
            raise ValueError(
                f"input_receiver_fn_map has receivers for modes {other}: only {ModeKeys.PREDICT!r} "
                "is exported (exports are served models; TRAIN/EVAL graphs are not written)."
            )
        return self.export_saved_model(export_dir_base, input_receiver_fn_map[ModeKeys.PREDICT],
                                       assets_extra, as_text, checkpoint_path)

    def export_savedmodel(self, export_dir_base: Any, serving_input_receiver_fn: Callable,
                          assets_extra: dict | None = None, as_text: bool = False,
                          checkpoint_path: str | None = None, strip_default_attrs: bool = False) -> bytes:
        """TF's deprecated name of `export_saved_model` (`strip_default_attrs` is ignored)."""
        del strip_default_attrs
        logger.warning("export_savedmodel is deprecated: use export_saved_model.")
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn, assets_extra,
                                       as_text, checkpoint_path)

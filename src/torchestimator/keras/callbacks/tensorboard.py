"""`tf.keras.callbacks.TensorBoard`: writes metrics, weight histograms and the model graph for TensorBoard."""

from __future__ import annotations

import json
import logging
import os
import time
from typing import Any

import numpy as np
import torch
from google.protobuf import text_format
from tensorboard.compat.proto import event_pb2
from tensorboard.plugins.graph import keras_util
from tensorboard.plugins.projector import projector_config_pb2
from torch import profiler

from torchestimator._engine.summary import SummaryWriter
from torchestimator.keras.callbacks._logs import to_number, to_python
from torchestimator.keras.callbacks.callback import Callback, Logs

_log = logging.getLogger(__name__)
_V1_KWARGS = {
    "write_grads": "`write_grads` will be ignored in TensorFlow 2.0 for the `TensorBoard` Callback.",
    "batch_size": "`batch_size` is no longer needed in the `TensorBoard` Callback and will be ignored "
    "in TensorFlow 2.0.",
    "embeddings_layer_names": "`embeddings_layer_names` is not supported in TensorFlow 2.0. Instead, "
    "all `Embedding` layers will be visualized.",
    "embeddings_data": "`embeddings_data` is not supported in TensorFlow 2.0. Instead, all "
    "`Embedding` variables will be visualized.",
}


class TensorBoard(Callback):
    """Enable visualizations for TensorBoard.

    Writes TensorBoard event files (read with `tensorboard --logdir=log_dir`):

    * per epoch, scalars `epoch_<metric>` (e.g. `epoch_loss`, `epoch_accuracy`)
      in `log_dir/train` and, for validation metrics, in `log_dir/validation`
      (without the `val_` prefix), at step = epoch;
    * with an integer `update_freq`, scalars `batch_<metric>` in `log_dir/train`
      every `update_freq` batches, at step = batches trained in this `fit`;
    * after each evaluation, `evaluation_<metric>_vs_iterations` in
      `log_dir/validation` at step = the optimizer's iterations (when the
      optimizer counts them);
    * with `histogram_freq`, histograms `<weight name>/histogram` of every
      weight (and, with `write_images`, `<weight name>/image`) every
      `histogram_freq` epochs;
    * with `write_graph`, the model's Keras config (`model.to_json()`) under
      the tag `keras` at step 0, which TensorBoard's Graphs tab draws as the
      model's conceptual graph. The op-level graph of TF's traced train
      function has no equivalent: a PyTorch step is not a TF graph, and
      tracing one would need an input batch, which callbacks never see.
    * with `profile_batch`, a `torch.profiler` trace of those batches in
      `log_dir/plugins/profile/<date>/` (Chrome trace JSON, for the PyTorch
      TensorBoard profiler plugin or chrome://tracing);
    * with `embeddings_freq`, `Embedding` layers' matrices as TSV files and a
      `projector_config.pbtxt` in `log_dir` for the Projector.

    Args:
        log_dir: directory of the log files.
        histogram_freq: epochs between weight histograms (0: none).
        write_graph: write the model's conceptual graph.
        write_images: also write weights as images (with `histogram_freq`).
        write_steps_per_second: also log training steps per second, per epoch
          and (with an integer `update_freq`) per batch.
        update_freq: `"epoch"`, `"batch"` (= 1) or an int: write the metrics
          every that many batches too.
        profile_batch: a batch number or a pair (start, stop) of batch numbers
          (from 1) to profile; 0 disables profiling.
        embeddings_freq: epochs between embedding snapshots (0: none).
        embeddings_metadata: a metadata file name for every Embedding layer,
          or a dict of layer name to file name.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: str | int = "epoch",
        profile_batch: int | str | tuple[int, int] = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: str | dict[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self._supports_tf_logs = True
        self._validate_kwargs(kwargs)
        if (
            isinstance(histogram_freq, bool)
            or not isinstance(histogram_freq, int)
            or histogram_freq < 0
        ):
            raise ValueError(
                f"TensorBoard: `histogram_freq` must be an int >= 0; received {histogram_freq!r}."
            )
        if (
            isinstance(embeddings_freq, bool)
            or not isinstance(embeddings_freq, int)
            or embeddings_freq < 0
        ):
            raise ValueError(
                f"TensorBoard: `embeddings_freq` must be an int >= 0; received {embeddings_freq!r}."
            )
        update_freq = 1 if update_freq == "batch" else update_freq
        if update_freq != "epoch" and (
            isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq < 1
        ):
            raise ValueError(
                f"TensorBoard: `update_freq` must be 'epoch', 'batch' or a positive int; received {update_freq!r}."
            )
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._writers: dict[str, SummaryWriter] = {}
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._train_step = 0
        self._last_batch_seen = -1
        self._global_train_batch = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._epoch_start_step = 0
        self._embedding_layers: list[Any] = []
        self._in_fit = False

    @staticmethod
    def _validate_kwargs(kwargs: dict[str, Any]) -> None:
        """Warns about the TF 1 arguments that are ignored; rejects unknown ones."""
        for name, message in _V1_KWARGS.items():
            if kwargs.get(name, False):
                _log.warning(message)
        unknown = set(kwargs) - set(_V1_KWARGS)
        if unknown:
            raise ValueError(
                f"Unrecognized arguments in `TensorBoard` Callback: {sorted(unknown)}. "
                f"Supported kwargs are: {sorted(_V1_KWARGS)}"
            )

    def _init_profile_batch(self, profile_batch: Any) -> None:
        message = (
            "profile_batch must be a non-negative integer or 2-tuple of positive integers. A pair of "
            f"positive integers signifies a range of batches to profile. Found: {profile_batch!r}"
        )
        value = profile_batch
        if isinstance(value, str):
            try:
                value = [int(v) for v in value.split(",")]
            except ValueError:
                raise ValueError(message) from None
            value = value[0] if len(value) == 1 else tuple(value)
        if isinstance(value, int) and not isinstance(value, bool):
            start, stop = value, value
        elif (
            isinstance(value, (tuple, list))
            and len(value) == 2
            and all(isinstance(v, int) for v in value)
        ):
            start, stop = value
        else:
            raise ValueError(message)
        if start < 0 or stop < start:
            raise ValueError(message)
        self._start_batch, self._stop_batch = start, stop
        self._should_trace = not (start == 0 and stop == 0)
        self._profiler: Any = None

    # -- writers ------------------------------------------------------------------------------

    @property
    def _train_writer(self) -> SummaryWriter:
        if "train" not in self._writers:
            self._writers["train"] = SummaryWriter(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self) -> SummaryWriter:
        if "val" not in self._writers:
            self._writers["val"] = SummaryWriter(self._val_dir)
        return self._writers["val"]

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # -- hooks --------------------------------------------------------------------------------

    def set_model(self, model: Any) -> None:
        """Sets the model; writes its graph (with `write_graph`) and the projector config."""
        self.model = model
        self._close_writers()
        if self.write_graph:
            self._write_keras_model_summary()
        if self.embeddings_freq:
            self._configure_embeddings()

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Resets the batch counters."""
        self._train_step = 0
        self._last_batch_seen = -1
        self._global_train_batch = 0
        self._in_fit = True

    def on_train_end(self, logs: Logs | None = None) -> None:
        """Stops a running profile and closes the event files."""
        self._in_fit = False
        if self._profiler is not None:
            self._stop_trace()
        self._close_writers()

    def on_test_end(self, logs: Logs | None = None) -> None:
        """Writes `evaluation_<metric>_vs_iterations` at the optimizer's iteration count.

        After a standalone `evaluate` (not inside `fit`) the event files are closed.
        """
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is not None and logs:
            step = int(to_number(iterations))
            for name, value in _scalars(logs).items():
                self._val_writer.scalar(f"evaluation_{name}_vs_iterations", value, step=step)
            self._val_writer.flush()
        if not self._in_fit:  # a standalone evaluate(): nothing more will be written
            self._close_writers()

    def _implements_train_batch_hooks(self) -> bool:
        return self._should_trace or self.write_steps_per_second or self.update_freq != "epoch"

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Starts the profiler at `profile_batch`; times the batch for steps per second."""
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.perf_counter()
        if self._should_trace and self._global_train_batch == self._start_batch:
            self._start_trace()

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Writes `batch_<metric>` every `update_freq` batches; stops the profiler after its range."""
        self._train_step += (
            batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        )
        self._last_batch_seen = batch
        step = self._train_step
        if self.update_freq != "epoch" and step % self.update_freq == 0:
            values = _scalars(logs)
            if self.write_steps_per_second:
                values["steps_per_second"] = 1.0 / max(
                    time.perf_counter() - self._batch_start_time, 1e-12
                )
            for name, value in values.items():
                self._train_writer.scalar("batch_" + name, value, step=step)
        if self._profiler is not None and self._global_train_batch >= self._stop_batch:
            self._stop_trace()

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Notes the time and step at the start of the epoch (for steps per second)."""
        self._last_batch_seen = -1
        if self.write_steps_per_second:
            self._epoch_start_time = time.perf_counter()
            self._epoch_start_step = self._train_step

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """Writes the epoch's metrics, and the weight histograms and embeddings when due."""
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)
        for writer in self._writers.values():
            writer.flush()

    # -- epoch summaries ----------------------------------------------------------------------

    def _log_epoch_metrics(self, epoch: int, logs: Logs | None) -> None:
        if not logs:
            return
        values = _scalars(logs)
        train_logs = {k: v for k, v in values.items() if not k.startswith("val_")}
        val_logs = {k[4:]: v for k, v in values.items() if k.startswith("val_")}
        learning_rate = self._scheduled_learning_rate()
        if learning_rate is not None:
            train_logs["learning_rate"] = learning_rate
        if self.write_steps_per_second:
            elapsed = max(time.perf_counter() - self._epoch_start_time, 1e-12)
            train_logs["steps_per_second"] = (self._train_step - self._epoch_start_step) / elapsed
        for name, value in train_logs.items():
            self._train_writer.scalar("epoch_" + name, value, step=epoch)
        for name, value in val_logs.items():
            self._val_writer.scalar("epoch_" + name, value, step=epoch)

    def _scheduled_learning_rate(self) -> float | None:
        """The current learning rate when the optimizer follows a schedule (TF logs it then)."""
        optimizer = getattr(self.model, "optimizer", None)
        schedule = getattr(optimizer, "_learning_rate", None)
        if (
            schedule is None
            or not callable(schedule)
            or isinstance(schedule, (int, float, torch.Tensor))
        ):
            return None
        try:
            return float(to_number(optimizer.learning_rate))
        except (TypeError, ValueError, AttributeError):
            return None

    def _log_weights(self, epoch: int) -> None:
        writer = self._train_writer
        for name, weight in _named_weights(self.model):
            tag = name.replace(":", "_")
            writer.histogram(tag + "/histogram", weight.detach(), step=epoch)
            if self.write_images:
                image = _weight_as_image(weight)
                if image is not None:
                    writer.image(tag + "/image", image, step=epoch)
        writer.flush()

    def _write_keras_model_summary(self) -> None:
        model = self.model
        to_json = getattr(model, "to_json", None)
        if to_json is None:
            return  # a plain module: no Keras config to draw
        if (
            getattr(model, "_is_graph_network", True) is False
            and type(model).__name__ != "Sequential"
        ):
            return  # a subclassed model has no config graph (as in TF)
        try:
            config = to_json()
        except Exception as error:  # a model that cannot serialize must not stop training
            _log.warning("Model failed to serialize as JSON. Ignoring... %s", error)
            return
        config = _graph_plugin_layout(config)
        self._train_writer.keras_model("keras", config, step=0)
        graph_def = _conceptual_graph_def(config)
        if graph_def is not None:  # the Graphs tab's default "op graph" view draws it too
            self._train_writer.add_event(event_pb2.Event(
                wall_time=time.time(), graph_def=graph_def.SerializeToString()))
        self._train_writer.flush()

    # -- embeddings ---------------------------------------------------------------------------

    def _configure_embeddings(self) -> None:
        metadata = self.embeddings_metadata
        remaining = dict(metadata) if isinstance(metadata, dict) else None
        config = projector_config_pb2.ProjectorConfig()
        self._embedding_layers = [
            layer
            for layer in getattr(self.model, "layers", None) or ()
            if type(layer).__name__ == "Embedding"
            and getattr(layer, "embeddings", None) is not None
        ]
        for layer in self._embedding_layers:
            embedding = config.embeddings.add()
            embedding.tensor_name = f"{layer.name}/embeddings"
            embedding.tensor_path = _embedding_file(layer)
            if isinstance(metadata, str):
                embedding.metadata_path = metadata
            elif remaining and layer.name in remaining:
                embedding.metadata_path = remaining.pop(layer.name)
        if remaining:
            raise ValueError(
                "Unrecognized `Embedding` layer names passed to `keras.callbacks.TensorBoard` "
                f"`embeddings_metadata` argument: {sorted(remaining)}. Embedding layers: "
                f"{[layer.name for layer in self._embedding_layers]}"
            )
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "projector_config.pbtxt"), "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(config))

    def _log_embeddings(self, epoch: int) -> None:
        for layer in self._embedding_layers:
            matrix = layer.embeddings.detach().cpu().float().numpy()
            np.savetxt(
                os.path.join(self.log_dir, _embedding_file(layer)),
                matrix,
                delimiter="\t",
                fmt="%.8g",
            )

    # -- profiling ----------------------------------------------------------------------------

    def _start_trace(self) -> None:
        trace_dir = os.path.join(
            self.log_dir, "plugins", "profile", time.strftime("%Y_%m_%d_%H_%M_%S")
        )
        activities = [profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(profiler.ProfilerActivity.CUDA)
        self._profiler = profiler.profile(
            activities=activities, on_trace_ready=profiler.tensorboard_trace_handler(trace_dir)
        )
        self._profiler.start()

    def _stop_trace(self) -> None:
        profile, self._profiler = self._profiler, None
        try:
            profile.stop()
        except RuntimeError as error:  # profiler errors must not stop training
            _log.error("Failed to stop profiler: %s", error)


def _scalars(logs: Logs | None) -> dict[str, float]:
    """The numeric scalar entries of `logs`, as Python floats (one device read)."""
    out = {}
    for key, value in to_python(logs).items():
        if isinstance(value, np.ndarray) and value.size == 1:
            value = value.item()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = float(value)
    return out


def _named_weights(model: Any) -> list[tuple[str, torch.Tensor]]:
    """(name, tensor) of the model's weights: Keras names where known, else torch names."""
    torch_names: dict[int, str] = {}
    if hasattr(model, "named_parameters"):
        torch_names = {id(p): n.replace(".", "/") for n, p in model.named_parameters()}
    weights = getattr(model, "weights", None)
    if weights is None:
        weights = getattr(model, "trainable_weights", None)
    if weights is None:
        return [(n.replace(".", "/"), p) for n, p in model.named_parameters()]
    named = []
    for index, weight in enumerate(weights):
        tensor = (
            getattr(weight, "value", weight) if not isinstance(weight, torch.Tensor) else weight
        )
        if not isinstance(tensor, torch.Tensor):
            continue
        name = (
            getattr(weight, "_keras_name", None) or torch_names.get(id(weight)) or f"weight_{index}"
        )
        named.append((name, tensor))
    return named


def _weight_as_image(weight: torch.Tensor) -> np.ndarray | None:
    """The weight laid out as TF's TensorBoard callback lays it out, or None if it cannot be shown."""
    image = weight.detach().float().cpu().numpy().squeeze()
    shape = image.shape
    if len(shape) == 1:  # a bias
        image = image.reshape(1, shape[0], 1, 1)
    elif len(shape) == 2:  # a dense kernel
        if shape[0] > shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif len(shape) == 3:  # a convolution kernel, channels last: one image per channel
        image = np.transpose(image, (2, 0, 1))
        image = image.reshape(image.shape[0], image.shape[1], image.shape[2], 1)
    if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
        return image
    return None


def _embedding_file(layer: Any) -> str:
    return f"keras_embedding_{layer.name}.tsv".replace("/", "_")


def _graph_plugin_layout(model_json: str) -> str:
    """The model config with each inbound tensor written as Keras 3 writes it
    (`{"class_name": "__keras_tensor__", "config": {"keras_history": [layer, node, index]}}`),
    the layout TensorBoard's Graphs plugin reads edges from; the package's own files keep
    theirs (`{"__keras_tensor__": [layer, node, index]}`)."""

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {"__keras_tensor__"}:
                return {"class_name": "__keras_tensor__",
                        "config": {"keras_history": list(value["__keras_tensor__"])}}
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    return json.dumps(convert(json.loads(model_json)))


def _conceptual_graph_def(model_json: str) -> Any:
    """The layer graph as a GraphDef (TensorBoard's own conversion), or None when TensorBoard
    cannot convert this config."""
    try:
        return keras_util.keras_model_to_graph_def(json.loads(model_json))
    except Exception:  # an unusual config: the Keras model summary alone is written
        return None

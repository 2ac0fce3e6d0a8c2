"""The losses and metrics given to `compile()`, matched to the model's outputs.

A single loss applies to every output; a list matches outputs by position, a
dict by output name. Metrics likewise; with several outputs their names get
the output's name as prefix (`dense_1_accuracy`), as Keras 2 names them.
`'accuracy'` becomes binary, categorical or sparse categorical accuracy from
the loss and the shapes, on the first batch.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator.keras import losses as losses_module
from torchestimator.keras import metrics as metrics_module
from torchestimator.keras.losses._utils import apply_mask, div_no_nan
from torchestimator.keras.metrics import Mean, MeanMetricWrapper


def _by_output(spec: Any, output_names: list[str], what: str) -> list:
    """Returns `spec` as one entry per output (None where an output has none)."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(output_names))
        if unknown:
            raise ValueError(
                f"Unknown entries in {what} dictionary: {unknown}. Only expected the following "
                f"keys (the model's output names): {output_names}"
            )
        values = [spec.get(name) for name in output_names]
        if what == "loss":
            return values
        return [[] if v is None else list(v) if isinstance(v, (list, tuple)) else [v] for v in values]
    if isinstance(spec, (list, tuple)) and what == "loss" and n > 1:
        if len(spec) != n:
            raise ValueError(
                f"When passing a list as `loss`, it should have one entry per model output. The "
                f"model has {n} outputs {output_names}, but you passed loss={list(spec)}"
            )
        return list(spec)
    if what == "loss":
        return [spec] * n
    # metrics: a flat list applies to every output; a list of lists matches by position
    if isinstance(spec, (list, tuple)) and n > 1 and spec and all(
        isinstance(s, (list, tuple)) or s is None for s in spec
    ):
        if len(spec) != n:
            raise ValueError(
                f"When passing a list of lists as `{what}`, it should have one entry per model "
                f"output; the model has {n} outputs {output_names} but received {len(spec)} lists."
            )
        return [list(s or []) for s in spec]
    if spec is None:
        return [[] for _ in output_names]
    items = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    return [items for _ in output_names]


def match_dtype_and_rank(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple:
    """Keras 2's alignment of labels to predictions: rank-1 labels (and weights) against rank-2
    predictions become (N, 1); labels are cast to the prediction's dtype when both are floats."""
    if isinstance(y_true, torch.Tensor) and isinstance(y_pred, torch.Tensor):
        if y_true.ndim == 1 and y_pred.ndim == 2:
            y_true = y_true.unsqueeze(-1)
        if y_true.is_floating_point() and y_pred.is_floating_point() and y_true.dtype != y_pred.dtype:
            y_true = y_true.to(y_pred.dtype)
    if isinstance(sample_weight, torch.Tensor) and isinstance(y_pred, torch.Tensor):
        if sample_weight.ndim == 1 and y_pred.ndim == 2:
            sample_weight = sample_weight.unsqueeze(-1)
    return y_true, y_pred, sample_weight


def keep_as_given(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple:
    """`(y_true, y_pred, sample_weight)` unchanged: the alignment of a PyTorch loss or metric,
    which takes the labels as torch does (class ids of shape (N,) stay so)."""
    return y_true, y_pred, sample_weight


def label_alignment(obj: Any) -> Any:
    """How labels are aligned for `obj` (decided at compile): `match_dtype_and_rank` for Keras
    losses and metrics, `keep_as_given` for PyTorch ones (`_torch_order`)."""
    return keep_as_given if getattr(obj, "_torch_order", False) else match_dtype_and_rank


def flatten_outputs(values: Any, output_names: list[str], what: str) -> list:
    """Returns the model's outputs (or labels) as a list in `output_names` order."""
    if isinstance(values, dict):
        missing = [name for name in output_names if name not in values]
        if missing and len(output_names) > 1:
            raise ValueError(
                f"The {what} dict is missing key(s) {missing}; the model's outputs are "
                f"{output_names}, the {what} has keys {sorted(values)}."
            )
        if missing:
            return list(values.values())
        return [values[name] for name in output_names]
    if isinstance(values, (list, tuple)):
        return list(values)
    return [values]


def _as_loss_object(losses_module: Any, spec: Any) -> Any:
    """A Loss object for `spec`; plain functions are wrapped as Keras' compile() wraps them."""
    loss = losses_module.get(spec)
    if isinstance(loss, losses_module.Loss):
        return loss
    name = getattr(loss, "__name__", None) or (spec if isinstance(spec, str) else None)
    return losses_module.LossFunctionWrapper(loss, name=name)


_FLOAT32 = struct.Struct("f")


def _round_to_float32(value: float) -> float:
    """The float32 nearest to `value` (overflowing to +-inf as float32 arithmetic does)."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


#: Float dtypes whose division `python_result` does on the host, with the rounding to apply.
_HOST_ROUNDING = {torch.float32: _round_to_float32, torch.float64: float}


class LossTracker(Mean):
    """The running mean of a loss (a Keras `Mean` named 'loss') with a one-op update for
    the training loop, `add_batch_loss`: the count is a host number (batch sizes are known
    without reading the device), added to the `count` state when the metric is read."""

    def __init__(self, name: str):
        super().__init__(name=name)
        self._host_count = 0.0

    def add_batch_loss(self, value: torch.Tensor, batch_size: int) -> None:
        """Accumulates a batch's scalar loss, weighted by the batch size."""
        total = self.total
        if value.dtype != total.dtype or value.device != total.device or value.ndim:
            self.update_state(value, sample_weight=batch_size)
            return
        total.add_(value.detach(), alpha=batch_size)
        self._host_count += batch_size

    def updated(self) -> bool:
        """Whether a loss was added since the last reset (Keras builds its loss metric on the
        first call of the compiled loss: a custom train_step that never calls it has none)."""
        return bool(self._host_count) or bool(self.count)

    def _flush(self) -> None:
        if self._host_count:
            self.count.add_(self._host_count)
            self._host_count = 0.0

    def python_result(self) -> float:
        """`float(self.result())` without building tensors (fit reads it every epoch): the
        state's two scalars are read and divided on the host.

        Assumes float32 (or float64) state: a float32 `total / count` computed in double and
        rounded to float32 is the float32 quotient (double has more than 2 * 24 + 2 bits), so
        History holds the very value `result()` gives. Other dtypes take `result()`'s path.
        The state is read as it is (the host count added), so a `count` or `total` changed
        from outside (`assign`, `set_weights`, `merge_state`) is seen."""
        total = self.total
        rounding = _HOST_ROUNDING.get(total.dtype)
        if rounding is None or not total.is_cpu:
            # one device read; the host count added without being flushed into the state, as
            # on the host, so a state set from outside reads the same on every device
            return float(div_no_nan(total, self.count + self._host_count))
        count = rounding(self.count.item() + self._host_count)
        if count == 0:
            return 0.0  # divide_no_nan: 0 where nothing was counted (even for a NaN total)
        return rounding(total.item() / count)

    def result(self) -> torch.Tensor:
        self._flush()
        return div_no_nan(self.total, self.count)  # a NaN total stays NaN

    def reset_state(self) -> None:
        self._host_count = 0.0
        self.total.zero_()
        self.count.zero_()


class LossesContainer:
    """Computes the total loss: the weighted sum of each output's loss plus the model's `losses`."""

    def __init__(self, loss: Any, loss_weights: Any, output_names: list[str]):
        self.output_names = output_names
        specs = _by_output(loss, output_names, "loss")
        self.loss_fns = [None if s is None else _as_loss_object(losses_module, s) for s in specs]
        if loss_weights is None:
            self.weights = [1.0] * len(output_names)
        elif isinstance(loss_weights, dict):
            self.weights = [float(loss_weights.get(n, 1.0)) for n in output_names]
        else:
            weights = list(loss_weights) if isinstance(loss_weights, (list, tuple)) else [loss_weights]
            if len(weights) != len(output_names):
                raise ValueError(
                    f"loss_weights has {len(weights)} entries but the model has "
                    f"{len(output_names)} outputs {output_names}."
                )
            self.weights = [float(w) for w in weights]
        self.total_tracker = LossTracker(name="loss")
        multi = len(output_names) > 1
        self.output_trackers = [
            LossTracker(name=f"{name}_loss") if multi and fn is not None else None
            for name, fn in zip(output_names, self.loss_fns)
        ]
        # One output: a batch of plain tensors skips the per-output matching below.
        self._single_output = not multi
        # each output's label alignment (Keras' or, for a PyTorch loss, none)
        self._aligns = [label_alignment(fn) for fn in self.loss_fns]
        self._align = self._aligns[0]

    def __call__(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None, regularization_losses: Any = None
    ) -> torch.Tensor:
        """Returns the total loss of a batch and updates the loss trackers."""
        fn = self.loss_fns[0] if self._single_output else None
        if (fn is not None and not regularization_losses and type(y_pred) is torch.Tensor
                and type(y_true) is torch.Tensor
                and (sample_weight is None or type(sample_weight) is torch.Tensor)):
            # the loop below for its one output, without building its per-output lists
            y_true, y_pred, sample_weight = self._align(y_true, y_pred, sample_weight)
            total = fn(y_true, y_pred, sample_weight=sample_weight)
            weight = self.weights[0]
            if weight != 1.0:
                total = total * weight
            self.total_tracker.add_batch_loss(total, y_pred.shape[0] if y_pred.ndim else 1)
            return total
        extra_losses = regularization_losses or []
        ys_true = flatten_outputs(y_true, self.output_names, "labels")
        ys_pred = flatten_outputs(y_pred, self.output_names, "outputs")
        sws = (
            flatten_outputs(sample_weight, self.output_names, "sample_weight")
            if isinstance(sample_weight, (list, tuple, dict)) else [sample_weight] * len(ys_pred)
        )
        if len(ys_true) != len(ys_pred):
            raise ValueError(
                f"The model has {len(ys_pred)} outputs {self.output_names} but {len(ys_true)} "
                "label arrays were given."
            )
        total = None
        batch = None
        for fn, align, weight, yt, yp, sw, tracker in zip(
            self.loss_fns, self._aligns, self.weights, ys_true, ys_pred, sws, self.output_trackers
        ):
            if fn is None or yt is None:
                continue
            yt, yp, sw = align(yt, yp, sw)
            value = fn(yt, yp, sample_weight=sw)
            batch = yp.shape[0] if yp.ndim else 1
            if tracker is not None:
                tracker.add_batch_loss(value, batch)
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        for extra in extra_losses:
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError(
                "The model cannot be trained: no loss was computed. Pass `loss` to compile(), or "
                "call add_loss() inside the model."
            )
        self.total_tracker.add_batch_loss(total, batch or 1)
        return total

    @property
    def metrics(self) -> list:
        """The loss trackers (total first)."""
        if len(self.output_trackers) == 1:
            return [self.total_tracker]  # one output has no tracker of its own
        return [self.total_tracker] + [t for t in self.output_trackers if t is not None]


class MetricsContainer:
    """The compiled metrics of each output, created on the first batch."""

    def __init__(self, metrics: Any, weighted_metrics: Any, output_names: list[str], loss_fns: list):
        self.output_names = output_names
        self._specs = _by_output(metrics, output_names, "metrics")
        self._weighted_specs = _by_output(weighted_metrics, output_names, "weighted_metrics")
        self._loss_fns = loss_fns
        self.per_output: list[list] | None = None
        self.weighted_per_output: list[list] | None = None
        self._any = True
        # one output: `(metric, its plain update or None)` of every Keras metric, once built,
        # and the PyTorch metrics (which take the labels as given)
        self._plain_updates: list[tuple] | None = None
        self._torch_metrics: list = []

    def _build(self, ys_true: list, ys_pred: list) -> None:
        multi = len(self.output_names) > 1

        def make(spec: Any, i: int, weighted: bool) -> Any:
            yt, yp = ys_true[i], ys_pred[i]
            loss = self._loss_fns[i] if i < len(self._loss_fns) else None
            if isinstance(spec, str) and spec in ("accuracy", "acc", "crossentropy", "ce"):
                metric = metrics_module.resolve_accuracy(
                    spec, loss, tuple(yt.shape) if yt is not None else None, tuple(yp.shape)
                )
            else:
                metric = metrics_module.get(spec)
                if not isinstance(metric, metrics_module.Metric):
                    fn_name = getattr(metric, "__name__", None)
                    metric = metrics_module.MeanMetricWrapper(
                        metric, name=spec if isinstance(spec, str) else fn_name
                    )
            name = metric.name
            if weighted:  # Keras: "weighted_" only where the name would repeat an unweighted one's
                if multi:
                    candidate = f"{self.output_names[i]}_{name}"
                    name = candidate if candidate not in taken else f"{self.output_names[i]}_weighted_{name}"
                elif name in taken:
                    name = f"weighted_{name}"
            elif multi:
                name = f"{self.output_names[i]}_{name}"
            metric._name = name
            return metric

        taken: set[str] = set()
        self.per_output = [
            [make(s, i, False) for s in specs] for i, specs in enumerate(self._specs)
        ]
        taken.update(m.name for ms in self.per_output for m in ms)
        self.weighted_per_output = [
            [make(s, i, True) for s in specs] for i, specs in enumerate(self._weighted_specs)
        ]

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Updates every compiled metric with this batch (no device sync)."""
        if self.per_output is not None and not self._any:
            return
        plain = self._plain_updates
        if (plain is not None and sample_weight is None and type(y_true) is torch.Tensor
                and type(y_pred) is torch.Tensor and getattr(y_pred, "_keras_mask", None) is None):
            # one output, plain tensors, no weights (fit's step): the loop below without its lists,
            # under one no_grad for every metric, the mean metrics updated directly
            yt, yp, _ = match_dtype_and_rank(y_true, y_pred, None)
            grad = torch.is_grad_enabled()
            if grad:
                torch.set_grad_enabled(False)
            try:
                for metric, update in plain:
                    if update is None or not update(yt, yp):
                        metric.update_state(yt, yp, sample_weight=None)
                for metric in self._torch_metrics:  # PyTorch metrics: the labels as given
                    metric.update_state(y_true, y_pred, sample_weight=None)
            finally:
                if grad:
                    torch.set_grad_enabled(True)
            return
        ys_true = flatten_outputs(y_true, self.output_names, "labels")
        ys_pred = flatten_outputs(y_pred, self.output_names, "outputs")
        if self.per_output is None:
            self._build(ys_true, ys_pred)
            self._any = bool(self.metrics)
            if len(self.output_names) == 1:
                both = self.per_output[0] + self.weighted_per_output[0]
                self._plain_updates = [(m, _plain_update(m)) for m in both if not m._torch_order]
                self._torch_metrics = [m for m in both if m._torch_order]
        sws = (
            flatten_outputs(sample_weight, self.output_names, "sample_weight")
            if isinstance(sample_weight, (list, tuple, dict)) else [sample_weight] * len(ys_pred)
        )
        for i, (yt, yp) in enumerate(zip(ys_true, ys_pred)):
            if yt is None:
                continue
            mask = getattr(yp, "_keras_mask", None)
            given = (yt, yp, sws[i])  # what a PyTorch metric receives (`_torch_order`)
            yt, yp, sw = match_dtype_and_rank(*given)
            if mask is not None:  # Keras: the output's mask weighs every metric (and the weighted
                sw = apply_mask(yp, sw, mask)  # ones' sample weights)
            for metric in self.per_output[i]:
                if metric._torch_order:
                    metric.update_state(given[0], given[1], sample_weight=mask)
                else:
                    metric.update_state(yt, yp, sample_weight=mask)
            for metric in self.weighted_per_output[i]:
                if metric._torch_order:
                    metric.update_state(given[0], given[1], sample_weight=given[2])
                else:
                    metric.update_state(yt, yp, sample_weight=sw)

    @property
    def metrics(self) -> list:
        """Every compiled metric object, in Keras' order (per output, then weighted)."""
        if self.per_output is None or not self._any:
            return []  # not built yet, or built without metrics
        return [m for ms in self.per_output for m in ms] + [
            m for ms in self.weighted_per_output for m in ms
        ]


class MetricLogs(Mapping):
    """`{metric name: result}` computed on first access: a step whose logs nobody reads costs
    nothing; reading them computes each result once (tensors, no device sync)."""

    def __init__(self, metrics: list):
        self._metrics = metrics
        self._values: dict[str, Any] | None = None

    def _materialize(self) -> dict[str, Any]:
        if self._values is None:
            values: dict[str, Any] = {}
            for name, metric in {m.name: m for m in self._metrics}.items():
                value = metric.result()
                if isinstance(value, dict):
                    values.update(value)
                else:
                    values[name] = value
            self._values = values
        return self._values

    def __getitem__(self, key: str) -> Any:
        return self._materialize()[key]

    def __iter__(self):
        return iter(self._materialize())

    def __len__(self) -> int:
        return len(self._materialize())

    def __repr__(self) -> str:
        return repr(dict(self))


def _plain_update(metric: Any) -> Any:
    """The metric's direct update for plain unweighted tensors (`MeanMetricWrapper._update_plain`,
    when its class keeps `MeanMetricWrapper.update_state`), else None."""

    if isinstance(metric, MeanMetricWrapper) and type(metric).update_state is MeanMetricWrapper.update_state:
        return metric._update_plain
    return None


def result_logs(metrics: list) -> Mapping:
    """Returns `{metric.name: metric.result()}`, computed when first read (see MetricLogs)."""
    return MetricLogs(metrics)


def python_metric_logs(metrics: list) -> dict[str, Any]:
    """`to_python_logs(result_logs(metrics))`, with loss trackers read on the host (no tensor
    made): the epoch logs `fit` hands its callbacks."""
    out: dict[str, Any] = {}
    for name, metric in {m.name: m for m in metrics}.items():
        if type(metric) is LossTracker:
            out[name] = metric.python_result()
            continue
        value = metric.result()
        if isinstance(value, dict):
            out.update(to_python_logs(value))
        else:
            out.update(to_python_logs({name: value}))
    return out


def to_python_logs(logs: dict[str, Any]) -> dict[str, Any]:
    """Converts tensor values of a logs dict to Python floats (one device sync)."""
    out = {}
    for k, v in logs.items():
        if isinstance(v, torch.Tensor):
            out[k] = float(v) if v.numel() == 1 else v.detach().cpu().numpy()
        else:
            out[k] = v
    return out


"""The state behind `tf.compat.v1.metrics`' streaming metrics: Keras metrics (so the
Estimator resets, merges across replicas and reads them as any metric) whose update and
result are TF1's formulas. Each class is private; `metrics.py` builds and updates them."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.host_fallback import host_fallback
from torchestimator.keras.metrics._auc import AUC
from torchestimator.keras.metrics._metric import Metric
from torchestimator.keras.metrics._reduce import Mean

_KEPSILON = 1e-7  # TF1's epsilon in the thresholded confusion metrics


def tensor(value: Any, device: torch.device, dtype: torch.dtype | None = None) -> torch.Tensor:
    """`value` as a plain tensor on `device` (of `dtype` when given)."""
    if isinstance(value, torch.Tensor):
        out = value.detach()
        if type(out) is not torch.Tensor:
            out = out.as_subclass(torch.Tensor)
        out = out.to(device)
    else:
        out = torch.as_tensor(value, device=device)
    return out if dtype is None else out.to(dtype)


def broadcast_weights(weights: Any, shape: torch.Size, device: torch.device,
                      dtype: torch.dtype = torch.float32, arg: str = "weights") -> torch.Tensor:
    """`weights` (None: ones) broadcast to `shape`, trailing size-1 axes added when it has
    fewer; ValueError naming `arg` when it cannot broadcast."""
    if weights is None:
        return torch.ones(shape, dtype=dtype, device=device)
    w = tensor(weights, device, dtype)
    while w.ndim < len(shape):
        w = w.unsqueeze(-1)
    if w.ndim > len(shape):
        w = w.reshape(w.shape[: len(shape)]) if all(d == 1 for d in w.shape[len(shape):]) else w
    try:
        return torch.broadcast_to(w, shape)
    except RuntimeError:
        raise ValueError(f"{arg} of shape {tuple(tensor(weights, device).shape)} cannot be broadcast to "
                         f"the values' shape {tuple(shape)}; give a scalar or a tensor of that shape.") from None


class Confusion(Metric):
    """Weighted true/false positive/negative counts (at `thresholds`: `prediction >
    threshold`; without: `bool(prediction)`), reported as `kind`: 'tp', 'fp', 'tn', 'fn',
    'precision', 'recall', 'sensitivity_at_specificity' or 'specificity_at_sensitivity'
    (the last two at `target`)."""

    def __init__(self, kind: str, thresholds: tuple | None = None, target: float | None = None,
                 name: str | None = None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.kind, self.thresholds, self.target = kind, thresholds, target
        size = (len(thresholds),) if thresholds is not None else ()
        self.tp = self.add_weight("true_positives", shape=size)
        self.fp = self.add_weight("false_positives", shape=size)
        self.tn = self.add_weight("true_negatives", shape=size)
        self.fn = self.add_weight("false_negatives", shape=size)

    def get_config(self) -> dict[str, Any]:
        """The metric's config: name, dtype and its arguments."""
        return {**super().get_config(), "kind": self.kind, "thresholds": self.thresholds, "target": self.target}

    def update_state(self, labels: Any, predictions: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted counts."""
        device = self._device
        pred = tensor(predictions, device)
        lab = tensor(labels, device)
        if lab.numel() != pred.numel():
            raise ValueError(f"labels of shape {tuple(lab.shape)} do not match predictions of shape "
                             f"{tuple(pred.shape)}; give one label per prediction.")
        lab = lab.reshape(pred.shape) != 0
        w = broadcast_weights(sample_weight, pred.shape, device).reshape(-1)
        lab = lab.reshape(-1)
        if self.thresholds is None:
            pos = (pred != 0).reshape(-1, 1)
        else:
            pred = pred.float().reshape(-1, 1)
            if pred.numel() and (float(pred.min()) < 0 or float(pred.max()) > 1):
                raise ValueError("predictions must be in [0, 1] for thresholded metrics; got values in "
                                 f"[{float(pred.min())}, {float(pred.max())}].")
            pos = pred > torch.tensor(self.thresholds, dtype=torch.float32, device=device).reshape(1, -1)
        lab = lab.reshape(-1, 1)
        w = w.reshape(-1, 1)
        for var, hit in ((self.tp, lab & pos), (self.fp, ~lab & pos), (self.tn, ~lab & ~pos),
                         (self.fn, lab & ~pos)):
            var.add_((hit.float() * w).sum(0).reshape(var.shape))

    def result(self) -> torch.Tensor:
        """The count, rate or rate-at-target `kind` names."""
        tp, fp, tn, fn = self.tp, self.fp, self.tn, self.fn
        if self.kind in ("tp", "fp", "tn", "fn"):
            return {"tp": tp, "fp": fp, "tn": tn, "fn": fn}[self.kind] * 1.0
        if self.kind == "precision":
            return tp / (tp + fp + _KEPSILON)
        if self.kind == "recall":
            return tp / (tp + fn + _KEPSILON)
        if self.kind == "sensitivity_at_specificity":
            specificities = tn / (tn + fp + _KEPSILON)
            i = int(torch.argmin((specificities - self.target).abs()))  # the first minimum
            return tp[i] / (tp[i] + fn[i] + _KEPSILON)
        sensitivities = tp / (tp + fn + _KEPSILON)
        gap = (sensitivities - self.target).abs()
        i = int((gap == gap.min()).nonzero()[-1])  # the last minimum, as TF1
        return tn[i] / (tn[i] + fp[i] + _KEPSILON)


class WeightedMean(Metric):
    """TF1's streaming (weighted) mean: with `shape=()` the mean over all elements of all
    updates, else (`mean_tensor`) the element-wise mean over the updates of values of `shape`. `kind='one_minus'` reports `1 - mean` (`mean_cosine_distance`)."""

    def __init__(self, shape: tuple = (), kind: str = "mean", name: str | None = None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.shape, self.kind = tuple(shape), kind
        self.total = self.add_weight("total", shape=self.shape)
        self.count = self.add_weight("count", shape=self.shape)

    def get_config(self) -> dict[str, Any]:
        """The metric's config: name, dtype and its arguments."""
        return {**super().get_config(), "shape": self.shape, "kind": self.kind}

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds `values * weights` to the total and the weights to the count."""
        v = tensor(values, self._device, torch.float32)
        w = broadcast_weights(sample_weight, v.shape, self._device)
        if self.shape:
            if tuple(v.shape) != self.shape:
                raise ValueError(f"mean_tensor: values of shape {tuple(v.shape)} differ from the shape "
                                 f"{self.shape} of the first update; every update must have that shape.")
            self.total.add_(v * w)
            self.count.add_(w)
        else:
            self.total.add_((v * w).sum())
            self.count.add_(w.sum())

    def result(self) -> torch.Tensor:
        """`total / count` (0 where the count is 0), or 1 minus it."""
        mean = torch.where(self.count != 0, self.total / torch.where(self.count != 0, self.count, 1.0),
                           torch.zeros_like(self.total))
        return 1 - mean if self.kind == "one_minus" else mean


class ClassConfusion(Metric):
    """A weighted `num_classes` x `num_classes` confusion matrix (rows: labels, columns:
    predictions) reported as `kind`: 'mean_iou' or 'mean_per_class_accuracy'."""

    def __init__(self, kind: str, num_classes: int, name: str | None = None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.kind, self.num_classes = kind, int(num_classes)
        self.matrix = self.add_weight("total_confusion_matrix", shape=(self.num_classes, self.num_classes),
                                      dtype="float64")

    def get_config(self) -> dict[str, Any]:
        """The metric's config: name, dtype and its arguments."""
        return {**super().get_config(), "kind": self.kind, "num_classes": self.num_classes}

    def update_state(self, labels: Any, predictions: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted (label, prediction) pairs."""
        device = self._device
        lab = tensor(labels, device).reshape(-1).long()
        pred = tensor(predictions, device).reshape(-1).long()
        if lab.shape != pred.shape:
            raise ValueError(f"labels ({lab.numel()} values) and predictions ({pred.numel()} values) must "
                             "have the same number of elements.")
        n = self.num_classes
        for arg, ids in (("labels", lab), ("predictions", pred)):
            if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= n):
                raise ValueError(f"{arg} must be class ids in [0, num_classes={n}); got values in "
                                 f"[{int(ids.min())}, {int(ids.max())}].")
        w = broadcast_weights(sample_weight, tensor(labels, device).shape, device, torch.float64).reshape(-1)
        counts = host_fallback(lambda ids, weights: torch.bincount(ids, weights, n * n), lab * n + pred, w)
        self.matrix.add_(counts.reshape(n, n))

    def result(self) -> torch.Tensor:
        """TF1's mean IoU over the classes present, or the mean over all classes of the
        per-class accuracy (0 for a class never seen)."""
        cm = self.matrix
        diag = torch.diagonal(cm).float()
        if self.kind == "mean_iou":
            denominator = cm.sum(0).float() + cm.sum(1).float() - diag
            valid = (denominator != 0).float().sum()
            iou = diag / torch.where(denominator > 0, denominator, torch.ones_like(denominator))
            return torch.where(valid > 0, iou.sum() / valid.clamp_min(1), torch.zeros_like(valid))
        total = cm.sum(1).float()
        per_class = torch.where(total != 0, diag / torch.where(total != 0, total, 1.0), torch.zeros_like(total))
        return per_class.mean()


def _expand_labels(labels: torch.Tensor, predictions_idx: torch.Tensor) -> torch.Tensor:
    """Labels of one rank less than `predictions_idx` get a trailing axis (one label per row)."""
    return labels.unsqueeze(-1) if labels.ndim == predictions_idx.ndim - 1 else labels


class TopK(Metric):
    """TF1's precision, recall or average precision of the top-`k` predicted class ids
    against sets of label ids (per row), optionally for one `class_id`; float64 as TF1."""

    def __init__(self, kind: str, k: int, class_id: int | None = None, name: str | None = None,
                 dtype: Any = "float64"):
        super().__init__(name=name, dtype=dtype)
        self.kind, self.k, self.class_id = kind, k, class_id
        self.hits = self.add_weight("true_positives" if kind != "average_precision" else "total",
                                    dtype="float64")
        self.others = self.add_weight({"precision": "false_positives", "recall": "false_negatives",
                                       "average_precision": "max"}[kind], dtype="float64")

    def get_config(self) -> dict[str, Any]:
        """The metric's config: name, dtype and its arguments."""
        return {**super().get_config(), "kind": self.kind, "k": self.k, "class_id": self.class_id}

    def update_state(self, labels: Any, predictions_idx: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted true positives and false positives (or negatives), or its
        weighted average precisions and their weights."""
        device = self._device
        idx = tensor(predictions_idx, device).long()
        lab = _expand_labels(tensor(labels, device).long(), idx)
        rows = idx.shape[:-1]
        idx, lab = idx.reshape(-1, idx.shape[-1]), lab.reshape(-1, lab.shape[-1])
        # member[r, j]: predicted id j of row r is one of the row's labels
        member = (idx.unsqueeze(-1) == lab.unsqueeze(-2)).any(-1)
        if self.kind == "average_precision":
            relevant = member.double()
            precision = host_fallback(lambda r: r.cumsum(-1), relevant) / torch.arange(1, idx.shape[-1] + 1, device=device, dtype=torch.float64)
            num_relevant = torch.clamp((lab >= 0).sum(-1), max=self.k).double()
            ap = (precision * relevant).sum(-1) / num_relevant
            if sample_weight is None:
                self.hits.add_(ap.sum())
                self.others.add_(float(ap.numel()))
            else:
                w = broadcast_weights(sample_weight, rows, device, torch.float64).reshape(-1)
                self.hits.add_((ap * w).sum())
                self.others.add_(w.sum())
            return
        if self.class_id is None:
            tp = _set_size(idx, member)
            if self.kind == "precision":
                other = _set_size(idx, ~member)
            else:
                in_top = (lab.unsqueeze(-1) == idx.unsqueeze(-2)).any(-1)
                other = _set_size(lab, ~in_top & (lab >= 0))
        else:
            c = self.class_id
            predicted = (idx == c).any(-1)
            labelled = (lab == c).any(-1)
            tp = (predicted & labelled).double()
            other = (predicted & ~labelled if self.kind == "precision" else labelled & ~predicted).double()
        w = broadcast_weights(sample_weight, rows, device, torch.float64).reshape(-1)
        self.hits.add_((tp * w).sum())
        self.others.add_((other * w).sum())

    def result(self) -> torch.Tensor:
        """tp / (tp + fp) or tp / (tp + fn) (NaN when both are 0, as TF1), or the mean
        average precision (0 before any row)."""
        if self.kind == "average_precision":
            return torch.where(self.others != 0, self.hits / torch.where(self.others != 0, self.others, 1.0),
                               torch.zeros_like(self.hits))
        return self.hits / (self.hits + self.others)


def _set_size(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row, the number of distinct ids where `mask` holds (TF's set semantics)."""
    if ids.shape[-1] == 0:
        return torch.zeros(ids.shape[0], dtype=torch.float64, device=ids.device)
    sentinel = torch.iinfo(ids.dtype).min
    values = torch.where(mask, ids, torch.full_like(ids, sentinel)).sort(dim=-1).values
    first = torch.ones_like(values[:, :1], dtype=torch.bool)
    new = torch.cat([first, values[:, 1:] != values[:, :-1]], dim=-1)
    return ((values != sentinel) & new).sum(-1).double()



_AUC_METHODS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


class TF1AUC(AUC):
    """TF1's `tf.compat.v1.metrics.auc` on Keras' AUC counts: TF1's `summation_method`
    ('trapezoidal', 'careful_interpolation', 'minoring', 'majoring') and its epsilon 1e-6 in the
    rates; PR with 'careful_interpolation' is Keras' interpolation (the same formula)."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC", summation_method: str = "trapezoidal",
                 thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        if summation_method not in _AUC_METHODS:
            raise ValueError(f"Invalid summation_method: {summation_method!r}; expected one of "
                             f"{list(_AUC_METHODS)}.")
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve!r} is unknown.")
        keras_method = summation_method if summation_method in ("minoring", "majoring") else "interpolation"
        super().__init__(num_thresholds=num_thresholds, curve=curve, summation_method=keras_method,
                         thresholds=thresholds, name="auc" if name is None else name, dtype=dtype)
        self.tf1_summation_method = summation_method
        self._tf1_thresholds = thresholds

    def result(self) -> torch.Tensor:
        """The area, by TF1's `compute_auc`."""
        if not self._built:
            return torch.tensor(0.0, dtype=self._torch_dtype)
        if self.curve == "PR" and self.tf1_summation_method == "careful_interpolation":
            return self.interpolate_pr_auc()
        eps = 1.0e-6
        tp, tn, fp, fn = self.true_positives, self.true_negatives, self.false_positives, self.false_negatives
        rec = (tp + eps) / (tp + fn + eps)
        if self.curve == "ROC":
            x, y = fp / (fp + tn + eps), rec
        else:
            x, y = rec, (tp + eps) / (tp + fp + eps)
        n = self.num_thresholds
        if self.tf1_summation_method == "minoring":
            heights = torch.minimum(y[: n - 1], y[1:])
        elif self.tf1_summation_method == "majoring":
            heights = torch.maximum(y[: n - 1], y[1:])
        else:
            heights = (y[: n - 1] + y[1:]) / 2.0
        return ((x[: n - 1] - x[1:]) * heights).sum()

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        thresholds = self._tf1_thresholds
        return {"num_thresholds": self.num_thresholds if thresholds is None else 200, "curve": self.curve,
                "summation_method": self.tf1_summation_method,
                "thresholds": None if thresholds is None else [float(t) for t in thresholds],
                "name": self.name, "dtype": self.dtype}


class MeanAbsoluteError(Mean):
    """TF1's `mean_absolute_error` state: the weighted mean of `|predictions - labels|` over every
    element (`metrics.py` passes the errors)."""

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)


class MeanSquaredError(Mean):
    """TF1's `mean_squared_error` state: the weighted mean of `(predictions - labels) ** 2` over
    every element (`metrics.py` passes the errors)."""

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

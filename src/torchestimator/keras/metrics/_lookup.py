"""Finding metrics by name (`get`, `serialize`, `deserialize`) and turning what `compile(metrics=...)`
received into metric objects (`resolve_metric`, `resolve_accuracy`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras.losses import _classes as loss_classes
from torchestimator.keras.losses import _crossentropy as ce
from torchestimator.keras.losses import _lookup as loss_lookup
from torchestimator.keras.losses import _regression as rg
from torchestimator.keras.losses._loss import Loss
from torchestimator.keras.losses._torch import TorchLoss, is_torch_loss
from torchestimator.keras.metrics import _accuracy as acc
from torchestimator.keras.metrics import _auc, _confusion, _iou, _probabilistic, _reduce, _scores
from torchestimator.keras.metrics import _functions as fns
from torchestimator.keras.metrics import _regression as reg
from torchestimator.keras.metrics._metric import Metric, _snake_case
from torchestimator.keras.metrics._torch import from_torch, is_torchmetric

METRIC_CLASSES = (
    Metric, _reduce.Reduce, _reduce.Sum, _reduce.Mean, _reduce.MeanMetricWrapper,
    _reduce.MeanTensor, _reduce.SumOverBatchSize,
    acc.Accuracy, acc.BinaryAccuracy, acc.CategoricalAccuracy, acc.SparseCategoricalAccuracy,
    acc.TopKCategoricalAccuracy, acc.SparseTopKCategoricalAccuracy,
    _probabilistic.BinaryCrossentropy, _probabilistic.CategoricalCrossentropy,
    _probabilistic.SparseCategoricalCrossentropy, _probabilistic.KLDivergence,
    _probabilistic.Poisson, _probabilistic.Hinge, _probabilistic.SquaredHinge,
    _probabilistic.CategoricalHinge,
    reg.MeanSquaredError, reg.MeanAbsoluteError, reg.MeanAbsolutePercentageError,
    reg.MeanSquaredLogarithmicError, reg.RootMeanSquaredError, reg.LogCoshError,
    reg.CosineSimilarity, reg.MeanRelativeError,
    _confusion.TruePositives, _confusion.FalsePositives, _confusion.TrueNegatives,
    _confusion.FalseNegatives, _confusion.Precision, _confusion.Recall,
    _confusion.SensitivitySpecificityBase, _confusion.PrecisionAtRecall,
    _confusion.RecallAtPrecision, _confusion.SensitivityAtSpecificity,
    _confusion.SpecificityAtSensitivity, _auc.AUC,
    _iou.IoU, _iou.MeanIoU, _iou.BinaryIoU, _iou.OneHotIoU, _iou.OneHotMeanIoU,
    _scores.FBetaScore, _scores.F1Score, _scores.R2Score,
)

#: Metric functions by the names Keras 2.15 exports them under (aliases included).
METRIC_FUNCTIONS: dict[str, Any] = {
    "accuracy": fns.accuracy,
    "acc": fns.accuracy,
    "ACC": fns.accuracy,
    "binary_accuracy": fns.binary_accuracy,
    "categorical_accuracy": fns.categorical_accuracy,
    "sparse_categorical_accuracy": fns.sparse_categorical_accuracy,
    "top_k_categorical_accuracy": fns.top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": fns.sparse_top_k_categorical_accuracy,
    "binary_crossentropy": ce.binary_crossentropy,
    "bce": ce.binary_crossentropy,
    "BCE": ce.binary_crossentropy,
    "binary_focal_crossentropy": ce.binary_focal_crossentropy,
    "categorical_crossentropy": ce.categorical_crossentropy,
    "categorical_focal_crossentropy": ce.categorical_focal_crossentropy,
    "sparse_categorical_crossentropy": ce.sparse_categorical_crossentropy,
    "kullback_leibler_divergence": rg.kl_divergence,
    "kl_divergence": rg.kl_divergence,
    "kld": rg.kl_divergence,
    "KLD": rg.kl_divergence,
    "poisson": rg.poisson,
    "hinge": rg.hinge,
    "squared_hinge": rg.squared_hinge,
    "categorical_hinge": rg.categorical_hinge,
    "mean_squared_error": rg.mean_squared_error,
    "mse": rg.mean_squared_error,
    "MSE": rg.mean_squared_error,
    "mean_absolute_error": rg.mean_absolute_error,
    "mae": rg.mean_absolute_error,
    "MAE": rg.mean_absolute_error,
    "mean_absolute_percentage_error": rg.mean_absolute_percentage_error,
    "mape": rg.mean_absolute_percentage_error,
    "MAPE": rg.mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": rg.mean_squared_logarithmic_error,
    "msle": rg.mean_squared_logarithmic_error,
    "MSLE": rg.mean_squared_logarithmic_error,
    "logcosh": rg.log_cosh,
    "log_cosh": rg.log_cosh,
    "cosine_similarity": fns.cosine_similarity,
    "cosine_proximity": fns.cosine_similarity,
}


def _module_objects() -> dict[str, Any]:
    objects: dict[str, Any] = {cls.__name__: cls for cls in METRIC_CLASSES}
    objects.update(METRIC_FUNCTIONS)
    bases = (Metric, _reduce.Reduce, _reduce.MeanMetricWrapper,
             _confusion.SensitivitySpecificityBase)
    for cls in METRIC_CLASSES:  # Keras 3 also accepts snake_case class names ('auc', 'precision').
        if cls not in bases:
            objects.setdefault(_snake_case(cls.__name__), cls)
    return objects


#: Everything `get` and `deserialize` resolve by name.
MODULE_OBJECTS: dict[str, Any] = _module_objects()

fns.cosine_similarity._registered_name = "keras.metrics>cosine_similarity"


class _OwnRegisteredName:
    """`_registered_name` of a metric class whose plain name a loss owns ('MeanSquaredError').

    It answers only for the class that defines it, so an unregistered subclass
    still serializes under its own class name.
    """

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj: Any, owner: type) -> str | None:
        return self.name if owner.__dict__.get("_registered_name") is self else None


def _register_builtins() -> None:
    """Registers every metric class and function with the saving registry (idempotent).

    Where a loss already owns the plain name (e.g. 'MeanSquaredError'), the
    metric class is registered as 'keras.metrics>MeanSquaredError', the name its
    configs are written under.
    """
    for name, obj in MODULE_OBJECTS.items():
        found = _registry.get_registered_object(name)
        if found is None:
            _registry.register_builtin(obj, name)
        elif found is not obj and isinstance(obj, type) and name == obj.__name__:
            prefixed = f"keras.metrics>{name}"
            if "_registered_name" not in obj.__dict__:
                obj._registered_name = _OwnRegisteredName(prefixed)
            _registry.register_builtin(obj, prefixed)
    _registry.register_builtin(fns.cosine_similarity, fns.cosine_similarity._registered_name)


def _known_names() -> str:
    return ", ".join(sorted(MODULE_OBJECTS, key=str.lower))


def serialize(metric: Any, use_legacy_format: bool = False) -> Any:
    """Serializes a metric function or `Metric` instance.

    Returns the function's name or `{'class_name', 'config', 'registered_name'}`
    (`{'class_name', 'config'}` with `use_legacy_format=True`, Keras 2.15's legacy format);
    None for None.
    """
    if metric is None:
        return None
    serialized = _registry.serialize_keras_object(metric)
    return _registry.legacy_form(serialized) if use_legacy_format else serialized


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None,
                use_legacy_format: bool = False) -> Any:
    """Turns a serialized metric (a name or a config dict) back into a function or `Metric`.

    Class names give a new instance with default arguments; function names the
    function. Both config formats are read whatever `use_legacy_format` says. Raises
    ValueError for unknown names, listing the known ones.
    """
    del use_legacy_format
    if isinstance(config, str):
        found = (custom_objects or {}).get(config) or MODULE_OBJECTS.get(config)
        if found is None:
            found = _registry.get_registered_object(config, custom_objects)
        if found is None:
            raise ValueError(
                f"Unknown metric function: {config!r}. Known metrics: {_known_names()}. For a "
                "custom metric, pass the function or Metric instance itself, pass it in "
                "custom_objects, or register it with tf.keras.saving.register_keras_serializable()."
            )
        return found() if isinstance(found, type) else found
    if isinstance(config, dict):
        return _registry.deserialize_keras_object(
            config, custom_objects=custom_objects, module_objects=MODULE_OBJECTS
        )
    raise ValueError(f"Could not interpret serialized metric: {config!r}")


def get(identifier: Any) -> Any:
    """Retrieves a Keras metric as a function or `Metric` instance, as Keras 2.15 does.

    `identifier` is the name of a metric function ('mse', 'binary_accuracy')
    or class ('AUC', also snake_case: 'auc', 'precision'), a config dict, a
    function or a `Metric` instance. Returns the function, a new instance for
    a class name, or the object itself. Raises ValueError when the identifier
    cannot be interpreted.

    PyTorch objects become Keras metrics (`from_torch`): a torchmetrics `Metric` a
    `TorchMetric`; a torch loss (a `torch.nn` loss module, a `torch.nn.functional` function or
    a `losses.from_torch` loss) the mean of its values, called in torch's order.
    """
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    torch_metric = _from_torch_object(identifier)
    if torch_metric is not None:
        return torch_metric
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret metric identifier: {identifier!r}. Pass a metric name (e.g. "
        "'accuracy', 'mae', 'AUC'), a config dict, a function or a tf.keras.metrics.Metric."
    )


def _from_torch_object(identifier: Any) -> Metric | None:
    """The Keras metric of a PyTorch metric or loss object (see `get`), else None."""
    if is_torchmetric(identifier) or isinstance(identifier, TorchLoss) or (
        not isinstance(identifier, (Metric, Loss, type)) and is_torch_loss(identifier)
    ):
        return from_torch(identifier)
    return None


_ACCURACY_NAMES = ("accuracy", "acc")
_CROSSENTROPY_NAMES = ("crossentropy", "ce")


def _loss_kind(loss: Any) -> str | None:
    """'binary', 'sparse' or None: which crossentropy `loss` is (by object, class, function or name)."""
    if isinstance(loss, str):
        loss = loss_lookup.MODULE_OBJECTS.get(loss, loss)
    loss_cls = loss if isinstance(loss, type) else type(loss)
    fn = getattr(loss, "fn", loss)
    if fn is ce.binary_crossentropy or issubclass(loss_cls, loss_classes.BinaryCrossentropy):
        return "binary"
    if fn is ce.sparse_categorical_crossentropy or issubclass(
        loss_cls, loss_classes.SparseCategoricalCrossentropy
    ):
        return "sparse"
    return None


def resolve_accuracy(
    name: str,
    loss: Any = None,
    y_true_shape: Sequence[int | None] | None = None,
    y_pred_shape: Sequence[int | None] | None = None,
) -> Metric:
    """Turns 'accuracy'/'acc' (or 'crossentropy'/'ce') into the metric Keras 2.15 would use.

    The rule is Keras 2.15's `compile_utils.MetricsContainer._get_metric_object`:
    binary when the predictions' last dimension is 1; sparse categorical when
    the labels have a lower rank than the predictions, or a last dimension of 1
    while the predictions' is larger; categorical otherwise. Pass the shapes of
    one batch of labels (as given, before any reshaping) and predictions. When
    the shapes are not known, the loss decides instead (Keras 1's rule:
    binary for binary crossentropy, sparse for sparse categorical
    crossentropy, else categorical).

    Returns a `BinaryAccuracy`, `CategoricalAccuracy` or
    `SparseCategoricalAccuracy` (or the matching crossentropy metric) named
    `name` as written.
    """
    key = str(name).lower()
    if key not in _ACCURACY_NAMES + _CROSSENTROPY_NAMES:
        raise ValueError(
            f"resolve_accuracy: expected 'accuracy', 'acc', 'crossentropy' or 'ce'; received "
            f"{name!r}."
        )
    if y_true_shape is not None and y_pred_shape is not None and len(y_pred_shape) > 0:
        y_t_rank, y_p_rank = len(y_true_shape), len(y_pred_shape)
        y_t_last = y_true_shape[-1] if y_t_rank else None
        y_p_last = y_pred_shape[-1]
        is_binary = y_p_last == 1
        is_sparse = y_t_rank < y_p_rank or (
            y_t_last == 1 and y_p_last is not None and y_p_last > 1
        )
        kind = "binary" if is_binary else ("sparse" if is_sparse else "categorical")
    else:
        kind = _loss_kind(loss) or "categorical"
    if key in _ACCURACY_NAMES:
        cls = {"binary": acc.BinaryAccuracy, "sparse": acc.SparseCategoricalAccuracy,
               "categorical": acc.CategoricalAccuracy}[kind]
    else:
        cls = {"binary": _probabilistic.BinaryCrossentropy,
               "sparse": _probabilistic.SparseCategoricalCrossentropy,
               "categorical": _probabilistic.CategoricalCrossentropy}[kind]
    return cls(name=str(name))


def resolve_metric(
    identifier: Any,
    loss: Any = None,
    y_true_shape: Sequence[int | None] | None = None,
    y_pred_shape: Sequence[int | None] | None = None,
) -> Metric | None:
    """Turns one entry of `compile(metrics=[...])` into a `Metric` object, as Keras 2.15 does.

    'accuracy'/'acc'/'crossentropy'/'ce' (any case) go through
    `resolve_accuracy`; other strings, dicts and callables through `get`.
    Functions are wrapped in a `MeanMetricWrapper` named as written (the
    string itself, else the function's `__name__`); a `Loss` instance is
    wrapped under its `name`; a `Metric` class is instantiated; a `Metric`
    instance is returned as it is. Returns None for None.
    """
    if identifier is None:
        return None
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _ACCURACY_NAMES + _CROSSENTROPY_NAMES:
        return resolve_accuracy(identifier, loss, y_true_shape, y_pred_shape)
    obj = get(identifier)
    if isinstance(obj, Metric):
        return obj
    if isinstance(obj, type) and issubclass(obj, Metric):
        return obj()
    if isinstance(identifier, str):
        name = identifier
    elif isinstance(obj, Loss) or hasattr(obj, "name"):
        name = obj.name
    else:
        name = getattr(obj, "__name__", None) or _snake_case(type(obj).__name__)
    return _reduce.MeanMetricWrapper(obj, name=name)


_reduce.register_function_lookup(get)

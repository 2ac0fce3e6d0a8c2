"""`tf.estimator.experimental.LinearSDCA`: Stochastic Dual Coordinate Ascent for the linear
estimators (`LinearClassifier` with 2 classes: logistic loss; `LinearRegressor` with one label:
squared loss; hinge and smooth-hinge losses through `get_train_step`), as TF 2.15's
`sdca_optimizer` kernel.

SDCA minimizes `sum_i w_i * loss(y_i, x_i . b) + l2/2 |b|^2 + l1 |b|_1` over the whole data
set by keeping one dual variable per example (keyed by `example_id_column`) and, at each
train step, making one pass over the batch's examples in random order: for example i, the
dual's closed-form (squared, hinge) or Newton (logistic) update gives
`delta = (new_dual - dual) * w_i / l2`, and the "unshrunk" weights move by `x_i * delta`
(TF's `sdca_internal.cc`). After the step the model's variables are the unshrunk weights,
shrunk by `l1 / l2` when `l1 > 0` (TF's `update_weights`). Predictions inside the pass use the
shrunk weights, as TF's. Categorical columns count each id once per example (duplicates'
weights summed, negative ids dropped: TF's `_prune_and_unique_sparse_ids`); dense columns must
be of rank 1; the bias is a constant-1 dense feature.

Differences from TF: the example duals and the unshrunk weights live in the Estimator's
memory, not in checkpoints (after a restart the unshrunk weights start from the restored
variables and the duals from zero, which converges to the same solution); `adaptive=True`
sampling and `num_table_shards` are accepted, the pass is a plain random permutation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator._engine.object_scope import ReusableMeta
from torchestimator._engine.train_op import TrainOp
from torchestimator.errors import InvalidArgumentError
from torchestimator.estimator._session import LazySummary
from torchestimator.estimator.canned._trainable import compute_fraction_of_zero, trainable_variables
from torchestimator.estimator.head.binary_class_head import BinaryClassHead
from torchestimator.estimator.head.regression_head import RegressionHead
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.feature_column._base import CategoricalColumn, DenseColumn
from torchestimator.feature_column._transform import FeatureTransformationCache
from torchestimator.keras.feature_column._linear_model import LinearModel
from torchestimator.summary._summary import _record

_LOSSES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss")


class LinearSDCA:
    """Stochastic Dual Coordinate Ascent helper for linear estimators (TF's
    `tf.estimator.experimental.LinearSDCA(example_id_column, num_loss_partitions=1,
    num_table_shards=None, symmetric_l1_regularization=0.0, symmetric_l2_regularization=1.0,
    adaptive=False)`): pass it as `optimizer=` to `LinearClassifier` (binary) or
    `LinearRegressor`; every example's features must carry a unique id in
    `example_id_column`."""

    def __init__(self, example_id_column: str, num_loss_partitions: int = 1, num_table_shards: int | None = None,
                 symmetric_l1_regularization: float = 0.0, symmetric_l2_regularization: float = 1.0,
                 adaptive: bool = False):
        if not isinstance(example_id_column, str) or not example_id_column:
            raise ValueError(f"LinearSDCA: example_id_column must be a feature name; got {example_id_column!r}.")
        if int(num_loss_partitions) < 1:
            raise ValueError(f"LinearSDCA: num_loss_partitions must be >= 1; got {num_loss_partitions}.")
        if symmetric_l1_regularization < 0:
            raise ValueError("LinearSDCA: symmetric_l1_regularization must be >= 0; got "
                             f"{symmetric_l1_regularization}.")
        if symmetric_l2_regularization <= 0:
            raise ValueError("LinearSDCA: symmetric_l2_regularization must be > 0 (SDCA divides by it); got "
                             f"{symmetric_l2_regularization}.")
        self._example_id_column = example_id_column
        self._num_loss_partitions = int(num_loss_partitions)
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = float(symmetric_l1_regularization)
        self._symmetric_l2_regularization = float(symmetric_l2_regularization)
        self._adaptive = bool(adaptive)

    def get_train_step(self, state_manager: Any, weight_column_name: str | None, loss_type: str,
                       feature_columns: Any, features: Any, targets: Any, bias_var: torch.Tensor,
                       global_step: Any = None) -> tuple[Any, TrainOp]:
        """Returns `(sdca_model, train_op)` for one step over this batch: `state_manager` gives
        each column's `weights` variable (a `LinearModel`'s), `loss_type` is one of
        'logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss'. Running the train
        op makes the SDCA pass and updates the variables."""
        if loss_type not in _LOSSES:
            raise ValueError(f"Unsupported loss_type {loss_type!r}; expected one of {list(_LOSSES)}.")
        model = _SDCAModel.for_columns(self, state_manager, feature_columns, bias_var)
        batch = model.batch(features, targets, weight_column_name, feature_columns, state_manager, loss_type)
        return model, _SDCATrainOp(model, batch)


# --------------------------------------------------------------------------------------------
# The solver
# --------------------------------------------------------------------------------------------
def _convert_label(label: float, loss_type: str) -> float:
    if loss_type == "squared_loss":
        return label
    if label == 0.0:
        return -1.0
    if label == 1.0:
        return 1.0

    raise InvalidArgumentError(None, None, "Only labels of 0.0 or 1.0 are supported right now. Found example "
                                           f"with label: {label:g}")


def _updated_dual(loss_type: str, partitions: int, label: float, weight: float, dual: float, wx: float,
                  norm: float) -> float:
    """TF's `ComputeUpdatedDual` of each loss updater (`norm`: squared norm / l2)."""
    if loss_type == "squared_loss":
        return dual + (label - dual - wx) / (1 + partitions * norm * weight)
    if loss_type == "logistic_loss":
        x = 0.0
        for _ in range(10):  # Newton on alpha = 0.5 * (1 + tanh(x)) * label
            tanhx = math.tanh(x)
            numerator = -2 * label * x - wx - partitions * norm * weight * (0.5 * (1 + tanhx) / label - dual)
            denominator = -2 * label - partitions * norm * weight * (1 - tanhx * tanhx) * 0.5 / label
            x -= numerator / denominator
        return 0.5 * (1 + math.tanh(x)) * label
    if loss_type == "hinge_loss":
        candidate = dual + (label - wx) / (partitions * weight * norm)
        if label * candidate < 0:
            return 0.0
        if label * candidate > 1.0:
            return label
        return candidate
    # smooth hinge (gamma = 1)
    gamma = 1.0
    candidate = (label - wx - gamma * dual) / (partitions * norm * weight + gamma) + dual
    if label * candidate < 0:
        return 0.0
    if label * candidate > 1.0:
        return label
    return candidate


def _shrink(values: np.ndarray, shrinkage: float) -> np.ndarray:
    if shrinkage <= 0:
        return values
    return np.sign(values) * np.maximum(np.abs(values) - shrinkage, 0.0)


class _SDCAState(metaclass=ReusableMeta):
    """What persists across an Estimator's steps: the examples' duals by id and the unshrunk
    weights (made once per Estimator by the model_fn's object scope)."""

    def __init__(self, name: str = "sdca"):
        self.name = name
        self.duals: dict[Any, float] = {}
        self.unshrunk: list[np.ndarray] | None = None
        self.rng = np.random.default_rng(0)


class _SDCAModel:
    """One Estimator's SDCA: the variables (one per column, in name order, then the bias) and
    the persisting state."""

    def __init__(self, options: LinearSDCA, variables: list[torch.Tensor], state: _SDCAState):
        self.options = options
        self.variables = variables
        self.state = state
        if state.unshrunk is None or len(state.unshrunk) != len(variables):
            state.unshrunk = [v.detach().cpu().double().numpy().reshape(-1).copy() for v in variables]

    @classmethod
    def for_columns(cls, options: LinearSDCA, state_manager: Any, feature_columns: Any,
                    bias_var: torch.Tensor) -> _SDCAModel:
        variables = []
        for column in sorted(feature_columns, key=lambda c: c.name):
            if not isinstance(column, (CategoricalColumn, DenseColumn)):
                raise ValueError(f"LinearSDCA does not support column type {type(column).__name__}.")
            variables.append(state_manager.get_variable(column, "weights"))
        variables.append(bias_var)
        return cls(options, variables, _SDCAState())

    def batch(self, features: Any, targets: Any, weight_column_name: Any, feature_columns: Any,
              state_manager: Any, loss_type: str) -> dict:
        """The batch as the solver wants it: per example its (flat positions, values) over the
        concatenated weights, label, weight and id."""

        cache = FeatureTransformationCache.for_batch(features)
        labels = torch.as_tensor(targets).detach().reshape(-1).double().cpu().numpy()
        n = labels.shape[0]
        groups = []  # per variable: ("sparse", example_idx, feature_idx, values) or ("dense", matrix)
        for column in sorted(feature_columns, key=lambda c: c.name):
            if isinstance(column, CategoricalColumn):
                pair = column.get_sparse_tensors(cache, state_manager)
                ids = pair.id_tensor
                rows = ids.rows.detach().cpu().numpy().astype(np.int64).reshape(-1)
                flat = ids.ids.detach().cpu().numpy().astype(np.int64).reshape(-1)
                if pair.weight_tensor is not None:
                    vals = pair.weight_tensor.detach().double().cpu().numpy().reshape(-1)
                else:
                    vals = np.ones(flat.shape[0])
                keep = flat >= 0  # out-of-vocabulary ids (-1) are dropped
                rows, flat, vals = rows[keep], flat[keep], vals[keep]
                merged: dict[tuple[int, int], float] = {}
                for r, f, v in zip(rows.tolist(), flat.tolist(), vals.tolist()):
                    merged[(r, f)] = merged.get((r, f), 0.0) + v
                groups.append(("sparse", merged))
            else:
                dense = column.get_dense_tensor(cache, state_manager)
                if len(column.variable_shape) != 1:
                    raise ValueError(f"Column {type(column).__name__} has rank {len(column.variable_shape)}, "
                                     "larger than 1.")
                groups.append(("dense", dense.detach().double().cpu().numpy().reshape(n, -1)))
        groups.append(("dense", np.ones((n, 1))))  # the bias
        if weight_column_name:
            key = getattr(weight_column_name, "key", weight_column_name)
            example_weights = torch.as_tensor(features[key]).detach().double().cpu().numpy().reshape(-1)
        else:
            example_weights = np.ones(n)
        raw_ids = features[self.options._example_id_column]
        if isinstance(raw_ids, torch.Tensor):
            ids = raw_ids.detach().cpu().numpy().reshape(-1).tolist()
        else:
            ids = [v.decode() if isinstance(v, bytes) else v for v in np.asarray(raw_ids, dtype=object).reshape(-1)]
        if len(ids) != n:
            raise ValueError(f"LinearSDCA: feature {self.options._example_id_column!r} has {len(ids)} values for "
                             f"{n} examples; give every example one id.")
        return {"groups": groups, "labels": labels, "weights": example_weights, "ids": ids, "loss": loss_type}

    def minimize(self, batch: dict) -> None:
        """One SDCA pass over the batch (TF's `sdca_optimizer` with one inner iteration), then the
        weights' update (`update_weights`)."""
        opts = self.options
        l1, l2 = opts._symmetric_l1_regularization, opts._symmetric_l2_regularization
        partitions = opts._num_loss_partitions
        shrinkage = l1 / l2
        loss_type = batch["loss"]
        n = batch["labels"].shape[0]
        unshrunk = self.state.unshrunk
        # Concatenate the weights this batch touches into one flat vector.
        nominal_parts, owners, examples = [], [], [([], []) for _ in range(n)]
        offset = 0
        for g, (kind, data) in enumerate(batch["groups"]):
            if kind == "sparse":
                features = sorted({f for (_, f) in data})
                local = {f: offset + k for k, f in enumerate(features)}
                nominal_parts.append(unshrunk[g][features] if features else np.zeros(0))
                owners.append((g, np.asarray(features, dtype=np.int64), offset))
                for (r, f), v in data.items():
                    examples[r][0].append(local[f])
                    examples[r][1].append(v)
                offset += len(features)
            else:
                dim = data.shape[1]
                nominal_parts.append(unshrunk[g].copy())
                owners.append((g, None, offset))
                positions = list(range(offset, offset + dim))
                for r in range(n):
                    examples[r][0].extend(positions)
                    examples[r][1].extend(data[r].tolist())
                offset += dim
        nominal = np.concatenate(nominal_parts) if nominal_parts else np.zeros(0)
        delta = np.zeros_like(nominal)
        index = [np.asarray(p, dtype=np.int64) for p, _ in examples]
        values = [np.asarray(v, dtype=np.float64) for _, v in examples]
        duals = self.state.duals
        labels, weights, ids = batch["labels"], batch["weights"], batch["ids"]
        for i in self.state.rng.permutation(n):
            idx, val = index[i], values[i]
            label = _convert_label(float(labels[i]), loss_type)
            weight = float(weights[i])
            dual = duals.get(ids[i], 0.0)
            norm = float(val @ val) / l2
            wx = float(val @ _shrink(nominal[idx] + delta[idx] * partitions, shrinkage))
            new_dual = _updated_dual(loss_type, partitions, label, weight, dual, wx, norm)
            step = (new_dual - dual) * weight / l2
            np.add.at(delta, idx, val * step)
            duals[ids[i]] = new_dual
        # The deltas go to the unshrunk weights; the variables take them, shrunk.
        for g, features, start in owners:
            if features is None:
                size = unshrunk[g].shape[0]
                unshrunk[g] += delta[start:start + size]
            elif features.size:
                np.add.at(unshrunk[g], features, delta[start:start + features.size])
        with torch.no_grad():
            for variable, values_g in zip(self.variables, unshrunk):
                shrunk = _shrink(values_g, shrinkage)
                variable.copy_(torch.from_numpy(shrunk.reshape(tuple(variable.shape))).to(variable.dtype))


class _SDCATrainOp(TrainOp):
    """The train op of an SDCA step: the pass over the batch and the weights' update."""

    def __init__(self, model: _SDCAModel, batch: dict):
        super().__init__([])
        self._model = model
        self._batch = batch

    def run(self, resolved_vars: dict | None = None, sync: Any = None) -> None:
        """Runs the SDCA step."""
        self._model.minimize(self._batch)


def sdca_model_fn(features: Any, labels: Any, mode: str, head: Any, feature_columns: tuple, optimizer: LinearSDCA,
                  sparse_combiner: str = "sum") -> Any:
    """The linear model_fn with an SDCA optimizer (TF's `_sdca_model_fn`): the binary head
    trains with logistic loss, the one-dimensional regression head with squared loss."""
    if sparse_combiner != "sum":
        raise ValueError(f"LinearSDCA needs sparse_combiner='sum'; got {sparse_combiner!r}.")
    if isinstance(head, BinaryClassHead):
        loss_type = "logistic_loss"
    elif isinstance(head, RegressionHead) and head.logits_dimension == 1:
        loss_type = "squared_loss"
    else:
        raise ValueError(f"Unsupported head type: {head}")
    model = LinearModel(feature_columns=feature_columns, units=1, sparse_combiner="sum", name="linear/linear_model")
    logits = model(features)
    bias = model.bias
    variables = trainable_variables([model])
    _record("bias", bias[0])
    _record("fraction_of_zero_weights",
            LazySummary(lambda: compute_fraction_of_zero([v for v in variables if v is not bias])))
    if mode != ModeKeys.TRAIN:
        return head.create_estimator_spec(features=features, mode=mode, labels=labels, logits=logits)
    if labels is None:
        raise ValueError("LinearSDCA needs labels to train.")
    weight_column = getattr(head, "_weight_column", None)
    with torch.no_grad():
        _, train_op = optimizer.get_train_step(model._state_manager, weight_column, loss_type, feature_columns,
                                               features, labels, bias)
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, logits=logits,
                                      train_op_fn=lambda unused_loss: train_op)


__all__ = ["LinearSDCA", "sdca_model_fn"]

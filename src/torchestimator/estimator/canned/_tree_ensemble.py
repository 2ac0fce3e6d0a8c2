"""The boosted-trees model state: a LightGBM booster, the data collected for its next trees,
and how it lives in a checkpoint.

The booster is saved as LightGBM's text model in `<model_dir>/boosted_trees/
ensemble-<id>.txt` (written to a temporary name, then renamed). The
checkpoint holds a small int64 tensor `boosted_trees/tree_ensemble` = `[number
of boosting rounds, id]` that names that file, so restoring a checkpoint
(resume, evaluate, predict from an older one) loads the booster it refers to.

TF's BoostedTrees quantile-bucketizes numeric columns and grows one layer per
`n_batches_per_layer` batches. Here LightGBM does the bucketing
(`max_bin = 1 / quantile_sketch_epsilon`) and grows whole trees: once the
data of `n_batches_per_layer` batches is collected (or the input ends), the
ensemble grows to `n_trees` boosting rounds in one call (continuing from the
existing booster). TF's regularizers act on per-example mean statistics;
LightGBM's on sums, so they are scaled by the number of examples collected.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from typing import Any

import numpy as np
import torch

from torchestimator.keras.engine.base_layer import Layer

_FOLDER = "boosted_trees"


def import_lightgbm() -> Any:
    """Returns the `lightgbm` module, or raises ImportError saying how to install it."""
    try:
        import lightgbm  # lazy: optional extra (lightgbm)
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "BoostedTreesClassifier/BoostedTreesRegressor need LightGBM. Install it with "
            "`pip install torchestimator[trees]` (or `pip install lightgbm`)."
        ) from error
    return lightgbm


def booster_path(model_dir: str, ensemble_id: int) -> str:
    """Where the booster with `ensemble_id` is stored under `model_dir`."""
    return os.path.join(model_dir, _FOLDER, f"ensemble-{ensemble_id:016x}.txt")


def load_booster(model_dir: str, reference: Any) -> Any:
    """The LightGBM booster a `[rounds, id]` checkpoint reference names (None for 0 rounds)."""
    rounds, ensemble_id = (int(v) for v in np.asarray(reference).reshape(-1)[:2])
    if rounds == 0:
        return None
    path = booster_path(model_dir, ensemble_id)
    if not os.path.exists(path):
        raise ValueError(
            f"The checkpoint refers to the boosted-trees model file {path}, which is missing. The "
            f"model_dir must keep its '{_FOLDER}' folder next to the checkpoints."
        )
    lgb = import_lightgbm()
    return lgb.Booster(model_file=path)


class TreeEnsemble(Layer):
    """Holds the booster of a BoostedTrees estimator (a Keras layer, so it is checkpointed).

    Args:
      model_dir: the Estimator's model_dir (where booster files are written).
      params: LightGBM parameters (objective, tree shape, regularization before scaling).
      n_trees: the number of boosting rounds to grow to.
      n_batches_per_layer: how many batches to collect before growing.
      logits_dimension: the number of logits per example.
      name: the layer name ('boosted_trees').
    """

    def __init__(self, model_dir: str, params: dict, n_trees: int, n_batches_per_layer: int,
                 logits_dimension: int, name: str = _FOLDER, **kwargs: Any):
        super().__init__(name=name, **kwargs)
        self.model_dir = model_dir
        self.params = dict(params)
        self.n_trees = int(n_trees)
        self.n_batches_per_layer = int(n_batches_per_layer)
        self.logits_dimension = int(logits_dimension)
        self.register_buffer("tree_ensemble", torch.zeros(2, dtype=torch.int64))
        self._booster: Any = None
        self._loaded = (0, 0)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        self.built = True

    # --------------------------------------------------------------------- state
    @property
    def rounds(self) -> int:
        """The number of boosting rounds the current ensemble has."""
        self._sync()
        return int(self.tree_ensemble[0])

    @property
    def complete(self) -> bool:
        """True once the ensemble has `n_trees` rounds."""
        return self.rounds >= self.n_trees

    @property
    def booster(self) -> Any:
        """The LightGBM booster (None before the first trees grew)."""
        self._sync()
        return self._booster

    def _sync(self) -> None:
        """Loads the booster a restored checkpoint refers to, when it changed."""
        reference = tuple(int(v) for v in self.tree_ensemble.tolist())
        if reference != self._loaded:
            self._booster = load_booster(self.model_dir, reference)
            self._loaded = reference
            self._pending = []

    def raw_scores(self, x: np.ndarray) -> np.ndarray:
        """The ensemble's logits for the rows of `x`: float32 [rows, logits_dimension]."""
        booster = self.booster
        if booster is None or len(x) == 0:
            return np.zeros((len(x), self.logits_dimension), dtype=np.float32)
        scores = booster.predict(x, raw_score=True)
        return np.asarray(scores, dtype=np.float32).reshape(len(x), self.logits_dimension)

    # --------------------------------------------------------------------- growing
    @property
    def collected(self) -> int:
        """The number of batches collected for the next growth."""
        return len(self._pending)

    def add_batch(self, x: np.ndarray, labels: np.ndarray, weights: np.ndarray | None) -> None:
        """Collects one batch; grows the ensemble once `n_batches_per_layer` batches are in."""
        self._sync()
        if self.complete:
            return
        self._pending.append((x, labels, weights))
        if len(self._pending) >= self.n_batches_per_layer:
            self.grow()

    def grow(self) -> bool:
        """Grows the ensemble to `n_trees` rounds on the collected data; True if it grew."""
        self._sync()
        if not self._pending or self.complete:
            self._pending = []
            return False
        lgb = import_lightgbm()
        x = np.concatenate([b[0] for b in self._pending])
        y = np.concatenate([b[1] for b in self._pending])
        weights = None
        if any(b[2] is not None for b in self._pending):
            weights = np.concatenate([b[2] if b[2] is not None else np.ones(len(b[0]), np.float32)
                                      for b in self._pending])
        self._pending = []
        params = scaled_params(self.params, len(x))
        dataset = lgb.Dataset(x, label=y, weight=weights, free_raw_data=True,
                              params={"max_bin": params["max_bin"], "verbose": -1})
        booster = lgb.train(params, dataset, num_boost_round=self.n_trees - self.rounds,
                            init_model=self._booster, keep_training_booster=False)
        self._store(booster)
        return True

    def _store(self, booster: Any) -> None:
        text = booster.model_to_string()
        ensemble_id = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
        path = booster_path(self.model_dir, ensemble_id)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".ensemble-", suffix=".tmp", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        rounds = int(booster.current_iteration())
        with torch.no_grad():
            self.tree_ensemble.copy_(torch.tensor([rounds, ensemble_id], dtype=torch.int64))
        self._booster = booster
        self._loaded = (rounds, ensemble_id)

    def call(self, inputs: Any) -> Any:
        """Returns `raw_scores(inputs)` as a float32 tensor."""
        return torch.from_numpy(self.raw_scores(np.asarray(inputs)))


def scaled_params(params: dict, num_examples: int) -> dict:
    """LightGBM parameters with TF's per-example regularizers scaled to sums over `num_examples`."""
    out = dict(params)
    scale = float(max(num_examples, 1))
    for key in ("lambda_l1", "lambda_l2", "min_gain_to_split"):
        out[key] = float(out.get(key, 0.0)) * scale
    out["min_sum_hessian_in_leaf"] = max(float(out.get("min_sum_hessian_in_leaf", 0.0)) * scale, 1e-3)
    return out


def _paths_of_tree(tree: dict) -> tuple[float, dict[int, list[tuple[int, float]]]]:
    """(root value, {leaf index: [(split feature, change of the node value), ...] root to leaf})."""
    root = tree["tree_structure"]
    paths: dict[int, list[tuple[int, float]]] = {}
    if "leaf_value" in root:
        return float(root["leaf_value"]), {int(root.get("leaf_index", 0)): []}
    stack = [(root, float(root["internal_value"]), [])]
    while stack:
        node, value, path = stack.pop()
        feature = int(node["split_feature"])
        for child in (node["left_child"], node["right_child"]):
            child_value = float(child["leaf_value"] if "leaf_value" in child else child["internal_value"])
            step = [*path, (feature, child_value - value)]
            if "leaf_value" in child:
                paths[int(child["leaf_index"])] = step
            else:
                stack.append((child, child_value, step))
    return float(root["internal_value"]), paths


def directional_contributions(
    booster: Any, x: np.ndarray, activation: Any
) -> tuple[np.ndarray, np.ndarray]:
    """TF's directional feature contributions (Saabas' method) of a one-logit ensemble.

    Each example's raw score is the sum of the trees' root values (the bias)
    plus, along its decision path through every tree in order, the change of
    the node value at each split, credited to the split's feature. As TF,
    contributions are measured after `activation` (the sigmoid for a binary
    classifier, the identity for a regressor): each step is credited with the
    change of `activation(running score)`, so `bias + contributions.sum(1)`
    equals the prediction.

    Returns:
      (bias [rows], contributions [rows, features]) as float64.
    """
    rows, n_features = x.shape
    trees = [_paths_of_tree(tree) for tree in booster.dump_model()["tree_info"]]
    bias_logit = sum(root for root, _ in trees)
    depth = max([len(p) for _, paths in trees for p in paths.values()] + [1])
    leaves = np.asarray(booster.predict(x, pred_leaf=True), dtype=np.int64).reshape(rows, len(trees))
    features = np.full((rows, len(trees), depth), -1, dtype=np.int64)
    deltas = np.zeros((rows, len(trees), depth), dtype=np.float64)
    for t, (_, paths) in enumerate(trees):
        table_f = np.full((max(paths) + 1, depth), -1, dtype=np.int64)
        table_d = np.zeros((max(paths) + 1, depth), dtype=np.float64)
        for leaf, path in paths.items():
            for i, (feature, delta) in enumerate(path):
                table_f[leaf, i], table_d[leaf, i] = feature, delta
        features[:, t], deltas[:, t] = table_f[leaves[:, t]], table_d[leaves[:, t]]
    features, deltas = features.reshape(rows, -1), deltas.reshape(rows, -1)
    running = bias_logit + np.cumsum(deltas, axis=1)
    bias = np.full(rows, float(activation(np.float64(bias_logit))))
    after = activation(running)
    steps = np.diff(np.concatenate([bias[:, None], after], axis=1), axis=1)
    contributions = np.zeros((rows, n_features), dtype=np.float64)
    valid = features >= 0
    row_index = np.broadcast_to(np.arange(rows)[:, None], features.shape)
    np.add.at(contributions, (row_index[valid], features[valid]), steps[valid])
    return bias, contributions

"""Runs the parity cases recorded by tools/make_tf_parity_fixtures.py on our Keras.

Each `run_*` function takes one manifest entry and the family's arrays and
returns `[(name, ours, tf's)]` pairs; `scaled_error(ours, theirs)` is
`max|ours - tf| / max(1, max|tf|)` (relative for values above 1, absolute
below), the number the tests bound and `python tests/keras/parity/_tf_parity.py`
tabulates per family (the largest error of each family and its case).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np
import torch

import torchestimator as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _parity_models, when run as a script

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
TOLERANCE = 1e-5

# Output masks TF attaches that are not Keras masks of the layer's output: case -> why.
MASK_DIFFERENCES = {
    "mha_mask_scores": (
        "TF's attention scores carry the mask of MultiHeadAttention's internal Softmax layer as a "
        "by-product; the layer's compute_mask gives no mask for them"
    ),
}

# Cases whose weights differ in layout from TF's (the outputs are still compared): case -> why.
WEIGHT_LAYOUT_DIFFERENCES = {
    "integer_lookup_tf_idf": (
        "TF keeps the IDF weights of a 'tf_idf' lookup as a layer weight (`idf_weights`); ours "
        "holds them as layer state, set from the constructor's `idf_weights` as TF does"
    ),
}


def load(family: str) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """Returns (manifest, arrays) of a fixture family; no pickle on the load path."""
    with np.load(os.path.join(FIXTURES, f"{family}.npz"), allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    manifest = json.loads(str(arrays.pop("__manifest__")))
    return manifest, arrays


def scaled_error(ours: Any, theirs: np.ndarray) -> float:
    """`max|ours - theirs| / max(1, max|theirs|)`; inf when the shapes differ."""
    if isinstance(ours, torch.Tensor):
        ours = ours.detach().cpu().numpy()
    ours = np.asarray(ours)
    theirs = np.asarray(theirs)
    if ours.shape != theirs.shape:
        return float("inf")
    if theirs.size == 0:
        return 0.0
    if theirs.dtype.kind in "iub" or ours.dtype.kind in "iub":
        return float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64))))
    diff = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
    if np.isnan(diff).any():
        same_nan = np.isnan(ours) & np.isnan(theirs)
        if (np.isnan(diff) & ~same_nan).any():
            return float("inf")
        diff = np.where(same_nan, 0.0, diff)
    return float(diff.max() / max(1.0, float(np.abs(np.nan_to_num(theirs)).max())))


# --------------------------------------------------------------------------------------------- layers


def build_arg(value: Any) -> Any:
    """Turns `{"__layer__": name, "config": {...}}` into our layer (recursively)."""
    if isinstance(value, dict) and "__layer__" in value:
        config = {k: build_arg(v) for k, v in value["config"].items()}
        return getattr(tf.keras.layers, value["__layer__"])(**config)
    if isinstance(value, list):
        return [build_arg(v) for v in value]
    return value


def _tensor(x: np.ndarray) -> Any:
    if x.dtype.kind == "U":
        return x  # string inputs stay numpy arrays of str
    return torch.as_tensor(x)


def run_layer(
    entry: dict[str, Any], arrays: dict[str, np.ndarray], from_tf_config: bool = False
) -> list[tuple[str, Any, np.ndarray]]:
    """Builds our layer with TF's arguments (or `from_config` of TF's `get_config()`), sets TF's
    weights, calls it on TF's input."""
    case = entry["id"]
    cls = getattr(tf.keras.layers, entry["class"])
    if from_tf_config:
        layer = cls.from_config(entry["tf_config"])
    else:
        layer = cls(**{k: build_arg(v) for k, v in entry["kwargs"].items()})
    inputs = [_tensor(arrays[f"{case}/in{i}"]) for i in range(entry["n_in"])]
    kwargs: dict[str, Any] = {}
    for name, spec in entry["call_args"].items():
        if "arrays" in spec:
            kwargs[name] = [_tensor(arrays[f"{case}/arg_{name}{j}"]) for j in range(spec["arrays"])]
        elif "array" in spec:
            kwargs[name] = _tensor(arrays[f"{case}/arg_{name}"])
        else:
            kwargs[name] = spec["value"]

    def call(training: bool) -> Any:
        if entry["call"] == "list":
            return layer(inputs, training=training, **kwargs)
        if entry["call"] == "args":
            return layer(*inputs, training=training, **kwargs)
        return layer(inputs[0], training=training, **kwargs)

    if entry.get("adapt") is not None:
        layer.adapt(arrays[f"{case}/in{entry['adapt']}"])
    with torch.no_grad():
        call(False)
        if entry["n_w"] and case not in WEIGHT_LAYOUT_DIFFERENCES:
            layer.set_weights([arrays[f"{case}/w{i}"] for i in range(entry["n_w"])])
        outputs = call(entry["training"])
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    pairs: list[tuple[str, Any, np.ndarray]] = []
    if len(outputs) != entry["n_out"]:
        raise AssertionError(f"{case}: {len(outputs)} outputs, TF gives {entry['n_out']}")
    for i, y in enumerate(outputs):
        pairs.append((f"out{i}", y, arrays[f"{case}/out{i}"]))
    for i in entry["masks"] if case not in MASK_DIFFERENCES else []:
        mask = getattr(outputs[i], "_keras_mask", None)
        if mask is None:
            raise AssertionError(f"{case}: TF attaches a mask to output {i}; ours has none")
        pairs.append((f"mask of out{i}", mask, arrays[f"{case}/mask{i}"]))
    if entry["after"]:
        for i, w in enumerate(layer.get_weights()):
            pairs.append((f"weight {entry['weight_names'][i]} after the call", w, arrays[f"{case}/after{i}"]))
    return pairs


# ----------------------------------------------------------------------------------------- optimizers

OPT_VARS = ("emb", "kernel", "bias")


def make_optimizer(entry: dict[str, Any], from_tf_config: bool = False) -> Any:
    """Our optimizer of the case (new or legacy), with a deserialized schedule if any; or
    `from_config` of TF's `get_config()`."""
    module = tf.keras.optimizers.legacy if entry["kind"] == "legacy" else tf.keras.optimizers
    if from_tf_config:
        return getattr(module, entry["class"]).from_config(entry["tf_config"])
    kwargs = dict(entry["kwargs"])
    if isinstance(kwargs.get("learning_rate"), dict):
        kwargs["learning_rate"] = tf.keras.optimizers.schedules.deserialize(kwargs["learning_rate"])
    return getattr(module, entry["class"])(**kwargs)


def run_optimizer(
    entry: dict[str, Any], arrays: dict[str, np.ndarray], mode: str = "sparse", from_tf_config: bool = False
) -> list[tuple[str, Any, np.ndarray]]:
    """Runs TF's steps of the fixed problem (Embedding lookup, dense layer, tanh, squared error).

    `mode="sparse"` looks the rows up with `torch.nn.functional.embedding(sparse=True)`: the
    gradient is an uncoalesced sparse tensor, one row per lookup, like TF's `IndexedSlices`;
    `mode="dense"` multiplies one-hot rows by the table (a dense gradient, in TF too).
    """
    case = entry["id"]
    ids, target = torch.as_tensor(arrays["problem/ids"]).long(), torch.as_tensor(arrays["problem/target"])
    variables = [torch.nn.Parameter(torch.as_tensor(arrays[f"problem/init_{n}"]).clone()) for n in OPT_VARS]
    emb, kernel, bias = variables
    opt = make_optimizer(entry, from_tf_config)
    prefix = f"{case}/{mode}"
    pairs: list[tuple[str, Any, np.ndarray]] = []
    for step in range(entry["steps"]):
        if mode == "sparse":
            rows = torch.nn.functional.embedding(ids[step], emb, sparse=True)
        else:
            rows = torch.nn.functional.one_hot(ids[step], emb.shape[0]).float() @ emb
        x = rows.mean(dim=1)
        h = torch.tanh(x @ kernel + bias)
        loss = ((h - target) ** 2).mean()
        grads = torch.autograd.grad(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        for name, v in zip(OPT_VARS, variables):
            pairs.append((f"{mode} step {step} {name}", v.detach().clone(), arrays[f"{prefix}/step{step}_{name}"]))
    if entry["finalized"]:
        opt.finalize_variable_values(variables)
        for name, v in zip(OPT_VARS, variables):
            pairs.append((f"{mode} finalized {name}", v.detach().clone(), arrays[f"{prefix}/final_{name}"]))
    return pairs


def run_layer_from_tf_config(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[tuple[str, Any, np.ndarray]]:
    """`run_layer` on the layer made by `from_config(TF's get_config())`."""
    return run_layer(entry, arrays, from_tf_config=True)


def run_optimizer_dense(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[tuple[str, Any, np.ndarray]]:
    """`run_optimizer` with dense gradients."""
    return run_optimizer(entry, arrays, mode="dense")


# ------------------------------------------------------------------------------------ losses, metrics


def _input(x: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(x)


def run_loss(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[tuple[str, Any, np.ndarray]]:
    """Our loss object (each reduction, with and without sample weights) and loss function."""
    case = entry["id"]
    y_true, y_pred = _input(arrays[f"{case}/y_true"]), _input(arrays[f"{case}/y_pred"])
    pairs: list[tuple[str, Any, np.ndarray]] = []
    for result in entry["results"]:
        kwargs = dict(entry["kwargs"], reduction=result["reduction"])
        loss = getattr(tf.keras.losses, entry["class"])(**kwargs)
        sw = None if result["sample_weight"] is None else _input(arrays[f"{case}/{result['sample_weight']}"])
        value = loss(y_true, y_pred, sample_weight=sw)
        pairs.append((f"{result['reduction']} sample_weight={result['sample_weight']}", value, arrays[result["key"]]))
    fn = getattr(tf.keras.losses, entry["fn"])
    pairs.append((f"function {entry['fn']}", fn(y_true, y_pred, **entry["fn_kwargs"]), arrays[f"{case}/fn"]))
    return pairs


def run_metric(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[tuple[str, Any, np.ndarray]]:
    """Two `update_state` calls (the second with sample weights); `result()` after each."""
    case = entry["id"]
    metric = getattr(tf.keras.metrics, entry["class"])(**entry["kwargs"])
    pairs: list[tuple[str, Any, np.ndarray]] = []
    for batch in range(entry["batches"]):
        y_pred = _input(arrays[f"{case}/y_pred{batch}"])
        key = f"{case}/sw{batch}"
        sw = _input(arrays[key]) if key in arrays else None
        if entry["values_only"]:
            metric.update_state(y_pred, sample_weight=sw)
        else:
            metric.update_state(_input(arrays[f"{case}/y_true{batch}"]), y_pred, sample_weight=sw)
        pairs.append((f"result after batch {batch}", metric.result(), arrays[f"{case}/result{batch}"]))
    return pairs


def run_model(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[tuple[str, Any, np.ndarray]]:
    """A model of `_parity_models.py` with TF's starting weights: evaluate, predict, fit (shuffle
    off: the same batches), evaluate again; TF's values by metric name, weights after fit."""
    import _parity_models as models

    case = entry["id"]
    tf.keras.backend.clear_session()
    torch.manual_seed(0)
    model, compile_kwargs = models.CASES[case](tf)
    model.compile(**compile_kwargs)
    model.set_weights([arrays[f"{case}/w{i}"] for i in range(entry["n_w"])])
    x, y, sw = models.data(case)
    pairs: list[tuple[str, Any, np.ndarray]] = []

    def by_name(label: str, ours: dict[str, Any], names: list[str], prefix: str) -> None:
        missing = sorted(set(names) - set(ours))
        if missing:
            raise AssertionError(f"{case}: {label} has no {missing}; ours has {sorted(ours)}")
        for name in names:
            pairs.append((f"{label} {name}", np.float32(ours[name]), arrays[f"{case}/{prefix}/{name}"]))

    by_name("evaluate", model.evaluate(x, y, sample_weight=sw, batch_size=8, verbose=0, return_dict=True),
            entry["evaluate"], "evaluate")
    predictions = model.predict(x, batch_size=8, verbose=0)
    predictions = predictions if isinstance(predictions, list) else [predictions]
    for i in range(entry["n_pred"]):
        pairs.append((f"predict output {i}", predictions[i], arrays[f"{case}/pred{i}"]))
    history = model.fit(x, y, sample_weight=sw, **models.FIT).history
    by_name("fit history", {k: np.asarray(v, dtype=np.float32) for k, v in history.items()},
            entry["history"], "history")
    for i, w in enumerate(model.get_weights()):
        pairs.append((f"weight {entry['weight_names'][i]} after fit", w, arrays[f"{case}/fitted{i}"]))
    by_name("evaluate after fit",
            model.evaluate(x, y, sample_weight=sw, batch_size=8, verbose=0, return_dict=True),
            entry["evaluate"], "evaluate_after_fit")
    return pairs


RUNNERS = {"layers": run_layer, "layers (from TF's config)": run_layer_from_tf_config, "optimizers": run_optimizer, "optimizers (dense gradients)": run_optimizer_dense,
           "losses": run_loss, "metrics": run_metric, "models": run_model}
FILES = {"optimizers (dense gradients)": "optimizers", "layers (from TF's config)": "layers"}


def case_error(family: str, entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> tuple[float, str]:
    """(largest scaled error, where) of one case; inf and the exception when it does not run."""
    try:
        pairs = RUNNERS[family](entry, arrays)
    except Exception as e:  # noqa: BLE001 - tabulated, the tests raise
        return float("inf"), f"{type(e).__name__}: {e}"[:160]
    worst, where = 0.0, ""
    for name, ours, theirs in pairs:
        err = scaled_error(ours, theirs)
        if err > worst or not where:
            worst, where = err, name
    return worst, where


def main() -> None:
    """Prints the largest error of each family, and every case above the tolerance."""
    for family in RUNNERS:
        manifest, arrays = load(FILES.get(family, family))
        results = [(entry["id"], *case_error(family, entry, arrays)) for entry in manifest]
        worst = max((r for r in results if np.isfinite(r[1])), key=lambda r: r[1], default=("-", 0.0, ""))
        failing = [r for r in results if not r[1] <= TOLERANCE]
        print(f"{family}: {len(results)} cases, largest error {worst[1]:.2e} ({worst[0]}: {worst[2]}); "
              f"{len(failing)} above {TOLERANCE:g}")
        for case, err, where in failing:
            print(f"    {case}: {err:.2e} {where}")


if __name__ == "__main__":
    main()

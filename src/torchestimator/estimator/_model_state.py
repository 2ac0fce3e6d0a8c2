"""The state of an Estimator's model: the objects its `model_fn` created or used, the global
step, and their checkpoints (through the one checkpoint format in `_engine`).

Variables are named `<layer name>/<path inside the layer>` (`dense/kernel`,
`sequential/dense_1/bias`); optimizer state is named as TF 2.15's Estimator
names it: `training/<optimizer name>/<variable>/<slot>` (`training/Adagrad/
dnn/logits/kernel/accumulator`), `training/<optimizer name>/iter` and
`.../learning_rate`; TF1's optimizers (`tf.compat.v1.train`) name slots
`<variable>/<optimizer name>` (`.../kernel/Adagrad`, Ftrl's `Ftrl` and `Ftrl_1`).
"""

from __future__ import annotations

import logging
import random
from typing import Any

import numpy as np
import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import state_io
from torchestimator._engine.object_scope import ObjectScope

logger = logging.getLogger("torchestimator")

GLOBAL_STEP = "global_step"
OPTIMIZER_SCOPE = "training"


def _rename_paths(skeleton: Any, renames: dict[str, str]) -> Any:
    """`skeleton` with its tensor paths replaced by `renames[path]`."""
    if isinstance(skeleton, dict):
        if "__tensor__" in skeleton:
            return {**skeleton, "__tensor__": renames[skeleton["__tensor__"]]}
        return {k: _rename_paths(v, renames) for k, v in skeleton.items()}
    if isinstance(skeleton, list):
        return [_rename_paths(v, renames) for v in skeleton]
    return skeleton


def _checkpoint_name(path: str, prefix: str, opt: Any, variable_names: list[str]) -> str:
    """TF's name of an optimizer state entry (`variables.3.accumulator` is slot `accumulator` of the
    optimizer's variable 3): `training/<prefix>/<variable>/<slot>` as TF 2.15's Estimator (Keras
    optimizers) names it, `<variable>/<prefix>` as TF1's optimizers do; the optimizer's own
    state (`iter`, `learning_rate`) under `training/<prefix>/` (`<prefix>/` for TF1's)."""
    v1 = hasattr(opt, "_v1_slot_names")
    scope = prefix if v1 else f"{OPTIMIZER_SCOPE}/{prefix}"
    parts = path.split(".")
    if parts[0] == "iterations":
        return f"{scope}/iter"
    if parts[0] == "variables" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(variable_names):
        slot = f"{variable_names[int(parts[1])]}/{opt.checkpoint_slot_name(parts[2])}"
        return slot if v1 else f"{scope}/{slot}"
    return "/".join([scope, *parts])


class ModelState:
    """Everything a `model_fn` made that a checkpoint must hold."""

    def __init__(self) -> None:
        self.scope = ObjectScope()
        self.global_step = 0
        self.var_cache: dict = {}

    # ------------------------------------------------------------------ objects
    def layers(self) -> list:
        """The layers model_fn created or called at its top level (each once)."""
        from torchestimator.keras.engine.base_layer import Layer

        found: dict[int, Any] = {}
        for obj in self.scope.objects.values():
            if isinstance(obj, Layer):
                found.setdefault(id(obj), obj)
        for layer in self.scope.used_layers.values():
            found.setdefault(id(layer), layer)
        return list(found.values())

    def optimizers(self) -> list:
        """The optimizers model_fn created, in creation order."""
        from torchestimator.keras.optimizers import Optimizer

        return self.scope.created(Optimizer)

    def metrics(self) -> list:
        """The metric objects model_fn created."""
        from torchestimator.keras.metrics import Metric

        return self.scope.created(Metric)

    def is_built(self) -> bool:
        """True once model_fn ran at least once."""
        return self.scope.call_index > 0

    def named_variables(self) -> dict[str, torch.Tensor]:
        """Every weight and buffer of the model's layers, keyed by checkpoint name."""
        out: dict[str, torch.Tensor] = {}
        seen: set[int] = set()
        for layer in self.layers():
            for key, tensor in layer.state_dict(keep_vars=True).items():
                if id(tensor) in seen:
                    continue
                seen.add(id(tensor))
                keras_name = getattr(tensor, "_keras_name", None)
                if "." not in key and keras_name and keras_name.startswith(layer.name + "/"):
                    name = keras_name  # a weight of the layer itself: its TF-style name
                else:
                    name = f"{layer.name}/{key.replace('.', '/')}"
                if name in out:
                    raise ValueError(
                        f"Two different layers used by model_fn are both named {layer.name!r}; give "
                        "them distinct names so their checkpoint variables do not collide."
                    )
                out[name] = tensor
        return out

    def _optimizer_prefixes(self) -> list[tuple[str, Any]]:
        result, counts = [], {}
        for opt in self.optimizers():
            base = getattr(opt, "name", type(opt).__name__)
            n = counts.get(base, 0)
            counts[base] = n + 1
            result.append((base if n == 0 else f"{base}_{n}", opt))
        return result

    # ------------------------------------------------------------------ saving
    def tensors_and_extra(self, extra: dict | None = None) -> tuple[dict, dict]:
        """Returns the checkpoint's tensors and its JSON metadata."""
        variables = self.named_variables()
        tensors = {name: t.detach() for name, t in variables.items()}
        name_of = {id(t): name for name, t in variables.items()}
        meta: dict[str, Any] = {"optimizers": {}, "optimizer_names": "tf"}
        for prefix, opt in self._optimizer_prefixes():
            if not getattr(opt, "_built", False):
                continue
            state = dict(opt.state_dict())
            state["iterations"] = torch.tensor(int(state["iterations"]), dtype=torch.int64)
            if isinstance(state.get("learning_rate"), float):
                state["learning_rate"] = torch.tensor(state["learning_rate"], dtype=torch.float64)  # exact on resume
            opt_tensors, skeleton = state_io.flatten_state(state)
            variable_names = [name_of.get(id(v), f"variables/{i}") for i, v in enumerate(opt._vars)]
            renames = {path: _checkpoint_name(path, prefix, opt, variable_names) for path in opt_tensors}
            for path, value in opt_tensors.items():
                name = renames[path]
                if name in tensors:
                    raise ValueError(
                        f"Optimizer {prefix!r} would write checkpoint variable {name!r}, which another "
                        "variable already has; give the optimizers distinct names."
                    )
                tensors[name] = value
            meta["optimizers"][prefix] = _rename_paths(skeleton, renames)
        rng_tensors, rng_meta = rng_state()
        tensors.update(rng_tensors)
        meta["rng"] = rng_meta
        meta.update(extra or {})
        return tensors, meta

    def save(self, manager: ckpt.CheckpointManager, extra: dict | None = None) -> str:
        """Writes a checkpoint at the current global step; returns its path."""
        tensors, meta = self.tensors_and_extra(extra)
        return manager.save(self.global_step, tensors, meta)

    # ------------------------------------------------------------------ loading
    def restore(self, path: str, restore_rng: bool = False) -> dict:
        """Loads weights, optimizer state and the global step from checkpoint `path`;
        returns its metadata. Raises ValueError naming a missing or mis-shaped variable."""
        tensors, meta = ckpt.load_checkpoint(path)
        variables = self.named_variables()
        missing = [n for n in variables if n not in tensors]
        if missing:
            raise ValueError(
                f"Restoring from checkpoint failed: {path} has no variable(s) {missing[:5]} that "
                f"model_fn created. Its variables start with {sorted(tensors)[:8]}. The model must "
                "be built the same way as when the checkpoint was written."
            )
        with torch.no_grad():
            for name, target in variables.items():
                value = tensors[name]
                if tuple(value.shape) != tuple(target.shape):
                    raise ValueError(
                        f"Restoring from checkpoint failed: variable {name} has shape "
                        f"{tuple(target.shape)} in the model but {tuple(value.shape)} in {path}."
                    )
                target.copy_(value.to(device=target.device, dtype=target.dtype))
        extra = meta.get("extra", meta)
        for prefix, opt in self._optimizer_prefixes():
            skeleton = extra.get("optimizers", {}).get(prefix)
            if skeleton is None:
                continue
            if extra.get("optimizer_names") == "tf":  # the skeleton holds the checkpoint names
                sub = tensors
            else:  # written before TF's names: `<prefix>/<path>`
                sub = {k[len(prefix) + 1:]: v for k, v in tensors.items() if k.startswith(prefix + "/")}
            if not getattr(opt, "_built", False):
                continue
            opt.load_state_dict(state_io.unflatten_state(sub, skeleton))
        self.global_step = int(meta.get("global_step", extra.get("global_step", 0)))
        if restore_rng and extra.get("rng") is not None:
            set_rng_state(tensors, extra["rng"])
        logger.info("Restoring parameters from %s", path)
        return extra

    def initialize_step(self) -> None:
        """Starts from freshly initialized weights at global step 0."""
        self.global_step = 0


def rng_state() -> tuple[dict[str, torch.Tensor], dict]:
    """The torch, numpy and Python random states, as tensors plus JSON."""
    tensors = {"_rng/torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        for i, state in enumerate(torch.cuda.get_rng_state_all()):
            tensors[f"_rng/cuda_{i}"] = state
    np_state = np.random.get_state()
    tensors["_rng/numpy"] = torch.from_numpy(np_state[1].astype(np.int64))
    py_state = random.getstate()
    meta = {
        "numpy": [np_state[0], int(np_state[2]), int(np_state[3]), float(np_state[4])],
        "python": [py_state[0], list(py_state[1]), py_state[2]],
    }
    return tensors, meta


def set_rng_state(tensors: dict[str, torch.Tensor], meta: dict) -> None:
    """Restores the random states saved by `rng_state`."""
    if "_rng/torch" in tensors:
        torch.set_rng_state(tensors["_rng/torch"].to(torch.uint8))
    if torch.cuda.is_available():
        states = [tensors[k] for k in sorted(tensors) if k.startswith("_rng/cuda_")]
        if states:
            torch.cuda.set_rng_state_all([s.to(torch.uint8) for s in states])
    if "_rng/numpy" in tensors and meta.get("numpy"):
        kind, pos, has_gauss, cached = meta["numpy"]
        np.random.set_state((kind, tensors["_rng/numpy"].numpy().astype(np.uint32), pos, has_gauss, cached))
    if meta.get("python"):
        version, state, gauss = meta["python"]
        random.setstate((version, tuple(state), gauss))

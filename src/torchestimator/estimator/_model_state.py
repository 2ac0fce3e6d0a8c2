"""The state of an Estimator's model: the objects its `model_fn` created or used, the global
step, and their checkpoints (through the one checkpoint format in `_engine`).

Variables are named `<layer name>/<path inside the layer>` (`dense/kernel`,
`sequential/dense_1/bias`); optimizer state is named as TF 2.15's Estimator
names it: `training/<optimizer name>/<variable>/<slot>` (`training/Adagrad/
dnn/logits/kernel/accumulator`), `training/<optimizer name>/iter` and
`.../learning_rate`; TF1's optimizers (`tf.compat.v1.train`) name slots
`<variable>/<optimizer name>` (`.../kernel/Adagrad`, Ftrl's `Ftrl` and `Ftrl_1`).
When model_fn returns `Scaffold(saver=tf.train.Checkpoint(...))`, what that Checkpoint
tracks is named by its object paths instead (`net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE`,
as TF's Estimator writes it), so `tf.train.Checkpoint(...).restore()` reads it; the rest
keeps the names above. Both are read back on resume.
"""

from __future__ import annotations

import logging
import random
import re
import sys
from typing import Any

import numpy as np
import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import state_io
from torchestimator._engine.object_scope import ObjectScope
from torchestimator._tf_formats.estimator_names import adapt_tf_checkpoint
from torchestimator._variable import Variable
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.layer_utils import keras_state_dict
from torchestimator.keras.optimizers import Optimizer
from torchestimator.train import _global_step, _object_graph
from torchestimator.train._object_graph import _classes, _optimizer_style

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
        # The `tf.train.Checkpoint` of the spec's `Scaffold(saver=...)`: it names what it tracks.
        self.object_checkpoint: Any = None
        self.scaffold_initialized = False

    def use_scaffold(self, scaffold: Any) -> None:
        """Takes the `saver` of the `Scaffold` model_fn returned: a `tf.train.Checkpoint` makes
        the Estimator's checkpoints object-based for the values it tracks."""
        saver = getattr(scaffold, "saver", None)
        if saver is None:
            return
        if not getattr(saver, "_is_object_checkpoint", False):
            raise TypeError(
                "EstimatorSpec.scaffold.saver must be a tf.train.Checkpoint (or None); received "
                f"{type(saver).__name__}: {saver!r:.100}."
            )
        self.object_checkpoint = saver

    def _object_graph(self) -> Any:
        """The object graph of the scaffold's Checkpoint (the global step variable holding the
        current step), or None without one."""
        if self.object_checkpoint is None:
            return None

        context = self.scope.context
        if context.global_step_variable is not None:
            _global_step.global_step_variable(context, self.global_step)
        return _object_graph.walk(self.object_checkpoint)

    @staticmethod
    def _covered_optimizers(graph: Any) -> set[int]:
        """ids of the optimizers whose whole state the object graph holds (a legacy or TF1
        optimizer's slots are keyed under their variables: all of those must be in it)."""

        covered = set()
        for optimizer in graph.objects(_classes()[2]):
            if _optimizer_style(optimizer) == "keras" or all(
                id(v) in graph.tensor_keys for v in optimizer._vars
            ):
                covered.add(id(optimizer))
        return covered

    # ------------------------------------------------------------------ objects
    def layers(self) -> list:
        """The layers model_fn created or called at its top level (each once)."""

        found: dict[int, Any] = {}
        for obj in self.scope.objects.values():
            if isinstance(obj, Layer):
                found.setdefault(id(obj), obj)
        for layer in self.scope.used_layers.values():
            found.setdefault(id(layer), layer)
        return list(found.values())

    def optimizers(self) -> list:
        """The optimizers model_fn created, in creation order."""

        return self.scope.created(Optimizer)

    def metrics(self) -> list:
        """The metric objects model_fn created."""
        metric_module = sys.modules.get("torchestimator.keras.metrics._metric")
        if metric_module is None:  # no metric class was ever loaded: model_fn created none
            return []
        return self.scope.created(metric_module.Metric)

    def is_built(self) -> bool:
        """True once model_fn ran at least once."""
        return self.scope.call_index > 0

    def named_variables(self) -> dict[str, torch.Tensor]:
        """Every weight and buffer of the model's layers, keyed by checkpoint name."""

        out: dict[str, torch.Tensor] = {}
        seen: set[int] = set()
        for layer in self.layers():
            for key, tensor in keras_state_dict(layer, keep_vars=True).items():
                if id(tensor) in seen:
                    continue
                seen.add(id(tensor))
                keras_name = getattr(tensor, "_keras_name", None)
                if keras_name and keras_name.startswith(layer.name + "/"):
                    # a weight of the layer itself, or of an inner layer named under it (an RNN's
                    # cell 'rnn_model/rnn/lstm_cell'): its TF-style name
                    name = keras_name
                else:
                    name = f"{layer.name}/{key.replace('.', '/')}"
                if name in out:
                    raise ValueError(
                        f"Two different layers used by model_fn are both named {layer.name!r}; give "
                        "them distinct names so their checkpoint variables do not collide."
                    )
                out[name] = tensor
        for name, variable in self.free_variables():
            if id(variable) in seen:
                continue
            seen.add(id(variable))
            if name in out:
                raise ValueError(
                    f"model_fn created two different variables named {name!r}; give them distinct "
                    "names so their checkpoint variables do not collide."
                )
            out[name] = variable
        return out

    def free_variables(self) -> list[tuple[str, torch.Tensor]]:
        """`(checkpoint name, variable)` of the variables model_fn created outside any layer:
        `tf.compat.v1.get_variable` (its scoped name, 'outer/inner/w') and `tf.Variable` (its
        `name=`; unnamed ones `Variable`, `Variable_1`, ... (`outer/Variable` in a name scope)
        numbered in creation order per model_fn, as in TF's graph, not per process)."""

        out: list[tuple[str, torch.Tensor]] = []
        unnamed: dict[str, int] = {}
        for key, obj in self.scope.objects.items():
            if not isinstance(obj, Variable):
                continue
            name = obj._tf_name
            if key[0] == "order":  # unnamed: its default name carries a process-wide number
                base = re.sub(r"_\d+$", "", name)
                n = unnamed.get(base, 0)
                unnamed[base] = n + 1
                name = base if n == 0 else f"{base}_{n}"
            out.append((name, obj))
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

    def _gather(self, extra: dict | None, graph: Any) -> tuple[dict, dict]:
        variables = self.named_variables()
        tensors: dict[str, torch.Tensor] = {}
        covered_tensors: dict[int, str] = {}
        covered_optimizers: set[int] = set()
        if graph is not None:
            tensors.update((key, leaf.value()) for key, leaf in graph.leaves.items())
            covered_tensors = graph.tensor_keys
            covered_optimizers = self._covered_optimizers(graph)
        tensors.update((name, t.detach()) for name, t in variables.items() if id(t) not in covered_tensors)
        name_of = {id(t): name for name, t in variables.items()}
        meta: dict[str, Any] = {"optimizers": {}, "optimizer_names": "tf"}
        if graph is not None:
            meta["object_checkpoint"] = True
        for prefix, opt in self._optimizer_prefixes():
            if not getattr(opt, "_built", False) or id(opt) in covered_optimizers:
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
        graph = self._object_graph()
        tensors, meta = self._gather(extra, graph)
        # The global step is a tensor of the checkpoint unless the object graph holds it.
        step_variable = self.scope.context.global_step_variable
        step_tensor = graph is None or id(step_variable) not in graph.tensor_keys
        return manager.save(self.global_step, tensors, meta, step_tensor=step_tensor)

    # ------------------------------------------------------------------ loading
    def restore(self, path: str, restore_rng: bool = False) -> dict:
        """Loads weights, optimizer state and the global step from checkpoint `path`;
        returns its metadata. Raises ValueError naming a missing or mis-shaped variable."""
        tensors, meta = ckpt.load_checkpoint(path)
        if "tensorflow" in (meta.get("format"), meta.get("extra", {}).get("source_format")):
            # written by TensorFlow (or converted from its files): see `_tf_formats`

            tensors, meta = adapt_tf_checkpoint(self, path, tensors, meta)
        restored, restored_optimizers = self._restore_objects(path, tensors)
        variables = {n: t for n, t in self.named_variables().items() if id(t) not in restored}
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
            if not getattr(opt, "_built", False) or id(opt) in restored_optimizers:
                continue
            opt.load_state_dict(state_io.unflatten_state(sub, skeleton))
        self.global_step = int(meta.get("global_step", extra.get("global_step", 0)))
        if restore_rng and extra.get("rng") is not None:
            set_rng_state(tensors, extra["rng"])
        logger.info("Restoring parameters from %s", path)
        return extra

    def _restore_objects(self, path: str, tensors: dict) -> tuple[set[int], set[int]]:
        """Restores the values of the scaffold's Checkpoint found under their object paths;
        returns the ids of the tensors and optimizers restored (the rest is restored by name)."""
        graph = self._object_graph()
        if graph is None:
            return set(), set()
        ready = [(leaf, tensors[key]) for key, leaf in graph.leaves.items() if key in tensors]
        for leaf, value in ready:
            leaf.check(value, path)
        for leaf, value in ready:
            leaf.restore(value)
        restored = {id(leaf.target) for leaf, _ in ready if isinstance(leaf.target, torch.Tensor)}
        restored_paths = {leaf.path[:-1] for leaf, _ in ready}
        optimizers = set()
        for optimizer_id in self._covered_optimizers(graph):  # its step count was in the file
            if graph.optimizer_paths[optimizer_id] in restored_paths:
                optimizers.add(optimizer_id)
        for optimizer in graph.objects(_optimizer_class()):
            if optimizer._kernel is not None:
                optimizer._kernel.invalidate_cache()
        return restored, optimizers

    def initialize_step(self) -> None:
        """Starts from freshly initialized weights at global step 0."""
        self.global_step = 0


def _optimizer_class() -> type:
    return Optimizer


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

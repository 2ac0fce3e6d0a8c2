"""The object graph of a `tf.train.Checkpoint`: which value each checkpoint key names.

As TensorFlow's object-based checkpoints, a value is keyed by the path of attribute
names from the checkpoint to it, found breadth first (the first path to an object
wins when it is reachable twice), with TF's suffix:

    net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE           # a layer attribute
    seq/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE   # Sequential / functional
    optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE   # a Keras optimizer's step count
    optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE  # its slots, in Keras' order
    net/l1/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE  # legacy/TF1 slots

The children of an object are, in order:
  * a `tf.train.Checkpoint`: its keyword arguments and tracked attributes, then
    `save_counter` once it exists;
  * a Keras functional or Sequential model: `layer_with_weights-<k>` (the k-th layer
    that has weights) and `layer-<i>` for each of its `layers`;
  * a Keras layer, `tf.Module` or any `torch.nn.Module`: its weights by name
    (`add_weight`'s name), persistent buffers, sublayers by attribute (lists as `name/0`,
    dicts as `name/key`), lists or dicts of variables, and an `optimizer` attribute (a
    compiled model's);
  * a Keras optimizer (2.11+): `_iterations`, `_learning_rate` (a float rate) and
    `_variables/<n>` (n >= 1, the order of `optimizer.variables`); a legacy Keras
    optimizer: `iter`, `learning_rate` and its hyperparameters (`beta_1`, `decay`, ...);
    a `tf.compat.v1.train` one: `beta1_power` and `beta2_power` (Adam); both: slots
    keyed under their variable;
  * a list, tuple or dict: its items; any other object: its attributes holding
    tensors, modules, optimizers, checkpoints, or lists/dicts of them.
A tensor (`tf.Variable`, `nn.Parameter`, buffer or plain tensor) is a value.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchestimator._dtypes import dtype_name
from torchestimator.errors import InvalidArgumentError

ATTRIBUTE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
SLOT_MARKER = "/.OPTIMIZER_SLOT/"

# Internal slot name -> TF's slot name for legacy (OptimizerV2) and TF1 optimizers.
_SLOT_NAMES = {
    "m": "m", "v": "v", "vhat": "vhat", "u": "v", "accumulator": "accumulator", "linear": "linear",
    "velocity": "rms", "momentum": "momentum", "average_gradient": "mg",
    "accumulated_grad": "accum_grad", "accumulated_delta_var": "accum_var",
}
_SGD_SLOT_NAMES = {"m": "momentum"}
# The hyperparameters legacy (OptimizerV2) optimizers saved, where the optimizer has them.
_LEGACY_HYPERS = ("decay", "beta_1", "beta_2", "momentum", "rho", "learning_rate_power",
                  "l1_regularization_strength", "l2_regularization_strength",
                  "l2_shrinkage_regularization_strength", "beta")


def escape(name: str) -> str:
    """TF's escaping of one path element ('.' -> '..', '/' -> '.S')."""
    return name.replace(".", "..").replace("/", ".S")


class _NoKerasClass:
    """Stands for a Keras class while Keras is not imported (no object can be an instance)."""


#: Keras' `Layer`, `Functional` and `Optimizer`, registered by those modules when they load
#: (Keras sits above `train`: the object graph names their slots without importing Keras).
KERAS_CLASSES: dict[str, type] = {}


def register_keras_class(role: str, cls: type) -> None:
    """Called by Keras when `cls` loads: the class of `role` ('layer', 'functional' or
    'optimizer') whose objects the object graph walks as Keras does."""
    KERAS_CLASSES[role] = cls


def _classes() -> tuple[type, type, type]:
    return (KERAS_CLASSES.get("layer", _NoKerasClass), KERAS_CLASSES.get("functional", _NoKerasClass),
            KERAS_CLASSES.get("optimizer", _NoKerasClass))


class Value:
    """An optimizer scalar stored as a checkpoint value (its step count, learning rate, ...)."""

    __slots__ = ("read", "write", "dtype", "kind")

    def __init__(self, read: Callable[[], torch.Tensor], write: Callable[[torch.Tensor], None],
                 dtype: torch.dtype, kind: str):
        self.read = read
        self.write = write
        self.dtype = dtype
        self.kind = kind  # "int" or "float": the dtypes a checkpoint may hold for it


class Leaf:
    """One checkpoint value: a tensor restored in place, or an optimizer `Value`."""

    __slots__ = ("key", "path", "target")

    def __init__(self, key: str, path: tuple[str, ...], target: torch.Tensor | Value):
        self.key = key
        self.path = path
        self.target = target

    @property
    def display(self) -> str:
        """TF's name of the object: `(root).net.l1.kernel`."""
        return ".".join(("(root)",) + self.path)

    def value(self) -> torch.Tensor:
        """The value to write (detached)."""
        target = self.target
        if isinstance(target, Value):
            return target.read()
        return target.detach()

    def check(self, value: torch.Tensor, source: str) -> None:
        """Raises ValueError (shapes) or InvalidArgumentError (dtypes) unless `value` fits."""

        target = self.target
        if isinstance(target, Value):
            ok = value.is_floating_point() if target.kind == "float" else not (
                value.is_floating_point() or value.is_complex())
            if value.numel() != 1 or not ok:
                raise InvalidArgumentError(
                    None, None,
                    f"Cannot restore {self.display} from checkpoint {source}: {self.key!r} holds a "
                    f"{value.dtype} tensor of shape {list(value.shape)}, expected a scalar "
                    f"{'float' if target.kind == 'float' else 'integer'}."
                )
            return
        if tuple(value.shape) != tuple(target.shape):
            raise ValueError(
                f"Cannot restore {self.display} from checkpoint {source}: the checkpoint value "
                f"{self.key!r} has shape {list(value.shape)}, but the object has shape "
                f"{list(target.shape)}."
            )
        if value.dtype != target.dtype:
            raise InvalidArgumentError(
                None, None,
                f"Cannot restore {self.display} from checkpoint {source}: the checkpoint value "
                f"{self.key!r} has dtype {dtype_name(value.dtype)}, but the object has dtype "
                f"{dtype_name(target.dtype)}."
            )

    def restore(self, value: torch.Tensor) -> None:
        """Writes `value` into the object (checked first with `check`)."""
        target = self.target
        if isinstance(target, Value):
            target.write(value)
            return
        with torch.no_grad():
            target.copy_(value.to(device=target.device))


class Graph:
    """The values reachable from a root, keyed by checkpoint key (breadth-first order)."""

    def __init__(self) -> None:
        self.leaves: dict[str, Leaf] = {}
        self.tensor_keys: dict[int, str] = {}  # id(tensor) -> key
        self.nodes: list[tuple[tuple[str, ...], Any]] = []  # (path, object), root first
        self.optimizer_paths: dict[int, tuple[str, ...]] = {}

    def add(self, path: tuple[str, ...], target: torch.Tensor | Value) -> None:
        key = "/".join(escape(p) for p in path) + ATTRIBUTE_SUFFIX
        self.leaves[key] = Leaf(key, path, target)
        if isinstance(target, torch.Tensor):
            self.tensor_keys[id(target)] = key

    def objects(self, kind: type | tuple) -> list:
        """The objects of type `kind` in the graph."""
        return [obj for _, obj in self.nodes if isinstance(obj, kind)]


class _SlotList:
    """The `_variables` list of a Keras optimizer (its slots; item 0 is `_iterations`)."""

    __slots__ = ("optimizer",)

    def __init__(self, optimizer: Any):
        self.optimizer = optimizer


def is_trackable(value: Any) -> bool:
    """True for what a checkpoint can track: tensors, modules, optimizers, checkpoints, and
    lists/tuples/dicts of them."""
    if isinstance(value, (torch.Tensor, torch.nn.Module)):
        return True
    if getattr(value, "_is_object_checkpoint", False):
        return True
    if isinstance(value, (list, tuple)):
        return bool(value) and all(is_trackable(v) for v in value)
    if isinstance(value, dict):
        return bool(value) and all(isinstance(k, str) and is_trackable(v) for k, v in value.items())
    _, _, optimizer = _classes()
    return isinstance(value, optimizer)


def is_trackable_object(value: Any) -> bool:
    """What `tf.train.Checkpoint(name=value)` accepts: a trackable, or an object (not a number,
    string, array or function) holding trackable attributes."""
    if is_trackable(value):
        return True
    if value is None or isinstance(value, (int, float, complex, str, bytes, type)) or callable(value):
        return False
    try:
        attributes = vars(value)
    except TypeError:
        return False
    return any(is_trackable(v) for v in attributes.values())


def _attribute_children(obj: Any) -> Iterator[tuple[str, Any]]:
    for name, value in vars(obj).items():
        if not name.startswith("__") and is_trackable(value):
            yield name, value


def _module_children(module: torch.nn.Module) -> Iterator[tuple[str, Any]]:
    layer_cls, functional_cls, optimizer_cls = _classes()
    listed: set[int] = set()
    if isinstance(module, functional_cls):
        with_weights = 0
        for index, layer in enumerate(module.layers):
            listed.add(id(layer))
            if any(True for _ in layer.parameters()):
                yield f"layer_with_weights-{with_weights}", layer
                with_weights += 1
            yield f"layer-{index}", layer
    for name, parameter in module._parameters.items():
        if parameter is not None:
            yield name, parameter
    skip = module._non_persistent_buffers_set
    for name, buffer in module._buffers.items():
        if buffer is not None and name not in skip:
            yield name, buffer
    for name, child in module._modules.items():
        if child is not None and id(child) not in listed:
            yield name, child
    for name, value in vars(module).items():  # a compiled model's optimizer, lists of variables
        if isinstance(value, optimizer_cls) or getattr(value, "_is_object_checkpoint", False) or (
            not name.startswith("_") and isinstance(value, (list, tuple, dict)) and is_trackable(value)
        ):
            yield name, value


def _optimizer_style(optimizer: Any) -> str:
    if hasattr(optimizer, "_v1_slot_names"):
        return "v1"
    if getattr(optimizer, "_keras_module", "") == "keras.optimizers.legacy":
        return "legacy"
    return "keras"


def _iterations_value(optimizer: Any) -> Value:
    def write(value: torch.Tensor) -> None:
        optimizer.iterations = int(value.reshape(()).item())

    return Value(lambda: torch.tensor(optimizer._iterations, dtype=torch.int64), write, torch.int64, "int")


def _learning_rate_value(optimizer: Any) -> Value:
    def write(value: torch.Tensor) -> None:
        optimizer._set_learning_rate(float(value.reshape(()).item()))

    return Value(lambda: torch.tensor(optimizer._learning_rate, dtype=torch.float32), write,
                 torch.float32, "float")


def _hyper_value(optimizer: Any, name: str) -> Value:
    """A legacy optimizer's hyperparameter (TF kept them as float32 variables). Restoring
    changes it only when it differs beyond float32 rounding."""
    def write(value: torch.Tensor) -> None:
        new = float(value.reshape(()).item())
        if float(torch.tensor(getattr(optimizer, name), dtype=torch.float32)) == new:
            return
        if name == "decay":
            optimizer._legacy_decay = new
            optimizer._refresh_learning_rate()
        else:
            setattr(optimizer, name, new)
        if optimizer._group is not None and name in optimizer._group:
            optimizer._group[name] = new

    return Value(lambda: torch.tensor(float(getattr(optimizer, name)), dtype=torch.float32), write,
                 torch.float32, "float")


def _beta_power_value(optimizer: Any, beta: float) -> Value:
    """TF1 Adam's `beta<k>_power` = beta ** (iterations + 1), read back into `iterations`."""
    def write(value: torch.Tensor) -> None:
        power = float(value.reshape(()).item())
        if 0.0 < power < 1.0:
            optimizer.iterations = max(round(math.log(power) / math.log(beta)) - 1, 0)

    return Value(lambda: torch.tensor(beta ** (optimizer._iterations + 1), dtype=torch.float32), write,
                 torch.float32, "float")


def _optimizer_children(optimizer: Any) -> Iterator[tuple[str, Any]]:
    style = _optimizer_style(optimizer)
    float_rate = isinstance(optimizer._learning_rate, float)
    if style == "keras":
        yield "_iterations", _iterations_value(optimizer)
        if float_rate:
            yield "_learning_rate", _learning_rate_value(optimizer)
        yield "_variables", _SlotList(optimizer)
        return
    if style == "legacy":  # TF1's optimizers kept their learning rate out of checkpoints
        yield "iter", _iterations_value(optimizer)
        if float_rate:
            yield "learning_rate", _learning_rate_value(optimizer)
        for name in _LEGACY_HYPERS:
            value = getattr(optimizer, name, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                yield name, _hyper_value(optimizer, name)
        return
    for index in (1, 2):
        beta = getattr(optimizer, f"beta{index}", None)
        if isinstance(beta, float) and 0.0 < beta < 1.0:
            yield f"beta{index}_power", _beta_power_value(optimizer, beta)


def children(obj: Any) -> Iterator[tuple[str, Any]]:
    """The named children of `obj`, in TF's order (see the module docstring)."""
    tracked = getattr(obj, "_tracked_children", None)
    if tracked is not None and getattr(obj, "_is_object_checkpoint", False):
        yield from tracked()
        return
    if isinstance(obj, torch.nn.Module):
        yield from _module_children(obj)
        return
    if isinstance(obj, _SlotList):
        for index, tensor in enumerate(obj.optimizer.variables):
            if index:
                yield str(index), tensor
        return
    if isinstance(obj, (list, tuple)):
        for index, item in enumerate(obj):
            yield str(index), item
        return
    if isinstance(obj, dict):
        for key, item in obj.items():
            yield str(key), item
        return
    _, _, optimizer_cls = _classes()
    if isinstance(obj, optimizer_cls):
        yield from _optimizer_children(obj)
        return
    yield from _attribute_children(obj)


def walk(root: Any) -> Graph:
    """The object graph of `root`: every value by key, breadth first, each object once."""
    _, _, optimizer_cls = _classes()
    graph = Graph()
    seen: set[int] = {id(root)}
    queue: deque[tuple[tuple[str, ...], Any]] = deque([((), root)])
    while queue:
        path, obj = queue.popleft()
        graph.nodes.append((path, obj))
        if isinstance(obj, optimizer_cls):
            graph.optimizer_paths[id(obj)] = path
        for name, child in children(obj):
            if id(child) in seen:
                continue
            seen.add(id(child))
            if isinstance(child, (torch.Tensor, Value)):
                graph.add(path + (name,), child)
            else:  # `children` yields only what a checkpoint tracks
                queue.append((path + (name,), child))
    for optimizer in graph.objects(optimizer_cls):
        if _optimizer_style(optimizer) != "keras":
            _add_slots(graph, optimizer)
    return graph


def _add_slots(graph: Graph, optimizer: Any) -> None:
    """Legacy and TF1 slots: `<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>`."""
    kernel = optimizer._kernel
    if kernel is None:
        return
    tf1_slots = getattr(optimizer, "_tf1_slots", None)
    if tf1_slots:  # TF1 optimizers name their slots themselves (TF1 name -> own name)
        names = {own: tf1 for tf1, own in tf1_slots.items()}
    else:
        names = dict(_SLOT_NAMES)
        if "SGD" in [c.__name__ for c in type(optimizer).__mro__]:
            names.update(_SGD_SLOT_NAMES)
    opt_path = "/".join(escape(p) for p in graph.optimizer_paths[id(optimizer)])
    for variable in optimizer._vars:
        variable_key = graph.tensor_keys.get(id(variable))
        if variable_key is None:
            continue  # TF saves slots only for variables the checkpoint holds
        variable_path = variable_key[: -len(ATTRIBUTE_SUFFIX)]
        owner = graph.leaves[variable_key]
        for slot, tensor in kernel.state[variable].items():
            if slot not in names or not isinstance(tensor, torch.Tensor):
                continue
            key = f"{variable_path}{SLOT_MARKER}{opt_path}/{names[slot]}{ATTRIBUTE_SUFFIX}"
            path = owner.path + (".OPTIMIZER_SLOT", *graph.optimizer_paths[id(optimizer)], names[slot])
            graph.leaves[key] = Leaf(key, path, tensor)


def is_object_key(key: str) -> bool:
    """True for the keys of an object-based checkpoint (not the Estimator's variable names)."""
    return key.endswith(ATTRIBUTE_SUFFIX)

"""A torch optimizer (and its learning-rate scheduler) in a `.keras` archive, as data.

`model.save()` of a model compiled with a `torch.optim` optimizer stores what rebuilds it:
the optimizer's class name, which of the model's parameters each parameter group holds (by
their `state_dict` key, which depends only on the architecture), and the optimizer's and the
scheduler's `state_dict()`. `load_model` makes the same classes over the loaded model's
parameters and loads both states, so `fit` resumes where it stopped.

Loading never runs code from the file: a class is looked up by name among PyTorch's own
optimizers (`torch.optim.__all__`) and schedulers (`torch.optim.lr_scheduler.__all__`); a
name outside them is refused. Optimizers of other classes, and schedulers holding functions
(`LambdaLR`, `MultiplicativeLR`) or other schedulers (`SequentialLR`, `ChainedScheduler`), are
not stored: `describe` says why, and the model is saved with a warning (the old behaviour).
"""

from __future__ import annotations

import collections
import inspect
from typing import Any

import torch

from torchestimator.keras.optimizers._torch import TorchOptimizer

#: Schedulers whose state is not plain data (functions, nested schedulers).
_UNSTORED_SCHEDULERS = frozenset({"LambdaLR", "MultiplicativeLR", "SequentialLR", "ChainedScheduler",
                                  "LRScheduler"})


def _optimizer_classes() -> dict[str, type]:
    return {name: getattr(torch.optim, name) for name in torch.optim.__all__
            if isinstance(getattr(torch.optim, name, None), type)
            and issubclass(getattr(torch.optim, name), torch.optim.Optimizer)
            and getattr(torch.optim, name) is not torch.optim.Optimizer}


def _scheduler_classes() -> dict[str, type]:
    module = torch.optim.lr_scheduler
    return {name: getattr(module, name) for name in module.__all__
            if name not in _UNSTORED_SCHEDULERS and isinstance(getattr(module, name, None), type)}


def describe(torch_optimizer: Any, model: torch.nn.Module) -> tuple[dict | None, str | None]:
    """Returns `(description, None)`, the JSON-able record `rebuild` takes (besides the states,
    which the caller stores), or `(None, reason)` when the optimizer cannot be stored."""
    optimizer = torch_optimizer.optimizer
    name = type(optimizer).__name__
    if _optimizer_classes().get(name) is not type(optimizer):
        return None, (f"{name} is not one of torch.optim's optimizers, which are the only ones "
                      "rebuilt from a file")
    scheduler = torch_optimizer.lr_scheduler
    scheduler_name = None if scheduler is None else type(scheduler).__name__
    if scheduler is not None and _scheduler_classes().get(scheduler_name) is not type(scheduler):
        return None, (f"its learning-rate scheduler {scheduler_name} holds functions or other "
                      "schedulers, which a file does not store")
    names = {id(p): key for key, p in model.named_parameters()}
    groups = []
    for index, group in enumerate(optimizer.param_groups):
        missing = [p for p in group["params"] if id(p) not in names]
        if missing:
            return None, (f"parameter group {index} holds {len(missing)} tensor(s) that are not "
                          "parameters of the model")
        groups.append([names[id(p)] for p in group["params"]])
    return {
        "class_name": name,
        "param_groups": groups,
        "lr_scheduler": scheduler_name,
        "interval": torch_optimizer.interval,
        "monitor": torch_optimizer.monitor,
        "iterations": torch_optimizer.iterations,
    }, None


def rebuild(description: dict, state: Any, model: torch.nn.Module, source: str) -> Any:
    """Returns the `TorchOptimizer` that `describe` described, over `model`'s parameters, with
    the optimizer's (and scheduler's) `state` loaded; raises ValueError naming `source` and
    what does not fit (an unknown class, a parameter the model lacks, a state that does not
    load)."""

    name = description.get("class_name")
    cls = _optimizer_classes().get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(
            f"{source}: the optimizer class {name!r} is not one of torch.optim's optimizers "
            f"({', '.join(sorted(_optimizer_classes()))}); the file may be corrupt or crafted. "
            "Load it with compile=False."
        )
    params = dict(model.named_parameters())
    groups = []
    for index, keys in enumerate(description.get("param_groups") or []):
        unknown = [k for k in keys if k not in params]
        if unknown or not isinstance(keys, list):
            raise ValueError(
                f"{source}: parameter group {index} of the {name} optimizer names parameters "
                f"the model does not have: {unknown[:5]}; the model's are "
                f"{list(params)[:5]}... Load it with compile=False."
            )
        groups.append({"params": [params[k] for k in keys]})
    if not groups:
        raise ValueError(f"{source}: the {name} optimizer has no parameter groups.")
    has_scheduler = description.get("lr_scheduler") is not None
    optimizer_state = state["optimizer"] if has_scheduler else state
    try:
        optimizer = cls(groups)
        scheduler = None
        if has_scheduler:
            scheduler = _make_scheduler(description["lr_scheduler"], optimizer,
                                        optimizer_state, state["lr_scheduler"], source)
        optimizer.load_state_dict(optimizer_state)  # after the scheduler: its first step moved lr
        if scheduler is not None:
            scheduler.load_state_dict(state["lr_scheduler"])
            if isinstance(getattr(scheduler, "milestones", None), dict):  # a Counter, saved as a dict
                scheduler.milestones = collections.Counter(scheduler.milestones)
    except (TypeError, KeyError, IndexError, ValueError, RuntimeError) as error:
        raise ValueError(
            f"{source}: the {name} optimizer's state does not load ({type(error).__name__}: "
            f"{error}); the file may be corrupt. Load it with compile=False."
        ) from error
    result = TorchOptimizer(optimizer, scheduler, interval=description.get("interval", "epoch"),
                            monitor=description.get("monitor"))
    result.iterations = int(description.get("iterations") or 0)
    return result


def _make_scheduler(name: str, optimizer: torch.optim.Optimizer, optimizer_state: dict,
                    scheduler_state: dict, source: str) -> Any:
    """Makes scheduler `name` over `optimizer` with the constructor arguments its state holds."""
    cls = _scheduler_classes().get(name)
    if cls is None:
        raise ValueError(
            f"{source}: the learning-rate scheduler {name!r} is not one of "
            f"torch.optim.lr_scheduler's ({', '.join(sorted(_scheduler_classes()))})."
        )
    saved_groups = optimizer_state.get("param_groups", [])
    group_max_lr = [g.get("max_lr") for g in saved_groups]
    derived = {
        "max_lr": group_max_lr if None not in group_max_lr else scheduler_state.get("max_lrs"),
        "base_lr": scheduler_state.get("base_lrs"),
        "milestones": list(scheduler_state.get("milestones", {})),
    }
    kwargs = {}
    for parameter in list(inspect.signature(cls.__init__).parameters.values())[2:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in ("last_epoch", "verbose"):
            continue
        value = scheduler_state.get(parameter.name)
        if isinstance(value, (bool, int, float, str)) or parameter.name in ("milestones",):
            kwargs[parameter.name] = value if parameter.name != "milestones" else derived["milestones"]
        elif parameter.default is inspect.Parameter.empty:
            value = derived.get(parameter.name)
            if value is None or (isinstance(value, list) and None in value):
                raise ValueError(f"the {name} scheduler's state lacks {parameter.name!r}")
            kwargs[parameter.name] = value
    return cls(optimizer, **kwargs)

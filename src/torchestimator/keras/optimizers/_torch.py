"""A `torch.optim.Optimizer` (and a learning-rate scheduler) as the optimizer of `compile`/`fit`.

`compile(optimizer=...)` accepts, besides Keras optimizers:

* `torch.optim.Adam(model.parameters(), lr=1e-3)`: a torch optimizer;
* `(optimizer, scheduler)`: the scheduler (`torch.optim.lr_scheduler.*`) steps once at the end
  of every epoch (after validation), `ReduceLROnPlateau` with `val_loss` (`loss` without
  validation data);
* Lightning's form, `{"optimizer": optimizer, "lr_scheduler": scheduler}` or
  `{"optimizer": ..., "lr_scheduler": {"scheduler": ..., "interval": "step", "monitor": ...}}`:
  `interval="step"` steps the scheduler after every optimizer step (`OneCycleLR`);
* `from_torch(optimizer, lr_scheduler=None, interval="epoch", monitor=None)`, the same.

`model.optimizer` is then a `TorchOptimizer`: `model.optimizer.optimizer` is the torch
optimizer, `model.optimizer.lr_scheduler` the scheduler; `learning_rate` reads and sets the
first parameter group's `lr` (every group's, when set), so Keras' `LearningRateScheduler` and
`ReduceLROnPlateau` callbacks work. `state_dict()` is the torch optimizer's own (with a
scheduler: `{"optimizer": ..., "lr_scheduler": ...}`), which `BackupAndRestore` writes and
restores. `model.save()` stores it when the optimizer is one of `torch.optim`'s own classes
and the scheduler one of `torch.optim.lr_scheduler`'s that hold no functions (see
`_torch_archive`); `load_model` rebuilds both over the loaded model's parameters. Other ones are
named in a warning and the model loads uncompiled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

_INTERVALS = ("epoch", "step")


class TorchOptimizer:
    """A `torch.optim.Optimizer`, with an optional learning-rate scheduler, as a Keras
    model's optimizer (see the module's docstring for the forms `compile` accepts).

    Args:
      optimizer: the `torch.optim.Optimizer`, made over the model's parameters.
      lr_scheduler: a `torch.optim.lr_scheduler` scheduler of `optimizer`, or None.
      interval: when the scheduler steps: 'epoch' (at the end of every epoch) or 'step'
        (after every optimizer step).
      monitor: the log `ReduceLROnPlateau` steps with (default 'val_loss' when the epoch
        has it, else 'loss').
    """

    #: Not a Keras optimizer: `model.save()` stores it through `_torch_archive` (module docstring).
    _built = False

    def __init__(self, optimizer: torch.optim.Optimizer, lr_scheduler: Any = None,
                 interval: str = "epoch", monitor: str | None = None):
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(
                f"optimizer must be a torch.optim.Optimizer; received {optimizer!r}."
            )
        if lr_scheduler is not None:
            _check_scheduler(lr_scheduler, optimizer)
        if interval not in _INTERVALS:
            raise ValueError(
                f"interval must be 'epoch' or 'step' (when the learning-rate scheduler steps); "
                f"received interval={interval!r}."
            )
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.interval = interval
        self.monitor = monitor
        self.iterations = 0  # optimizer steps made through this object
        self._step_scheduler = lr_scheduler is not None and interval == "step"
        self._plateau = isinstance(lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)
        if self._step_scheduler and self._plateau:
            raise ValueError(
                "ReduceLROnPlateau needs a metric and steps once an epoch: use interval='epoch'."
            )

    # -- what the training loop calls ---------------------------------------------------
    def build(self, var_list: Any) -> None:
        """Checks that the torch optimizer updates the model's weights `var_list`; raises
        ValueError when it updates none of them (it was made for other parameters)."""
        weights = list(var_list)
        if not weights:
            return
        mine = {id(p) for group in self.optimizer.param_groups for p in group["params"]}
        if not any(id(w) in mine for w in weights):
            raise ValueError(
                f"compile(optimizer=...): the torch optimizer {type(self.optimizer).__name__} "
                f"updates none of the model's {len(weights)} trainable weights; it was made for "
                "other parameters. Build the model first (call it on data, or give the input "
                "shape), then make the optimizer: torch.optim.Adam(model.parameters())."
            )

    def step(self) -> None:
        """One optimizer step (and one scheduler step with interval='step')."""
        self.optimizer.step()
        self.iterations += 1
        if self._step_scheduler:
            self.lr_scheduler.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of the optimizer's parameters."""
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def _end_epoch(self, logs: Mapping[str, Any]) -> None:
        """Steps an epoch scheduler at the end of an epoch (`fit` calls it, logs in hand)."""
        if self.lr_scheduler is None or self.interval != "epoch":
            return
        if not self._plateau:
            self.lr_scheduler.step()
            return
        monitor = self.monitor or ("val_loss" if "val_loss" in logs else "loss")
        if monitor not in logs:
            raise ValueError(
                f"ReduceLROnPlateau steps with {monitor!r}, which the epoch's logs do not have "
                f"(they have {sorted(logs)}); pass monitor= one of them."
            )
        self.lr_scheduler.step(float(logs[monitor]))

    # -- Keras' optimizer surface ---------------------------------------------------------
    @property
    def learning_rate(self) -> float:
        """The `lr` of the first parameter group."""
        return self.optimizer.param_groups[0]["lr"]

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = float(value)

    lr = learning_rate

    @property
    def param_groups(self) -> list[dict]:
        """The torch optimizer's parameter groups."""
        return self.optimizer.param_groups

    def state_dict(self) -> dict[str, Any]:
        """The torch optimizer's `state_dict()`; with a scheduler,
        `{"optimizer": ..., "lr_scheduler": ...}`."""
        if self.lr_scheduler is None:
            return self.optimizer.state_dict()
        return {"optimizer": self.optimizer.state_dict(),
                "lr_scheduler": self.lr_scheduler.state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restores what `state_dict()` returned (a scheduler's state only with a scheduler)."""
        if "lr_scheduler" in state and "optimizer" in state:
            self.optimizer.load_state_dict(state["optimizer"])
            if self.lr_scheduler is None:
                raise ValueError(
                    "The optimizer state holds a learning-rate scheduler's state, but this "
                    "model's optimizer has no scheduler: compile with (optimizer, scheduler)."
                )
            self.lr_scheduler.load_state_dict(state["lr_scheduler"])
            return
        if self.lr_scheduler is not None:
            raise ValueError(
                "The optimizer state has no learning-rate scheduler state, but this model's "
                "optimizer has a scheduler: it was saved without one."
            )
        self.optimizer.load_state_dict(state)

    def get_config(self) -> dict[str, Any]:
        """`{'name', 'learning_rate'}`, for display (a torch optimizer is not rebuilt from it)."""
        return {"name": type(self.optimizer).__name__, "learning_rate": self.learning_rate}

    def __repr__(self) -> str:
        scheduler = "" if self.lr_scheduler is None else (
            f", lr_scheduler={type(self.lr_scheduler).__name__}, interval={self.interval!r}")
        return f"TorchOptimizer({type(self.optimizer).__name__}{scheduler})"


def _check_scheduler(scheduler: Any, optimizer: torch.optim.Optimizer) -> None:
    """Raises when `scheduler` is not a torch scheduler of `optimizer`."""
    kinds = (torch.optim.lr_scheduler.LRScheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)
    if not isinstance(scheduler, kinds):
        raise TypeError(
            f"lr_scheduler must be a torch.optim.lr_scheduler scheduler; received {scheduler!r}."
        )
    if getattr(scheduler, "optimizer", optimizer) is not optimizer:
        raise ValueError(
            f"The learning-rate scheduler {type(scheduler).__name__} was made for another "
            "optimizer than the one given; make it with this optimizer."
        )


def from_torch(optimizer: torch.optim.Optimizer, lr_scheduler: Any = None,
               interval: str = "epoch", monitor: str | None = None) -> TorchOptimizer:
    """Makes a Keras model's optimizer of a `torch.optim.Optimizer` and an optional
    `torch.optim.lr_scheduler` scheduler stepped every epoch (or, with interval='step',
    every optimizer step); `ReduceLROnPlateau` steps with the epoch's `monitor` log.

        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model.compile(optimizer=tf.keras.optimizers.from_torch(
            opt, torch.optim.lr_scheduler.StepLR(opt, step_size=10)), loss="mse")

    Returns a `TorchOptimizer`.
    """
    return TorchOptimizer(optimizer, lr_scheduler, interval=interval, monitor=monitor)


def torch_optimizer_of(identifier: Any) -> TorchOptimizer | None:
    """The `TorchOptimizer` of what `compile(optimizer=...)` received when it holds a torch
    optimizer (the optimizer, `(optimizer, scheduler)`, or Lightning's dict); else None."""
    if isinstance(identifier, TorchOptimizer):
        return identifier
    if isinstance(identifier, torch.optim.Optimizer):
        return TorchOptimizer(identifier)
    if (isinstance(identifier, (tuple, list)) and len(identifier) == 2
            and isinstance(identifier[0], torch.optim.Optimizer)):
        return TorchOptimizer(identifier[0], identifier[1])
    if isinstance(identifier, Mapping) and isinstance(identifier.get("optimizer"),
                                                       torch.optim.Optimizer):
        unknown = sorted(set(identifier) - {"optimizer", "lr_scheduler"})
        if unknown:
            raise ValueError(
                f"compile(optimizer={{...}}): unknown key(s) {unknown}; the dict form takes "
                "'optimizer' and 'lr_scheduler' (as Lightning's configure_optimizers)."
            )
        scheduler = identifier.get("lr_scheduler")
        if isinstance(scheduler, Mapping):
            extra = sorted(set(scheduler) - {"scheduler", "interval", "monitor"})
            if extra or "scheduler" not in scheduler:
                raise ValueError(
                    f"compile(optimizer={{'lr_scheduler': {{...}}}}): it takes 'scheduler' "
                    f"(required), 'interval' and 'monitor'; received keys {sorted(scheduler)}."
                )
            return TorchOptimizer(identifier["optimizer"], scheduler["scheduler"],
                                  interval=scheduler.get("interval", "epoch"),
                                  monitor=scheduler.get("monitor"))
        return TorchOptimizer(identifier["optimizer"], scheduler)
    return None

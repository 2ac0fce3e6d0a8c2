"""An optimizer's config (`get_config` / `from_config`), its copy and pickle state, and its
repr (Keras 2.15's keys and legacy-config handling)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.optimizers.schedules import learning_rate_schedule as lrs


class ConfigMixin:
    """`get_config`, `from_config`, `__getstate__`/`__setstate__` and `__repr__` of
    `tf.keras.optimizers.Optimizer`."""

    def _serialize_hyperparameter(self, hyperparameter: Any) -> Any:
        """Returns a JSON-able form of a hyperparameter (a schedule's serialized dict)."""
        if isinstance(hyperparameter, lrs.LearningRateSchedule):
            return lrs.serialize(hyperparameter)
        if callable(hyperparameter):
            return hyperparameter()
        return hyperparameter

    def get_config(self) -> dict[str, Any]:
        """Returns the config of the optimizer: a JSON-able dict of its constructor arguments."""
        return {
            "name": self.name,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "jit_compile": self.jit_compile,
            "is_legacy_optimizer": False,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
        """Creates an optimizer from its config (the output of `get_config()`).

        A config written by a legacy optimizer (it has `decay` and no
        `is_legacy_optimizer`) gives the legacy twin of this class.
        """
        config = dict(config)
        if "decay" in config and "is_legacy_optimizer" not in config:
            from torchestimator.keras.optimizers.legacy.optimizers import (  # lazy: subclass (keras.optimizers.legacy.optimizers subclasses the optimizers, whose mixin this is)
                LEGACY_CLASSES,
            )

            twin = LEGACY_CLASSES.get(cls.__name__.lower())
            if twin is not None and twin is not cls and issubclass(twin, cls):
                return twin.from_config(config, custom_objects)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = lrs.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_lr_fn"] = None  # a closure; rebuilt from `_learning_rate` on load
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # Variables are keyed by identity: re-key the copies (deepcopy, pickle).
        self._index_dict = {id(v): i for i, v in enumerate(self._vars)}
        decayed = {id(v) for v in self._decay_vars}
        self._exclude_ids = {id(v) for v in self._vars if id(v) not in decayed}
        current = self._current_lr
        self._refresh_learning_rate()
        self._current_lr = current
        if self._group is not None:
            self._group["lr"] = current

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} learning_rate={self._current_lr:g} iterations={self._iterations}>"

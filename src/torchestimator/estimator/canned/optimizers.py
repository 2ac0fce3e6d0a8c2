"""The optimizers of the canned estimators: names, TF's default learning rates, and how an
`optimizer` argument (a string, an instance or a callable) becomes an optimizer object.

TF 2.15's canned estimators (`tf.estimator.*`) use the Keras legacy optimizers
(`tf.keras.optimizers.legacy.*`, a new-style Keras optimizer is converted);
a string gets the learning rate the estimator passes, or the optimizer's own
default when it passes none (the TF2 DNN: Adagrad at 0.001). These defaults are
an `OptimizerDefaults` (`TF2` here); the TF1 canned estimators
(`tf.compat.v1.estimator.*`) pass TF1's (`tf.compat.v1.train.*Optimizer`, see
`compat/v1/_canned_optimizers.py`), so this module depends on nothing above it.

Inside a `model_fn` the optimizer is resolved once per Estimator and built
in its object scope, so its state is checkpointed with the model; an
optimizer instance passed by the user is copied (from its config) for each
Estimator, as TF rebuilt it in every graph.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchestimator._engine.object_scope import current_scope
from torchestimator.keras.optimizers import Optimizer
from torchestimator.keras.optimizers import legacy as _legacy
from torchestimator.keras.optimizers._serialization import NEW_CLASSES
from torchestimator.keras.optimizers.legacy.optimizers import LEGACY_CLASSES

logger = logging.getLogger("torchestimator")

def _v2_classes() -> dict[str, type]:
    return {
        "Adagrad": _legacy.Adagrad,
        "Adam": _legacy.Adam,
        "Ftrl": _legacy.Ftrl,
        "RMSProp": _legacy.RMSprop,
        "SGD": _legacy.SGD,
    }


def _unsupported(opt: str, names: dict) -> ValueError:
    return ValueError(
        f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(names))} "
        "(case-sensitive); or pass a tf.keras.optimizers.Optimizer instance or a callable "
        "returning one."
    )


def _to_legacy(opt: Optimizer) -> Optimizer:
    """A new-style built-in Keras optimizer as its legacy twin (TF converts them too)."""

    if isinstance(opt, _legacy.Optimizer) and type(opt) in set(NEW_CLASSES.values()):
        twin = LEGACY_CLASSES.get(type(opt).__name__.lower())
        if twin is not None and twin is not type(opt):
            logger.warning(
                "You are using `tf.keras.optimizers.Optimizer` in TF estimator, which only supports "
                "`tf.keras.optimizers.legacy.Optimizer`. Automatically converting your optimizer to "
                "`tf.keras.optimizers.legacy.Optimizer`."
            )
            return twin.from_config(opt.get_config())
    return opt


def get_optimizer_instance_v2(opt: Any, learning_rate: float | None = None) -> Optimizer:
    """Returns an optimizer instance, as TF2's canned estimators resolve their `optimizer` argument.

    `opt` is a string ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD': a Keras
    legacy optimizer at `learning_rate`, or at the optimizer's default when
    `learning_rate` is None), an optimizer instance (returned; a new-style
    built-in one is converted to its legacy twin), or a callable returning one.
    Raises ValueError for anything else.
    """
    if isinstance(opt, str):
        classes = _v2_classes()
        if opt not in classes:
            raise _unsupported(opt, classes)
        if not learning_rate:
            return classes[opt]()
        return classes[opt](learning_rate=learning_rate)
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {opt!r}")
    return _to_legacy(opt)


def get_optimizer_instance_from(classes: dict[str, type], opt: Any,
                                learning_rate: float | None = None) -> Optimizer:
    """Returns an optimizer instance, as TF1's canned estimators resolve `optimizer`: a string
    names one of `classes` (TF1's `tf.compat.v1.train` optimizers, passed in by
    `tf.compat.v1`) and needs `learning_rate`; an instance is returned; a callable is called.
    Raises ValueError otherwise."""
    if isinstance(opt, str):
        if opt not in classes:
            raise _unsupported(opt, classes)
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return classes[opt](learning_rate=learning_rate)
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt!r}")
    return opt


@dataclass(frozen=True)
class OptimizerDefaults:
    """How a family of canned estimators resolves its `optimizer` arguments.

    `classes()`: the optimizer classes by the names a string may give;
    `resolve(opt, learning_rate)`: the optimizer for an argument;
    `dnn_learning_rate`: the DNN's learning rate for a string optimizer (None: the
    optimizer's own default); `ftrl`: the class of the linear model's default
    optimizer. `TF2` is `tf.estimator`'s; `tf.compat.v1.estimator` passes TF1's.
    """

    classes: Callable[[], dict[str, type]]
    resolve: Callable[[Any, float | None], Optimizer]
    dnn_learning_rate: float | None
    ftrl: type


TF2 = OptimizerDefaults(classes=_v2_classes, resolve=get_optimizer_instance_v2, dnn_learning_rate=None,
                        ftrl=_legacy.Ftrl)


def check_optimizer_argument(opt: Any, argument: str, owner: str,
                             defaults: OptimizerDefaults = TF2) -> None:
    """Raises ValueError at construction time for an `optimizer` argument that can never work
    (an unknown name, or something that is neither an optimizer nor callable)."""
    if opt is None or callable(opt) or isinstance(opt, Optimizer):
        return
    if isinstance(opt, str):
        classes = defaults.classes()
        if opt not in classes:
            raise ValueError(f"{owner}: {argument}={opt!r}. " + str(_unsupported(opt, classes)))
        return
    raise ValueError(
        f"{owner}: {argument} must be a string ({sorted(_v2_classes())}), a "
        f"tf.keras.optimizers.Optimizer instance or a callable returning one; given {opt!r}."
    )


def _registered(scope: Any, obj: Any) -> bool:
    return any(o is obj for o in scope.objects.values())


def _fresh_copy(opt: Optimizer, taken: set[str]) -> Optimizer:
    """A copy of `opt` built from its config (constructed inside the active scope), with a
    name no other canned optimizer of this Estimator uses."""
    config = opt.get_config()
    name = config.get("name") or type(opt).__name__
    unique, n = name, 1
    while unique in taken:
        unique = f"{name}_{n}"
        n += 1
    config["name"] = unique
    return type(opt).from_config(config)


def optimizer_for_model_fn(role: str, resolve: Callable[[], Optimizer]) -> Optimizer:
    """The optimizer of `role` ('dnn', 'linear', ...) for this Estimator's model_fn.

    Inside a model_fn, `resolve()` runs once per Estimator; the optimizer is
    registered in the Estimator's object scope (copied from its config if the
    user made it outside), so the Estimator checkpoints its state, and the
    same object is returned on every later call. Outside a model_fn it
    returns `resolve()`.
    """
    scope = current_scope()
    if scope is None:
        return resolve()
    cache = scope.context.canned_optimizers
    if role in cache:
        return cache[role]
    taken = {getattr(o, "name", "") for o in cache.values()}
    opt = resolve()
    if not _registered(scope, opt):
        try:
            copy = _fresh_copy(opt, taken)
        except Exception:  # a custom optimizer without a usable config: train it as it is
            copy = opt
            scope.objects[("canned_optimizer", role)] = opt
        opt = copy
    cache[role] = opt
    return opt

"""Signature differences from TF 2.15 kept on purpose (keras area): key -> why."""

_SHARED_OPTIMIZER_BASE = (
    "tf.keras.optimizers.legacy.Optimizer is here the base class every optimizer shares (the "
    "new tf.keras.optimizers.Optimizer, whose constructor and methods it has: isinstance checks "
    "such as the canned estimators' conversion of new optimizers rely on that); TF's OptimizerV2 "
    "subclassing API (_resource_apply_dense, _set_hyper) is not implemented, while the concrete "
    "legacy classes (tf.keras.optimizers.legacy.SGD, ...) take TF's legacy arguments.")

EXCEPTIONS: dict[str, str] = {
    "keras.optimizers.legacy.Optimizer": _SHARED_OPTIMIZER_BASE,
    "keras.optimizers.legacy.Optimizer.apply_gradients": _SHARED_OPTIMIZER_BASE,
    "keras.optimizers.legacy.Optimizer.minimize": _SHARED_OPTIMIZER_BASE,
}

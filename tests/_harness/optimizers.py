"""`check_optimizer`: the checks every Keras optimizer of the package passes, in one call.

Invariants checked:

1. `steps` updates of `optimizer_cls(**kwargs)` lower a small quadratic over five small
   variables (the loss falls by at least `min_decrease` of its start), with finite weights;
2. `from_config(get_config())` (through JSON) and `tf.keras.optimizers.serialize`/`deserialize`
   give the same class and config, and the clone trains to the same weights;
3. the slots survive a `.keras` file (a compiled model saved after `fit` and loaded again holds
   the same optimizer variables and takes the same next step) and a `tf.train.Checkpoint`
   (restored into a fresh model and optimizer before their first step, the next steps agree);
4. where the update rule is elementwise (the optimizer updates many small CPU variables as one
   flat vector, `keras/optimizers/_flat.py`), the flat update gives the per-tensor update's
   weights and slots.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np
import torch

import torchestimator as tf

#: Small variables of the quadratic: five, each under the flat path's size limits, so that an
#: elementwise rule takes the flat path.
SHAPES = [(3,), (2, 2), (4, 1), (1,), (5,)]


def _variables(seed: int) -> tuple[list[torch.nn.Parameter], list[torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    params = [torch.nn.Parameter(torch.randn(s, generator=generator)) for s in SHAPES]
    targets = [torch.randn(s, generator=generator) for s in SHAPES]
    return params, targets


def _loss(params: list[torch.Tensor], targets: list[torch.Tensor]) -> torch.Tensor:
    return sum(((p - t) ** 2).sum() for p, t in zip(params, targets))


def _run(optimizer: Any, steps: int, seed: int, flat: bool | None = None
         ) -> tuple[list[torch.Tensor], list[float], Any]:
    """`steps` updates on the quadratic; `flat` forces the flat path on or off (None: as built).
    Returns the final weights, the losses before each step and after the last, and the state."""
    params, targets = _variables(seed)
    optimizer.build(params)
    kernel = getattr(optimizer, "_kernel", None)  # the flat-path switch has no public name
    if flat is not None and kernel is not None:
        kernel.elementwise = flat
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = _loss(params, targets)
        losses.append(float(loss.detach()))
        loss.backward()
        optimizer.step()
    losses.append(float(_loss(params, targets).detach()))
    return [p.detach().clone() for p in params], losses, optimizer.state_dict()


def _assert_close_nested(got: Any, want: Any, what: str, rtol: float, atol: float) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), f"{what}: keys {sorted(got)} != {sorted(want)}"
        for key in want:
            _assert_close_nested(got[key], want[key], f"{what}[{key!r}]", rtol, atol)
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), f"{what}: {len(got)} items, expected {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_close_nested(g, w, f"{what}[{i}]", rtol, atol)
    elif isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype, (
            f"{what}: {type(got).__name__} {getattr(got, 'shape', '')}, expected {want.dtype} {tuple(want.shape)}")
        np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().cpu().numpy(), rtol=rtol, atol=atol,
                                   err_msg=what)
    else:
        assert got == want or (isinstance(want, float) and abs(got - want) <= atol + rtol * abs(want)), (
            f"{what}: {got!r} != {want!r}")


def _model(seed: int) -> Any:
    torch.manual_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(2)])
    return model


def _data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    return x, (x[:, :2] * 2.0 - 1.0).astype(np.float32)


def check_optimizer(
    optimizer_cls: type,
    kwargs: dict[str, Any] | None = None,
    *,
    steps: int = 20,
    min_decrease: float = 0.05,
    save: bool = True,
    checkpoint: bool = True,
    fast_path: bool = True,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    tmp_dir: str | os.PathLike | None = None,
) -> Any:
    """Runs the optimizer checks (module docstring) on `optimizer_cls(**kwargs)`; returns the
    optimizer trained on the quadratic. `save=False` skips the `.keras` file,
    `checkpoint=False` the `tf.train.Checkpoint`, `fast_path=False` the flat-path comparison."""
    kwargs = dict(kwargs or {})
    name = optimizer_cls.__name__
    tf.keras.backend.clear_session()

    # 1. minimises a quadratic
    optimizer = optimizer_cls(**kwargs)
    assert isinstance(optimizer, tf.keras.optimizers.Optimizer) or hasattr(optimizer, "apply_gradients")
    weights, losses, _ = _run(optimizer, steps, seed)
    assert all(np.isfinite(losses)) and all(torch.isfinite(w).all() for w in weights), f"{name}: not finite"
    assert losses[-1] <= (1.0 - min_decrease) * losses[0], (
        f"{name}({kwargs}): {steps} steps took the quadratic from {losses[0]:.4g} to {losses[-1]:.4g}, "
        f"expected a fall of at least {min_decrease:.0%}")
    assert int(optimizer.iterations) == steps

    # 2. config round trips; the clone trains the same
    config = optimizer.get_config()
    clone = optimizer_cls.from_config(json.loads(json.dumps(config)))
    assert clone.get_config() == config, f"{name}: from_config(get_config()) changed the config"
    clone_weights, _, _ = _run(clone, steps, seed)
    _assert_close_nested(clone_weights, weights, f"{name} clone weights", rtol, atol)
    serialized = json.loads(json.dumps(tf.keras.optimizers.serialize(optimizer)))
    revived = tf.keras.optimizers.deserialize(serialized)
    assert type(revived) is optimizer_cls and revived.get_config() == config

    # 3. slots through .keras and through tf.train.Checkpoint
    if save:
        _check_keras_file(optimizer_cls, kwargs, seed, rtol, atol, tmp_dir)
    if checkpoint:
        _check_checkpoint(optimizer_cls, kwargs, seed, rtol, atol, tmp_dir)

    # 4. flat path against the per-tensor path
    if fast_path:
        probe = optimizer_cls(**kwargs)
        probe.build(_variables(seed)[0])
        kernel = getattr(probe, "_kernel", None)
        if kernel is not None and kernel.elementwise:
            flat_optimizer = optimizer_cls(**kwargs)
            flat_weights, _, flat_state = _run(flat_optimizer, 4, seed, flat=True)
            assert flat_optimizer._kernel._flat.get(0) is not None, f"{name}: the flat path did not run"
            plain_weights, _, plain_state = _run(optimizer_cls(**kwargs), 4, seed, flat=False)
            _assert_close_nested(flat_weights, plain_weights, f"{name} flat against per-tensor weights",
                                 1e-6, 1e-7)
            _assert_close_nested(flat_state, plain_state, f"{name} flat against per-tensor state", 1e-6, 1e-7)
    return optimizer


def _weights(model: Any) -> list[torch.Tensor]:
    return [w.detach().cpu().clone() for w in model.weights]


def _check_keras_file(optimizer_cls: type, kwargs: dict[str, Any], seed: int, rtol: float, atol: float,
                      tmp_dir: Any) -> None:
    name = optimizer_cls.__name__
    x, y = _data(seed)
    model = _model(seed)
    model.compile(optimizer=optimizer_cls(**kwargs), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    with tempfile.TemporaryDirectory(dir=tmp_dir) as folder:
        path = os.path.join(folder, "m.keras")
        model.save(path)
        loaded = tf.keras.models.load_model(path)
    assert type(loaded.optimizer) is optimizer_cls, f"{name}: load_model gave {type(loaded.optimizer).__name__}"
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations) == 2
    _assert_close_nested(_weights(loaded), _weights(model), f"{name}: weights after load_model", 0, 0)
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    loaded.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _assert_close_nested(loaded.optimizer.state_dict()["variables"], model.optimizer.state_dict()["variables"],
                         f"{name}: slots after a step of the loaded model", rtol, atol)
    _assert_close_nested(_weights(loaded), _weights(model), f"{name}: the step after load_model", rtol, atol)


def _check_checkpoint(optimizer_cls: type, kwargs: dict[str, Any], seed: int, rtol: float, atol: float,
                      tmp_dir: Any) -> None:
    name = optimizer_cls.__name__
    x, y = _data(seed)
    model = _model(seed)
    model.compile(optimizer=optimizer_cls(**kwargs), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    with tempfile.TemporaryDirectory(dir=tmp_dir) as folder:
        saved = tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(os.path.join(folder, "ckpt"))
        other = _model(seed + 1)  # other starting weights: the restore must replace them
        other.compile(optimizer=optimizer_cls(**kwargs), loss="mse")
        status = tf.train.Checkpoint(model=other, optimizer=other.optimizer).restore(saved)
        other.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)  # builds, restores, steps
        status.assert_consumed()
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert int(other.optimizer.iterations) == int(model.optimizer.iterations) == 4
    _assert_close_nested(other.optimizer.state_dict()["variables"], model.optimizer.state_dict()["variables"],
                         f"{name}: slots after restoring a tf.train.Checkpoint and a step", rtol, atol)
    _assert_close_nested(_weights(other), _weights(model), f"{name}: weights after restore and a step", rtol, atol)


__all__ = ["check_optimizer"]

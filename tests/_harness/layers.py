"""`check_layer`: the checks every Keras layer of the package passes, in one call.

Invariants checked (each can be turned off by its keyword when a layer cannot have it):

1. the layer builds and its call gives `expected_output_shape` / `expected_output` /
   `expected_output_dtype`;
2. `from_config(get_config())` (through JSON) gives the same config and, with the same weights,
   the same output; `tf.keras.layers.serialize`/`deserialize` give the same class and config;
3. in a functional model the symbolic output shape is the real one, `model.predict(x)` (the
   compiled predict loop) equals `model(x)`, and after `save("m.keras")` and `load_model` the
   loaded model predicts the same;
4. one `fit` step moves the trainable weights, and every gradient of a loss on the output is
   finite;
5. `layer(x)` after `eval()` equals `layer(x, training=False)`, and after `train()` equals
   `layer(x, training=True)` (same seed); `load_state_dict(state_dict())` into a fresh instance
   gives the same output.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

import torchestimator as tf
from torchestimator._engine.loop import default_device

Shape = Sequence[int | None]


def on_default_device(value: Any) -> Any:
    """`value` (a tensor, a list/tuple of tensors, or a torch reference module) on the device the
    library puts weights on (`TORCHESTIMATOR_DEVICE`, else CUDA when present, else the CPU; read
    at call time), as a user on a GPU puts their data: a test's reference computation then meets
    the layer's weights and outputs on one device. Anything else (a numpy array of strings) is
    returned as it is."""
    if isinstance(value, (list, tuple)):
        return type(value)(on_default_device(v) for v in value)
    if isinstance(value, (torch.Tensor, torch.nn.Module)):
        return value.to(default_device())
    return value


def _as_tensor(value: Any) -> Any:
    """A torch tensor of `value` (float64 becomes float32); strings stay a numpy array."""
    if isinstance(value, torch.Tensor):
        return value
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        return array.astype(object)
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    return torch.from_numpy(np.ascontiguousarray(array))


def _make_inputs(input_shape: Any, input_data: Any, input_dtype: Any, seed: int) -> Any:
    """The layer's input: `input_data` as tensors, or random data of `input_shape` (a shape, or a
    list of shapes for a layer of several inputs)."""
    if input_data is not None:
        if isinstance(input_data, (list, tuple)) and not isinstance(input_data[0], (int, float)):
            return [_as_tensor(v) for v in input_data]
        return _as_tensor(input_data)
    if input_shape is None:
        raise ValueError("check_layer needs input_shape or input_data; got neither.")
    generator = torch.Generator().manual_seed(seed)
    multi = len(input_shape) > 0 and isinstance(input_shape[0], (list, tuple))
    shapes = list(input_shape) if multi else [input_shape]
    dtypes = list(input_dtype) if isinstance(input_dtype, (list, tuple)) else [input_dtype] * len(shapes)
    tensors = []
    for shape, dtype in zip(shapes, dtypes):
        shape = tuple(2 if d is None else d for d in shape)
        dtype = torch.float32 if dtype is None else getattr(torch, str(dtype))
        if dtype.is_floating_point:
            tensors.append(torch.randn(shape, generator=generator).to(dtype))
        elif dtype == torch.bool:
            tensors.append(torch.randint(0, 2, shape, generator=generator).bool())
        else:
            tensors.append(torch.randint(0, 10, shape, generator=generator).to(dtype))
    return tensors if multi else tensors[0]


def _flat(value: Any) -> list[Any]:
    return list(tf.nest.flatten(value))


def _numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _assert_same(got: Any, want: Any, rtol: float, atol: float, what: str) -> None:
    got_flat, want_flat = _flat(got), _flat(want)
    assert len(got_flat) == len(want_flat), f"{what}: {len(got_flat)} outputs, expected {len(want_flat)}"
    for i, (g, w) in enumerate(zip(got_flat, want_flat)):
        g, w = _numpy(g), _numpy(w)
        assert g.shape == w.shape, f"{what}: output {i} has shape {g.shape}, expected {w.shape}"
        if g.dtype.kind in "OSU" or w.dtype.kind in "OSU":
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")


def _call(layer: Any, inputs: Any, unpack: bool, **kwargs: Any) -> Any:
    """`layer(inputs)`, or `layer(*inputs)` for a layer taking its inputs as arguments."""
    return layer(*inputs, **kwargs) if unpack else layer(inputs, **kwargs)


def _shape_matches(actual: Sequence[int | None], expected: Shape) -> bool:
    return len(actual) == len(expected) and all(e is None or a == e for a, e in zip(actual, expected))


def _symbolic_inputs(x: Any) -> Any:
    def one(t: Any) -> Any:
        if isinstance(t, np.ndarray):
            return tf.keras.Input(tuple(t.shape[1:]), dtype="string")
        dtype = None if t.dtype == torch.float32 else str(t.dtype).replace("torch.", "")
        return tf.keras.Input(tuple(t.shape[1:]), dtype=dtype)
    return [one(t) for t in x] if isinstance(x, list) else one(x)


def _to_model_input(x: Any) -> Any:
    return [_numpy(t) for t in x] if isinstance(x, list) else _numpy(x)


def check_layer(
    layer_cls: type,
    kwargs: dict[str, Any] | None = None,
    input_shape: Any = None,
    input_data: Any = None,
    *,
    input_dtype: Any = None,
    expected_output_shape: Shape | None = None,
    expected_output: Any = None,
    expected_output_dtype: Any = None,
    supports_masking: bool | None = None,
    call_kwargs: dict[str, Any] | None = None,
    unpack_inputs: bool = False,
    custom_objects: dict[str, Any] | None = None,
    train: bool = True,
    save: bool = True,
    functional: bool = True,
    fast_path: bool = True,
    torch_interop: bool = True,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    tmp_dir: str | os.PathLike | None = None,
) -> tf.keras.layers.Layer:
    """Runs the layer checks (module docstring) on `layer_cls(**kwargs)` called on random data of
    `input_shape` (batch dimension included; `None` dimensions become 2) or on `input_data`.

    `call_kwargs` go to every call (`{"training": False}` for a layer that is random by default);
    `unpack_inputs=True` calls `layer(*inputs)` (a layer such as `MultiHeadAttention` taking its
    inputs as arguments). `train=False` skips the `fit` step (a layer without a differentiable
    path), `save=False` the `.keras` file, `functional=False` everything that needs a functional
    model, `fast_path=False` the `predict` against `model(x)` comparison, `torch_interop=False`
    the module-mode and `state_dict` checks (a random training output is compared under the
    same seed). Returns the built layer.
    """
    kwargs = dict(kwargs or {})
    call_kwargs = dict(call_kwargs or {})
    tf.keras.backend.clear_session()
    torch.manual_seed(seed)
    x = on_default_device(_make_inputs(input_shape, input_data, input_dtype, seed))
    unpack = unpack_inputs

    # 1. build and call
    layer = layer_cls(**kwargs)
    assert isinstance(layer, tf.keras.layers.Layer) and isinstance(layer, torch.nn.Module)
    if supports_masking is not None:
        assert layer.supports_masking is supports_masking, (
            f"{layer_cls.__name__}.supports_masking is {layer.supports_masking}, expected {supports_masking}")
    with torch.no_grad():
        y = _call(layer, x, unpack, **call_kwargs)
    assert layer.built, f"{layer_cls.__name__} is not built after its first call"
    first = _flat(y)[0]
    if expected_output_shape is not None:
        assert _shape_matches(tuple(first.shape), expected_output_shape), (
            f"{layer_cls.__name__} output shape {tuple(first.shape)}, expected {tuple(expected_output_shape)}")
    if expected_output_dtype is not None and isinstance(first, torch.Tensor):
        want = expected_output_dtype if isinstance(expected_output_dtype, torch.dtype) else getattr(
            torch, str(expected_output_dtype))
        assert first.dtype == want, f"{layer_cls.__name__} output dtype {first.dtype}, expected {want}"
    if expected_output is not None:
        _assert_same(y, expected_output, rtol, atol, f"{layer_cls.__name__} output")
    with torch.no_grad():
        again = _call(layer, x, unpack, **call_kwargs)
        _assert_same(again, y, rtol, atol, f"{layer_cls.__name__} called twice")

    # 2. config and serialize round trips
    config = layer.get_config()
    config_json = json.loads(json.dumps(config))
    clone = layer_cls.from_config(config_json)
    assert clone.get_config() == config, f"{layer_cls.__name__}: from_config(get_config()) changed the config"
    with torch.no_grad():
        _call(clone, x, unpack, **call_kwargs)
        clone.set_weights(layer.get_weights())
        from_config = _call(clone, x, unpack, **call_kwargs)
        _assert_same(from_config, y, rtol, atol, f"{layer_cls.__name__} from_config clone")
    serialized = json.loads(json.dumps(tf.keras.layers.serialize(layer)))
    revived = tf.keras.layers.deserialize(serialized, custom_objects=custom_objects)
    assert type(revived) is layer_cls, f"deserialize gave {type(revived).__name__}, expected {layer_cls.__name__}"
    assert revived.get_config() == config

    # 3. functional model, predict (fast path) against model(x), .keras round trip
    model = None
    if functional:
        inputs = _symbolic_inputs(x)
        model_layer = layer_cls.from_config(config_json)
        symbolic = _call(model_layer, inputs, unpack, **call_kwargs)
        model = tf.keras.Model(inputs, symbolic)
        model_layer.set_weights(layer.get_weights())
        model.eval()
        with torch.no_grad():
            direct = model(x)
        _assert_same(direct, y, rtol, atol, f"{layer_cls.__name__} in a functional model")
        for sym, real in zip(_flat(symbolic), _flat(direct)):
            assert _shape_matches(tuple(real.shape)[1:], tuple(sym.shape)[1:]), (
                f"{layer_cls.__name__}: symbolic shape {tuple(sym.shape)}, real {tuple(real.shape)}")
        feed = _to_model_input(x)
        predicted = model.predict(feed, verbose=0)
        if fast_path:
            _assert_same(predicted, direct, rtol, atol, f"{layer_cls.__name__}: model.predict against model(x)")
        if save:
            with tempfile.TemporaryDirectory(dir=tmp_dir) as folder:
                path = os.path.join(folder, "m.keras")
                model.save(path)
                loaded = tf.keras.models.load_model(path, custom_objects=custom_objects)
            assert any(type(sub) is layer_cls for sub in loaded.layers)
            _assert_same(loaded.predict(feed, verbose=0), predicted, rtol, atol,
                         f"{layer_cls.__name__} after save('.keras') and load_model")

    # 4. one fit step
    if train and functional and layer.trainable_weights and isinstance(first, torch.Tensor) \
            and first.is_floating_point():
        _check_train_step(layer_cls, model, x, seed)

    # 5. training flag against the torch module mode; state_dict round trip
    if torch_interop:
        _check_torch_interop(layer, x, unpack, call_kwargs, rtol, atol, seed)
    return layer


def _check_train_step(layer_cls: type, model: Any, x: Any, seed: int) -> None:
    name = layer_cls.__name__
    trainable = [w for w in model.trainable_weights if w.requires_grad]
    model.train()
    torch.manual_seed(seed)
    out = _flat(model(x, training=True))[0]
    # a random linear function of the output: its gradient reaches every weight that can move
    # the output (a square loss would give a weight starting at 0, PReLU's alpha, none)
    generator = torch.Generator().manual_seed(seed + 2)
    direction = torch.randn(tuple(out.shape), generator=generator).to(out.device)
    loss = (out.float() * direction).mean()
    grads = torch.autograd.grad(loss, trainable, allow_unused=True)
    for weight, grad in zip(trainable, grads):
        if grad is not None:
            assert torch.isfinite(grad).all(), f"{name}: gradient of {weight._keras_name} is not finite"
    assert any(g is not None and bool(g.abs().sum() > 0) for g in grads), (
        f"{name}: no trainable weight gets a gradient from the output")
    outputs = getattr(model, "outputs", None)
    if outputs is not None and len(outputs) > 1:
        model = tf.keras.Model(model.inputs, outputs[0])
    before = [w.detach().clone() for w in trainable]
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    target = (out.detach().cpu() + direction.cpu()).numpy().astype(np.float32)
    history = model.fit(_to_model_input(x), target, batch_size=len(target), epochs=1, shuffle=False, verbose=0)
    assert np.isfinite(history.history["loss"][0]), f"{name}: the fit step's loss is not finite"
    after = [w.detach().cpu() for w in trainable]
    assert all(torch.isfinite(w).all() for w in after), f"{name}: a weight is not finite after fit"
    assert any(not torch.equal(a, b.cpu()) for a, b in zip(after, before)), (
        f"{name}: one fit step changed no trainable weight")


def _check_torch_interop(layer: Any, x: Any, unpack: bool, given: dict[str, Any],
                         rtol: float, atol: float, seed: int) -> None:
    name = type(layer).__name__
    fixed_mode = "training" in given  # the case fixes the flag: eval() cannot decide it
    plain = {k: v for k, v in given.items() if k != "training"}

    def fresh() -> Any:
        copy_ = type(layer).from_config(json.loads(json.dumps(layer.get_config())))
        with torch.no_grad():
            _call(copy_, x, unpack, **given)
        missing, unexpected = copy_.load_state_dict(copy.deepcopy(layer.state_dict()), strict=True)
        assert not missing and not unexpected
        return copy_

    # state_dict round trip
    restored = fresh()
    assert list(restored.state_dict()) == list(layer.state_dict())
    with torch.no_grad():
        _assert_same(_call(restored, x, unpack, **given), _call(layer, x, unpack, **given), rtol, atol,
                     f"{name} after load_state_dict(state_dict())")

    # eval(): inference (unless the layer's call decides otherwise); train(): training=True
    if not fixed_mode:
        evaluating = fresh().eval()
        with torch.no_grad():
            _assert_same(_call(evaluating, x, unpack, **plain), _call(layer, x, unpack, training=False, **plain),
                         rtol, atol, f"{name} in eval() mode against training=False")
    mode, explicit = fresh().train(), fresh()
    with torch.no_grad():
        torch.manual_seed(seed + 1)
        got = _call(mode, x, unpack, **plain)
        torch.manual_seed(seed + 1)
        want = _call(explicit, x, unpack, training=True, **plain)
    _assert_same(got, want, rtol, atol, f"{name} in train() mode against training=True")
    _assert_same(mode.get_weights(), explicit.get_weights(), rtol, atol,
                 f"{name} state after a train() call against a training=True call")


__all__ = ["check_layer", "on_default_device"]

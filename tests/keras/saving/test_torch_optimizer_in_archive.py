"""A torch optimizer (and its LR scheduler) saved in a `.keras` archive: `load_model` rebuilds
the same torch classes over the loaded model's parameters with their state, so training goes
on as if never stopped; optimizers and schedulers that a file cannot hold are named in a
warning and the model loads uncompiled; a crafted class name is refused (nothing imported)."""

from __future__ import annotations

import json
import warnings
import zipfile

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.optimizers._torch import TorchOptimizer


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.1).astype("float32")


def _model():
    tf.keras.utils.set_random_seed(1)
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                tf.keras.layers.Dense(1)])


def _weights(model):
    return [w.numpy().copy() for w in model.weights]


SCHEDULERS = {
    "none": lambda opt: None,
    "StepLR": lambda opt: torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5),
    "MultiStepLR": lambda opt: torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3]),
    "CosineAnnealingLR": lambda opt: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4),
    "ExponentialLR": lambda opt: torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "OneCycleLR": lambda opt: torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=40),
}


@pytest.mark.parametrize("kind", ["Adam", "SGD", "AdamW", "RMSprop"])
@pytest.mark.parametrize("schedule", sorted(SCHEDULERS))
def test_save_load_then_fit_equals_fit_without_stopping(tmp_path, kind, schedule):
    x, y = _data()
    kwargs = {"SGD": {"lr": 0.05, "momentum": 0.9}}.get(kind, {"lr": 0.01})

    def compiled():
        model = _model()
        opt = getattr(torch.optim, kind)(model.parameters(), **kwargs)
        scheduler = SCHEDULERS[schedule](opt)
        interval = "step" if schedule == "OneCycleLR" else "epoch"
        model.compile(optimizer=tf.keras.optimizers.from_torch(opt, scheduler, interval=interval)
                      if scheduler is not None else opt, loss="mse")
        return model

    straight = compiled()
    straight.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)

    first = compiled()
    first.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is dropped
        first.save(tmp_path / "m.keras")
        loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert isinstance(loaded.optimizer, TorchOptimizer)
    assert type(loaded.optimizer.optimizer) is getattr(torch.optim, kind)
    assert loaded.optimizer.learning_rate == pytest.approx(first.optimizer.learning_rate)
    assert loaded.optimizer.iterations == first.optimizer.iterations == 8
    mine = {id(p) for g in loaded.optimizer.optimizer.param_groups for p in g["params"]}
    assert mine == {id(p) for p in loaded.parameters()}
    loaded.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(_weights(loaded), _weights(straight)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_parameter_groups_are_kept_by_layer(tmp_path):
    x, y = _data()
    model = _model()
    first, second = model.layers
    opt = torch.optim.SGD([{"params": first.parameters(), "lr": 0.01},
                           {"params": second.parameters(), "lr": 0.1}], lr=0.5)
    model.compile(optimizer=opt, loss="mse")
    model.fit(x, y, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    groups = loaded.optimizer.optimizer.param_groups
    assert [g["lr"] for g in groups] == [0.01, 0.1]
    assert {id(p) for p in groups[1]["params"]} == {id(p) for p in loaded.layers[1].parameters()}


def test_an_optimizer_a_file_cannot_hold_is_named_and_the_model_loads_uncompiled(tmp_path):
    class MySGD(torch.optim.SGD):
        pass

    x, y = _data()
    model = _model()
    model.compile(optimizer=MySGD(model.parameters(), lr=0.01), loss="mse")
    model.fit(x, y, verbose=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.save(tmp_path / "m.keras")
        loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    messages = [str(w.message) for w in caught]
    assert any("MySGD is not one of torch.optim's optimizers" in m for m in messages), messages
    assert any("it is loaded uncompiled" in m for m in messages), messages
    assert loaded.optimizer is None
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_a_lambda_scheduler_is_named_and_not_stored(tmp_path):
    x, y = _data()
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.compile(optimizer=(opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)),
                  loss="mse")
    model.fit(x, y, verbose=0)
    with pytest.warns(UserWarning, match="scheduler LambdaLR holds functions"):
        model.save(tmp_path / "m.keras")


def _rewrite_optimizer_json(path, change):
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    meta = json.loads(members["optimizer.json"])
    change(meta)
    members["optimizer.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("crafted", ["os.system", "Optimizer", "__class__", "lr_scheduler.LambdaLR"])
def test_a_crafted_optimizer_class_is_refused_naming_it(tmp_path, crafted):
    x, y = _data()
    model = _model()
    model.compile(optimizer=torch.optim.Adam(model.parameters()), loss="mse")
    model.fit(x, y, verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)

    def change(meta):
        meta["torch"]["class_name"] = crafted

    _rewrite_optimizer_json(path, change)
    with pytest.raises(ValueError, match="is not one of torch.optim's optimizers"):
        tf.keras.models.load_model(path)
    assert tf.keras.models.load_model(path, compile=False).optimizer is None


def test_a_crafted_scheduler_or_parameter_name_is_refused(tmp_path):
    x, y = _data()
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.compile(optimizer=(opt, torch.optim.lr_scheduler.StepLR(opt, 1)), loss="mse")
    model.fit(x, y, verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)
    _rewrite_optimizer_json(path, lambda m: m["torch"].update(lr_scheduler="LambdaLR"))
    with pytest.raises(ValueError, match="LambdaLR.*is not one of torch.optim.lr_scheduler's"):
        tf.keras.models.load_model(path)
    model.save(path)
    _rewrite_optimizer_json(path, lambda m: m["torch"]["param_groups"][0].append("nope.kernel"))
    with pytest.raises(ValueError, match="names parameters the model does not have.*nope.kernel"):
        tf.keras.models.load_model(path)

"""PyTorch objects in `compile`/`fit` (issue 29): torch losses in their own argument order,
torchmetrics metrics, torch optimizers and LR schedulers, `jit_compile=True`, and
`torch.utils.data.Dataset` inputs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchestimator as tf
from torchestimator.keras.losses._torch import TorchLoss
from torchestimator.keras.optimizers._torch import TorchOptimizer


def _data(n: int = 64, classes: int = 3, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    x = rng.random((n, 4)).astype("float32")
    return x, rng.integers(0, classes, n), (rng.random((n, 1)) > 0.5).astype("float32")


def _model(units: int = 3) -> tf.keras.Model:
    torch.manual_seed(0)
    return tf.keras.Sequential([tf.keras.layers.Dense(units, input_shape=(4,))])


def _out(model: tf.keras.Model, x: np.ndarray) -> torch.Tensor:
    """The model's outputs for `x`, without autograd, on the host (where the expected values
    are computed; the model may run on a GPU)."""
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    return {k: v.cpu() for k, v in out.items()} if isinstance(out, dict) else out.cpu()


def _two_outputs() -> tf.keras.Model:
    torch.manual_seed(0)
    inputs = tf.keras.Input((4,))
    cls = tf.keras.layers.Dense(3, name="cls")(inputs)
    reg = tf.keras.layers.Dense(1, name="reg")(inputs)
    return tf.keras.Model(inputs, {"cls": cls, "reg": reg})


# ---------------------------------------------------------------- 1. losses
def test_bce_with_logits_module_gets_predictions_first():
    x, _, yb = _data()
    model = _model(1)
    model.compile("sgd", loss=torch.nn.BCEWithLogitsLoss())
    expected = torch.nn.BCEWithLogitsLoss()(_out(model, x), torch.from_numpy(yb))
    assert model.evaluate(x, yb, verbose=0) == pytest.approx(float(expected), rel=1e-6)


def test_cross_entropy_module_takes_class_ids_and_trains():
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss(), metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert set(history.history) == {"loss", "accuracy"}
    logits = _out(model, x)
    expected = F.cross_entropy(logits, torch.from_numpy(y))
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(float(expected), rel=1e-6)
    hits = (logits.argmax(-1) == torch.from_numpy(y)).float().mean()
    assert logs["accuracy"] == pytest.approx(float(hits))


def test_functional_losses_are_recognised_and_from_torch_marks_any_function():
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss=F.cross_entropy)
    expected = float(F.cross_entropy(_out(model, x), torch.from_numpy(y)))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-6)

    def torch_ordered(input, target):  # noqa: A002 - torch's argument names
        return F.cross_entropy(input, target)

    model.compile("sgd", loss=tf.keras.losses.from_torch(torch_ordered))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-6)
    assert isinstance(tf.keras.losses.get(torch.nn.MSELoss()), TorchLoss)


def test_plain_callable_keeps_keras_order():
    x, _, yb = _data()
    seen = []

    def keras_loss(y_true, y_pred):
        seen.append(y_true.shape[-1] == 1 and not y_true.requires_grad)
        return tf.keras.losses.mean_squared_error(y_true, y_pred)

    model = _model(1)
    model.compile("sgd", loss=keras_loss)
    model.evaluate(x, yb, verbose=0)
    assert seen and all(seen)


def test_torch_loss_with_sample_and_class_weights():
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss())
    weights = np.linspace(0.5, 2.0, len(y)).astype("float32")
    per_sample = F.cross_entropy(_out(model, x), torch.from_numpy(y), reduction="none")
    expected = float((per_sample * torch.from_numpy(weights)).mean())
    assert model.evaluate(x, y, sample_weight=weights, batch_size=64, verbose=0) == pytest.approx(
        expected, rel=1e-5)
    model.fit(x, y, class_weight={0: 1.0, 1: 2.0, 2: 0.5}, verbose=0)  # trains

    model.compile("sgd", loss=F.cross_entropy)  # one value per batch: cannot weigh samples
    with pytest.raises(ValueError, match="cannot weigh samples"):
        model.evaluate(x, y, sample_weight=weights, verbose=0)


def test_multi_output_dict_of_torch_and_keras_losses_with_loss_weights(tmp_path):
    x, y, yb = _data()
    model = _two_outputs()
    model.compile("sgd", loss={"cls": torch.nn.CrossEntropyLoss(), "reg": "mse"},
                  loss_weights={"cls": 2.0, "reg": 0.5})
    logs = model.evaluate(x, {"cls": y, "reg": yb}, batch_size=64, verbose=0, return_dict=True)
    out = _out(model, x)
    ce = float(F.cross_entropy(out["cls"], torch.from_numpy(y)))
    mse = float(F.mse_loss(out["reg"], torch.from_numpy(yb)))
    assert logs["cls_loss"] == pytest.approx(ce, rel=1e-5)
    assert logs["reg_loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["loss"] == pytest.approx(2.0 * ce + 0.5 * mse, rel=1e-5)
    model.fit(x, {"cls": y, "reg": yb}, epochs=1, verbose=0)
    model.save(str(tmp_path / "m.keras"))  # the torch loss is left out of the compile config
    assert tf.keras.models.load_model(str(tmp_path / "m.keras")).loss is None


def test_multi_output_list_of_torch_losses():
    x, y, yb = _data()
    model = _two_outputs()
    model.compile("sgd", loss=[torch.nn.CrossEntropyLoss(), torch.nn.BCEWithLogitsLoss()])
    history = model.fit(x, {"cls": y, "reg": yb}, epochs=1, verbose=0)
    assert {"loss", "cls_loss", "reg_loss"} <= set(history.history)


# ---------------------------------------------------------------- 2. torchmetrics
def test_torchmetrics_in_metrics_are_logged_and_reset_each_epoch():
    torchmetrics = pytest.importorskip("torchmetrics")
    x, y, _ = _data()
    model = _model()
    accuracy = torchmetrics.Accuracy(task="multiclass", num_classes=3, average="micro")
    mae = tf.keras.metrics.from_torch(torchmetrics.MeanAbsoluteError(), name="tm_mae")
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss(), metrics=[accuracy, "accuracy"])
    history = model.fit(x, y, epochs=2, verbose=0, batch_size=16)
    assert history.history["multiclass_accuracy"] == pytest.approx(history.history["accuracy"])
    updates = accuracy._update_count
    model.fit(x, y, epochs=1, verbose=0, batch_size=16)
    assert accuracy._update_count == updates == 4  # reset at each epoch's start: 4 batches
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    hits = (_out(model, x).argmax(-1) == torch.from_numpy(y)).float().mean()
    assert logs["multiclass_accuracy"] == pytest.approx(float(hits))

    reg = _model(1)
    reg.compile("sgd", "mse", metrics=[mae])
    _, _, yb = _data()
    logs = reg.evaluate(x, yb, verbose=0, return_dict=True)
    expected = float((_out(reg, x) - torch.from_numpy(yb)).abs().mean())
    assert logs["tm_mae"] == pytest.approx(expected, rel=1e-5)


def test_torchmetrics_with_validation_and_multi_output():
    torchmetrics = pytest.importorskip("torchmetrics")
    x, y, yb = _data()
    model = _two_outputs()
    model.compile("sgd", loss={"cls": torch.nn.CrossEntropyLoss(), "reg": "mse"},
                  metrics={"cls": [torchmetrics.Accuracy(task="multiclass", num_classes=3)]})
    history = model.fit(x, {"cls": y, "reg": yb}, validation_split=0.25, epochs=1, verbose=0)
    assert {"cls_multiclass_accuracy", "val_cls_multiclass_accuracy"} <= set(history.history)


def test_torch_loss_as_metric_and_torchmetrics_refuse_weights():
    torchmetrics = pytest.importorskip("torchmetrics")
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss="sparse_categorical_crossentropy",
                  metrics=[torch.nn.CrossEntropyLoss()],
                  weighted_metrics=[torchmetrics.Accuracy(task="multiclass", num_classes=3)])
    with pytest.raises(ValueError, match="take no sample weights"):
        model.evaluate(x, y, sample_weight=np.ones(len(y)), verbose=0)
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss(), metrics=[torch.nn.CrossEntropyLoss()])
    logs = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    assert logs["cross_entropy_loss"] == pytest.approx(logs["loss"], rel=1e-6)


# ---------------------------------------------------------------- 3. optimizers
def test_torch_optimizer_trains_and_is_what_compile_got():
    x, y, _ = _data()
    model = _model()
    model.build((None, 4))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    model.compile(optimizer=opt, loss=torch.nn.CrossEntropyLoss())
    assert isinstance(model.optimizer, TorchOptimizer)
    assert model.optimizer.optimizer is opt
    before = [p.detach().clone() for p in model.parameters()]
    history = model.fit(x, y, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert all(not torch.equal(b, p) for b, p in zip(before, model.parameters()))
    assert model.optimizer.iterations == 6
    assert model.optimizer.learning_rate == pytest.approx(0.05)


def test_torch_optimizer_of_other_parameters_is_refused():
    x, y, _ = _data()
    model = _model()
    model.build((None, 4))
    model.compile(optimizer=torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1),
                  loss=torch.nn.CrossEntropyLoss())
    with pytest.raises(ValueError, match="updates none of the model's"):
        model.fit(x, y, verbose=0)


@pytest.mark.parametrize("form", ["tuple", "dict", "from_torch"])
def test_lr_scheduler_steps_each_epoch(form):
    x, y, _ = _data()
    model = _model()
    model.build((None, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    spec = {"tuple": (opt, scheduler),
            "dict": {"optimizer": opt, "lr_scheduler": {"scheduler": scheduler}},
            "from_torch": tf.keras.optimizers.from_torch(opt, scheduler)}[form]
    model.compile(optimizer=spec, loss=torch.nn.CrossEntropyLoss())
    model.fit(x, y, epochs=3, verbose=0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5 ** 3)


def test_step_interval_and_reduce_on_plateau():
    x, y, _ = _data()
    model = _model()
    model.build((None, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    model.compile(optimizer={"optimizer": opt, "lr_scheduler": {"scheduler": scheduler,
                                                                "interval": "step"}},
                  loss=torch.nn.CrossEntropyLoss())
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)  # 4 steps
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5 ** 4)

    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5,
                                                         threshold=10.0)  # never improves
    model.compile(optimizer=(opt, plateau), loss=torch.nn.CrossEntropyLoss())
    model.fit(x, y, validation_data=(x, y), epochs=3, verbose=0)
    assert opt.param_groups[0]["lr"] < 0.1
    with pytest.raises(ValueError, match="interval must be 'epoch' or 'step'"):
        tf.keras.optimizers.from_torch(opt, plateau, interval="batch")


def test_keras_lr_callbacks_drive_a_torch_optimizer():
    x, y, _ = _data()
    model = _model()
    model.build((None, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.compile(optimizer=opt, loss=torch.nn.CrossEntropyLoss())
    schedule = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.01 * (epoch + 1))
    model.fit(x, y, epochs=2, verbose=0, callbacks=[schedule])
    assert opt.param_groups[0]["lr"] == pytest.approx(0.02)


def _compiled_with_scheduler(x: np.ndarray) -> tuple:
    model = _model()
    model.build((None, 4))
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    model.compile(optimizer=(opt, scheduler), loss=torch.nn.CrossEntropyLoss())
    return model, opt, scheduler


def test_backup_and_restore_round_trips_the_torch_optimizer_and_scheduler(tmp_path):
    x, y, _ = _data()
    backup = tf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"), delete_checkpoint=False)
    model, opt, scheduler = _compiled_with_scheduler(x)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[backup])

    again, opt2, scheduler2 = _compiled_with_scheduler(x)
    again.fit(x, y, epochs=2, verbose=0, callbacks=[backup])  # restored: nothing left to run
    assert scheduler2.last_epoch == scheduler.last_epoch == 2
    assert opt2.param_groups[0]["lr"] == pytest.approx(opt.param_groups[0]["lr"])
    state, state2 = opt.state_dict()["state"], opt2.state_dict()["state"]
    assert state.keys() == state2.keys()
    for key in state:
        for name in ("step", "exp_avg", "exp_avg_sq"):
            torch.testing.assert_close(state2[key][name], state[key][name])
    for p, q in zip(model.parameters(), again.parameters()):
        torch.testing.assert_close(p, q)


def test_model_checkpoint_with_a_torch_optimizer(tmp_path):
    x, y, _ = _data()
    model, _, _ = _compiled_with_scheduler(x)
    callbacks = [
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "model.keras")),
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "w.weights.safetensors"),
                                           save_weights_only=True),
    ]
    model.fit(x, y, epochs=1, verbose=0, callbacks=callbacks)
    loaded = tf.keras.models.load_model(str(tmp_path / "model.keras"))
    fresh = _model()
    fresh.build((None, 4))
    fresh.load_weights(str(tmp_path / "w.weights.safetensors"))
    for a, b, c in zip(model.parameters(), loaded.parameters(), fresh.parameters()):
        torch.testing.assert_close(a, b)
        torch.testing.assert_close(a, c)
    assert os.path.exists(tmp_path / "model.keras")


# ---------------------------------------------------------------- 4. jit_compile
@pytest.fixture
def eager_compile(monkeypatch):
    """torch.compile with the 'eager' backend (dynamo traces, no code generation): seconds,
    not the ~30 s inductor takes on a 2-core CPU."""
    calls = []
    real = torch.compile

    def compile_(fn, *args, **kwargs):
        calls.append(fn)
        return real(fn, backend="eager")

    monkeypatch.setattr(torch, "compile", compile_)
    yield calls
    torch._dynamo.reset()


def test_jit_compile_fit_trains_without_registering_the_compiled_module(eager_compile):
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss(), jit_compile=True)
    history = model.fit(x, y, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and len(eager_compile) == 1
    assert all(not isinstance(m, torch._dynamo.eval_frame.OptimizedModule)
               for m in model.modules())
    model.train()
    model.eval()
    assert set(model.state_dict()) == {k for k, _ in model.named_parameters()} | {
        k for k, _ in model.named_buffers()}
    assert model.predict(x, verbose=0).shape == (64, 3)


@pytest.mark.slow
def test_jit_compile_fit_with_inductor():
    x, y, _ = _data()
    model = _model()
    model.compile("sgd", loss="sparse_categorical_crossentropy", jit_compile=True)
    history = model.fit(x, y, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


# ---------------------------------------------------------------- 5. torch datasets
class _Samples(torch.utils.data.Dataset):
    def __init__(self, x: np.ndarray, y: np.ndarray):
        self.x, self.y = x, y

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> tuple:
        return self.x[i], self.y[i]


class _Stream(torch.utils.data.IterableDataset):
    def __init__(self, x: np.ndarray, y: np.ndarray):
        self.x, self.y = x, y

    def __iter__(self):
        return iter(zip(torch.from_numpy(self.x), torch.from_numpy(self.y)))


@pytest.mark.parametrize("kind", [_Samples, _Stream])
def test_fit_evaluate_predict_on_a_torch_dataset(kind):
    x, y, _ = _data(n=70)
    model = _model()
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss())
    batches = []

    class Count(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            batches.append(batch)

    model.fit(kind(x, y), epochs=1, batch_size=16, verbose=0, callbacks=[Count()])
    assert len(batches) == 5  # ceil(70 / 16)
    assert model.evaluate(kind(x, y), verbose=0) == pytest.approx(
        model.evaluate(x, y, verbose=0), rel=1e-5)
    samples = torch.utils.data.TensorDataset(torch.from_numpy(x))
    np.testing.assert_allclose(model.predict(samples, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_map_style_dataset_is_shuffled_by_fit_only():
    x, y, _ = _data(n=40)
    seen = []

    class Recording(_Samples):
        def __getitem__(self, i):
            seen.append(i)
            return super().__getitem__(i)

    model = _model()
    model.compile("sgd", loss=torch.nn.CrossEntropyLoss())
    model.evaluate(Recording(x, y), verbose=0)
    assert seen == list(range(40))
    seen.clear()
    model.fit(Recording(x, y), epochs=1, verbose=0)
    assert seen != list(range(40)) and sorted(seen) == list(range(40))
    with pytest.raises(ValueError, match="`y` argument is not supported"):
        model.fit(Recording(x, y), y, verbose=0)

"""The shortcuts `fit` takes each step and each epoch (issue 18, W3) give what the general
paths give: the loss tracker read on the host, the one-output loss, the shuffled batches of
plain tensors, `training` passed through the call context, callback dispatch and History."""

import math

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.callbacks._logs import to_python
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.compile_utils import LossesContainer, LossTracker
from torchestimator.keras.engine.data_adapter import ArrayData


@pytest.fixture(autouse=True)
def _seed():
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)


def half_mse(y_true, y_pred):
    return 0.5 * torch.mean(torch.square(y_pred - y_true), dim=-1)


def _linreg(n=100):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 1)).astype(np.float32)
    return x, (3 * x + 2).astype(np.float32)


def _model():
    model = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01), loss=half_mse)
    return model


# ------------------------------------------------------------------ the loss tracker
def _tracker_with(total, count, host=0.0, dtype=None):
    tracker = LossTracker("loss")
    if dtype is not None:
        tracker.total.data = tracker.total.data.to(dtype)
        tracker.count.data = tracker.count.data.to(dtype)
    tracker.total.assign(total)
    tracker.count.assign(count)
    tracker._host_count = host
    return tracker


@pytest.mark.parametrize("dtype", [None, torch.float64])
def test_python_result_is_the_float_of_result(dtype):
    # the host division must give exactly float(result()): float32 rounding, divide_no_nan
    rng = np.random.default_rng(1)
    cases = [(0.0, 0.0, 0.0), (float("nan"), 0.0, 0.0), (float("nan"), 3.0, 0.0),
             (float("inf"), 2.0, 0.0), (-float("inf"), 0.0, 5.0), (3.4e38, 0.25, 0.0),
             (1.0, 3.0, 0.0), (2.0, 0.0, 3.0), (1.0, 2.0 ** 24, 1.0)]
    cases += [(float(t), float(c), float(h)) for t, c, h in zip(
        rng.normal(scale=1e3, size=200), rng.integers(0, 10_000, 200), rng.integers(0, 500, 200))]
    for total, count, host in cases:
        expected = float(_tracker_with(total, count, host, dtype).result())
        got = _tracker_with(total, count, host, dtype).python_result()
        assert type(got) is float
        assert got == expected or (math.isnan(got) and math.isnan(expected)), (total, count, host)


def test_python_result_sees_state_changed_from_outside():
    tracker = LossTracker("loss")
    tracker.add_batch_loss(torch.tensor(2.0, device=tracker.total.device), 10)  # a step's loss
    assert tracker.python_result() == 2.0
    tracker.count.assign(40.0)  # the host count (10) is still to be added: 20 / 50
    assert tracker.python_result() == pytest.approx(0.4)
    tracker.set_weights([np.float32(6.0), np.float32(3.0)])
    assert tracker.python_result() == pytest.approx(6.0 / 13.0)
    tracker.reset_state()
    assert tracker.python_result() == 0.0


# ------------------------------------------------------------------ the one-output loss
@pytest.mark.parametrize("loss", [half_mse, "mse", "binary_crossentropy"])
@pytest.mark.parametrize("loss_weight", [None, 2.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_output_fast_path_matches_the_general_path(loss, loss_weight, weighted):
    rng = np.random.default_rng(2)
    y_pred = torch.from_numpy(rng.uniform(0.1, 0.9, size=(8, 1)).astype(np.float32))
    y_true = torch.from_numpy(rng.integers(0, 2, size=(8,)).astype(np.float64))  # rank 1, f64
    sw = torch.from_numpy(rng.uniform(size=(8,)).astype(np.float32)) if weighted else None
    fast = LossesContainer(loss, loss_weight, ["out"])
    general = LossesContainer(loss, loss_weight, ["out"])
    a = fast(y_true, y_pred, sw)  # plain tensors: the fast path
    b = general([y_true], [y_pred], [sw] if weighted else None)  # lists: the general path
    assert torch.equal(a, b)
    assert fast.total_tracker.python_result() == general.total_tracker.python_result()


def test_regularization_losses_take_the_general_path():
    container = LossesContainer(half_mse, None, ["out"])
    y = torch.ones(4, 1)
    total = container(y, y * 2, None, [torch.tensor(1.0)])
    assert float(total) == pytest.approx(1.5)


# ------------------------------------------------------------------ batches
def test_shuffled_batches_of_plain_tensors_keep_rows_together():
    n = 100
    x = np.arange(n, dtype=np.float32).reshape(n, 1)
    for batch_size in (99, 30):
        data = ArrayData(x, 2 * x[:, 0], 3 * x[:, 0], batch_size, shuffle=True)
        orders = []
        for _ in range(2):
            batches = list(data)
            assert [len(b[0]) for b in batches] == [min(batch_size, n - s) for s in range(0, n, batch_size)]
            bx = torch.cat([b[0] for b in batches])[:, 0]
            assert torch.equal(torch.cat([b[1] for b in batches]), 2 * bx)
            assert torch.equal(torch.cat([b[2] for b in batches]), 3 * bx)
            assert sorted(bx.tolist()) == list(range(n))
            orders.append(bx.tolist())
        assert orders[0] != orders[1]  # a new permutation each epoch
        assert orders[0] != list(range(n))


@pytest.mark.parametrize("batch_size", [100, 1000])
def test_one_batch_holding_every_sample_is_not_permuted(batch_size):
    # full-batch training: the rows of the one batch keep their order and no random number is
    # drawn (the permutation would only reorder rows inside the batch)
    x = np.arange(100, dtype=np.float32).reshape(100, 1)
    data = ArrayData(x, 2 * x[:, 0], None, batch_size, shuffle=True)
    state = torch.get_rng_state()
    (bx, by), = list(data)
    assert torch.equal(torch.get_rng_state(), state)
    assert bx[:, 0].tolist() == list(range(100)) and torch.equal(by, 2 * bx[:, 0])


def test_full_batch_fit_without_a_permutation_gives_the_shuffled_loss():
    x, y = _linreg()
    losses = []
    for shuffle in (True, False):
        tf.keras.utils.set_random_seed(0)
        model = _model()
        model.fit(x, y, batch_size=100, epochs=3, verbose=0, shuffle=shuffle)
        losses.append(model.history.history["loss"])
    assert losses[0] == losses[1]


def test_arrays_changed_in_place_between_fit_calls_are_seen():
    seen = []

    class Recording(tf.keras.Sequential):
        def train_step(self, data):
            seen.append(float(data[0].sum()))
            return super().train_step(data)

    x, y = _linreg(10)
    model = Recording([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=half_mse)
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    x += 1.0  # in place
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    assert seen[1] == pytest.approx(seen[0] + 10.0, rel=1e-5)


# ------------------------------------------------------------------ training flag
class _Flag(tf.keras.layers.Layer):
    def __init__(self, log, **kwargs):
        super().__init__(**kwargs)
        self.log = log

    def call(self, inputs, training=None):
        self.log.append(training)
        return inputs


def test_training_reaches_the_model_and_its_layers_through_the_call_context():
    log = []
    model = tf.keras.Sequential([tf.keras.Input(shape=(1,)), _Flag(log), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=half_mse)
    x, y = _linreg(8)
    log.clear()  # the calls that built the graph
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert log == [True, True]
    assert CONTEXT.training is None and CONTEXT.depth == 0
    log.clear()
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    assert log == [False, False]
    assert CONTEXT.training is None


def test_the_call_context_is_restored_when_the_model_raises():
    class Failing(tf.keras.layers.Layer):
        def call(self, inputs, training=None):
            if training:  # fails in training only (not while the graph is built)
                raise RuntimeError("boom")
            return inputs

    model = tf.keras.Sequential([tf.keras.Input(shape=(1,)), Failing()])
    model.compile(optimizer="sgd", loss=half_mse)
    x, y = _linreg(4)
    with pytest.raises(RuntimeError, match="boom"):
        model.fit(x, y, verbose=0)
    assert CONTEXT.training is None and CONTEXT.depth == 0


# ------------------------------------------------------------------ callbacks and logs
def test_history_holds_the_loss_trackers_float32_result():
    results = []

    class Read(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            results.append((logs["loss"], float(self.model.metrics[0].result())))

    model = _model()
    history = model.fit(*_linreg(), batch_size=30, epochs=3, verbose=0, callbacks=[Read()])
    assert [a for a, _ in results] == [b for _, b in results] == history.history["loss"]
    assert all(np.float32(v) == v for v in history.history["loss"])
    assert model.history is history


def test_a_callback_overriding_a_batch_hook_is_called():
    calls = []

    class Batches(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            calls.append(("train", batch, float(logs["loss"])))

    class Alias(tf.keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            calls.append(("alias", batch))

    _model().fit(*_linreg(), batch_size=50, epochs=2, verbose=0, callbacks=[Batches(), Alias()])
    assert [c[:2] for c in calls] == [("train", 0), ("alias", 0), ("train", 1), ("alias", 1)] * 2


def test_an_overridden_get_metrics_result_gives_the_epoch_logs():
    class Custom(tf.keras.Sequential):
        def get_metrics_result(self):
            return {**super().get_metrics_result(), "extra": torch.tensor(7.0)}

    model = Custom([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=half_mse)
    history = model.fit(*_linreg(), batch_size=100, epochs=2, verbose=0)
    assert history.history["extra"] == [7.0, 7.0] and len(history.history["loss"]) == 2


def test_history_puts_itself_back_on_the_model():
    class Clear(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.model.history = None

    model = _model()
    history = model.fit(*_linreg(), batch_size=100, epochs=2, verbose=0, callbacks=[Clear()])
    assert model.history is history


def test_to_python_copies_logs_that_are_already_python_numbers():
    logs = {"loss": 0.5, "epoch": 1, "name": "x", "none": None}
    out = to_python(logs)
    assert out == logs and out is not logs
    assert to_python({"loss": torch.tensor(0.25)}) == {"loss": 0.25}
    assert to_python({"loss": 0.5, "acc": np.float32(0.75)}) == {"loss": 0.5, "acc": 0.75}


def test_compiled_metrics_direct_updates_match_standalone_metrics():
    # fit/evaluate update mean metrics directly (one no_grad for all, `_update_plain`); other
    # metrics and subclasses overriding update_state keep their own update_state
    calls = []

    class Halved(tf.keras.metrics.MeanMetricWrapper):
        def __init__(self, **kwargs):
            super().__init__(tf.keras.metrics.categorical_accuracy, name="halved", **kwargs)

        def update_state(self, y_true, y_pred, sample_weight=None):
            calls.append(1)
            super().update_state(y_true, y_pred * 0.5, sample_weight)  # the same argmax

    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 5)).astype("float32")
    y = tf.keras.utils.to_categorical(rng.integers(0, 3, 96), 3)
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax", input_dim=5)])
    model.compile(loss="categorical_crossentropy", optimizer="sgd",
                  metrics=["accuracy", tf.keras.metrics.AUC(name="auc"), Halved(), "mse"])
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    results = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert calls  # the override ran
    predictions = model.predict(x, verbose=0)
    for name, metric in [("accuracy", tf.keras.metrics.CategoricalAccuracy()), ("auc", tf.keras.metrics.AUC()),
                         ("halved", tf.keras.metrics.CategoricalAccuracy()), ("mse", tf.keras.metrics.MeanSquaredError())]:
        metric.update_state(y, predictions)
        np.testing.assert_allclose(results[name], float(metric.result()), rtol=1e-5, atol=1e-6)


def test_one_full_batch_in_order_is_the_data_itself():
    x = np.arange(12, dtype="float32").reshape(6, 2)
    y = tf.keras.utils.to_categorical([0, 1, 2, 0, 1, 2], 3)
    data = ArrayData(x, y, None, batch_size=8, shuffle=False)
    (batch,) = list(data.batches())
    assert batch[0] is data.x and batch[1]._base is data.y  # no slice of x; y viewed to carry its ids
    assert not hasattr(data.y, "_keras_class_ids")  # the caller's tensor gets no attribute
    from torchestimator.keras.engine import one_hot_labels

    assert one_hot_labels.class_ids(batch[1]).tolist() == [0, 1, 2, 0, 1, 2]
    assert list(data.batches(skip=1)) == []
    smaller = ArrayData(x, y, None, batch_size=4, shuffle=False)
    assert [int(b[0].shape[0]) for b in smaller.batches()] == [4, 2]

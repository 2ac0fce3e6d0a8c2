"""compile / fit / evaluate / predict on the one training loop, ported from TF's guides
("Training & evaluation with the built-in methods", "Writing your own callbacks",
"Customizing what happens in fit", "Save and load Keras models") with generated data."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras import layers


@pytest.fixture(autouse=True)
def _seed():
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)


def _mnist_like(n=512, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 784)).astype("float32")
    w = rng.normal(size=(784, 10)).astype("float32")
    y = (x @ w).argmax(1)
    return x, y


def get_uncompiled_model():
    inputs = tf.keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    return tf.keras.Model(inputs=inputs, outputs=outputs)


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(
        optimizer="rmsprop",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )
    return model


def test_guide_fit_evaluate_predict_flow():
    x, y = _mnist_like()
    model = get_uncompiled_model()
    model.compile(
        optimizer=tf.keras.optimizers.RMSprop(),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(),
        metrics=[tf.keras.metrics.SparseCategoricalAccuracy()],
    )
    history = model.fit(x[:400], y[:400], batch_size=64, epochs=3, validation_data=(x[400:], y[400:]),
                        verbose=0)
    assert set(history.history) == {
        "loss", "sparse_categorical_accuracy", "val_loss", "val_sparse_categorical_accuracy"
    }
    assert len(history.history["loss"]) == 3
    assert history.history["loss"][-1] < history.history["loss"][0]
    results = model.evaluate(x[400:], y[400:], batch_size=128, verbose=0)
    assert len(results) == 2 and model.metrics_names == ["loss", "sparse_categorical_accuracy"]
    predictions = model.predict(x[:3], verbose=0)
    assert predictions.shape == (3, 10)
    np.testing.assert_allclose(predictions.sum(1), 1.0, rtol=1e-5)
    as_dict = model.evaluate(x[400:], y[400:], verbose=0, return_dict=True)
    assert set(as_dict) == {"loss", "sparse_categorical_accuracy"}


def test_accuracy_string_resolves_from_loss_and_shapes():
    x, y = _mnist_like(128)
    model = get_uncompiled_model()
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    logs = model.fit(x, y, epochs=1, verbose=0).history
    assert "accuracy" in logs
    assert type(model.metrics[-1]).__name__ == "SparseCategoricalAccuracy"
    model.compile("sgd", "categorical_crossentropy", metrics=["acc"])
    model.fit(x, tf.keras.utils.to_categorical(y, 10), epochs=1, verbose=0)
    assert type(model.metrics[-1]).__name__ == "CategoricalAccuracy"


def test_evaluate_without_metrics_returns_scalar_loss():
    x, y = _mnist_like(64)
    model = get_uncompiled_model()
    model.compile("adam", "sparse_categorical_crossentropy")
    assert isinstance(model.evaluate(x, y, verbose=0), float)


def test_validation_split_sample_weight_and_class_weight():
    x, y = _mnist_like(200)
    model = get_compiled_model()
    history = model.fit(x, y, batch_size=32, epochs=1, validation_split=0.2, verbose=0)
    assert "val_loss" in history.history
    weights = np.ones(len(y), dtype="float32")
    weights[y == 5] = 2.0
    model.fit(x, y, sample_weight=weights, epochs=1, verbose=0)
    model.fit(x, y, class_weight={i: 1.0 + (i == 5) for i in range(10)}, epochs=1, verbose=0)


def test_multi_input_multi_output_losses_by_name():
    rng = np.random.default_rng(1)
    title = rng.normal(size=(64, 8)).astype("float32")
    body = rng.normal(size=(64, 8)).astype("float32")
    a = tf.keras.Input(shape=(8,), name="title")
    b = tf.keras.Input(shape=(8,), name="body")
    merged = layers.concatenate([layers.Dense(4)(a), layers.Dense(4)(b)])
    priority = layers.Dense(1, name="priority")(merged)
    department = layers.Dense(3, name="department")(merged)
    model = tf.keras.Model([a, b], [priority, department])
    model.compile(
        optimizer="rmsprop",
        loss={"priority": "mse", "department": tf.keras.losses.CategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2},
        metrics={"department": ["accuracy"]},
    )
    dept = tf.keras.utils.to_categorical(rng.integers(0, 3, 64), 3)
    history = model.fit({"title": title, "body": body},
                        {"priority": rng.random((64, 1)).astype("float32"), "department": dept},
                        epochs=2, batch_size=16, verbose=0)
    assert {"loss", "priority_loss", "department_loss", "department_accuracy"} <= set(history.history)


def test_fit_accepts_dataset_generator_dataframe_and_tensors():
    pd = pytest.importorskip("pandas")
    x, y = _mnist_like(96)
    model = get_compiled_model()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2
    model.fit(torch.from_numpy(x), torch.from_numpy(y), epochs=1, verbose=0)
    small = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
    small.compile("sgd", "mse")
    frame = pd.DataFrame({"a": np.arange(8.0), "b": np.ones(8)})
    small.fit(frame, np.zeros(8), epochs=1, verbose=0)

    def gen():
        for i in range(0, 96, 32):
            yield x[i:i + 32], y[i:i + 32]

    model.fit(gen(), epochs=1, verbose=0)


def test_each_epoch_iterates_a_finite_dataset_again():
    """TF's `should_recreate_iterator`: a Dataset of known length (or a list of batches) is
    iterated again each epoch; with steps_per_epoch the epochs continue one iterator."""
    x, y = _mnist_like(96)
    model = get_compiled_model()
    batches = []
    spy = tf.keras.callbacks.LambdaCallback(on_train_batch_begin=lambda batch, logs: batches.append(batch))
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    model.fit(ds, epochs=3, verbose=0, callbacks=[spy])
    assert batches == [0, 1, 2] * 3
    batches.clear()
    model.fit([(x[:32], y[:32]), (x[32:64], y[32:64])], epochs=2, verbose=0, callbacks=[spy])
    assert batches == [0, 1] * 2
    batches.clear()
    seen = []
    model.fit(tf.data.Dataset.range(6).map(lambda i: (seen.append(int(i)) or x[:2], y[:2])),
              steps_per_epoch=2, epochs=3, verbose=0, callbacks=[spy])
    assert batches == [0, 1] * 3 and set(seen) == set(range(6))  # one iterator across the epochs
    assert int(model.optimizer.iterations) == 9 + 4 + 6


def test_error_paths():
    x, y = _mnist_like(32)
    model = get_uncompiled_model()
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match="adam|known|Unknown"):
        model.compile(optimizer="adamm", loss="mse")
    model.compile("sgd", "categorical_crossentropy")
    with pytest.raises(ValueError, match=r"\(32,? ?\d*\)|shape"):
        model.fit(x, np.zeros((32, 3), "float32"), verbose=0)
    with pytest.raises(ValueError, match="digits"):
        model.fit({"pixels": x}, y, verbose=0)


class CustomModel(tf.keras.Model):
    """The guide's "Customizing what happens in fit" model: a train_step with GradientTape."""

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_custom_train_step_with_gradient_tape():
    inputs = tf.keras.Input(shape=(32,))
    outputs = layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    x = rng.random((256, 32)).astype("float32")
    y = rng.random((256, 1)).astype("float32")
    history = model.fit(x, y, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert "mae" in history.history


class LossAndErrorPrintingCallback(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(("batch", batch, float(logs["loss"])))

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append(("epoch", epoch, logs["loss"]))


def test_custom_callback_sees_batches_and_epochs_and_can_stop():
    x, y = _mnist_like(128)
    model = get_compiled_model()
    cb = LossAndErrorPrintingCallback()
    model.fit(x, y, batch_size=64, epochs=2, verbose=0, callbacks=[cb])
    assert [s[0] for s in cb.seen] == ["batch", "batch", "epoch", "batch", "batch", "epoch"]

    class StopAtOne(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.model.stop_training = True

    history = model.fit(x, y, epochs=5, verbose=0, callbacks=[StopAtOne()])
    assert len(history.history["loss"]) == 1


def test_early_stopping_and_model_checkpoint(tmp_path):
    x, y = _mnist_like(128)
    model = get_compiled_model()
    ckpt = str(tmp_path / "mymodel_{epoch}.keras")
    model.fit(x, y, epochs=2, validation_split=0.25, verbose=0, callbacks=[
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=5),
        tf.keras.callbacks.ModelCheckpoint(filepath=ckpt),
    ])
    assert (tmp_path / "mymodel_1.keras").exists() and (tmp_path / "mymodel_2.keras").exists()
    restored = tf.keras.models.load_model(tmp_path / "mymodel_2.keras")
    np.testing.assert_allclose(restored.predict(x[:4], verbose=0), model.predict(x[:4], verbose=0), rtol=1e-6)


def test_save_load_continues_training_from_optimizer_state(tmp_path):
    x, y = _mnist_like(128)
    model = get_compiled_model()
    model.fit(x, y, epochs=1, verbose=0)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    assert loaded.optimizer.iterations == model.optimizer.iterations
    model.fit(x, y, epochs=1, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose(loaded.get_weights()[0], model.get_weights()[0], rtol=1e-5, atol=1e-6)


def test_save_weights_load_weights_and_errors(tmp_path):
    model = get_compiled_model()
    path = str(tmp_path / "w.weights.safetensors")
    model.save_weights(path)
    other = get_compiled_model()
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(FileNotFoundError):
        other.load_weights(str(tmp_path / "missing"))
    (tmp_path / "bad.keras").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="bad.keras"):
        tf.keras.models.load_model(tmp_path / "bad.keras")


def test_lambda_layer_needs_unsafe_mode(tmp_path):
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,)), layers.Lambda(lambda t: t * 2)])
    model.compile("sgd", "mse")
    path = tmp_path / "lambda.keras"
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode"):
        tf.keras.models.load_model(path)
    with pytest.warns(UserWarning):
        loaded = tf.keras.models.load_model(path, safe_mode=False)
    data = np.ones((1, 3), "float32")
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0))


def test_train_test_predict_on_batch_and_deprecated_helpers():
    x, y = _mnist_like(64)
    model = get_compiled_model()
    loss, acc = model.train_on_batch(x, y)
    assert np.isfinite(loss) and 0 <= acc <= 1
    assert len(model.test_on_batch(x, y)) == 2
    assert model.predict_on_batch(x[:2]).shape == (2, 10)
    with pytest.warns(UserWarning):
        classes = model.predict_classes(x[:5])
    assert classes.shape == (5,)
    with pytest.warns(UserWarning):
        model.fit(x, y, nb_epoch=1, verbose=0)


def test_regularization_losses_are_added():
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,), kernel_regularizer="l2")])
    model.compile("sgd", "mse")
    assert len(model.losses) == 1
    loss_with_reg = model.evaluate(np.zeros((4, 2)), np.zeros((4, 3)), verbose=0)
    assert loss_with_reg > 0


def test_progress_bar_format(capsys):
    x, y = _mnist_like(64)
    model = get_compiled_model()
    model.fit(x, y, batch_size=32, epochs=1, verbose=2)
    out = capsys.readouterr().out
    assert "2/2" in out and "loss:" in out and "sparse_categorical_accuracy:" in out


def test_add_loss_and_activity_regularizer_reach_the_training_loss():
    class ActivityLoss(layers.Layer):
        def call(self, inputs):
            self.add_loss(1000.0 * inputs.abs().mean())
            return inputs

    x = np.ones((8, 2), "float32")
    y = np.zeros((8, 1), "float32")
    plain = tf.keras.Sequential([layers.Dense(1, input_shape=(2,), kernel_initializer="ones")])
    plain.compile("sgd", "mse")
    base = plain.evaluate(x, y, verbose=0)
    with_loss = tf.keras.Sequential([layers.Dense(1, input_shape=(2,), kernel_initializer="ones"),
                                     ActivityLoss()])
    with_loss.compile("sgd", "mse")
    assert with_loss.evaluate(x, y, verbose=0) == pytest.approx(base + 2000.0, rel=1e-5)
    reg = tf.keras.Sequential([layers.Dense(1, input_shape=(2,), kernel_initializer="ones",
                                            activity_regularizer=tf.keras.regularizers.L1(1.0))])
    reg.compile("sgd", "mse")
    assert reg.evaluate(x, y, verbose=0) == pytest.approx(base + 2.0, rel=1e-5)


class CustomLearningRateScheduler(tf.keras.callbacks.Callback):
    """From the guide "Writing your own callbacks"."""

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        lr = float(tf.keras.backend.get_value(self.model.optimizer.learning_rate))
        scheduled_lr = self.schedule(epoch, lr)
        tf.keras.backend.set_value(self.model.optimizer.lr, scheduled_lr)


def test_guide_custom_learning_rate_scheduler():
    x, y = _mnist_like(64)
    model = get_compiled_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    model.fit(x, y, epochs=3, verbose=0,
              callbacks=[CustomLearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)])
    assert float(model.optimizer.learning_rate) == pytest.approx(0.025)


def test_fit_of_a_model_without_trainable_weights_trains_nothing_as_tf():
    """TF's subclassing guide fits `Input -> ActivityRegularizationLayer`: no trainable weight,
    a loss that needs no gradient; applying no gradients is a no-op in TF, not an error."""
    import numpy as np

    import torchestimator as tf

    class ActivityRegularization(tf.keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tf.reduce_sum(inputs))
            return inputs

    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, ActivityRegularization()(inputs))
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(np.ones((4, 3), "float32"), np.ones((4, 3), "float32"), verbose=0)
    assert history.history["loss"] == [pytest.approx(0.12)]
    assert int(model.optimizer.iterations) == 0


def test_a_sequential_names_the_input_it_makes_after_its_first_layer():
    import torchestimator as tf

    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), name="dense")])
    assert model.input_names == ["dense_input"]  # Keras 2.15's key for dicts and signatures
    deferred = tf.keras.Sequential([tf.keras.layers.Dense(2, name="first")])
    deferred.build((None, 3))
    assert deferred.input_names == ["first_input"]

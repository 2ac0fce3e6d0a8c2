"""What fit/evaluate do when the input is empty or ends before its steps (Keras 2.15's
DataHandler: `catch_stop_iteration`, `_insufficient_data`, and the "Empty logs" ValueError)."""

import logging

import numpy as np
import pytest

import torchestimator as tf

X = np.random.default_rng(0).normal(size=(8, 2)).astype("float32")
Y = np.random.default_rng(1).normal(size=(8, 1)).astype("float32")
RAN_OUT = "Your input ran out of data; interrupting training"


def _model(built: bool = True):
    layer = tf.keras.layers.Dense(1, input_shape=(2,)) if built else tf.keras.layers.Dense(1)
    model = tf.keras.Sequential([layer])
    model.compile("sgd", "mse")
    return model


def _four_batches():
    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(2)


def _fit_counting(model, data, **kwargs):
    """fit(); returns the number of steps each reported epoch made."""
    counts = []
    spy = tf.keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: counts.append(0),
        on_train_batch_end=lambda batch, logs: counts.__setitem__(-1, counts[-1] + 1))
    model.fit(data, verbose=0, callbacks=[spy], **kwargs)
    return counts


def test_fit_on_an_empty_dataset_raises():
    with pytest.raises(ValueError, match=r"Empty logs.*no batches"):
        _model().fit(_four_batches().take(0), verbose=0)
    with pytest.raises(ValueError, match=r"Empty logs.*no batches"):
        _model().fit(X[:0], Y[:0], verbose=0)


def test_evaluate_on_an_empty_dataset_raises():
    with pytest.raises(ValueError, match=r"evaluate\(\) received no data"):
        _model().evaluate(_four_batches().take(0), verbose=0)
    with pytest.raises(ValueError, match=r"validation_data.*no batches"):
        _model().fit(X, Y, validation_data=(X[:0], Y[:0]), verbose=0)


def test_steps_per_epoch_continues_the_dataset_and_stops_when_it_ends(caplog):
    """4 batches, steps_per_epoch=3: epoch 0 makes 3 steps, epoch 1 the last one, then the
    input has run out: a warning, and training stops (TF does not start the dataset again)."""
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        counts = _fit_counting(_model(), _four_batches(), steps_per_epoch=3, epochs=4)
    assert counts == [3, 1]
    assert RAN_OUT in caplog.text and "12 batches" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        counts = _fit_counting(_model(), _four_batches(), steps_per_epoch=6, epochs=4)
    assert counts == [4] and RAN_OUT in caplog.text


def test_an_unbuilt_model_does_not_lose_a_batch_to_its_build():
    seen = []
    data = tf.data.Dataset.range(4).map(lambda i: (seen.append(int(i)) or X[:2], Y[:2]))
    counts = _fit_counting(_model(built=False), data, steps_per_epoch=2, epochs=2)
    assert counts == [2, 2] and seen[-4:] == [0, 1, 2, 3]


def test_a_dataset_without_steps_per_epoch_is_iterated_every_epoch(caplog):
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        assert _fit_counting(_model(), _four_batches(), epochs=3) == [4, 4, 4]
        assert _fit_counting(_model(), _four_batches(), steps_per_epoch=4, epochs=2) == [4, 4]
        assert _fit_counting(_model(), _four_batches().repeat(), steps_per_epoch=3,
                             epochs=3) == [3, 3, 3]
    assert RAN_OUT not in caplog.text


def test_numpy_input_is_unaffected(caplog):
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        assert _fit_counting(_model(), X, y=Y, batch_size=2, epochs=3) == [4, 4, 4]
    assert RAN_OUT not in caplog.text


def test_a_generator_runs_out_after_its_first_epoch(caplog):
    """A generator cannot be iterated again: its first epoch gives the steps an epoch has (TF's
    inferred steps), the next one finds it exhausted: the warning, and training stops."""
    def batches():
        for i in range(0, 8, 2):
            yield X[i:i + 2], Y[i:i + 2]

    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        counts = _fit_counting(_model(), batches(), epochs=3)
    assert counts == [4, 0] and RAN_OUT in caplog.text


def test_each_validation_reads_its_input_from_the_start():
    seen = []
    data = tf.data.Dataset.range(4).map(lambda i: (seen.append(int(i)) or X[:2], Y[:2]))
    _model().fit(X, Y, epochs=3, validation_data=data, validation_steps=2, verbose=0)
    assert seen[-6:] == [0, 1] * 3

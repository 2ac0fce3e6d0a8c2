"""`tf.keras.utils.enable/disable/is_interactive_logging_enabled`: fit's progress output goes to
stdout, or to Python logging when interactive logging is off."""

from __future__ import annotations

import logging
import threading

import numpy as np
import pytest

import torchestimator as tf


@pytest.fixture
def model():
    tf.keras.utils.set_random_seed(0)
    m = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    return m


@pytest.fixture
def restore_logging():
    yield
    tf.keras.utils.enable_interactive_logging()


def _data():
    rng = np.random.RandomState(0)
    return rng.rand(16, 3).astype("float32"), rng.rand(16, 1).astype("float32")


def test_switch_and_thread_local(restore_logging):
    assert tf.keras.utils.is_interactive_logging_enabled() is True
    tf.keras.utils.disable_interactive_logging()
    assert tf.keras.utils.is_interactive_logging_enabled() is False
    seen = []
    t = threading.Thread(target=lambda: seen.append(tf.keras.utils.is_interactive_logging_enabled()))
    t.start()
    t.join()
    assert seen == [True]  # per thread, as Keras
    tf.keras.utils.enable_interactive_logging()
    assert tf.keras.utils.is_interactive_logging_enabled() is True


def test_fit_verbose_1_is_silenced_and_logged(model, capsys, caplog, restore_logging):
    x, y = _data()
    model.fit(x, y, epochs=2, batch_size=8, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "loss:" in out

    tf.keras.utils.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="torchestimator"):
        model.fit(x, y, epochs=2, batch_size=8, verbose=1)
    assert capsys.readouterr().out == ""
    messages = [r.getMessage() for r in caplog.records if r.name == "torchestimator"]
    assert "Epoch 2/2" in messages
    assert any("2/2" in m and "loss:" in m for m in messages)

    tf.keras.utils.enable_interactive_logging()
    model.fit(x, y, epochs=1, batch_size=8, verbose=1)
    assert "loss:" in capsys.readouterr().out


def test_callback_messages_follow_the_switch(model, capsys, caplog, restore_logging):
    x, y = _data()
    tf.keras.utils.disable_interactive_logging()
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=1e9, verbose=1)
    with caplog.at_level(logging.INFO, logger="torchestimator"):
        model.fit(x, y, epochs=3, batch_size=8, verbose=0, callbacks=[stop])
    assert capsys.readouterr().out == ""
    assert any("early stopping" in r.getMessage() for r in caplog.records)


def test_terminal_bar_logs_only_final_lines_when_disabled(monkeypatch, capsys, caplog,
                                                           restore_logging):
    from torchestimator.keras.callbacks import progbar

    monkeypatch.setattr(progbar, "dynamic_display", lambda: True)
    bar = tf.keras.utils.Progbar(3, interval=0.0)
    tf.keras.utils.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="torchestimator"):
        for step in (1, 2, 3):
            bar.update(step, [("loss", 0.5)])
    assert capsys.readouterr().out == ""
    lines = [r.getMessage() for r in caplog.records if r.name == "torchestimator"]
    assert len(lines) == 1 and lines[0].startswith("3/3") and "loss: 0.5000" in lines[0]

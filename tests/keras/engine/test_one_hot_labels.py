"""Exactly one-hot labels have their class ids recorded per `fit`/`evaluate` batch
(`keras/engine/one_hot_labels.py`; nothing is attached to the tensor): the crossentropy and
accuracy computed from the ids equal the soft-label forms, and labels that are not exactly
one-hot, or were written in place, take the general path."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.engine import one_hot_labels


@pytest.mark.parametrize("labels,expected", [
    (torch.eye(3)[[2, 0, 1, 1]], [2, 0, 1, 1]),
    (torch.tensor([[0.5, 0.5], [1.0, 0.0]]), None),  # soft
    (torch.tensor([[1.0, 1.0], [1.0, 0.0]]), None),  # two ones
    (torch.tensor([[0.0, 0.0], [1.0, 0.0]]), None),  # no one
    (torch.ones(4, 1), None),  # one column
    (torch.eye(3, dtype=torch.int64), None),  # integer labels
    (torch.zeros(0, 3), None),
])
def test_class_ids_only_for_exactly_one_hot_rows(labels, expected):
    ids = one_hot_labels.class_ids_of(labels)
    assert (ids is None) if expected is None else ids.tolist() == expected


def test_large_label_arrays_are_checked_in_chunks_or_not_at_all(monkeypatch):
    monkeypatch.setattr(one_hot_labels, "_CHUNK_ROWS", 3)
    labels = torch.eye(4)[[0, 3, 1, 2, 2, 0, 1]]
    assert one_hot_labels.class_ids_of(labels).tolist() == [0, 3, 1, 2, 2, 0, 1]
    labels[5, 1] = 1.0  # a bad row in the second chunk
    assert one_hot_labels.class_ids_of(labels) is None
    monkeypatch.setattr(one_hot_labels, "MAX_CHECKED_ELEMENTS", 27)
    assert one_hot_labels.class_ids_of(torch.eye(4)[[0] * 7]) is None  # 28 values: not checked


def test_a_label_batch_written_in_place_loses_its_ids():
    labels = torch.eye(3)[[1, 2]]
    one_hot_labels.record(labels, torch.tensor([1, 2]))
    assert one_hot_labels.class_ids(labels).tolist() == [1, 2]
    labels.mul_(0.9).add_(0.05)  # label smoothing in place
    assert one_hot_labels.class_ids(labels) is None


def _fit(monkeypatch, tagged, **fit_kwargs):
    if not tagged:
        monkeypatch.setattr(one_hot_labels, "class_ids_of", lambda labels: None)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 6)).astype("float32")
    y = tf.keras.utils.to_categorical(rng.integers(0, 4, 200), 4)
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_dim=6),
                                 tf.keras.layers.Dense(4, activation="softmax")])
    model.compile(loss="categorical_crossentropy", optimizer="sgd", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, **fit_kwargs).history
    return history, model.evaluate(x, y, batch_size=32, verbose=0)


@pytest.mark.parametrize("fit_kwargs", [{}, {"validation_split": 0.25}, {"shuffle": False}])
def test_fit_and_evaluate_with_class_ids_equal_the_soft_label_path(monkeypatch, fit_kwargs):
    seen = []
    real = one_hot_labels.class_ids
    def spy(labels):
        ids = real(labels)
        seen.append(ids is not None)
        return ids

    monkeypatch.setattr(one_hot_labels, "class_ids", spy)
    tagged = _fit(monkeypatch, True, **fit_kwargs)
    assert any(seen)  # the ids were used
    plain = _fit(monkeypatch, False, **fit_kwargs)
    assert tagged[0].keys() == plain[0].keys()
    for key in plain[0]:
        np.testing.assert_allclose(tagged[0][key], plain[0][key], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tagged[1], plain[1], rtol=1e-5, atol=1e-6)

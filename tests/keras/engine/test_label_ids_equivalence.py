"""One-hot labels as class ids (`keras/engine/one_hot_labels.py`): decided once per `fit` on the
whole label array, recorded per batch by the data adapter, nothing attached to the tensors.
The fast path equals the general one, and labels that are not the adapter's unwritten batches
(a new tensor, labels written in place by a `train_step`, soft labels) take the general path
(issue 27, `docs/contributing.md`'s fast-path table)."""

import gc

import numpy as np
import torch

import torchestimator as tf
from torchestimator.keras.engine import one_hot_labels
from torchestimator.keras.engine.data_adapter import ArrayData


def test_only_the_recorded_tensor_unwritten_has_ids():
    labels = torch.eye(3)[[2, 0, 1]]
    assert one_hot_labels.record(labels, torch.tensor([2, 0, 1])) is labels
    assert one_hot_labels.class_ids(labels).tolist() == [2, 0, 1]
    assert one_hot_labels.class_ids(labels.clone()) is None  # same values, another tensor
    assert one_hot_labels.class_ids(labels[:]) is None  # a view is another tensor
    assert not hasattr(labels, "_keras_class_ids") and labels.__dict__ == {}  # nothing on the tensor
    labels[0, 0] = 0.0  # written in place
    assert one_hot_labels.class_ids(labels) is None


def test_a_freed_label_batch_leaves_no_record():
    labels = torch.eye(4)[[1, 3]]
    one_hot_labels.record(labels, torch.tensor([1, 3]))
    key = id(labels)
    assert key in one_hot_labels._BATCHES
    del labels
    gc.collect()
    entry = one_hot_labels._BATCHES.get(key)
    assert entry is None or entry.labels() is not None  # dropped (or the id was reused by another)


def test_the_adapter_records_each_batch_it_yields_and_only_for_one_hot_labels():
    x = np.arange(40, dtype="float32").reshape(20, 2)
    y = tf.keras.utils.to_categorical(np.arange(20) % 3, 3)
    for data in (ArrayData(x, y, None, 6, shuffle=True), ArrayData(x, y, None, 6, shuffle=False)):
        for _, y_batch in data:
            assert torch.equal(one_hot_labels.class_ids(y_batch), y_batch.argmax(1))
    soft = y * 0.9 + 0.1 / 3  # labels that are not ids
    assert ArrayData(x, soft, None, 6, shuffle=True).class_ids is None
    for _, y_batch in ArrayData(x, soft, None, 6, shuffle=True):
        assert one_hot_labels.class_ids(y_batch) is None


class _Smoothing(tf.keras.Model):
    """Label smoothing in the train step: in place (`in_place`) or as a new tensor."""

    def __init__(self, in_place):
        super().__init__()
        self.in_place = in_place
        self.hidden = tf.keras.layers.Dense(8, activation="relu")
        self.out = tf.keras.layers.Dense(4, activation="softmax")

    def call(self, x):
        return self.out(self.hidden(x))

    def train_step(self, data):
        x, y = data
        y = y.mul_(0.8).add_(0.05) if self.in_place else y * 0.8 + 0.05
        return super().train_step((x, y))


def _fit(in_place):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 6)).astype("float32")
    y = tf.keras.utils.to_categorical(rng.integers(0, 4, 96), 4)
    tf.keras.utils.set_random_seed(3)
    model = _Smoothing(in_place)
    model.compile(loss="categorical_crossentropy", optimizer="sgd", metrics=["accuracy"])
    return model.fit(x, y, batch_size=16, epochs=2, verbose=0).history


def test_labels_written_in_place_by_a_train_step_take_the_general_path(monkeypatch):
    used = []
    real = one_hot_labels.class_ids

    def spy(labels):
        ids = real(labels)
        used.append(ids is not None)
        return ids

    monkeypatch.setattr(one_hot_labels, "class_ids", spy)
    in_place = _fit(True)
    assert used and not any(used)  # every smoothed batch took the soft-label path
    new_tensor = _fit(False)
    assert in_place.keys() == new_tensor.keys()
    for key in in_place:
        np.testing.assert_allclose(in_place[key], new_tensor[key], rtol=1e-6, atol=1e-7)

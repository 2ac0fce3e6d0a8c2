"""`pad_sequences` (Keras 2.15's documented examples and errors) and `keras.utils.Sequence`
through `fit`/`evaluate`/`predict`."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf

SEQUENCE = [[1], [2, 3], [4, 5, 6]]


def test_pad_sequences_documented_examples():
    pad = tf.keras.preprocessing.sequence.pad_sequences
    assert pad is tf.keras.utils.pad_sequences
    out = pad(SEQUENCE)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[0, 0, 1], [0, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQUENCE, value=-1), [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQUENCE, padding="post"), [[1, 0, 0], [2, 3, 0], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQUENCE, maxlen=2), [[0, 1], [2, 3], [5, 6]])
    np.testing.assert_array_equal(pad(SEQUENCE, maxlen=2, truncating="post"), [[0, 1], [2, 3], [4, 5]])


def test_pad_sequences_dtypes_and_shapes():
    pad = tf.keras.utils.pad_sequences
    floats = pad([[1.5], [2.5, 3.5]], dtype="float32", value=0.5)
    np.testing.assert_allclose(floats, [[0.5, 1.5], [2.5, 3.5]])
    words = pad([["a"], ["b", "c"]], dtype=object, value="<pad>")
    assert words.dtype == object and words.tolist() == [["<pad>", "a"], ["b", "c"]]
    assert pad([[], [1, 2]]).tolist() == [[0, 0], [1, 2]]
    vectors = pad([np.ones((1, 2)), np.ones((3, 2))])
    assert vectors.shape == (2, 3, 2) and vectors[0, 0].tolist() == [0, 0]


def test_pad_sequences_errors():
    pad = tf.keras.utils.pad_sequences
    with pytest.raises(ValueError, match="`sequences` must be iterable"):
        pad(5)
    with pytest.raises(ValueError, match="must be a list of iterables. Found non-iterable: 3"):
        pad([[1], 3])
    with pytest.raises(ValueError, match="set `dtype=object` for variable length strings"):
        pad([["a"]], value="x")
    with pytest.raises(ValueError, match='Truncating type "mid" not understood'):
        pad(SEQUENCE, truncating="mid")
    with pytest.raises(ValueError, match='Padding type "mid" not understood'):
        pad(SEQUENCE, padding="mid")
    with pytest.raises(ValueError, match="is different from expected shape"):
        pad([np.ones((1, 2)), np.ones((1, 3))])


class _Batches(tf.keras.utils.Sequence):
    def __init__(self, batches: int = 4, size: int = 8):
        self.batches, self.size = batches, size
        self.epoch_ends = 0
        self.read: list[int] = []

    def __len__(self) -> int:
        return self.batches

    def __getitem__(self, index: int):
        self.read.append(index)
        x = np.random.default_rng(index).normal(size=(self.size, 3)).astype("float32")
        return x, x.sum(axis=1, keepdims=True)

    def on_epoch_end(self) -> None:
        self.epoch_ends += 1


def _model():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_sequence_through_fit_counts_epoch_ends():
    seq, model = _Batches(), _model()
    history = model.fit(seq, epochs=3, verbose=0, shuffle=False, workers=2, max_queue_size=4,
                        use_multiprocessing=False)
    assert len(history.history["loss"]) == 3
    assert seq.epoch_ends == 3
    assert seq.read == [0, 1, 2, 3] * 3


def test_sequence_shuffle_reorders_batches_each_epoch():
    seq, model = _Batches(batches=6), _model()
    model.fit(seq, epochs=5, verbose=0)  # shuffle=True by default
    epochs = [seq.read[i:i + 6] for i in range(0, 30, 6)]
    assert all(sorted(order) == list(range(6)) for order in epochs)
    assert any(order != list(range(6)) for order in epochs)


def test_sequence_evaluate_predict_and_steps():
    seq, model = _Batches(), _model()
    loss = model.evaluate(seq, verbose=0)
    assert np.isfinite(loss) and seq.epoch_ends == 1
    assert model.predict(seq, verbose=0).shape == (32, 1) and seq.epoch_ends == 2
    assert seq.read == [0, 1, 2, 3] * 2
    seq.read.clear()
    model.fit(seq, epochs=2, steps_per_epoch=2, shuffle=False, verbose=0)
    assert seq.read == [0, 1, 0, 1] and seq.epoch_ends == 4
    with pytest.raises(ValueError, match="`y` argument is not supported"):
        model.fit(seq, np.zeros(3), verbose=0)


def test_sequence_base_class():
    with pytest.raises(NotImplementedError):
        len(tf.keras.utils.Sequence())
    seq = _Batches(batches=2)
    assert [x.shape for x, _ in seq] == [(8, 3), (8, 3)]

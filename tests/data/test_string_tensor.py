"""String components from `iter(dataset)` have TF's `.numpy()`: an object array of UTF-8 bytes
(bytes for a scalar), and behave otherwise as plain numpy arrays / str."""

from __future__ import annotations

import pickle

import numpy as np

import torchestimator as tf
from torchestimator.data.encoded_strings import MIN_ROWS, EncodedStrings
from torchestimator.data.string_tensor import StringScalar, StringTensor


def test_a_text_batch_from_a_directory_reads_as_tfs_bytes(tmp_path):
    for label, text in (("neg", "bad film"), ("pos", "grand café")):
        (tmp_path / label).mkdir()
        (tmp_path / label / "1.txt").write_text(text, encoding="utf-8")
    ds = tf.keras.utils.text_dataset_from_directory(str(tmp_path), batch_size=2, shuffle=False)
    for text_batch, label_batch in ds.take(1):
        array = text_batch.numpy()
        assert type(array) is np.ndarray and array.dtype == object
        assert array.tolist() == [b"bad film", "grand café".encode()]
        assert label_batch.numpy().tolist() == [0, 1]
        assert text_batch[0] == "bad film" and isinstance(text_batch, StringTensor)


def test_text_lines_read_as_bytes_batched_or_not(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("first\nsecond\nthird\n")
    lines = [line.numpy() for line in tf.data.TextLineDataset(str(path))]
    assert lines == [b"first", b"second", b"third"]
    batch = next(iter(tf.data.TextLineDataset(str(path)).batch(2)))
    assert batch.numpy().tolist() == [b"first", b"second"]


def test_a_string_batch_behaves_as_a_plain_array():
    batch = next(iter(tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).batch(3)))
    assert type(batch) is StringTensor and batch.dtype == object
    assert repr(batch) == repr(np.array(["a", "b", "c"], dtype=object))
    assert type(batch == "a") is np.ndarray and (batch == "a").tolist() == [True, False, False]
    assert type(np.asarray(batch)) is np.ndarray and type(np.concatenate([batch, batch])) is np.ndarray
    assert type(batch[1:]) is StringTensor and isinstance(batch[0], str)
    assert type(batch[0]) is StringScalar and batch[0].numpy() == b"a"  # TF: `t[0].numpy()`
    assert type(pickle.loads(pickle.dumps(batch))) is np.ndarray
    assert batch.numpy().shape == (3,) and batch.tolist() == ["a", "b", "c"]


def test_a_rank_2_string_batch_keeps_its_shape():
    data = np.array([["a", "b"], ["c", "d"], ["e", "f"]], dtype=object)
    batch = next(iter(tf.data.Dataset.from_tensor_slices(data).batch(2)))
    assert batch.numpy().tolist() == [[b"a", b"b"], [b"c", b"d"]]


def test_a_dictionary_encoded_batch_keeps_its_codes_and_reads_as_bytes():
    strings = np.array([f"v{i % 7}" for i in range(MIN_ROWS * 2)], dtype=object)
    batch = next(iter(tf.data.Dataset.from_tensor_slices(strings).batch(8)))
    assert type(batch) is EncodedStrings and batch.codes is not None
    assert batch.numpy().tolist() == [s.encode() for s in strings[:8]]


def test_a_scalar_string_is_a_str_with_numpy():
    line = next(iter(tf.data.Dataset.from_tensor_slices(["x", "y"])))
    assert isinstance(line, str) and type(line) is StringScalar and line == "x"
    assert line.numpy() == b"x" and {line: 1}["x"] == 1
    assert type(pickle.loads(pickle.dumps(line))) is str


def test_numeric_elements_are_untouched_and_as_numpy_iterator_keeps_str():
    ds = tf.data.Dataset.from_tensor_slices(({"n": [1, 2]}, ["a", "b"]))
    features, label = next(iter(ds))
    assert features["n"].numpy() == 1 and label.numpy() == b"a"
    assert next(ds.as_numpy_iterator())[1] == "a"

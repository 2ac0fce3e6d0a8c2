"""TensorFlow 2.15 tutorials (batch B) in examples/tutorials/ run, unchanged but for the import
line, generated data and fewer epochs, each in its own process (HOME, KERAS_HOME, TMPDIR and
the working folder in a temporary directory), and print what the tutorial shows."""

from __future__ import annotations

import os
import pathlib
import re

import pytest
from _runner import EXAMPLES, run_example

TUTORIALS = EXAMPLES / "tutorials"


def _run(name: str, tmp_path: pathlib.Path, timeout: int = 600) -> str:
    """Runs examples/tutorials/`name`; returns its standard output (the test fails, showing
    both streams, unless it exits 0)."""
    return run_example(TUTORIALS / name, tmp_path, timeout)


def test_custom_training_walkthrough(tmp_path):
    out = _run("custom_training_walkthrough.py", tmp_path)
    first, last = (float(v) for v in re.findall(r"Epoch 0[05]0: Loss: ([\d.]+)", out))
    assert last < first  # 51 epochs of SGD (the accuracy reached depends on the initial weights)
    assert re.search(r"Test set accuracy: [\d.]+%", out)
    assert len(re.findall(r"Example \d prediction: Iris \w+ \(", out)) == 3


def test_structured_data_preprocessing_layers(tmp_path):
    out = _run("structured_data.py", tmp_path)
    assert "Every feature: ['Type', 'Age', 'Breed1'" in out
    assert re.search(r"had a \d+\.\d percent probability of getting adopted", out)
    assert (tmp_path / "my_pet_classifier.keras").is_file()


def test_word_embeddings(tmp_path):
    out = _run("word_embeddings.py", tmp_path)
    assert "Found 400 files belonging to 2 classes." in out and "Using 80 files for validation." in out
    assert "Model failed to serialize" not in out  # custom_standardization is saved by name
    assert "(10000, 16)" in out and "['', '[UNK]'" in out
    vectors = (tmp_path / "vectors.tsv").read_text().splitlines()
    assert len(vectors) == len((tmp_path / "metadata.tsv").read_text().splitlines()) > 0
    assert len(vectors[0].split("\t")) == 16
    assert sorted(os.listdir(tmp_path / "logs")) == ["train", "validation"]


@pytest.mark.slow
def test_save_and_load(tmp_path):
    out = _run("save_and_load.py", tmp_path)
    assert "['.cp.ckpt.lock', 'checkpoint', 'cp.ckpt']" in out
    assert "training_2/cp-0010.ckpt" in out  # tf.train.latest_checkpoint
    assert "['model.keras', 'program.json', 'saved_model.json', 'variables.safetensors']" in out
    assert out.count("Restored model, accuracy:") == 6
    assert "custom objects OK" in out


@pytest.mark.slow
def test_text_generation(tmp_path):
    out = _run("text_generation.py", tmp_path)
    assert "<tf.RaggedTensor [[b'a', b'b', b'c'" in out
    assert "# (batch_size, sequence_length, vocab_size)" in out
    assert out.count("ROMEO:") >= 6  # one sample and a batch of five
    assert "saved_model.save/load refused" in out  # only Keras models' `call` is exported
    assert re.search(r"Epoch 2 Loss: \d\.\d{4}", out)
    assert "'checkpoint', 'ckpt_1', 'ckpt_2', 'ckpt_3'" in out


@pytest.mark.slow
def test_autoencoder(tmp_path):
    out = _run("autoencoder.py", tmp_path)
    assert "(128, 64) (128, 28, 28)" in out and "(128, 7, 7, 8) (128, 28, 28, 1)" in out
    assert "['loss', 'val_loss']" in out
    assert float(re.search(r"Threshold:  ([\d.]+)", out).group(1)) > 0.0
    assert re.search(r"Accuracy = [\d.]+\nPrecision = [\d.]+\nRecall = [\d.]+", out)

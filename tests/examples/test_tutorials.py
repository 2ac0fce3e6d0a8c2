"""The tutorial-shaped programs in examples/ run offline, unchanged, on small synthetic data in
the downloads' exact names and layouts (tests/examples/_synthetic.py), and learn the planted
rule. Each runs in its own process with HOME, KERAS_HOME, TMPDIR and the working folder in a
temporary directory, so `get_file` finds the files cached and downloads nothing."""

from __future__ import annotations

import pathlib
import re

import pytest
from _runner import EXAMPLES, run_example
from _synthetic import (
    write_cats_and_dogs_zip,
    write_flower_archive,
    write_imdb_archive,
    write_iris_csvs,
    write_mnist_npz,
    write_mobilenet_v2_weights,
    write_petfinder_zip,
)


def _run(name: str, tmp_path: pathlib.Path, timeout: int = 300, prelude: str = "") -> str:
    """Runs examples/`name` in its own process; `prelude` (Python) runs first in that process."""
    return run_example(EXAMPLES / name, tmp_path, timeout, prelude)


def test_premade_estimator_guide(tmp_path):
    write_iris_csvs(str(tmp_path / ".keras" / "datasets"))
    out = _run("premade_estimator.py", tmp_path)
    accuracy = float(re.search(r"Test set accuracy: ([0-9.]+)", out).group(1))
    assert accuracy >= 0.8, out[-1500:]
    predictions = re.findall(r'Prediction is "(\w+)" \(([0-9.]+)%\), expected "(\w+)"', out)
    assert len(predictions) == 3 and sum(p == e for p, _, e in predictions) >= 2, out[-1500:]


@pytest.mark.slow
def test_text_classification_tutorial(tmp_path):
    write_imdb_archive(str(tmp_path), per_class_train=300, per_class_test=100)
    out = _run("text_classification.py", tmp_path)
    accuracy = float(re.search(r"Export model accuracy on raw text: ([0-9.]+)", out).group(1))
    assert accuracy >= 0.9, out[-1500:]
    great, okay, terrible = (float(v) for v in re.search(
        r"Predictions: \[([0-9.e-]+), ([0-9.e-]+), ([0-9.e-]+)\]", out).groups())
    assert great > terrible, out[-1500:]


@pytest.mark.slow
def test_image_classification_tutorial(tmp_path):
    write_flower_archive(str(tmp_path / ".keras" / "datasets"), per_class=8)
    out = _run("image_classification.py", tmp_path)
    assert "Classes: ['daisy', 'dandelion', 'roses', 'sunflowers', 'tulips']" in out, out[-1500:]
    assert float(re.search(r"Final validation accuracy: ([0-9.]+)", out).group(1)) >= 0.8, out[-1500:]
    assert re.search(r"This image most likely belongs to sunflowers", out), out[-1500:]


@pytest.mark.slow
def test_mnist_quickstart(tmp_path):
    digest = write_mnist_npz(str(tmp_path / ".keras" / "datasets"), n_train=1000, n_test=200)
    # The one stand-in: the synthetic mnist.npz has its own sha256, which load_data must accept
    # (with Keras's real hash, get_file would take the cached file as outdated and download).
    prelude = ("import torchestimator.keras.datasets.mnist as mnist_module\n"
               f"mnist_module._FILE_HASH = {digest!r}\n")
    out = _run("mnist_quickstart.py", tmp_path, prelude=prelude)
    assert "Downloading" not in out, out[-1500:]
    assert float(re.search(r"Test accuracy: ([0-9.]+)", out).group(1)) >= 0.9, out[-1500:]
    low, high = (float(v) for v in re.search(r"Probability range: ([0-9.e-]+) ([0-9.e-]+)", out).groups())
    assert 0.0 <= low < high <= 1.0, out[-1500:]
    assert "Rows sum to: [1. 1. 1. 1. 1.]" in out, out[-1500:]
    predicted = re.search(r"Predicted digits: \[([0-9 ]+)\]", out).group(1).split()
    assert predicted == re.search(r"Predicted digits \(tensor\): \[([0-9 ]+)\]", out).group(1).split()
    expected = re.search(r"True digits: \[([0-9 ]+)\]", out).group(1).split()
    assert sum(p == e for p, e in zip(predicted, expected)) >= 4, out[-1500:]
    assert re.search(r"Mean test pixel: 0\.[0-9]+", out), out[-1500:]


@pytest.mark.slow
def test_preprocessing_layers_tutorial(tmp_path):
    write_petfinder_zip(str(tmp_path / "datasets"))  # get_file(..., cache_dir='.') looks here
    out = _run("preprocessing_layers.py", tmp_path)
    assert "2400 training examples" in out and "300 test examples" in out, out[-1500:]
    assert "'target'" in out.split("Every feature:")[1].split("\n")[0], out[-1500:]  # TF's quirk
    result = re.search(r"\{'loss': ([0-9.e-]+), 'accuracy': ([0-9.]+)\}", out)
    assert float(result.group(2)) >= 0.75, out[-1500:]
    assert (tmp_path / "my_pet_classifier.keras").is_file()
    unvaccinated = float(re.search(r"had a ([0-9.]+) percent probability", out).group(1))
    vaccinated = float(re.search(r"Vaccinated, with a fee of 20: a ([0-9.]+) percent", out).group(1))
    assert unvaccinated < 50.0 and vaccinated > unvaccinated + 10.0, out[-1500:]
    rounded = re.search(r"Test predictions \(rounded\): \[([0-9. ]+)\]", out).group(1).split()
    assert len(rounded) == 5 and all(0.0 <= float(v) <= 1.0 for v in rounded), out[-1500:]


@pytest.mark.slow
def test_masking_and_padding_guide(tmp_path):
    out = _run("masking_and_padding.py", tmp_path)
    assert "[[ 711  632   71    0    0    0]" in out, out[-1500:]
    masks = re.findall(r"tensor\(\[\[ True,  True,  True, False, False, False\]", out)
    assert len(masks) == 2, out[-1500:]  # Embedding(mask_zero=True) and Masking()
    assert float(re.search(r"Test accuracy: ([0-9.]+)", out).group(1)) >= 0.9, out[-1500:]
    assert re.search(r"Padding-independent: True 0\.9", out), out[-1500:]


@pytest.mark.slow
def test_transfer_learning_tutorial(tmp_path):
    write_cats_and_dogs_zip(str(tmp_path / ".keras" / "datasets"))
    write_mobilenet_v2_weights(str(tmp_path / ".keras" / "models"))
    out = _run("transfer_learning.py", tmp_path, timeout=1500)
    accuracy = float(re.search(r"Test accuracy : ([0-9.]+)", out).group(1))
    assert accuracy >= 0.8, out[-2000:]

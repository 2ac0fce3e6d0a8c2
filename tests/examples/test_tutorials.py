"""The tutorial-shaped programs in examples/ run offline, unchanged, on small synthetic data in
the downloads' exact names and layouts (tests/examples/_synthetic.py), and learn the planted
rule. Each runs in its own process with HOME, KERAS_HOME, TMPDIR and the working folder in a
temporary directory, so `get_file` finds the files cached and downloads nothing."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest
from _synthetic import write_flower_archive, write_imdb_archive, write_iris_csvs

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _run(name: str, tmp_path: pathlib.Path, timeout: int = 300) -> str:
    env = {**os.environ, "HOME": str(tmp_path), "KERAS_HOME": str(tmp_path / ".keras"),
           "TMPDIR": str(tmp_path), "TORCHESTIMATOR_PROGRESS": "0"}
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result.stdout


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

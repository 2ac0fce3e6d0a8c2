"""`convert-checkpoint` (the command and `tf.migration.convert_checkpoint`): a TensorFlow
model_dir written once in our format; an Estimator then continues from the converted folder
exactly as from TF's (optimizer slots included); `inspect-checkpoint` reads both formats."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from _fixtures import ROOT, build, features, labels, predict, predictions

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt
from torchestimator.cli import main
from torchestimator.migration import convert_checkpoint

KEYS = ["age", "city", "color", "hours"]


def test_convert_then_continue_training_as_from_tf(tmp_path):
    out = str(tmp_path / "converted")
    written = convert_checkpoint(os.path.join(ROOT, "v1_linear_classifier"), out)
    assert written == [os.path.join(out, "model.ckpt-5")]
    assert sorted(os.listdir(out)) == ["checkpoint", "model.ckpt-5.json", "model.ckpt-5.safetensors"]
    _, meta = ckpt.load_checkpoint(out)
    assert meta["format"] == "torchestimator.checkpoint" and meta["extra"]["source_format"] == "tensorflow"
    source = os.path.join(ROOT, "v1_linear_classifier")
    for name, shape in tf.train.list_variables(source):
        np.testing.assert_array_equal(tf.train.load_variable(out, name), tf.train.load_variable(source, name))
        assert tf.train.load_checkpoint(out).get_variable_to_shape_map()[name] == shape

    estimator = build("v1_linear_classifier", out)
    x, y = features("train", KEYS), labels("train", "class")
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8), steps=3)
    expected = predictions("v1_linear_classifier")["continued/logits"]
    np.testing.assert_allclose(predict(estimator, KEYS)["logits"], expected, rtol=2e-5, atol=2e-5)


@pytest.mark.slow  # a fresh interpreter imports torch
def test_convert_checkpoint_command_in_a_real_process(tmp_path):
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "torchestimator", "convert-checkpoint",
                          os.path.join(ROOT, "dnn_regressor"), str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"wrote {out / 'model.ckpt-5'}"
    assert tf.train.latest_checkpoint(str(out)) == str(out / "model.ckpt-5")
    # converting again into the same folder is refused, naming the file
    assert main(["convert-checkpoint", os.path.join(ROOT, "dnn_regressor"), str(out)]) == 1


def test_convert_errors_name_the_source(tmp_path, capsys):
    assert main(["convert-checkpoint", str(tmp_path / "nothing"), str(tmp_path / "out")]) == 1
    assert "nothing" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no TensorFlow checkpoint"):
        convert_checkpoint(str(tmp_path / "empty"), str(tmp_path / "out"))


def test_inspect_checkpoint_reads_a_tf_model_dir_and_its_conversion(tmp_path, capsys):
    source = os.path.join(ROOT, "dnn_classifier")
    assert main(["inspect-checkpoint", source]) == 0
    tf_listing = capsys.readouterr().out
    assert "dnn/hiddenlayer_0/kernel (12,8)" in tf_listing
    assert "training/Adagrad/dnn/logits/kernel/accumulator (4,3)" in tf_listing
    convert_checkpoint(source, str(tmp_path / "ours"))
    assert main(["inspect-checkpoint", str(tmp_path / "ours")]) == 0
    assert capsys.readouterr().out == tf_listing
    assert main(["inspect-checkpoint", source, "--tensor", "global_step"]) == 0
    assert capsys.readouterr().out.strip().endswith("5")

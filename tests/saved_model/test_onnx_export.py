"""ONNX as a second format: the export's tensor part runs in onnxruntime with outputs equal to
the loaded export's program within 1e-5."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from _export_testlib import RAW_SPECS, Y_MULTI, columns, input_fn, rows
from torch.utils import _pytree as pytree

import torchestimator as tf

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")


@pytest.mark.slow
def test_onnx_program_equals_the_exported_program(tmp_path):
    dense, _ = columns()
    estimator = tf.estimator.DNNClassifier([8, 4], dense, n_classes=3, model_dir=str(tmp_path / "m"))
    estimator.train(input_fn(Y_MULTI), steps=3)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(RAW_SPECS)
    path = os.fsdecode(estimator.export_saved_model(str(tmp_path / "e"), receiver))
    onnx_path = tf.estimator.experimental.export_onnx(path)
    names = json.loads(open(os.path.join(path, "model.onnx.json")).read())
    loaded = tf.saved_model.load(path)
    runtime = loaded._runtime
    batch = rows(0, 11)
    features = runtime.receiver.features_from_inputs(batch, "predict")
    with torch.no_grad():
        preprocessed = [layer(features) for layer in runtime.layers]
        expected = runtime.run(features)
    feeds = {}
    session = ort.InferenceSession(onnx_path)
    onnx_inputs = [i.name for i in session.get_inputs()]
    for onnx_name, name in zip(onnx_inputs, names["inputs"]):
        kind, _, rest = name.partition(":")
        if kind == "feature":
            value = features[rest]
        else:
            call, leaf = (int(v) for v in rest.split(":"))
            value = pytree.tree_leaves(preprocessed[call])[leaf]
        feeds[onnx_name] = value.numpy()
    outputs = session.run(None, feeds)
    assert len(outputs) == len(names["outputs"])
    for value, name in zip(outputs, names["outputs"]):
        np.testing.assert_allclose(value, expected[name].numpy(), rtol=1e-5, atol=1e-5, err_msg=name)
    assert "predict/probabilities" in names["outputs"]

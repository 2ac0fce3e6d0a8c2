"""`preprocess_input` / `decode_predictions` against TF 2.15's values (the class index JSON is
served by a local http.server and fetched with `get_file`, its hash patched)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import threading

import numpy as np
import pytest
import torch
from _app_fixtures import tf_values

import torchestimator as tf

A = tf.keras.applications


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_preprocess_input_numpy_and_tensor(mode: str) -> None:
    pre = tf_values()["preprocess"]
    img = np.asarray(pre["img"], "float32")
    out = A.imagenet_utils.preprocess_input(img.copy(), mode=mode)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, pre[f"{mode}_last"], rtol=1e-6, atol=1e-5)
    first = A.imagenet_utils.preprocess_input(np.asarray(pre["img3_cf"], "float32"), mode=mode,
                                              data_format="channels_first")
    np.testing.assert_allclose(first, pre[f"{mode}_first3"], rtol=1e-6, atol=1e-5)
    tensor = A.imagenet_utils.preprocess_input(torch.tensor(img), mode=mode)
    assert isinstance(tensor, torch.Tensor)
    np.testing.assert_allclose(tensor.numpy(), pre[f"{mode}_tensor"], rtol=1e-6, atol=1e-5)


def test_module_preprocess_modes() -> None:
    pre = tf_values()["preprocess"]
    img = np.asarray(pre["img"], "float32")
    for module, mode in [(A.mobilenet_v2, "tf"), (A.mobilenet, "tf"), (A.resnet, "caffe"),
                         (A.resnet50, "caffe"), (A.resnet_v2, "tf"), (A.vgg16, "caffe"),
                         (A.vgg19, "caffe"), (A.densenet, "torch")]:
        np.testing.assert_allclose(module.preprocess_input(img.copy()), pre[f"{mode}_last"],
                                   rtol=1e-6, atol=1e-5, err_msg=module.__name__)
    assert A.efficientnet.preprocess_input(img) is img  # the model normalizes by itself
    uint8 = A.imagenet_utils.preprocess_input(img.astype("uint8"), mode="caffe")
    np.testing.assert_allclose(uint8, pre["uint8_caffe"], rtol=1e-6, atol=1e-5)


def test_preprocess_input_inside_a_functional_model() -> None:
    pre = tf_values()["preprocess"]
    inputs = tf.keras.Input((4, 5, 3))
    model = tf.keras.Model(inputs, A.mobilenet_v2.preprocess_input(inputs))
    out = model.predict(np.asarray(pre["img"], "float32"), verbose=0)
    np.testing.assert_allclose(out, pre["tf_last"], rtol=1e-6, atol=1e-5)


def test_preprocess_input_errors() -> None:
    with pytest.raises(ValueError, match="Expected mode to be one of"):
        A.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), mode="nope")
    with pytest.raises(ValueError, match="Expected data_format to be one of"):
        A.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), data_format="nhwc")


@pytest.fixture
def class_index(tmp_path, monkeypatch):
    """Serves a 1000-class index like Keras' on 127.0.0.1; points decode_predictions at it."""
    from torchestimator.keras.applications import _imagenet_utils

    root = tmp_path / "www"
    root.mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (root / "imagenet_class_index.json").write_text(json.dumps(index))
    digest = hashlib.md5((root / "imagenet_class_index.json").read_bytes()).hexdigest()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX", None)
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_PATH",
                        f"http://127.0.0.1:{httpd.server_address[1]}/imagenet_class_index.json")
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_HASH", digest)
    yield tmp_path / "keras_home" / "models" / "imagenet_class_index.json"
    httpd.shutdown()
    httpd.server_close()


def test_decode_predictions_matches_tf(class_index) -> None:
    rec = tf_values()["decode"]
    preds = np.asarray(rec["preds"], "float32")
    for decode in (A.imagenet_utils.decode_predictions, A.resnet50.decode_predictions):
        decoded = decode(preds, top=3)
        assert [[(c, d) for c, d, _ in row] for row in decoded] == [
            [(c, d) for c, d, _ in row] for row in rec["top3"]]
        np.testing.assert_allclose([[s for *_, s in row] for row in decoded],
                                   [[s for *_, s in row] for row in rec["top3"]], rtol=1e-6)
    assert class_index.is_file()
    assert len(A.mobilenet_v2.decode_predictions(torch.tensor(preds))[0]) == 5


def test_decode_predictions_shape_error() -> None:
    with pytest.raises(ValueError, match=r"Found array with shape: \(2, 10\)"):
        A.imagenet_utils.decode_predictions(np.zeros((2, 10)))


def test_decode_predictions_refuses_a_file_with_the_wrong_hash(class_index, monkeypatch) -> None:
    from torchestimator.keras.applications import _imagenet_utils

    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_HASH", "0" * 32)
    with pytest.raises(ValueError, match="0" * 32):
        A.imagenet_utils.decode_predictions(np.zeros((1, 1000)))

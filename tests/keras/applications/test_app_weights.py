"""Weights: Keras HDF5 weight files load through `weights=<path>`; `weights='imagenet'` goes
through `tf.keras.utils.get_file` with Keras 2.15's URL and hash (served here by a local
http.server); argument checks."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import threading

import numpy as np
import pytest
from _app_fixtures import H5_TOP, model_input, tf_values

import torchestimator as tf

A = tf.keras.applications
MOBILENET_V2_NOTOP = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"


def _notop_h5(path: str) -> str:
    """The fixture's weights without the classifier layer (what Keras' `_no_top` files hold)."""
    import h5py

    shutil.copy(H5_TOP, path)
    with h5py.File(path, "r+") as f:
        names = [n if isinstance(n, bytes) else n.encode() for n in f.attrs["layer_names"]]
        del f["predictions"]
        f.attrs["layer_names"] = np.asarray([n for n in names if n != b"predictions"], "S")
    return path


def _expected(key: str) -> np.ndarray:
    return np.asarray(tf_values()["parity"][key]["output"])


@pytest.fixture
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving tmp_path/'www'; yields (root dir, base URL)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_weights_file_with_top_matches_tf() -> None:
    tf.keras.backend.clear_session()
    model = A.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), classes=10, weights=H5_TOP)
    y = model.predict(model_input(model), verbose=0)
    np.testing.assert_allclose(y, _expected("mobilenet_v2_top"), rtol=1e-4, atol=1e-5)


def test_weights_file_no_top_matches_tf(tmp_path) -> None:
    tf.keras.backend.clear_session()
    model = A.mobilenet_v2.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False,
                                       weights=_notop_h5(str(tmp_path / "w.h5")))
    y = model.predict(model_input(model), verbose=0)
    np.testing.assert_allclose(y, _expected("mobilenet_v2_notop"), rtol=1e-4, atol=1e-4)


def test_imagenet_weights_download_through_get_file(server, tmp_path, monkeypatch) -> None:
    from torchestimator.keras.applications import _mobilenet_v2

    root, url = server
    _notop_h5(str(root / MOBILENET_V2_NOTOP))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(_mobilenet_v2, "BASE_WEIGHT_PATH", url)
    tf.keras.backend.clear_session()
    model = A.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False)
    assert (tmp_path / "keras_home" / "models" / MOBILENET_V2_NOTOP).is_file()
    y = model.predict(model_input(model), verbose=0)
    np.testing.assert_allclose(y, _expected("mobilenet_v2_notop"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fn, kwargs, file_name, origin, file_hash", [
    ("MobileNetV2", {"include_top": False, "alpha": 0.5, "input_shape": (128, 128, 3)},
     "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.5_128_no_top.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
     "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.5_128_no_top.h5", None),
    ("MobileNetV2", {}, "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
     "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5", None),
    ("MobileNet", {"alpha": 0.25, "include_top": False, "input_shape": (100, 100, 3)},
     "mobilenet_2_5_224_tf_no_top.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
     "mobilenet_2_5_224_tf_no_top.h5", None),
    ("ResNet50", {}, "resnet50_weights_tf_dim_ordering_tf_kernels.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
     "resnet50_weights_tf_dim_ordering_tf_kernels.h5", "2cb95161c43110f7111970584f804107"),
    ("ResNet50V2", {"include_top": False}, "resnet50v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
     "resnet50v2_weights_tf_dim_ordering_tf_kernels_notop.h5", "fac2f116257151a9d068a22e544a4917"),
    ("VGG16", {"include_top": False, "input_shape": (64, 64, 3)},
     "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/vgg16/"
     "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5", "6d6bbae143d832006294945121d1f1fc"),
    ("DenseNet201", {}, "densenet201_weights_tf_dim_ordering_tf_kernels.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
     "densenet201_weights_tf_dim_ordering_tf_kernels.h5", "1ceb130c1ea1b78c3bf6114dbdfd8807"),
    ("EfficientNetB3", {"include_top": False}, "efficientnetb3_notop.h5",
     "https://storage.googleapis.com/keras-applications/efficientnetb3_notop.h5",
     "af6d107764bb5b1abb91932881670226"),
])
def test_imagenet_urls_and_hashes_are_keras(monkeypatch, fn, kwargs, file_name, origin,
                                            file_hash) -> None:
    from torchestimator.keras.utils import _data_utils

    calls = []

    def fake_get_file(fname, origin, **kw):
        calls.append((fname, origin, kw))
        raise RuntimeError("stop")

    monkeypatch.setattr(_data_utils, "get_file", fake_get_file)
    with pytest.raises(RuntimeError, match="stop"):
        getattr(A, fn)(weights="imagenet", **kwargs)
    assert calls == [(file_name, origin, {"cache_subdir": "models", "file_hash": file_hash})]


def test_imagenet_hash_mismatch_is_refused(server, tmp_path, monkeypatch) -> None:
    from torchestimator.keras.applications import _resnet

    root, url = server
    (root / "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5").write_bytes(b"not weights")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(_resnet, "BASE_WEIGHTS_PATH", url)
    with pytest.raises(ValueError, match="4d473c1dd8becc155b73f8504c6f6626"):
        A.ResNet50(include_top=False, input_shape=(32, 32, 3))


def test_imagenet_hash_patched_download(server, tmp_path, monkeypatch) -> None:
    """A file whose md5 is the expected hash is downloaded and loaded."""
    from torchestimator.keras.applications import _mobilenet_v2

    root, url = server
    _notop_h5(str(root / MOBILENET_V2_NOTOP))
    digest = hashlib.md5((root / MOBILENET_V2_NOTOP).read_bytes()).hexdigest()
    real_fetch = _mobilenet_v2._common.fetch_weights
    seen = []

    def fetch_with_hash(file_name, origin, file_hash):
        seen.append(digest)
        return real_fetch(file_name, origin, digest)

    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(_mobilenet_v2, "BASE_WEIGHT_PATH", url)
    monkeypatch.setattr(_mobilenet_v2._common, "fetch_weights", fetch_with_hash)
    model = A.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False)
    assert seen == [digest]
    y = model.predict(model_input(model), verbose=0)
    np.testing.assert_allclose(y, _expected("mobilenet_v2_notop"), rtol=1e-4, atol=1e-4)


def test_imagenet_offline_error_names_url_and_cache(tmp_path, monkeypatch) -> None:
    import socket

    from torchestimator.keras.applications import _mobilenet_v2

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(_mobilenet_v2, "BASE_WEIGHT_PATH", f"http://127.0.0.1:{port}/")
    with pytest.raises(Exception, match=f"URL fetch failure on http://127.0.0.1:{port}/"
                                        f"{MOBILENET_V2_NOTOP}") as info:
        A.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False)
    assert "offline" in str(info.value)
    assert os.path.join("models", MOBILENET_V2_NOTOP) in str(info.value)


@pytest.mark.parametrize("call, message", [
    (lambda: A.MobileNetV2(weights="/no/such/file.h5"), "The `weights` argument should be"),
    (lambda: A.ResNet50(weights="imagenet", classes=10), "`classes` should be 1000"),
    (lambda: A.MobileNetV2(weights="imagenet", alpha=0.6), "alpha must be one of"),
    (lambda: A.MobileNet(weights="imagenet", depth_multiplier=2), "depth multiplier must be 1"),
    (lambda: A.VGG16(weights="imagenet", input_shape=(64, 64, 3)),
     r"`input_shape` should be \(224, 224, 3\)"),
    (lambda: A.ResNet50(weights=None, input_shape=(31, 64, 3), include_top=False),
     "Input size must be at least 32x32"),
    (lambda: A.ResNet50(weights=None, input_shape=(None, None, 3)),
     "you should specify a static `input_shape`"),
    (lambda: A.MobileNetV2(weights=H5_TOP, classes=10, classifier_activation="relu",
                           alpha=0.35, input_shape=(96, 96, 3)),
     "Only `None` and `softmax` activations are allowed"),
    (lambda: A.MobileNetV2(weights=None, foo=1), "Unknown argument"),
    (lambda: A.ResNet50(weights=None, input_tensor=np.zeros((1, 32, 32, 3))),
     "input_tensor must be a Keras tensor"),
])
def test_argument_errors(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_input_tensor_pooling_and_logits() -> None:
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((64, 64, 3))
    model = A.MobileNet(input_tensor=inputs, alpha=0.25, include_top=False, pooling="avg",
                        weights=None)
    assert model.inputs[0] is inputs
    assert model.output_shape == (None, 256)
    model = A.ResNet50(weights=None, input_shape=(32, 32, 3), classes=7,
                       classifier_activation=None)
    y = model.predict(np.ones((1, 32, 32, 3), "float32"), verbose=0)
    assert y.shape == (1, 7) and not np.allclose(y.sum(), 1.0)


def test_efficientnet_imagenet_adds_keras_stddev_rescaling(monkeypatch) -> None:
    """With ImageNet weights Keras 2.15 adds Rescaling(1/sqrt(stddev)) after Normalization."""
    from torchestimator.keras.applications import _common

    built = []
    monkeypatch.setattr(_common, "fetch_weights", lambda *a: (_ for _ in ()).throw(
        RuntimeError("stop")))
    real_model = _common.load_weights

    def capture(model, weights, imagenet):
        built.append(model)
        return real_model(model, weights, imagenet)

    monkeypatch.setattr(_common, "load_weights", capture)
    tf.keras.backend.clear_session()
    with pytest.raises(RuntimeError, match="stop"):
        A.EfficientNetB0(include_top=False, input_shape=(32, 32, 3))
    names = [layer.name for layer in built[0].layers[:5]]
    assert names == ["input_1", "rescaling", "normalization", "rescaling_1", "stem_conv_pad"]
    y = built[0].layers[3](np.ones((1, 2, 2, 3), "float32"))
    np.testing.assert_allclose(np.asarray(y)[0, 0, 0], 1 / np.sqrt([0.229, 0.224, 0.225]),
                               rtol=1e-6)

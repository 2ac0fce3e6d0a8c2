"""`tf.keras.datasets.*.load_data` on small files in each dataset's real format, served from a
local `http.server` on 127.0.0.1 (offline), compared with TF 2.15's loaders run on the same
files (fixture written by tools/make_tf_datasets_fixtures.py)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import pickle
import threading

import _dataset_files
import numpy as np
import pytest

import torchestimator as tf
from _crafted_guard import crafted_guard
from torchestimator.keras.datasets import (
    _common,
    boston_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)
from torchestimator.keras.utils import get_file

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_datasets_2.15.json")
with open(FIXTURE) as _f:
    TF = json.load(_f)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


class _Server:
    """Serves a folder on 127.0.0.1 and counts the requests."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.requests: list[str] = []
        server = self

        class Handler(_Quiet):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                server.requests.append(self.path)
                super().do_GET()

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=folder))
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def stop(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()


def _sha256(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def served(tmp_path, monkeypatch):
    """All datasets' files on a local server; modules pointed at it with the files' hashes."""
    paths = _dataset_files.write_all(str(tmp_path / "served"))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    server = _Server(str(tmp_path / "served"))
    monkeypatch.setattr(_common, "ORIGIN_FOLDER", server.url)
    for module, name in ((mnist, "mnist.npz"), (imdb, "imdb.npz"), (reuters, "reuters.npz"),
                         (boston_housing, "boston_housing.npz"),
                         (cifar10, "cifar-10-python.tar.gz"), (cifar100, "cifar-100-python.tar.gz")):
        monkeypatch.setattr(module, "_FILE_HASH", _sha256(paths[name]))
    monkeypatch.setattr(cifar10, "_ORIGIN", server.url + "cifar-10-python.tar.gz")
    monkeypatch.setattr(cifar100, "_ORIGIN", server.url + "cifar-100-python.tar.gz")
    for module, name in ((imdb, "imdb_word_index.json"), (reuters, "reuters_word_index.json")):
        md5 = hashlib.md5(open(paths[name], "rb").read()).hexdigest()  # noqa: S324 (Keras' md5)
        monkeypatch.setattr(module, "_WORD_INDEX_HASH", md5)
    server.paths = paths
    server.home = tmp_path / "keras_home"
    yield server
    server.stop()


def _check(array: np.ndarray, expected: dict) -> None:
    assert str(array.dtype) == expected["dtype"]
    assert list(array.shape) == expected["shape"]
    if "values" in expected:
        if array.dtype == object:
            assert [list(map(int, x)) for x in array] == expected["values"]
        else:
            np.testing.assert_array_equal(array, np.array(expected["values"], dtype=array.dtype)
                                          .reshape(array.shape))
    else:
        assert hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest() == expected["sha256"]


def _check_case(result, case: dict) -> None:
    (x_train, y_train), (x_test, y_test) = result
    for array, key in ((x_train, "x_train"), (y_train, "y_train"), (x_test, "x_test"),
                       (y_test, "y_test")):
        _check(array, case[key])


# ------------------------------------------------------------------------------ vs TF 2.15
@pytest.mark.parametrize("case", TF["imdb"], ids=lambda c: json.dumps(c["kwargs"]))
def test_imdb_matches_tf(served, case):
    if "error" in case:
        with pytest.raises(ValueError, match="no sequence was kept. Increase maxlen"):
            imdb.load_data(**case["kwargs"])
        return
    _check_case(imdb.load_data(**case["kwargs"]), case)


@pytest.mark.parametrize("case", TF["reuters"], ids=lambda c: json.dumps(c["kwargs"]))
def test_reuters_matches_tf(served, case):
    _check_case(reuters.load_data(**case["kwargs"]), case)


@pytest.mark.parametrize("case", TF["boston_housing"], ids=lambda c: json.dumps(c["kwargs"]))
def test_boston_housing_matches_tf(served, case):
    _check_case(boston_housing.load_data(**case["kwargs"]), case)


def test_mnist_and_fashion_mnist_match_tf(served):
    _check_case(tf.keras.datasets.mnist.load_data(), TF["mnist"][0])
    _check_case(tf.keras.datasets.fashion_mnist.load_data(), TF["fashion_mnist"][0])
    arrays = _dataset_files.mnist_arrays()
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    np.testing.assert_array_equal(y_test, arrays["y_test"])
    assert x_train.dtype == np.uint8 and x_train.shape == (6, 28, 28)
    assert os.path.exists(served.home / "datasets" / "fashion-mnist" / "t10k-images-idx3-ubyte.gz")


@pytest.mark.parametrize("index", [0, 1])
def test_cifar100_matches_tf(served, index):
    case = TF["cifar100"][index]
    _check_case(cifar100.load_data(**case["kwargs"]), case)


def test_word_indexes_and_label_names_match_tf(served):
    assert imdb.get_word_index() == TF["imdb_word_index"]
    assert reuters.get_word_index() == TF["reuters_word_index"]
    assert list(reuters.get_label_names()) == TF["reuters_label_names"]
    assert len(reuters.get_label_names()) == 46


# ------------------------------------------------------------------------------ hand-computed
def test_imdb_vocabulary_rules_by_hand(served, tmp_path, monkeypatch):
    # One sequence per split: RandomState shuffling of one element is the identity.
    x_train = np.empty(2, dtype=object)
    x_train[:] = [[1, 5, 9], [1, 5, 9]]
    x_test = np.empty(1, dtype=object)
    x_test[:] = [[2, 7]]
    path = _dataset_files.write_npz(str(tmp_path / "served" / "hand.npz"), {
        "x_train": x_train, "y_train": np.array([1, 1]), "x_test": x_test, "y_test": np.array([0])})
    monkeypatch.setattr(imdb, "_FILE_HASH", _sha256(path))
    monkeypatch.setattr(imdb, "_FILE_NAME", "hand.npz")
    (xt, yt), (xs, ys) = imdb.load_data("hand.npz")
    # start_char 1, ids + index_from 3; num_words defaults to the largest id (12): 12 -> oov 2.
    assert xt.tolist() == [[1, 4, 8, 2], [1, 4, 8, 2]] and xs.tolist() == [[1, 5, 10]]
    assert yt.tolist() == [1, 1] and ys.tolist() == [0]
    (xt, _), (xs, _) = imdb.load_data("hand.npz", num_words=9, skip_top=2, oov_char=2)
    assert xt.tolist() == [[2, 4, 8, 2], [2, 4, 8, 2]] and xs.tolist() == [[2, 5, 2]]
    (xt, _), (xs, _) = imdb.load_data("hand.npz", num_words=9, skip_top=2, oov_char=None)
    assert xt.tolist() == [[4, 8], [4, 8]] and xs.tolist() == [[5]]
    (xt, _), (xs, _) = imdb.load_data("hand.npz", start_char=None, index_from=10, num_words=100)
    assert xt.tolist() == [[11, 15, 19], [11, 15, 19]] and xs.tolist() == [[12, 17]]
    with pytest.raises(ValueError, match="maxlen=4"):
        imdb.load_data("hand.npz", maxlen=4)  # the train sequences have length 4: dropped
    (xt, _), (xs, _) = imdb.load_data("hand.npz", maxlen=5, nb_words=9)
    assert xt.tolist() == [[1, 4, 8, 2], [1, 4, 8, 2]] and xs.tolist() == [[1, 5, 2]]
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        imdb.load_data("hand.npz", words=3)


def test_cifar10_layout_and_dtypes(served):
    batches = _dataset_files.cifar10_batches()
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_test.shape == (3, 32, 32, 3)
    assert y_train.shape == (10, 1) and y_test.shape == (3, 1)
    assert {a.dtype for a in (x_train, y_train, x_test, y_test)} == {np.dtype(np.uint8)}
    data = np.concatenate([batches[f"data_batch_{i}"][b"data"] for i in range(1, 6)])
    np.testing.assert_array_equal(x_train, data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    labels = sum((batches[f"data_batch_{i}"][b"labels"] for i in range(1, 6)), [])
    assert y_train[:, 0].tolist() == labels
    assert y_test[:, 0].tolist() == batches["test_batch"][b"labels"]
    assert os.path.isdir(served.home / "datasets" / "cifar-10-batches-py")

    tf.keras.backend.set_image_data_format("channels_first")
    try:
        (x_first, _), _ = cifar10.load_data()
    finally:
        tf.keras.backend.set_image_data_format("channels_last")
    np.testing.assert_array_equal(x_first, data.reshape(-1, 3, 32, 32))


def test_cifar100_label_mode_checked(served):
    with pytest.raises(ValueError, match='label_mode` must be one of `"fine"`, `"coarse"`'):
        cifar100.load_data(label_mode="medium")


def test_boston_housing_rejects_test_split_of_one(served):
    with pytest.raises(ValueError, match="test_split"):
        boston_housing.load_data(test_split=1.0)


# ------------------------------------------------------------------------------ cache, hashes
def test_cache_hit_without_server(served):
    first = reuters.load_data()
    count = len(served.requests)
    served.stop()
    second = reuters.load_data()  # the cached file matches the hash: no request
    assert len(served.requests) == count == 1
    for a, b in zip(sum(first, ()), sum(second, ())):
        assert a.tolist() == b.tolist()
    assert os.path.exists(served.home / "datasets" / "reuters.npz")


def test_hash_mismatch_is_an_error(served, monkeypatch):
    monkeypatch.setattr(mnist, "_FILE_HASH", "0" * 64)
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        mnist.load_data()
    assert not os.path.exists(served.home / "datasets" / "mnist.npz")


def test_missing_array_is_named(served, tmp_path, monkeypatch):
    path = _dataset_files.write_npz(str(tmp_path / "served" / "odd.npz"), {"x": np.zeros(3)})
    monkeypatch.setattr(mnist, "_FILE_HASH", _sha256(path))
    monkeypatch.setattr(mnist, "_FILE_NAME", "odd.npz")
    with pytest.raises(ValueError, match="has no array named 'x_train'"):
        mnist.load_data("odd.npz")


# ------------------------------------------------------------------------------ no code runs
class _Evil:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_crafted_cifar_pickle_is_refused(served, tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    batches = _dataset_files.cifar100_batches()
    batches["train"][b"data"] = _Evil(str(marker))
    path = _dataset_files.write_cifar_tar(
        served.paths["cifar-100-python.tar.gz"], "cifar-100-python", batches)
    monkeypatch.setattr(cifar100, "_FILE_HASH", _sha256(path))
    get_file("cifar-100-python", origin=cifar100._ORIGIN, untar=True)  # downloaded, extracted
    with crafted_guard(tmp_path):  # records any process, shell, socket or stray write
        with pytest.raises(pickle.UnpicklingError, match=r"names the global '(posix|os)\.system'"):
            cifar100.load_data()
    assert not marker.exists()


def test_crafted_npz_object_array_is_refused(served, tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    x = np.empty(2, dtype=object)
    x[:] = [[1, 2], _Evil(str(marker))]
    path = _dataset_files.write_npz(served.paths["reuters.npz"], {"x": x, "y": np.array([0, 1])})
    monkeypatch.setattr(reuters, "_FILE_HASH", _sha256(path))
    get_file("reuters.npz", origin=served.url + "reuters.npz")  # downloaded before the guard
    with crafted_guard(tmp_path):
        with pytest.raises(pickle.UnpicklingError, match="reuters.npz"):
            reuters.load_data()
    assert not marker.exists()


def test_fortran_and_truncated_npy(tmp_path):
    from torchestimator.keras.datasets._safe_pickle import load_npz

    a = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    path = str(tmp_path / "f.npz")
    np.savez(path, a=a, s=np.float64(2.5))
    loaded = load_npz(path)
    np.testing.assert_array_equal(loaded["a"], a)
    assert loaded["s"].shape == () and loaded["s"] == 2.5

    import zipfile

    with zipfile.ZipFile(path) as z:
        npy = z.read("a.npy")
    with zipfile.ZipFile(str(tmp_path / "t.npz"), "w") as z:
        z.writestr("a.npy", npy[:-8])
    with pytest.raises(ValueError, match="truncated"):
        load_npz(str(tmp_path / "t.npz"))


def test_fashion_mnist_checks_idx_magic(served):
    _dataset_files.write_npz(served.paths["t10k-labels-idx1-ubyte.gz"] + ".npz", {"x": np.zeros(1)})
    os.replace(served.paths["t10k-labels-idx1-ubyte.gz"] + ".npz",
               served.paths["t10k-labels-idx1-ubyte.gz"])
    with pytest.raises(Exception, match="Not a gzipped file|not a gzip'd idx file"):
        fashion_mnist.load_data()


# ------------------------------------------------------------------------------ Python 2 pickles
def _py2_str(value: bytes) -> bytes:
    """A Python 2 `str` as cPickle writes it (SHORT_BINSTRING / BINSTRING)."""
    if len(value) < 256:
        return b"U" + bytes([len(value)]) + value
    return b"T" + len(value).to_bytes(4, "little") + value


def _py2_cifar_batch(data: np.ndarray, labels: list[int]) -> bytes:
    """A CIFAR batch pickled the way the real (Python 2, protocol 2) files are."""
    def int_(v: int) -> bytes:
        return b"K" + bytes([v]) if v < 256 else b"M" + v.to_bytes(2, "little")

    array = (
        b"cnumpy.core.multiarray\n_reconstruct\nq\x01cnumpy\nndarray\nq\x02"
        + int_(0) + b"\x85" + _py2_str(b"b") + b"\x87R"
        + b"(" + int_(1) + int_(data.shape[0]) + int_(data.shape[1]) + b"\x86"
        + b"cnumpy\ndtype\n" + _py2_str(b"u1") + int_(0) + int_(1) + b"\x87R"
        + b"(" + int_(3) + _py2_str(b"|") + b"NNN" + b"J\xff\xff\xff\xff" * 2 + int_(0) + b"tb"
        + b"\x89" + _py2_str(data.tobytes()) + b"tb"
    )
    label_list = b"](" + b"".join(int_(v) for v in labels) + b"e"
    return (b"\x80\x02}q\x00(" + _py2_str(b"data") + array + _py2_str(b"labels") + label_list
            + _py2_str(b"batch_label") + _py2_str(b"training batch 1 of 5") + b"u.")


def test_python2_protocol2_cifar_batches(served, monkeypatch):
    rng = np.random.RandomState(9)
    batches, expected_x, expected_y = {}, [], []
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        data = rng.randint(0, 256, (2, 3072)).astype(np.uint8)
        labels = [int(v) for v in rng.randint(0, 10, 2)]
        batches[name] = _py2_cifar_batch(data, labels)
        expected_x.append(data)
        expected_y.append(labels)
    assert pickle.loads(batches["test_batch"], encoding="bytes")[b"labels"] == expected_y[-1]
    path = _dataset_files.write_cifar_tar(
        served.paths["cifar-10-python.tar.gz"], "cifar-10-batches-py", batches)
    monkeypatch.setattr(cifar10, "_FILE_HASH", _sha256(path))
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    np.testing.assert_array_equal(
        x_train, np.concatenate(expected_x[:5]).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    assert y_train[:, 0].tolist() == sum(expected_y[:5], []) and y_test.dtype == np.uint8
    np.testing.assert_array_equal(x_test, expected_x[5].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))

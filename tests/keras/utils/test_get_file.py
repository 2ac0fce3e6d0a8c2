"""`tf.keras.utils.get_file` against a real `http.server` on 127.0.0.1 (offline)."""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import re
import socket
import tarfile
import threading
import zipfile

import pytest

import torchestimator as tf

PAYLOAD = b"hello keras datasets\n" * 50


def _tar_bytes(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
    return buffer.getvalue()


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


FILES = {
    "/data/file.txt": PAYLOAD,
    "/data/good.tar.gz": _tar_bytes({"good/a.txt": b"a", "good/b.txt": b"b"}),
    "/data/good.zip": _zip_bytes({"zipped/a.txt": b"a"}),
    "/data/evil.tar.gz": _tar_bytes({"ok.txt": b"ok", "../evil.txt": b"pwned"}),
    "/data/link.tar.gz": _tar_bytes({"ok.txt": b"ok"}, links={"out": "../../outside"}),
    "/data/abs.tar.gz": _tar_bytes({"/tmp/abs_evil.txt": b"pwned"}),
    "/data/evil.zip": _zip_bytes({"ok.txt": b"ok", "../evil.txt": b"pwned"}),
}


class _Handler(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).requests.append(self.path)
        if self.path == "/truncated.bin":  # promises more bytes than it sends, then hangs up
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD) * 4))
            self.end_headers()
            self.wfile.write(PAYLOAD)
            self.wfile.flush()
            self.close_connection = True
            return
        data = FILES.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server():
    _Handler.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd, base
    httpd.shutdown()
    httpd.server_close()


def _no_partials(folder) -> None:
    assert not [p for p in os.listdir(folder) if p.endswith(".part")]


def test_download_then_cache_hit_without_server(server, tmp_path):
    httpd, base = server
    path = tf.keras.utils.get_file(origin=f"{base}/data/file.txt", cache_dir=tmp_path)
    assert path == str(tmp_path / "datasets" / "file.txt")  # fname from the URL
    assert open(path, "rb").read() == PAYLOAD
    _no_partials(tmp_path / "datasets")
    httpd.shutdown()
    httpd.server_close()
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    again = tf.keras.utils.get_file("file.txt", f"{base}/data/file.txt", cache_dir=tmp_path, file_hash=sha)
    assert again == path
    assert _Handler.requests == ["/data/file.txt"]


def test_keras_home_and_cache_subdir(server, tmp_path, monkeypatch):
    _, base = server
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    md5 = hashlib.md5(PAYLOAD).hexdigest()  # 32 characters: 'auto' picks md5
    path = tf.keras.utils.get_file("mine.txt", f"{base}/data/file.txt", file_hash=md5, cache_subdir="sub")
    assert path == str(tmp_path / "home" / "sub" / "mine.txt")


def test_stale_cached_file_is_downloaded_again(server, tmp_path):
    _, base = server
    target = tmp_path / "datasets" / "file.txt"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"old")
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    tf.keras.utils.get_file("file.txt", f"{base}/data/file.txt", cache_dir=tmp_path, file_hash=sha,
                            hash_algorithm="sha256")
    assert target.read_bytes() == PAYLOAD


def test_hash_mismatch_retries_once_then_names_both_hashes(server, tmp_path):
    _, base = server
    wrong = "0" * 64
    actual = hashlib.sha256(PAYLOAD).hexdigest()
    with pytest.raises(ValueError) as info:
        tf.keras.utils.get_file("file.txt", f"{base}/data/file.txt", cache_dir=tmp_path, file_hash=wrong)
    message = str(info.value)
    assert wrong in message and actual in message
    assert str(tmp_path / "datasets" / "file.txt") in message
    assert _Handler.requests == ["/data/file.txt", "/data/file.txt"]
    assert not (tmp_path / "datasets" / "file.txt").exists()


def test_interrupted_download_leaves_no_file(server, tmp_path):
    _, base = server
    with pytest.raises(Exception, match="URL fetch failure"):
        tf.keras.utils.get_file("big.bin", f"{base}/truncated.bin", cache_dir=tmp_path)
    assert not (tmp_path / "datasets" / "big.bin").exists()
    _no_partials(tmp_path / "datasets")


def test_http_error(server, tmp_path):
    _, base = server
    with pytest.raises(Exception, match="URL fetch failure on .*missing.txt: 404"):
        tf.keras.utils.get_file("missing.txt", f"{base}/missing.txt", cache_dir=tmp_path)
    assert not (tmp_path / "datasets" / "missing.txt").exists()


def test_offline_error_names_url_and_cache_path(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/data/file.txt"
    with pytest.raises(Exception) as info:
        tf.keras.utils.get_file(origin=url, cache_dir=tmp_path)
    message = str(info.value)
    assert url in message
    assert f"place it at {tmp_path / 'datasets' / 'file.txt'}" in message


def test_extract_tar_zip_and_untar(server, tmp_path):
    _, base = server
    path = tf.keras.utils.get_file("good.tar.gz", f"{base}/data/good.tar.gz", cache_dir=tmp_path, extract=True)
    assert path.endswith("good.tar.gz")
    assert (tmp_path / "datasets" / "good" / "a.txt").read_bytes() == b"a"
    tf.keras.utils.get_file("good.zip", f"{base}/data/good.zip", cache_dir=tmp_path, extract=True)
    assert (tmp_path / "datasets" / "zipped" / "a.txt").read_bytes() == b"a"
    folder = tf.keras.utils.get_file("good", f"{base}/data/good.tar.gz", cache_dir=tmp_path / "u", untar=True)
    assert folder == str(tmp_path / "u" / "datasets" / "good")
    assert os.path.exists(folder + ".tar.gz") and os.path.isdir(folder)


@pytest.mark.parametrize("name", ["evil.tar.gz", "link.tar.gz", "abs.tar.gz", "evil.zip"])
def test_archive_escaping_the_target_is_refused(server, tmp_path, name):
    _, base = server
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match=re.escape("Refusing to extract")):
        tf.keras.utils.get_file(name, f"{base}/data/{name}", cache_dir=cache, extract=True)
    assert not (cache / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()
    assert not (cache / "datasets" / "ok.txt").exists()  # nothing of the archive was extracted
    assert not os.path.exists("/tmp/abs_evil.txt")


def test_origin_required(tmp_path):
    with pytest.raises(ValueError, match='specify the "origin" argument'):
        tf.keras.utils.get_file("x", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="Can't parse the file name"):
        tf.keras.utils.get_file(origin="http://127.0.0.1/", cache_dir=tmp_path)


def test_unwritable_cache_dir_falls_back_to_tmp(server, tmp_path, monkeypatch):
    import shutil
    import uuid

    _, base = server
    real_access = os.access
    locked = str(tmp_path / "locked")
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == locked else real_access(p, mode))
    subdir = f"te-test-{uuid.uuid4().hex}"
    try:
        path = tf.keras.utils.get_file("file.txt", f"{base}/data/file.txt", cache_dir=locked, cache_subdir=subdir)
        assert path == os.path.join("/tmp", ".keras", subdir, "file.txt")
    finally:
        shutil.rmtree(os.path.join("/tmp", ".keras", subdir), ignore_errors=True)

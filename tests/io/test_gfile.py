"""tf.io.gfile over fsspec: local paths, file:// and memory:// URLs (and S3 through moto's
server when s3fs is installed)."""

from __future__ import annotations

import uuid

import pytest

import torchestimator as tf
from torchestimator.io import gfile


@pytest.fixture(params=["local", "file", "memory"])
def root(request, tmp_path):
    if request.param == "local":
        yield str(tmp_path)
        return
    if request.param == "file":
        yield "file://" + str(tmp_path)
        return
    base = f"memory://gfile-test-{uuid.uuid4().hex}"
    yield base
    if gfile.exists(base):
        gfile.rmtree(base)


def test_write_read_list_glob_stat(root):
    d = gfile.join(root, "a", "b")
    gfile.makedirs(d)
    gfile.makedirs(d)  # no error when it exists
    assert gfile.isdir(d) and gfile.exists(d)
    with gfile.GFile(gfile.join(d, "x.txt"), "w") as f:
        f.write("line 1\n")
        f.write("line 2\n")
    with gfile.GFile(gfile.join(d, "y.bin"), "wb") as f:
        f.write(b"\x00\x01\x02")
    with gfile.GFile(gfile.join(d, "x.txt")) as f:
        assert f.readline() == "line 1\n"
        assert f.read() == "line 2\n"
    with gfile.GFile(gfile.join(d, "x.txt")) as f:
        assert list(f) == ["line 1\n", "line 2\n"]
    with gfile.GFile(gfile.join(d, "y.bin"), "rb") as f:
        assert f.read() == b"\x00\x01\x02" and f.size() == 3
        f.seek(1)
        assert f.read(1) == b"\x01" and f.tell() == 2
    with gfile.GFile(gfile.join(d, "x.txt"), "a") as f:
        f.write("line 3\n")
    assert gfile.GFile(gfile.join(d, "x.txt")).readlines()[-1] == "line 3\n"
    assert gfile.listdir(d) == ["x.txt", "y.bin"]
    assert gfile.listdir(gfile.join(root, "a")) == ["b"]
    matches = gfile.glob(gfile.join(d, "*.txt"))
    assert len(matches) == 1 and matches[0].endswith("a/b/x.txt") and gfile.exists(matches[0])
    assert gfile.stat(gfile.join(d, "y.bin")).length == 3
    assert not gfile.stat(gfile.join(d, "y.bin")).is_directory
    walked = list(gfile.walk(gfile.join(root, "a")))
    assert [(w[1], w[2]) for w in walked] == [(["b"], []), ([], ["x.txt", "y.bin"])]


def test_copy_rename_remove_rmtree(root):
    gfile.makedirs(root)
    src, dst = gfile.join(root, "src.txt"), gfile.join(root, "dst.txt")
    with gfile.GFile(src, "w") as f:
        f.write("hello")
    gfile.copy(src, dst)
    with pytest.raises(tf.errors.AlreadyExistsError, match="dst.txt; File exists"):
        gfile.copy(src, dst)
    gfile.copy(src, dst, overwrite=True)
    moved = gfile.join(root, "moved.txt")
    gfile.rename(dst, moved)
    assert not gfile.exists(dst) and gfile.GFile(moved).read() == "hello"
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.rename(src, moved)
    gfile.rename(src, moved, overwrite=True)
    gfile.remove(moved)
    assert not gfile.exists(moved)
    with pytest.raises(tf.errors.NotFoundError, match="moved.txt; No such file"):
        gfile.remove(moved)
    gfile.makedirs(gfile.join(root, "tree", "deep"))
    with gfile.GFile(gfile.join(root, "tree", "deep", "f"), "w") as f:
        f.write("x")
    gfile.rmtree(gfile.join(root, "tree"))
    assert not gfile.exists(gfile.join(root, "tree"))


def test_missing_paths_raise_not_found_naming_them(root):
    missing = gfile.join(root, "nope", "file.txt")
    with pytest.raises(tf.errors.NotFoundError, match="nope/file.txt"):
        gfile.GFile(missing).read()
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        gfile.listdir(gfile.join(root, "nope"))
    with pytest.raises(tf.errors.NotFoundError):
        gfile.stat(missing)
    with pytest.raises(tf.errors.NotFoundError):
        gfile.rmtree(gfile.join(root, "nope"))
    assert gfile.glob(gfile.join(root, "nope", "*")) == []
    assert isinstance(tf.errors.NotFoundError(None, None, "x"), FileNotFoundError)


def test_atomic_write_bytes_and_cross_filesystem_copy(tmp_path):
    local = str(tmp_path / "d" / "blob")
    gfile.atomic_write_bytes(local, b"one")
    gfile.atomic_write_bytes(local, b"two")
    assert gfile.GFile(local, "rb").read() == b"two"
    assert [p.name for p in (tmp_path / "d").iterdir()] == ["blob"]  # no temporary left
    remote = f"memory://gfile-x-{uuid.uuid4().hex}/blob"
    gfile.copy(local, remote)
    assert gfile.GFile(remote, "rb").read() == b"two"
    gfile.atomic_write_bytes(remote, b"three")
    gfile.copy(remote, local, overwrite=True)
    assert gfile.GFile(local, "rb").read() == b"three"


def test_errors_for_bad_arguments(tmp_path):
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode must be"):
        gfile.GFile(str(tmp_path / "f"), "x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-empty string"):
        gfile.exists("")
    with pytest.raises(tf.errors.UnimplementedError, match="scheme 'nosuchfs://'"):
        gfile.exists("nosuchfs://bucket/key")
    with pytest.raises(tf.errors.NotFoundError, match="parent directory"):
        gfile.GFile(str(tmp_path / "missing" / "f"), "w")
    assert "memory" in gfile.get_registered_schemes() and "s3" in gfile.get_registered_schemes()
    assert gfile.join("s3://bucket/dir/", "/a", "b") == "s3://bucket/dir/a/b"
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.mkdir(str(tmp_path))

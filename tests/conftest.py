"""Fixtures shared across the test folders."""

import os
import shutil
import tempfile
import uuid

import fsspec
import pytest
import torch

_SESSION_TMPDIR = "TORCHESTIMATOR_TESTS_TMPDIR"


def pytest_configure(config):
    """Everything the run writes through `tempfile` (helpers' folders made once per module,
    the library's temporary model_dirs, subprocesses and torchrun's workers through TMPDIR)
    goes into one folder that the run removes when it ends, so runs leave nothing in /tmp.
    pytest-xdist's workers inherit it from the controller, which made it and removes it."""

    if os.environ.get(_SESSION_TMPDIR):
        return
    path = tempfile.mkdtemp(prefix="torchestimator-tests-")
    os.environ[_SESSION_TMPDIR] = os.environ["TMPDIR"] = path
    tempfile.tempdir = path
    config._torchestimator_tmpdir = path


def pytest_unconfigure(config):
    path = getattr(config, "_torchestimator_tmpdir", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def memory_url():
    """A fresh folder URL on fsspec's in-process `memory://` store, removed afterwards."""
    name = f"test-{uuid.uuid4().hex}"
    yield f"memory://{name}"
    fs = fsspec.filesystem("memory")
    if fs.exists(f"/{name}"):
        fs.rm(f"/{name}", recursive=True)


if torch.cuda.is_available() and os.environ.get("TORCHESTIMATOR_DEVICE", "cuda") != "cpu":
    # the tests compare with values computed on the CPU (numpy, TF 2.15's fixtures) at float32
    # tolerances: cuDNN's TensorFloat-32 convolutions, on by torch's default, round to about 1e-3
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False

if os.environ.get("TORCHESTIMATOR_DEVICE", "").startswith("lazy"):
    # the suite on torch's lazy backend as a stand-in for a GPU (tests/_harness/lazy_suite.py)
    from _harness import lazy_suite

    lazy_suite.install()

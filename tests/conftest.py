"""Fixtures shared across the test folders."""

import os
import random
import shutil
import tempfile
import uuid
import zlib

import fsspec
import numpy as np
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


@pytest.fixture(autouse=True)
def _seeded_by_test_name(request):
    """Seeds Python's, numpy's and torch's global generators from the test's name before each
    test. torch seeds itself randomly in every process, so a test whose outcome depends on its
    random draws (a model's accuracy after a few steps) would pass or fail by chance; seeded
    by its name, it draws the same numbers in every run, whatever ran before it."""
    seed = zlib.crc32(request.node.nodeid.encode())
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


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

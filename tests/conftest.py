"""Fixtures shared across the test folders."""

import os
import uuid

import fsspec
import pytest


@pytest.fixture
def memory_url():
    """A fresh folder URL on fsspec's in-process `memory://` store, removed afterwards."""
    name = f"test-{uuid.uuid4().hex}"
    yield f"memory://{name}"
    fs = fsspec.filesystem("memory")
    if fs.exists(f"/{name}"):
        fs.rm(f"/{name}", recursive=True)


if os.environ.get("TORCHESTIMATOR_DEVICE", "").startswith("lazy"):
    # the suite on torch's lazy backend as a stand-in for a GPU (tests/_harness/lazy_suite.py)
    from _harness import lazy_suite

    lazy_suite.install()

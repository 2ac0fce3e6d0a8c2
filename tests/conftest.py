"""Fixtures shared across the test folders."""

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

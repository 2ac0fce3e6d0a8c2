"""`tf_serving` helpers no default-run test reached in this process (the real servers run as
subprocesses): `default_num_threads`, the request threads when --rest_api_num_threads is not
given."""

from __future__ import annotations

import pytest

from torchestimator import serving
from torchestimator.serving import _server


@pytest.mark.parametrize(("cores", "threads"), [(None, 2), (1, 2), (2, 2), (6, 6), (16, 16),
                                                (64, 16)])
def test_default_num_threads_is_one_per_core_between_2_and_16(monkeypatch, cores, threads) -> None:
    monkeypatch.setattr(_server.os, "cpu_count", lambda: cores)
    assert serving.default_num_threads() == threads

"""`tf.train.checkpoints_iterator`: yields each new checkpoint of a folder as it appears."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from torchestimator._engine.checkpoint import latest_checkpoint


def _wait_for_new_checkpoint(checkpoint_dir: str, last: str | None, seconds_to_sleep: float,
                             timeout: float | None) -> str | None:
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0,
                         timeout: float | None = None,
                         timeout_fn: Callable[[], bool] | None = None) -> Iterator[str]:
    """Continuously yields new checkpoint files as they appear, as TF 2.15.

    Yields the path of the latest checkpoint of `checkpoint_dir` each time it changes, waiting
    at least `min_interval_secs` between yields. When no new checkpoint appears within
    `timeout` seconds, calls `timeout_fn` (if given): the iterator ends unless it returns
    False. With `timeout=None` it waits forever.
    """
    checkpoint_path = None
    while True:
        new_path = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, 1.0 if timeout is None
                                            else min(1.0, max(timeout, 0.01)), timeout)
        if new_path is None:
            if not timeout_fn:
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_path
        yield checkpoint_path
        time_to_next_eval = start + min_interval_secs - time.time()
        if time_to_next_eval > 0:
            time.sleep(time_to_next_eval)

"""TensorFlow's logger (`tf.get_logger`, `tf.compat.v1.logging`) over Python's `logging`.

The project logs under the `torchestimator` logger (the Estimator's `loss = ..., step = ...`,
checkpoint and evaluation messages), where TensorFlow logs under `tensorflow`; `get_logger()`
returns it, so `tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)` shows what TF
programs expect to see. As TensorFlow does, the first call gives the logger a handler writing
`INFO:torchestimator:...` to stderr when the program configured no logging of its own (the
root logger has no handler).
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

DEBUG = logging.DEBUG
INFO = logging.INFO
WARN = logging.WARN
ERROR = logging.ERROR
FATAL = logging.FATAL

_LOGGER_NAME = "torchestimator"
_lock = threading.Lock()
_handler: logging.Handler | None = None
_counts: dict[tuple[str, int], int] = {}


def get_logger() -> logging.Logger:
    """Returns the project's logger (`tf.get_logger()`): the `torchestimator` logger of Python's
    `logging`, given a stderr handler in TensorFlow's format when nothing else is configured."""
    global _handler
    logger = logging.getLogger(_LOGGER_NAME)
    with _lock:
        if _handler is None and not logging.getLogger().handlers and not logger.handlers:
            _handler = logging.StreamHandler(sys.stderr)
            _handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
            logger.addHandler(_handler)
    return logger


def _check_level(level: Any, where: str) -> int:
    if isinstance(level, bool) or not isinstance(level, int):
        if isinstance(level, str) and isinstance(logging.getLevelName(level.upper()), int):
            return logging.getLevelName(level.upper())
        raise TypeError(
            f"{where}: the level must be an int (tf.compat.v1.logging.DEBUG, INFO, WARN, ERROR "
            f"or FATAL) or a level name; received {level!r}."
        )
    return level


def set_verbosity(v: int) -> None:
    """Sets the threshold for what messages will be logged (`tf.compat.v1.logging.set_verbosity`)."""
    get_logger().setLevel(_check_level(v, "set_verbosity(v)"))


def get_verbosity() -> int:
    """Returns how much logging output will be produced: the logger's effective level."""
    return get_logger().getEffectiveLevel()


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at `level`."""
    get_logger().log(_check_level(level, "log(level, msg)"), msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at INFO."""
    get_logger().info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at WARN."""
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at ERROR."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at FATAL (as TensorFlow's, it does not end the program)."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs `msg % args` at `level` (TensorFlow's verbose log: the same as `log`)."""
    get_logger().log(_check_level(level, "vlog(level, msg)"), msg, *args, **kwargs)


def _call_site() -> tuple[str, int]:
    frame = sys._getframe(2)  # the caller of log_every_n / log_first_n
    return frame.f_code.co_filename, frame.f_lineno


def _count(site: tuple[str, int]) -> int:
    with _lock:
        count = _counts.get(site, 0)
        _counts[site] = count + 1
    return count


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs `msg % args` at `level` once every `n` calls from the same line of code (the
    first call logs)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"log_every_n(n): n must be a positive int; received {n!r}.")
    if _count(_call_site()) % n == 0:
        log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs `msg % args` at `level` the first `n` times it is called from the same line."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"log_first_n(n): n must be a non-negative int; received {n!r}.")
    if _count(_call_site()) < n:
        log(level, msg, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs `msg % args` at `level` only if `condition` is true."""
    if condition:
        log(level, msg, *args)


def flush() -> None:
    """Flushes the logger's handlers."""
    for handler in get_logger().handlers:
        handler.flush()


def TaskLevelStatusMessage(msg: Any) -> None:  # noqa: N802 - TensorFlow's name
    """Logs `msg` at ERROR, as TensorFlow's task-level status message does."""
    error(msg)

"""Interactive logging: whether Keras' progress output goes to stdout or to Python logging.

`fit`/`evaluate`/`predict`'s progress bars and the callbacks' messages are written through
`print_msg`. With interactive logging enabled (the default) they go to `sys.stdout`; once
`disable_interactive_logging()` is called (per thread, as in Keras) they are sent to the
`torchestimator` logger at INFO level instead (Keras 2.15 uses absl logging), and
`verbose="auto"` picks the one-line-per-epoch mode.
"""

from __future__ import annotations

import logging
import sys
import threading

_LOGGER = logging.getLogger("torchestimator")
_INTERACTIVE_LOGGING_DEFAULT = True
_STATE = threading.local()


def enable_interactive_logging() -> None:
    """Turn on interactive logging.

    When interactive logging is enabled, Keras displays logs via stdout. This provides the
    best experience when using Keras in an interactive environment such as a shell or a
    notebook.
    """
    _STATE.enable = True


def disable_interactive_logging() -> None:
    """Turn off interactive logging.

    When interactive logging is disabled, Keras sends logs to Python's `logging` (the
    `torchestimator` logger, INFO level). This is the best option when using Keras in a
    non-interactive way, such as running a training or inference job on a server.
    """
    _STATE.enable = False


def is_interactive_logging_enabled() -> bool:
    """Check if interactive logging is enabled.

    To switch between writing logs to stdout and Python logging, use
    `tf.keras.utils.enable_interactive_logging()` and
    `tf.keras.utils.disable_interactive_logging()`.

    Returns:
        Boolean (True if interactive logging is enabled and False otherwise).
    """
    return getattr(_STATE, "enable", _INTERACTIVE_LOGGING_DEFAULT)


def print_msg(message: str, line_break: bool = True) -> None:
    """Prints `message` to stdout (followed by a newline when `line_break`), or logs it at
    INFO level when interactive logging is disabled."""
    if is_interactive_logging_enabled():
        sys.stdout.write(message + "\n" if line_break else message)
        sys.stdout.flush()
    else:
        message = message.strip("\r\n")
        if message:
            _LOGGER.info(message)

"""`tf.compat.v1.logging`: TensorFlow's logging functions and levels, over Python's `logging`
(`tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)` shows the Estimator's
`loss = ..., step = ...` lines)."""

from torchestimator._tf_logging import (
    DEBUG,
    ERROR,
    FATAL,
    INFO,
    WARN,
    TaskLevelStatusMessage,
    debug,
    error,
    fatal,
    flush,
    get_verbosity,
    info,
    log,
    log_every_n,
    log_first_n,
    log_if,
    set_verbosity,
    vlog,
    warn,
    warning,
)

__all__ = [
    "DEBUG", "ERROR", "FATAL", "INFO", "TaskLevelStatusMessage", "WARN", "debug", "error", "fatal",
    "flush", "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if", "set_verbosity",
    "vlog", "warn", "warning",
]

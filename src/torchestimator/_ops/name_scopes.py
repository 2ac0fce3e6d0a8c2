"""The `tf.name_scope` prefix of the running thread, read by variables and ops that name
what they create ('outer/inner/v')."""

from __future__ import annotations

import threading

_SCOPE = threading.local()  # the `tf.name_scope` prefix of this thread ('' or 'outer/inner/')


def current_name_scope() -> str:
    """The active `tf.name_scope` prefix ('' outside any scope, else ending in '/')."""
    return getattr(_SCOPE, "prefix", "")

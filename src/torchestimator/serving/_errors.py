"""The error a REST request is answered with: an HTTP status and TF Serving's message."""

from __future__ import annotations

import json


class RequestError(Exception):
    """A request the server refuses: answered with `status` and `{"error": message}`.

    `status` follows TF Serving's mapping of its error codes: 400 for
    INVALID_ARGUMENT (a malformed body, a wrong input), 404 for NOT_FOUND (an
    unknown model, version or path), 413 for a request over a size limit
    (`--max_body_bytes`, `--max_request_rows`, `--max_response_bytes`), 504 for
    a request past its deadline.
    """

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def not_found(message: str) -> RequestError:
    """A 404 RequestError."""
    return RequestError(message, 404)


def shorten(value: object, limit: int = 120) -> str:
    """`repr`-like text of a JSON value for an error message, cut at `limit` characters."""

    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

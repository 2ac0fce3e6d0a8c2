"""tf.strings over numpy object arrays of str."""

from __future__ import annotations

__all__: list[str] = []

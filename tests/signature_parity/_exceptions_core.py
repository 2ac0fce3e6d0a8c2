"""Signature differences from TF 2.15 kept on purpose (core area): key -> why."""

EXCEPTIONS: dict[str, str] = {
}

"""The deliberate differences between our signatures and TF 2.15's that
tests/test_signature_parity.py accepts, one module per area, each key
'<module>.<Name>[.<method>]' with the reason it differs."""

from signature_parity._exceptions_core import EXCEPTIONS as _CORE
from signature_parity._exceptions_data import EXCEPTIONS as _DATA
from signature_parity._exceptions_keras import EXCEPTIONS as _KERAS

EXCEPTIONS: dict[str, str] = {**_CORE, **_KERAS, **_DATA}

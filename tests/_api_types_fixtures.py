"""TF 2.15's recorded values for the API-types tests (tools/make_tf_api_types_fixtures.py)."""

from __future__ import annotations

import json
import pathlib

FIXTURES = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tf_api_types.json").read_text())

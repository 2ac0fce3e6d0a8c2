"""The Estimator's `params` in TensorBoard's HParams dashboard (beyond TF).

When an Estimator with `params` (a dict or `HParams`) starts a fresh training run
(no checkpoint in `model_dir` yet), the params are written once into the training
event file as the HParams plugin's session-start summary
(`tensorboard.plugins.hparams.summary_v2.hparams_pb`). The evaluations' metrics are
the scalars under `model_dir/eval[_name]`, which the dashboard finds below that
session, so runs with different hyperparameters in one log directory compare side
by side.

The plugin takes bool, int, float and str values; any other value (a list, a nested
dict) is written as its JSON text, and nested dicts become `outer.inner` names.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from tensorboard.plugins.hparams import summary_v2

logger = logging.getLogger("torchestimator")


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
        return
    if isinstance(value, (bool, int, float, str)):
        out[prefix] = value
        return
    if hasattr(value, "item") and getattr(value, "size", 2) == 1:  # numpy / torch scalars
        out[prefix] = value.item()
        return
    try:
        out[prefix] = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        out[prefix] = str(value)


def hparams_values(params: Any) -> dict[str, Any]:
    """`params` (a dict or HParams) as `{name: bool | int | float | str}` for the plugin."""
    if params is None:
        return {}
    if hasattr(params, "values") and callable(params.values) and not isinstance(params, dict):
        params = params.values()
    if not isinstance(params, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in params.items():
        _flatten(str(key), value, out)
    return out


def write_hparams(writer: Any, params: Any, step: int = 0) -> bool:
    """Writes `params` as the HParams plugin's session start into `writer`'s event file;
    returns False (writing nothing) when there are no params."""
    values = hparams_values(params)
    if not values:
        return False

    writer.write_summary(summary_v2.hparams_pb(values, start_time_secs=time.time()), step)
    writer.flush()
    return True

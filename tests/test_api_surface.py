"""TF 2.15's public names, module by module, against ours (issue 32): the share may not fall.

`fixtures/tf_api_2.15.json` lists the public names of the 58 TF 2.15 modules that Keras and
Estimator programs reach (made with TF 2.15 installed: `dir()` of each module). A name counts
when `hasattr` finds it here; refused TF 1.x graph machinery counts only when
docs/refusals.md lists it (tests/compat/v1/test_top_level.py keeps that in step).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import torchestimator as tf

_REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "tf_api_2.15.json").read_text())

#: The names present when this floor was last raised, per module and in all (raise them as
#: names land; never lower them).
FLOORS: dict[str, int] = {
    "autograph": 5,
    "compat.v1": 608,
    "compat.v1.estimator": 57,
    "compat.v1.feature_column": 19,
    "compat.v1.layers": 36,
    "compat.v1.logging": 20,
    "compat.v1.losses": 17,
    "compat.v1.metrics": 33,
    "compat.v1.nn": 113,
    "compat.v1.summary": 18,
    "compat.v1.train": 119,
    "config": 20,
    "data": 14,
    "data.experimental": 55,
    "distribute": 29,
    "dtypes": 32,
    "errors": 35,
    "estimator": 55,
    "estimator.experimental": 12,
    "estimator.export": 9,
    "experimental": 27,
    "feature_column": 17,
    "image": 71,
    "io": 37,
    "io.gfile": 15,
    "keras": 24,
    "keras.activations": 17,
    "keras.applications": 90,
    "keras.backend": 148,
    "keras.callbacks": 17,
    "keras.constraints": 14,
    "keras.datasets": 7,
    "keras.initializers": 34,
    "keras.layers": 145,
    "keras.losses": 51,
    "keras.metrics": 80,
    "keras.mixed_precision": 4,
    "keras.models": 9,
    "keras.optimizers": 18,
    "keras.optimizers.legacy": 9,
    "keras.optimizers.schedules": 9,
    "keras.preprocessing": 6,
    "keras.regularizers": 12,
    "keras.saving": 9,
    "keras.utils": 43,
    "linalg": 69,
    "lite": 7,
    "math": 132,
    "nn": 90,
    "ragged": 10,
    "random": 29,
    "saved_model": 30,
    "signal": 34,
    "sparse": 26,
    "strings": 26,
    "summary": 17,
    "tf": 303,
    "train": 23,
    "types": 1,
}
TOTAL_FLOOR = 3016


def _module(dotted: str):
    obj = tf
    for part in [p for p in dotted.split(".") if p and p != "tf"]:
        obj = getattr(obj, part)
    return obj


def _present(dotted: str) -> list[str]:
    try:
        module = _module(dotted)
    except AttributeError:
        return []
    present = []
    for name in _REFERENCE[dotted]:
        try:
            if hasattr(module, name):
                present.append(name)
        except Exception:  # a lazy attribute that raises: not present
            pass
    return present


def surface() -> dict[str, tuple[int, int]]:
    """`{module: (ours, TF's)}` over the reference modules."""
    return {m: (len(_present(m)), len(names)) for m, names in _REFERENCE.items()}


@pytest.mark.parametrize("module", sorted(_REFERENCE))
def test_a_module_keeps_its_names(module):
    have = len(_present(module))
    floor = FLOORS.get(module, 0)
    assert have >= floor, (
        f"tf.{module}: {have} of TF 2.15's {len(_REFERENCE[module])} names, fewer than the "
        f"{floor} it had; missing now: {sorted(set(_REFERENCE[module]) - set(_present(module)))}"
    )


def test_the_total_share_does_not_fall_and_stays_at_least_90_percent():
    rows = surface()
    have = sum(h for h, _ in rows.values())
    total = sum(t for _, t in rows.values())
    assert have >= TOTAL_FLOOR
    assert have / total >= 0.90, f"{have} of {total} names ({have / total:.1%})"

"""`tf.keras.utils.to_ordinal` against values recorded from TF 2.15
(tools/make_tf_datasets_fixtures.py -> fixtures/tf_utils_misc_2.15.json)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import torchestimator as tf

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf_utils_misc_2.15.json")) as _f:
    TF = json.load(_f)


@pytest.mark.parametrize("case", TF["to_ordinal"], ids=lambda c: str(c["y"]))
def test_to_ordinal_matches_tf(case):
    out = tf.keras.utils.to_ordinal(case["y"], num_classes=case["num_classes"])
    assert str(out.dtype) == case["dtype"]
    np.testing.assert_array_equal(out, np.array(case["out"], dtype=out.dtype))


def test_to_ordinal_shape_and_dtype():
    out = tf.keras.utils.to_ordinal(np.array([[2], [0]]), num_classes=3, dtype="int64")
    assert out.dtype == np.int64 and out.shape == (2, 2)
    assert out.tolist() == [[1, 1], [0, 0]]

"""tf.DeviceSpec (and TF1's mutable compat.v1.DeviceSpec) against TF 2.15's parsing and printing
(recorded by tools/make_tf_api_types_fixtures.py)."""

from __future__ import annotations

import pytest

import torchestimator as tf
from _api_types_fixtures import FIXTURES

TF = FIXTURES["device_specs"]
STRINGS = [k for k in TF if k == "" or ":" in k]


@pytest.mark.parametrize("spec", STRINGS)
def test_from_string_to_string_as_tf(spec):
    recorded = TF[spec]
    if isinstance(recorded, dict):
        with pytest.raises(ValueError) as info:
            tf.DeviceSpec.from_string(spec)
        assert str(info.value) == recorded["message"]
    else:
        assert tf.DeviceSpec.from_string(spec).to_string() == recorded


def test_merge_replace_and_constructor():
    a = tf.DeviceSpec.from_string("/job:worker/replica:0/task:1/device:GPU:0")
    assert a.make_merged_spec(tf.DeviceSpec(device_type="cpu", task=3)).to_string() == TF["merged"]
    assert a.replace(job="ps", device_index=2).to_string() == TF["replace"]
    assert tf.DeviceSpec(job="w", replica=1, task="2", device_type="gpu", device_index=0).to_string() == TF["ctor"]
    assert (a.job, a.replica, a.task, a.device_type, a.device_index) == ("worker", 0, 1, "GPU", 0)
    assert a == tf.DeviceSpec.from_string(a.to_string()) and hash(a) == hash(tf.DeviceSpec.from_string(a.to_string()))
    with pytest.raises(AttributeError):
        a.job = "x"  # TF2's spec is immutable


def test_v1_spec_is_mutable():
    v1 = tf.compat.v1.DeviceSpec.from_string("/job:a/task:1")
    v1.merge_from(tf.compat.v1.DeviceSpec(device_type="GPU", device_index=1))
    assert v1.to_string() == TF["v1_merge_from"]
    v1.job = "b"
    assert v1.to_string() == TF["v1_set_job"]

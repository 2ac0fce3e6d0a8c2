"""TF's quantized, resource, variant, int4/uint4 and float8 dtypes: names, enums, sizes and
predicates as TF 2.15's (recorded by tools/make_tf_api_types_fixtures.py); no tensor storage
for those torch lacks here (a clear error)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf
from _api_types_fixtures import FIXTURES

TF = FIXTURES["dtypes"]
EXTRA = ["qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant", "int4", "uint4"]


def _dtype(name):
    return getattr(tf.dtypes, name, None) or getattr(tf.experimental, name)


@pytest.mark.parametrize("name", EXTRA)
def test_attributes_as_tf(name):
    d, want = _dtype(name), TF[name]
    assert (d.name, d.as_datatype_enum, d.size, repr(d)) == (name, want["enum"], want["size"], want["repr"])
    assert (d.is_quantized, d.is_integer, d.is_unsigned, d.is_numeric, d.is_floating) == (
        want["is_quantized"], want["is_integer"], want["is_unsigned"], want["is_numeric"], want["is_floating"])
    for bound in ("min", "max"):
        if isinstance(want[bound], dict):
            with pytest.raises(TypeError):
                getattr(d, bound)
        else:
            assert getattr(d, bound) == want[bound]
    assert isinstance(d, tf.DType) and tf.as_dtype(name) is d and tf.as_dtype(d) is d


def test_quantized_set_and_top_level_names():
    assert sorted(d.name for d in tf.dtypes.QUANTIZED_DTYPES) == TF["QUANTIZED"]
    assert tf.qint8 is tf.dtypes.qint8 and tf.compat.v1.quint16 is tf.dtypes.quint16
    assert tf.compat.v1.QUANTIZED_DTYPES is tf.dtypes.QUANTIZED_DTYPES
    assert tf.dtypes.qint8.torch_dtype is torch.qint8
    assert tf.dtypes.qint8.as_numpy_dtype.names == ("qint8",)


def test_float8_are_torch_dtypes():
    assert tf.experimental.float8_e4m3fn is torch.float8_e4m3fn is tf.dtypes.experimental.float8_e4m3fn
    assert tf.experimental.float8_e5m2 is torch.float8_e5m2
    x = tf.cast(tf.constant([1.0, 448.0]), tf.experimental.float8_e4m3fn)
    assert x.dtype == torch.float8_e4m3fn and tf.cast(x, tf.float32).tolist() == [1.0, 448.0]


@pytest.mark.parametrize("name", ["qint8", "resource", "int4"])
def test_making_a_tensor_names_the_dtype(name):
    with pytest.raises(TypeError, match=f"dtype tf.{name}: torch has no tensor storage"):
        tf.constant([1], dtype=_dtype(name))
    with pytest.raises(TypeError, match=f"tf.{name}"):
        tf.TensorArray(_dtype(name), size=1)

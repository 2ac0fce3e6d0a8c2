"""TensorShape and tensor conversion live in low-level root modules (`_tensor_shape`,
`_tensor_conversion`) so that `_type_spec` and `_ragged` need nothing from `_ops` or `data`
(issue 27); the old import paths re-export the same objects, and values give their own spec."""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator import _tensor_conversion, _tensor_shape, _type_spec
from torchestimator._ops import convert
from torchestimator._ops.creation import _tensor_shape as old_shape_module

SRC = pathlib.Path(_type_spec.__file__).parent


def test_tensor_shape_is_the_same_class_from_both_paths():
    for name in ("TensorShape", "Dimension", "DType", "as_shape", "_shape_arg", "_dim_value"):
        assert getattr(old_shape_module, name) is getattr(_tensor_shape, name), name
    assert tf.TensorShape is _tensor_shape.TensorShape
    shape = old_shape_module.TensorShape([2, None])
    assert isinstance(shape, _tensor_shape.TensorShape)
    assert _tensor_shape.as_shape([2, None]) == shape
    assert old_shape_module._shape_arg(tf.TensorShape([3, 4]), "zeros") == (3, 4)


def test_conversion_is_the_same_function_and_registry_from_both_paths():
    assert convert.convert_to_tensor is _tensor_conversion.convert_to_tensor
    assert convert.as_tensor is _tensor_conversion.as_tensor
    # tf.register_tensor_conversion_function appends to this list through _ops.convert
    assert convert._CONVERSION_FUNCTIONS is _tensor_conversion._CONVERSION_FUNCTIONS
    assert _tensor_conversion.convert_to_tensor([1, 2]).dtype is torch.int32
    assert _tensor_conversion.convert_to_tensor(1.5).dtype is torch.float32


def test_registered_conversion_reaches_type_spec_from_value():
    class Meters:
        def __init__(self, v):
            self.v = v

    def to_tensor(value, dtype=None, name=None, as_ref=False):
        return torch.tensor([value.v, value.v], dtype=torch.float64)

    tf.register_tensor_conversion_function(Meters, to_tensor)
    try:
        assert tf.type_spec_from_value(Meters(2.0)) == tf.TensorSpec([2], tf.float64)
    finally:
        convert._CONVERSION_FUNCTIONS[:] = [e for e in convert._CONVERSION_FUNCTIONS if e[1] is not Meters]


def _imported_modules(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("module", ["_tensor_shape.py", "_tensor_conversion.py", "_type_spec.py",
                                    "_ragged/_spec.py", "_ragged/_tensor.py", "_ragged/_values.py"])
def test_low_modules_import_nothing_from_ops_or_data(module):
    imported = _imported_modules(SRC / module)
    upward = sorted(n for n in imported if n.startswith(("torchestimator._ops", "torchestimator.data")))
    assert upward == [], f"{module} imports {upward}"
    if module.startswith("_type_spec"):
        assert not any(n.startswith("torchestimator._ragged") for n in imported)


def test_type_spec_from_value_uses_the_values_own_spec():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3])
    assert rt._type_spec == tf.RaggedTensorSpec([2, None], tf.int32, 1, tf.int64)
    assert tf.type_spec_from_value(rt) == rt._type_spec
    opt = tf.experimental.Optional.from_value(tf.constant([1.0, 2.0]))
    spec = tf.type_spec_from_value(opt)
    assert isinstance(spec, tf.OptionalSpec) and spec == opt._type_spec
    assert spec.element_spec == tf.TensorSpec([2], tf.float32)
    assert spec.value_type is tf.experimental.Optional
    assert tf.type_spec_from_value(np.zeros((2, 3), np.float64)) == tf.TensorSpec([2, 3], tf.float64)
    assert tf.type_spec_from_value([b"a", b"b"]) == tf.TensorSpec([2], tf.string)
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tf.type_spec_from_value(object())


def test_ragged_flat_values_convert_without_ops():
    rt = tf.RaggedTensor.from_row_lengths([[1.0], [2.0], [3.0]], [2, 1])
    assert rt.flat_values.dtype is torch.float32
    assert isinstance(rt.shape, _tensor_shape.TensorShape)
    assert rt.shape.as_list() == [2, None, 1]


def test_get_shape_is_a_tensor_shape_on_tensors_variables_and_keras_tensors():
    x = tf.zeros([2, 3])
    shape = x.get_shape()
    assert isinstance(shape, tf.TensorShape) and shape == x.shape == (2, 3)
    assert shape.as_list() == [2, 3] and shape.rank == 2 and shape[1:].as_list() == [3]
    assert shape.num_elements() == 6
    assert tf.Variable([[1.0, 2.0]]).get_shape().as_list() == [1, 2]
    symbolic = tf.keras.Input((4,))
    assert symbolic.get_shape().as_list() == [None, 4] == symbolic.shape.as_list()
    assert symbolic.shape[-1] == 4 and symbolic.shape.rank == 2


def test_a_spec_shape_is_a_tuple_with_the_tensor_shape_api():
    spec = tf.TensorSpec([None, 2], tf.float32)
    assert spec.shape == (None, 2) and hash(spec.shape) == hash((None, 2))
    assert spec.shape == tf.TensorShape([None, 2]) and tf.TensorShape([None, 2]) == spec.shape
    assert spec.shape.as_list() == [None, 2] and spec.shape.rank == spec.shape.ndims == 2
    assert spec.shape[1:].as_list() == [2] and (spec.shape + (3,)).as_list() == [None, 2, 3]
    assert not spec.shape.is_fully_defined() and spec.shape.num_elements() is None
    assert spec.shape.is_compatible_with([5, 2]) and not spec.shape.is_compatible_with([5, 3])
    assert spec.shape.merge_with([3, 2]).as_list() == [3, 2]  # TensorShape's API, handed over
    assert repr(spec) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)"
    assert repr(spec.shape) == "TensorShape([None, 2])" and str(spec.shape) == "(None, 2)"
    assert pickle.loads(pickle.dumps(spec.shape)).as_list() == [None, 2]
    images, labels = tf.data.Dataset.from_tensor_slices(
        (np.zeros((4, 3), np.float32), np.arange(4))).batch(2).element_spec
    assert images.shape.as_list() == [None, 3] and labels.shape.as_list() == [None]
    with pytest.raises(AttributeError):
        getattr(spec.shape, "no_such_method")  # noqa: B009 - the attribute lookup is the test

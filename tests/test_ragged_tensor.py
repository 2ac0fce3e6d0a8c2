"""tf.RaggedTensor and tf.RaggedTensorSpec against TF 2.15's recorded values."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _ragged_fixtures import TF, same
from torchestimator.errors import InvalidArgumentError

R = tf.ragged.constant
RT = tf.RaggedTensor


def rt():
    return R([[1, 2], [3], [], [4, 5, 6]])


def rt3():
    return R([[[1, 2], [3]], [], [[4, 5, 6]]])


def rtf():
    return R([[1.5, 2.0], [3.0], [], [4.0, 5.0, 6.0]])


V6 = [1, 2, 3, 4, 5, 6]
FACTORIES = {
    "from_row_splits": lambda: RT.from_row_splits(V6, [0, 2, 3, 3, 6]),
    "from_row_lengths": lambda: RT.from_row_lengths(V6, [2, 1, 0, 3]),
    "from_value_rowids": lambda: RT.from_value_rowids(V6, [0, 0, 1, 3, 3, 3]),
    "from_value_rowids_nrows": lambda: RT.from_value_rowids(V6, [0, 0, 1, 3, 3, 3], nrows=6),
    "from_row_starts": lambda: RT.from_row_starts(V6, [0, 2, 3, 3]),
    "from_row_limits": lambda: RT.from_row_limits(V6, [2, 3, 3, 6]),
    "from_uniform_row_length": lambda: RT.from_uniform_row_length(V6, 2),
    "from_nested_row_splits": lambda: RT.from_nested_row_splits(V6, [[0, 2, 2, 3], [0, 2, 3, 6]]),
    "from_nested_row_lengths": lambda: RT.from_nested_row_lengths(V6, [[2, 0, 1], [2, 1, 3]]),
    "from_tensor": lambda: RT.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]]),
    "from_tensor_lengths": lambda: RT.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]],
                                                  lengths=[2, 1, 3]),
    "from_tensor_padding": lambda: RT.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]], padding=0),
    "from_tensor_rank2": lambda: RT.from_tensor([[[1, 0], [2, 3]], [[0, 0], [4, 0]]], padding=0,
                                                ragged_rank=2),
    "from_tensor_3d_rank1": lambda: RT.from_tensor([[[1, 0], [2, 3]], [[0, 0], [4, 0]]]),
    "from_sparse": lambda: RT.from_sparse(tf.SparseTensor(
        [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], tf.constant(V6), [4, 3])),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_match_tf(name):
    same(FACTORIES[name](), TF[name])


@pytest.mark.parametrize("method", ["row_lengths", "value_rowids", "nrows", "row_starts",
                                    "row_limits", "bounding_shape", "to_tensor", "to_sparse"])
@pytest.mark.parametrize("which", ["rt", "rt3"])
def test_accessors_match_tf(method, which):
    value = {"rt": rt, "rt3": rt3}[which]()
    same(getattr(value, method)(), TF[f"{which}.{method}"])


CASES = {
    "rt3.row_lengths_axis2": lambda: rt3().row_lengths(axis=2),
    "rt.values": lambda: rt().values,
    "rt3.flat_values": lambda: rt3().flat_values,
    "rt3.values": lambda: rt3().values,
    "rt.to_tensor_default": lambda: rt().to_tensor(default_value=-1),
    "rt.to_tensor_shape": lambda: rt().to_tensor(shape=[3, 2]),
    "rt.to_tensor_shape_wide": lambda: rt().to_tensor(default_value=9, shape=[5, 4]),
    "rt3.to_tensor": lambda: rt3().to_tensor(),
    "rt.merge_dims_0_1": lambda: rt().merge_dims(0, 1),
    "rt3.merge_dims_1_2": lambda: rt3().merge_dims(1, 2),
    "rt3.merge_dims_0_1": lambda: rt3().merge_dims(0, 1),
    "rt.with_values": lambda: rt().with_values(rt().values * 10),
    "rt3.with_flat_values": lambda: rt3().with_flat_values(rt3().flat_values.float() / 2),
    "rt[1]": lambda: rt()[1],
    "rt[-1]": lambda: rt()[-1],
    "rt[1:3]": lambda: rt()[1:3],
    "rt[::2]": lambda: rt()[::2],
    "rt[3, 1]": lambda: rt()[3, 1],
    "rt3[2]": lambda: rt3()[2],
    "rt3[0, 0]": lambda: rt3()[0, 0],
    "rt[:, 1:]": lambda: rt()[:, 1:],
    "rt[:, :2]": lambda: rt()[:, :2],
    "rt+1": lambda: rt() + 1,
    "rt*rt": lambda: rt() * rt(),
    "rt-rt": lambda: rt() - rt(),
    "rtf/2": lambda: rtf() / 2,
    "2*rt": lambda: 2 * rt(),
    "rtf+rtf": lambda: rtf() + rtf(),
    "-rt": lambda: -rt(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_methods_match_tf(name):
    same(CASES[name](), TF[name])


def test_shape_repr_numpy_and_spec():
    assert rt().shape.as_list() == TF["rt.shape"]["value"]
    assert rt3().shape.as_list() == TF["rt3.shape"]["value"]
    assert repr(rt()) == TF["repr"]["value"] == str(rt())
    assert repr(rt3()) == TF["repr3"]["value"]
    assert repr(R([["a", "b"], ["c"]])) == TF["repr_str"]["value"]
    arr = rt().numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == object
    assert TF["rt.numpy"]["type"] == "ndarray" and TF["rt.numpy"]["dtype"] == "object"
    assert [a.tolist() for a in arr] == TF["rt.numpy"]["value"]
    uniform = R([[1, 2], [3, 4]]).numpy()
    assert uniform.dtype == np.int32 and uniform.tolist() == [[1, 2], [3, 4]]
    nested = rt3().numpy()
    assert nested.dtype == object and [a.tolist() for a in nested[2]] == [[4, 5, 6]]
    assert repr(tf.RaggedTensorSpec([None, None], tf.int32)) == TF["spec"]["value"]
    assert repr(tf.RaggedTensorSpec.from_value(rt())) == TF["spec_of_rt"]["value"]
    assert tf.is_tensor(rt()) is TF["is_tensor"]["value"]
    assert isinstance(rt(), tf.RaggedTensor) and isinstance(rt(), tf.compat.v1.RaggedTensor)
    assert rt().dtype is tf.int32 and R([["a"]]).dtype is tf.string
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    assert spec.is_compatible_with(rt()) and not spec.is_compatible_with(rt3())


def test_inner_ragged_index_errors_like_tf():
    for key in ("rt[:, 0]_error", "rtu[:, 1]_error"):
        assert TF[key]["type"] == "ValueError"
    with pytest.raises(ValueError, match=TF["rt[:, 0]_error"]["message"]):
        rt()[:, 0]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        R([[1, 2], [3, 4]])[:, 1]
    with pytest.raises(IndexError, match="index 4 is out of bounds for 4 rows"):
        rt()[4]


@pytest.mark.parametrize("fn,fix,match", [
    (lambda: RT.from_row_splits([1, 2, 3], [0, 2, 1]), "bad_splits_error",
     r"row_splits must be sorted.*row_splits=\[0, 2, 1\]"),
    (lambda: RT.from_row_splits([1, 2, 3], [1, 2, 3]), "bad_splits_start_error",
     r"row_splits\[0\] must be 0.*row_splits=\[1, 2, 3\]"),
    (lambda: RT.from_row_splits([1, 2, 3], [0, 2]), "bad_splits_end_error",
     r"row_splits\[-1\] \(2\) must equal the number of values \(3\).*row_splits=\[0, 2\]"),
    (lambda: RT.from_row_lengths([1, 2, 3], [2, 2]), "bad_lengths_error",
     r"sum\(row_lengths\) \(4\) must equal the number of values \(3\).*row_lengths=\[2, 2\]"),
    (lambda: RT.from_value_rowids([1, 2, 3], [0, 2, 1]), "bad_rowids_error",
     r"value_rowids must be non-negative and sorted.*value_rowids=\[0, 2, 1\]"),
])
def test_bad_partitions_name_argument_and_values(fn, fix, match):
    assert TF[fix]["type"] == "InvalidArgumentError"
    with pytest.raises(InvalidArgumentError, match=match):
        fn()


def test_constructor_is_private_and_mismatched_math_errors():
    with pytest.raises(ValueError, match="factory methods"):
        RT([1], [0, 1])
    with pytest.raises(ValueError, match="same row_splits"):
        rt() + R([[1], [2]])
    with pytest.raises(ValueError, match="map_flat_values"):
        rt() + torch.ones(3, dtype=torch.int32)


def test_string_values_round_trip():
    s = R([["a", "bc"], [], ["d"]])
    assert s.to_list() == [[b"a", b"bc"], [], [b"d"]]
    dense = s.to_tensor()
    assert dense.tolist() == [["a", "bc"], [b"", b""], ["d", b""]]
    sp = s.to_sparse()
    assert sp.indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    back = RT.from_sparse(sp)
    assert back.to_list() == s.to_list()


def test_row_splits_dtype_int32_kept():
    r = RT.from_row_splits(V6, torch.tensor([0, 2, 6], dtype=torch.int32))
    assert r.row_splits.dtype == torch.int32 and r.row_lengths().dtype == torch.int32
    assert r.with_row_splits_dtype(tf.int64).row_splits.dtype == torch.int64

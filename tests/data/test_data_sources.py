"""Sources: from_tensor_slices, from_tensors, range, from_generator, zip, list_files."""

import collections
import os

import numpy as np
import pandas as pd
import pytest
import torch

import torchestimator as tf
from torchestimator.data import Dataset


def as_list(ds):
    return list(ds.as_numpy_iterator())


def test_from_tensor_slices_array_yields_torch_rows():
    ds = Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = list(ds)
    assert len(rows) == 3
    assert isinstance(rows[0], torch.Tensor) and rows[0].dtype == torch.float32
    torch.testing.assert_close(rows[2].cpu(), torch.tensor([4.0, 5.0]))  # on the default device
    assert ds.element_spec == tf.TensorSpec((2,), tf.float32)
    assert ds.cardinality() == 3 and len(ds) == 3


def test_from_tensor_slices_nested_structure_and_dtypes():
    features = {"age": np.array([30, 40, 50]), "name": np.array(["a", "b", "c"]),
                "w": torch.tensor([0.5, 1.5, 2.5])}
    ds = Dataset.from_tensor_slices((features, [0, 1, 0]))
    spec = ds.element_spec
    assert spec[0]["age"] == tf.TensorSpec((), tf.int64)
    assert spec[0]["name"].dtype is tf.string
    assert spec[1] == tf.TensorSpec((), tf.int64)
    x, y = next(iter(ds.skip(1)))
    assert list(x) == ["age", "name", "w"]  # the user's key order
    assert int(x["age"]) == 40 and x["name"] == "b" and int(y) == 1
    assert float(x["w"]) == 1.5


def test_python_lists_use_float32_and_int64():
    floats = Dataset.from_tensor_slices([1.0, 2.0])
    ints = Dataset.from_tensor_slices([[1, 2], [3, 4]])
    assert floats.element_spec.dtype == torch.float32
    assert ints.element_spec == tf.TensorSpec((2,), tf.int64)
    assert as_list(ints)[1].tolist() == [3, 4]


def test_from_tensor_slices_pandas_columns():
    df = pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"]})
    ds = Dataset.from_tensor_slices(dict(df))
    assert [r["s"] for r in as_list(ds)] == ["x", "y"]
    assert ds.element_spec["a"].dtype == torch.float64


def test_namedtuple_structure_is_kept():
    Point = collections.namedtuple("Point", ["x", "y"])
    ds = Dataset.from_tensor_slices(Point(np.arange(3), np.arange(3) * 10))
    p = list(ds)[2]
    assert isinstance(p, Point) and int(p.y) == 20


def test_from_tensor_slices_errors_name_the_component():
    with pytest.raises(ValueError, match=r"same size.*\[0\]: 3.*\[1\]: 2"):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(2)))
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices(np.float32(1.0))
    with pytest.raises(TypeError, match=r"\['bad'\].*object array"):
        Dataset.from_tensor_slices({"bad": np.array([1, None], dtype=object)})
    with pytest.raises(ValueError, match="ragged"):
        Dataset.from_tensor_slices([[1, 2], [3]])


def test_from_tensors_is_one_element():
    ds = Dataset.from_tensors(([1, 2, 3], "label"))
    (x, s), = list(ds)
    assert x.tolist() == [1, 2, 3] and s == "label"
    assert ds.cardinality() == 1
    assert ds.element_spec[0] == tf.TensorSpec((3,), tf.int64)


def test_range_like_python():
    assert as_list(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert as_list(Dataset.range(2, 5)) == [2, 3, 4]
    assert as_list(Dataset.range(1, 5, 2)) == [1, 3]
    assert as_list(Dataset.range(5, 1, -2)) == [5, 3]
    assert as_list(Dataset.range(0)) == []
    assert Dataset.range(10).element_spec == tf.TensorSpec((), tf.int64)
    assert Dataset.range(3, dtype=tf.int32).element_spec.dtype == torch.int32
    assert Dataset.range(1, 10, 3).cardinality() == 3
    with pytest.raises(TypeError, match="1 to 3 arguments"):
        Dataset.range()
    with pytest.raises(TypeError, match="integers"):
        Dataset.range(1.5)


def test_from_generator_with_signature_and_args():
    def gen(n):
        for i in range(n):
            yield {"x": [i, i + 1], "s": f"row{i}"}, i % 2

    sig = ({"x": tf.TensorSpec((2,), tf.float32), "s": tf.TensorSpec((), tf.string)},
           tf.TensorSpec((), tf.int64))
    ds = Dataset.from_generator(gen, output_signature=sig, args=(3,))
    rows = list(ds)
    assert len(rows) == 3 and rows[2][0]["s"] == "row2"
    assert rows[1][0]["x"].dtype == torch.float32 and rows[1][1].dtype == torch.int64
    assert ds.element_spec == sig
    assert len(list(ds)) == 3  # each pass calls the generator again
    assert ds.cardinality() == tf.data.UNKNOWN_CARDINALITY


def test_from_generator_checks_shape_and_type():
    bad_shape = Dataset.from_generator(lambda: iter([[1, 2, 3]]),
                                       output_signature=tf.TensorSpec((2,), tf.int64))
    with pytest.raises(ValueError, match=r"shape \(3,\) where an element of shape \(2,\)"):
        list(bad_shape)
    bad_type = Dataset.from_generator(lambda: iter(["abc"]),
                                      output_signature=tf.TensorSpec((), tf.float32))
    with pytest.raises(TypeError, match="expected type was torch.float32"):
        list(bad_type)
    with pytest.raises(TypeError, match="output_signature"):
        Dataset.from_generator(lambda: iter([]))
    with pytest.raises(TypeError, match="callable"):
        Dataset.from_generator([1, 2], output_signature=tf.TensorSpec(()))


def test_from_generator_output_types_and_shapes():
    ds = Dataset.from_generator(lambda: iter([(1, [1.0]), (2, [2.0])]),
                                output_types=(tf.int64, tf.float32),
                                output_shapes=((), (1,)))
    assert ds.element_spec == (tf.TensorSpec((), tf.int64), tf.TensorSpec((1,), tf.float32))
    assert [int(a) for a, _ in ds] == [1, 2]


def test_zip_forms_and_shortest_length():
    a, b = Dataset.range(5), Dataset.range(10, 13)
    assert as_list(Dataset.zip(a, b)) == [(0, 10), (1, 11), (2, 12)]
    assert as_list(Dataset.zip((a, b))) == as_list(Dataset.zip(a, b))
    d = as_list(Dataset.zip({"x": a, "y": b}))
    assert d[1] == {"x": 1, "y": 11}
    assert Dataset.zip(a, b).cardinality() == 3
    nested = Dataset.zip((a, (b, a.map(lambda v: v * 2))))
    assert as_list(nested)[2] == (2, (12, 4))
    with pytest.raises(TypeError, match="expects Datasets"):
        Dataset.zip((a, [1, 2]))


def test_list_files_sorted_shuffled_and_missing(tmp_path):
    for name in ("b.txt", "a.txt", "c.txt"):
        (tmp_path / name).write_text("x\n")
    pattern = str(tmp_path / "*.txt")
    names = as_list(Dataset.list_files(pattern, shuffle=False))
    assert [os.path.basename(n) for n in names] == ["a.txt", "b.txt", "c.txt"]
    shuffled = Dataset.list_files(pattern, seed=3)
    passes = [tuple(as_list(shuffled)) for _ in range(4)]
    assert all(sorted(p) == sorted(names) for p in passes)
    assert len(set(passes)) > 1  # reshuffled per pass
    assert shuffled.cardinality() == 3
    with pytest.raises(ValueError, match=r"No files matched pattern .*nothing-\*\.csv"):
        Dataset.list_files(str(tmp_path / "nothing-*.csv"))
    with pytest.raises(FileNotFoundError):
        Dataset.list_files(str(tmp_path / "missing.txt"))


def test_iterator_protocol_and_repr():
    ds = Dataset.range(2)
    it = iter(ds)
    assert int(it.get_next()) == 0 and int(next(it)) == 1
    with pytest.raises(StopIteration):
        next(it)
    assert it.element_spec == tf.TensorSpec((), tf.int64)
    assert "RangeDataset" in repr(ds)
    assert isinstance(tf.data.Dataset, type)
    assert tf.data.Dataset.range(3).get_single_element is not None
    assert int(Dataset.from_tensors(7).get_single_element()) == 7
    with pytest.raises(ValueError, match="more than one"):
        Dataset.range(2).get_single_element()

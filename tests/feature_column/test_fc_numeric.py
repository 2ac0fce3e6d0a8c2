"""numeric_column and bucketized_column: shapes, normalizers, bucket edges, errors."""

import numpy as np
import pytest
import torch

import torchestimator as tf

fc = tf.feature_column
DenseFeatures = tf.keras.layers.DenseFeatures


def dense(columns, features):
    return DenseFeatures(columns)(features).detach().numpy()


def test_numeric_column_defaults_and_spec():
    col = fc.numeric_column("price")
    assert col.name == "price" and col.shape == (1,) and col.dtype == torch.float32
    assert col.default_value is None
    assert fc.make_parse_example_spec([col]) == {"price": fc.FixedLenFeature((1,), torch.float32, None)}
    col = fc.numeric_column("pos", shape=2, default_value=0.5)
    assert col.shape == (2,) and col.default_value == (0.5, 0.5)
    col = fc.numeric_column("m", shape=(2, 2), default_value=[[1, 2], [3, 4]])
    assert col.default_value == ((1.0, 2.0), (3.0, 4.0))


def test_numeric_column_output_shapes_and_dtypes():
    feats = {
        "a": np.array([1.0, 2.0, 3.0]),             # (batch,) for shape (1,)
        "b": torch.tensor([[1, 2], [3, 4], [5, 6]]),  # ints are cast to float32
        "m": np.arange(12).reshape(3, 2, 2),
        "flag": np.array([True, False, True]),
    }
    out = dense([fc.numeric_column("a"), fc.numeric_column("b", shape=2),
                 fc.numeric_column("m", shape=(2, 2)), fc.numeric_column("flag")], feats)
    # sorted by name: a, b, flag, m
    np.testing.assert_array_equal(out[0], [1, 1, 2, 1, 0, 1, 2, 3])
    assert out.dtype == np.float32 and out.shape == (3, 8)


def test_normalizer_fn_is_applied_to_the_raw_values():
    col = fc.numeric_column("x", normalizer_fn=lambda x: (x - 3.0) / 2.0)
    np.testing.assert_allclose(dense([col], {"x": [1.0, 3.0, 7.0]})[:, 0], [-1.0, 0.0, 2.0])
    z = fc.numeric_column("x", normalizer_fn=fc.ZScoreNormalizer(mean=3.0, std=2.0))
    np.testing.assert_allclose(dense([z], {"x": [1.0, 3.0, 7.0]})[:, 0], [-1.0, 0.0, 2.0])
    zv = fc.numeric_column("v", shape=2, normalizer_fn=fc.ZScoreNormalizer(mean=[0.0, 10.0], std=[1.0, 5.0]))
    np.testing.assert_allclose(dense([zv], {"v": [[1.0, 20.0]]}), [[1.0, 2.0]])


def test_numeric_column_errors():
    with pytest.raises(ValueError, match="shape dimensions must be greater than 0"):
        fc.numeric_column("x", shape=(0,))
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.numeric_column("x", dtype=tf.string)
    with pytest.raises(ValueError, match="The shape of default_value must be equal to given shape"):
        fc.numeric_column("x", shape=2, default_value=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="default_value must be compatible with dtype"):
        fc.numeric_column("x", default_value="a")
    with pytest.raises(TypeError, match="normalizer_fn must be a callable"):
        fc.numeric_column("x", normalizer_fn=3)
    with pytest.raises(ValueError, match="key must be a non-empty string"):
        fc.numeric_column("")


def test_strings_given_to_a_numeric_column_name_the_column():
    with pytest.raises(ValueError, match=r"numeric_column 'age' expects numbers, but feature 'age' holds strings"):
        dense([fc.numeric_column("age")], {"age": np.array(["1", "x"])})


def test_wrong_number_of_values_names_both_shapes():
    with pytest.raises(ValueError, match=r"numeric_column 'x' has shape \(3,\).*shape \(2, 2\)"):
        dense([fc.numeric_column("x", shape=3)], {"x": np.zeros((2, 2))})


def test_ragged_numeric_input_is_rejected_with_advice():
    with pytest.raises(ValueError, match="sequence_numeric_column"):
        dense([fc.numeric_column("x", shape=2)], {"x": [[1.0, 2.0], [3.0]]})


def test_bucketized_edges_are_left_closed():
    age = fc.numeric_column("age")
    b = fc.bucketized_column(age, [18, 25, 40])
    assert b.name == "age_bucketized" and b.num_buckets == 4 and b.variable_shape == (1, 4)
    x = np.array([-1.0, 17.999, 18.0, 24.9, 25.0, 39.0, 40.0, 1e9])
    out = dense([b], {"age": x})
    np.testing.assert_array_equal(out.argmax(1), [0, 0, 1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(out.sum(1), np.ones(8))


def test_bucketized_compares_in_float32_as_tf():
    # 0.1 as float32 is 0.100000001; TF compares float32 values with float32 boundaries.
    b = fc.bucketized_column(fc.numeric_column("x"), [0.1])
    out = dense([b], {"x": np.array([0.1], dtype=np.float32)})
    np.testing.assert_array_equal(out, [[0, 1]])


def test_bucketized_multi_dimensional_source_ids():
    b = fc.bucketized_column(fc.numeric_column("p", shape=2), [0.0, 1.0])
    assert b.num_buckets == 6
    out = dense([b], {"p": np.array([[-1.0, 0.5], [1.0, 0.0]])})
    np.testing.assert_array_equal(out, [[1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 1, 0]])
    cache = fc.FeatureTransformationCache({"p": np.array([[-1.0, 0.5], [1.0, 0.0]])})
    sp = b.get_sparse_tensors(cache, None).id_tensor
    # id = bucket + element_index * (len(boundaries) + 1)
    assert sp.ids.tolist() == [0, 4, 2, 4] and sp.rows.tolist() == [0, 0, 1, 1]


def test_bucketized_errors():
    age = fc.numeric_column("age")
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(age, [3, 1])
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(age, [1, 1])
    with pytest.raises(ValueError, match="boundaries must not be empty"):
        fc.bucketized_column(age, [])
    with pytest.raises(ValueError, match="source_column must be a column generated with numeric_column"):
        fc.bucketized_column(fc.categorical_column_with_identity("a", 3), [1])
    with pytest.raises(ValueError, match="source_column must be one-dimensional column"):
        fc.bucketized_column(fc.numeric_column("m", shape=(2, 2)), [1])

"""Sequence columns and SequenceFeatures: padding, lengths, embeddings per time step."""

import numpy as np
import pytest
import torch

import torchestimator as tf

fc = tf.feature_column
SequenceFeatures = tf.keras.experimental.SequenceFeatures


def table_init(shape, dtype=None):
    return torch.arange(shape[0] * shape[1], dtype=torch.float32).reshape(shape)


def test_sequence_numeric_column_pads_with_default_value():
    col = fc.sequence_numeric_column("x", default_value=-1.0)
    assert fc.make_parse_example_spec([col]) == {"x": fc.VarLenFeature(torch.float32)}
    seq, length = SequenceFeatures([col])({"x": [[0.5, 1.5, 2.5], [1.0], []]})
    np.testing.assert_array_equal(seq.numpy()[..., 0], [[0.5, 1.5, 2.5], [1.0, -1, -1], [-1, -1, -1]])
    assert length.tolist() == [3, 1, 0] and length.dtype == torch.int64


def test_sequence_numeric_column_groups_values_by_shape():
    col = fc.sequence_numeric_column("x", shape=(2,))
    seq, length = SequenceFeatures([col])({"x": [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0]]})
    assert seq.shape == (2, 2, 2)
    np.testing.assert_array_equal(seq.numpy(), [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])
    assert length.tolist() == [2, 1]
    dense_in, dense_len = SequenceFeatures([col])({"x": np.ones((3, 4))})
    assert dense_in.shape == (3, 2, 2) and dense_len.tolist() == [2, 2, 2]


def test_embedding_of_sequence_ids_per_time_step():
    ids = fc.sequence_categorical_column_with_identity("sid", 5)
    col = fc.embedding_column(ids, 2, initializer=table_init)
    seq, length = SequenceFeatures([col])({"sid": [[1, 2, 0], [3], []]})
    t = table_init((5, 2)).numpy()
    np.testing.assert_array_equal(seq.detach().numpy(), [[t[1], t[2], t[0]], [t[3], [0, 0], [0, 0]], [[0, 0]] * 3])
    assert length.tolist() == [3, 1, 0]


def test_indicator_of_sequence_and_concatenation_in_name_order():
    tok = fc.sequence_categorical_column_with_vocabulary_list("tok", ["x", "y"])
    num = fc.sequence_numeric_column("a_num")
    layer = SequenceFeatures([fc.indicator_column(tok), num])
    assert [c.name for c in layer.feature_columns] == ["a_num", "tok_indicator"]
    # padded 2-D string input: '' is padding
    seq, length = layer({"tok": np.array([["x", "y"], ["y", ""]]), "a_num": [[1.0, 2.0], [3.0]]})
    np.testing.assert_array_equal(seq.numpy(), [[[1, 1, 0], [2, 0, 1]], [[3, 0, 1], [0, 0, 0]]])
    assert length.tolist() == [2, 1]
    assert layer.compute_output_shape({"tok": (None, None)}) == ((None, None, 3), (None,))


def test_other_sequence_constructors(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("x\ny\n")
    for cat in (
        fc.sequence_categorical_column_with_hash_bucket("tok", 5),
        fc.sequence_categorical_column_with_vocabulary_file("tok", str(path)),
        fc.sequence_categorical_column_with_vocabulary_list("tok", ["x", "y"], num_oov_buckets=1),
    ):
        assert cat.name == "tok"
        seq, length = SequenceFeatures([fc.indicator_column(cat)])({"tok": [["x", "y", "x"], ["y"]]})
        assert seq.shape == (2, 3, cat.num_buckets) and length.tolist() == [3, 1]
        np.testing.assert_array_equal(seq.sum(-1).numpy(), [[1, 1, 1], [1, 0, 0]])


def test_sequence_layer_errors():
    with pytest.raises(ValueError, match="must be SequenceDenseColumns"):
        SequenceFeatures([fc.numeric_column("x")])
    with pytest.raises(ValueError, match="sequence_categorical_column_with_"):
        SequenceFeatures([fc.embedding_column(fc.categorical_column_with_identity("i", 3), 2)])
    layer = SequenceFeatures([fc.sequence_numeric_column("a"), fc.sequence_numeric_column("b")])
    with pytest.raises(ValueError, match="Sequence lengths of the feature columns must be equal"):
        layer({"a": [[1.0, 2.0]], "b": [[1.0]]})
    with pytest.raises(ValueError, match="default_value must be a number"):
        fc.sequence_numeric_column("x", default_value="a")

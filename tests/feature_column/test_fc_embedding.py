"""embedding_column and shared_embeddings: combiners, weights, max_norm, one shared table."""

import math

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import torchestimator as tf

fc = tf.feature_column
DenseFeatures = tf.keras.layers.DenseFeatures

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)


def table_init(shape, dtype=None):
    return torch.tensor(TABLE[: shape[0], : shape[1]])


VOCAB = fc.categorical_column_with_vocabulary_list("t", ["a", "b", "c", "d"])
FEATS = {"t": [["a", "c"], [], ["x", "b"]], "w": [[1.0, 3.0], [], [2.0, 5.0]]}


def embed(column, features=FEATS):
    return DenseFeatures([column])(features).detach().numpy()


@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
def test_combiners_by_hand(combiner):
    out = embed(fc.embedding_column(VOCAB, 3, combiner=combiner, initializer=table_init))
    a, b, c = TABLE[0], TABLE[1], TABLE[2]
    expected = {
        "sum": [a + c, np.zeros(3), b],
        "mean": [(a + c) / 2, np.zeros(3), b],
        "sqrtn": [(a + c) / math.sqrt(2), np.zeros(3), b],
    }[combiner]
    np.testing.assert_allclose(out, expected, rtol=1e-6)  # OOV 'x' (id -1) is ignored


@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
def test_weighted_combiners_by_hand(combiner):
    weighted = fc.weighted_categorical_column(VOCAB, "w")
    assert weighted.name == "t_weighted_by_w" and weighted.num_buckets == 4
    out = embed(fc.embedding_column(weighted, 3, combiner=combiner, initializer=table_init))
    a, b, c = TABLE[0], TABLE[1], TABLE[2]
    row0 = {"sum": a + 3 * c, "mean": (a + 3 * c) / 4, "sqrtn": (a + 3 * c) / math.sqrt(10)}[combiner]
    row2 = {"sum": 5 * b, "mean": b, "sqrtn": b}[combiner]  # id -1 drops with its weight
    np.testing.assert_allclose(out, [row0, np.zeros(3), row2], rtol=1e-6)


def test_non_positive_weights_are_pruned_for_mean_only():
    weighted = fc.weighted_categorical_column(VOCAB, "w")
    feats = {"t": np.array([["a", "b"]]), "w": np.array([[2.0, -1.0]])}
    mean = embed(fc.embedding_column(weighted, 3, initializer=table_init), feats)
    np.testing.assert_allclose(mean, [TABLE[0]])
    total = embed(fc.embedding_column(weighted, 3, combiner="sum", initializer=table_init), feats)
    np.testing.assert_allclose(total, [2 * TABLE[0] - TABLE[1]])


def test_weights_must_align_with_ids():
    weighted = fc.weighted_categorical_column(VOCAB, "w")
    with pytest.raises(ValueError, match="has only 1 value"):
        embed(fc.embedding_column(weighted, 3), {"t": [["a", "b"]], "w": [[1.0]]})
    with pytest.raises(ValueError, match="Feature 'w' is required"):
        embed(fc.embedding_column(weighted, 3), {"t": [["a"]]})
    with pytest.raises(ValueError, match="not convertible to float"):
        fc.weighted_categorical_column(VOCAB, "w", dtype=tf.string)


def test_max_norm_clips_each_looked_up_row():
    out = embed(fc.embedding_column(VOCAB, 3, combiner="sum", max_norm=2.0, initializer=table_init))
    def clip(v):
        n = np.linalg.norm(v)
        return v * 2.0 / max(n, 2.0)
    np.testing.assert_allclose(out[0], clip(TABLE[0]) + clip(TABLE[2]), rtol=1e-6)
    np.testing.assert_allclose(out[2], clip(TABLE[1]), rtol=1e-6)


def test_table_is_a_layer_weight_with_tf_name_and_default_initializer():
    torch.manual_seed(0)
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 1000), 16)
    assert col.name == "i_embedding" and col.variable_shape == (16,)
    layer = DenseFeatures([col], name="input_layer")
    with tf.GradientTape():  # numpy inputs at the top level record gradients only under a tape
        out = layer({"i": np.array([1, 2])})
    (w,) = layer.weights
    assert w._keras_name == "input_layer/i_embedding/embedding_weights" and tuple(w.shape) == (1000, 16)
    # truncated normal(0, 1/sqrt(16)): within 2 stddev, stddev close to 0.25 * 0.88
    values = w.detach()
    assert float(values.abs().max()) <= 0.5 + 1e-6
    assert 0.19 < float(values.std()) < 0.25
    out.sum().backward()
    assert w.grad is not None and float(w.grad[1].abs().sum()) > 0 and float(w.grad[0].abs().sum()) == 0


def test_default_table_initializer_is_keras_truncated_normal_with_stddev_one_over_sqrt_dimension():
    # the column holds a config; the layer resolves it through tf.keras.initializers: same draw
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 50), 9)
    torch.manual_seed(7)
    layer = DenseFeatures([col])
    layer.build(None)
    torch.manual_seed(7)
    expected = tf.keras.initializers.TruncatedNormal(mean=0.0, stddev=1.0 / 3.0)((50, 9))
    assert torch.equal(layer.weights[0].detach(), expected)
    assert col.initializer is None and col.get_config()["initializer"] is None


def test_trainable_false_freezes_the_table():
    layer = DenseFeatures([fc.embedding_column(VOCAB, 3, trainable=False)])
    layer(FEATS)
    assert not layer.weights[0].requires_grad and layer.trainable_weights == []


def test_initial_table_from_a_checkpoint(tmp_path):
    path = tmp_path / "model.safetensors"
    save_file({"emb/table": torch.tensor(TABLE)}, str(path))
    col = fc.embedding_column(VOCAB, 3, ckpt_to_load_from=str(tmp_path), tensor_name_in_ckpt="emb/table")
    np.testing.assert_allclose(embed(col)[2], TABLE[1])
    bad = fc.embedding_column(VOCAB, 2, ckpt_to_load_from=str(path), tensor_name_in_ckpt="emb/table")
    with pytest.raises(ValueError, match=r"has shape \(4, 3\), but the embedding table has shape \(4, 2\)"):
        embed(bad)
    missing = fc.embedding_column(VOCAB, 3, ckpt_to_load_from=str(path), tensor_name_in_ckpt="nope")
    with pytest.raises(ValueError, match="'nope' was not found"):
        embed(missing)


def test_embedding_column_errors():
    with pytest.raises(ValueError, match="dimension must be an integer >= 1"):
        fc.embedding_column(VOCAB, 0)
    with pytest.raises(ValueError, match="combiner must be one of"):
        fc.embedding_column(VOCAB, 2, combiner="max")
    with pytest.raises(ValueError, match="initializer must be callable"):
        fc.embedding_column(VOCAB, 2, initializer="zeros")
    with pytest.raises(ValueError, match="Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt`"):
        fc.embedding_column(VOCAB, 2, ckpt_to_load_from="x")
    with pytest.raises(ValueError, match="must be a categorical column"):
        fc.embedding_column(fc.numeric_column("n"), 2)


def test_shared_embeddings_share_one_table():
    a = fc.categorical_column_with_identity("watched", 4)
    b = fc.categorical_column_with_identity("liked", 4)
    cols = fc.shared_embeddings([a, b], 3, combiner="sum", initializer=table_init)
    assert [c.name for c in cols] == ["watched_shared_embedding", "liked_shared_embedding"]
    assert cols[0].shared_embedding_collection_name == "liked_watched_shared_embedding"
    layer = DenseFeatures(cols)
    out = layer({"watched": [[0, 1], [3]], "liked": [[2], []]}).detach().numpy()
    assert len(layer.weights) == 1
    assert layer.weights[0]._keras_name.endswith("/liked_watched_shared_embedding")
    # sorted: liked, watched
    np.testing.assert_allclose(out, [np.r_[TABLE[2], TABLE[0] + TABLE[1]], np.r_[np.zeros(3), TABLE[3]]])
    with tf.GradientTape():
        out_t = layer({"watched": np.array([1, 1]), "liked": np.array([1, 1])})
    out_t.sum().backward()
    np.testing.assert_allclose(layer.weights[0].grad[1].numpy(), [4.0, 4.0, 4.0])  # both columns


def test_shared_embeddings_errors():
    a = fc.categorical_column_with_identity("a", 4)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embeddings([a, fc.categorical_column_with_identity("b", 5)], 2)
    with pytest.raises(ValueError, match="same type"):
        fc.shared_embeddings([a, fc.categorical_column_with_hash_bucket("b", 4)], 2)
    with pytest.raises(ValueError, match="must be subclasses of CategoricalColumn"):
        fc.shared_embeddings([a, "b"], 2)
    with pytest.raises(ValueError, match="must not be empty"):
        fc.shared_embeddings([], 2)

"""`from_tensor_slices` stores its 1-D numeric columns of one dtype side by side
(`data/columns.packed`) so a batch gathers them with one op: the batches must hold the same
values as before, and the feature-column layers may then read the batch's matrix itself."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop
from torchestimator._engine.object_scope import ObjectScope
from torchestimator.data import columns
from torchestimator.data.columns import Block, PackedBlock, packed
from torchestimator.feature_column import FeatureTransformationCache, _layer_utils


def _block(n=50):
    g = torch.Generator().manual_seed(0)
    cols = [torch.randn(n, generator=g), torch.arange(n), torch.randn(n, generator=g),
            np.array([f"s{k}" for k in range(n)], dtype=object), torch.randn(n, 3, generator=g),
            torch.randn(n, generator=g).double()]
    return Block(cols, n)


def test_columns_of_one_dtype_are_packed_and_gathered_together():
    block = _block()
    plain = [c.clone() if isinstance(c, torch.Tensor) else c.copy() for c in block.cols]
    out = packed(block)
    assert type(out) is PackedBlock
    assert [positions for _, positions in out.packs] == [(0, 2)]  # float32 only: one int64, one float64
    idx = np.array([5, 1, 49, 1, 0])
    for piece, rows in ((out.take(idx), idx), (out.take(range(3, 40, 4)), np.arange(3, 40, 4))):
        for got, want in zip(piece.cols, plain):
            expected = want[torch.from_numpy(rows)] if isinstance(want, torch.Tensor) else want[rows]
            assert (torch.equal(got, expected) if isinstance(got, torch.Tensor)
                    else got.tolist() == expected.tolist())
    gathered = out.take(idx)
    assert gathered.cols[0]._base is gathered.cols[2]._base  # one gather for both


def test_nothing_to_pack_keeps_the_block(monkeypatch):
    block = Block([torch.zeros(4), torch.zeros(4, dtype=torch.int64)], 4)
    assert packed(block) is block
    monkeypatch.setattr(columns, "MAX_PACKED_BYTES", 16)
    big = Block([torch.zeros(4), torch.zeros(4)], 4)  # 32 bytes packed
    assert packed(big) is big


def test_batches_of_packed_columns_equal_the_inputs():
    x = np.random.default_rng(0).normal(size=(300, 3)).astype(np.float32)
    features = {"a": x[:, 0], "b": x[:, 1], "c": x[:, 2]}
    ds = tf.data.Dataset.from_tensor_slices((features, np.arange(300))).shuffle(100, seed=1).batch(32)
    seen = []
    for batch, rows in ds:
        rows = rows.numpy()
        for j, key in enumerate("abc"):
            np.testing.assert_array_equal(batch[key].numpy(), x[rows, j])
        seen.extend(rows.tolist())
    assert sorted(seen) == list(range(300))
    # read on the host, as fit and the Estimator read (iter() in a program moves to the default device)
    unshuffled = next(loop.iter_on_host(tf.data.Dataset.from_tensor_slices(features).batch(7)))  # views of the source
    np.testing.assert_array_equal(unshuffled["b"].numpy(), x[:7, 1])


def _batch():
    features = {k: np.arange(10, dtype=np.float32) * (j + 1) for j, k in enumerate(("x0", "x1", "x2"))}
    return next(loop.iter_on_host(tf.data.Dataset.from_tensor_slices(features).shuffle(10, seed=0).batch(10)))


def _is_matrix(stack, base):
    """`stack` is `base`'s memory itself (the matrix, not a stacked copy)."""
    return (stack.data_ptr() == base.data_ptr() and stack.shape == base.shape
            and stack.stride() == base.stride())


def test_a_shared_stack_is_the_batchs_matrix_only_when_allowed_and_in_order():
    batch = _batch()
    base = batch["x0"]._base
    assert base is not None and base.shape == (10, 3)
    assert _is_matrix(_layer_utils._stack(batch, ("x0", "x1", "x2"), may_share=True), base)
    assert not _is_matrix(_layer_utils._stack(batch, ("x0", "x1", "x2")), base)  # a layer's own output: a copy
    reordered = _layer_utils._stack(batch, ("x1", "x0", "x2"), may_share=True)
    assert not _is_matrix(reordered, base)
    torch.testing.assert_close(reordered, torch.stack([batch["x1"], batch["x0"], batch["x2"]], 1))
    assert not _is_matrix(_layer_utils._stack(batch, ("x0", "x1"), may_share=True), base)  # not every column


@pytest.mark.parametrize("layers", ["deep", "wide"])
def test_feature_layers_on_packed_batches_match_plain_tensors(layers):
    fc = tf.feature_column
    numeric = [fc.numeric_column(k) for k in ("x0", "x1", "x2")]
    color = fc.categorical_column_with_hash_bucket("c", 5)
    if layers == "deep":
        layer = tf.keras.layers.DenseFeatures(numeric + [fc.embedding_column(color, 2)])
    else:
        from torchestimator.keras.feature_column._linear_model import LinearModel

        layer = LinearModel(numeric + [color])
        layer({"x0": torch.zeros(1), "x1": torch.zeros(1), "x2": torch.zeros(1), "c": np.array(["a"])})
        with torch.no_grad():
            for p in layer.trainable_weights:
                p.copy_(torch.randn(p.shape))
    batch = dict(_batch())
    batch["c"] = np.array([f"v{k}" for k in range(10)])
    plain = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}
    with ObjectScope():
        FeatureTransformationCache.for_batch({})  # a step's cache is per batch
        got = layer(batch)
    torch.testing.assert_close(got, layer(plain))

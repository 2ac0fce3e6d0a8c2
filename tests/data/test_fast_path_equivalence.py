"""Each fast path `data/` offers its consumers gives what the general path gives on the same
data, and values that must take the general path do (issue 27, `docs/contributing.md`'s
fast-path table): dictionary-encoded string columns (`encoded_strings.dictionary_codes`) and
packed numeric columns (`columns.packed_matrix`)."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop
from torchestimator.data import encoded_strings
from torchestimator.data.columns import Block, packed, packed_matrix
from torchestimator.data.encoded_strings import DictionaryCodes, dictionary_codes
from torchestimator.feature_column import _layer_utils, _string_memo

fc = tf.feature_column


def _strings(n=2048, distinct=12, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([f"w{k}" for k in rng.integers(0, distinct, n)], dtype=object)


# --------------------------------------------------------------- dictionary-encoded strings


def test_dictionary_codes_of_an_encoded_column_rebuild_its_values():
    values = _strings()
    encoded = encoded_strings.encode(values)
    got = dictionary_codes(encoded)
    assert type(got) is DictionaryCodes
    assert got.codes.dtype == np.int32 and got.codes.shape == values.shape
    assert got.to_numpy().tolist() == values.tolist()
    gathered = encoded[np.array([5, 0, 2047, 5])]  # a batch of a shuffled pass keeps its codes
    assert dictionary_codes(gathered).to_numpy().tolist() == values[[5, 0, 2047, 5]].tolist()


@pytest.mark.parametrize("make", [
    lambda e: np.array(e.tolist(), dtype=object),  # a plain numpy string array
    lambda e: e.astype(str),  # a `U` array
    lambda e: e.reshape(-1, 2),  # derived: knows no codes
    lambda e: e.tolist(),  # not an array
    lambda e: torch.zeros(3),
])
def test_anything_but_an_encoded_column_has_no_dictionary_codes(make):
    assert dictionary_codes(make(encoded_strings.encode(_strings()))) is None


def test_a_written_encoded_array_loses_its_codes():
    pool = encoded_strings.encode(_strings()).copy()
    assert dictionary_codes(pool) is not None
    pool[3] = "new"
    assert dictionary_codes(pool) is None and pool[3] == "new"


def test_feature_columns_on_encoded_batches_equal_plain_string_arrays():
    strings = _strings(4096, 20)
    vocab = fc.categorical_column_with_vocabulary_list("s", [f"w{k}" for k in range(15)])  # some OOV
    hashed = fc.categorical_column_with_hash_bucket("s", 7)
    layer = tf.keras.layers.DenseFeatures([fc.indicator_column(vocab), fc.embedding_column(hashed, 3)])
    ds = tf.data.Dataset.from_tensor_slices({"s": strings}).shuffle(1000, seed=0).batch(256)
    fast = 0
    for batch in ds.take(4):
        dense = _string_memo.dense_strings(batch["s"])
        fast += dense.codes is not None
        plain = {"s": np.array(batch["s"].tolist(), dtype=object)}
        assert _string_memo.dense_strings(plain["s"]).codes is None  # the general path
        assert torch.equal(layer(batch), layer(plain))
    assert fast == 4  # the encoded batches did take the fast path


# --------------------------------------------------------------------- packed numeric columns


def _packed_batch(n=64, k=3):
    features = {f"x{j}": np.arange(n, dtype=np.float32) * (j + 1) + 0.5 for j in range(k)}
    features["zz"] = np.array([f"s{i % 5}" for i in range(n)], dtype=object)  # not packed
    ds = tf.data.Dataset.from_tensor_slices(features).shuffle(n, seed=0).batch(n)
    return next(loop.iter_on_host(ds))  # on the host, as fit and the Estimator read it


def test_packed_matrix_equals_the_stack_of_the_packed_columns():
    block = packed(Block([torch.randn(40), torch.randn(40), torch.randn(40)], 40))
    for piece in (block, block.take(np.array([3, 9, 0, 39, 3]))):
        matrix = packed_matrix(piece.cols)
        assert matrix is not None
        assert torch.equal(matrix, torch.stack(piece.cols, dim=1))
        assert matrix.data_ptr() == piece.cols[0].data_ptr()  # the matrix itself, not a copy


@pytest.mark.parametrize("case", ["unpacked", "reordered", "subset", "grad", "one", "dtype",
                                  "adjacent buffers"])
def test_columns_that_are_not_one_matrix_take_the_general_path(case):
    batch = _packed_batch()
    cols = [batch["x0"], batch["x1"], batch["x2"]]
    if case == "unpacked":  # a dict of tensors made one by one
        cols = [c.clone() for c in cols]
    elif case == "reordered":
        cols = [cols[1], cols[0], cols[2]]
    elif case == "subset":
        cols = cols[:2]
    elif case == "grad":
        cols = list(torch.zeros(5, 3, requires_grad=True).unbind(1))
    elif case == "one":
        cols = cols[:1]
    elif case == "dtype":
        cols = [cols[0], cols[1], torch.zeros(64, 3, dtype=torch.float64).unbind(1)[2]]
    else:  # columns of one numpy matrix, each wrapped on its own: separate buffers
        array = np.arange(12, dtype=np.float32).reshape(4, 3)
        cols = [torch.from_numpy(array[:, j]) for j in range(3)]
    assert packed_matrix(cols) is None
    with torch.no_grad():
        stacked = torch.stack(cols, dim=1)
    if len(cols) > 1 and case != "dtype":
        features = {f"k{j}": c for j, c in enumerate(cols)}
        keys = tuple(features)
        with torch.no_grad():
            assert torch.equal(_layer_utils._stack(features, keys, may_share=True), stacked)


@pytest.mark.parametrize("layer_kind", ["dense", "linear"])
def test_feature_layers_on_a_packed_batch_equal_a_dict_of_unpacked_tensors(layer_kind, monkeypatch):
    from torchestimator.keras.feature_column._linear_model import LinearModel

    shared = []
    real = _layer_utils.packed_matrix

    def spy(values):
        out = real(values)
        shared.append(out is not None)
        return out

    monkeypatch.setattr(_layer_utils, "packed_matrix", spy)
    batch = _packed_batch()
    unpacked = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in batch.items()}
    numeric = [fc.numeric_column(f"x{j}") for j in range(3)]
    hashed = fc.categorical_column_with_hash_bucket("zz", 5)
    columns = numeric + [fc.indicator_column(hashed) if layer_kind == "dense" else hashed]  # two segments
    tf.keras.utils.set_random_seed(0)
    layer = tf.keras.layers.DenseFeatures(columns) if layer_kind == "dense" else LinearModel(columns)
    with torch.no_grad():
        fast = layer(batch)
        assert shared == [True]  # the batch's own matrix
        general = layer(unpacked)
        assert shared == [True, False]  # stacked anew
    assert torch.equal(fast, general)

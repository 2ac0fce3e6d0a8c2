"""Tests of the preprocessing layers: Rescaling, Normalization (adapt), CategoryEncoding,
Hashing (TensorFlow's FarmHash/SipHash bins), StringLookup and IntegerLookup."""

import json

import numpy as np
import pytest
import torch

import torchestimator as tf
import torchestimator.keras.layers as layers


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


def _round_trip(layer):
    return type(layer).from_config(json.loads(json.dumps(layer.get_config())))


# ---------------------------------------------------------------------------- Rescaling
def test_rescaling():
    images = np.array([[[0, 255], [51, 102]]], dtype=np.uint8)
    out = layers.Rescaling(1.0 / 127.5, offset=-1)(images)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, torch.tensor([[[-1.0, 1.0], [-0.6, -0.2]]]))
    per_channel = layers.Rescaling([1.0, 2.0])(torch.ones(3, 2))
    torch.testing.assert_close(per_channel, torch.tensor([[1.0, 2.0]] * 3))
    layer = layers.Rescaling(0.5, offset=2.0)
    assert _round_trip(layer).get_config() == {**layer.get_config(), "name": layer.name}
    assert layer(tf.keras.Input((4, 4, 3))).shape == (None, 4, 4, 3)
    assert layer.count_params() == 0
    with pytest.raises(ValueError, match="`scale` must be a number"):
        layers.Rescaling("big")


# ---------------------------------------------------------------------------- Normalization
def test_normalization_adapt_and_call():
    rng = np.random.RandomState(0)
    x = (rng.randn(200, 3) * [1.0, 2.0, 3.0] + [0.0, 5.0, -1.0]).astype(np.float32)
    layer = layers.Normalization()
    layer.adapt(x)
    mean, var, count = layer.get_weights()
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(var, x.var(0), rtol=1e-5)
    assert count == 200 and layer.count_params() == 7
    assert len(layer.trainable_weights) == 0
    y = layer(x).numpy()  # on the weights' device (a GPU's): `.numpy()` copies to the host
    np.testing.assert_allclose(y.mean(0), np.zeros(3), atol=1e-5, rtol=0)
    np.testing.assert_allclose(y.std(0), np.ones(3), atol=1e-5, rtol=0)
    assert layer.is_adapted


def test_normalization_streaming_adapt_equals_full():
    rng = np.random.RandomState(1)
    x = rng.randn(101, 4).astype(np.float32) * 3 + 1
    full = layers.Normalization()
    full.adapt(x)
    chunked = layers.Normalization()
    chunked.adapt(x, batch_size=16)
    from_iterable = layers.Normalization()
    from_iterable.adapt(torch.from_numpy(x[i:i + 10]) for i in range(0, 101, 10))
    for other in (chunked, from_iterable):
        for a, b in zip(full.get_weights(), other.get_weights()):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    full.adapt(x[:50])  # adapting again starts over
    np.testing.assert_allclose(full.get_weights()[0], x[:50].mean(0), rtol=1e-5)


def test_normalization_given_statistics_axes_and_invert():
    layer = layers.Normalization(mean=[0.0, 5.0], variance=[1.0, 4.0])
    out = layer(np.array([[1.0, 9.0]], dtype=np.float32))
    torch.testing.assert_close(out, torch.tensor([[1.0, 2.0]]))
    assert layer.get_weights() == [] and layer.count_params() == 0
    inverse = layers.Normalization(mean=[0.0, 5.0], variance=[1.0, 4.0], invert=True)
    torch.testing.assert_close(inverse(out), torch.tensor([[1.0, 9.0]]))
    scalar = layers.Normalization(axis=None)
    scalar.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_allclose(scalar.get_weights()[0], 2.5)
    per_channel = layers.Normalization(axis=(1, 2))
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    per_channel.adapt(data)
    assert per_channel.get_weights()[0].shape == (3, 4)
    np.testing.assert_allclose(per_channel.get_weights()[0], data.mean(0))
    zero_var = layers.Normalization(mean=1.0, variance=0.0)
    assert torch.isfinite(zero_var(np.ones((2, 3), dtype=np.float32))).all()


def test_normalization_config_and_errors():
    layer = layers.Normalization(axis=-1)
    x = np.random.RandomState(0).randn(10, 3).astype(np.float32)
    layer.adapt(x)
    clone = _round_trip(layer)
    clone.build((None, 3))
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x), layer(x))
    given = layers.Normalization(mean=[1.0, 2.0], variance=[3.0, 4.0])
    assert _round_trip(given).get_config()["mean"] == [1.0, 2.0]
    assert layer(tf.keras.Input((3,))).shape == (None, 3)
    with pytest.raises(ValueError, match="both `mean` and `variance` must be set"):
        layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="Cannot `adapt`"):
        given.adapt(x)
    with pytest.raises(ValueError, match="expected axis 1 of input shape to have value 3"):
        layer(np.ones((2, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="must have known shape"):
        layers.Normalization()(tf.keras.Input((None,)))
    with pytest.raises(ValueError, match=r"range \[-ndim, ndim\)"):
        layers.Normalization(axis=3).adapt(x)
    with pytest.raises(TypeError, match="features with labels"):
        layers.Normalization().adapt(iter([(x, x)]))


# ---------------------------------------------------------------------------- CategoryEncoding
def test_category_encoding_modes():
    one_hot = layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    assert one_hot([3, 2, 0, 1]).tolist() == np.eye(4)[[3, 2, 0, 1]].tolist()
    multi = layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")
    assert multi(np.array([[0, 1], [0, 0], [1, 2], [3, 1]])).tolist() == [
        [1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]]
    count = layers.CategoryEncoding(num_tokens=4, output_mode="count")
    assert count(np.array([[0, 1], [0, 0], [1, 2], [3, 1]])).tolist() == [
        [1, 1, 0, 0], [2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]]
    weighted = count(np.array([[0, 1], [0, 0]]), count_weights=np.array([[0.1, 0.2], [0.1, 0.1]]))
    torch.testing.assert_close(weighted, torch.tensor([[0.1, 0.2, 0, 0], [0.2, 0, 0, 0]]))
    sparse = layers.CategoryEncoding(num_tokens=4, sparse=True)(np.array([[0, 3]]))
    assert sparse.is_sparse and sparse.to_dense().tolist() == [[1, 0, 0, 1]]
    assert one_hot(tf.keras.Input((1,), dtype="int64")).shape == (None, 4)
    assert one_hot(tf.keras.Input((3,), dtype="int64")).shape == (None, 3, 4)
    assert multi(tf.keras.Input((3,), dtype="int64")).shape == (None, 4)
    assert _round_trip(count).get_config()["output_mode"] == "count"


def test_category_encoding_errors():
    layer = layers.CategoryEncoding(num_tokens=3)
    with pytest.raises(ValueError, match="0 <= values < num_tokens with num_tokens=3"):
        layer(np.array([[0, 3]]))
    with pytest.raises(ValueError, match="0 <= values"):
        layer(np.array([[-1, 0]]))
    with pytest.raises(ValueError, match="num_tokens must be set"):
        layers.CategoryEncoding()
    with pytest.raises(ValueError, match="`output_mode`"):
        layers.CategoryEncoding(3, output_mode="tf_idf")
    with pytest.raises(ValueError, match="`count_weights` is not used"):
        layer(np.array([[0, 1]]), count_weights=np.ones((1, 2)))


# ---------------------------------------------------------------------------- Hashing
WORDS = np.array([["omar"], ["stringer"], ["marlo"], ["wire"], ["skywalker"]])


def test_hashing_matches_tensorflow_bins():
    """Expected bins are those of TensorFlow's own Hashing tests."""
    letters = [["A"], ["B"], ["C"], ["D"], ["E"]]
    assert layers.Hashing(num_bins=3)(letters).tolist() == [[1], [0], [1], [1], [2]]
    assert layers.Hashing(num_bins=2)(WORDS).tolist() == [[0], [0], [1], [0], [0]]
    assert layers.Hashing(num_bins=3)(np.array([[0], [1], [2], [3], [4]])).tolist() == [
        [1], [0], [1], [0], [2]]
    assert layers.Hashing(num_bins=3)(torch.tensor([0, 1, 2, 3, 4])).tolist() == [1, 0, 1, 0, 2]
    assert layers.Hashing(num_bins=3, mask_value="")(
        [["A"], ["B"], [""], ["C"], ["D"]]).tolist() == [[1], [1], [0], [2], [2]]
    assert layers.Hashing(num_bins=3, mask_value="omar")(WORDS).tolist() == [
        [0], [1], [2], [1], [1]]
    # Salted: keyed SipHash (tf.strings.to_hash_bucket_strong).
    assert layers.Hashing(num_bins=3, salt=[133, 137])(letters).tolist() == [
        [1], [2], [1], [0], [2]]
    assert layers.Hashing(num_bins=3, salt=133)(letters).tolist() == [[0], [0], [2], [1], [0]]
    assert layers.Hashing(num_bins=2, salt=[133, 137])(WORDS).tolist() == [
        [0], [1], [0], [1], [0]]
    assert layers.Hashing(num_bins=2, salt=[211, 137])(WORDS).tolist() == [
        [1], [0], [1], [0], [1]]
    assert layers.Hashing(num_bins=3, salt=[133, 137])(np.array([[0], [1], [2], [3], [4]])).tolist() == [
        [1], [1], [2], [0], [1]]
    assert layers.Hashing(num_bins=1)(WORDS).tolist() == [[0]] * 5


def test_siphash_reference_vectors():
    from torchestimator.keras.layers.preprocessing._siphash import siphash24

    key = (int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little"))
    messages = [bytes(range(n)) for n in (0, 15, 63)]
    data = np.frombuffer(b"".join(messages), dtype=np.uint8)
    lengths = np.array([len(m) for m in messages])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    got = siphash24(data, starts, lengths, *key)
    assert [hex(int(h)) for h in got] == [
        "0x726fdb47dd0e0e31", "0xa129ca6149be45e5", "0x958a324ceb064572"]


def test_hashing_output_modes_config_and_errors():
    ints = np.array([0, 1, 2, 3, 4])
    assert layers.Hashing(3, output_mode="one_hot")(ints).tolist() == np.eye(3)[[1, 0, 1, 0, 2]].tolist()
    assert layers.Hashing(3, output_mode="multi_hot")(ints[None]).tolist() == [[1, 1, 1]]
    assert layers.Hashing(3, output_mode="count")(ints).tolist() == [2, 2, 1]
    sym = layers.Hashing(3)(tf.keras.Input((4,), dtype="string"))
    assert sym.shape == (None, 4) and sym.dtype == torch.int64
    assert layers.Hashing(3, output_mode="one_hot")(tf.keras.Input((1,), dtype="string")).shape == (None, 3)
    layer = layers.Hashing(8, salt=5, mask_value="x")
    clone = _round_trip(layer)
    assert clone.salt == [5, 5] and clone(WORDS).tolist() == layer(WORDS).tolist()
    with pytest.raises(ValueError, match="cannot be `None` or non-positive"):
        layers.Hashing(num_bins=0)
    with pytest.raises(ValueError, match="can only be a tuple of size 2"):
        layers.Hashing(num_bins=2, salt=[1])
    with pytest.raises(ValueError, match="can only be a tuple of size 2"):
        layers.Hashing(num_bins=2, salt="string")
    with pytest.raises(ValueError, match="strings or integers"):
        layers.Hashing(3)(np.array([0.5, 1.5]))


# ---------------------------------------------------------------------------- StringLookup
VOCAB = ["a", "b", "c", "d"]
DATA = np.array([["a", "c", "d"], ["d", "z", "b"]])


def test_string_lookup_int_mode():
    layer = layers.StringLookup(vocabulary=VOCAB)
    out = layer(DATA)
    assert out.dtype == torch.int64 and out.tolist() == [[1, 3, 4], [4, 0, 2]]
    assert layer.get_vocabulary() == ["[UNK]", "a", "b", "c", "d"]
    assert layer.get_vocabulary(include_special_tokens=False) == VOCAB
    assert layer.vocabulary_size() == 5
    assert layers.StringLookup(vocabulary=VOCAB, num_oov_indices=2)(DATA).tolist() == [
        [2, 4, 5], [5, 1, 3]]
    masked = layers.StringLookup(vocabulary=VOCAB, mask_token="")
    assert masked(np.array([["a", "", "z"]])).tolist() == [[2, 0, 1]]
    assert masked.get_vocabulary() == ["", "[UNK]", "a", "b", "c", "d"]
    with_specials = layers.StringLookup(vocabulary=["[UNK]"] + VOCAB)
    assert with_specials(DATA).tolist() == [[1, 3, 4], [4, 0, 2]]
    assert layer(np.array([b"a", b"d"], dtype="S")).tolist() == [1, 4]
    assert layer(["b", "c"]).tolist() == [2, 3]
    big = np.array(VOCAB + ["zz"])[np.random.RandomState(0).randint(0, 5, size=100_000)]
    ids = layer(big).numpy()
    np.testing.assert_array_equal(ids, np.select([big == t for t in VOCAB], [1, 2, 3, 4], 0))


def test_string_lookup_vector_modes_and_invert():
    one_hot = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")
    assert one_hot(np.array(["a", "b", "c", "d", "z"])).tolist() == np.eye(5)[[1, 2, 3, 4, 0]].tolist()
    multi = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")
    assert multi(DATA).tolist() == [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]
    count = layers.StringLookup(vocabulary=VOCAB, output_mode="count")
    assert count(np.array([["a", "c", "d", "d"], ["d", "z", "b", "z"]])).tolist() == [
        [0, 1, 0, 1, 2], [2, 0, 1, 0, 1]]
    tfidf = layers.StringLookup(output_mode="tf_idf", vocabulary=VOCAB, idf_weights=[0.25, 0.75, 0.6, 0.4])
    torch.testing.assert_close(tfidf(DATA), torch.tensor(
        [[0.0, 0.25, 0.0, 0.6, 0.4], [0.5, 0.0, 0.75, 0.0, 0.4]]))
    padded = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot", max_tokens=8,
                                 pad_to_max_tokens=True)
    assert padded(DATA).shape == (2, 8)
    masked_multi = layers.StringLookup(vocabulary=VOCAB, mask_token="", output_mode="multi_hot")
    assert masked_multi(np.array([["a", ""]])).tolist() == [[0, 1, 0, 0, 0]]
    inverse = layers.StringLookup(vocabulary=VOCAB, invert=True)
    words = inverse(np.array([[1, 3, 4], [4, 0, 2]]))
    assert isinstance(words, np.ndarray) and words.tolist() == [["a", "c", "d"], ["d", "[UNK]", "b"]]
    assert inverse(torch.tensor([7])).tolist() == ["[UNK]"]


def test_string_lookup_adapt():
    layer = layers.StringLookup()
    layer.adapt(DATA)
    assert layer.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]  # Keras' documented order
    assert layer(DATA).tolist() == [[5, 3, 1], [1, 2, 4]]
    capped = layers.StringLookup(max_tokens=3)
    capped.adapt(np.array(["x", "y", "y", "z", "z", "z"]))
    assert capped.get_vocabulary() == ["[UNK]", "z", "y"]
    streamed = layers.StringLookup(mask_token="")
    streamed.adapt(iter([np.array(["b", "a", "b", ""]), np.array(["c", "b", "[UNK]"])]))
    assert streamed.get_vocabulary() == ["", "[UNK]", "b", "c", "a"]
    tfidf = layers.StringLookup(output_mode="tf_idf")
    tfidf.adapt(DATA)
    idf_d = np.log(1 + 2 / (1 + 2))
    idf_a = np.log(1 + 2 / (1 + 1))
    out = tfidf(np.array([["d", "a", "a"]]))
    np.testing.assert_allclose(out[0, 1], idf_d, rtol=1e-6)
    np.testing.assert_allclose(out[0, 5], 2 * idf_a, rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot adapt layer"):
        layers.StringLookup(vocabulary=VOCAB).adapt(DATA)


def test_string_lookup_config_file_and_symbolic(tmp_path):
    adapted = layers.StringLookup(output_mode="tf_idf")
    adapted.adapt(DATA)
    clone = _round_trip(adapted)
    assert clone.get_vocabulary() == adapted.get_vocabulary()
    torch.testing.assert_close(clone(DATA), adapted(DATA))
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\nd\n", encoding="utf-8")
    from_file = layers.StringLookup(vocabulary=str(path))
    assert from_file(DATA).tolist() == [[1, 3, 4], [4, 0, 2]]
    inp = tf.keras.Input((3,), dtype="string")
    ids = layers.StringLookup(vocabulary=VOCAB)(inp)
    assert ids.shape == (None, 3) and ids.dtype == torch.int64
    encoded = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")(inp)
    assert encoded.shape == (None, 5)
    model = tf.keras.Model(inp, layers.Dense(2)(encoded))
    assert model(DATA).shape == (2, 2)


def test_string_lookup_errors():
    with pytest.raises(ValueError, match="repeated term"):
        layers.StringLookup(vocabulary=["a", "b", "a"])
    with pytest.raises(ValueError, match="Cannot set an empty vocabulary"):
        layers.StringLookup(vocabulary=[])
    with pytest.raises(ValueError, match="reserved mask token"):
        layers.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(ValueError, match="larger than the maximum vocab size"):
        layers.StringLookup(vocabulary=VOCAB, max_tokens=3)
    with pytest.raises(ValueError, match="`output_mode` must be `'int'` when `invert`"):
        layers.StringLookup(invert=True, output_mode="one_hot")
    with pytest.raises(ValueError, match="`idf_weights` argument must also be provided"):
        layers.StringLookup(vocabulary=VOCAB, output_mode="tf_idf")
    with pytest.raises(ValueError, match="found OOV values \\['z'\\]"):
        layers.StringLookup(vocabulary=VOCAB, num_oov_indices=0)(DATA)
    with pytest.raises(RuntimeError, match="must set the layer's vocabulary"):
        layers.StringLookup(output_mode="multi_hot")(DATA)
    with pytest.raises(ValueError, match="takes string inputs"):
        layers.StringLookup(vocabulary=VOCAB)(np.array([1, 2]))
    with pytest.raises(ValueError, match="`max_tokens`"):
        layers.StringLookup(max_tokens=1)
    with pytest.raises(ValueError, match="Unknown value for `output_mode`"):
        layers.StringLookup(output_mode="embedding")


# ---------------------------------------------------------------------------- IntegerLookup
def test_integer_lookup():
    vocab = [12, 36, 1138, 42]
    data = torch.tensor([[12, 1138, 42], [42, 1000, 36]])
    layer = layers.IntegerLookup(vocabulary=vocab)
    assert layer(data).tolist() == [[1, 3, 4], [4, 0, 2]]
    assert layer.get_vocabulary() == [-1, 12, 36, 1138, 42]
    multi_oov = layers.IntegerLookup(vocabulary=vocab, num_oov_indices=2)
    assert multi_oov(torch.tensor([[12, 1138, 42], [37, 1000, 36]])).tolist() == [[2, 4, 5], [1, 0, 3]]
    masked = layers.IntegerLookup(vocabulary=vocab, mask_token=0)
    assert masked(torch.tensor([[12, 1138, 42], [42, 0, 36]])).tolist() == [[2, 4, 5], [5, 0, 3]]
    inverse = layers.IntegerLookup(vocabulary=vocab, invert=True)
    assert inverse(torch.tensor([[1, 3, 4], [4, 0, 2]])).tolist() == [[12, 1138, 42], [42, -1, 36]]
    adapted = layers.IntegerLookup()
    adapted.adapt(np.array([[12, 1138, 42], [42, 1000, 36]]))
    assert adapted.get_vocabulary() == [-1, 42, 1138, 1000, 36, 12]
    counts = layers.IntegerLookup(vocabulary=vocab, output_mode="count")
    assert counts(np.array([[12, 12, 5]])).tolist() == [[1, 2, 0, 0, 0]]
    clone = _round_trip(adapted)
    assert clone(data).tolist() == adapted(data).tolist()
    sym = layers.IntegerLookup(vocabulary=vocab)(tf.keras.Input((2,), dtype="int64"))
    assert sym.dtype == torch.int64 and sym.shape == (None, 2)
    with pytest.raises(ValueError, match="`vocabulary_dtype` must be an integer dtype"):
        layers.IntegerLookup(vocabulary_dtype="float32")
    with pytest.raises(ValueError, match="takes integer"):
        layer(np.array([1.5]))


def test_adapt_from_tf_data_dataset():
    x = np.random.RandomState(2).randn(100, 3).astype(np.float32)
    norm = layers.Normalization()
    norm.adapt(tf.data.Dataset.from_tensor_slices(x).batch(16))
    np.testing.assert_allclose(norm.get_weights()[0], x.mean(0), rtol=1e-5, atol=1e-6)
    lookup = layers.StringLookup()
    lookup.adapt(tf.data.Dataset.from_tensor_slices(np.array(["a", "b", "b", "c", "b", "c"])).batch(4))
    assert lookup.get_vocabulary() == ["[UNK]", "b", "c", "a"]

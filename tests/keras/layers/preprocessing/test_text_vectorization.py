"""TextVectorization against TF 2.15's values (fixtures/tf_text_structured.json, written by
tools/make_tf_preprocessing_fixtures.py), in models, tf.data pipelines, saved files, and its
errors."""

import json
import pathlib
import re
import string

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.errors import FailedPreconditionError

L = tf.keras.layers
FIXTURES = json.loads(
    (pathlib.Path(__file__).parent / "fixtures" / "tf_text_structured.json").read_text(encoding="utf-8")
)
CORPUS = FIXTURES["corpus"]
QUERIES = np.array(FIXTURES["queries"], dtype=object)
CASES = FIXTURES["text_vectorization"]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


def _layer(case):
    kwargs = dict(case["kwargs"])
    if isinstance(kwargs.get("ngrams"), list):
        kwargs["ngrams"] = tuple(kwargs["ngrams"])
    return L.TextVectorization(**kwargs)


def _adapted(case):
    layer = _layer(case)
    if case["adapt"] == "dataset":
        layer.adapt(tf.data.Dataset.from_tensor_slices(np.array(CORPUS, dtype=object)).batch(3))
    elif case["adapt"] == "column":
        layer.adapt(np.array(CORPUS, dtype=object)[:, None])
    else:
        layer.adapt(CORPUS)
    return layer


def _assert_equal_output(out, expected):
    expected = np.asarray(expected)
    out = out.to_dense() if isinstance(out, torch.Tensor) and out.is_sparse else out
    assert tuple(out.shape) == expected.shape
    if expected.dtype.kind == "f":
        assert out.dtype == torch.float32
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-7)
    else:
        assert out.dtype == torch.int64
        assert out.tolist() == expected.tolist()


# ---------------------------------------------------------------------------- TF values
@pytest.mark.parametrize("case", [c for c in CASES if c["adapt"] is not None], ids=lambda c: c["name"])
def test_adapt_matches_tensorflow(case):
    layer = _adapted(case)
    assert layer.get_vocabulary() == case["vocabulary"]
    assert layer.vocabulary_size() == case["vocabulary_size"]
    _assert_equal_output(layer(QUERIES), case["output"])
    _assert_equal_output(layer(QUERIES[:, None]), case["output_column"])


@pytest.mark.parametrize("case", [c for c in CASES if c["adapt"] is None], ids=lambda c: c["name"])
def test_given_vocabulary_matches_tensorflow(case):
    layer = _layer(case)
    assert layer.get_vocabulary() == case["vocabulary"]
    _assert_equal_output(layer(np.array(case["input"], dtype=object)), case["output"])


def test_vocabulary_methods_and_file(tmp_path):
    layer = L.TextVectorization(vocabulary=["earth", "wind", "and", "fire"])
    assert layer.get_vocabulary(include_special_tokens=False) == ["earth", "wind", "and", "fire"]
    assert layer.vocabulary_size() == 6
    layer.set_vocabulary(["fire", "water"])
    assert layer.get_vocabulary() == ["", "[UNK]", "fire", "water"]
    assert layer(["water fire earth"]).tolist() == [[3, 2, 1]]
    path = tmp_path / "vocab.txt"
    path.write_text("earth\nwind\nand\nfire\n", encoding="utf-8")
    from_file = L.TextVectorization(vocabulary=str(path), output_sequence_length=3)
    assert from_file(["fire and ice"]).tolist() == [[5, 4, 1]]
    assert from_file("wind").tolist() == [3, 0, 0]  # a scalar string: one sequence
    assert from_file(np.array([b"Wind!", b"EARTH"])).tolist() == [[3, 0, 0], [2, 0, 0]]


def test_adapt_batches_steps_and_retokenize():
    layer = L.TextVectorization()
    layer.adapt(tf.data.Dataset.from_tensor_slices(np.array(["a a b", "c", "d d d"], dtype=object)).batch(1),
                steps=2)
    assert layer.get_vocabulary() == ["", "[UNK]", "a", "c", "b"]  # the third batch unseen
    layer.adapt(np.array(["x y", "y"]), batch_size=1)
    assert layer.get_vocabulary() == ["", "[UNK]", "y", "x"]  # adapt replaces the vocabulary
    tokens = L.TextVectorization(output_mode=None, ngrams=2)(["The cat, sat."])
    assert tokens.tolist() == [["the", "cat", "sat", "the cat", "cat sat"]]
    sparse = L.TextVectorization(vocabulary=["a", "b"], output_mode="count", sparse=True)(["a b b", "c"])
    assert sparse.is_sparse and sparse.to_dense().tolist() == [[0, 1, 2], [1, 0, 0]]


@tf.keras.saving.register_keras_serializable(package="test_text_vectorization")
def custom_standardization(input_data):
    """The text-classification tutorial's standardization."""
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


@tf.keras.saving.register_keras_serializable(package="test_text_vectorization")
def comma_split(input_data):
    return tf.strings.split(input_data, ",")


def test_callables_and_config_round_trip():
    layer = L.TextVectorization(standardize=custom_standardization, output_sequence_length=4)
    layer.adapt(["Good<br />Movie!", "good bad", "GOOD"])
    assert layer.get_vocabulary() == ["", "[UNK]", "good", "movie", "bad"]
    assert layer(["bad, good. x"]).tolist() == [[4, 2, 1, 0]]
    config = json.loads(json.dumps(layer.get_config()))
    assert config["standardize"] == "test_text_vectorization>custom_standardization"
    assert config["vocabulary"] == ["good", "movie", "bad"] and config["vocabulary_size"] == 5
    clone = L.TextVectorization.from_config(config)
    assert clone(["bad, good. x"]).tolist() == [[4, 2, 1, 0]]
    clone.adapt(["x x y"])  # a vocabulary learned by adapt may be re-learned after a reload
    assert clone.get_vocabulary() == ["", "[UNK]", "x", "y"]

    commas = L.TextVectorization(standardize="lower", split=comma_split)
    commas.adapt(["A b,c", "c,d"])
    assert commas.get_vocabulary() == ["", "[UNK]", "c", "d", "a b"]
    config = json.loads(json.dumps(commas.get_config()))
    assert config["split"] == "test_text_vectorization>comma_split"
    assert L.TextVectorization.from_config(config)(["c,A B,e"]).tolist() == [[2, 4, 1]]

    tfidf = L.TextVectorization(output_mode="tf_idf", ngrams=(1, 2))
    tfidf.adapt(CORPUS)
    config = json.loads(json.dumps(tfidf.get_config()))
    assert config["ngrams"] == [1, 2]
    clone = L.TextVectorization.from_config(config)
    assert clone.get_vocabulary() == tfidf.get_vocabulary()
    torch.testing.assert_close(clone(QUERIES), tfidf(QUERIES))


def test_symbolic_shapes():
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    ids = L.TextVectorization(vocabulary=["a", "b"], output_sequence_length=7)(inp)
    assert ids.shape == (None, 7) and ids.dtype == torch.int64
    assert L.TextVectorization(vocabulary=["a", "b"])(inp).shape == (None, None)
    counts = L.TextVectorization(vocabulary=["a", "b"], output_mode="count")(inp)
    assert counts.shape == (None, 3) and counts.dtype == torch.float32
    padded = L.TextVectorization(max_tokens=9, pad_to_max_tokens=True, output_mode="multi_hot")(inp)
    assert padded.shape == (None, 9)


# ---------------------------------------------------------------------------- pipelines and models
def _planted(n, seed):
    """Sentences of neutral words with one 'good' (label 1) or 'bad' (label 0)."""
    rng = np.random.RandomState(seed)
    words = ["movie", "plot", "actor", "scene", "music", "story", "film", "ending", "cast", "script"]
    labels = rng.randint(0, 2, n)
    texts = []
    for label in labels:
        tokens = list(rng.choice(words, 5))
        tokens.insert(rng.randint(6), "good" if label else "bad")
        texts.append(" ".join(tokens).capitalize() + "!")
    return np.array(texts, dtype=object), labels.astype(np.float32)


def test_dataset_map_batched_and_unbatched():
    texts, labels = _planted(10, 1)
    layer = L.TextVectorization(output_sequence_length=8)
    layer.adapt(texts)
    expected = layer(texts)

    def vectorize_text(text, label):
        return layer(tf.expand_dims(text, -1)), label

    ids, y = next(iter(tf.data.Dataset.from_tensor_slices((texts, labels)).batch(4).map(vectorize_text)))
    assert ids.dtype == torch.int64 and ids.tolist() == expected[:4].tolist()
    assert y.tolist() == labels[:4].tolist()
    rows = list(tf.data.Dataset.from_tensor_slices(texts).map(layer).take(2))
    assert [r.tolist() for r in rows] == expected[:2].tolist()


def test_fit_on_vectorized_dataset_learns_planted_rule():
    texts, labels = _planted(200, 0)
    layer = L.TextVectorization(max_tokens=30, output_sequence_length=8)
    layer.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(64))
    train = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(32).map(
        lambda x, y: (layer(tf.expand_dims(x, -1)), y))
    model = tf.keras.Sequential([
        L.Embedding(30, 8), L.GlobalAveragePooling1D(), L.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(train, epochs=8, verbose=0)
    assert history.history["accuracy"][-1] > 0.9
    # The tutorial's export model: strings in, probabilities out.
    export = tf.keras.Sequential([layer, model])
    test_texts, test_labels = _planted(50, 7)
    probs = export.predict(test_texts, verbose=0)
    assert probs.shape == (50, 1)
    assert ((probs[:, 0] > 0.5) == (test_labels > 0.5)).mean() > 0.9


def _text_model(layer):
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    x = L.Embedding(30, 8)(layer(inp))
    x = L.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inp, L.Dense(1, activation="sigmoid")(x))


def test_save_and_load_keras_file_keeps_vocabulary(tmp_path):
    texts, _ = _planted(40, 3)
    layer = L.TextVectorization(max_tokens=30, output_sequence_length=8, standardize=custom_standardization)
    layer.adapt(texts)
    model = _text_model(layer)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    restored = [lay for lay in loaded.layers if isinstance(lay, L.TextVectorization)][0]
    assert restored.get_vocabulary() == layer.get_vocabulary()
    np.testing.assert_allclose(loaded.predict(texts[:5, None], verbose=0),
                               model.predict(texts[:5, None], verbose=0), rtol=1e-6)

    tfidf = L.TextVectorization(output_mode="tf_idf", max_tokens=12, pad_to_max_tokens=True)
    tfidf.adapt(CORPUS)
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    model = tf.keras.Model(inp, L.Dense(2)(tfidf(inp)))
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(QUERIES[:, None], verbose=0),
                               model.predict(QUERIES[:, None], verbose=0), rtol=1e-6)


def test_fit_model_with_text_vectorization_inside():
    texts, labels = _planted(200, 0)
    layer = L.TextVectorization(max_tokens=30, output_sequence_length=8)
    layer.adapt(texts)
    model = _text_model(layer)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(texts[:, None], labels, epochs=8, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] > 0.9


# ---------------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="Unknown value for `output_mode`.*Received: output_mode='one_hot'"):
        L.TextVectorization(output_mode="one_hot")
    with pytest.raises(ValueError, match="Unknown value for `standardize`"):
        L.TextVectorization(standardize="upper")
    with pytest.raises(ValueError, match="Unknown value for `split`"):
        L.TextVectorization(split="comma")
    with pytest.raises(ValueError, match=r"repeated term.*\['a'\]"):
        L.TextVectorization(vocabulary=["a", "b", "a"])
    with pytest.raises(ValueError, match="`ngrams` must be None, an integer, or a tuple"):
        L.TextVectorization(ngrams=[1, 2])
    with pytest.raises(ValueError, match="`output_sequence_length` must not be set"):
        L.TextVectorization(output_mode="multi_hot", output_sequence_length=3)
    with pytest.raises(ValueError, match="may only have a dtype of string"):
        L.TextVectorization(dtype="int32")
    with pytest.raises(ValueError, match="`idf_weights` argument must also be provided"):
        L.TextVectorization(vocabulary=["a"], output_mode="tf_idf")
    with pytest.raises(ValueError, match="`ragged` must not be true"):
        L.TextVectorization(ragged=True, output_mode="count")
    with pytest.raises(ValueError, match="Expected input data to be non-empty"):
        L.TextVectorization().adapt([])
    with pytest.raises(ValueError, match="Expected input data to be non-empty"):
        L.TextVectorization().adapt(tf.data.Dataset.from_tensor_slices(np.array([], dtype=object)).batch(2))
    with pytest.raises(FailedPreconditionError, match="has no vocabulary"):
        L.TextVectorization()(["a b"])
    with pytest.raises(RuntimeError, match="must set the layer's vocabulary"):
        L.TextVectorization(output_mode="multi_hot")(["a b"])
    with pytest.raises(ValueError, match="the last shape dimension must be 1"):
        L.TextVectorization(vocabulary=["a"])(np.array([["a b", "c"]]))
    with pytest.raises(ValueError, match="Cannot adapt layer"):
        L.TextVectorization(vocabulary=["a"]).adapt(["a b"])
    with pytest.raises(TypeError, match="features with labels"):
        L.TextVectorization().adapt(tf.data.Dataset.from_tensor_slices((np.array(["a"]), [1])).batch(1))
    with pytest.raises(TypeError, match="takes strings"):
        L.TextVectorization(vocabulary=["a"])(torch.tensor([1, 2]))
    empty = L.TextVectorization()
    empty.adapt(["", "   "])  # data without tokens: the vocabulary holds only the special tokens
    assert empty.get_vocabulary() == ["", "[UNK]"]
    assert empty(["a"]).tolist() == [[1]]


def test_predict_takes_a_python_list_of_strings():
    """Keras' lists-of-scalars rule: a list of strings is one batch (the text tutorial's
    `export_model.predict(examples)`), not a list of model inputs."""
    vec = L.TextVectorization(max_tokens=20, output_mode="int", output_sequence_length=4)
    vec.adapt(["good film", "bad film"])
    inner = tf.keras.Sequential([L.Embedding(20, 2), L.GlobalAveragePooling1D(), L.Dense(1)])
    inner(vec(["good film"]))
    export = tf.keras.Sequential([vec, inner, L.Activation("sigmoid")])
    assert export.predict(["good film", "bad", "film"], verbose=0).shape == (3, 1)


def test_a_datasets_string_element_is_taken_as_a_string():
    """TF's text-classification tutorial vectorizes one review taken from a batch of a dataset
    (a string scalar of the library's own type), expanded to a column."""
    ds = tf.data.Dataset.from_tensor_slices(np.array(["a b", "c d"])).batch(2)
    review = next(iter(ds))[0]
    layer = tf.keras.layers.TextVectorization(output_sequence_length=3)
    layer.adapt(np.array(["a b", "c d"]))
    ids = layer(tf.expand_dims(review, -1))
    assert tuple(ids.shape) == (1, 3) and ids.tolist()[0][2] == 0

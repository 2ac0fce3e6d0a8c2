"""`tf.keras.preprocessing.text` against TF 2.15.

Expected vocabularies, sequences, matrices and JSON were recorded with real TensorFlow 2.15
by `tools/make_tf_keras_data_fixtures.py` (fixture
`tests/keras/utils/fixtures/tf_keras_data.json`, key `text`).
"""

import json
import os

import numpy as np
import pytest

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "utils", "fixtures",
                       "tf_keras_data.json")
with open(FIXTURE) as _f:
    RECORD = json.load(_f)["text"]

CORPUS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "A cat, a dog; a bird?",
    "dog DOG dog cat",
    "Zebras\tand cats: the END.",
]
QUERIES = ["the cat and the zebra", "unknown words only", "dog bird cat mat", ""]
text = tf.keras.preprocessing.text


def test_namespace():
    assert sorted(text.__all__) == [
        "Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence", "tokenizer_from_json"]
    assert sorted(tf.keras.preprocessing.__all__) == [
        "image", "image_dataset_from_directory", "sequence", "text",
        "text_dataset_from_directory", "timeseries_dataset_from_array"]
    assert tf.keras.preprocessing.image_dataset_from_directory is \
        tf.keras.utils.image_dataset_from_directory
    assert tf.keras.preprocessing.text_dataset_from_directory is \
        tf.keras.utils.text_dataset_from_directory


@pytest.mark.parametrize("case", RECORD["tokenizers"],
                         ids=[json.dumps(c["kwargs"]) for c in RECORD["tokenizers"]])
def test_tokenizer_matches_tf215(case):
    tok = text.Tokenizer(**case["kwargs"])
    tok.fit_on_texts(CORPUS)
    assert [list(kv) for kv in tok.word_index.items()] == case["word_index"]  # with order
    assert [list(kv) for kv in tok.word_counts.items()] == case["word_counts"]
    assert dict(tok.word_docs) == case["word_docs"]
    assert {str(k): v for k, v in tok.index_docs.items()} == case["index_docs"]
    assert tok.document_count == case["document_count"]
    seqs = tok.texts_to_sequences(QUERIES + CORPUS)
    assert seqs == case["sequences"]
    assert tok.sequences_to_texts(seqs) == case["texts"]
    for mode, want in case["matrices"].items():
        np.testing.assert_allclose(tok.texts_to_matrix(QUERIES + CORPUS, mode=mode),
                                   np.asarray(want), rtol=1e-12)
    got, want = json.loads(tok.to_json()), json.loads(case["json"])
    assert got["class_name"] == want["class_name"] == "Tokenizer"
    for key in ("word_docs", "index_docs"):  # filled from set(), in hash order: compare as dicts
        assert json.loads(got["config"].pop(key)) == json.loads(want["config"].pop(key))
    assert got == want
    # round trip through TF's own JSON
    back = text.tokenizer_from_json(case["json"])
    assert back.texts_to_sequences(QUERIES + CORPUS) == case["sequences"]
    assert back.num_words == case["kwargs"].get("num_words")


def test_word_sequences_and_md5_hashing_match_tf215():
    assert [text.text_to_word_sequence(t) for t in CORPUS] == RECORD["word_sequences"]
    assert [text.text_to_word_sequence(t, lower=False, split="a") for t in CORPUS] == \
        RECORD["word_sequences_upper"]
    assert [text.hashing_trick(t, 17, hash_function="md5") for t in CORPUS] == RECORD["md5"]


def test_one_hot_uses_python_hash_in_range():
    out = text.one_hot("The cat and the Cat", 5)
    assert len(out) == 5 and all(1 <= v <= 4 for v in out)
    assert out[0] == out[3] and out[1] == out[4]
    assert out == [hash(w) % 4 + 1 for w in ["the", "cat", "and", "the", "cat"]]


def test_list_inputs_fit_on_sequences_and_errors():
    tok = text.Tokenizer()
    tok.fit_on_texts([["Hello", "world"], ["hello"]])
    assert tok.word_index == {"hello": 1, "world": 2}
    with pytest.raises(ValueError, match="Specify a dimension"):
        text.Tokenizer().sequences_to_matrix([[1]])
    fresh = text.Tokenizer(num_words=4)
    with pytest.raises(ValueError, match="Fit the Tokenizer on some data before using tfidf"):
        fresh.sequences_to_matrix([[1]], mode="tfidf")
    fresh.fit_on_sequences([[1, 2, 2], [3]])
    assert fresh.document_count == 2 and dict(fresh.index_docs) == {1: 1, 2: 1, 3: 1}
    np.testing.assert_allclose(fresh.sequences_to_matrix([[1, 2, 2, 9]], mode="count"),
                               [[0, 1, 2, 0]])
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        tok.texts_to_matrix(["hello"], mode="bogus")
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        text.Tokenizer(bogus=1)
    with pytest.warns(UserWarning, match="renamed `num_words`"):
        assert text.Tokenizer(nb_words=3).num_words == 3

"""Text pipelines: Dataset.map through tf.strings ops, padded_batch of variable-length token
lists, and from_generator's output_signature with nested structures; values against TF 2.15's
recorded ones (tests/data/fixtures/tf_data_transforms.json, tools/make_tf_data_transform_fixtures.py).

Strings come back as Python str (TF gives bytes); the fixture decodes TF's bytes to compare.
"""

from collections import OrderedDict, namedtuple

import numpy as np
import pytest
from _tf_fixture import TF, record, spec

import torchestimator as tf

LINES = ["the cat sat", "a dog", "one two three four", "hi"]


def text():
    return tf.data.Dataset.from_tensor_slices(LINES)


def tokens():
    return text().map(lambda s: tf.strings.split(s))


def test_map_with_string_ops_matches_tf():
    assert record(text().map(lambda s: tf.strings.lower(tf.strings.regex_replace(
        s, "[aeiou]", "_")))) == TF["text_lower"]
    assert record(text().map(tf.strings.length)) == TF["text_length"]
    assert record(text().map(lambda s: tf.strings.substr(s, 0, 4))) == TF["text_substr"]
    assert record(text().batch(3).map(tf.strings.lower)) == TF["text_batch_lower"]
    assert record(tokens().map(lambda t: tf.size(t))) == TF["text_len_tokens"]


def test_split_tokens_padded_batch_matches_tf():
    assert record(tokens().padded_batch(3)) == TF["text_padded"]
    assert record(tokens().padded_batch(2, padded_shapes=[5], padding_values="<pad>",
                                        drop_remainder=True)) == TF["text_padded_values"]


def test_padded_batch_of_several_components_matches_tf():
    ds = tf.data.Dataset.from_generator(
        lambda: ((np.arange(n, dtype=np.int32), np.full((n, 2), n, np.float32), "x" * n)
                 for n in [1, 3, 2]),
        output_signature=(tf.TensorSpec((None,), tf.int32), tf.TensorSpec((None, 2), tf.float32),
                          tf.TensorSpec((), tf.string)))
    padded = ds.padded_batch(2, padded_shapes=([4], [None, 2], []), padding_values=(-1, 0.5, "?"))
    assert record(padded) == TF["padded_multi"]


def test_text_pipeline_to_ids():
    vocab = {"the": 1, "cat": 2, "sat": 3, "a": 4, "dog": 5}
    ids = tokens().map(lambda t: np.array([vocab.get(w, 0) for w in t], np.int64))
    batches = [b.tolist() for b in ids.padded_batch(2).as_numpy_iterator()]
    assert batches == [[[1, 2, 3], [4, 5, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]]
    bucketed = ids.bucket_by_sequence_length(lambda t: tf.shape(t)[0], [3], [2, 2])
    # lengths 3, 2, 4, 1: the long bucket fills at the third line, the short one at the fourth
    assert [b.tolist() for b in bucketed.as_numpy_iterator()] == [[[1, 2, 3, 0], [0, 0, 0, 0]],
                                                                  [[4, 5], [0, 0]]]


Point = namedtuple("Point", ["x", "label"])


def test_from_generator_nested_output_signature():
    def gen():
        for i in range(3):
            yield {"ids": np.arange(i + 1), "meta": (f"row{i}", float(i))}, i % 2

    sig = ({"ids": tf.TensorSpec((None,), tf.int64),
            "meta": (tf.TensorSpec((), tf.string), tf.TensorSpec((), tf.float32))},
           tf.TensorSpec((), tf.int32))
    ds = tf.data.Dataset.from_generator(gen, output_signature=sig)
    assert ds.element_spec == sig
    assert int(ds.cardinality()) == -2
    (features, label), *_ = list(ds)
    assert features["meta"][0] == "row0" and label.dtype == tf.int32
    assert features["ids"].tolist() == [0]
    batches = list(ds.padded_batch(3).as_numpy_iterator())
    assert batches[0][0]["ids"].tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 2]]
    assert batches[0][0]["meta"][0].tolist() == ["row0", "row1", "row2"]


def test_from_generator_namedtuple_ordered_dict_args_and_types():
    sig = Point(tf.TensorSpec((2,), tf.float32), tf.TensorSpec((), tf.int64))
    ds = tf.data.Dataset.from_generator(lambda n: (Point([i, i], i) for i in range(n)),
                                        output_signature=sig, args=(3,))
    first = next(iter(ds))
    assert isinstance(first, Point) and first.x.tolist() == [0.0, 0.0]
    od = tf.data.Dataset.from_generator(
        lambda: iter([OrderedDict(b=1, a="x")]),
        output_types=OrderedDict(b=tf.int64, a=tf.string),
        output_shapes=OrderedDict(b=(), a=()))
    assert list(od.element_spec) == ["b", "a"]
    assert dict(next(iter(od))) == {"b": 1, "a": "x"}
    legacy = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3]]), output_types=tf.int64)
    assert legacy.element_spec.shape is None
    assert [x.tolist() for x in legacy] == [[1, 2], [3]]


def test_from_generator_errors():
    sig = {"a": tf.TensorSpec((), tf.int64)}
    with pytest.raises(TypeError, match="keys"):
        list(tf.data.Dataset.from_generator(lambda: iter([{"b": 1}]), output_signature=sig))
    with pytest.raises(ValueError, match="shape"):
        list(tf.data.Dataset.from_generator(lambda: iter([[1, 2]]),
                                            output_signature=tf.TensorSpec((3,), tf.int64)))
    with pytest.raises(TypeError, match="output_signature"):
        tf.data.Dataset.from_generator(lambda: iter([]))
    with pytest.raises(TypeError, match="not both"):
        tf.data.Dataset.from_generator(lambda: iter([]), output_types=tf.int64,
                                       output_signature=tf.TensorSpec((), tf.int64))


def test_split_of_a_string_has_tfs_unknown_length_spec():
    assert spec(tokens().element_spec) == TF["text_split_spec"]


def test_string_ops_over_dictionary_encoded_batches():
    # 2,100 rows of 3 distinct strings: from_tensor_slices dictionary-encodes the column
    words = np.array(["Red Fox", "blue  Whale", "GREEN"] * 700)
    ds = tf.data.Dataset.from_tensor_slices({"w": words, "y": np.arange(2100)})
    batches = ds.shuffle(2100, seed=1).batch(512).map(lambda d: {
        "lower": tf.strings.lower(d["w"]), "n": tf.strings.length(d["w"]),
        "r": tf.strings.regex_replace(d["w"], " +", "_"), "y": d["y"]})
    assert spec(batches.element_spec) == {"lower": [[None], "string"], "n": [[None], "int32"],
                                          "r": [[None], "string"], "y": [[None], "int64"]}
    for b in batches:
        original = words[b["y"].numpy()]
        assert b["lower"].tolist() == [w.lower() for w in original]
        assert b["n"].tolist() == [len(w) for w in original]
        assert b["r"].tolist() == [w.replace("  ", " ").replace(" ", "_") for w in original]
    tokens = ds.map(lambda d: tf.strings.split(d["w"])).padded_batch(3)
    assert next(iter(tokens)).tolist() == [["Red", "Fox"], ["blue", "Whale"], ["GREEN", ""]]


def test_binary_strings_pass_through_a_dataset_as_bytes():
    """Serialized protos are not UTF-8 text: they stay bytes (TF's strings hold bytes) and
    reach parse_example intact; text stays str."""
    example = tf.train.Example(features=tf.train.Features(feature={
        "k": tf.train.Feature(int64_list=tf.train.Int64List(value=[192]))})).SerializeToString()
    ds = tf.data.Dataset.from_tensor_slices(np.array([example, b"ab"], dtype=object))
    assert list(ds) == [example, "ab"]
    parsed = tf.data.Dataset.from_tensor_slices([example, example]).batch(2).map(
        lambda s: tf.io.parse_example(s, {"k": tf.io.FixedLenFeature([1], tf.int64)}))
    assert next(iter(parsed))["k"].tolist() == [[192], [192]]

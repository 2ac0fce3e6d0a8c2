"""Records tf.keras 2.15's TextVectorization, Discretization and HashedCrossing values.

Run with a Python that has `tensorflow-cpu==2.15` (never a dependency of the package or
of its tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_preprocessing_fixtures.py

It writes `tests/keras/layers/preprocessing/fixtures/tf_text_structured.json`: one entry
per case, holding the layer's constructor arguments, how it was adapted, its vocabulary /
bin boundaries and its outputs on fixed inputs.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "layers", "preprocessing",
                   "fixtures", "tf_text_structured.json")

CORPUS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "A cat, a dog; a bird?",
    "Zebras and cats: the END.",
    "dog DOG dog cat",
    "Café ÉCOLE naïve",
    "",
    "   spaces   everywhere  ",
]
QUERIES = [
    "the cat ate the bird",
    "an unknown zebra appears",
    "DOG, dog... dog!",
    "",
    "a b c d e f g h i j",
    "Café école",
]


def _plain(x):
    if isinstance(x, tf.Tensor):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "SO":
            return [v.decode("utf-8") if isinstance(v, bytes) else _plain(v) for v in x.tolist()]
        return x.tolist()
    if isinstance(x, bytes):
        return x.decode("utf-8")
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def text_cases():
    cases = []
    configs = [
        ("default", {}, None),
        ("seq_len_5", {"output_sequence_length": 5}, None),
        ("seq_len_12", {"output_sequence_length": 12}, None),
        ("max_tokens_6", {"max_tokens": 6}, None),
        ("bigrams", {"ngrams": 2}, None),
        ("ngrams_1_3", {"ngrams": (1, 3)}, None),
        ("multi_hot", {"output_mode": "multi_hot"}, None),
        ("count", {"output_mode": "count"}, None),
        ("tf_idf", {"output_mode": "tf_idf"}, None),
        ("tf_idf_pad", {"output_mode": "tf_idf", "max_tokens": 12, "pad_to_max_tokens": True}, None),
        ("count_pad", {"output_mode": "count", "max_tokens": 8, "pad_to_max_tokens": True}, None),
        ("multi_hot_bigrams", {"output_mode": "multi_hot", "ngrams": 2, "max_tokens": 20}, None),
        ("character", {"split": "character", "standardize": None}, None),
        ("lower_only", {"standardize": "lower"}, None),
        ("strip_only", {"standardize": "strip_punctuation"}, None),
        ("no_split", {"split": None, "standardize": "lower"}, None),
        ("no_standardize", {"standardize": None}, None),
        ("adapt_batched_dataset", {}, "dataset"),
        ("adapt_column", {"output_sequence_length": 4}, "column"),
    ]
    for name, kwargs, adapt_how in configs:
        layer = tf.keras.layers.TextVectorization(**kwargs)
        if adapt_how == "dataset":
            layer.adapt(tf.data.Dataset.from_tensor_slices(CORPUS).batch(3))
        elif adapt_how == "column":
            layer.adapt(np.array(CORPUS)[:, None])
        else:
            layer.adapt(CORPUS)
        case = {
            "name": name,
            "kwargs": {k: (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()},
            "adapt": adapt_how or "list",
            "vocabulary": _plain(layer.get_vocabulary()),
            "vocabulary_size": int(layer.vocabulary_size()),
            "output": _plain(layer(tf.constant(QUERIES))),
            "output_column": _plain(layer(tf.constant(QUERIES)[:, None])),
        }
        cases.append(case)
    fixed = [
        ("given_vocab", {"vocabulary": ["earth", "wind", "and", "fire"], "output_sequence_length": 4},
         [["foo qux bar"], ["qux baz"]]),
        ("given_vocab_count", {"vocabulary": ["earth", "wind", "and", "fire"], "output_mode": "count"},
         ["earth wind and fire fire", "water"]),
        ("given_tfidf", {"vocabulary": ["earth", "wind", "and", "fire"], "output_mode": "tf_idf",
                         "idf_weights": [0.5, 0.25, 0.2, 0.125]},
         ["earth wind and fire fire", "water"]),
    ]
    for name, kwargs, data in fixed:
        layer = tf.keras.layers.TextVectorization(**kwargs)
        cases.append({
            "name": name, "kwargs": kwargs, "adapt": None, "input": data,
            "vocabulary": _plain(layer.get_vocabulary()),
            "output": _plain(layer(tf.constant(data))),
        })
    return cases


def discretization_cases():
    rng = np.random.RandomState(0)
    normal = rng.randn(1000).astype(np.float32)
    small = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]], np.float32)
    cases = []
    for name, kwargs, data in [
        ("small_4", {"num_bins": 4}, small),
        ("small_3", {"num_bins": 3}, np.array([0.1, 0.2, 0.5, 0.9, 1.3, 7.0], np.float32)),
        ("ten_many_bins", {"num_bins": 12}, np.arange(10, dtype=np.float32)),
        ("normal_5", {"num_bins": 5}, normal),
        ("normal_5_eps", {"num_bins": 5, "epsilon": 0.1}, normal),
        ("normal_7_2d", {"num_bins": 7}, normal.reshape(250, 4)),
        ("ints_3", {"num_bins": 3}, np.array([1, 2, 2, 3, 5, 8, 13, 21, 34], np.int64)),
        ("normal_dataset", {"num_bins": 4}, "dataset"),
    ]:
        layer = tf.keras.layers.Discretization(**kwargs)
        if isinstance(data, str):
            layer.adapt(tf.data.Dataset.from_tensor_slices(normal[:300]).batch(64))
            data = normal[:300]
        else:
            layer.adapt(data)
        query = np.array([[-2.0, -0.5, 0.0, 0.3], [0.9, 1.5, 3.0, 40.0]], np.float32)
        cases.append({
            "name": name, "kwargs": kwargs, "data": data.tolist(),
            "bin_boundaries": [float(b) for b in layer.bin_boundaries],
            "query": query.tolist(), "output": _plain(layer(query)),
        })
    inputs = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]], np.float32)
    for mode in ("int", "one_hot", "multi_hot", "count"):
        layer = tf.keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0], output_mode=mode)
        x = inputs[:, :1] if mode == "one_hot" else inputs
        cases.append({
            "name": f"given_{mode}", "kwargs": {"bin_boundaries": [0.0, 1.0, 2.0], "output_mode": mode},
            "query": x.tolist(), "output": _plain(layer(x)),
        })
    return cases


def crossing_cases():
    cases = []
    strings = np.array(["A", "B", "A", "B", "C", ""])
    ints = np.array([1, 2, 3, 1, -7, 123456789012], np.int64)
    for name, num_bins, inputs in [
        ("str_int_5", 5, [strings, ints]),
        ("int_str_1000", 1000, [ints, strings]),
        ("str_str_97", 97, [strings, strings[::-1].copy()]),
        ("three_10", 10, [strings, ints, ints[::-1].copy()]),
        ("int32_int_7", 7, [ints.astype(np.int32) % 100, ints]),
        ("column_5", 5, [strings[:, None], ints[:, None]]),
    ]:
        layer = tf.keras.layers.HashedCrossing(num_bins=num_bins)
        out = layer([tf.constant(x) for x in inputs])
        cases.append({
            "name": name, "num_bins": num_bins, "output_mode": "int",
            "inputs": [_plain(x) for x in inputs], "output": _plain(out),
        })
    layer = tf.keras.layers.HashedCrossing(num_bins=4, output_mode="one_hot")
    out = layer([tf.constant(strings), tf.constant(ints)])
    cases.append({"name": "one_hot_4", "num_bins": 4, "output_mode": "one_hot",
                  "inputs": [_plain(strings), _plain(ints)], "output": _plain(out)})
    out = layer([tf.constant("A"), tf.constant(1, tf.int64)])
    cases.append({"name": "scalar_one_hot", "num_bins": 4, "output_mode": "one_hot",
                  "inputs": ["A", 1], "output": _plain(out)})
    return cases


def main() -> None:
    fixtures = {
        "tensorflow": tf.__version__,
        "corpus": CORPUS,
        "queries": QUERIES,
        "text_vectorization": text_cases(),
        "discretization": discretization_cases(),
        "hashed_crossing": crossing_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    tmp = OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(fixtures, f, ensure_ascii=False, separators=(",", ":"))
    os.replace(tmp, OUT)
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()

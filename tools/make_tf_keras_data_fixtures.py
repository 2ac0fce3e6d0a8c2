"""Records tf.keras 2.15's data utilities on fixed inputs: `timeseries_dataset_from_array`
windows, `split_dataset` splits, `preprocessing.text` (Tokenizer, one_hot with md5
hashing, text_to_word_sequence) and `tf.audio.decode_wav` / `encode_wav`.

Run with a Python that has `tensorflow-cpu==2.15` (never a dependency of the package or
of its tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_keras_data_fixtures.py

It writes `tests/keras/utils/fixtures/tf_keras_data.json`.
"""

from __future__ import annotations

import base64
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "utils", "fixtures",
                   "tf_keras_data.json")

TIMESERIES_CASES = [
    dict(n=20, features=2, targets="offset", sequence_length=5),
    dict(n=20, features=0, targets="offset", sequence_length=4, sequence_stride=3, batch_size=2),
    dict(n=30, features=3, targets=None, sequence_length=3, sampling_rate=2, batch_size=4),
    dict(n=30, features=0, targets="same", sequence_length=4, sampling_rate=3,
         sequence_stride=2, batch_size=3, start_index=4, end_index=25),
    dict(n=25, features=0, targets="short", sequence_length=6, batch_size=5),
    dict(n=12, features=1, targets="offset", sequence_length=3, batch_size=None),
    dict(n=15, features=0, targets="same", sequence_length=10, batch_size=4, start_index=2),
    dict(n=10, features=0, targets=None, sequence_length=12, batch_size=4),
]

CORPUS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "A cat, a dog; a bird?",
    "dog DOG dog cat",
    "Zebras\tand cats: the END.",
]
QUERIES = ["the cat and the zebra", "unknown words only", "dog bird cat mat", ""]


def _ts_arrays(case: dict) -> tuple[np.ndarray, np.ndarray | None]:
    n, f = case["n"], case["features"]
    data = np.arange(n * max(f, 1), dtype="float32").reshape((n, f) if f else (n,))
    kind = case["targets"]
    if kind is None:
        targets = None
    elif kind == "offset":
        targets = np.arange(n, dtype="int64") * 10
    elif kind == "short":
        targets = np.arange(n // 2, dtype="int32") + 100
    else:
        targets = np.arange(n, dtype="float64") / 2
    return data, targets


def timeseries() -> list:
    out = []
    for case in TIMESERIES_CASES:
        data, targets = _ts_arrays(case)
        kwargs = {k: v for k, v in case.items() if k not in ("n", "features", "targets")}
        ds = tf.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs)
        batches = []
        for el in ds:
            if targets is None:
                batches.append({"x": el.numpy().tolist(), "x_dtype": el.dtype.name})
            else:
                batches.append({"x": el[0].numpy().tolist(), "y": el[1].numpy().tolist(),
                                "x_dtype": el[0].dtype.name, "y_dtype": el[1].dtype.name})
        out.append({"case": case, "batches": batches})
    return out


def split() -> list:
    out = []
    x = np.arange(10 * 2).reshape(10, 2)
    y = np.arange(10)
    for left, right in [(0.8, None), (None, 3), (4, 5), (0.25, 0.5), (0.33, None), (3, 0.4)]:
        for name, dataset in [("tuple", (x, y)), ("array", x),
                              ("dataset", tf.data.Dataset.from_tensor_slices((x, y))),
                              ("batched", tf.data.Dataset.from_tensor_slices(x).batch(3))]:
            a, b = tf.keras.utils.split_dataset(dataset, left_size=left, right_size=right)
            out.append({
                "left_size": left, "right_size": right, "input": name,
                "left": [tf.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in a],
                "right": [tf.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in b],
            })
    errors = []
    for left, right in [(None, None), (0, 0), (10, None), (1.5, None), ("a", None),
                        (None, "b"), ("a", "b"), (0.6, 0.6), (6, 6), (-1, None), (0.01, None)]:
        try:
            tf.keras.utils.split_dataset((x, y), left_size=left, right_size=right)
        except (TypeError, ValueError) as e:
            errors.append({"left_size": left, "right_size": right,
                           "type": type(e).__name__, "message": str(e)})
    return {"splits": out, "errors": errors}


def text() -> dict:
    P = tf.keras.preprocessing.text
    cases = []
    for kwargs in [{}, {"num_words": 4}, {"oov_token": "<OOV>"},
                   {"num_words": 5, "oov_token": "<OOV>"}, {"lower": False},
                   {"char_level": True}, {"filters": "", "split": ","}]:
        tok = P.Tokenizer(**kwargs)
        tok.fit_on_texts(CORPUS)
        seqs = tok.texts_to_sequences(QUERIES + CORPUS)
        cases.append({
            "kwargs": kwargs,
            "word_index": list(tok.word_index.items()),  # a list: the file sorts dict keys
            "word_counts": list(tok.word_counts.items()),
            "word_docs": dict(tok.word_docs),
            "index_docs": {str(k): v for k, v in tok.index_docs.items()},
            "document_count": tok.document_count,
            "sequences": seqs,
            "texts": tok.sequences_to_texts(seqs),
            "matrices": {mode: tok.texts_to_matrix(QUERIES + CORPUS, mode=mode).tolist()
                         for mode in ("binary", "count", "freq", "tfidf")},
            "json": tok.to_json(),
        })
    return {
        "tokenizers": cases,
        "word_sequences": [P.text_to_word_sequence(t) for t in CORPUS],
        "word_sequences_upper": [P.text_to_word_sequence(t, lower=False, split="a")
                                 for t in CORPUS],
        "md5": [P.hashing_trick(t, 17, hash_function="md5") for t in CORPUS],
    }


def audio() -> dict:
    rng = np.random.RandomState(0)
    values = np.concatenate([
        np.array([-1.5, -1.0, -0.99999, -0.5, -1 / 32768, 0.0, 1 / 65536, 0.3, 0.5, 0.99998,
                  1.0, 1.5], dtype="float32"),
        rng.uniform(-1, 1, 20).astype("float32"),
    ]).reshape(-1, 2)
    encoded = tf.audio.encode_wav(values, 8000).numpy()
    decoded, rate = tf.audio.decode_wav(encoded)
    decoded_1, _ = tf.audio.decode_wav(encoded, desired_channels=1)
    decoded_3, _ = tf.audio.decode_wav(encoded, desired_channels=3, desired_samples=20)
    decoded_5, _ = tf.audio.decode_wav(encoded, desired_samples=5)
    return {
        "values": values.tolist(),
        "wav_base64": base64.b64encode(encoded).decode("ascii"),
        "decoded": decoded.numpy().tolist(),
        "rate": int(rate.numpy()),
        "decoded_1ch": decoded_1.numpy().tolist(),
        "decoded_3ch_20": decoded_3.numpy().tolist(),
        "decoded_5": decoded_5.numpy().tolist(),
    }


# (relative path, number of samples, channels): sample k of file i is (i * 1000 + k) / 32768
AUDIO_FILES = [
    ("dog/a.wav", 3, 2), ("dog/b.wav", 6, 2), ("dog/c.wav", 4, 2), ("cat/x.wav", 2, 2),
    ("cat/y.wav", 7, 2), ("cat/z.wav", 5, 2), ("cat/skip.txt", 0, 0), ("bird/q.wav", 4, 2),
]


def write_audio_files(root: str) -> None:
    """Writes AUDIO_FILES under `root` with the stdlib `wave` module (as the tests do)."""
    import wave

    for i, (rel, n, channels) in enumerate(AUDIO_FILES):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if rel.endswith(".txt"):
            with open(path, "w") as f:
                f.write("not audio")
            continue
        samples = (i * 1000 + np.arange(n * channels)).astype("<i2")
        with wave.open(path, "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(samples.tobytes())


def audio_datasets() -> list:
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as root:
        write_audio_files(root)
        for kwargs in [dict(batch_size=3, shuffle=False),
                       dict(batch_size=2, shuffle=False, output_sequence_length=5,
                            label_mode="categorical"),
                       dict(batch_size=None, shuffle=False, label_mode=None),
                       dict(batch_size=4, shuffle=False, class_names=["dog", "cat", "bird"]),
                       dict(batch_size=2, shuffle=False, output_sequence_length=4,
                            validation_split=0.4, subset="validation", seed=1337,
                            label_mode="categorical")]:
            ds = tf.keras.utils.audio_dataset_from_directory(root, **kwargs)
            batches = []
            for el in ds:
                if isinstance(el, tuple):
                    batches.append({"audio": el[0].numpy().tolist(), "labels": el[1].numpy().tolist(),
                                    "label_dtype": el[1].dtype.name})
                else:
                    batches.append({"audio": el.numpy().tolist()})
            out.append({"kwargs": kwargs, "class_names": ds.class_names, "batches": batches})
        train, val = tf.keras.utils.audio_dataset_from_directory(
            root, batch_size=None, validation_split=0.3, subset="both", seed=7,
            output_sequence_length=2)
        out.append({"split_firsts": {
            "training": sorted(round(float(a[0, 0]) * 32768) for a, _ in train),
            "validation": sorted(round(float(a[0, 0]) * 32768) for a, _ in val)}})
    return out


def main() -> None:
    result = {"timeseries": timeseries(), "split_dataset": split(), "text": text(),
              "audio": audio(), "audio_files": AUDIO_FILES, "audio_datasets": audio_datasets()}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, sort_keys=True)
    os.replace(tmp, OUT)
    print("wrote", OUT)


if __name__ == "__main__":
    main()

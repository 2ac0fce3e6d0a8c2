"""`tf.keras.utils.audio_dataset_from_directory` and `tf.audio.decode_wav`/`encode_wav`.

WAV files are written in the test with the stdlib `wave` module. Expected batches, labels,
splits and WAV bytes were recorded with real TensorFlow 2.15 by
`tools/make_tf_keras_data_fixtures.py` (fixture `fixtures/tf_keras_data.json`, keys
`audio`, `audio_files`, `audio_datasets`).
"""

import base64
import json
import os
import wave

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_keras_data.json")
with open(FIXTURE) as _f:
    RECORD = json.load(_f)


def _write_files(root):
    for i, (rel, n, channels) in enumerate(RECORD["audio_files"]):
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
    return str(root)


@pytest.fixture
def root(tmp_path):
    return _write_files(tmp_path)


CASES = [c for c in RECORD["audio_datasets"] if "kwargs" in c]


@pytest.mark.parametrize("case", CASES, ids=[json.dumps(c["kwargs"]) for c in CASES])
def test_batches_match_tf215(root, case):
    ds = tf.keras.utils.audio_dataset_from_directory(root, **case["kwargs"])
    assert ds.class_names == case["class_names"]  # [''] without labels, as TF 2.15
    got = list(ds)
    assert len(got) == len(case["batches"])
    for element, want in zip(got, case["batches"]):
        if "labels" in want:
            audio, labels = element
            np.testing.assert_array_equal(labels.numpy(), np.asarray(want["labels"]))
            assert str(labels.dtype) == "torch." + want["label_dtype"]
        else:
            audio = element
        assert audio.dtype == torch.float32
        np.testing.assert_array_equal(audio.numpy(), np.asarray(want["audio"], dtype="float32"))


def test_both_subsets_split_files_as_tf215(root):
    want = RECORD["audio_datasets"][-1]["split_firsts"]
    train, val = tf.keras.utils.audio_dataset_from_directory(
        root, batch_size=None, validation_split=0.3, subset="both", seed=7,
        output_sequence_length=2)
    assert sorted(round(float(a[0, 0]) * 32768) for a, _ in train) == want["training"]
    assert sorted(round(float(a[0, 0]) * 32768) for a, _ in val) == want["validation"]
    assert train.class_names == val.class_names == ["bird", "cat", "dog"]


def test_shuffled_batches_are_seeded(root):
    kwargs = dict(batch_size=2, seed=3, output_sequence_length=3)
    first = [(a.clone(), y.clone()) for a, y in tf.keras.utils.audio_dataset_from_directory(
        root, **kwargs)]
    again = list(tf.keras.utils.audio_dataset_from_directory(root, **kwargs))
    for (a1, y1), (a2, y2) in zip(first, again):
        assert torch.equal(a1, a2) and torch.equal(y1, y2)
    assert sum(len(y) for _, y in first) == 7


def test_wav_codec_matches_tf215():
    audio = RECORD["audio"]
    values = np.asarray(audio["values"], dtype="float32")
    encoded = tf.audio.encode_wav(values, 8000)
    assert encoded == base64.b64decode(audio["wav_base64"])
    decoded, rate = tf.audio.decode_wav(encoded)
    assert rate.dtype == torch.int32 and int(rate) == audio["rate"] == 8000
    np.testing.assert_array_equal(decoded.numpy(), np.asarray(audio["decoded"], dtype="float32"))
    for kwargs, key in [(dict(desired_channels=1), "decoded_1ch"),
                        (dict(desired_channels=3, desired_samples=20), "decoded_3ch_20"),
                        (dict(desired_samples=5), "decoded_5")]:
        got, _ = tf.audio.decode_wav(encoded, **kwargs)
        np.testing.assert_array_equal(got.numpy(), np.asarray(audio[key], dtype="float32"))


def test_decode_errors(tmp_path):
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a PCM WAV file"):
        tf.audio.decode_wav(b"RIFF....garbage")
    path = tmp_path / "eight.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes([128, 130]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can only read 16-bit WAV files"):
        tf.audio.decode_wav(path.read_bytes())
    with pytest.raises(tf.errors.InvalidArgumentError, match="2-dimensional"):
        tf.audio.encode_wav(np.zeros(3, dtype="float32"), 8000)


def test_argument_errors(root):
    load = tf.keras.utils.audio_dataset_from_directory
    with pytest.raises(ValueError, match="Cannot set both `ragged` and `output_sequence_length`"):
        load(root, ragged=True, output_sequence_length=3)
    with pytest.raises(NotImplementedError, match="no tf.RaggedTensor"):
        load(root, ragged=True)
    with pytest.raises(ValueError, match="`sampling_rate` should have an integer value"):
        load(root, sampling_rate=1.5)
    with pytest.raises(ValueError, match="`sampling_rate` should be higher than 0"):
        load(root, sampling_rate=0)
    with pytest.raises(NotImplementedError, match="tfio.audio.resample"):
        load(root, sampling_rate=8000)
    with pytest.raises(ValueError, match="The `labels` argument should be a list/tuple"):
        load(root, labels="bogus")
    with pytest.raises(ValueError, match='`label_mode` argument must be one of "int"'):
        load(root, label_mode="bogus")
    with pytest.raises(ValueError, match="there must be exactly 2 class_names"):
        load(root, label_mode="binary")
    with pytest.raises(ValueError, match="you must provide a `seed`"):
        load(root, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match=r"No audio files found in directory .*\('.wav',\)"):
        load(_empty_dir(root))


def _empty_dir(root):
    path = os.path.join(root, "..", "empty")
    os.makedirs(path, exist_ok=True)
    return path

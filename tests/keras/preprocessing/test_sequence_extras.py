"""`tf.keras.preprocessing.sequence`: TimeseriesGenerator, make_sampling_table and skipgrams,
against Keras 2.15 values recorded by tools/make_tf_preprocessing_image_fixtures.py."""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.keras.preprocessing import sequence as kseq

HERE = os.path.dirname(__file__)
FIX = np.load(os.path.join(HERE, "fixtures", "tf_preprocessing_image.npz"))
META = json.load(open(os.path.join(HERE, "fixtures", "tf_preprocessing_image.json")))
SERIES = np.arange(40, dtype="float32").reshape(20, 2)
TS_CASES = {"plain": dict(length=4, batch_size=3),
            "strided": dict(length=6, sampling_rate=2, stride=3, start_index=1, end_index=17,
                            reverse=True, batch_size=2)}


def test_public_names():
    assert set(kseq.__all__) == {"TimeseriesGenerator", "make_sampling_table", "pad_sequences",
                                 "skipgrams"}
    assert tf.keras.preprocessing.sequence.skipgrams is kseq.skipgrams
    assert issubclass(kseq.TimeseriesGenerator, tf.keras.utils.Sequence)


@pytest.mark.parametrize("name", sorted(TS_CASES))
def test_timeseries_generator_matches_keras(name):
    gen = kseq.TimeseriesGenerator(SERIES, SERIES[:, 0] * 10, **TS_CASES[name])
    assert len(gen) == META[f"ts/{name}/len"]
    for b in range(len(gen)):
        x, y = gen[b]
        np.testing.assert_array_equal(x, FIX[f"ts/{name}/{b}/x"])
        np.testing.assert_array_equal(y, FIX[f"ts/{name}/{b}/y"])
    assert gen.get_config() == META[f"ts/{name}/config"]
    assert json.loads(gen.to_json())["class_name"] == "TimeseriesGenerator"


def test_timeseries_generator_shuffle_seeded_like_keras():
    np.random.seed(4)
    x, y = kseq.TimeseriesGenerator(SERIES, SERIES[:, 1], length=3, shuffle=True,
                                    batch_size=5)[0]
    np.testing.assert_array_equal(x, FIX["ts/shuffle/x"])
    np.testing.assert_array_equal(y, FIX["ts/shuffle/y"])


def test_timeseries_generator_errors():
    with pytest.raises(ValueError, match="Data length is 20 while target length is 3"):
        kseq.TimeseriesGenerator(SERIES, SERIES[:3], length=2)
    with pytest.raises(ValueError, match=r"`start_index\+length=25 > end_index=19`"):
        kseq.TimeseriesGenerator(SERIES, SERIES, length=25)
    with pytest.raises(TypeError, match="Data not JSON Serializable"):
        kseq.TimeseriesGenerator([object()] * 5, list(range(5)), length=2).get_config()


def test_timeseries_generator_trains_a_model():
    data = np.sin(np.arange(200) / 5).astype("float32")[:, None]
    gen = kseq.TimeseriesGenerator(data, data, length=8, batch_size=16)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(8, 1)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    hist = model.fit(gen, epochs=3, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_make_sampling_table_matches_keras():
    got = kseq.make_sampling_table(12, sampling_factor=0.05)
    np.testing.assert_allclose(got, FIX["sampling_table"], rtol=1e-12)
    assert kseq.make_sampling_table(5).shape == (5,)


@pytest.mark.parametrize("name,kwargs", [
    ("default", dict(window_size=2, seed=21)),
    ("categorical", dict(window_size=1, negative_samples=0.5, categorical=True, seed=5)),
    ("table", dict(window_size=3, shuffle=False)),
])
def test_skipgrams_match_keras(name, kwargs):
    if name == "table":
        kwargs["sampling_table"] = kseq.make_sampling_table(8, 0.2)
    random.seed(9)
    couples, labels = kseq.skipgrams([1, 2, 0, 3, 4, 5, 2, 0, 6], 8, **kwargs)
    assert [couples, labels] == META[f"skipgrams/{name}"]


def test_skipgrams_contract():
    couples, labels = kseq.skipgrams([1, 2, 3], 10, window_size=1, negative_samples=0,
                                     shuffle=False)
    assert couples == [[1, 2], [2, 1], [2, 3], [3, 2]] and labels == [1, 1, 1, 1]

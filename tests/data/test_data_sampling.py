"""choose_from_datasets (values against TF 2.15's recorded ones), sample_from_datasets and
rejection_resample (by distribution, seeded), Dataset.random and Dataset.counter.
Fixtures: tests/data/fixtures/tf_data_transforms.json (tools/make_tf_data_transform_fixtures.py)."""

from collections import Counter as Tally

import numpy as np
import pytest
import torch
from _tf_fixture import TF, record, spec, tf_message

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

r = tf.data.Dataset.range
CHOICES = np.array([0, 1, 2, 1, 0, 1, 1, 2, 0, 0])


def inputs():
    return [r(0, 5), r(100, 103), r(200, 210)]


def test_choose_from_datasets_matches_tf():
    choice = tf.data.Dataset.from_tensor_slices(CHOICES)
    assert record(tf.data.Dataset.choose_from_datasets(inputs(), choice)) == TF["choose_stop"]
    assert record(tf.data.Dataset.choose_from_datasets(
        inputs(), choice, stop_on_empty_dataset=False)) == TF["choose_nostop"]
    # the experimental endpoint defaults to stop_on_empty_dataset=False
    assert record(tf.data.experimental.choose_from_datasets(inputs(), choice)) == \
        TF["choose_exp_default"]


def test_choose_from_datasets_errors_have_tfs_messages():
    bad = tf.data.Dataset.from_tensor_slices(np.array([0, 1], np.int32))
    with pytest.raises(TypeError) as e:
        tf.data.Dataset.choose_from_datasets(inputs(), bad)
    assert str(e.value) == TF["choose_err_dtype"]["message"]
    with pytest.raises(ValueError) as e:
        tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.from_tensor_slices(CHOICES))
    assert str(e.value) == TF["choose_err_empty"]["message"]
    out_of_range = tf.data.Dataset.choose_from_datasets(
        inputs(), tf.data.Dataset.from_tensor_slices(np.array([0, 5])))
    with pytest.raises(InvalidArgumentError) as e:
        list(out_of_range)
    assert str(e.value) == tf_message("choose_err_range")


def test_sample_from_datasets_follows_weights():
    a = tf.data.Dataset.from_tensors(np.int64(0)).repeat()
    b = tf.data.Dataset.from_tensors(np.int64(1)).repeat()
    ds = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.8, 0.2], seed=7)
    draws = [int(x) for x in ds.take(5000)]
    assert abs(np.mean(draws) - 0.2) < 0.02
    assert draws == [int(x) for x in ds.take(5000)]  # seeded: the same every pass
    again = [int(x) for x in tf.data.Dataset.sample_from_datasets(
        [a, b], weights=[0.8, 0.2], seed=7).take(5000)]
    assert again == draws
    other = [int(x) for x in tf.data.Dataset.sample_from_datasets(
        [a, b], weights=[0.8, 0.2], seed=8).take(5000)]
    assert other != draws
    rerandomized = tf.data.Dataset.sample_from_datasets([a, b], seed=7,
                                                        rerandomize_each_iteration=True)
    assert [int(x) for x in rerandomized.take(200)] != [int(x) for x in rerandomized.take(200)]


def test_sample_from_datasets_empties_inputs_or_stops():
    ds = tf.data.Dataset.sample_from_datasets([r(3), r(100, 105)], seed=3)
    assert sorted(int(x) for x in ds) == TF["sample_all"]
    endless = tf.data.Dataset.from_tensors(np.int64(100)).repeat()
    for seed in range(5):
        stopped = [int(x) for x in tf.data.Dataset.sample_from_datasets(
            [r(3), endless], seed=seed, stop_on_empty_dataset=True)]
        assert [x for x in stopped if x < 100] == [0, 1, 2]  # ends at the next pick of r(3)
        going_on = [int(x) for x in tf.data.Dataset.sample_from_datasets(
            [r(3), endless], seed=seed).take(60)]
        assert [x for x in going_on if x < 100] == [0, 1, 2] and going_on[-10:] == [100] * 10


def test_sample_from_datasets_weights_dataset_and_zero_weight():
    weights = tf.data.Dataset.from_tensors(torch.tensor([0.0, 1.0])).repeat()
    ds = tf.data.Dataset.sample_from_datasets([r(3), r(10, 13)], weights=weights, seed=1)
    assert [int(x) for x in ds.take(3)] == [10, 11, 12]
    only_b = tf.data.Dataset.sample_from_datasets([r(3), r(10, 13)], weights=[0.0, 1.0])
    assert [int(x) for x in only_b] == [10, 11, 12]  # ends when only weight-0 inputs remain


def test_sample_from_datasets_cardinality_spec_and_errors_match_tf():
    card = TF["sample_card"]
    assert int(tf.data.Dataset.sample_from_datasets([r(3), r(5)], seed=1).cardinality()) == \
        card["finite"]
    assert int(tf.data.Dataset.sample_from_datasets(
        [r(3), r(5)], seed=1, stop_on_empty_dataset=True).cardinality()) == card["finite_stop"]
    assert int(tf.data.Dataset.sample_from_datasets(
        [r(3).repeat(), r(5).repeat()]).cardinality()) == card["infinite"]
    assert int(tf.data.Dataset.sample_from_datasets([r(3).repeat(), r(5)]).cardinality()) == \
        card["mixed"]
    a = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), np.float32))
    b = tf.data.Dataset.from_tensor_slices(np.ones((4, 5), np.float32))
    assert spec(tf.data.Dataset.sample_from_datasets([a, b]).element_spec) == \
        TF["sample_spec_relaxed"]
    with pytest.raises(ValueError) as e:
        tf.data.Dataset.sample_from_datasets([r(3), r(5)], weights=[0.5, 0.3, 0.2])
    assert str(e.value) == TF["sample_err_weights"]["message"]
    with pytest.raises(ValueError) as e:
        tf.data.Dataset.sample_from_datasets([])
    assert str(e.value) == TF["sample_err_empty"]["message"]
    with pytest.raises(TypeError, match="compatible element specs"):
        tf.data.Dataset.sample_from_datasets([r(3), tf.data.Dataset.from_tensor_slices(["a"])])
    assert int(tf.data.experimental.sample_from_datasets([r(2), r(2)], seed=0)
               .cardinality()) == -2


def test_rejection_resample_reaches_target_distribution():
    labels = np.array([0] * 900 + [1] * 100, np.int64)
    ds = tf.data.Dataset.from_tensor_slices(labels).shuffle(1000, seed=1).repeat()
    resampled = ds.rejection_resample(lambda x: x, target_dist=[0.5, 0.5],
                                      initial_dist=[0.9, 0.1], seed=3)
    assert spec(resampled.element_spec) == TF["rejection_spec"]
    pairs = [(int(c), int(x)) for c, x in resampled.take(4000)]
    assert all(c == x for c, x in pairs)
    assert abs(np.mean([c for c, _ in pairs]) - 0.5) < 0.03
    estimated = tf.data.experimental.rejection_resample(lambda x: x, [0.5, 0.5], seed=4)
    classes = [int(c) for c, _ in ds.apply(estimated).take(4000)]
    assert abs(np.mean(classes) - 0.5) < 0.05
    with pytest.raises(ValueError, match="initial_dist"):
        ds.rejection_resample(lambda x: x, [0.5, 0.5], initial_dist=[1.0])


def test_random_and_counter():
    rand = tf.data.Dataset.random(seed=4)
    assert spec(rand.element_spec) == TF["random"]["spec"]
    assert int(rand.cardinality()) == TF["random"]["cardinality"]
    values = [int(x) for x in rand.take(1000)]
    assert values == [int(x) for x in rand.take(1000)]  # the same each pass without rerandomize
    assert min(values) >= 0 and max(values) < 2**32 and len(set(values)) > 990
    reshuffled = tf.data.experimental.RandomDataset(seed=4, rerandomize_each_iteration=True)
    assert [int(x) for x in reshuffled.take(5)] != [int(x) for x in reshuffled.take(5)]
    counter = tf.data.experimental.Counter(3, 2)
    assert spec(counter.element_spec) == TF["counter"]["spec"]
    assert [int(x) for x in counter.take(4)] == TF["counter"]["values"]
    assert int(tf.data.Dataset.counter().cardinality()) == TF["counter"]["cardinality"]
    assert spec(tf.data.Dataset.counter(dtype=tf.int32).element_spec) == TF["counter"]["int32"]
    assert [int(x) for x in tf.data.Dataset.counter(5, -1).skip(1020).take(3)] == [-1015, -1016,
                                                                                   -1017]
    assert [x.item() for x in tf.data.Dataset.counter(0.5, 0.25, tf.float32).take(3)] == \
        [0.5, 0.75, 1.0]


def test_zip_of_random_with_data_is_a_tally():
    coin = tf.data.Dataset.random(seed=0).map(lambda x: x % 2)
    tally = Tally(int(x) for x in coin.take(2000))
    assert abs(tally[0] - tally[1]) < 200


def test_cardinalities_of_infinite_inputs_match_tf():
    card = TF["card_more"]
    endless = r(7).repeat()
    assert int(tf.data.Dataset.sample_from_datasets(
        [r(3).repeat(), r(5)], stop_on_empty_dataset=True).cardinality()) == \
        card["sample_stop_mixed"]
    assert int(endless.unique().cardinality()) == card["unique_infinite"]
    assert int(r(7).ignore_errors().cardinality()) == card["ignore_errors_finite"]
    assert int(endless.ignore_errors().cardinality()) == card["ignore_errors_infinite"]
    assert int(endless.rejection_resample(lambda x: x % 2, [0.5, 0.5]).cardinality()) == \
        card["rejection_infinite"]
    assert int(endless.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), 2)
               .cardinality()) == card["group_by_window_infinite"]
    assert int(endless.scan(tf.constant(0, tf.int64), lambda s, x: (s, x)).cardinality()) == \
        card["scan_infinite"]
    assert int(r(7).window(3, shift=2, stride=2, drop_remainder=True).cardinality()) == \
        card["window_stride_drop"]


def test_load_and_snapshot_cardinality_match_tf(tmp_path):
    r(5).save(str(tmp_path / "a"))
    assert int(tf.data.Dataset.load(str(tmp_path / "a")).cardinality()) == TF["card_more"]["load"]
    assert int(r(5).snapshot(str(tmp_path / "s")).cardinality()) == TF["card_more"]["snapshot"]

"""Fixtures for the serving tests: real exports made once per session, real servers.

The exports: an Iris `DNNClassifier` with a parsing receiver (two versions,
trained for different numbers of steps), a `DNNRegressor` with a parsing
receiver and a string feature, and the Iris classifier with a raw receiver.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _serving_testlib import IRIS, KINDS, Server, copy_version, iris_arrays, training_input_fn

import torchestimator as tf


@pytest.fixture(scope="session")
def exports(tmp_path_factory) -> dict[str, Any]:
    """Exports under numbered version directories; returns their paths and base paths."""
    root = str(tmp_path_factory.mktemp("serving-exports"))
    features, labels = iris_arrays()
    columns = [tf.feature_column.numeric_column(k) for k in IRIS]
    config = tf.estimator.RunConfig(tf_random_seed=0, log_step_count_steps=1000)
    out: dict[str, Any] = {}

    # Iris DNNClassifier, parsing receiver: version 1 after 5 steps, version 2 after 30.
    classifier = tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns,
                                            n_classes=3, model_dir=os.path.join(root, "clf"),
                                            config=config)
    parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(columns))
    scratch = os.path.join(root, "scratch")
    classifier.train(training_input_fn(features, labels), steps=5)
    first = classifier.export_saved_model(scratch, parsing)
    classifier.train(training_input_fn(features, labels), steps=25)
    second = classifier.export_saved_model(os.path.join(root, "scratch2"), parsing)
    base = os.path.join(root, "iris")
    os.makedirs(base)
    out["iris_v1"] = copy_version(first, base, 1)
    out["iris_v2"] = copy_version(second, base, 2)
    out["iris_base"] = base
    out["export_iris"] = lambda export_dir_base: classifier.export_saved_model(  # as version 2
        export_dir_base, parsing)

    # DNNRegressor with a numeric and a string feature, parsing receiver.
    n = len(labels)
    kinds = np.asarray([KINDS[i % 3] for i in range(n)], dtype=object)
    reg_features = {"x": features["PetalLength"], "kind": kinds}
    reg_columns = [tf.feature_column.numeric_column("x"),
                   tf.feature_column.indicator_column(
                       tf.feature_column.categorical_column_with_vocabulary_list("kind", KINDS))]
    regressor = tf.estimator.DNNRegressor(hidden_units=[8], feature_columns=reg_columns,
                                          model_dir=os.path.join(root, "reg"), config=config)
    regressor.train(training_input_fn(reg_features, features["PetalWidth"]), steps=10)
    reg_parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(reg_columns))
    reg_base = os.path.join(root, "regressor")
    os.makedirs(reg_base)
    out["regressor"] = copy_version(
        regressor.export_saved_model(os.path.join(root, "scratch3"), reg_parsing), reg_base, 7)
    out["regressor_base"] = reg_base

    # The Iris classifier again, with a raw receiver (one float input per feature).
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {k: tf.TensorSpec((None,), tf.float32) for k in IRIS})
    raw_base = os.path.join(root, "raw")
    os.makedirs(raw_base)
    out["raw"] = copy_version(classifier.export_saved_model(os.path.join(root, "scratch4"), raw),
                               raw_base, 1)
    out["raw_base"] = raw_base
    return out


@pytest.fixture(scope="session")
def iris_server(exports) -> Iterator[Server]:
    """The Iris classifier's two versions served as model 'iris'."""
    server = Server("iris", exports["iris_base"])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def regressor_server(exports) -> Iterator[Server]:
    """The regressor served as model 'reg'."""
    server = Server("reg", exports["regressor_base"])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def raw_server(exports) -> Iterator[Server]:
    """The raw-receiver classifier served as model 'raw'."""
    server = Server("raw", exports["raw_base"])
    yield server
    server.stop()



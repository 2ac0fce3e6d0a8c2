"""Issue 28: a training step copies nothing from the host to the device but its batch.

On CUDA a copy from pageable host memory blocks the host until the GPU has caught up (it is a
synchronization: `torch.cuda.set_sync_debug_mode` flags it), so a constant the library made
on the host and copied to the device in every step (a bucketized column's boundaries did)
stalls the step. The loop's own copy of each batch is from pinned memory without blocking
(`loop.to_device`) and is not counted. The second device (`_harness/device_leaks.py`) stands in
for the GPU: a `TorchFunctionMode` counts the calls that copy host values to it --
`torch.tensor`/`as_tensor` of host data onto it, `Tensor.to`/`copy_` of a host tensor onto it
without `non_blocking` -- in each step after the first few (which build and place the model).
"""

from __future__ import annotations

import collections
import os
import traceback

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

import torchestimator as tf
from _harness.device_leaks import available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_LOOPS_OWN_COPY = ("loop.py", "to_device")


def _off_host(device) -> bool:
    return device is not None and torch.device(device).type != "cpu"


class HostToDeviceCopies(TorchFunctionMode):
    """Counts the host-to-device copies made while `step` is not None, by step, with where."""

    def __init__(self):
        super().__init__()
        self.step = None
        self.by_step: collections.Counter = collections.Counter()
        self.where: collections.Counter = collections.Counter()

    def _copies(self, func, args, kwargs) -> bool:
        if func in (torch.tensor, torch.as_tensor, torch.asarray):
            data = args[0] if args else kwargs.get("data")
            return _off_host(kwargs.get("device")) and not (
                isinstance(data, torch.Tensor) and data.device.type != "cpu")
        if not args or not isinstance(args[0], torch.Tensor) or args[0].dim() == 0:
            return False
        if func is torch.Tensor.copy_:
            src = args[1] if len(args) > 1 else kwargs.get("src")
            return (isinstance(src, torch.Tensor) and src.device.type == "cpu" and src.dim() > 0
                    and args[0].device.type != "cpu")
        if func is torch.Tensor.to and args[0].device.type == "cpu" and not kwargs.get("non_blocking"):
            target = kwargs.get("device", next(
                (a for a in args[1:] if isinstance(a, (str, torch.device))), None))
            return _off_host(target)
        return False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.step is not None and self._copies(func, args, kwargs):
            frames = traceback.extract_stack()[:-1]
            if not any((os.path.basename(f.filename), f.name) == _LOOPS_OWN_COPY for f in frames):
                self.by_step[self.step] += 1
                self.where[" <- ".join(f"{os.path.basename(f.filename)}:{f.lineno}"
                                       for f in frames[-4:][::-1])] += 1
        return func(*args, **kwargs)


def _assert_none(copies: HostToDeviceCopies) -> None:
    assert not copies.by_step, (f"host-to-device copies in steps {dict(copies.by_step)}: "
                                f"{copies.where.most_common(3)}")


class _MarkBatches(tf.keras.callbacks.Callback):
    def __init__(self, copies):
        super().__init__()
        self.copies = copies

    def on_train_batch_begin(self, batch, logs=None):
        self.copies.step = batch if batch >= 2 else None

    def on_train_batch_end(self, batch, logs=None):
        self.copies.step = None


class _MarkSteps(tf.estimator.SessionRunHook):
    def __init__(self, copies):
        self.copies, self.n = copies, 0

    def before_run(self, run_context):
        self.copies.step = self.n if self.n >= 2 else None

    def after_run(self, run_context, run_values):
        self.copies.step, self.n = None, self.n + 1


def _copies_in_fit(model, x, y, **fit_kwargs) -> HostToDeviceCopies:
    """The host-to-device copies of one epoch of `model.fit(x, y)` (batches of 16), by step."""
    copies = HostToDeviceCopies()
    with copies:
        model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[_MarkBatches(copies)],
                  **fit_kwargs)
    return copies


_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(160, 8)).astype(np.float32)
_Y = _RNG.integers(0, 3, size=160)


@pytest.mark.parametrize("labels", ["class_ids", "one_hot"])
def test_keras_fit_steps(labels):
    y = _Y if labels == "class_ids" else np.eye(3, dtype=np.float32)[_Y]
    loss = (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True) if labels == "class_ids"
            else tf.keras.losses.CategoricalCrossentropy(from_logits=True))
    metrics = ["accuracy"] if labels == "class_ids" else [
        "accuracy", tf.keras.metrics.AUC(), tf.keras.metrics.Precision(),
        tf.keras.metrics.TopKCategoricalAccuracy(2)]
    with on_leak_device():
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
            tf.keras.layers.Dropout(0.1), tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Dense(3)])
        model.compile(tf.keras.optimizers.Adam(0.01, clipnorm=1.0), loss, metrics=metrics)
        copies = _copies_in_fit(model, _X, y, class_weight={0: 1.0, 1: 2.0, 2: 1.0})
    _assert_none(copies)


@pytest.mark.parametrize("layer", ["string_lookup", "hashing", "discretization"])
def test_keras_preprocessing_layers_in_a_model(layer):
    """Layers that make ids on the host (from strings, or a numpy column) hand them to the
    model's device as the loop hands a batch: pinned, without blocking."""
    words = np.array(["a", "b", "c", "d", "zz"])[_Y % 5 + _RNG.integers(0, 2, size=160)]
    with on_leak_device():
        if layer == "discretization":
            inputs = tf.keras.Input(shape=(1,))
            ids = tf.keras.layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5])(inputs)
            x = _X[:, :1]
        else:
            inputs = tf.keras.Input(shape=(1,), dtype="string")
            make = {"string_lookup": lambda: tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"]),
                    "hashing": lambda: tf.keras.layers.Hashing(8)}[layer]
            ids, x = make()(inputs), words[:, None]
        hidden = tf.keras.layers.Flatten()(tf.keras.layers.Embedding(10, 4)(ids))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
        model.compile("adam", "mse")
        copies = _copies_in_fit(model, x, _Y.astype(np.float32))
    _assert_none(copies)


class _Augment(tf.keras.layers.Layer):
    """Draws stateless noise and flips images on the host, as TF's ops promise the same values
    on every device, and adds a constant TF's op makes from a numpy array: the values cross to
    the device as a batch does."""

    def call(self, images):
        noise = tf.random.stateless_uniform(tf.shape(images), seed=[1, 2], maxval=0.01)
        offset = tf.constant(np.full((4, 4, 1), 0.5, np.float32))
        return tf.image.random_flip_left_right(images) + noise + offset


def test_values_tf_ops_make_on_the_host_in_a_model():
    images = _RNG.uniform(size=(160, 4, 4, 1)).astype(np.float32)
    with on_leak_device():
        model = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), _Augment(), tf.keras.layers.Flatten(),
                                     tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        copies = _copies_in_fit(model, images, _Y.astype(np.float32))
    _assert_none(copies)


def _input_fn():
    features = {"a": _X[:, 0], "b": _X[:, 1], "n": _RNG.integers(0, 5, size=160),
                "word": np.array(["x", "y", "z", "w"] * 40)}
    return tf.data.Dataset.from_tensor_slices((features, _Y)).repeat().batch(16)


def _columns():
    fc = tf.feature_column
    word = fc.categorical_column_with_vocabulary_list("word", ["x", "y", "z"])
    deep = [fc.numeric_column("a"), fc.bucketized_column(fc.numeric_column("b"), [-1.0, 0.0, 1.0]),
            fc.embedding_column(word, 4),
            fc.indicator_column(fc.categorical_column_with_identity("n", 5))]
    wide = [fc.crossed_column(["word", fc.bucketized_column(fc.numeric_column("a"), [0.0])], 50),
            fc.categorical_column_with_hash_bucket("word", 10)]
    return deep, wide


@pytest.mark.parametrize("kind", ["dnn", "wide_and_deep"])
def test_premade_estimator_steps(kind, tmp_path):
    deep, wide = _columns()
    with on_leak_device():
        if kind == "dnn":
            estimator = tf.estimator.DNNClassifier([8], deep, n_classes=3, model_dir=str(tmp_path))
        else:
            estimator = tf.estimator.DNNLinearCombinedClassifier(
                linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[8],
                n_classes=3, model_dir=str(tmp_path))
        copies = HostToDeviceCopies()
        with copies:
            estimator.train(_input_fn, steps=8, hooks=[_MarkSteps(copies)])
    _assert_none(copies)


def test_the_counter_sees_a_copy_made_in_a_step():
    """The check can fail: a model whose `call` copies a host constant to the device each step."""

    class Shift(tf.keras.layers.Layer):
        def call(self, inputs):
            return inputs + torch.ones(inputs.shape[-1]).to(inputs.device)

    with on_leak_device():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(8,)), Shift()])
        model.compile("sgd", "mse")
        copies = _copies_in_fit(model, _X, np.eye(3, dtype=np.float32)[_Y])
    assert sum(copies.by_step.values()) == 8 and "test_no_blocking_copies_in_steps.py" in next(
        iter(copies.where))


def _tf1_model_fn(features, labels, mode, params):
    """The custom-estimator guide's model_fn, TF1 style, with a feature-column input layer."""
    net = tf.compat.v1.feature_column.input_layer(features, params["columns"])
    net = tf.compat.v1.layers.dense(net, 8, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 3)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
    tf.compat.v1.summary.scalar("accuracy", accuracy[1])
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_custom_model_fn_steps(tmp_path):
    deep, _ = _columns()
    with on_leak_device():
        estimator = tf.estimator.Estimator(_tf1_model_fn, model_dir=str(tmp_path),
                                           params={"columns": deep})
        copies = HostToDeviceCopies()
        with copies:
            estimator.train(_input_fn, steps=8, hooks=[_MarkSteps(copies)])
    _assert_none(copies)

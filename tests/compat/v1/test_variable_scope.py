"""`tf.compat.v1.get_variable` / `variable_scope`: TF1's store rules within one model_fn call,
persistence across calls, names and errors as TF 2.15 gives them (`fixtures/tf1.json`)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

v1 = tf.compat.v1

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1.json"), encoding="utf-8") as _f:
    NAMES = json.load(_f)["names"]


def _model_fn_scope(mode="train"):
    scope = ObjectScope()
    scope.context.begin_call(mode, 0)
    return scope


def _names(variables):
    return [v.name[:-2] for v in variables]  # without ':0'


def _tf1_pattern():
    """The `get_variables` pattern of make_tf1_fixture.py."""
    with v1.variable_scope("outer"):
        with v1.variable_scope("inner"):
            w = v1.get_variable("w", shape=[2, 3])
        v1.get_variable("b", shape=[3], initializer=v1.zeros_initializer())
        v1.get_variable("step", shape=[], dtype=tf.int64, trainable=False,
                        initializer=v1.zeros_initializer())
    with v1.variable_scope("outer", reuse=True):
        v1.get_variable("b")
    with v1.variable_scope(None, default_name="block"):
        v1.get_variable("w", shape=[1])
    with v1.variable_scope(None, default_name="block"):
        v1.get_variable("w", shape=[1])
    with v1.variable_scope("auto", reuse=v1.AUTO_REUSE):
        v1.get_variable("v", shape=[1])
        v1.get_variable("v", shape=[1])
    return w


def test_names_in_model_fn_match_tf1():
    scope = _model_fn_scope()
    with scope:
        _tf1_pattern()
        assert _names(v1.global_variables()) == NAMES["get_variables"]
        assert _names(v1.trainable_variables()) == NAMES["get_variables:trainable"]
        assert _names(v1.global_variables("outer/")) == ["outer/inner/w", "outer/b", "outer/step"]


def test_names_outside_model_fn_match_tf1():
    v1.reset_default_graph()
    try:
        _tf1_pattern()
        assert _names(v1.global_variables()) == NAMES["get_variables"]
        assert _names(v1.trainable_variables()) == NAMES["get_variables:trainable"]
        with pytest.raises(ValueError, match="Variable outer/inner/w already exists, disallowed"):
            _tf1_pattern()  # one store per process, as TF1's default graph
    finally:
        v1.reset_default_graph()
    assert v1.global_variables() == []


def test_variables_persist_across_model_fn_calls():
    scope = _model_fn_scope()
    seen = []
    for _ in range(3):
        with scope:
            w = _tf1_pattern()  # no "already exists": each call is a new graph
            seen.append(w)
            assert len(v1.global_variables()) == 6
        with torch.no_grad():
            w.add_(1.0)
    assert seen[0] is seen[1] is seen[2]
    assert isinstance(seen[0], tf.Variable) and seen[0].name == "outer/inner/w:0"


@pytest.mark.parametrize("key", ["exists", "missing", "shape", "no_shape"])
def test_errors_are_tf1s(key):
    expected = NAMES["errors"][key]
    with _model_fn_scope():
        with pytest.raises(ValueError) as info:
            with v1.variable_scope("outer"):
                v1.get_variable("w", shape=[1])
                if key == "exists":
                    v1.get_variable("w", shape=[1])
            with v1.variable_scope("outer", reuse=True):
                if key == "missing":
                    v1.get_variable("nope", shape=[1])
                v1.get_variable("w", shape=[2])
        if key == "no_shape":
            with pytest.raises(ValueError) as info:
                v1.get_variable("noshape")
    assert str(info.value) == expected


def test_reuse_is_inherited_and_scopes_reenter():
    with _model_fn_scope():
        with v1.variable_scope("model") as vs:
            a = v1.get_variable("a", shape=[2])
            assert vs.name == "model" and vs.original_name_scope == "model/"
            assert vs.reuse is False
        with v1.variable_scope(vs, reuse=True):
            with v1.variable_scope("sub") as sub:
                assert sub.reuse is True and sub.name == "model/sub"
            assert v1.get_variable("a") is a
        with v1.variable_scope("model", reuse=False):  # False cannot turn reuse off: inherits None
            with pytest.raises(ValueError, match="already exists"):
                v1.get_variable("a", shape=[2])
        with v1.variable_scope("model") as again:
            again.reuse_variables()
            assert v1.get_variable("a", shape=[2]) is a
        assert v1.get_variable_scope().name == ""
        with pytest.raises(TypeError, match="name_or_scope is required"):
            with v1.variable_scope(None):
                pass
        with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
            with v1.variable_scope(None, default_name="x", reuse=True):
                pass


def test_scope_defaults_initializer_dtype_and_regularizer():
    from torchestimator.compat.v1._variable_scope import regularization_losses

    with _model_fn_scope():
        with v1.variable_scope("s", initializer=v1.constant_initializer(0.5), dtype=tf.float64,
                               regularizer=lambda v: torch.sum(v) * 2.0):
            w = v1.get_variable("w", shape=[2, 2])
            b = v1.get_variable("b", shape=[2], initializer=v1.ones_initializer(), regularizer=None)
        assert w.dtype == torch.float64 and b.dtype == torch.float64
        np.testing.assert_array_equal(w.numpy(), np.full((2, 2), 0.5))
        np.testing.assert_array_equal(b.numpy(), np.ones(2))
        losses = regularization_losses()  # the scope's regularizer applies to both
        assert [float(x.detach()) for x in losses] == [4.0, 4.0]


def test_initializers_and_constant_values():
    with _model_fn_scope():
        c = v1.get_variable("c", initializer=torch.tensor([[1.0, 2.0]]))
        assert c.shape == (1, 2) and c.requires_grad
        with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
            v1.get_variable("d", shape=[3], initializer=np.zeros(2, np.float32))
        i = v1.get_variable("i", shape=[3], dtype=tf.int32)
        assert i.dtype == torch.int32 and not i.requires_grad and i.numpy().tolist() == [0, 0, 0]
        k = v1.get_variable("k", shape=[4], initializer=v1.zeros_initializer)  # the class
        assert k.numpy().tolist() == [0.0] * 4
        frozen = v1.get_variable("f", shape=[2], trainable=False)
        assert not frozen.requires_grad
        assert all(v is not frozen for v in v1.trainable_variables())
    np.testing.assert_array_equal(v1.constant_initializer([1, 2, 3, 4])([2, 2]).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="has 3 elements"):
        v1.constant_initializer([1, 2, 3])([2, 2])
    uniform = v1.random_uniform_initializer(seed=1)([2000]).numpy()
    assert uniform.min() >= 0.0 and uniform.max() < 1.0 and 0.45 < uniform.mean() < 0.55  # TF1: [0, 1)
    normal = v1.random_normal_initializer(seed=1)([4000]).numpy()
    assert 0.9 < normal.std() < 1.1  # TF1's stddev is 1, not Keras' 0.05
    glorot = v1.glorot_uniform_initializer(seed=3)([20, 30]).numpy()
    limit = np.sqrt(6 / 50)
    assert np.abs(glorot).max() <= limit and np.abs(glorot).max() > 0.9 * limit
    assert v1.zeros_initializer(dtype=tf.int64)([2]).dtype == torch.int64
    assert v1.truncated_normal_initializer(stddev=0.1, seed=2)([1000]).abs().max() <= 0.2


def test_custom_getter_sees_the_full_name():
    calls = []

    def getter(next_getter, name, *args, **kwargs):
        calls.append(name)
        return next_getter(name, *args, **kwargs)

    with _model_fn_scope():
        with v1.variable_scope("g", custom_getter=getter):
            v = v1.get_variable("v", shape=[1])
    assert calls == ["g/v"] and v.name == "g/v:0"


def test_tf_variables_made_in_model_fn_are_listed():
    with _model_fn_scope():
        w = v1.get_variable("w", shape=[1])
        t = tf.Variable(3.0, name="t")
        assert v1.global_variables() == [w, t]
        assert v1.trainable_variables("t") == [t]


def test_collections():
    keys = v1.GraphKeys
    scope = _model_fn_scope()
    for _ in range(2):
        with scope:
            w = v1.get_variable("w", shape=[2], initializer=v1.ones_initializer(),
                                regularizer=lambda v: 0.5 * torch.sum(v * v))
            v1.layers.dense(torch.ones(1, 2), 1, kernel_initializer=v1.ones_initializer(),
                            kernel_regularizer=lambda k: torch.sum(k) * 3.0)
            assert v1.get_collection(keys.UPDATE_OPS) == []  # batch norm updates in place
            assert [float(x.detach()) for x in v1.get_collection(keys.REGULARIZATION_LOSSES)] == [1.0, 6.0]
            assert v1.get_collection(keys.TRAINABLE_VARIABLES, "w") == [w]
            assert len(v1.get_collection(keys.GLOBAL_VARIABLES)) == 3
            assert v1.get_collection(keys.GLOBAL_STEP)[0].dtype == torch.int64
            assert v1.get_collection("mine") == []  # collections are per model_fn call
            v1.add_to_collection("mine", w)
            v1.add_to_collections(["mine", "other"], 1.5)
            assert v1.get_collection("mine") == [w, 1.5]
            assert v1.get_collection_ref("other") == [1.5]


def test_losses_and_regularization_collections_in_a_model_fn(tmp_path):
    """TF1's LOSSES and REGULARIZATION_LOSSES collections inside a real model_fn: get_total_loss
    sums what tf.compat.v1.losses made in this call plus the regularizers."""
    import numpy as np

    v1 = tf.compat.v1
    seen = {}

    def model_fn(features, labels, mode):
        w = v1.get_variable("w", shape=(2, 1), initializer=v1.ones_initializer(),
                            regularizer=tf.keras.regularizers.l2(0.5))
        pred = tf.matmul(features["x"], w)
        mse = v1.losses.mean_squared_error(labels, pred)
        v1.losses.absolute_difference(labels, pred, loss_collection=None)  # not collected
        total = v1.losses.get_total_loss()
        seen["n_losses"] = len(v1.losses.get_losses())
        seen["parts"] = (float(mse), float(v1.losses.get_regularization_loss()), float(total))
        train_op = v1.train.GradientDescentOptimizer(0.01).minimize(
            total, global_step=v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=total, train_op=train_op)

    x = np.ones((4, 2), np.float32)
    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, np.zeros((4, 1), np.float32)))
              .batch(4), steps=1)
    mse, reg, total = seen["parts"]
    assert seen["n_losses"] == 1
    assert total == pytest.approx(mse + reg) and reg > 0
    assert v1.losses.get_losses() == []  # outside a model_fn nothing is collected
    with pytest.raises(ValueError, match="nothing for get_total_loss to sum"):
        v1.losses.get_total_loss(add_regularization_losses=False)
    assert issubclass(v1.train.Checkpoint, tf.train.Checkpoint)  # TF1's CheckpointV1 (a `session`)

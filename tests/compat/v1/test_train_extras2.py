"""tf.compat.v1.train's AdagradDAOptimizer (against TF 2.15's trajectories, recorded by
tools/make_tf_api_types_fixtures.py), the subclassable TF1 Optimizer base, VocabInfo,
warm_start, init_from_checkpoint, and the refused ServerDef / sdca_* names."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import torchestimator as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _api_types_fixtures import FIXTURES  # noqa: E402

v1 = tf.compat.v1
TF = FIXTURES["adagrad_da"]


@pytest.mark.parametrize("case", sorted(TF))
def test_adagrad_da_follows_tf1(case):
    want = TF[case]
    w = tf.Variable([1.0, -2.0, 0.5])
    gs = tf.Variable(0, dtype=tf.int64)
    opt = v1.train.AdagradDAOptimizer(0.3, gs, **want["kwargs"])
    target = tf.constant([0.5, 0.25, -1.0])
    for expected in want["steps"]:
        opt.minimize(lambda: tf.reduce_sum((w - target) ** 2 * tf.constant([1.0, 2.0, 3.0])), global_step=gs,
                     var_list=[w])
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert int(gs.numpy()) == want["global_step"]
    assert opt.get_slot_names() == want["slots"]
    np.testing.assert_allclose(opt.get_slot(w, "gradient_accumulator").numpy(), want["g_acc"], rtol=1e-5)


def test_adagrad_da_validates_its_accumulator():
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value must be positive"):
        v1.train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=0.0)


class _PlainSGD(v1.train.Optimizer):
    """A TF1-style custom optimizer: momentum SGD written with slots and assign ops."""

    def __init__(self, learning_rate, momentum=0.5, use_locking=False, name="PlainSGD"):
        super().__init__(use_locking, name)
        self._lr, self._momentum = learning_rate, momentum
        self.prepared = 0

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name if hasattr(self, "_name") else self.name)

    def _prepare(self):
        self.prepared += 1
        self._lr_t = self._call_if_callable(self._lr)

    def _resource_apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        m.assign(self._momentum * m + grad)
        return var.assign_sub(self._lr_t * m)


def test_a_tf1_optimizer_subclass_trains_eagerly():
    w = tf.Variable([2.0, -1.0])
    opt = _PlainSGD(0.1)
    gs = tf.Variable(0, dtype=tf.int64)
    for _ in range(3):
        opt.minimize(lambda: tf.reduce_sum(w ** 2), global_step=gs, var_list=[w])
    # by hand: m1 = g0, w1 = w0 - .1 m1; m2 = .5 m1 + g1; ...
    expected, m = np.array([2.0, -1.0]), np.zeros(2)
    for _ in range(3):
        m = 0.5 * m + 2 * expected
        expected = expected - 0.1 * m
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), m, rtol=1e-6)
    assert opt.get_slot_names() == ["m"] and opt.prepared == 3 and int(gs.numpy()) == 3
    grads = opt.compute_gradients(tf.reduce_sum(w * 3.0), var_list=[w])
    assert grads[0][0].tolist() == [3.0, 3.0]


def test_a_tf1_optimizer_subclass_trains_in_an_estimator(tmp_path):
    def model_fn(features, labels, mode):
        w = v1.get_variable("w", [1], initializer=v1.zeros_initializer())
        loss = tf.reduce_mean((features["x"] * w - labels) ** 2)
        train_op = _PlainSGD(0.05, momentum=0.0).minimize(loss, global_step=v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x = np.array([[1.0], [2.0], [3.0]], np.float32)
        return tf.data.Dataset.from_tensors(({"x": x}, 2.0 * x)).repeat()

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=60)
    assert est.get_variable_value("w") == pytest.approx([2.0], abs=1e-3)


def test_optimizer_needs_a_name_and_an_update_rule():
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        v1.train.Optimizer(False, "")

    class NoRule(v1.train.Optimizer):
        pass

    w = tf.Variable([1.0])
    with pytest.raises(TypeError, match="must define _resource_apply_dense"):
        NoRule(False, "NoRule").minimize(lambda: tf.reduce_sum(w * w), var_list=[w])


def _checkpoint(tmp_path):
    """A TF1 checkpoint written by an Estimator: scope/w [2], scope/b [1]."""
    def model_fn(features, labels, mode):
        with v1.variable_scope("scope"):
            w = v1.get_variable("w", [2], initializer=v1.constant_initializer([3.0, 4.0]))
            b = v1.get_variable("b", [1], initializer=v1.constant_initializer(5.0))
        loss = tf.reduce_sum(w) * 0.0 + tf.reduce_sum(b) * 0.0
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=v1.train.get_global_step().assign_add(1))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "old"))
    est.train(lambda: tf.data.Dataset.from_tensors(({"x": tf.zeros([1])}, tf.zeros([1]))).repeat(), steps=1)
    return str(tmp_path / "old")


def test_init_from_checkpoint_maps_names_and_scopes(tmp_path):
    ckpt = _checkpoint(tmp_path)
    v1.reset_default_graph()
    with v1.variable_scope("new"):
        w = v1.get_variable("w", [2], initializer=v1.zeros_initializer())
        b = v1.get_variable("b", [1], initializer=v1.zeros_initializer())
    v1.train.init_from_checkpoint(ckpt, {"scope/": "new/"})
    assert w.numpy().tolist() == [3.0, 4.0] and b.numpy().tolist() == [5.0]
    other = tf.Variable([0.0])
    v1.train.init_from_checkpoint(ckpt, {"scope/b": other})
    assert other.numpy().tolist() == [5.0]
    with pytest.raises(ValueError, match="Tensor scope/missing is not found"):
        v1.train.init_from_checkpoint(ckpt, {"scope/missing": other})
    with pytest.raises(ValueError, match="doesn't match with shape of tensor scope/w"):
        v1.train.init_from_checkpoint(ckpt, {"scope/w": other})
    with pytest.raises(ValueError, match="Should be 'scope/': 'other_scope/'"):
        v1.train.init_from_checkpoint(ckpt, {"scope/w": "nowhere/"})
    v1.reset_default_graph()


def test_warm_start_and_vocab_info(tmp_path):
    ckpt = _checkpoint(tmp_path)
    v1.reset_default_graph()
    with v1.variable_scope("scope"):
        w = v1.get_variable("w", [2], initializer=v1.zeros_initializer())
    done = v1.train.warm_start(ckpt, vars_to_warm_start="scope/w")
    assert done == ["scope/w"] and w.numpy().tolist() == [3.0, 4.0]
    assert v1.train.VocabInfo is tf.estimator.VocabInfo
    v1.reset_default_graph()


@pytest.mark.parametrize("name", ["ServerDef", "sdca_optimizer", "sdca_fprint", "sdca_shrink_l1"])
def test_refused_names(name):
    from torchestimator.compat.v1._refusals import GraphMachineryError

    with pytest.raises(GraphMachineryError, match=rf"tf\.compat\.v1\.train\.{name} is TensorFlow machinery"):
        getattr(v1.train, name)()
    assert torch is not None


def test_mixed_precision_loss_scale_optimizer_follows_tf1():
    want = FIXTURES["loss_scale"]
    e = v1.train.experimental
    scale = e.DynamicLossScale(initial_loss_scale=4.0, increment_period=2, multiplier=2.0)
    w = tf.Variable([1.0, 2.0])
    gs = tf.Variable(0, dtype=tf.int64)
    opt = e.MixedPrecisionLossScaleOptimizer(v1.train.GradientDescentOptimizer(0.1), scale)
    for factor, expected in zip((1.0, 1.0, 1.0, float("inf"), 1.0), want["trace"]):
        opt.minimize(lambda factor=factor: tf.reduce_sum(w * w) * factor, global_step=gs, var_list=[w])
        np.testing.assert_allclose(w.numpy(), expected["w"], rtol=1e-6)
        assert float(scale()) == expected["scale"] and int(gs.numpy()) == expected["step"]
    grads = opt.compute_gradients(lambda: tf.reduce_sum(w * w), var_list=[w])
    np.testing.assert_allclose(grads[0][0].numpy(), want["grads"], rtol=1e-6)  # unscaled
    assert e.DynamicLossScale().get_config() == want["config"]
    assert float(e.FixedLossScale(8.0)()) == want["fixed"] and e.FixedLossScale(8.0).update([]) == (None, True)
    with pytest.raises(ValueError, match="must be an instance of a tf.compat.v1.train.Optimizer"):
        e.MixedPrecisionLossScaleOptimizer(tf.keras.optimizers.SGD(), "dynamic")
    with pytest.warns(UserWarning, match="no graph to rewrite"):
        wrapped = e.enable_mixed_precision_graph_rewrite(v1.train.GradientDescentOptimizer(0.1))
    assert isinstance(wrapped, e.MixedPrecisionLossScaleOptimizer)


def test_compat_v1_mixed_precision_module_is_the_same_loss_scaling():
    mp = v1.mixed_precision
    assert mp.MixedPrecisionLossScaleOptimizer is v1.train.experimental.MixedPrecisionLossScaleOptimizer
    assert mp.experimental.LossScale is v1.train.experimental.LossScale
    opt = mp.MixedPrecisionLossScaleOptimizer(v1.train.GradientDescentOptimizer(0.5), 4.0)
    w = tf.Variable([1.0])
    opt.minimize(lambda: tf.reduce_sum(w * w), var_list=[w])
    assert w.numpy().tolist() == [0.0]  # 1 - 0.5 * 2, the gradient unscaled

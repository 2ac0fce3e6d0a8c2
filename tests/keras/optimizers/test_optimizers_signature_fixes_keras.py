"""TF 2.15's signatures of the Keras optimizers: the base `Optimizer(weight_decay=0)`,
`Adadelta`/`Adagrad.update_step(grad, variable)`, and the legacy optimizers'
`apply_gradients(grads_and_vars, name, experimental_aggregate_gradients)` and
`minimize(loss, var_list, grad_loss, name, tape)`. Expected values were printed by TF 2.15.1."""

import inspect

import pytest

import torchestimator as tf


def test_base_optimizer_weight_decay_defaults_to_zero():
    class Plain(tf.keras.optimizers.Optimizer):
        def __init__(self):
            super().__init__(name="plain")

        def update_step(self, gradient, variable):
            variable.sub_(gradient)

    assert Plain().get_config()["weight_decay"] == 0  # TF 2.15.1: 0
    assert tf.keras.optimizers.Adam().get_config()["weight_decay"] is None  # TF 2.15.1: None


@pytest.mark.parametrize("cls", [tf.keras.optimizers.Adadelta, tf.keras.optimizers.Adagrad])
def test_update_step_takes_tfs_grad_name(cls):
    assert list(inspect.signature(cls.update_step).parameters)[1:] == ["grad", "variable"]


def test_legacy_apply_gradients_binds_positionally_as_tf():
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.legacy.SGD(0.1)
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)], None, False)
    assert v.numpy().tolist() == pytest.approx([0.9, 1.9])  # TF 2.15.1


def test_legacy_minimize_grad_loss_weights_the_loss_gradient():
    v = tf.Variable([1.0, 2.0, 3.0])
    opt = tf.keras.optimizers.legacy.SGD(0.1)
    opt.minimize(lambda: v * v, [v], grad_loss=tf.constant([1.0, 0.0, 2.0]))
    assert v.numpy().tolist() == pytest.approx([0.8, 2.0, 1.8])  # TF 2.15.1
    w = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    opt.minimize(loss, [w], None, None, tape)
    assert w.numpy().tolist() == pytest.approx([0.8, 1.6, 2.4])  # TF 2.15.1
    assert int(opt.iterations) == 2

"""`tf.keras.backend` functions whose results are state or random: variables and their values,
placeholders and `function`, the learning phase, random tensors, gradients, printing, the
experimental RNG flag, and bad arguments that TF leaves to its kernels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import torch

import torchestimator as tf

K = tf.keras.backend


def test_variable_eval_get_set_and_batch_values():
    v = K.variable(np.ones((2, 3)), name="w")
    assert isinstance(v, tf.Variable)
    assert K.dtype(v) == "float32" and K.int_shape(v) == (2, 3) and K.ndim(v) == 2
    assert K.count_params(v) == 6
    K.set_value(v, np.zeros((2, 3)))
    np.testing.assert_array_equal(K.get_value(v), np.zeros((2, 3), np.float32))
    K.batch_set_value([(v, [[1, 2, 3], [4, 5, 6]])])
    (value,) = K.batch_get_value([v])
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value, [[1, 2, 3], [4, 5, 6]])
    assert K.update_add(v, np.ones((2, 3), np.float32)) is v
    K.update_sub(v, tf.ones((2, 3)))
    K.update(v, tf.constant(np.full((2, 3), 7.0, np.float32)))
    np.testing.assert_array_equal(K.eval(v), np.full((2, 3), 7.0))
    assert K.dtype(K.variable([1, 2], dtype="float64")) == "float64"


def test_moving_average_update():
    m = K.variable([1.0, 2.0])
    K.moving_average_update(m, tf.constant([3.0, 4.0]), 0.9)
    np.testing.assert_allclose(K.eval(m), [1.2, 2.2], rtol=1e-6)


def test_sparse_variable_and_to_dense():
    s = K.variable(scipy.sparse.csr_matrix(np.eye(3)))
    assert K.is_sparse(s) and not K.is_sparse(tf.ones((2, 2)))
    np.testing.assert_array_equal(K.eval(s), np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(K.to_dense(s).numpy(), np.eye(3))


def test_zeros_ones_eye_are_variables():
    assert isinstance(K.zeros((2, 3)), tf.Variable)
    assert isinstance(K.ones((2, 3), dtype="int32"), tf.Variable)
    assert isinstance(K.eye(3), tf.Variable)
    assert not isinstance(K.zeros((2, 0)), tf.Variable)  # an empty shape gives a tensor


def test_placeholder_function_and_is_keras_tensor():
    x = K.placeholder(shape=(None, 3))
    assert K.is_keras_tensor(x) and K.int_shape(x) == (None, 3) and K.dtype(x) == "float32"
    assert K.int_shape(K.placeholder(ndim=2)) == (None, None)
    assert not K.is_keras_tensor(tf.constant(1.0))
    with pytest.raises(ValueError, match="Expected a symbolic tensor instance"):
        K.is_keras_tensor(np.ones(3))
    y = x * 2 + 1
    out = K.function([x], [y])([np.ones((2, 3), np.float32)])
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_array_equal(out[0], np.full((2, 3), 3.0))
    single = K.function([x], y)([np.ones((1, 3), np.float32)])
    assert isinstance(single, np.ndarray)
    with pytest.raises(ValueError, match="`updates` argument is not supported"):
        K.function([x], [y], updates=[(x, x)])
    with pytest.raises(ValueError, match="Session keyword arguments"):
        K.function([x], [y], feed_dict={})


def test_learning_phase_scope_and_train_phase():
    assert K.learning_phase() == 0
    with pytest.warns(UserWarning, match="deprecated"), K.learning_phase_scope(1):
        assert K.learning_phase() == 1
        assert K.in_train_phase(1, 2) == 1
        assert K.in_test_phase(1, 2) == 2
    assert K.learning_phase() == 0
    assert K.in_train_phase(lambda: "train", lambda: "test") == "test"
    with pytest.warns(UserWarning, match="set_learning_phase"):
        K.set_learning_phase(1)
    try:
        assert K.learning_phase() == 1
    finally:
        K.clear_session()
    assert K.learning_phase() == 0
    with pytest.raises(ValueError, match="Expected learning phase to be 0 or 1"), \
            pytest.warns(UserWarning), K.learning_phase_scope(2):
        pass
    picked = K.in_train_phase(tf.ones(2), tf.zeros(2), training=tf.constant(True))
    np.testing.assert_array_equal(picked.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("fn,args", [
    ("random_normal", {}), ("random_uniform", {"minval": 1.0, "maxval": 3.0}),
    ("truncated_normal", {"mean": 1.0, "stddev": 0.5}), ("random_bernoulli", {"p": 0.3}),
])
def test_random_tensors(fn, args):
    tf.random.set_seed(11)
    a = getattr(K, fn)((400, 50), seed=7, **args)
    tf.random.set_seed(11)
    b = getattr(K, fn)((400, 50), seed=7, **args)
    assert a.shape == (400, 50) and a.dtype == torch.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # global + op seed fix the values, as TF
    values = a.numpy()
    if fn == "random_normal":
        assert abs(values.mean()) < 0.05 and abs(values.std() - 1) < 0.05
    elif fn == "random_uniform":
        assert values.min() >= 1.0 and values.max() < 3.0 and abs(values.mean() - 2) < 0.05
    elif fn == "truncated_normal":
        assert values.min() >= 0.0 and values.max() <= 2.0 and abs(values.mean() - 1) < 0.05
    else:
        assert set(np.unique(values)) <= {0.0, 1.0} and abs(values.mean() - 0.3) < 0.05


def test_random_variables_and_binomial_alias():
    v = K.random_uniform_variable((3, 4), -1, 1, seed=1)
    assert isinstance(v, tf.Variable) and v.shape == (3, 4) and float(v.detach().abs().max()) <= 1
    n = K.random_normal_variable((3, 4), 0.0, 2.0, dtype="float64", seed=1)
    assert isinstance(n, tf.Variable) and n.dtype == torch.float64
    with pytest.warns(UserWarning, match="random_bernoulli"):
        b = K.random_binomial((10,), p=1.0, seed=2)
    np.testing.assert_array_equal(b.numpy(), np.ones(10))


def test_dropout_scales_kept_values():
    out = K.dropout(tf.ones((50, 40)), 0.5, seed=3).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < (out == 0).mean() < 0.6


def test_gradients_and_stop_gradient():
    a = tf.Variable([1.0, 2.0])
    b = tf.Variable([5.0])
    loss = K.sum(a * a)
    grads = K.gradients(loss, [a, b])
    np.testing.assert_array_equal(grads[0].numpy(), [2.0, 4.0])
    assert grads[1] is None
    stopped = K.stop_gradient([a * 2])
    assert isinstance(stopped, list) and not stopped[0].requires_grad
    assert not K.stop_gradient(a * 2).requires_grad
    with pytest.raises(ValueError, match="record gradients"):
        K.gradients(tf.constant(1.0), [a])


def test_print_tensor_prints_and_returns(capsys):
    x = tf.constant([1.5, 2.5])
    assert K.print_tensor(x, message="value:") is x
    assert "value:" in capsys.readouterr().out


def test_name_scope_reset_uids_and_manual_init():
    with K.name_scope("block"):
        pass
    K.get_uid("dense_backend_test")
    K.reset_uids()
    assert K.get_uid("dense_backend_test") == 1
    K.manual_variable_initialization(True)
    K.manual_variable_initialization(False)


def test_experimental_random_generator_flag():
    exp = K.experimental
    assert exp.is_tf_random_generator_enabled() is False
    exp.enable_tf_random_generator()
    try:
        assert exp.is_tf_random_generator_enabled() is True
    finally:
        exp.disable_tf_random_generator()
    assert exp.is_tf_random_generator_enabled() is False


def test_image_data_format_argument_name_and_errors():
    K.set_image_data_format(data_format="channels_first")
    try:
        assert K.image_data_format() == "channels_first"
        # functions with data_format=None follow the global setting
        x = tf.constant(np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4))
        assert tuple(K.pool2d(x, (2, 2), strides=(2, 2)).shape) == (2, 3, 2, 2)
    finally:
        K.set_image_data_format("channels_last")
    with pytest.raises(ValueError, match="Unknown `data_format`: NHWC. Expected one of"):
        K.set_image_data_format("NHWC")
    with pytest.raises(ValueError, match="Unknown `floatx` value: float8. Expected one of"):
        K.set_floatx("float8")


def test_cast_to_floatx_follows_floatx():
    K.set_floatx("float64")
    try:
        assert K.cast_to_floatx([1, 2]).dtype == np.float64
        assert K.cast_to_floatx(tf.constant([1, 2])).dtype == torch.float64
        assert K.dtype(K.constant(1)) == "float64"
    finally:
        K.set_floatx("float32")


def test_backend_rnn_validates_inputs():
    with pytest.raises(ValueError, match="rank at least 3"):
        K.rnn(lambda x, s: (x, s), tf.ones((2, 3)), [tf.ones((2, 3))])


def test_ctc_batch_cost_rejects_labels_longer_than_inputs():
    y_pred = tf.constant(np.full((1, 2, 3), 1 / 3, np.float32))
    with pytest.raises(ValueError, match="label_length"):
        K.ctc_batch_cost(tf.constant([[0, 1, 0]]), y_pred, tf.constant([[2]]), tf.constant([[3]]))


def test_ctc_batch_cost_gradient_flows():
    logits = torch.zeros((1, 4, 3), requires_grad=True)
    loss = K.ctc_batch_cost(tf.constant([[0, 1]]), torch.softmax(logits, -1), tf.constant([[4]]),
                            tf.constant([[2]]))
    loss.sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0

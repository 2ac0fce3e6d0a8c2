"""tf.Variable as a TF program uses it, and tf.GradientTape over variables and tensors."""

import copy
import pickle

import numpy as np
import pytest
import torch

import torchestimator as tf


# ------------------------------------------------------------------ Variable
def test_variable_reads_and_updates():
    v = tf.Variable([1.0, 2.0], name="v")
    assert v.name == "v:0" and v.trainable and v.dtype == torch.float32 and tuple(v.shape) == (2,)
    assert isinstance(v, torch.nn.Parameter) and isinstance(v, tf.Tensor)
    assert v.assign([3.0, 4.0]) is v
    v.assign_add(torch.tensor([1.0, 1.0]))
    v.assign_sub(0.5)
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert float(tf.Variable(2.5)) == 2.5  # float() reads the value
    assert not tf.Variable(1, trainable=True).requires_grad  # integers never record gradients
    assert not tf.Variable(1.0, trainable=False).requires_grad


def test_default_names_count_and_clear_session_resets_them():
    tf.keras.backend.clear_session()
    assert tf.Variable(1.0).name == "Variable:0"
    assert tf.Variable(1.0).name == "Variable_1:0"
    tf.keras.backend.clear_session()
    assert tf.Variable(1.0).name == "Variable:0"
    with tf.name_scope("scope"):
        assert tf.Variable(1.0).name == "scope/Variable:0"


def unit_clip(t):
    return t.clamp(0, 1)


def test_copies_keep_the_name_and_attributes():
    v = tf.Variable([1.0, 2.0], name="w", constraint=unit_clip)
    v.extra_note = "kept"
    for c in (copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert type(c) is tf.Variable and c.name == "w:0" and c.requires_grad
        assert c.extra_note == "kept"
        np.testing.assert_array_equal(c.numpy(), [1.0, 2.0])
    assert copy.deepcopy(v).constraint is unit_clip and v._keras_constraint is unit_clip


def test_gradient_tape_over_variables():
    w, b = tf.Variable(2.0), tf.Variable(1.0)
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        loss = ((w * x + b) ** 2).mean()
    dw, db = tape.gradient(loss, [w, b])
    expected_dw = float((2 * (2 * x + 1) * x).mean())
    assert float(dw) == pytest.approx(expected_dw) and float(db) == pytest.approx(float((2 * (2 * x + 1)).mean()))
    assert loss.numpy() == pytest.approx(float(((2 * x + 1) ** 2).mean()))  # TF code reads it
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(loss, [w])
    with tf.GradientTape() as tape:
        pass
    assert float(tape.gradient(w, w)) == 1.0
    assert w.requires_grad  # a variable target is not detached


def test_gradient_structures_and_unconnected():
    w, c, unused = tf.Variable(2.0), tf.Variable(3.0), tf.Variable(5.0)
    with tf.GradientTape(persistent=True) as tape:
        y = w * c
    grads = tape.gradient(y, {"a": w, "b": [c, unused]})
    assert float(grads["a"]) == 3.0 and float(grads["b"][0]) == 2.0 and grads["b"][1] is None
    assert float(tape.gradient(y, unused, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0
    assert float(tape.gradient(y, unused, unconnected_gradients="zero")) == 0.0
    assert tape.gradient(y, torch.tensor(1.0)) is None  # a constant is not watched
    assert tape.gradient(y, tf.Variable(1, dtype=tf.int32)) is None
    out = tape.gradient(y, w, output_gradients=torch.tensor(10.0))
    assert float(out) == 30.0
    del tape


def test_watch_and_watch_accessed_variables_false():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    assert not x.requires_grad  # watching does not change the constant for later code
    assert not (x * 2).requires_grad

    w, c = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = w * c
    gw, gc = tape.gradient(y, [w, c])
    assert float(gw) == 3.0 and gc is None
    assert tape.watched_variables() == (w,)
    with pytest.raises(ValueError, match="not a Tensor"):
        tf.GradientTape().watch("x")


def test_stop_recording_and_reset():
    w, c = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = w * c
        with tape.stop_recording():
            z = w * 10
            assert not z.requires_grad
        total = y + z
    gw, gc = tape.gradient(total, [w, c])
    assert float(gw) == 3.0 and float(gc) == 2.0
    with tf.GradientTape() as tape:
        tape.gradient(w * 1.0, w)
        tape.reset()
        y = w * c
    assert float(tape.gradient(y, c)) == 2.0
    with pytest.raises(ValueError, match="not recording"):
        with tape.stop_recording():
            pass


def test_tape_records_under_no_grad_and_is_visible():
    from torchestimator._gradient_tape import recording

    w = tf.Variable(2.0)
    assert not recording()
    with torch.no_grad():
        with tf.GradientTape() as tape:
            assert recording()
            y = w * w
            with tape.stop_recording():
                assert not recording()
        assert not torch.is_grad_enabled()
    assert float(tape.gradient(y, w)) == 4.0
    assert not recording()


def test_higher_order_gradients_with_nested_tapes():
    x = tf.Variable(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert float(dy) == 27.0 and float(d2y) == 18.0


def test_jacobian_and_batch_jacobian():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = torch.stack([x.sum(), (x * 3).sum(), x.prod()])
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_array_equal(tape.jacobian(z, x).numpy(), [[1, 1], [3, 3], [2, 1]])
    both = tape.jacobian(y, [x, tf.constant(1.0)])
    assert both[1] is None
    zero = tape.jacobian(y, tf.constant(1.0), unconnected_gradients="zero")
    assert tuple(zero.shape) == (2,)
    del tape

    xb = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    with tf.GradientTape() as tape:
        tape.watch(xb)
        yb = xb @ w  # [2, 3]
    jac = tape.batch_jacobian(yb, xb)
    assert tuple(jac.shape) == (2, 3, 2)
    np.testing.assert_array_equal(jac[0].numpy(), w.numpy().T)
    np.testing.assert_array_equal(jac[1].numpy(), w.numpy().T)
    with tf.GradientTape() as tape:
        tape.watch(xb)
        yb = xb * 2
    with pytest.raises(ValueError, match="first dimension"):
        tape.batch_jacobian(yb, torch.zeros(3, 2))


def test_custom_loop_with_a_keras_optimizer():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    optimizer = tf.keras.optimizers.SGD(0.1)
    x = np.random.default_rng(0).normal(size=(64, 2)).astype("float32")
    y = x @ np.array([[2.0], [-1.0]], "float32") + 0.5
    losses = []
    for _ in range(50):
        with tf.GradientTape() as tape:  # numpy in, tape active: the model records
            loss = ((model(x, training=True) - tf.constant(y)) ** 2).mean()
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(loss.numpy())
    assert losses[-1] < losses[0] / 50

"""Keras 2.15 optimizer methods: aggregate_gradients and save/load_own_variables (the new
optimizers), and the legacy (OptimizerV2) slot API: add_slot, get_slot, get_slot_names,
add_weight, get_weights/set_weights in TF's legacy order, get_gradients, get_updates.
Expected values were printed with TensorFlow 2.15.1."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

X = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0], [3.0, 0.0, 1.0], [-1.0, 1.0, 0.0]], "float32")
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "float32")


def _trained(optimizer, epochs=2):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones", input_shape=(3,))])
    model.compile(optimizer, "mse")
    model.fit(X, Y, verbose=0, batch_size=4, epochs=epochs, shuffle=False)
    return model


# slot names, get_weights() shapes and the first values of each array, as TF 2.15 prints them
LEGACY = {
    "Adam": (lambda: tf.keras.optimizers.legacy.Adam(amsgrad=True), ["m", "v", "vhat"],
             [(), (3, 2), (2,), (3, 2), (2,), (3, 2), (2,)],
             [[2.0], [0.664475, 0.711975], [0.427125, 0.427125], [0.024451, 0.028071],
              [0.010103, 0.010103], [0.024451, 0.028071], [0.010103, 0.010103]]),
    "SGD": (lambda: tf.keras.optimizers.legacy.SGD(momentum=0.9), ["momentum"],
            [(), (3, 2), (2,)], [[2.0], [-0.064562, -0.069187], [-0.0414, -0.041306]]),
    "RMSprop": (lambda: tf.keras.optimizers.legacy.RMSprop(centered=True, momentum=0.5),
                ["rms", "momentum", "mg"], [(), (3, 2), (2,), (3, 2), (2,), (3, 2), (2,)],
                [[2.0], [2.315281, 2.658781], [0.956266, 0.956266], [0.00421, 0.00421],
                 [0.004209, 0.004209], [0.66325, 0.71075], [0.42625, 0.42625]]),
    "Ftrl": (lambda: tf.keras.optimizers.legacy.Ftrl(), ["accumulator", "linear"],
             [(), (3, 2), (3, 2), (2,), (2,)],  # both slots of each variable in turn
             [[2.0], [22.07095, 25.704124], [-4267.432129, -4635.452637], [9.220768, 9.326729],
              [5.021532, 5.06489]]),
    "Nadam": (lambda: tf.keras.optimizers.legacy.Nadam(), ["m", "v"],
              [(), (), (3, 2), (2,), (3, 2), (2,)],  # momentum_cache after iterations
              [[2.0], [0.202599], [0.664446, 0.711946], [0.427104, 0.427104], [0.024449, 0.028069],
               [0.010102, 0.010102]]),
    "Adadelta": (lambda: tf.keras.optimizers.legacy.Adadelta(), ["accum_grad", "accum_var"],
                 [(), (3, 2), (2,), (3, 2), (2,)],
                 [[2.0], [1.194373, 1.371091], [0.493593, 0.493593], [0.0, 0.0], [0.0, 0.0]]),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_slots_and_weights_in_tf_order(name):
    make, slot_names, shapes, heads = LEGACY[name]
    optimizer = make()
    assert optimizer.get_weights() == [] and optimizer.get_slot_names() == []
    model = _trained(optimizer)
    assert optimizer.get_slot_names() == slot_names
    weights = optimizer.get_weights()
    assert [tuple(np.shape(w)) for w in weights] == shapes
    for array, head in zip(weights, heads):
        np.testing.assert_allclose(np.asarray(array, "float64").ravel()[:2], head, rtol=2e-4, atol=2e-6)
    bias_slot = optimizer.get_slot(model.weights[1], slot_names[0])  # the bias' first slot
    np.testing.assert_allclose(np.asarray(bias_slot), heads[{"Ftrl": 3, "Nadam": 3}.get(name, 2)],
                               rtol=2e-4, atol=2e-6)
    other = make()
    _trained(other, epochs=1)
    other.set_weights(weights)
    assert int(other.iterations) == 2
    for a, b in zip(other.get_weights(), weights):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_get_slot_is_the_state_the_update_uses():
    optimizer = tf.keras.optimizers.legacy.SGD(momentum=0.9)
    model = _trained(optimizer, epochs=1)
    slot = optimizer.get_slot(model.weights[0], "momentum")
    assert slot is optimizer._kernel.state[model.weights[0]]["m"]
    with pytest.raises(KeyError):
        optimizer.get_slot(model.weights[0], "nope")
    with pytest.raises(KeyError):
        optimizer.get_slot(tf.Variable([1.0]), "momentum")
    with pytest.raises(ValueError, match="weight list of length 1, but the optimizer was expecting 3"):
        optimizer.set_weights([np.array(1)])


def test_add_slot_and_add_weight():
    optimizer = tf.keras.optimizers.legacy.Adam()
    v = tf.Variable([1.0, 2.0], name="v")
    slot = optimizer.add_slot(v, "foo")
    assert slot.name == "v/foo:0" and slot.numpy().tolist() == [0.0, 0.0]
    assert optimizer.add_slot(v, "foo") is slot and optimizer.get_slot(v, "foo") is slot
    assert optimizer.get_slot_names() == ["foo"]
    ones = optimizer.add_slot(v, "bar", initializer="ones", shape=(3,))
    assert ones.numpy().tolist() == [1.0, 1.0, 1.0] and not ones.trainable
    weight = optimizer.add_weight("hyperx", shape=(2,))
    assert weight.name == "hyperx:0" and weight.numpy().tolist() == [0.0, 0.0] and weight.trainable
    assert all(w is not weight for w in optimizer.weights)
    assert not optimizer.add_weight("h", shape=(), trainable=False).trainable
    with pytest.raises(ValueError, match="VariableSynchronization.ON_READ only for non-trainable"):
        optimizer.add_weight("s", shape=(), trainable=True,
                             synchronization=tf.VariableSynchronization.ON_READ)


def test_get_gradients_and_get_updates():
    optimizer = tf.keras.optimizers.legacy.SGD(learning_rate=0.1)
    v = tf.Variable([1.0, 2.0])
    loss = tf.reduce_sum(v * v)
    grads = optimizer.get_gradients(loss, [v])
    np.testing.assert_allclose(np.asarray(grads[0]), [2.0, 4.0])
    optimizer.get_updates(loss, [v])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)
    with pytest.raises(ValueError, match="has `None` for gradient"):
        optimizer.get_gradients(tf.constant(1.0), [v])


def test_aggregate_gradients_unchanged_with_one_replica():
    optimizer = tf.keras.optimizers.Adam()
    v = tf.Variable([1.0, 2.0])
    g = torch.tensor([1.0, 2.0])
    pairs = optimizer.aggregate_gradients([(g, v), (None, v)])
    assert pairs[0][0] is g and pairs[0][1] is v and pairs[1] == (None, v)


def test_new_optimizer_store_hooks(caplog):
    optimizer = tf.keras.optimizers.Adam()
    _trained(optimizer, epochs=1)
    store = {}
    optimizer.save_own_variables(store)
    assert {k: v.shape for k, v in store.items()} == {
        "0": (), "1": (3, 2), "2": (3, 2), "3": (2,), "4": (2,)}
    assert store["0"].dtype == np.int64 and int(store["0"]) == 1
    fresh = tf.keras.optimizers.Adam()
    with caplog.at_level("WARNING", logger="torchestimator"):
        fresh.load_own_variables(store)
    assert ("Skipping variable loading for optimizer 'Adam', because it has 1 variables whereas "
            "the saved optimizer has 5 variables.") in caplog.text
    built = tf.keras.optimizers.Adam()
    _trained(built, epochs=3)
    built.load_own_variables(store)
    assert int(built.iterations) == 1
    for i, variable in enumerate(built.variables):
        np.testing.assert_allclose(np.asarray(variable), store[str(i)])

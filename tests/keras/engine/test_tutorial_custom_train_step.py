"""Regressions from TF's tutorials whose subclassed models Keras 2.15 builds from the
constructor's arguments ("Intro to Autoencoders", "Text generation with an RNN")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras import layers


class Autoencoder(tf.keras.Model):
    def __init__(self, latent_dim, shape):
        super().__init__()
        self.encoder = tf.keras.Sequential([layers.Flatten(),
                                            layers.Dense(latent_dim, activation="relu")])
        # TF's `.numpy()` of a scalar tensor is a NumPy scalar; here a 0-d array: both count
        self.decoder = tf.keras.Sequential([
            layers.Dense(tf.math.reduce_prod(shape).numpy(), activation="sigmoid"),
            layers.Reshape(shape)])

    def call(self, x):
        return self.decoder(self.encoder(x))


def test_dense_units_from_reduce_prod_numpy():
    model = Autoencoder(4, (5, 6))
    assert model.decoder.layers[0].units == 30
    assert model(np.zeros((2, 5, 6), dtype=np.float32)).shape == (2, 5, 6)
    for bad in (np.array(2.5), np.array([3]), torch.tensor(0)):
        with pytest.raises(ValueError, match="units"):
            layers.Dense(bad)


class CustomTraining(tf.keras.Model):
    def __init__(self):
        super().__init__(self)  # as the text-generation tutorial's MyModel: `self` is ignored
        self.dense = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        return self.dense(x)

    @tf.function
    def train_step(self, inputs):
        inputs, labels = inputs
        with tf.GradientTape() as tape:
            predictions = self(inputs, training=True)
            loss = self.loss(labels, predictions)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


def _fit_custom_training():
    model = CustomTraining()
    model.compile(optimizer=tf.keras.optimizers.Adam(),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = np.random.default_rng(0).random((16, 4)).astype("float32")
    y = np.arange(16) % 3
    return model, model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8), epochs=2,
                            verbose=0)


def test_a_subclassed_model_may_pass_self_to_model_init():
    model, _ = _fit_custom_training()
    assert type(model) is CustomTraining and int(model.optimizer.iterations) == 4


def test_an_overridden_train_steps_dict_is_the_epochs_logs():
    _, history = _fit_custom_training()
    assert all(loss > 0.1 for loss in history.history["loss"])  # Keras 2.15 logs ~1.1, not 0


def test_an_overridden_step_gets_x_itself_when_x_is_given_alone():
    """As Keras 2.15 (checked with TF 2.15): numpy `x` alone or a Dataset of single tensors
    gives the step the tensor; a Dataset of 1-tuples gives the tuple; the default steps take
    either (a VAE's `train_step(self, data)` reads `data` as the images)."""
    seen = []

    class Autoencoder(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            seen.append(("train", type(data).__name__))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(data) - data))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

        def test_step(self, data):
            seen.append(("test", type(data).__name__))
            return {"loss": tf.reduce_mean(tf.square(self(data) - data))}

        def predict_step(self, data):
            seen.append(("predict", type(data).__name__))
            return self(data)

    x = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
    model = Autoencoder()
    model.compile("sgd")
    model.fit(x, epochs=1, batch_size=4, verbose=0)
    model.fit(tf.data.Dataset.from_tensor_slices(x).batch(4), epochs=1, verbose=0)
    model.evaluate(x, batch_size=4, verbose=0)
    assert model.predict(x, batch_size=4, verbose=0).shape == (8, 3)
    assert set(seen) == {("train", "Tensor"), ("test", "Tensor"), ("predict", "Tensor")}
    seen.clear()
    with pytest.raises(Exception):  # a 1-tuple element stays a tuple, as in TF
        model.fit(tf.data.Dataset.from_tensor_slices((x,)).batch(4), epochs=1, verbose=0)
    assert seen == [("train", "tuple")]

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

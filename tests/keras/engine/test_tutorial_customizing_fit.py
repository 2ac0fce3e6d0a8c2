"""Regressions found running TF's "Customize what happens in fit()" guide."""

from __future__ import annotations

import numpy as np

import torchestimator as tf
from torchestimator import keras


class _TwoPartGAN(keras.Model):
    """The guide's GAN: train_step and compile overridden, no call()."""

    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def train_step(self, real):
        if isinstance(real, tuple):  # as the guide
            real = real[0]
        batch_size = tf.shape(real)[0]
        noise = tf.random.normal(shape=(batch_size, self.latent_dim))
        combined = tf.concat([self.generator(noise), real], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
        noise = tf.random.normal(shape=(batch_size, self.latent_dim))
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(tf.zeros((batch_size, 1)),
                                  self.discriminator(self.generator(noise)))
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def test_fit_of_a_model_without_call_runs_its_train_step():
    disc = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    gen = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4)])
    gan = _TwoPartGAN(disc, gen, latent_dim=3)
    gan.compile(d_optimizer=keras.optimizers.Adam(1e-3), g_optimizer=keras.optimizers.Adam(1e-3),
                loss_fn=keras.losses.BinaryCrossentropy(from_logits=True))
    before = [w.numpy().copy() for w in gen.trainable_weights]
    data = tf.data.Dataset.from_tensor_slices(np.random.rand(32, 4).astype("float32")).batch(8)
    # was: NotImplementedError "Model _TwoPartGAN has no call()" (fit called the model first)
    history = gan.fit(data, epochs=1, verbose=0)
    assert sorted(history.history) == ["d_loss", "g_loss"]
    assert any(not np.array_equal(b, w.numpy()) for b, w in zip(before, gen.trainable_weights))

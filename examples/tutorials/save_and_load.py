"""TensorFlow 2.15 tutorial "Save and load models" (https://www.tensorflow.org/tutorials/keras/save_and_load),
run with `import torchestimator as tf`.

Changed from the tutorial: MNIST-shaped images (320, 28x28) are generated instead of `mnist.load_data()`; 3/10/5 epochs
instead of 10/50/10; the custom-objects part follows the guide's `get_config`/`from_config`
pattern with `custom_objects=`.
"""
# The tutorial's own code style, kept as written:
# ruff: noqa: E402, UP032

import os

import numpy as np

import torchestimator as tf
from torchestimator import keras

print(tf.version.VERSION)

# --- generated MNIST-shaped data instead of tf.keras.datasets.mnist.load_data() ---
rng = np.random.default_rng(0)
train_images = rng.integers(0, 256, (320, 28, 28)).astype('uint8')
train_labels = (train_images[:, :14].mean(axis=(1, 2)) > train_images[:, 14:].mean(axis=(1, 2))).astype('int64') * 9
test_images = rng.integers(0, 256, (320, 28, 28)).astype('uint8')
test_labels = (test_images[:, :14].mean(axis=(1, 2)) > test_images[:, 14:].mean(axis=(1, 2))).astype('int64') * 9

train_labels = train_labels[:1000]
test_labels = test_labels[:1000]

train_images = train_images[:1000].reshape(-1, 28 * 28) / 255.0
test_images = test_images[:1000].reshape(-1, 28 * 28) / 255.0


# Define a simple sequential model
def create_model():
    model = tf.keras.Sequential([
        keras.layers.Dense(512, activation='relu', input_shape=(784,)),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(10)
    ])

    model.compile(optimizer='adam',
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])

    return model


# Create a basic model instance
model = create_model()

# Display the model's architecture
model.summary()

checkpoint_path = "training_1/cp.ckpt"
checkpoint_dir = os.path.dirname(checkpoint_path)

# Create a callback that saves the model's weights
cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path,
                                                 save_weights_only=True,
                                                 verbose=1)

# Train the model with the new callback
model.fit(train_images,
          train_labels,
          epochs=3,
          validation_data=(test_images, test_labels),
          callbacks=[cp_callback])  # Pass callback to training

# This may generate warnings related to saving the state of the optimizer.
# These warnings (and similar warnings throughout this notebook)
# are in place to discourage outdated usage, and can be ignored.

print(sorted(os.listdir(checkpoint_dir)))

# Create a basic model instance
model = create_model()

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Untrained model, accuracy: {:5.2f}%".format(100 * acc))

# Loads the weights
model.load_weights(checkpoint_path)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# Include the epoch in the file name (uses `str.format`)
checkpoint_path = "training_2/cp-{epoch:04d}.ckpt"
checkpoint_dir = os.path.dirname(checkpoint_path)

batch_size = 32

# Calculate the number of batches per epoch
import math

n_batches = len(train_images) / batch_size
n_batches = math.ceil(n_batches)    # round up the number of batches to the nearest whole integer

# Create a callback that saves the model's weights every 5 epochs
cp_callback = tf.keras.callbacks.ModelCheckpoint(
    filepath=checkpoint_path,
    verbose=1,
    save_weights_only=True,
    save_freq=5*n_batches)

# Create a new model instance
model = create_model()

# Save the weights using the `checkpoint_path` format
model.save_weights(checkpoint_path.format(epoch=0))

# Train the model with the new callback
model.fit(train_images,
          train_labels,
          epochs=10,
          batch_size=batch_size,
          callbacks=[cp_callback],
          validation_data=(test_images, test_labels),
          verbose=0)

print(sorted(os.listdir(checkpoint_dir)))

latest = tf.train.latest_checkpoint(checkpoint_dir)
print(latest)

# Create a new model instance
model = create_model()

# Load the previously saved weights
model.load_weights(latest)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# Save the weights
model.save_weights('./checkpoints/my_checkpoint')

# Create a new model instance
model = create_model()

# Restore the weights
model.load_weights('./checkpoints/my_checkpoint')

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model as a `.keras` zip archive.
model.save('my_model.keras')

new_model = tf.keras.models.load_model('my_model.keras')

# Show the model architecture
new_model.summary()

# Evaluate the restored model
loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))

print(new_model.predict(test_images).shape)

# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model as a SavedModel.
os.makedirs('saved_model', exist_ok=True)
model.save('saved_model/my_model')

print(sorted(os.listdir('saved_model')))
print(sorted(os.listdir('saved_model/my_model')))

new_model = tf.keras.models.load_model('saved_model/my_model')

# Check its architecture
new_model.summary()

# Evaluate the restored model
loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))

print(new_model.predict(test_images).shape)

# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model to a HDF5 file.
# The '.h5' extension indicates that the model should be saved to HDF5.
model.save('my_model.h5')

# Recreate the exact same model, including its weights and the optimizer
new_model = tf.keras.models.load_model('my_model.h5')

# Show the model architecture
new_model.summary()

loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))


# --- Custom objects (the guide's get_config / from_config pattern) ---
@tf.keras.utils.register_keras_serializable(package="MyLayers")
class CustomDense(tf.keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                 initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


class CustomModel(tf.keras.Model):
    def __init__(self, hidden_units, **kwargs):
        super().__init__(**kwargs)
        self.hidden_units = hidden_units
        self.dense_layers = [tf.keras.layers.Dense(u) for u in hidden_units]

    def call(self, inputs):
        x = inputs
        for layer in self.dense_layers:
            x = layer(x)
        return x

    def get_config(self):
        return {"hidden_units": self.hidden_units}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


inputs = tf.keras.Input((784,))
outputs = tf.keras.layers.Dense(10)(CustomDense(64)(inputs))
custom_model = tf.keras.Model(inputs, outputs)
custom_model.compile(optimizer='adam',
                     loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
custom_model.fit(train_images, train_labels, epochs=1, verbose=0)
custom_model.save('custom_model.keras')
reloaded = tf.keras.models.load_model('custom_model.keras', custom_objects={"CustomDense": CustomDense})
np.testing.assert_allclose(reloaded.predict(test_images[:4]), custom_model.predict(test_images[:4]), rtol=1e-5, atol=1e-5)

sub_model = CustomModel([16, 16, 10])
sub_model(tf.ones((1, 784)))
sub_model.save('custom_sub.keras')
reloaded_sub = tf.keras.models.load_model('custom_sub.keras', custom_objects={"CustomModel": CustomModel})
print(type(reloaded_sub).__name__, reloaded_sub.get_config())
reloaded_sub(tf.ones((1, 784)))
np.testing.assert_allclose(reloaded_sub(tf.ones((1, 784))).numpy(), sub_model(tf.ones((1, 784))).numpy(), rtol=1e-5, atol=1e-5)
print("custom objects OK")

"""A multilayer perceptron on MNIST: 784 inputs, 512 hidden units, 10 classes, plain SGD.

The Keras MLP of TensorFlow's guides ("Training and evaluation with the built-in methods",
tensorflow/docs site/en/guide/keras/training_with_built_in_methods, and the Keras examples'
mnist_mlp): flatten the 28x28 digits to 784 values in [0, 1], one 512-unit ReLU layer, a
10-way softmax, `SGD` on sparse categorical cross-entropy, `fit` with a validation split,
`evaluate` and `predict`. It runs with `import torchestimator as tf` in place of
`import tensorflow as tf`. `tf.keras.datasets.mnist.load_data()` reads `mnist.npz` from
Keras's cache (`~/.keras/datasets`, or `$KERAS_HOME/datasets`) and downloads it once when
absent. `EXAMPLE_EPOCHS` sets the epochs (5 unless set).
"""

import os

import numpy as np

import torchestimator as tf

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()

# Preprocess the data (these are NumPy arrays)
x_train = x_train.reshape(-1, 784).astype("float32") / 255
x_test = x_test.reshape(-1, 784).astype("float32") / 255

y_train = y_train.astype("float32")
y_test = y_test.astype("float32")

model = tf.keras.Sequential([
    tf.keras.layers.Dense(512, activation="relu", input_shape=(784,)),
    tf.keras.layers.Dense(10, activation="softmax"),
])
model.summary()

model.compile(
    optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(),
    metrics=[tf.keras.metrics.SparseCategoricalAccuracy()],
)

print("Fit model on training data")
history = model.fit(
    x_train,
    y_train,
    batch_size=64,
    epochs=int(os.environ.get("EXAMPLE_EPOCHS", 5)),
    validation_split=0.1,
)
print("History keys:", sorted(history.history))

print("Evaluate on test data")
results = model.evaluate(x_test, y_test, batch_size=128)
print("test loss, test acc:", results)

print("Generate predictions for 3 samples")
predictions = model.predict(x_test[:3])
print("predictions shape:", predictions.shape)
print("Predicted digits:", np.argmax(predictions, axis=1), "true digits:", y_test[:3].astype(int))
print("Parameters:", model.count_params())

"""Handwritten digits with a small dense network.

Mirrors TensorFlow's "TensorFlow 2 quickstart for beginners"
(tensorflow/docs, site/en/tutorials/quickstart/beginner.ipynb, TF 2.15 era) and runs with
`import torchestimator as tf` in place of `import tensorflow as tf`: the same calls with the
same arguments in the same order. The notebook's bare expressions (whose value the notebook
displays) are printed. `tf.keras.datasets.mnist.load_data()` reads `mnist.npz` from Keras's
cache (`~/.keras/datasets`, or `$KERAS_HOME/datasets`) and downloads it once when absent.
The lines after "Beyond the tutorial" are the usual next steps of TF's guides (NumPy on
the results: `np.argmax(model.predict(x), axis=1)`, `np.min`/`np.max` of a tensor).
"""

import numpy as np

import torchestimator as tf

print("TensorFlow version:", tf.__version__)

# --- Load a dataset ---------------------------------------------------------------------
mnist = tf.keras.datasets.mnist

(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

# --- Build a machine learning model -----------------------------------------------------
model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.2),
  tf.keras.layers.Dense(10)
])

predictions = model(x_train[:1]).numpy()
print("Logits:", predictions)

print("Probabilities:", tf.nn.softmax(predictions).numpy())

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

print("Initial loss:", loss_fn(y_train[:1], predictions).numpy())

model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy'])

# --- Train and evaluate your model ------------------------------------------------------
model.fit(x_train, y_train, epochs=5)

loss, accuracy = model.evaluate(x_test,  y_test, verbose=2)
print("Test accuracy:", accuracy)

probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])

print("Probabilities of 5 test digits:", probability_model(x_test[:5]))

# --- Beyond the tutorial: NumPy on what the model returns -------------------------------
probabilities = probability_model(x_test[:5])
print("Probability range:", np.min(probabilities), np.max(probabilities))
print("Rows sum to:", np.round(np.sum(probabilities, axis=1), 2))
print("Predicted digits:", np.argmax(model.predict(x_test[:5]), axis=1))
print("Predicted digits (tensor):", np.argmax(probabilities, axis=1))
print("True digits:", y_test[:5])
print("Mean test pixel:", np.mean(tf.constant(x_test)))

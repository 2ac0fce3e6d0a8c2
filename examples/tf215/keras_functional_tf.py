"""A model with multiple inputs and outputs, built with the functional API.

Mirrors the "Models with multiple inputs and outputs" section of TensorFlow's guide
"The Functional API" (tensorflow/docs, site/en/guide/keras/functional.ipynb, TF 2.15 era): a
ticket-ranking model reading an issue's title, body and tags and predicting its priority and
the department that should handle it. It runs with `torchestimator` in place of `tensorflow`
on the import lines and nothing else changed; examples/tf215/keras_functional_tf.py is the
same program for TensorFlow 2.15 and tests/examples/test_tf_programs_diff.py diffs the two.
The guide's data is random ("dummy"), so is this one's. The lines after "Beyond the guide"
print what a reader checks (TensorFlow runs them too).
"""

# ruff: noqa: F401, I001  (the guide's code, kept as written)

import os

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

num_tags = 12  # Number of unique issue tags
num_words = 10000  # Size of vocabulary obtained when preprocessing text data
num_departments = 4  # Number of departments for predictions

title_input = keras.Input(
    shape=(None,), name="title"
)  # Variable-length sequence of ints
body_input = keras.Input(shape=(None,), name="body")  # Variable-length sequence of ints
tags_input = keras.Input(
    shape=(num_tags,), name="tags"
)  # Binary vectors of size `num_tags`


# Embed each word in the title into a 64-dimensional vector
title_features = layers.Embedding(num_words, 64)(title_input)
# Embed each word in the text into a 64-dimensional vector
body_features = layers.Embedding(num_words, 64)(body_input)

# Reduce sequence of embedded words in the title into a single 128-dimensional vector
title_features = layers.LSTM(128)(title_features)
# Reduce sequence of embedded words in the body into a single 32-dimensional vector
body_features = layers.LSTM(32)(body_features)

# Merge all available features into a single large vector via concatenation
x = layers.concatenate([title_features, body_features, tags_input])

# Stick a logistic regression for priority prediction on top of the features
priority_pred = layers.Dense(1, name="priority")(x)
# Stick a department classifier on top of the features
department_pred = layers.Dense(num_departments, name="department")(x)

# Instantiate an end-to-end model predicting both priority and department
model = keras.Model(
    inputs=[title_input, body_input, tags_input],
    outputs=[priority_pred, department_pred],
)

try:  # not in the guide: plot_model needs pydot and graphviz, which are optional
    keras.utils.plot_model(model, "multi_input_and_output_model.png", show_shapes=True)
except ImportError as error:
    print("plot_model skipped:", error)

model.compile(
    optimizer=keras.optimizers.RMSprop(1e-3),
    loss=[
        keras.losses.BinaryCrossentropy(from_logits=True),
        keras.losses.CategoricalCrossentropy(from_logits=True),
    ],
    loss_weights=[1.0, 0.2],
)

model.compile(
    optimizer=keras.optimizers.RMSprop(1e-3),
    loss={
        "priority": keras.losses.BinaryCrossentropy(from_logits=True),
        "department": keras.losses.CategoricalCrossentropy(from_logits=True),
    },
    loss_weights={"priority": 1.0, "department": 0.2},
)

# Dummy input data
title_data = np.random.randint(num_words, size=(1280, 10))
body_data = np.random.randint(num_words, size=(1280, 100))
tags_data = np.random.randint(2, size=(1280, num_tags)).astype("float32")

# Dummy target data
priority_targets = np.random.random(size=(1280, 1))
dept_targets = np.random.randint(2, size=(1280, num_departments))

if "EXAMPLE_STEPS" in os.environ:  # not in the guide: the tests' quick run, fewer batches
    rows = 32 * int(os.environ["EXAMPLE_STEPS"])
    title_data, body_data, tags_data = title_data[:rows], body_data[:rows], tags_data[:rows]
    priority_targets, dept_targets = priority_targets[:rows], dept_targets[:rows]

history = model.fit(
    {"title": title_data, "body": body_data, "tags": tags_data},
    {"priority": priority_targets, "department": dept_targets},
    epochs=2,
    batch_size=32,
)

# --- Beyond the guide: what the model returns -------------------------------------------
priority, department = model.predict(
    {"title": title_data[:5], "body": body_data[:5], "tags": tags_data[:5]})
print("Output names:", model.output_names)
print("Prediction shapes:", priority.shape, department.shape)
print("History keys:", sorted(history.history))
print("Loss per epoch:", np.round(history.history["loss"], 4))
print("Parameters:", model.count_params())

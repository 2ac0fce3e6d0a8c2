"""Sentiment of movie reviews from raw text files.

Mirrors TensorFlow's tutorial "Basic text classification"
(tensorflow/docs, site/en/tutorials/keras/text_classification.ipynb, TF 2.15 era) and runs
with `import torchestimator as tf` in place of `import tensorflow as tf`: the same calls with
the same arguments in the same order (`from tensorflow.keras import layers, losses` becomes
`from torchestimator.keras import layers, losses`). The IMDB archive is fetched with
`tf.keras.utils.get_file` into the working folder; when `aclImdb_v1.tar.gz` is already there,
nothing is downloaded.
"""

import os
import re
import shutil
import string

import torchestimator as tf
from torchestimator.keras import layers, losses

tf.keras.utils.set_random_seed(42)

# --- Fetch the reviews and lay them out as one folder per class ---------------------------
url = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"
dataset = tf.keras.utils.get_file("aclImdb_v1", url, untar=True, cache_dir=".", cache_subdir="")
dataset_dir = os.path.join(os.path.dirname(dataset), "aclImdb")
print("Archive folder holds:", sorted(os.listdir(dataset_dir)))
train_dir = os.path.join(dataset_dir, "train")
test_dir = os.path.join(dataset_dir, "test")

# The unlabelled reviews would look like a third class to text_dataset_from_directory.
unlabelled = os.path.join(train_dir, "unsup")
if os.path.isdir(unlabelled):
    shutil.rmtree(unlabelled)

batch_size = 32
seed = 42
raw_train_ds = tf.keras.utils.text_dataset_from_directory(
    train_dir, batch_size=batch_size, validation_split=0.2, subset="training", seed=seed)
raw_val_ds = tf.keras.utils.text_dataset_from_directory(
    train_dir, batch_size=batch_size, validation_split=0.2, subset="validation", seed=seed)
raw_test_ds = tf.keras.utils.text_dataset_from_directory(test_dir, batch_size=batch_size)

for text_batch, label_batch in raw_train_ds.take(1):
    for i in range(2):
        print("Review", text_batch.numpy()[i])
        print("Label", label_batch.numpy()[i])
print("Class 0 is", raw_train_ds.class_names[0], "and class 1 is", raw_train_ds.class_names[1])


# --- Turn text into integer token sequences ---------------------------------------------
def custom_standardization(input_data):
    """Lower-cases, replaces the HTML line breaks by spaces and removes punctuation."""
    lowered = tf.strings.lower(input_data)
    without_breaks = tf.strings.regex_replace(lowered, "<br />", " ")
    return tf.strings.regex_replace(without_breaks, f"[{re.escape(string.punctuation)}]", "")


max_features = 10000
sequence_length = 250
vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length)

train_text = raw_train_ds.map(lambda x, y: x)  # the texts alone, for adapt
vectorize_layer.adapt(train_text)


def vectorize_text(text, label):
    """Maps one (text, label) pair or batch to (token ids, label)."""
    text = tf.expand_dims(text, -1)
    return vectorize_layer(text), label


text_batch, label_batch = next(iter(raw_train_ds))
first_review, first_label = text_batch[0], label_batch[0]
print("Label:", raw_train_ds.class_names[first_label])
print("Token ids:", vectorize_text(first_review, first_label)[0][0, :12])
print("Vocabulary size:", len(vectorize_layer.get_vocabulary()))

train_ds = raw_train_ds.map(vectorize_text)
val_ds = raw_val_ds.map(vectorize_text)
test_ds = raw_test_ds.map(vectorize_text)

AUTOTUNE = tf.data.AUTOTUNE
train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)
test_ds = test_ds.cache().prefetch(buffer_size=AUTOTUNE)

# --- The model: averaged word embeddings and one logit ----------------------------------
embedding_dim = 16
model = tf.keras.Sequential([
    layers.Embedding(max_features, embedding_dim),
    layers.Dropout(0.2),
    layers.GlobalAveragePooling1D(),
    layers.Dropout(0.2),
    layers.Dense(1)])
model.summary()

model.compile(loss=losses.BinaryCrossentropy(from_logits=True),
              optimizer="adam",
              metrics=tf.metrics.BinaryAccuracy(threshold=0.0))

epochs = 10
history = model.fit(train_ds, validation_data=val_ds, epochs=epochs)
loss, accuracy = model.evaluate(test_ds)
print("Loss:", loss)
print("Accuracy:", accuracy)
print("History keys:", sorted(history.history.keys()))

# --- A model that takes raw strings: vectorizer, trained model, sigmoid -----------------
export_model = tf.keras.Sequential([
    vectorize_layer,
    model,
    layers.Activation("sigmoid")])
export_model.compile(loss=losses.BinaryCrossentropy(from_logits=False), optimizer="adam",
                     metrics=["accuracy"])
loss, accuracy = export_model.evaluate(raw_test_ds)
print("Export model accuracy on raw text:", accuracy)

examples = tf.constant([
    "The movie was great!",
    "The movie was okay.",
    "The movie was terrible...",
])
print("Predictions:", export_model.predict(examples).ravel().tolist())

"""Variable-length sequences: padding, masking, a `keras.utils.Sequence` and an LSTM.

Follows the sequence idioms of TensorFlow's guides, run with `import torchestimator as tf`
in place of `import tensorflow as tf` (and `from torchestimator.keras import layers` for
`from tensorflow.keras import layers`): the first part is the guide "Masking and padding with
Keras" (tensorflow/docs, site/en/guide/keras/understanding_masking_and_padding.ipynb, TF 2.15
era) verbatim, its bare expressions printed; the second trains an `Embedding(mask_zero=True)`
+ `LSTM` classifier fed by a `tf.keras.utils.Sequence` written as in that class's
documentation (`CIFAR10Sequence`), on synthetic sequences of token ids in which a sequence's
label is whether token 7 occurs in it.
"""

import math

import numpy as np

import torchestimator as tf
from torchestimator.keras import layers

tf.keras.utils.set_random_seed(0)

# --- Padding sequence data ----------------------------------------------------------------
raw_inputs = [
    [711, 632, 71],
    [73, 8, 3215, 55, 927],
    [83, 91, 1, 645, 1253, 927],
]

# By default, this will pad using 0s; it is configurable via the
# "value" parameter.
# Note that you could use "pre" padding (at the beginning) or
# "post" padding (at the end).
# We recommend using "post" padding when working with RNN layers
# (in order to be able to use the
# CuDNN implementation of the layers).
padded_inputs = tf.keras.utils.pad_sequences(raw_inputs, padding="post")
print(padded_inputs)

# --- Masking ------------------------------------------------------------------------------
embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
masked_output = embedding(padded_inputs)

print(masked_output._keras_mask)

masking_layer = layers.Masking()
# Simulate the embedding lookup by expanding the 2D input to 3D,
# with embedding dimension of 10.
unmasked_embedding = tf.cast(
    tf.tile(tf.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), tf.float32
)

masked_embedding = masking_layer(unmasked_embedding)
print(masked_embedding._keras_mask)

# --- Mask propagation in the Functional API and Sequential API ----------------------------
model = tf.keras.Sequential(
    [
        layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
        layers.LSTM(32),
    ]
)

inputs = tf.keras.Input(shape=(None,), dtype="int32")
x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
outputs = layers.LSTM(32)(x)

model = tf.keras.Model(inputs, outputs)

# --- A Sequence of padded batches and an LSTM classifier ----------------------------------
VOCAB = 50
rng = np.random.default_rng(0)
sequences = [list(rng.integers(1, VOCAB, size=rng.integers(3, 20))) for _ in range(800)]
for s in sequences[::2]:  # every other sequence holds token 7 somewhere
    s[rng.integers(len(s))] = 7
labels = np.array([int(7 in s) for s in sequences])


class PaddedSequence(tf.keras.utils.Sequence):
    # As the documentation's CIFAR10Sequence, padding each batch to its longest sequence.

    def __init__(self, x_set, y_set, batch_size):
        self.x, self.y = x_set, y_set
        self.batch_size = batch_size

    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)

    def __getitem__(self, idx):
        low = idx * self.batch_size
        # Cap upper bound at array length; the last batch may be smaller
        # if the total number of items is not a multiple of batch size.
        high = min(low + self.batch_size, len(self.x))
        batch_x = self.x[low:high]
        batch_y = self.y[low:high]

        return tf.keras.utils.pad_sequences(batch_x, padding="post"), np.array(batch_y)


train = PaddedSequence(sequences[:640], labels[:640], batch_size=32)
test = PaddedSequence(sequences[640:], labels[640:], batch_size=32)
print("Batches:", len(train), "first batch:", train[0][0].shape)

classifier = tf.keras.Sequential([
    layers.Embedding(input_dim=VOCAB, output_dim=16, mask_zero=True),
    layers.LSTM(32),
    layers.Dense(1, activation="sigmoid"),
])
classifier.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="binary_crossentropy",
                   metrics=["accuracy"])
history = classifier.fit(train, epochs=3, validation_data=test, verbose=2)

loss, accuracy = classifier.evaluate(test, verbose=0)
print("Test accuracy:", round(float(accuracy), 3))

# The padding does not change an answer: the same sequence, padded to 10 or to 40.
probe = [[3, 9, 7, 12]]
short = classifier.predict(tf.keras.utils.pad_sequences(probe, maxlen=10, padding="post"), verbose=0)
long = classifier.predict(tf.keras.utils.pad_sequences(probe, maxlen=40, padding="post"), verbose=0)
print("Padding-independent:", bool(np.allclose(short, long, atol=1e-5)), np.round(short[0, 0], 3))

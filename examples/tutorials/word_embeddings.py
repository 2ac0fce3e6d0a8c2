"""TensorFlow 2.15 tutorial "Word embeddings" (https://www.tensorflow.org/text/guide/word_embeddings),
run with `import torchestimator as tf`.

Changed from the tutorial: an aclImdb-shaped folder of .txt reviews (400 train, planted words) is generated instead of
downloading the IMDB archive; the TensorBoard logs go to ./logs; no Colab projector cells.
"""
# The tutorial's own code style, kept as written:
# ruff: noqa: UP020, UP031

import io
import os
import re
import shutil
import string

import numpy as np

import torchestimator as tf
from torchestimator.keras import Sequential
from torchestimator.keras.layers import Dense, Embedding, GlobalAveragePooling1D, TextVectorization

# --- a generated aclImdb-shaped folder instead of the download ---
rng = np.random.default_rng(0)
FILLER = ("the a film movie plot actor scene story camera music script ending cast "
          "director moment character dialogue screen night city house friend").split()
dataset_dir = 'aclImdb'
shutil.rmtree(dataset_dir, ignore_errors=True)
for split, n in (('train', 200), ('test', 50)):
    for label, word in (('pos', 'wonderful'), ('neg', 'awful')):
        os.makedirs(os.path.join(dataset_dir, split, label))
        for i in range(n):
            words = [word if rng.random() < 0.2 else FILLER[rng.integers(len(FILLER))] for _ in range(60)]
            words[10] += ",<br /><br />"
            with open(os.path.join(dataset_dir, split, label, f'{i}_{7 if label == "pos" else 3}.txt'), 'w') as f:
                f.write(' '.join(words).capitalize() + '!')
os.makedirs(os.path.join(dataset_dir, 'train', 'unsup'))
with open(os.path.join(dataset_dir, 'train', 'unsup', '0_0.txt'), 'w') as f:
    f.write('an unlabeled review')

print(os.listdir(dataset_dir))
train_dir = os.path.join(dataset_dir, 'train')
print(sorted(os.listdir(train_dir)))

remove_dir = os.path.join(train_dir, 'unsup')
shutil.rmtree(remove_dir)

batch_size = 1024
seed = 123
train_ds = tf.keras.utils.text_dataset_from_directory(
    'aclImdb/train', batch_size=batch_size, validation_split=0.2,
    subset='training', seed=seed)
val_ds = tf.keras.utils.text_dataset_from_directory(
    'aclImdb/train', batch_size=batch_size, validation_split=0.2,
    subset='validation', seed=seed)

for text_batch, label_batch in train_ds.take(1):
    for i in range(5):
        print(label_batch[i].numpy(), text_batch.numpy()[i])

AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)

# Embed a 1,000 word vocabulary into 5 dimensions.
embedding_layer = tf.keras.layers.Embedding(1000, 5)

result = embedding_layer(tf.constant([1, 2, 3]))
print(result.numpy())

result = embedding_layer(tf.constant([[0, 1, 2], [3, 4, 5]]))
print(result.shape)


# Create a custom standardization function to strip HTML break tags '<br />'.
def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, '<br />', ' ')
    return tf.strings.regex_replace(stripped_html,
                                    '[%s]' % re.escape(string.punctuation), '')


# Vocabulary size and number of words in a sequence.
vocab_size = 10000
sequence_length = 100

# Use the text vectorization layer to normalize, split, and map strings to
# integers. Note that the layer uses the custom standardization defined above.
# Set maximum_sequence length as all samples are not of the same length.
vectorize_layer = TextVectorization(
    standardize=custom_standardization,
    max_tokens=vocab_size,
    output_mode='int',
    output_sequence_length=sequence_length)

# Make a text-only dataset (no labels) and call adapt to build the vocabulary.
text_ds = train_ds.map(lambda x, y: x)
vectorize_layer.adapt(text_ds)

embedding_dim = 16

model = Sequential([
    vectorize_layer,
    Embedding(vocab_size, embedding_dim, name="embedding"),
    GlobalAveragePooling1D(),
    Dense(16, activation='relu'),
    Dense(1)
])

tensorboard_callback = tf.keras.callbacks.TensorBoard(log_dir="logs")

model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=['accuracy'])

model.fit(
    train_ds,
    validation_data=val_ds,
    epochs=15,
    callbacks=[tensorboard_callback])

model.summary()

weights = model.get_layer('embedding').get_weights()[0]
vocab = vectorize_layer.get_vocabulary()

out_v = io.open('vectors.tsv', 'w', encoding='utf-8')
out_m = io.open('metadata.tsv', 'w', encoding='utf-8')

for index, word in enumerate(vocab):
    if index == 0:
        continue  # skip 0, it's padding.
    vec = weights[index]
    out_v.write('\t'.join([str(x) for x in vec]) + "\n")
    out_m.write(word + "\n")
out_v.close()
out_m.close()

print(weights.shape, len(vocab), vocab[:5])
print(sum(1 for _ in open('vectors.tsv')), 'vectors written')
print(sorted(os.listdir('logs')))

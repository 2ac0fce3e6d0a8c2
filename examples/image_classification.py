"""Flower species from photos with a small convolutional network.

Mirrors TensorFlow's tutorial "Image classification"
(tensorflow/docs, site/en/tutorials/images/classification.ipynb, TF 2.15 era) and runs with
`import torchestimator as tf` in place of `import tensorflow as tf` (and
`from torchestimator.keras import layers` for `from tensorflow.keras import layers`): the
same calls with the same arguments in the same order. The photos come through
`tf.keras.utils.get_file(..., extract=True)` into Keras's cache (`~/.keras/datasets`, or
`$KERAS_HOME/datasets`); when the archive is already there, nothing is downloaded. The
tutorial's first model (without augmentation) is left out: this program trains the second.
"""

import pathlib

import numpy as np

import torchestimator as tf
from torchestimator.keras import layers
from torchestimator.keras.models import Sequential

tf.keras.utils.set_random_seed(123)

# --- Fetch the photos: one folder per class ---------------------------------------------
dataset_url = "https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz"
archive = tf.keras.utils.get_file("flower_photos.tar", origin=dataset_url, extract=True)
data_dir = pathlib.Path(archive).with_suffix("")
image_count = len(list(data_dir.glob("*/*.jpg")))
print("Photos:", image_count)

batch_size = 32
img_height = 180
img_width = 180

train_ds = tf.keras.utils.image_dataset_from_directory(
    data_dir,
    validation_split=0.2,
    subset="training",
    seed=123,
    image_size=(img_height, img_width),
    batch_size=batch_size)
val_ds = tf.keras.utils.image_dataset_from_directory(
    data_dir,
    validation_split=0.2,
    subset="validation",
    seed=123,
    image_size=(img_height, img_width),
    batch_size=batch_size)

class_names = train_ds.class_names
print("Classes:", class_names)

for image_batch, labels_batch in train_ds:
    print("Image batch:", tuple(image_batch.shape), "label batch:", tuple(labels_batch.shape))
    break

# --- Keep decoded images in memory and read ahead ---------------------------------------
AUTOTUNE = tf.data.AUTOTUNE
train_ds = train_ds.cache().shuffle(1000).prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)

normalization_layer = layers.Rescaling(1. / 255)
normalized_ds = train_ds.map(lambda x, y: (normalization_layer(x), y))
image_batch, labels_batch = next(iter(normalized_ds))
first_image = image_batch[0]
# Notice the pixel values are now in `[0,1]`.
print(np.min(first_image), np.max(first_image))

# --- Random flips, rotations and zooms, then the network --------------------------------
data_augmentation = tf.keras.Sequential([
    layers.RandomFlip("horizontal", input_shape=(img_height, img_width, 3)),
    layers.RandomRotation(0.1),
    layers.RandomZoom(0.1),
])

num_classes = len(class_names)
model = Sequential([
    data_augmentation,
    layers.Rescaling(1. / 255),
    layers.Conv2D(16, 3, padding="same", activation="relu"),
    layers.MaxPooling2D(),
    layers.Conv2D(32, 3, padding="same", activation="relu"),
    layers.MaxPooling2D(),
    layers.Conv2D(64, 3, padding="same", activation="relu"),
    layers.MaxPooling2D(),
    layers.Dropout(0.2),
    layers.Flatten(),
    layers.Dense(128, activation="relu"),
    layers.Dense(num_classes, name="outputs"),
])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
model.summary()

epochs = 15
history = model.fit(train_ds, validation_data=val_ds, epochs=epochs)
print("Final validation accuracy:", history.history["val_accuracy"][-1])

# --- Classify one new photo -------------------------------------------------------------
sunflower_url = "https://storage.googleapis.com/download.tensorflow.org/example_images/592px-Red_sunflower.jpg"
sunflower_path = tf.keras.utils.get_file("Red_sunflower", origin=sunflower_url)

img = tf.keras.utils.load_img(sunflower_path, target_size=(img_height, img_width))
img_array = tf.keras.utils.img_to_array(img)
img_array = tf.expand_dims(img_array, 0)  # a batch of one

predictions = model.predict(img_array)
score = tf.nn.softmax(predictions[0])
print(f"This image most likely belongs to {class_names[np.argmax(score)]} "
      f"with a {100 * np.max(score.numpy()):.2f} percent confidence.")

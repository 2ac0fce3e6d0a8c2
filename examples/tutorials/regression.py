"""TensorFlow 2.15 tutorial "Basic regression: Predict fuel efficiency" (https://www.tensorflow.org/tutorials/keras/regression),
run with `import torchestimator as tf`.

Changed from the tutorial: an Auto MPG-shaped DataFrame (same columns, three missing Horsepower values) is generated
instead of downloading auto-mpg.data; `pd.get_dummies(..., dtype=float)` (pandas >= 2 makes
bool columns, which TF 2.15 cannot convert either); 20 epochs instead of 100/1000
(`TUTORIAL_EPOCHS` sets them); the plots are left out; the last lines check what the
tutorial shows (the reloaded model's error equals the saved one's).
"""

import os

import numpy as np
import pandas as pd

import torchestimator as tf
from torchestimator import keras
from torchestimator.keras import layers

np.set_printoptions(precision=3, suppress=True)
print(tf.__version__)

# Generated instead of downloading auto-mpg.data
rng = np.random.default_rng(0)
n = 398
cyl = rng.choice([4, 6, 8], n)
disp = cyl * 40 + rng.normal(0, 20, n)
hp = disp * 0.5 + rng.normal(0, 10, n)
weight = disp * 10 + 1500 + rng.normal(0, 200, n)
accel = 20 - hp / 30 + rng.normal(0, 1, n)
year = rng.integers(70, 83, n)
origin = rng.choice([1, 2, 3], n)
mpg = 50 - weight / 150 + (year - 70) * 0.5 + rng.normal(0, 2, n)
raw_dataset = pd.DataFrame({
    'MPG': mpg, 'Cylinders': cyl, 'Displacement': disp, 'Horsepower': hp,
    'Weight': weight, 'Acceleration': accel, 'Model Year': year, 'Origin': origin})
raw_dataset.loc[[5, 50, 100], 'Horsepower'] = np.nan

dataset = raw_dataset.copy()
print(dataset.tail())
print(dataset.isna().sum())
dataset = dataset.dropna()
dataset['Origin'] = dataset['Origin'].map({1: 'USA', 2: 'Europe', 3: 'Japan'})
dataset = pd.get_dummies(dataset, columns=['Origin'], prefix='', prefix_sep='', dtype=float)  # pandas>=2 gives bool, which TF cannot convert either
print(dataset.tail())

train_dataset = dataset.sample(frac=0.8, random_state=0)
test_dataset = dataset.drop(train_dataset.index)
print(train_dataset.describe().transpose())

train_features = train_dataset.copy()
test_features = test_dataset.copy()
train_labels = train_features.pop('MPG')
test_labels = test_features.pop('MPG')

print(train_dataset.describe().transpose()[['mean', 'std']])

normalizer = tf.keras.layers.Normalization(axis=-1)
normalizer.adapt(np.array(train_features))
print(normalizer.mean.numpy())

first = np.array(train_features[:1])
with np.printoptions(precision=2, suppress=True):
    print('First example:', first)
    print()
    print('Normalized:', normalizer(first).numpy())

# Linear regression with one variable
horsepower = np.array(train_features['Horsepower'])
horsepower_normalizer = layers.Normalization(input_shape=[1,], axis=None)
horsepower_normalizer.adapt(horsepower)

horsepower_model = tf.keras.Sequential([
    horsepower_normalizer,
    layers.Dense(units=1)
])
horsepower_model.summary()
print(horsepower_model.predict(horsepower[:10]))

horsepower_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')

EPOCHS = int(os.environ.get("TUTORIAL_EPOCHS", "20"))
history = horsepower_model.fit(
    train_features['Horsepower'],
    train_labels,
    epochs=EPOCHS,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split=0.2)

hist = pd.DataFrame(history.history)
hist['epoch'] = history.epoch
print(hist.tail())
assert set(history.history) == {'loss', 'val_loss'}, history.history.keys()

test_results = {}
test_results['horsepower_model'] = horsepower_model.evaluate(
    test_features['Horsepower'],
    test_labels, verbose=0)

x = tf.linspace(0.0, 250, 251)
y = horsepower_model.predict(x)
print(y.shape)

# Linear regression with multiple inputs
linear_model = tf.keras.Sequential([
    normalizer,
    layers.Dense(units=1)
])
print(linear_model.predict(train_features[:10]))
print(linear_model.layers[1].kernel)
linear_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')
history = linear_model.fit(
    train_features,
    train_labels,
    epochs=EPOCHS,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split=0.2)
test_results['linear_model'] = linear_model.evaluate(
    test_features, test_labels, verbose=0)


def build_and_compile_model(norm):
    model = keras.Sequential([
        norm,
        layers.Dense(64, activation='relu'),
        layers.Dense(64, activation='relu'),
        layers.Dense(1)
    ])

    model.compile(loss='mean_absolute_error',
                  optimizer=tf.keras.optimizers.Adam(0.001))
    return model


dnn_horsepower_model = build_and_compile_model(horsepower_normalizer)
dnn_horsepower_model.summary()
history = dnn_horsepower_model.fit(
    train_features['Horsepower'],
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=EPOCHS)
x = tf.linspace(0.0, 250, 251)
y = dnn_horsepower_model.predict(x)
test_results['dnn_horsepower_model'] = dnn_horsepower_model.evaluate(
    test_features['Horsepower'], test_labels,
    verbose=0)

dnn_model = build_and_compile_model(normalizer)
dnn_model.summary()
history = dnn_model.fit(
    train_features,
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=EPOCHS)
test_results['dnn_model'] = dnn_model.evaluate(test_features, test_labels, verbose=0)

print(pd.DataFrame(test_results, index=['Mean absolute error [MPG]']).T)

test_predictions = dnn_model.predict(test_features).flatten()
error = test_predictions - test_labels
print(error.describe())

dnn_model.save('dnn_model.keras')
reloaded = tf.keras.models.load_model('dnn_model.keras')

test_results['reloaded'] = reloaded.evaluate(
    test_features, test_labels, verbose=0)
print(pd.DataFrame(test_results, index=['Mean absolute error [MPG]']).T)
assert abs(test_results['reloaded'] - test_results['dnn_model']) < 1e-4, test_results
for v in test_results.values():
    assert isinstance(v, float), (type(v), v)
print("OK")

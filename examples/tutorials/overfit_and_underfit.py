"""TensorFlow 2.15 tutorial "Overfit and underfit" (https://www.tensorflow.org/tutorials/keras/overfit_and_underfit),
run with `import torchestimator as tf`.

Changed from the tutorial: a HIGGS-shaped gzip CSV (label + 28 float features, 12,000 rows) is generated instead of
downloading HIGGS.csv.gz; 3 epochs instead of up to 10,000 (`TUTORIAL_EPOCHS`); the
`tensorflow_docs` helpers (EpochDots, HistoryPlotter) are left out; plots only when
matplotlib is installed.
"""
# ruff: noqa: UP018, UP031  (the tutorial's own code, kept as written)

import gzip
import os
import pathlib
import shutil
import tempfile

import numpy as np

import torchestimator as tf
from torchestimator.keras import layers, regularizers

try:
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
except ImportError:  # the plots are not part of what is checked
    plt = None

print(tf.__version__)

MAX_EPOCHS = int(os.environ.get("TUTORIAL_EPOCHS", "3"))

logdir = pathlib.Path(tempfile.mkdtemp())/"tensorboard_logs"
shutil.rmtree(logdir, ignore_errors=True)

# Generated instead of downloading HIGGS.csv.gz: label first, then 28 features.
FEATURES = 28
rng = np.random.default_rng(0)
n_rows = 12000
feats = rng.normal(size=(n_rows, FEATURES)).astype(np.float32)
labels = (feats[:, :3].sum(axis=1) + rng.normal(size=n_rows) > 0).astype(np.float32)
gz = os.path.join(tempfile.mkdtemp(), 'HIGGS.csv.gz')
with gzip.open(gz, 'wt') as f:
    for lab, row in zip(labels, feats):
        f.write('%.18e,' % lab + ','.join('%.18e' % v for v in row) + '\n')

ds = tf.data.experimental.CsvDataset(gz, [float(),]*(FEATURES+1), compression_type="GZIP")


def pack_row(*row):
    label = row[0]
    features = tf.stack(row[1:], 1)
    return features, label


packed_ds = ds.batch(10000).map(pack_row).unbatch()

for features, label in packed_ds.batch(1000).take(1):
    print(features[0])
    assert tuple(features.shape) == (1000, FEATURES), features.shape
    assert tuple(label.shape) == (1000,), label.shape
    if plt is not None:
        plt.hist(features.numpy().flatten(), bins=101)

N_VALIDATION = int(1e3)
N_TRAIN = int(1e4)
BUFFER_SIZE = int(1e4)
BATCH_SIZE = 500
STEPS_PER_EPOCH = N_TRAIN//BATCH_SIZE

validate_ds = packed_ds.take(N_VALIDATION).cache()
train_ds = packed_ds.skip(N_VALIDATION).take(N_TRAIN).cache()
print(train_ds)

validate_ds = validate_ds.batch(BATCH_SIZE)
train_ds = train_ds.shuffle(BUFFER_SIZE).repeat().batch(BATCH_SIZE)

lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(
    0.001,
    decay_steps=STEPS_PER_EPOCH*1000,
    decay_rate=1,
    staircase=False)


def get_optimizer():
    return tf.keras.optimizers.Adam(lr_schedule)


step = np.linspace(0, 100000)
lr = lr_schedule(step)
print(lr[:3], lr.shape)
if plt is not None:
    plt.figure(figsize=(8, 6))
    plt.plot(step/STEPS_PER_EPOCH, lr)
    plt.ylim([0, max(plt.ylim())])
    plt.xlabel('Epoch')
    _ = plt.ylabel('Learning Rate')


def get_callbacks(name):
    return [
        tf.keras.callbacks.EarlyStopping(monitor='val_binary_crossentropy', patience=200),
        tf.keras.callbacks.TensorBoard(logdir/name),
    ]


def compile_and_fit(model, name, optimizer=None, max_epochs=MAX_EPOCHS):
    if optimizer is None:
        optimizer = get_optimizer()
    model.compile(optimizer=optimizer,
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[
                      tf.keras.metrics.BinaryCrossentropy(
                          from_logits=True, name='binary_crossentropy'),
                      'accuracy'])

    model.summary()

    history = model.fit(
        train_ds,
        steps_per_epoch=STEPS_PER_EPOCH,
        epochs=max_epochs,
        validation_data=validate_ds,
        callbacks=get_callbacks(name),
        verbose=0)
    return history


tiny_model = tf.keras.Sequential([
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(1)
])

size_histories = {}
size_histories['Tiny'] = compile_and_fit(tiny_model, 'sizes/Tiny')
print(sorted(size_histories['Tiny'].history))
assert sorted(size_histories['Tiny'].history) == [
    'accuracy', 'binary_crossentropy', 'loss',
    'val_accuracy', 'val_binary_crossentropy', 'val_loss'], size_histories['Tiny'].history.keys()

small_model = tf.keras.Sequential([
    # `input_shape` is only required here so that `.summary` works.
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(16, activation='elu'),
    layers.Dense(1)
])
size_histories['Small'] = compile_and_fit(small_model, 'sizes/Small')

medium_model = tf.keras.Sequential([
    layers.Dense(64, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(64, activation='elu'),
    layers.Dense(64, activation='elu'),
    layers.Dense(1)
])
size_histories['Medium'] = compile_and_fit(medium_model, "sizes/Medium")

large_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(1)
])
size_histories['large'] = compile_and_fit(large_model, "sizes/large")

# TensorBoard wrote event files for each run
for name in ['Tiny', 'Small', 'Medium', 'large']:
    found = list((logdir/'sizes'/name).rglob('events.out.tfevents.*'))
    assert found, (name, list((logdir/'sizes').rglob('*')))

shutil.rmtree(logdir/'regularizers/Tiny', ignore_errors=True)
shutil.copytree(logdir/'sizes/Tiny', logdir/'regularizers/Tiny')

regularizer_histories = {}
regularizer_histories['Tiny'] = size_histories['Tiny']

l2_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001),
                 input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(1)
])

regularizer_histories['l2'] = compile_and_fit(l2_model, "regularizers/l2")

result = l2_model(features)
regularization_loss = tf.add_n(l2_model.losses)
print(result.shape, regularization_loss)
assert len(l2_model.losses) == 4, l2_model.losses

dropout_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(1)
])

regularizer_histories['dropout'] = compile_and_fit(dropout_model, "regularizers/dropout")

combined_model = tf.keras.Sequential([
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.5),
    layers.Dense(1)
])

regularizer_histories['combined'] = compile_and_fit(combined_model, "regularizers/combined")
for name, h in regularizer_histories.items():
    print(name, {k: round(v[-1], 4) for k, v in h.history.items()})
print("OK")

"""TensorFlow 2.15 tutorial "Load CSV data" (https://www.tensorflow.org/tutorials/load_data/csv),
run with `import torchestimator as tf`.

Changed from the tutorial: abalone, titanic, Metro traffic (gzip) and font CSVs of the same columns are generated
instead of downloaded (4 small font files); 2 epochs (`TUTORIAL_EPOCHS`); batch size 20
instead of 2048 in the performance section; pandas >= 3 reads text columns as `str`, so the
dtype test also accepts 'str'; `f.dtype.name` is printed as `f.dtype` (a torch dtype has
no `name`); `plot_model` reports its ImportError (pydot and graphviz's `dot` are needed, as
in TF).
"""
# ruff: noqa: UP018, B007, E721  (the tutorial's own code, kept as written)

import gzip
import itertools
import os
import pathlib
import re
import tempfile

import numpy as np
import pandas as pd

import torchestimator as tf
from torchestimator.keras import layers

np.set_printoptions(precision=3, suppress=True)

EPOCHS = int(os.environ.get("TUTORIAL_EPOCHS", "2"))
workdir = tempfile.mkdtemp()
os.chdir(workdir)

# ---- Generated data instead of downloads (same columns) ----
rng = np.random.default_rng(0)
abalone_csv = os.path.join(workdir, "abalone_train.csv")
n = 400
ab = rng.uniform(0.1, 0.8, size=(n, 7))
age = (ab[:, 0] * 20 + rng.normal(0, 1, n)).round()
pd.DataFrame(np.column_stack([ab, age])).to_csv(abalone_csv, header=False, index=False)

titanic_file_path = os.path.join(workdir, "train.csv")
m = 120
sex = rng.choice(['male', 'female'], m)
titanic_df = pd.DataFrame({
    'survived': ((sex == 'female') | (rng.random(m) < 0.2)).astype(int),
    'sex': sex,
    'age': rng.integers(1, 80, m).astype(float),
    'n_siblings_spouses': rng.integers(0, 4, m),
    'parch': rng.integers(0, 3, m),
    'fare': rng.uniform(5, 100, m).round(4),
    'class': rng.choice(['First', 'Second', 'Third'], m),
    'deck': rng.choice(['unknown', 'A', 'B', 'C'], m),
    'embark_town': rng.choice(['Southampton', 'Cherbourg', 'Queenstown'], m),
    'alone': rng.choice(['y', 'n'], m),
})
titanic_df.to_csv(titanic_file_path, index=False)

traffic_volume_csv_gz = os.path.join(workdir, 'Metro_Interstate_Traffic_Volume.csv.gz')
k = 600
traffic = pd.DataFrame({
    'holiday': ['None'] * k,
    'temp': rng.uniform(250, 300, k).round(2),
    'rain_1h': rng.uniform(0, 1, k).round(2),
    'snow_1h': np.zeros(k),
    'clouds_all': rng.integers(0, 100, k),
    'weather_main': rng.choice(['Clouds', 'Clear', 'Rain'], k),
    'weather_description': rng.choice(['broken clouds', 'sky is clear', 'light rain'], k),
    'date_time': pd.date_range('2012-10-02 09:00:00', periods=k, freq='h').strftime('%Y-%m-%d %H:%M:%S'),
    'traffic_volume': rng.integers(0, 7000, k),
})
with gzip.open(traffic_volume_csv_gz, 'wt') as f:
    traffic.to_csv(f, index=False)

os.makedirs('fonts', exist_ok=True)
pixel_cols = [f'r{i}c{j}' for i in range(20) for j in range(20)]
for font in ['AGENCY', 'ARIAL', 'BAITI', 'BELL']:
    r = 12
    fd = pd.DataFrame({
        'font': [font] * r,
        'fontVariant': [font] * r,
        'm_label': rng.integers(33, 127, r),
        'strength': [0.4] * r,
        'italic': rng.integers(0, 2, r),
        'orientation': [0.0] * r,
        'm_top': rng.integers(0, 60, r),
        'm_left': rng.integers(0, 60, r),
        'originalH': rng.integers(10, 80, r),
        'originalW': rng.integers(10, 80, r),
        'h': [20] * r,
        'w': [20] * r,
    })
    fd = pd.concat([fd, pd.DataFrame(rng.integers(1, 256, (r, 400)), columns=pixel_cols)], axis=1)
    fd.to_csv(f'fonts/{font}.csv', index=False)

# ---- In memory data ----
abalone_train = pd.read_csv(
    abalone_csv,
    names=["Length", "Diameter", "Height", "Whole weight", "Shucked weight",
           "Viscera weight", "Shell weight", "Age"])

print(abalone_train.head())

abalone_features = abalone_train.copy()
abalone_labels = abalone_features.pop('Age')

abalone_features = np.array(abalone_features)
print(abalone_features)

abalone_model = tf.keras.Sequential([
    layers.Dense(64, activation='relu'),
    layers.Dense(1)
])

abalone_model.compile(loss=tf.keras.losses.MeanSquaredError(),
                      optimizer=tf.keras.optimizers.Adam())

abalone_model.fit(abalone_features, abalone_labels, epochs=EPOCHS)

normalize = layers.Normalization()
normalize.adapt(abalone_features)

norm_abalone_model = tf.keras.Sequential([
    normalize,
    layers.Dense(64, activation='relu'),
    layers.Dense(1)
])

norm_abalone_model.compile(loss=tf.keras.losses.MeanSquaredError(),
                           optimizer=tf.keras.optimizers.Adam())

norm_abalone_model.fit(abalone_features, abalone_labels, epochs=EPOCHS)

# ---- Mixed data types ----
titanic = pd.read_csv(titanic_file_path)
print(titanic.head())

titanic_features = titanic.copy()
titanic_labels = titanic_features.pop('survived')

# Create a symbolic input
input = tf.keras.Input(shape=(), dtype=tf.float32)

# Perform a calculation using the input
result = 2*input + 1

# the result doesn't have a value
print(result)

calc = tf.keras.Model(inputs=input, outputs=result)
print(calc(1).numpy())
print(calc(2).numpy())
assert float(calc(2).numpy()) == 5.0

inputs = {}

for name, column in titanic_features.items():
    dtype = column.dtype
    if dtype == object or dtype == 'str':  # pandas >= 3 reads text columns as `str`
        dtype = tf.string
    else:
        dtype = tf.float32

    inputs[name] = tf.keras.Input(shape=(1,), name=name, dtype=dtype)

print(inputs)

numeric_inputs = {name: input for name, input in inputs.items()
                  if input.dtype == tf.float32}

x = layers.Concatenate()(list(numeric_inputs.values()))
norm = layers.Normalization()
norm.adapt(np.array(titanic[numeric_inputs.keys()]))
all_numeric_inputs = norm(x)

print(all_numeric_inputs)

preprocessed_inputs = [all_numeric_inputs]

for name, input in inputs.items():
    if input.dtype == tf.float32:
        continue

    lookup = layers.StringLookup(vocabulary=np.unique(titanic_features[name]))
    one_hot = layers.CategoryEncoding(num_tokens=lookup.vocabulary_size())

    x = lookup(input)
    x = one_hot(x)
    preprocessed_inputs.append(x)

preprocessed_inputs_cat = layers.Concatenate()(preprocessed_inputs)

titanic_preprocessing = tf.keras.Model(inputs, preprocessed_inputs_cat)

try:
    tf.keras.utils.plot_model(model=titanic_preprocessing, rankdir="LR", dpi=72, show_shapes=True)
except ImportError as e:  # as TF 2.15 outside IPython without pydot + graphviz
    print("plot_model:", e)

titanic_features_dict = {name: np.array(value)
                         for name, value in titanic_features.items()}

features_dict = {name: values[:1] for name, values in titanic_features_dict.items()}
out = titanic_preprocessing(features_dict)
print(out)
# 4 numeric + sex(2+1) + class(3+1) + deck(4+1) + embark_town(3+1) + alone(2+1)
assert tuple(out.shape) == (1, 4 + 3 + 4 + 5 + 4 + 3), out.shape


def titanic_model(preprocessing_head, inputs):
    body = tf.keras.Sequential([
        layers.Dense(64, activation='relu'),
        layers.Dense(1)
    ])

    preprocessed_inputs = preprocessing_head(inputs)
    result = body(preprocessed_inputs)
    model = tf.keras.Model(inputs, result)

    model.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  optimizer=tf.keras.optimizers.Adam())
    return model


titanic_model = titanic_model(titanic_preprocessing, inputs)

titanic_model.fit(x=titanic_features_dict, y=titanic_labels, epochs=EPOCHS)

titanic_model.save('test.keras')
reloaded = tf.keras.models.load_model('test.keras')

features_dict = {name: values[:1] for name, values in titanic_features_dict.items()}

before = titanic_model(features_dict)
after = reloaded(features_dict)
assert (before-after) < 1e-3
print(before)
print(after)


# ---- Using tf.data ----
def slices(features):
    for i in itertools.count():
        # For each feature take index `i`
        example = {name: values[i] for name, values in features.items()}
        yield example


for example in slices(titanic_features_dict):
    for name, value in example.items():
        print(f"{name:19s}: {value}")
    break

features_ds = tf.data.Dataset.from_tensor_slices(titanic_features_dict)

for example in features_ds:
    for name, value in example.items():
        print(f"{name:19s}: {value}")
    break

titanic_ds = tf.data.Dataset.from_tensor_slices((titanic_features_dict, titanic_labels))

titanic_batches = titanic_ds.shuffle(len(titanic_labels)).batch(32)

titanic_model.fit(titanic_batches, epochs=EPOCHS)

# ---- From a single file ----
titanic_csv_ds = tf.data.experimental.make_csv_dataset(
    titanic_file_path,
    batch_size=5,  # Artificially small to make examples easier to show.
    label_name='survived',
    num_epochs=1,
    ignore_errors=True,)

for batch, label in titanic_csv_ds.take(1):
    for key, value in batch.items():
        print(f"{key:20s}: {value}")
    print()
    print(f"{'label':20s}: {label}")
    assert sorted(batch) == sorted(titanic_features.columns), batch.keys()
    assert tuple(label.shape) == (5,), label.shape

traffic_volume_csv_gz_ds = tf.data.experimental.make_csv_dataset(
    traffic_volume_csv_gz,
    batch_size=256,
    label_name='traffic_volume',
    num_epochs=1,
    compression_type="GZIP")

for batch, label in traffic_volume_csv_gz_ds.take(1):
    for key, value in batch.items():
        print(f"{key:20s}: {value[:5]}")
    print()
    print(f"{'label':20s}: {label[:5]}")
    assert tuple(label.shape) == (256,), label.shape

for i, (batch, label) in enumerate(traffic_volume_csv_gz_ds.repeat(20)):
    if i % 40 == 0:
        print('.', end='')
print()

caching = traffic_volume_csv_gz_ds.cache().shuffle(1000)

for i, (batch, label) in enumerate(caching.shuffle(1000).repeat(20)):
    if i % 40 == 0:
        print('.', end='')
print()

snapshotting = traffic_volume_csv_gz_ds.snapshot('titanic.tfsnap').shuffle(1000)

for i, (batch, label) in enumerate(snapshotting.shuffle(1000).repeat(20)):
    if i % 40 == 0:
        print('.', end='')
print()

# ---- Multiple files ----
font_csvs = sorted(str(p) for p in pathlib.Path('fonts').glob("*.csv"))

print(font_csvs[:10])
print(len(font_csvs))

fonts_ds = tf.data.experimental.make_csv_dataset(
    file_pattern="fonts/*.csv",
    batch_size=10, num_epochs=1,
    num_parallel_reads=20,
    shuffle_buffer_size=10000)

for features in fonts_ds.take(1):
    for i, (name, value) in enumerate(features.items()):
        if i > 15:
            break
        print(f"{name:20s}: {value}")
print('...')
print(f"[total: {len(features)} features]")
assert len(features) == 412, len(features)


def make_images(features):
    image = [None]*400
    new_feats = {}

    for name, value in features.items():
        match = re.match(r'r(\d+)c(\d+)', name)
        if match:
            image[int(match.group(1))*20+int(match.group(2))] = value
        else:
            new_feats[name] = value

    image = tf.stack(image, axis=0)
    image = tf.reshape(image, [20, 20, -1])
    new_feats['image'] = image

    return new_feats


fonts_image_ds = fonts_ds.map(make_images)

for features in fonts_image_ds.take(1):
    break
print(features['image'].shape)
assert tuple(features['image'].shape) == (20, 20, 10), features['image'].shape

# ---- Lower level functions ----
text = pathlib.Path(titanic_file_path).read_text()
lines = text.split('\n')[1:-1]

all_strings = [str()]*10
print(all_strings)

features = tf.io.decode_csv(lines, record_defaults=all_strings)

for f in features:
    # TF prints f.dtype.name; a torch dtype has no `name` (torch.dtype is immutable)
    print(f"type: {f.dtype}, shape: {f.shape}")

print(lines[0])

titanic_types = [int(), str(), float(), int(), int(), float(), str(), str(), str(), str()]
print(titanic_types)

features = tf.io.decode_csv(lines, record_defaults=titanic_types)

for f in features:
    # TF prints f.dtype.name; a torch dtype has no `name` (torch.dtype is immutable)
    print(f"type: {f.dtype}, shape: {f.shape}")
assert [tf.as_dtype(f.dtype) for f in features] == [
    tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32,
    tf.string, tf.string, tf.string, tf.string], [f.dtype for f in features]

simple_titanic = tf.data.experimental.CsvDataset(titanic_file_path, record_defaults=titanic_types, header=True)

for example in simple_titanic.take(1):
    print([e.numpy() for e in example])


def decode_titanic_line(line):
    return tf.io.decode_csv(line, titanic_types)


manual_titanic = (
    # Load the lines of text
    tf.data.TextLineDataset(titanic_file_path)
    # Skip the header row.
    .skip(1)
    # Decode the line.
    .map(decode_titanic_line)
)

for example in manual_titanic.take(1):
    print([e.numpy() for e in example])

font_line = pathlib.Path(font_csvs[0]).read_text().splitlines()[1]
print(font_line)

num_font_features = font_line.count(',')+1
font_column_types = [str(), str()] + [float()]*(num_font_features-2)

print(font_csvs[0])

simple_font_ds = tf.data.experimental.CsvDataset(
    font_csvs,
    record_defaults=font_column_types,
    header=True)

for row in simple_font_ds.take(10):
    print(row[0].numpy())

font_files = tf.data.Dataset.list_files("fonts/*.csv")

print('Epoch 1:')
for f in list(font_files)[:5]:
    print("    ", f.numpy())
print('    ...')
print()

print('Epoch 2:')
for f in list(font_files)[:5]:
    print("    ", f.numpy())
print('    ...')


def make_font_csv_ds(path):
    return tf.data.experimental.CsvDataset(
        path,
        record_defaults=font_column_types,
        header=True)


font_rows = font_files.interleave(make_font_csv_ds,
                                  cycle_length=3)

fonts_dict = {'font_name': [], 'character': []}

for row in font_rows.take(10):
    fonts_dict['font_name'].append(row[0].numpy().decode())
    fonts_dict['character'].append(chr(int(row[2].numpy())))

print(pd.DataFrame(fonts_dict))
assert len(set(fonts_dict['font_name'][:3])) == 3, fonts_dict

BATCH_SIZE = 20

fonts_ds = tf.data.experimental.make_csv_dataset(
    file_pattern="fonts/*.csv",
    batch_size=BATCH_SIZE, num_epochs=1,
    num_parallel_reads=100)

for i, batch in enumerate(fonts_ds.take(20)):
    print('.', end='')

print()

fonts_files = tf.data.Dataset.list_files("fonts/*.csv")
fonts_lines = fonts_files.interleave(
    lambda fname: tf.data.TextLineDataset(fname).skip(1),
    cycle_length=100).batch(BATCH_SIZE)

fonts_fast = fonts_lines.map(lambda x: tf.io.decode_csv(x, record_defaults=font_column_types))

for i, batch in enumerate(fonts_fast.take(20)):
    print('.', end='')

print()
print("OK")

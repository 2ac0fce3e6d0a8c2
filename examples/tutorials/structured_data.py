"""TensorFlow 2.15 tutorial "Classify structured data using Keras preprocessing layers" (https://www.tensorflow.org/tutorials/structured_data/preprocessing_layers),
run with `import torchestimator as tf`.

Changed from the tutorial: a PetFinder-shaped DataFrame (same columns and kinds) is generated instead of downloading
petfinder-mini; the shuffled split uses `iloc` (NumPy >= 2's `np.split` of a DataFrame gives
arrays); 2 epochs instead of 10; `plot_model` is skipped when pydot is missing.
"""

import numpy as np
import pandas as pd

import torchestimator as tf
from torchestimator.keras import layers

# --- generated PetFinder-shaped data instead of the download ---
rng = np.random.default_rng(0)
n = 600
dataframe = pd.DataFrame({
    'Type': rng.choice(['Cat', 'Dog'], n),
    'Age': rng.integers(1, 120, n),
    'Breed1': rng.choice(['Tabby', 'Domestic Medium Hair', 'Mixed Breed', 'Siamese', 'Terrier'], n),
    'Gender': rng.choice(['Male', 'Female'], n),
    'Color1': rng.choice(['Black', 'Brown', 'White', 'Golden'], n),
    'Color2': rng.choice(['No Color', 'Brown', 'White', 'Cream'], n),
    'MaturitySize': rng.choice(['Small', 'Medium', 'Large'], n),
    'FurLength': rng.choice(['Short', 'Medium', 'Long'], n),
    'Vaccinated': rng.choice(['No', 'Yes', 'Not Sure'], n),
    'Sterilized': rng.choice(['No', 'Yes', 'Not Sure'], n),
    'Health': rng.choice(['Healthy', 'Minor Injury'], n),
    'Fee': rng.integers(0, 300, n),
    'Description': ['Nibble is a 3+ month old ball of cuteness.'] * n,
    'PhotoAmt': rng.integers(0, 10, n),
    'AdoptionSpeed': rng.integers(0, 5, n),
})

print(dataframe.head())

# In the original dataset, `'AdoptionSpeed'` of `4` indicates
# a pet was not adopted.
dataframe['target'] = np.where(dataframe['AdoptionSpeed'] == 4, 0, 1)

# Drop unused features.
dataframe = dataframe.drop(columns=['AdoptionSpeed', 'Description'])

# The tutorial's `np.split(dataframe.sample(frac=1), [...])` returns NumPy arrays under
# NumPy >= 2.x, so the same split is made with `iloc` here.
shuffled = dataframe.sample(frac=1)
train, val, test = (shuffled.iloc[:int(0.8 * len(dataframe))],
                    shuffled.iloc[int(0.8 * len(dataframe)):int(0.9 * len(dataframe))],
                    shuffled.iloc[int(0.9 * len(dataframe)):])
print(len(train), 'training examples')
print(len(val), 'validation examples')
print(len(test), 'test examples')


def df_to_dataset(dataframe, shuffle=True, batch_size=32):
    df = dataframe.copy()
    labels = df.pop('target')
    df = {key: value.to_numpy()[:, tf.newaxis] for key, value in dataframe.items()}
    ds = tf.data.Dataset.from_tensor_slices((dict(df), labels))
    if shuffle:
        ds = ds.shuffle(buffer_size=len(dataframe))
    ds = ds.batch(batch_size)
    ds = ds.prefetch(batch_size)
    return ds


batch_size = 5
train_ds = df_to_dataset(train, batch_size=batch_size)

[(train_features, label_batch)] = train_ds.take(1)
print('Every feature:', list(train_features.keys()))
print('A batch of ages:', train_features['Age'])
print('A batch of targets:', label_batch)


def get_normalization_layer(name, dataset):
    # Create a Normalization layer for the feature.
    normalizer = layers.Normalization(axis=None)

    # Prepare a Dataset that only yields the feature.
    feature_ds = dataset.map(lambda x, y: x[name])

    # Learn the statistics of the data.
    normalizer.adapt(feature_ds)

    return normalizer


photo_count_col = train_features['PhotoAmt']
layer = get_normalization_layer('PhotoAmt', train_ds)
print(layer(photo_count_col))


def get_category_encoding_layer(name, dataset, dtype, max_tokens=None):
    # Create a layer that turns strings into integer indices.
    if dtype == 'string':
        index = layers.StringLookup(max_tokens=max_tokens)
    # Otherwise, create a layer that turns integer values into integer indices.
    else:
        index = layers.IntegerLookup(max_tokens=max_tokens)

    # Prepare a `tf.data.Dataset` that only yields the feature.
    feature_ds = dataset.map(lambda x, y: x[name])

    # Learn the set of possible values and assign them a fixed integer index.
    index.adapt(feature_ds)

    # Encode the integer indices.
    encoder = layers.CategoryEncoding(num_tokens=index.vocabulary_size())

    # Apply multi-hot encoding to the indices. The lambda function captures the
    # layer, so you can use them, or include them in the Keras Functional model later.
    return lambda feature: encoder(index(feature))


test_type_col = train_features['Type']
test_type_layer = get_category_encoding_layer(name='Type',
                                              dataset=train_ds,
                                              dtype='string')
print(test_type_layer(test_type_col))

test_age_col = train_features['Age']
test_age_layer = get_category_encoding_layer(name='Age',
                                             dataset=train_ds,
                                             dtype='int64',
                                             max_tokens=5)
print(test_age_layer(test_age_col))

batch_size = 256
train_ds = df_to_dataset(train, batch_size=batch_size)
val_ds = df_to_dataset(val, shuffle=False, batch_size=batch_size)
test_ds = df_to_dataset(test, shuffle=False, batch_size=batch_size)

all_inputs = []
encoded_features = []

# Numerical features.
for header in ['PhotoAmt', 'Fee']:
    numeric_col = tf.keras.Input(shape=(1,), name=header)
    normalization_layer = get_normalization_layer(header, train_ds)
    encoded_numeric_col = normalization_layer(numeric_col)
    all_inputs.append(numeric_col)
    encoded_features.append(encoded_numeric_col)

age_col = tf.keras.Input(shape=(1,), name='Age', dtype='int64')

encoding_layer = get_category_encoding_layer(name='Age',
                                             dataset=train_ds,
                                             dtype='int64',
                                             max_tokens=5)
encoded_age_col = encoding_layer(age_col)
all_inputs.append(age_col)
encoded_features.append(encoded_age_col)

categorical_cols = ['Type', 'Color1', 'Color2', 'Gender', 'MaturitySize',
                    'FurLength', 'Vaccinated', 'Sterilized', 'Health', 'Breed1']

for header in categorical_cols:
    categorical_col = tf.keras.Input(shape=(1,), name=header, dtype='string')
    encoding_layer = get_category_encoding_layer(name=header,
                                                 dataset=train_ds,
                                                 dtype='string',
                                                 max_tokens=5)
    encoded_categorical_col = encoding_layer(categorical_col)
    all_inputs.append(categorical_col)
    encoded_features.append(encoded_categorical_col)

all_features = tf.keras.layers.concatenate(encoded_features)
x = tf.keras.layers.Dense(32, activation="relu")(all_features)
x = tf.keras.layers.Dropout(0.5)(x)
output = tf.keras.layers.Dense(1)(x)

model = tf.keras.Model(all_inputs, output)

model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=["accuracy"])

# Use `rankdir='LR'` to make the graph horizontal.
try:
    tf.keras.utils.plot_model(model, show_shapes=True, rankdir="LR")
except ImportError as e:
    print('plot_model skipped:', e)

model.fit(train_ds, epochs=2, validation_data=val_ds)

loss, accuracy = model.evaluate(test_ds)
print("Accuracy", accuracy)

model.save('my_pet_classifier.keras')
reloaded_model = tf.keras.models.load_model('my_pet_classifier.keras')

sample = {
    'Type': 'Cat',
    'Age': 3,
    'Breed1': 'Tabby',
    'Gender': 'Male',
    'Color1': 'Black',
    'Color2': 'White',
    'MaturitySize': 'Small',
    'FurLength': 'Short',
    'Vaccinated': 'No',
    'Sterilized': 'No',
    'Health': 'Healthy',
    'Fee': 100,
    'PhotoAmt': 2,
}

input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
predictions = reloaded_model.predict(input_dict)
prob = tf.nn.sigmoid(predictions[0])

print(
    "This particular pet had a %.1f percent probability "
    "of getting adopted." % (100 * prob)
)

"""Iris species with a premade Estimator, the data read by pandas.

Mirrors TensorFlow's tutorial "Premade Estimators"
(tensorflow/docs, site/en/tutorials/estimator/premade.ipynb) and runs with
`import torchestimator as tf` in place of `import tensorflow as tf`: the same calls with the
same arguments in the same order. The two CSV files come through `tf.keras.utils.get_file`
into Keras's cache (`~/.keras/datasets`, or `$KERAS_HOME/datasets`); when they are already
there, nothing is downloaded.
"""

import numpy as np
import pandas as pd

import torchestimator as tf

tf.keras.utils.set_random_seed(0)  # not in the tutorial: makes the run repeatable
CSV_COLUMN_NAMES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Species"]
SPECIES = ["Setosa", "Versicolor", "Virginica"]

train_path = tf.keras.utils.get_file(
    "iris_training.csv", "https://storage.googleapis.com/download.tensorflow.org/data/iris_training.csv")
test_path = tf.keras.utils.get_file(
    "iris_test.csv", "https://storage.googleapis.com/download.tensorflow.org/data/iris_test.csv")

# The files' first line holds counts and class names, not column names: replace it.
train = pd.read_csv(train_path, names=CSV_COLUMN_NAMES, header=0)
test = pd.read_csv(test_path, names=CSV_COLUMN_NAMES, header=0)
print(train.head())

train_y = train.pop("Species")
test_y = test.pop("Species")


def input_evaluation_set():
    """Two hand-written rows in the shape an input function returns: (features, labels)."""
    features = {"SepalLength": np.array([6.4, 5.0]),
                "SepalWidth": np.array([2.8, 2.3]),
                "PetalLength": np.array([5.6, 3.3]),
                "PetalWidth": np.array([2.2, 1.0])}
    labels = np.array([2, 1])
    return features, labels


def input_fn(features, labels, training=True, batch_size=256):
    """Batches (features, labels) from DataFrames; shuffled and repeated when training."""
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.shuffle(1000).repeat()
    return dataset.batch(batch_size)


# One numeric feature column per measurement.
my_feature_columns = []
for key in train.keys():
    my_feature_columns.append(tf.feature_column.numeric_column(key=key))

# Two hidden layers of 30 and 10 units; three classes.
classifier = tf.estimator.DNNClassifier(
    feature_columns=my_feature_columns,
    hidden_units=[30, 10],
    n_classes=3)

classifier.train(
    input_fn=lambda: input_fn(train, train_y, training=True),
    steps=5000)

eval_result = classifier.evaluate(
    input_fn=lambda: input_fn(test, test_y, training=False))
print("\nTest set accuracy: {accuracy:0.3f}\n".format(**eval_result))

# --- Predict three new flowers ----------------------------------------------------------
expected = ["Setosa", "Versicolor", "Virginica"]
predict_x = {
    "SepalLength": [5.1, 5.9, 6.9],
    "SepalWidth": [3.3, 3.0, 3.1],
    "PetalLength": [1.7, 4.2, 5.4],
    "PetalWidth": [0.5, 1.5, 2.1],
}


def input_fn(features, batch_size=256):  # noqa: F811 (the tutorial redefines it for predict)
    """Batches features without labels, for predict."""
    return tf.data.Dataset.from_tensor_slices(dict(features)).batch(batch_size)


predictions = classifier.predict(input_fn=lambda: input_fn(predict_x))
for pred_dict, expec in zip(predictions, expected):
    class_id = pred_dict["class_ids"][0]
    probability = pred_dict["probabilities"][class_id]
    print(f'Prediction is "{SPECIES[class_id]}" ({100 * probability:.1f}%), expected "{expec}"')

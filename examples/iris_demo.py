"""The Iris demo: TensorFlow's premade-estimator tutorial, unchanged but for the import.

Trains a DNNClassifier on the bundled Iris data (read with make_csv_dataset),
evaluates it, predicts the species of three flowers, exports the model for
serving and predicts the same flowers from the export; then does the same
with a Keras model (fit, evaluate, save, load, predict).
"""

import logging
import sys
import tempfile

import numpy as np

import torchestimator as tf

logging.basicConfig(level=logging.WARNING, format="%(message)s")
logging.getLogger("torchestimator").setLevel(logging.INFO)  # TF's progress lines: loss = ..., step = ...

SPECIES = tf.datasets.iris.SPECIES
data_dir = tempfile.mkdtemp(prefix="iris-")
train_path, test_path = tf.datasets.iris.write_train_test_csv(data_dir)
feature_names = tf.datasets.iris.FEATURE_NAMES


def input_fn(path, training=True, batch_size=32):
    """Reads the CSV into (features, labels) batches, as TF's tutorial does."""
    return tf.data.experimental.make_csv_dataset(
        path, batch_size=batch_size, label_name="Species", shuffle=training, shuffle_seed=0,
        num_epochs=None if training else 1,
    )


# --- The Estimator: train, evaluate, predict ----------------------------------------------
feature_columns = [tf.feature_column.numeric_column(key=name) for name in feature_names]
classifier = tf.estimator.DNNClassifier(
    feature_columns=feature_columns,
    hidden_units=[30, 10],
    n_classes=3,
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
    config=tf.estimator.RunConfig(tf_random_seed=0, log_step_count_steps=500),
)
classifier.train(input_fn=lambda: input_fn(train_path), steps=2000)
eval_result = classifier.evaluate(input_fn=lambda: input_fn(test_path, training=False))
print(f"\nEstimator test set accuracy: {eval_result['accuracy']:0.3f}")

expected = ["Setosa", "Versicolor", "Virginica"]
predict_x = {
    "SepalLength": [5.1, 5.9, 6.9],
    "SepalWidth": [3.3, 3.0, 3.1],
    "PetalLength": [1.7, 4.2, 5.4],
    "PetalWidth": [0.5, 1.5, 2.1],
}


def predict_input_fn(features, batch_size=256):
    return tf.data.Dataset.from_tensor_slices({k: np.asarray(v, "float32") for k, v in features.items()}
                                              ).batch(batch_size)


for pred, exp in zip(classifier.predict(input_fn=lambda: predict_input_fn(predict_x)), expected):
    class_id = int(pred["class_ids"][0])
    probability = pred["probabilities"][class_id]
    print(f'Prediction is "{SPECIES[class_id]}" ({100 * probability:.1f}%), expected "{exp}"')

# --- Export for serving, then predict from the export ---------------------------------------
# The export holds the parsing of tf.train.Examples and the model as data and a torch.export
# program: tf.saved_model.load opens it without this code (`torchestimator serve` serves it
# over TensorFlow Serving's REST API).
feature_spec = tf.feature_column.make_parse_example_spec(feature_columns)
serving_input_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec)
export_path = classifier.export_saved_model(f"{data_dir}/export", serving_input_fn)
print(f"\nExported to {export_path.decode()}")


def serialized_example(row):
    example = tf.train.Example()
    for name, value in row.items():
        example.features.feature[name].float_list.value.append(value)
    return example.SerializeToString()


examples = [serialized_example({k: v[i] for k, v in predict_x.items()}) for i in range(len(expected))]
served = tf.saved_model.load(export_path).signatures["serving_default"](inputs=examples)
exported_ok = True
for scores, exp in zip(served["scores"].numpy(), expected):
    class_id = int(scores.argmax())
    exported_ok &= SPECIES[class_id] == exp
    print(f'The export predicts "{SPECIES[class_id]}" ({100 * scores[class_id]:.1f}%), expected "{exp}"')

# --- The same with Keras: fit, evaluate, save, load, predict -----------------------------
(x_train, y_train), (x_test, y_test) = tf.datasets.iris.load_data()
tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([
    tf.keras.layers.Normalization(input_shape=(4,)),
    tf.keras.layers.Dense(16, activation="relu"),
    tf.keras.layers.Dense(3, activation="softmax"),
])
model.layers[0].adapt(x_train)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=100, batch_size=16, verbose=0)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"\nKeras test set accuracy: {accuracy:0.3f}")
path = f"{data_dir}/iris.keras"
model.save(path)
restored = tf.keras.models.load_model(path)
probabilities = restored.predict(np.array([[5.1, 3.3, 1.7, 0.5]], "float32"), verbose=0)
print(f"Restored Keras model predicts {SPECIES[int(probabilities.argmax())]} for the first flower")
sys.exit(0 if eval_result["accuracy"] >= 0.9 and accuracy >= 0.9 and exported_ok else 1)

"""The Iris demo: TensorFlow's premade-estimator tutorial, then the same with Keras.

Run by `torchestimator demo` (`python -m torchestimator demo`) and by the repository's
`examples/iris_demo.py`. Trains a DNNClassifier on the bundled Iris data (read with
make_csv_dataset), evaluates it, predicts the species of three flowers, exports the model
for serving and predicts the same flowers from the export; then fits, evaluates, saves,
loads and predicts with a Keras model.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import torchestimator as tf

#: The three flowers the tutorial predicts, and their species.
PREDICT_X = {
    "SepalLength": [5.1, 5.9, 6.9],
    "SepalWidth": [3.3, 3.0, 3.1],
    "PetalLength": [1.7, 4.2, 5.4],
    "PetalWidth": [0.5, 1.5, 2.1],
}
EXPECTED = ["Setosa", "Versicolor", "Virginica"]


@dataclass
class DemoResult:
    """What the demo measured: the test accuracies, where it wrote, and whether the export
    predicts what the Estimator predicted in the process that trained it."""

    estimator_accuracy: float
    keras_accuracy: float
    export_path: str
    model_dir: str
    export_matches_estimator: bool
    predictions_as_expected: bool


def run(model_dir: str | None = None, steps: int = 2000,
        echo: Callable[[str], None] = print) -> DemoResult:
    """Runs the Iris demo and returns a `DemoResult`.

    Args:
      model_dir: the folder the demo writes into: the Iris CSV files (`data/`), the
        Estimator's checkpoints and summaries (`estimator/`, which TensorBoard reads), its
        export (`export/`) and the Keras model (`iris.keras`). None: a new temporary folder,
        left in place so that its files can be looked at.
      steps: the Estimator's training steps (TF's tutorial: 2000); the Keras model trains
        for `max(1, steps // 20)` epochs (100 for the default).
      echo: called with each line the demo prints.

    Returns:
      A `DemoResult`. A model trained for a few steps predicts poorly; the export must
      predict what the Estimator predicts whatever the steps.
    """

    if steps < 1:
        raise ValueError(f"demo: steps must be a positive number of training steps, got {steps}")
    model_dir = model_dir or tempfile.mkdtemp(prefix="torchestimator-demo-")
    os.makedirs(model_dir, exist_ok=True)
    species = tf.datasets.iris.SPECIES
    train_path, test_path = tf.datasets.iris.write_train_test_csv(os.path.join(model_dir, "data"))

    def input_fn(path, training=True, batch_size=32):
        """Reads the CSV into (features, labels) batches, as TF's tutorial does."""
        return tf.data.experimental.make_csv_dataset(
            path, batch_size=batch_size, label_name="Species", shuffle=training,
            shuffle_seed=0, num_epochs=None if training else 1)

    # --- The Estimator: train, evaluate, predict ------------------------------------------
    feature_columns = [tf.feature_column.numeric_column(key=name)
                       for name in tf.datasets.iris.FEATURE_NAMES]
    classifier = tf.estimator.DNNClassifier(
        feature_columns=feature_columns,
        hidden_units=[30, 10],
        n_classes=3,
        optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
        config=tf.estimator.RunConfig(model_dir=os.path.join(model_dir, "estimator"),
                                      tf_random_seed=0, log_step_count_steps=500),
    )
    classifier.train(input_fn=lambda: input_fn(train_path), steps=steps)
    eval_result = classifier.evaluate(input_fn=lambda: input_fn(test_path, training=False))
    echo(f"\nEstimator test set accuracy: {eval_result['accuracy']:0.3f}")

    def predict_input_fn(features, batch_size=256):
        return tf.data.Dataset.from_tensor_slices(
            {k: np.asarray(v, "float32") for k, v in features.items()}).batch(batch_size)

    in_process = []
    for pred, expected in zip(classifier.predict(input_fn=lambda: predict_input_fn(PREDICT_X)),
                              EXPECTED):
        class_id = int(pred["class_ids"][0])
        in_process.append(class_id)
        probability = pred["probabilities"][class_id]
        echo(f'Prediction is "{species[class_id]}" ({100 * probability:.1f}%), '
             f'expected "{expected}"')

    # --- Export for serving, then predict from the export ---------------------------------
    # The export holds the parsing of tf.train.Examples and the model as data and a
    # torch.export program: tf.saved_model.load opens it without this code
    # (`torchestimator serve` serves it over TensorFlow Serving's REST API).
    feature_spec = tf.feature_column.make_parse_example_spec(feature_columns)
    serving_input_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec)
    export_path = classifier.export_saved_model(os.path.join(model_dir, "export"),
                                                serving_input_fn).decode()
    echo(f"\nExported to {export_path}")

    def serialized_example(row):
        example = tf.train.Example()
        for name, value in row.items():
            example.features.feature[name].float_list.value.append(value)
        return example.SerializeToString()

    examples = [serialized_example({k: v[i] for k, v in PREDICT_X.items()})
                for i in range(len(EXPECTED))]
    served = tf.saved_model.load(export_path).signatures["serving_default"](inputs=examples)
    from_export = []
    for scores, expected in zip(served["scores"].numpy(), EXPECTED):
        class_id = int(scores.argmax())
        from_export.append(class_id)
        echo(f'The export predicts "{species[class_id]}" ({100 * scores[class_id]:.1f}%), '
             f'expected "{expected}"')

    # --- The same with Keras: fit, evaluate, save, load, predict ---------------------------
    (x_train, y_train), (x_test, y_test) = tf.datasets.iris.load_data()
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Normalization(input_shape=(4,)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(3, activation="softmax"),
    ])
    model.layers[0].adapt(x_train)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x_train, y_train, epochs=max(1, steps // 20), batch_size=16, verbose=0)
    _, keras_accuracy = model.evaluate(x_test, y_test, verbose=0)
    echo(f"\nKeras test set accuracy: {keras_accuracy:0.3f}")
    path = os.path.join(model_dir, "iris.keras")
    model.save(path)
    restored = tf.keras.models.load_model(path)
    probabilities = restored.predict(np.array([[5.1, 3.3, 1.7, 0.5]], "float32"), verbose=0)
    echo(f"Restored Keras model predicts {species[int(probabilities.argmax())]} "
         "for the first flower")
    echo(f"\nThe demo's files are in {model_dir}")
    return DemoResult(
        estimator_accuracy=float(eval_result["accuracy"]),
        keras_accuracy=float(keras_accuracy),
        export_path=export_path,
        model_dir=model_dir,
        export_matches_estimator=from_export == in_process,
        predictions_as_expected=[species[c] for c in from_export] == EXPECTED,
    )

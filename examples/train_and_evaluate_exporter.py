"""`tf.estimator.train_and_evaluate` with a `LatestExporter` and a `BestExporter`.

Follows TensorFlow's API documentation of `tf.estimator.train_and_evaluate`, `TrainSpec`,
`EvalSpec`, `LatestExporter` and `BestExporter` (TF 2.15): a DNNClassifier on the bundled
Iris data trains to `max_steps`, is evaluated after each checkpoint (`throttle_secs=0`), and
each evaluation exports a SavedModel with a parsing serving receiver: the latest exporter
keeps the newest `exports_to_keep`, the best exporter only exports when the loss improves.
It runs with `import torchestimator as tf` in place of `import tensorflow as tf`.
`EXAMPLE_STEPS` sets `max_steps` (300 unless set); the model directory is the first argument,
or a temporary one.
"""

import os
import sys
import tempfile

import torchestimator as tf

tf.keras.utils.set_random_seed(0)
model_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
max_steps = int(os.environ.get("EXAMPLE_STEPS", 300))

(x_train, y_train), (x_test, y_test) = tf.datasets.iris.load_data()
names = tf.datasets.iris.FEATURE_NAMES
feature_columns = [tf.feature_column.numeric_column(name) for name in names]


def train_input_fn():
    features = {name: x_train[:, i] for i, name in enumerate(names)}
    dataset = tf.data.Dataset.from_tensor_slices((features, y_train))
    return dataset.shuffle(150).repeat().batch(32)


def eval_input_fn():
    features = {name: x_test[:, i] for i, name in enumerate(names)}
    return tf.data.Dataset.from_tensor_slices((features, y_test)).batch(32)


classifier = tf.estimator.DNNClassifier(
    feature_columns=feature_columns,
    hidden_units=[10, 10],
    n_classes=3,
    optimizer=tf.keras.optimizers.legacy.Adam(learning_rate=0.03),
    config=tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=max_steps // 3),
)

feature_spec = tf.feature_column.make_parse_example_spec(feature_columns)
serving_input_receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(
    feature_spec)

latest_exporter = tf.estimator.LatestExporter(
    name="latest", serving_input_receiver_fn=serving_input_receiver_fn, exports_to_keep=2)
best_exporter = tf.estimator.BestExporter(
    name="best", serving_input_receiver_fn=serving_input_receiver_fn, exports_to_keep=1)

train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=max_steps)
eval_spec = tf.estimator.EvalSpec(
    input_fn=eval_input_fn,
    steps=None,
    exporters=[latest_exporter, best_exporter],
    start_delay_secs=0,
    throttle_secs=0,
)

metrics, export_results = tf.estimator.train_and_evaluate(classifier, train_spec, eval_spec)
print("Final accuracy: {accuracy:0.3f} at step {global_step}".format(**metrics))

for name in ("latest", "best"):
    export_dir = os.path.join(model_dir, "export", name)
    versions = sorted(os.listdir(export_dir))
    print(f"export/{name}: {versions}")
    newest = os.path.join(export_dir, versions[-1])
    print(f"export/{name} newest is a SavedModel:",
          tf.saved_model.contains_saved_model(newest))

latest_dir = os.path.join(model_dir, "export", "latest")
loaded = tf.saved_model.load(os.path.join(latest_dir, sorted(os.listdir(latest_dir))[-1]))
print("Signatures:", sorted(loaded.signatures.keys()))

"""TensorFlow programs as TensorFlow's guides write them, with only the import changed:
`import torchestimator as tf`. Each is a whole program (data, model, training, reading values
back with `.numpy()`), using tf ops, not torch ops."""

from __future__ import annotations

import numpy as np
import pandas as pd

import torchestimator as tf
from _harness.guide_models import GuideLinear
from torchestimator.datasets import iris

RNG = np.random.default_rng(7)


# ---------------------------------------------------------------- custom estimator, TF2 style
def _iris_input(features, labels, training: bool, batch_size: int = 32):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.shuffle(1000).repeat()
    return dataset.batch(batch_size)


def my_model_fn(features, labels, mode, params):
    """The custom-estimator guide's model_fn, written with Keras layers and tf ops (TF2 style)."""
    net = tf.keras.layers.DenseFeatures(params["feature_columns"])(features)
    for units in params["hidden_units"]:
        net = tf.keras.layers.Dense(units, activation=tf.nn.relu)(net)
    logits = tf.keras.layers.Dense(params["n_classes"], activation=None)(net)
    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "class_ids": predicted_classes[:, tf.newaxis],
            "probabilities": tf.nn.softmax(logits),
            "logits": logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.reduce_mean(
        tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True))
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted_classes,
                                             name="acc_op")
    metrics = {"accuracy": accuracy}
    tf.compat.v1.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_custom_estimator_with_keras_layers_and_tf_ops(tmp_path):
    tf.random.set_seed(1)
    (x_train, train_y), (x_test, test_y) = iris.load_data()
    train_x = pd.DataFrame(x_train, columns=iris.FEATURE_NAMES)  # the guide reads CSVs with pandas
    test_x = pd.DataFrame(x_test, columns=iris.FEATURE_NAMES)
    columns = [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]
    classifier = tf.estimator.Estimator(
        model_fn=my_model_fn, model_dir=str(tmp_path),
        params={"feature_columns": columns, "hidden_units": [10, 10], "n_classes": 3})
    classifier.train(input_fn=lambda: _iris_input(train_x, train_y, training=True), steps=400)
    result = classifier.evaluate(input_fn=lambda: _iris_input(test_x, test_y, training=False))
    assert result["accuracy"] > 0.85 and result["global_step"] == 400
    predictions = list(classifier.predict(
        input_fn=lambda: tf.data.Dataset.from_tensor_slices(dict(test_x)).batch(8)))
    assert len(predictions) == len(test_y)
    probabilities = np.stack([p["probabilities"] for p in predictions])
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
    class_ids = np.array([int(p["class_ids"][0]) for p in predictions])
    assert abs((class_ids == np.asarray(test_y)).mean() - result["accuracy"]) < 1e-6


# ---------------------------------------------------------------- image preprocessing in tf.data
def preprocess(image, label):
    image = tf.cast(image, tf.float32) / 255.0
    image = tf.image.resize(image, (16, 16))
    return image, label


def test_image_preprocessing_function_in_an_input_pipeline():
    images = RNG.integers(0, 256, size=(20, 28, 28, 3), dtype=np.uint8)
    labels = RNG.integers(0, 2, size=(20,))
    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(preprocess).batch(8)
    batches = list(dataset)
    assert [tuple(x.shape) for x, _ in batches] == [(8, 16, 16, 3), (8, 16, 16, 3), (4, 16, 16, 3)]
    first = batches[0][0].numpy()
    assert first.dtype == np.float32 and 0.0 <= first.min() and first.max() <= 1.0
    expected = tf.image.resize(tf.cast(images[:1], tf.float32) / 255.0, (16, 16)).numpy()
    np.testing.assert_allclose(first[:1], expected, rtol=1e-6)
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(16, 16, 3)),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(2),
    ])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(dataset, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


# ---------------------------------------------------------------- layers written with tf ops
class Linear(tf.keras.layers.Layer):
    """The "making new layers" guide's layer: tf.Variables in __init__, tf.matmul in call."""

    def __init__(self, units=32, input_dim=32):
        super().__init__()
        w_init = tf.random_normal_initializer()
        self.w = tf.Variable(initial_value=w_init(shape=(input_dim, units), dtype="float32"),
                             trainable=True)
        b_init = tf.zeros_initializer()
        self.b = tf.Variable(initial_value=b_init(shape=(units,), dtype="float32"), trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class ReluDense(tf.keras.layers.Layer):
    """A layer with add_weight in build and tf.nn.relu(tf.matmul(...)) in call."""

    def __init__(self, units):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal",
                                 trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.nn.relu(tf.matmul(inputs, self.w) + self.b)


def test_layers_written_with_tf_ops_train_with_fit():
    x = tf.ones((2, 2))
    linear_layer = Linear(4, 2)
    y = linear_layer(x)
    assert y.shape == (2, 4)
    assert len(linear_layer.weights) == 2
    # numpy in at the top level, outside a tape: no autograd graph, so .numpy() works as in TF
    assert linear_layer(np.ones((2, 2), "float32")).numpy().shape == (2, 4)
    assert linear_layer.trainable_weights == [linear_layer.w, linear_layer.b]

    data_x = RNG.normal(size=(256, 4)).astype("float32")
    data_y = (data_x @ np.array([[1.0], [-2.0], [0.5], [0.0]], "float32") > 0).astype("float32")
    inputs = tf.keras.Input(shape=(4,))
    hidden = ReluDense(16)(inputs)
    outputs = Linear(1, 16)(hidden)
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(data_x, data_y, epochs=20, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] > 0.9
    assert len(model.trainable_weights) == 4


# ---------------------------------------------------------------- a tf.function train step
def test_tf_function_train_step_with_gradient_tape_and_variables():
    tf.random.set_seed(3)
    true_w, true_b = 3.0, 2.0
    x = tf.random.normal(shape=[200])
    noise = tf.random.normal(shape=[200])
    y = x * true_w + true_b + noise * 0.1

    model = GuideLinear()  # the guide's `MyModel`: y = w * x + b, w from 5, b from 0

    def loss(target_y, predicted_y):
        return tf.reduce_mean(tf.square(target_y - predicted_y))

    @tf.function
    def train(model, x, y, learning_rate):
        with tf.GradientTape() as t:
            current_loss = loss(y, model(x))
        dw, db = t.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(learning_rate * dw)
        model.b.assign_sub(learning_rate * db)
        return current_loss

    losses = [float(train(model, x, y, learning_rate=0.1)) for _ in range(60)]
    assert losses[-1] < 0.05 < losses[0]
    assert abs(model.w.numpy() - true_w) < 0.1 and abs(model.b.numpy() - true_b) < 0.1
    assert set(v.name for v in model.trainable_variables) >= {model.w.name, model.b.name}


def test_custom_training_loop_with_a_keras_model_and_metrics():
    x = RNG.normal(size=(128, 8)).astype("float32")
    y = (x[:, 0] + x[:, 1] > 0).astype("int64")
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                                 tf.keras.layers.Dense(2)])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = tf.keras.metrics.SparseCategoricalAccuracy()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(128, seed=1).batch(16)

    @tf.function
    def train_step(x_batch, y_batch):
        with tf.GradientTape() as tape:
            logits = model(x_batch, training=True)
            loss_value = loss_fn(y_batch, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y_batch, logits)
        return loss_value

    for _ in range(15):
        for x_batch, y_batch in dataset:
            loss_value = train_step(x_batch, y_batch)
        accuracy = float(train_acc_metric.result())
        train_acc_metric.reset_state()
    assert accuracy > 0.9 and np.isfinite(loss_value.numpy())

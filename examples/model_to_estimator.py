"""An Estimator from a compiled Keras model with `tf.keras.estimator.model_to_estimator`.

Mirrors the "Create an Estimator from a Keras model" section of TensorFlow's guide
"Estimators" (tensorflow/docs, site/en/guide/estimator.ipynb, TF 2.15 era) and runs with
`import torchestimator as tf` in place of `import tensorflow as tf`: the same calls with the
same arguments in the same order. The guide reads Iris through `tensorflow_datasets`
(`tfds.load('iris', split='train', as_supervised=True)`); here the same 150 rows come from
the bundled copy, `tf.datasets.iris`. After the guide: the Estimator is exported with a
parsing serving receiver keyed by the model's input name, and the export is loaded back.
`EXAMPLE_STEPS` sets the training steps (500, as the guide, unless set).
"""

# ruff: noqa: UP032  (the guide's code, kept as written)

import os
import tempfile

import numpy as np

import torchestimator as tf

model = tf.keras.models.Sequential([
    tf.keras.layers.Dense(16, activation='relu', input_shape=(4,)),
    tf.keras.layers.Dropout(0.2),
    tf.keras.layers.Dense(3)
])

model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              optimizer='adam')
model.summary()


# The model's input is named 'dense_input' (its first layer's name + '_input'), the key the
# guide's input_fn uses.
input_name = 'dense_input'
assert model.input_names == [input_name]


def input_fn():
    # The guide: dataset = tfds.load('iris', split=tfds.Split.TRAIN, as_supervised=True)
    (x, y), _ = tf.datasets.iris.load_data()
    dataset = tf.data.Dataset.from_tensor_slices((x.astype('float32'), y))
    dataset = dataset.map(lambda features, labels: ({input_name: features}, labels))
    dataset = dataset.batch(32).repeat()
    return dataset


for features_batch, labels_batch in input_fn().take(1):
    print(features_batch)
    print(labels_batch)

model_dir = tempfile.mkdtemp()
keras_estimator = tf.keras.estimator.model_to_estimator(
    keras_model=model, model_dir=model_dir)

keras_estimator.train(input_fn=input_fn, steps=int(os.environ.get("EXAMPLE_STEPS", 500)))
eval_result = keras_estimator.evaluate(input_fn=input_fn, steps=10)
print('Eval result: {}'.format(eval_result))

# --- Beyond the guide: export, load, predict --------------------------------------------
feature_spec = {input_name: tf.io.FixedLenFeature([4], tf.float32)}
serving_input_receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(
    feature_spec)
export_path = keras_estimator.export_saved_model(
    os.path.join(model_dir, 'export'), serving_input_receiver_fn).decode()  # TF returns bytes
print('Exported to:', os.path.relpath(export_path, model_dir))

(x, y), _ = tf.datasets.iris.load_data()
examples = [
    tf.train.Example(features=tf.train.Features(feature={
        input_name: tf.train.Feature(float_list=tf.train.FloatList(value=row))
    })).SerializeToString()
    for row in x[:: 50]
]
loaded = tf.saved_model.load(export_path)
outputs = loaded.signatures['serving_default'](examples=tf.constant(examples))
print('Signature outputs:', sorted(outputs))
logits = np.asarray(next(iter(outputs.values())))
print('Predicted classes:', np.argmax(logits, axis=1), 'true classes:', y[:: 50])

predictions = list(keras_estimator.predict(
    input_fn=lambda: tf.data.Dataset.from_tensor_slices(
        {input_name: x[:: 50].astype('float32')}).batch(3)))
print('Estimator.predict keys:', sorted(predictions[0]))

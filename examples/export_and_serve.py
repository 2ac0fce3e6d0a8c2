"""Export an Estimator, serve it with `torchestimator serve`, query it over REST.

The flow of TensorFlow's "Exporting a SavedModel from an Estimator" (the SavedModel guide,
tensorflow/docs site/en/guide/saved_model.ipynb) and TensorFlow Serving's REST API
(`tensorflow_model_server`): a DNNClassifier trained on the bundled Iris data is exported
with a parsing serving receiver (its signatures take serialized `tf.train.Example`
records), `python -m torchestimator serve` (TF Serving's flags) serves the export directory
on free local ports, and a client queries `:predict` (base64 examples) and `:classify`
(examples as JSON objects) with urllib. SIGTERM stops the server, which exits 0. It runs
with `import torchestimator as tf` in place of `import tensorflow as tf`. `EXAMPLE_STEPS`
sets the training steps (300 unless set).
"""

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import torchestimator as tf

tf.keras.utils.set_random_seed(0)
(x_train, y_train), (x_test, y_test) = tf.datasets.iris.load_data()
names = tf.datasets.iris.FEATURE_NAMES
columns = [tf.feature_column.numeric_column(name) for name in names]


def input_fn():
    features = {name: x_train[:, i] for i, name in enumerate(names)}
    return tf.data.Dataset.from_tensor_slices((features, y_train)).shuffle(150).repeat().batch(32)


classifier = tf.estimator.DNNClassifier(
    feature_columns=columns, hidden_units=[10], n_classes=3,
    optimizer=tf.keras.optimizers.legacy.Adam(learning_rate=0.05))
classifier.train(input_fn, steps=int(os.environ.get("EXAMPLE_STEPS", 300)))

# --- Export with a parsing receiver -----------------------------------------------------
base = tempfile.mkdtemp()
feature_spec = tf.feature_column.make_parse_example_spec(columns)
serving_input_receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(
    feature_spec)
export_path = classifier.export_saved_model(os.path.join(base, "iris"), serving_input_receiver_fn)
print("Exported version:", os.path.basename(export_path.decode()))


# --- Serve on free ports ----------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


rest_port, grpc_port = free_port(), free_port()
server = subprocess.Popen([
    sys.executable, "-m", "torchestimator", "serve", "--host", "127.0.0.1",
    f"--rest_api_port={rest_port}", f"--port={grpc_port}",
    "--model_name=iris", f"--model_base_path={os.path.join(base, 'iris')}",
])
url = f"http://127.0.0.1:{rest_port}/v1/models/iris"
try:
    status = None
    for _ in range(600):
        try:
            status = json.load(urllib.request.urlopen(url, timeout=1))
            if status["model_version_status"][0]["state"] == "AVAILABLE":
                break
        except OSError:
            time.sleep(0.2)
    print("Model status:", status["model_version_status"][0]["state"])

    rows = x_test[:4]
    expected = [int(label) for label in y_test[:4]]

    def example(row):
        return tf.train.Example(features=tf.train.Features(feature={
            name: tf.train.Feature(float_list=tf.train.FloatList(value=[float(value)]))
            for name, value in zip(names, row)}))

    # :predict takes the signature's input, serialized Examples, base64-encoded; the
    # "predict" signature returns every prediction key (serving_default is "classification").
    request = {"signature_name": "predict", "instances": [
        {"b64": base64.b64encode(example(row).SerializeToString()).decode()} for row in rows]}
    answer = json.load(urllib.request.urlopen(
        url + ":predict", data=json.dumps(request).encode(), timeout=30))
    predictions = answer["predictions"]
    print("Predict keys:", sorted(predictions[0]))
    print("Predicted classes:", [int(p["class_ids"][0]) for p in predictions], "expected:", expected)

    # :classify takes the Examples' features as JSON objects.
    request = {"examples": [{name: float(value) for name, value in zip(names, row)}
                            for row in rows]}
    answer = json.load(urllib.request.urlopen(
        url + ":classify", data=json.dumps(request).encode(), timeout=30))
    results = answer["results"]
    best = [max(range(len(r)), key=lambda i: r[i][1]) for r in results]
    print("Classify labels:", [[label for label, _ in r] for r in results][0])
    print("Classified classes:", [int(results[i][b][0]) for i, b in enumerate(best)],
          "expected:", expected)
finally:
    server.terminate()  # SIGTERM: answers the requests in flight, then exits 0
    print("Server exit code:", server.wait(timeout=60))

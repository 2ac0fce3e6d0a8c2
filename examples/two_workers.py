"""Two workers training one DNNClassifier under MultiWorkerMirroredStrategy.

The training script of TensorFlow's "Multi-worker training with Estimator" tutorial
(tensorflow/docs, site/en/tutorials/distribute/multi_worker_with_estimator.ipynb), on the
bundled Iris data, as in docs/guides/distributed.md. Run it once per worker with

    python -m torchestimator launch --nproc_per_node=2 --master_port=<free port> \
        examples/two_workers.py <model_dir>

(`launch` is torchrun: it starts the script once per process and sets the rendezvous). Each
worker reads its own shard of the data; the replicas average their gradients every step and
only the chief (rank 0) writes checkpoints. Each prints its role. Run alone, it is one worker.
"""

import os
import sys
import tempfile

import torchestimator as tf

model_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
steps = int(os.environ.get("EXAMPLE_STEPS", 50))
strategy = tf.distribute.MultiWorkerMirroredStrategy()
(x, y), _ = tf.datasets.iris.load_data()
names = tf.datasets.iris.FEATURE_NAMES


def input_fn(input_context=None):
    features = {n: x[:, i] for i, n in enumerate(names)}
    dataset = tf.data.Dataset.from_tensor_slices((features, y))
    if input_context is not None:   # each worker reads its own shard
        dataset = dataset.shard(input_context.num_input_pipelines,
                                input_context.input_pipeline_id)
    return dataset.repeat().batch(16)


config = tf.estimator.RunConfig(train_distribute=strategy, model_dir=model_dir)
classifier = tf.estimator.DNNClassifier(
    feature_columns=[tf.feature_column.numeric_column(n) for n in names],
    hidden_units=[10], n_classes=3, config=config)
classifier.train(input_fn, steps=steps)
resolver = strategy.cluster_resolver   # rank 0 is the chief
step = classifier.get_variable_value("global_step")
sys.stdout.write(f"{resolver.task_type} {resolver.task_id} of "
                 f"{strategy.num_replicas_in_sync}: done at step {step}\n")

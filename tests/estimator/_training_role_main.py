"""One task of the three-process train_and_evaluate test: its role (chief, worker or
evaluator) comes from TF_CONFIG; it trains or evaluates the same model in MODEL_DIR.

    TF_CONFIG=... python _training_role_main.py MODEL_DIR MAX_STEPS

Prints one JSON line: the task type and, for the evaluator, the steps it evaluated.
"""

import json
import logging
import os
import sys

import numpy as np
import torch

import torchestimator as tf


def main() -> None:
    model_dir, max_steps = sys.argv[1], int(sys.argv[2])
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(128, 3)).astype(np.float32)
    y = (x[:, :1] + x[:, 1:2] > 0).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(16)

    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(1, name="logits")(features["x"])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=10,
                                    log_step_count_steps=None, experimental_max_worker_delay_secs=0)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    evaluated = []

    class Record(tf.estimator.SessionRunHook):
        def end(self, session):
            evaluated.append(session.global_step)

    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=max_steps)
    eval_spec = tf.estimator.EvalSpec(input_fn, steps=2, hooks=[Record()], start_delay_secs=0,
                                      throttle_secs=0)
    result = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    print(json.dumps({"task": json.loads(os.environ["TF_CONFIG"])["task"]["type"],
                      "result": result, "evaluated": evaluated}))


if __name__ == "__main__":
    main()

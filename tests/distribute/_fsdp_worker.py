"""One process of an FSDPStrategy test run (started by `_distlib.launch` with this script).

    python _fsdp_worker.py SCENARIO MODEL_DIR OUT_DIR

Scenarios: `keras` (Sequential.fit with Adam and ModelCheckpoint), `custom` (custom
model_fn Estimator), `premade` (DNNClassifier). Each writes `OUT_DIR/rank<R>.npz` (the
gathered weights this replica holds after training) and `OUT_DIR/rank<R>.json`. A
non-chief replica refuses every write under MODEL_DIR.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np
from _dist_worker import (
    FEATURES,
    data,
    forbid_writes_under,
    input_fn_plain,
    input_fn_sharded_by_context,
    make_estimator,
)

import torchestimator as tf


def keras_model():
    """The Keras scenario's model (seeded by the caller)."""
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                 tf.keras.layers.Dense(3, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"])
    return model


def run_keras(model_dir: str, out_dir: str) -> dict:
    """`fit` under FSDPStrategy (every weight sharded; Adam's slots too)."""
    strategy = tf.distribute.experimental.FSDPStrategy(
        mixed_precision=os.environ.get("FSDP_TEST_MIXED"),
        reshard_after_forward=os.environ.get("FSDP_TEST_RESHARD", "1") == "1")
    rank = strategy._position.rank
    tf.keras.utils.set_random_seed(rank + 1)  # the chief's weights win
    with strategy.scope():
        model = keras_model()
    if rank != 0:
        forbid_writes_under(model_dir)
    x, y = data()
    shards = {}

    class RecordShards(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):  # what this replica's optimizer updates
            shards.update({w._tf_name: list(w.to_local().shape) for w in self.model.optimizer._vars})

    callbacks = [tf.keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "ckpt-{epoch}.weights.h5"),
                                                    save_weights_only=True),
                 tf.keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "model-{epoch}.keras")),  # + optimizer
                 RecordShards()]
    history = model.fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0,
                        callbacks=callbacks)
    # After fit the model is whole again: one replica alone may predict (no collective).
    predictions = model.predict(x[:4], verbose=0).tolist() if rank == 0 else None
    more = model.fit(x, y.astype("float32"), batch_size=16, epochs=1, shuffle=False, verbose=0)  # sharded again
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), *[w.numpy() for w in model.weights])
    return {"rank": rank, "history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
            "more": {k: [float(v) for v in vs] for k, vs in more.history.items()},
            "shards": shards, "predictions": predictions}


def run_estimator(kind: str, model_dir: str, out_dir: str) -> dict:
    """`Estimator.train` under FSDPStrategy (custom model_fn or DNNClassifier)."""
    strategy = tf.distribute.experimental.FSDPStrategy()
    rank = strategy._position.rank
    if os.environ.get("FSDP_TEST_SAVE_SECS"):  # time-based saving: the chief's decision is broadcast
        saving = {"save_checkpoints_secs": float(os.environ["FSDP_TEST_SAVE_SECS"])}
    else:
        saving = {"save_checkpoints_steps": 3}
    config = tf.estimator.RunConfig(train_distribute=strategy, tf_random_seed=rank + 1, log_step_count_steps=1,
                                    save_summary_steps=1, **saving)
    est = make_estimator(kind, model_dir, config)
    if rank != 0:
        forbid_writes_under(model_dir)
    est.train(input_fn_sharded_by_context(8))
    est.train(input_fn_sharded_by_context(8), steps=2)
    weights = {k: v.detach().cpu().numpy() for k, v in est._state.named_variables().items()}
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **weights)
    # After train() the model is whole again: the chief alone evaluates (no collective).
    evaluation = None
    if rank == 0:
        evaluation = {k: float(v) for k, v in est.evaluate(input_fn_plain(16)).items()}
    return {"rank": rank, "global_step": int(est._state.global_step), "eval": evaluation}


def main() -> None:
    """Runs the scenario named on the command line."""
    scenario, model_dir, out_dir = sys.argv[1:4]
    # Every trained weight must get its gradient (through FSDP's reduce-scatter) at every step.
    warnings.filterwarnings("error", message="Gradients do not exist")
    if scenario == "keras":
        result = run_keras(model_dir, out_dir)
    else:
        result = run_estimator(scenario, model_dir, out_dir)
    with open(os.path.join(out_dir, f"rank{result['rank']}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

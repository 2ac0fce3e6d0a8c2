"""One process of a distributed test run (started by `_distlib.launch` or torchrun).

    python _dist_worker.py SCENARIO MODEL_DIR OUT_DIR

Scenarios: `custom` (custom model_fn, Estimator), `premade` (LinearClassifier with a
feature column), `keras` (Sequential.fit under MultiWorkerMirroredStrategy). Each
writes `OUT_DIR/rank<R>.npz` (this replica's weights in memory) and
`OUT_DIR/rank<R>.json` (global step, evaluate results, role). A non-chief replica
refuses every write under MODEL_DIR (an audit hook), so a worker that writes
fails the run.
"""

from __future__ import annotations

import gc
import json
import os
import sys

import numpy as np
import torch

import torchestimator as tf

ROWS, FEATURES = 64, 4


def data() -> tuple[np.ndarray, np.ndarray]:
    """The training rows every scenario uses."""
    rng = np.random.RandomState(0)
    x = rng.randn(ROWS, FEATURES).astype("float32")
    y = (x @ np.array([1.0, -2.0, 0.5, 1.5], dtype="float32") > 0).astype("int64")
    return x, y


def input_fn_sharded_by_context(batch_size: int):
    """An input_fn taking input_context: shards rows, batches per worker."""
    x, y = data()

    def input_fn(input_context=None):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        if input_context is not None:
            ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        return ds.batch(batch_size)

    return input_fn


def input_fn_plain(batch_size: int):
    """An input_fn without input_context: the Estimator shards its batches itself."""
    x, y = data()

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch_size)

    return input_fn


def model_fn(features, labels, mode):
    """A small custom model_fn: two Dense layers, SGD, accuracy and AUC metrics."""
    h = tf.keras.layers.Dense(8, activation="relu", name="hidden")(features["x"])
    logits = tf.keras.layers.Dense(2, name="logits")(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        probs = tf.nn.softmax(logits)[:, 1]
        metrics = {"acc": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1)),
                   "auc": tf.compat.v1.metrics.auc(labels, probs)}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.keras.optimizers.Adam(0.05)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss))


def make_estimator(kind: str, model_dir: str, config):
    """The Estimator of scenario `kind`."""
    if kind == "premade":
        column = tf.feature_column.numeric_column("x", shape=(FEATURES,))
        return tf.estimator.DNNClassifier(hidden_units=[8], feature_columns=[column], model_dir=model_dir,
                                          config=config, optimizer=lambda: tf.keras.optimizers.Adam(0.05))
    return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)


def forbid_writes_under(directory: str) -> None:
    """Any write, rename or removal under `directory` raises PermissionError from now on."""
    root = os.path.realpath(directory)

    def inside(path) -> bool:
        try:
            return os.path.realpath(os.fsdecode(path)).startswith(root)
        except (TypeError, ValueError):
            return False

    def hook(event, args):
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writing = any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
            if writing and inside(args[0]):
                raise PermissionError(f"a non-chief worker wrote {args[0]}")
        elif event in ("os.rename", "os.replace", "os.remove", "os.mkdir", "os.rmdir") and inside(args[0]):
            raise PermissionError(f"a non-chief worker did {event} on {args[0]}")

    sys.addaudithook(hook)


def run_estimator(kind: str, model_dir: str, out_dir: str, rank: int) -> dict:
    """Trains (and evaluates under eval_distribute) scenario `kind`."""
    implicit = os.environ.get("DIST_TEST_NO_STRATEGY") == "1"  # TF_CONFIG with ps tasks, no strategy
    strategy = None if implicit else tf.distribute.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy,
                                    save_checkpoints_steps=5, tf_random_seed=rank + 1, log_step_count_steps=1,
                                    save_summary_steps=1)
    est = make_estimator(kind, model_dir, config)
    if rank != 0:
        forbid_writes_under(model_dir)
    batch = int(os.environ.get("DIST_TEST_BATCH", "8"))
    train_input = input_fn_plain(batch) if kind == "premade" else input_fn_sharded_by_context(batch)
    est.train(train_input)
    est.train(train_input, steps=int(os.environ.get("DIST_TEST_MORE_STEPS", "2")))
    weights = {k: v.detach().cpu().numpy() for k, v in est._state.named_variables().items()}
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **weights)
    results = est.evaluate(input_fn_sharded_by_context(batch))
    return {"global_step": int(est._state.global_step), "is_chief": est.config.is_chief,
            "eval": {k: float(v) for k, v in results.items()}, "backend": _backend()}


def run_keras(model_dir: str, out_dir: str, rank: int) -> dict:
    """`Sequential.fit` under MultiWorkerMirroredStrategy, with ModelCheckpoint."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    tf.keras.utils.set_random_seed(rank + 1)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    if strategy._position.rank != 0:
        forbid_writes_under(model_dir)
    x, y = data()
    callbacks = [tf.keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "ckpt-{epoch}.weights.h5"),
                                                    save_weights_only=True)]
    history = model.fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0,
                        callbacks=callbacks)
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), *[w.numpy() for w in model.weights])
    evaluation = model.evaluate(x, y.astype("float32"), batch_size=16, verbose=0, return_dict=True)
    return {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
            "evaluate": {k: float(v) for k, v in evaluation.items()},
            "weights_device": str(model.weights[0].device), "backend": _backend()}


def _backend() -> str | None:
    """The process group's torch.distributed backend (None without one)."""
    return torch.distributed.get_backend() if torch.distributed.is_initialized() else None


def run_keras_torchmetric(rank: int) -> dict:
    """`fit` and `evaluate` with a torchmetrics metric next to Keras's own under
    MultiWorkerMirroredStrategy: each replica sees its shard, both metrics cover the global data."""
    import torchmetrics

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    tf.keras.utils.set_random_seed(1)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(FEATURES,))])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse",
                      metrics=["mae", tf.keras.metrics.from_torch(torchmetrics.MeanAbsoluteError(),
                                                                  name="tm_mae")])
    x, y = data()
    y = y.astype("float32").reshape(-1, 1)  # torchmetrics take labels shaped as the predictions
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    evaluation = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    return {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
            "evaluate": {k: float(v) for k, v in evaluation.items()}}


def ddp_model():
    """The model the DDP scenario trains: Dense, BatchNormalization, Dense (seeded)."""
    tf.keras.utils.set_random_seed(7)
    return tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                tf.keras.layers.BatchNormalization(),
                                tf.keras.layers.Dense(1)])


def run_ddp(out_dir: str, rank: int) -> dict:
    """A Keras model inside `torch.nn.parallel.DistributedDataParallel`, trained by a plain
    PyTorch loop on this replica's half of every global batch of 16."""
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    tf.keras.utils.set_random_seed(rank + 1)  # replica 1's weights differ: DDP broadcasts rank 0's
    model = ddp_model() if rank == 0 else tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(1)])
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    x, y = data()
    x, y = torch.from_numpy(x), torch.from_numpy(y.astype("float32")).reshape(-1, 1)
    ddp.train()
    for start in range(0, ROWS, 16):
        xb, yb = x[start:start + 16][rank::2], y[start:start + 16][rank::2]
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(ddp(xb), yb).backward()
        optimizer.step()
    trainable = {k: v.detach().numpy() for k, v in model.named_parameters() if v.requires_grad}
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **trainable)
    # DDP's reducer holds the process group: free it before the group is torn down, or its
    # destructor may run at exit after gloo's (an occasional 'terminate called' abort)
    del ddp, optimizer
    gc.collect()
    dist.barrier()  # both replicas done before either tears gloo down (else one may abort at exit)
    dist.destroy_process_group()
    return {"keys": sorted(trainable)}


def run_recover(model_dir: str, out_dir: str, rank: int) -> dict:
    """Trains to max_steps=8; on the first attempt replica 1 SIGKILLs itself after step 5, so that
    torchrun (--max_restarts=1) restarts the group, which resumes from the chief's checkpoint."""
    import signal

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(train_distribute=strategy, save_checkpoints_steps=2, tf_random_seed=1)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))

    class KillAfter(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            if attempt == 0 and rank == 1 and est._state.global_step >= 5:
                os.kill(os.getpid(), signal.SIGKILL)

    x, y = data()

    def input_fn(input_context):
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).shard(
            input_context.num_input_pipelines, input_context.input_pipeline_id).batch(8).repeat()

    est.train(input_fn, max_steps=8, hooks=[KillAfter()])
    weights = {k: v.detach().cpu().numpy() for k, v in est._state.named_variables().items()}
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **weights)
    return {"global_step": int(est._state.global_step), "attempt": attempt}


def run_custom_loop(out_dir: str, rank: int) -> dict:
    """strategy.reduce / gather / run and the distributed datasets, then a custom training loop
    (GradientTape + apply_gradients inside strategy.run) from different initial weights."""
    import torch

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    r: dict = {"replicas": strategy.num_replicas_in_sync}
    r["sum"] = float(strategy.reduce("SUM", torch.tensor(rank + 1.0), axis=None))
    r["mean"] = float(strategy.reduce(tf.distribute.ReduceOp.MEAN, torch.tensor(rank + 1.0), axis=None))
    r["mean_axis"] = float(strategy.reduce("MEAN", torch.arange(rank + 2, dtype=torch.float32), axis=0))
    r["gather"] = strategy.gather(torch.arange(rank + 1), axis=0).tolist()
    r["replica"] = strategy.run(lambda: [tf.distribute.get_replica_context().replica_id_in_sync_group,
                                         float(tf.distribute.get_replica_context().all_reduce("SUM", 1.0))])
    batches = tf.data.Dataset.from_tensor_slices(np.arange(10)).batch(5)
    r["distributed"] = [b.tolist() for b in strategy.experimental_distribute_dataset(batches)]
    r["from_function"] = [b.tolist() for b in strategy.distribute_datasets_from_function(
        lambda c: tf.data.Dataset.from_tensor_slices(np.arange(8)).shard(
            c.num_input_pipelines, c.input_pipeline_id).batch(c.get_per_replica_batch_size(4)))]

    tf.keras.utils.set_random_seed(rank + 1)  # different initial weights: the chief's win
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(FEATURES,))])
        optimizer = tf.keras.optimizers.SGD(0.1)
    x, y = data()
    dataset = tf.data.Dataset.from_tensor_slices((x, y.astype("float32"))).batch(16)

    def step(features, labels):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(features, training=True)[:, 0] - labels))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(strategy.reduce("MEAN", strategy.run(step, args=batch), axis=None))
              for batch in strategy.experimental_distribute_dataset(dataset)]
    r["losses"] = losses
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), *[w.numpy() for w in model.weights])
    return r


def run_keras_backup(model_dir: str, out_dir: str, rank: int) -> dict:
    """fit for 4 epochs with BackupAndRestore; on the first attempt replica 1 SIGKILLs itself in
    epoch 2, torchrun restarts the group and every replica resumes from the chief's backup."""
    import signal

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    tf.keras.utils.set_random_seed(1)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9), loss="mse")

    class KillInEpoch2(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.epoch = epoch

        def on_train_batch_end(self, batch, logs=None):
            if attempt == 0 and rank == 1 and self.epoch == 2 and batch == 1:
                os.kill(os.getpid(), signal.SIGKILL)

    x, y = data()
    backup = tf.keras.callbacks.BackupAndRestore(os.path.join(model_dir, "backup"))
    history = model.fit(x, y.astype("float32"), batch_size=16, epochs=4, shuffle=False, verbose=0,
                        callbacks=[backup, KillInEpoch2()])
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), *[w.numpy() for w in model.weights])
    return {"attempt": attempt, "epochs": history.epoch}


def run_eval_empty_shard(model_dir: str, rank: int) -> dict:
    """evaluate under eval_distribute when replica 1's shard is empty: every replica fails alike."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(eval_distribute=strategy)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    x, y = data()

    def one_row(input_context):
        return tf.data.Dataset.from_tensor_slices(({"x": x[:1]}, y[:1])).shard(
            input_context.num_input_pipelines, input_context.input_pipeline_id).batch(8)

    try:
        est.evaluate(one_row)
    except ValueError as e:
        return {"error": str(e)}
    return {"error": None}


def main() -> None:
    """Runs the scenario named on the command line."""
    scenario, model_dir, out_dir = sys.argv[1:4]
    rank = int(os.environ.get("RANK", "-1"))
    if rank < 0:  # TF_CONFIG: the rank the cluster resolver gives (-1 for a ps task)
        from torchestimator.distribute._cluster import current_position

        rank = current_position().rank
    if scenario == "keras":
        result = run_keras(model_dir, out_dir, rank)
    elif scenario == "ddp":
        result = run_ddp(out_dir, rank)
    elif scenario == "keras_torchmetric":
        result = run_keras_torchmetric(rank)
    elif scenario == "custom_loop":
        result = run_custom_loop(out_dir, rank)
    elif scenario == "keras_backup":
        result = run_keras_backup(model_dir, out_dir, rank)
    elif scenario == "eval_empty":
        result = run_eval_empty_shard(model_dir, rank)
    elif scenario == "recover":
        result = run_recover(model_dir, out_dir, rank)
    else:
        result = run_estimator(scenario, model_dir, out_dir, rank)
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

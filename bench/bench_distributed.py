"""Distributed training speed: 1 process x 2 threads against 2 processes x 1 thread (gloo on
loopback), same global batch, for the Iris custom model_fn and the wide & deep premade
estimator (bench_premade's table). Prints examples/s of each and, for 2 processes, the
communication share of a step (gradient all-reduce + the per-step "every replica has a batch"
all-reduce, as time inside those calls / step time; a slower peer's wait counts as
communication).

    python bench/bench_distributed.py [--steps 300] [--warmup 30] [--only iris wide_deep]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = {"iris": 64, "wide_deep": 512}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _iris_estimator(model_dir: str, config):
    import torchestimator as tf

    def model_fn(features, labels, mode):
        h = tf.keras.layers.Dense(10, activation="relu")(features["x"])
        h = tf.keras.layers.Dense(10, activation="relu")(h)
        logits = tf.keras.layers.Dense(3)(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return tf.estimator.EstimatorSpec(mode, loss=loss,
                                          train_op=tf.keras.optimizers.Adam(0.01).minimize(loss))

    (x, y), _ = tf.datasets.iris.load_data()

    def input_fn(input_context=None):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x.astype("float32")}, y.astype("int64")))
        batch = BATCH["iris"]
        if input_context is not None:
            ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            batch = input_context.get_per_replica_batch_size(batch)
        return ds.repeat().batch(batch)

    return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config), input_fn


def _wide_deep_estimator(model_dir: str, config):
    sys.path.insert(0, HERE)
    import bench_premade

    import torchestimator as tf

    cols = bench_premade.columns()
    features, labels, _ = bench_premade.make_table(20_000, seed=0)
    est = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir, linear_feature_columns=cols["linear"], dnn_feature_columns=cols["dnn"],
        dnn_hidden_units=[64, 32], config=config)

    def input_fn(input_context=None):
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        batch = BATCH["wide_deep"]
        if input_context is not None:
            ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            batch = input_context.get_per_replica_batch_size(batch)
        return ds.repeat().batch(batch)

    return est, input_fn


def child(model: str, steps: int, warmup: int) -> dict:
    """One training process (single or one of the replicas); returns its measurements."""
    import torch

    import torchestimator as tf
    from torchestimator.distribute import _collectives

    distributed = "RANK" in os.environ
    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
    strategy = tf.distribute.MultiWorkerMirroredStrategy() if distributed else None
    config = tf.estimator.RunConfig(train_distribute=strategy, save_checkpoints_steps=None,
                                    save_checkpoints_secs=None, save_summary_steps=0, log_step_count_steps=None,
                                    tf_random_seed=0)
    make = _iris_estimator if model == "iris" else _wide_deep_estimator
    est, input_fn = make(tempfile.mkdtemp(prefix=f"bench_dist_{model}_"), config)
    state = {"measuring": False, "comm": 0.0, "start": 0.0, "end": 0.0, "steps": 0}

    def timed(fn):
        def wrapper(*args, **kwargs):
            if not state["measuring"]:
                return fn(*args, **kwargs)
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                state["comm"] += time.perf_counter() - t
        return wrapper

    _collectives.average_gradients = timed(_collectives.average_gradients)
    _collectives.all_agree = timed(_collectives.all_agree)

    class Clock(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            state["steps"] += 1
            if state["steps"] == warmup:
                state["measuring"], state["start"] = True, time.perf_counter()
            state["end"] = time.perf_counter()

    est.train(input_fn, max_steps=steps, hooks=[Clock()])
    measured = state["steps"] - warmup
    elapsed = state["end"] - state["start"]
    return {"steps": measured, "seconds": elapsed, "examples_per_s": measured * BATCH[model] / elapsed,
            "comm_share": state["comm"] / elapsed}


def _run(model: str, processes: int, args: argparse.Namespace, threads: int = 2) -> dict:
    port = _free_port()
    procs = []
    for rank in range(processes):
        env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "TF_CONFIG")}
        env["OMP_NUM_THREADS"] = env["BENCH_THREADS"] = "1" if processes > 1 else str(threads)
        if processes > 1:
            env.update(RANK=str(rank), WORLD_SIZE=str(processes), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen(
            [sys.executable, __file__, "--child", model, "--steps", str(args.steps), "--warmup", str(args.warmup)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{model} x{processes} failed:\n{err[-3000:]}")
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    return outputs[0]


def main() -> None:
    """Runs the comparison and prints a table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--only", nargs="*", default=["iris", "wide_deep"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.steps, args.warmup)))
        return
    print(f"global batch: {BATCH}; {args.steps} steps ({args.warmup} warm-up); CPU, gloo on loopback")
    print(f"{'model':<10} {'setup':<22} {'examples/s':>11} {'comm/step':>10}")
    for model in args.only:
        for processes, threads, label in ((1, 2, "1 process x 2 threads"), (1, 1, "1 process x 1 thread"),
                                          (2, 1, "2 processes x 1 thread")):
            result = _run(model, processes, args, threads)
            comm = f"{100 * result['comm_share']:.0f}%" if processes > 1 else "-"
            print(f"{model:<10} {label:<22} {result['examples_per_s']:>11,.0f} {comm:>10}")


if __name__ == "__main__":
    main()

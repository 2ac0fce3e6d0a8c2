"""Keras `fit` under MultiWorkerMirroredStrategy: 2 real processes over gloo on loopback."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from _dist_worker import FEATURES, data
from _distlib import WORKER, base_env, check_ok, free_port, launch, load, torchrun_envs

import torchestimator as tf


@pytest.mark.slow
def test_fit_two_workers_equals_one_process_on_the_global_batch(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    model_dir.mkdir()
    check_ok(launch(["keras", str(model_dir), str(out)], torchrun_envs(2, free_port())))
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    for name in w0:
        assert np.array_equal(w0[name], w1[name]), f"replicas differ in {name}"
    assert r0 == r1  # History and evaluate reduced over the replicas
    # ModelCheckpoint wrote on the chief only (the worker refuses writes under model_dir).
    assert sorted(p.name for p in model_dir.iterdir() if not p.name.startswith(".")) == [
        "ckpt-1.weights.h5", "ckpt-2.weights.h5"]

    # One process, global batch of 16: the same weights, History and evaluation.
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x, y = data()
    history = model.fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0)
    for i, w in enumerate(model.weights):
        np.testing.assert_allclose(w0[f"arr_{i}"], w.numpy(), rtol=2e-5, atol=2e-6)
    for key, values in history.history.items():
        np.testing.assert_allclose(r0["history"][key], values, rtol=1e-5)
    evaluation = model.evaluate(x, y.astype("float32"), batch_size=16, verbose=0, return_dict=True)
    for key, value in evaluation.items():
        assert r0["evaluate"][key] == pytest.approx(value, rel=1e-5)


def test_compile_records_the_strategy_in_scope():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "mse")
    assert model.distribute_strategy is strategy
    plain = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    plain.compile("sgd", "mse")
    assert plain.distribute_strategy is None
    # One replica: fit is the plain loop.
    history = model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


@pytest.mark.slow
def test_backup_and_restore_resumes_a_restarted_multi_worker_job(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    model_dir.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "torchestimator", "launch", "--nproc_per_node=2", "--max_restarts=1",
         "--monitor_interval=0.5", str(WORKER), "keras_backup", str(model_dir), str(out)],
        env=base_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    # The restarted attempt resumed after the chief's backup of epoch 1: it ran epochs 2 and 3.
    assert r0 == r1 == {"attempt": 1, "epochs": [2, 3]}
    for name in w0:
        assert np.array_equal(w0[name], w1[name])
    assert not (model_dir / "backup").exists()  # deleted by the chief when training completed
    # The same as one uninterrupted process on the global batch.
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(FEATURES,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    x, y = data()
    model.fit(x, y.astype("float32"), batch_size=16, epochs=4, shuffle=False, verbose=0)
    for i, w in enumerate(model.weights):
        np.testing.assert_allclose(w0[f"arr_{i}"], w.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_a_torchmetrics_metric_covers_every_replicas_data(tmp_path):
    """torchmetrics syncs its own state across the processes in `compute()`: under
    MultiWorkerMirroredStrategy its value equals Keras's `mae`, which the loop sums over the
    replicas, on both workers and in the History as in `evaluate`."""
    pytest.importorskip("torchmetrics")
    out = tmp_path / "out"
    out.mkdir()
    check_ok(launch(["keras_torchmetric", str(tmp_path), str(out)], torchrun_envs(2, free_port())))
    r0, r1 = (json.loads((out / f"rank{rank}.json").read_text()) for rank in (0, 1))
    assert r0 == r1
    np.testing.assert_allclose(r0["history"]["tm_mae"], r0["history"]["mae"], rtol=1e-5)
    assert r0["evaluate"]["tm_mae"] == pytest.approx(r0["evaluate"]["mae"], rel=1e-5)


@pytest.mark.slow
def test_a_keras_model_trains_inside_torch_ddp_as_one_process_on_the_global_batch(tmp_path):
    """`DistributedDataParallel(keras_model)` in a plain PyTorch loop, two processes over gloo:
    DDP broadcasts rank 0's weights, averages the gradients, and the replicas end with the
    weights one process gets on the same global batches (BatchNormalization's batch statistics
    are per replica, as with torch's own BatchNorm under DDP, so the comparison model is
    trained on the same per-replica halves, its gradients averaged by hand)."""
    from _dist_worker import ROWS, ddp_model

    out = tmp_path / "out"
    out.mkdir()
    check_ok(launch(["ddp", str(tmp_path), str(out)], torchrun_envs(2, free_port())))
    (_, w0), (_, w1) = load(out, 0), load(out, 1)
    assert sorted(w0) == sorted(w1) and w0
    for name in w0:
        np.testing.assert_array_equal(w0[name], w1[name], err_msg=name)

    import torch

    model = ddp_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = data()
    x, y = torch.from_numpy(x), torch.from_numpy(y.astype("float32")).reshape(-1, 1)
    model.train()
    for start in range(0, ROWS, 16):
        optimizer.zero_grad()
        loss = sum(torch.nn.functional.mse_loss(model(x[start:start + 16][r::2]),
                                                y[start:start + 16][r::2]) for r in (0, 1)) / 2
        loss.backward()
        optimizer.step()
    for name, value in model.named_parameters():
        if value.requires_grad:
            np.testing.assert_allclose(w0[name], value.detach().numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=name)

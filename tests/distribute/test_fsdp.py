"""`tf.distribute.experimental.FSDPStrategy`: PyTorch FSDP2 (`fully_shard`) over gloo on loopback.

The multi-process tests start 2 real processes (`_fsdp_worker.py`); a non-chief process
refuses every write under model_dir, so a worker that writes fails the run. The
checkpoints they leave are read back here, in a single process without a process group.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from _dist_worker import FEATURES, data, input_fn_plain, make_estimator
from _distlib import HERE, base_env, check_ok, free_port, launch, load, torchrun_envs

import torchestimator as tf
from torchestimator.distribute._fsdp import FSDPStrategy

FSDP_WORKER = HERE / "_fsdp_worker.py"


def _run(scenario: str, tmp_path, env: dict | None = None):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    model_dir.mkdir()
    envs = [{**e, **(env or {})} for e in torchrun_envs(2, free_port())]
    check_ok(launch([scenario, str(model_dir), str(out)], envs, script=FSDP_WORKER))
    return model_dir, load(out, 0), load(out, 1)


def _checkpoint_tensors(model_dir) -> dict[str, np.ndarray]:
    reader = tf.train.load_checkpoint(str(model_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
            if not name.startswith("rng")}


@pytest.mark.slow
def test_keras_fit_sharded_over_two_workers_equals_one_process(tmp_path):
    model_dir, (r0, w0), (r1, w1) = _run("keras", tmp_path)
    for name in w0:
        assert np.array_equal(w0[name], w1[name]), f"replicas differ in {name}"
    assert r0["history"] == r1["history"]
    # Each replica's optimizer trained half of every weight (dim 0 split 2 ways, the odd row first).
    assert r0["shards"]["dense/kernel"] == r1["shards"]["dense/kernel"] == [2, 8]
    assert (r0["shards"]["dense_1/bias"], r1["shards"]["dense_1/bias"]) == ([2], [1])
    assert (r0["shards"]["dense_2/bias"], r1["shards"]["dense_2/bias"]) == ([1], [0])

    # One process, the global batch of 16: the same weights and History.
    from _fsdp_worker import keras_model

    tf.keras.utils.set_random_seed(1)
    model = keras_model()
    x, y = data()
    history = model.fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(r0["predictions"], model.predict(x[:4], verbose=0), rtol=1e-5, atol=1e-6)
    more = model.fit(x, y.astype("float32"), batch_size=16, epochs=1, shuffle=False, verbose=0)
    for i, w in enumerate(model.weights):
        np.testing.assert_allclose(w0[f"arr_{i}"], w.numpy(), rtol=2e-5, atol=2e-6)
    for key, values in history.history.items():
        np.testing.assert_allclose(r0["history"][key], values, rtol=1e-5)
        np.testing.assert_allclose(r0["more"][key], more.history[key], rtol=1e-5)

    # The chief alone wrote the epochs' checkpoints, with the full (gathered) weights; this
    # process (no process group) loads them.
    assert sorted(p.name for p in model_dir.iterdir() if not p.name.startswith(".")) == [
        "ckpt-1.weights.h5", "ckpt-2.weights.h5", "model-1.keras", "model-2.keras"]
    fresh = keras_model()
    fresh.load_weights(str(model_dir / "ckpt-2.weights.h5"))
    tf.keras.utils.set_random_seed(1)
    after_two_epochs = keras_model()
    after_two_epochs.fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0)
    for mine, theirs in zip(fresh.weights, after_two_epochs.weights):
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=2e-5, atol=2e-6)
    # The whole model with the optimizer's (gathered) slots: Adam's moments equal one process's.
    loaded = tf.keras.models.load_model(str(model_dir / "model-2.keras"))
    for mine, theirs in zip(loaded.weights, after_two_epochs.weights):
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=2e-5, atol=2e-6)
    mine, theirs = loaded.optimizer.variables, after_two_epochs.optimizer.variables
    assert len(mine) == len(theirs) == 1 + 2 * len(after_two_epochs.trainable_weights)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=2e-6)


@pytest.mark.slow
@pytest.mark.parametrize("env", [{"FSDP_TEST_MIXED": "bfloat16"}, {"FSDP_TEST_RESHARD": "0"}],
                         ids=["bfloat16-compute", "no-reshard-after-forward"])
def test_keras_fit_strategy_options(tmp_path, env):
    model_dir, (r0, w0), (r1, w1) = _run("keras", tmp_path, env)
    for name in w0:
        assert w0[name].dtype == np.float32  # the weights (and checkpoints) stay float32
        assert np.array_equal(w0[name], w1[name]), f"replicas differ in {name}"
    from _fsdp_worker import keras_model

    tf.keras.utils.set_random_seed(1)
    x, y = data()
    history = keras_model().fit(x, y.astype("float32"), batch_size=16, epochs=2, shuffle=False, verbose=0)
    if "FSDP_TEST_MIXED" in env:  # bfloat16 compute: close to float32, not equal
        np.testing.assert_allclose(r0["history"]["loss"], history.history["loss"], rtol=3e-2)
        assert r0["history"]["loss"] != history.history["loss"]
    else:  # keeping the gathered weights for backward changes no number
        np.testing.assert_allclose(r0["history"]["loss"], history.history["loss"], rtol=1e-5)


def _reference(kind: str, model_dir: str):
    """A single process training on the concatenated per-worker batches (the global batch)."""
    config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=100)
    est = make_estimator(kind, model_dir, config)
    est.train(input_fn_plain(16))
    est.train(input_fn_plain(16), steps=2)
    return est


@pytest.mark.slow
@pytest.mark.parametrize("kind, env", [("custom", {}), ("premade", {}),
                                       ("custom", {"FSDP_TEST_SAVE_SECS": "0.000001"})],
                         ids=["custom", "premade", "custom-save-every-step-by-time"])
def test_estimator_sharded_over_two_workers_equals_one_process(tmp_path, kind, env):
    model_dir, (r0, w0), (r1, w1) = _run(kind, tmp_path, env)
    assert r0["global_step"] == r1["global_step"] == 6  # 4 synchronous steps, then 2 more
    for name in w0:
        assert np.array_equal(w0[name], w1[name]), f"replicas differ in {name}"
    reference = _reference(kind, str(tmp_path / "ref"))
    ref = {k: v.detach().numpy() for k, v in reference._state.named_variables().items()}
    assert sorted(ref) == sorted(w0)
    for name in ref:
        np.testing.assert_allclose(w0[name], ref[name], rtol=2e-5, atol=2e-6, err_msg=name)
    expected = reference.evaluate(input_fn_plain(16))  # the chief evaluated alone after train()
    assert r0["eval"]["global_step"] == 6 and r1["eval"] is None
    assert r0["eval"]["loss"] == pytest.approx(float(expected["loss"]), rel=1e-5)

    # The chief's checkpoints hold full tensors (weights and Adam's slots), readable by this
    # single process, equal to the reference's checkpoint.
    assert tf.train.latest_checkpoint(str(model_dir)).endswith("model.ckpt-6")
    saved, expected = _checkpoint_tensors(model_dir), _checkpoint_tensors(tmp_path / "ref")
    assert sorted(saved) == sorted(expected)
    assert any("/m" in name or "Adam" in name for name in saved)  # the optimizer's slots are there
    for name in expected:
        np.testing.assert_allclose(saved[name], expected[name], rtol=2e-5, atol=2e-6, err_msg=name)

    if kind == "premade":  # predict in a fresh Estimator (no process group) from the sharded run's model_dir
        single = make_estimator(kind, str(model_dir), tf.estimator.RunConfig())
        x, _ = data()

        def predict_fn():
            return tf.data.Dataset.from_tensor_slices({"x": x}).batch(16)

        ours = np.stack([p["probabilities"] for p in single.predict(predict_fn)])
        theirs = np.stack([p["probabilities"] for p in reference.predict(predict_fn)])
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# -- construction and errors (one process) ----------------------------------------------------------

def test_strategy_is_exported_and_one_process_is_one_replica():
    strategy = tf.distribute.experimental.FSDPStrategy()
    assert isinstance(strategy, FSDPStrategy)
    assert strategy.num_replicas_in_sync == 1
    assert strategy.reshard_after_forward is True
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(FEATURES,))])
        model.compile("sgd", "mse")
    assert model.distribute_strategy is strategy
    history = model.fit(np.ones((4, FEATURES), "float32"), np.ones((4, 1), "float32"), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


def test_mixed_precision_argument():
    assert FSDPStrategy(mixed_precision="bfloat16").mixed_precision.param_dtype is torch.bfloat16
    assert FSDPStrategy(mixed_precision="mixed_float16").mixed_precision.param_dtype is torch.float16
    assert FSDPStrategy(mixed_precision="bfloat16").mixed_precision.reduce_dtype is torch.float32
    assert FSDPStrategy().mixed_precision.param_dtype is None
    with pytest.raises(ValueError, match="mixed_precision.*'bfloat16'.*received 'int8'"):
        FSDPStrategy(mixed_precision="int8")
    with pytest.raises(TypeError, match="reshard_after_forward.*True or False"):
        FSDPStrategy(reshard_after_forward="yes")
    with pytest.raises(TypeError, match="communication_options"):
        FSDPStrategy(communication_options="nccl")


def test_eval_distribute_is_refused():
    with pytest.raises(ValueError, match=r"eval_distribute=FSDPStrategy\(\).*training only.*MultiWorkerMirrored"):
        tf.estimator.RunConfig(eval_distribute=FSDPStrategy())
    # As train_distribute it is accepted.
    assert isinstance(tf.estimator.RunConfig(train_distribute=FSDPStrategy()).train_distribute, FSDPStrategy)


_SHARD_NOTHING = """
import os, torch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="{port}", RANK="0", WORLD_SIZE="1")
dist.init_process_group("gloo")
import torchestimator as tf
from torchestimator.distribute._fsdp import FSDPStrategy, Sharded
try:
    Sharded([tf.keras.Sequential([tf.keras.layers.Flatten()])], FSDPStrategy(), "Keras model 'empty'")
except ValueError as error:
    print(error)
"""


def test_a_checkpoint_saver_hook_of_train_is_refused_and_the_chief_decides():
    from torchestimator.estimator._fsdp import _ChiefDecides, _SaveAlong, training_hooks
    from torchestimator.estimator.hooks import basic_hooks

    config = tf.estimator.RunConfig(save_checkpoints_steps=5)
    with pytest.raises(ValueError, match="CheckpointSaverHook passed in train.*save_checkpoints_steps"):
        training_hooks(None, [], config, user_saver=True)
    saver = basic_hooks.CheckpointSaverHook("/tmp/unused", save_steps=5)
    hooks = training_hooks(None, [saver], config, user_saver=False)
    assert hooks[1] is saver and isinstance(saver._timer, _ChiefDecides)
    # A steps trigger needs no collective: every replica's timer agrees.
    saver._timer.update_last_triggered_step(0)
    assert not saver._timer.should_trigger_for_step(4) and saver._timer.should_trigger_for_step(5)
    config._is_chief = False  # another replica: gathers along with the chief's saves
    hooks = training_hooks(None, [], config, user_saver=False)
    assert [type(h).__name__ for h in hooks] == ["_EndTraining", "_SaveAlong"]
    assert isinstance(hooks[1], _SaveAlong)


def test_keras_savers_in_the_middle_of_an_epoch_are_refused(tmp_path):
    from torchestimator.keras.engine._distribute_callbacks import refuse_mid_epoch_savers

    every_epoch = [tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "a.weights.h5"), save_weights_only=True),
                   tf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))]
    refuse_mid_epoch_savers(every_epoch)
    with pytest.raises(ValueError, match=r"ModelCheckpoint\(save_freq=5\).*save_freq='epoch'"):
        refuse_mid_epoch_savers([tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "b.weights.h5"), save_freq=5)])
    with pytest.raises(ValueError, match=r"BackupAndRestore\(save_freq=2\)"):
        refuse_mid_epoch_savers([tf.keras.callbacks.BackupAndRestore(str(tmp_path / "c"), save_freq=2)])


@pytest.mark.slow  # a subprocess with a process group: ~4 s, more on a busy machine
def test_a_model_without_trainable_weights_is_a_clear_error():
    # Sharding needs a process group: a one-process gloo group in a subprocess.
    result = subprocess.run([sys.executable, "-c", _SHARD_NOTHING.format(port=free_port())], env=base_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "FSDPStrategy: Keras model 'empty' has no trainable weights to shard" in result.stdout
    assert "MultiWorkerMirroredStrategy" in result.stdout

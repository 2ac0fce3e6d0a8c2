"""An Estimator whose model_dir is a URL (`memory://`, fsspec's in-process store): train,
evaluate, predict, export and load; resume from the checkpoint in the store; warm start from
it; `tf.train` checkpoint functions on URLs; the write order that keeps a store's checkpoint
readable (data files, then metadata, then the `checkpoint` index); TensorBoard event files
uploaded whole; no directory lock on a store. (The same against a real S3 server:
tests/io/test_s3_storage.py.)"""

from __future__ import annotations

import logging
import os
import uuid

import fsspec
import numpy as np
import pytest
from fsspec.implementations.memory import MemoryFileSystem

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt

X = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
Y = X @ np.array([[1.0], [2.0], [-1.0]], np.float32)
COLUMNS = [tf.feature_column.numeric_column("x", shape=(3,))]


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(16)


def predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:5]}).batch(5)


def estimator(model_dir, **kwargs):
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=0,
                                    log_step_count_steps=None)
    return tf.estimator.LinearRegressor(COLUMNS, model_dir=model_dir, config=config, **kwargs)


@pytest.fixture
def store(memory_url):
    """A fresh `memory://` folder (tests/conftest.py), removed afterwards."""
    return memory_url


def files_in(url):
    fs = fsspec.filesystem("memory")
    root = url[len("memory://"):].rstrip("/")
    return sorted(p[len(root) + 2:] for p in fs.find("/" + root))


def serving_input_receiver_fn():
    spec = tf.feature_column.make_parse_example_spec(COLUMNS)
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)()


def examples(rows):
    return [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[float(v) for v in row]))
    })).SerializeToString() for row in rows]


def test_train_evaluate_predict_export_and_load_in_memory_store(store, tmp_path):
    model_dir = f"{store}/model"
    est = estimator(model_dir)
    assert est.model_dir == model_dir
    est.train(train_input_fn, steps=12)
    names = files_in(model_dir)
    # Checkpoints 0, 5, 10 and 12 (the default keeps 5), the index, an event file; no lock file
    # and no temporary file on a store.
    for step in (0, 5, 10, 12):
        assert f"model.ckpt-{step}.json" in names and f"model.ckpt-{step}.safetensors" in names
    assert "checkpoint" in names and ".lock" not in names
    assert any(n.startswith("events.out.tfevents.") for n in names)
    assert not any(".tmp" in n for n in names)
    assert est.latest_checkpoint() == f"{model_dir}/model.ckpt-12"
    assert tf.train.latest_checkpoint(model_dir) == f"{model_dir}/model.ckpt-12"

    metrics = est.evaluate(eval_input_fn)
    assert int(metrics["global_step"]) == 12
    assert any(n.startswith("eval/events.out.tfevents.") for n in files_in(model_dir))

    predictions = np.concatenate([p["predictions"] for p in est.predict(predict_input_fn)])
    # The same training in a local model_dir gives the same model (the store changes nothing).
    local = estimator(str(tmp_path / "local"))
    local.train(train_input_fn, steps=12)
    expected = np.concatenate([p["predictions"] for p in local.predict(predict_input_fn)])
    np.testing.assert_allclose(predictions, expected, rtol=1e-6)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/x/weights"),
                               local.get_variable_value("linear/linear_model/x/weights"))

    export = est.export_saved_model(f"{model_dir}/export", serving_input_receiver_fn)
    export = export.decode()
    assert export.startswith(f"{model_dir}/export/") and export.rsplit("/", 1)[1].isdigit()
    exported = files_in(export)
    assert {"saved_model.json", "program.json", "variables.safetensors"} <= set(exported)
    assert tf.saved_model.contains_saved_model(export)
    assert not tf.saved_model.contains_saved_model(f"{model_dir}/export")
    loaded = tf.saved_model.load(export)
    assert loaded.export_dir == export
    out = loaded.signatures["predict"](examples=np.array(examples(X[:5]), dtype=object))
    np.testing.assert_allclose(np.asarray(out["predictions"]).reshape(-1), predictions.reshape(-1),
                               rtol=1e-5, atol=1e-6)


def test_resume_from_the_checkpoint_in_the_store(store):
    model_dir = f"{store}/model"
    first = estimator(model_dir)
    first.train(train_input_fn, steps=7)
    weights = first.get_variable_value("linear/linear_model/x/weights")
    # A new Estimator (a restarted job) restores the store's checkpoint and goes on.
    again = estimator(model_dir)
    np.testing.assert_array_equal(again.get_variable_value("linear/linear_model/x/weights"), weights)
    again.train(train_input_fn, steps=3)
    assert again.latest_checkpoint() == f"{model_dir}/model.ckpt-10"
    assert int(again.get_variable_value("global_step")) == 10
    # max_steps counts from the restored step.
    again.train(train_input_fn, max_steps=10)
    assert int(again.get_variable_value("global_step")) == 10


def test_keep_checkpoint_max_deletes_old_checkpoints_in_the_store(store):
    model_dir = f"{store}/model"
    config = tf.estimator.RunConfig(save_checkpoints_steps=2, keep_checkpoint_max=2,
                                    log_step_count_steps=None)
    est = tf.estimator.LinearRegressor(COLUMNS, model_dir=model_dir, config=config)
    est.train(train_input_fn, steps=8)
    kept = sorted(n for n in files_in(model_dir) if n.endswith(".json"))
    assert kept == ["model.ckpt-6.json", "model.ckpt-8.json"]
    with tf.io.gfile.GFile(f"{model_dir}/checkpoint") as f:
        index = f.read()
    assert 'model_checkpoint_path: "model.ckpt-8"' in index  # relative names, as TF writes them
    assert 'all_model_checkpoint_paths: "model.ckpt-6"' in index and "ckpt-4" not in index


@pytest.mark.parametrize("target", ["memory", "local"])
def test_warm_start_from_a_checkpoint_in_the_store(store, tmp_path, target):
    source = f"{store}/source"
    trained = estimator(source)
    trained.train(train_input_fn, steps=10)
    weights = trained.get_variable_value("linear/linear_model/x/weights")
    model_dir = f"{store}/warm" if target == "memory" else str(tmp_path / "warm")
    warm = estimator(model_dir, warm_start_from=source)
    # Before any training step the warm-started weights are the source's.
    predictions = np.concatenate([p["predictions"] for p in warm.predict(predict_input_fn)])
    expected = np.concatenate([p["predictions"] for p in trained.predict(predict_input_fn)])
    np.testing.assert_allclose(predictions, expected, rtol=1e-6)
    # And from a checkpoint prefix, into training.
    warm2 = estimator(f"{store}/warm2", warm_start_from=tf.estimator.WarmStartSettings(
        f"{source}/model.ckpt-10", vars_to_warm_start=".*weights"))
    warm2.train(train_input_fn, steps=1)
    assert warm2.get_variable_value("linear/linear_model/x/weights").shape == weights.shape


def test_tf_train_checkpoint_functions_read_urls(store):
    model_dir = f"{store}/model"
    est = estimator(model_dir)
    est.train(train_input_fn, steps=5)
    prefix = tf.train.latest_checkpoint(model_dir)
    assert prefix == f"{model_dir}/model.ckpt-5"
    names = dict(tf.train.list_variables(model_dir))
    assert names["linear/linear_model/x/weights"] == [3, 1]
    value = tf.train.load_variable(prefix, "linear/linear_model/x/weights")
    np.testing.assert_array_equal(value, est.get_variable_value("linear/linear_model/x/weights"))
    reader = tf.train.load_checkpoint(model_dir)
    np.testing.assert_array_equal(reader.get_tensor("linear/linear_model/x/weights"), value)
    with pytest.raises(KeyError, match="not found in checkpoint"):
        tf.train.load_variable(prefix, "no/such/weights")
    assert tf.train.latest_checkpoint(f"{store}/empty") is None
    with pytest.raises(FileNotFoundError, match="No checkpoint at"):
        ckpt.load_checkpoint(f"{model_dir}/model.ckpt-999")


def test_a_damaged_checkpoint_in_the_store_falls_back_to_the_previous_one(store, caplog):
    model_dir = f"{store}/model"
    est = estimator(model_dir)
    est.train(train_input_fn, steps=10)
    fs = fsspec.filesystem("memory")
    path = f"{model_dir}/model.ckpt-10.safetensors"[len("memory:/"):]
    data = bytearray(fs.cat_file(path))
    data[-1] ^= 0xFF
    fs.pipe_file(path, bytes(data))
    with caplog.at_level(logging.WARNING):
        assert tf.train.latest_checkpoint(model_dir) == f"{model_dir}/model.ckpt-5"
    assert "fails its checksum" in caplog.text and "model.ckpt-10" in caplog.text


class _RecordingMemoryFileSystem(MemoryFileSystem):
    """An in-memory store that records the order in which objects are written."""

    protocol = ("recmem",)
    root_marker = "/"
    store: dict = {}
    pseudo_dirs = [""]
    written: list[str] = []

    def pipe_file(self, path, value, *args, **kwargs):
        type(self).written.append(path.rsplit("/", 1)[-1])
        return super().pipe_file(path, value, *args, **kwargs)


def test_on_a_store_the_index_is_written_after_the_files_it_names(store):
    fsspec.register_implementation("recmem", _RecordingMemoryFileSystem, clobber=True)
    _RecordingMemoryFileSystem.written = []
    model_dir = f"recmem://run-{uuid.uuid4().hex}"
    manager = ckpt.CheckpointManager(model_dir, max_to_keep=1)
    import torch

    manager.save(1, {"w": torch.ones(2)})
    manager.save(2, {"w": torch.zeros(2)})
    written = [n for n in _RecordingMemoryFileSystem.written if not n.startswith(".")]
    assert written[:3] == ["model.ckpt-1.safetensors", "model.ckpt-1.json", "checkpoint"]
    assert written[3:5] == ["model.ckpt-2.safetensors", "model.ckpt-2.json"]
    assert written[5] == "checkpoint"  # then the old checkpoint is deleted, and the index again
    assert ckpt.latest_checkpoint(model_dir) == f"{model_dir}/model.ckpt-2"
    tensors, metadata = ckpt.load_checkpoint(model_dir)
    assert metadata["global_step"] == 2 and tensors["w"].tolist() == [0.0, 0.0]
    assert not _RecordingMemoryFileSystem().exists(model_dir[len("recmem://"):] + "/model.ckpt-1.json")


def test_event_files_in_the_store_are_read_by_tensorboard(store, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    model_dir = f"{store}/model"
    est = estimator(model_dir)
    est.train(train_input_fn, steps=10)
    est.evaluate(eval_input_fn)
    fs = fsspec.filesystem("memory")
    for sub in ("", "eval"):
        local = tmp_path / (sub or "train")
        local.mkdir()
        folder = model_dir[len("memory:/"):] + (f"/{sub}" if sub else "")
        for name in fs.ls(folder, detail=False):
            if os.path.basename(name).startswith("events.out.tfevents."):
                (local / os.path.basename(name)).write_bytes(fs.cat_file(name))
        acc = EventAccumulator(str(local))
        acc.Reload()
        tags = acc.Tags()["tensors"] + acc.Tags()["scalars"]
        assert "loss" in tags, (sub, tags)


def test_no_directory_lock_on_a_store_with_an_info_line(store, caplog):
    with caplog.at_level(logging.INFO, logger="torchestimator._engine.dir_lock"):
        estimator(f"{store}/model").train(train_input_fn, steps=1)
    assert "No write lock on memory://" in caplog.text and "object stores have no file locks" in caplog.text


def test_a_scheme_without_a_filesystem_is_refused_naming_it():
    with pytest.raises(tf.errors.UnimplementedError, match="nosuchscheme://"):
        estimator("nosuchscheme://bucket/run")


def test_file_urls_are_local_paths(tmp_path):
    est = estimator(f"file://{tmp_path}/model")
    assert est.model_dir == f"{tmp_path}/model"
    est.train(train_input_fn, steps=2)
    assert os.path.exists(tmp_path / "model" / "checkpoint")
    assert tf.train.latest_checkpoint(f"file://{tmp_path}/model") == f"{tmp_path}/model/model.ckpt-2"


def test_keras_saved_model_save_to_a_url_replaces_the_export_and_loads(store):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    target = f"{store}/keras-export"
    tf.saved_model.save(model, target)
    loaded = tf.saved_model.load(target)
    x = X[:4]
    np.testing.assert_allclose(np.asarray(next(iter(loaded(x).values()))), model(x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    # Saving again replaces the export whole (no file of the old one left beside the new).
    fs = fsspec.filesystem("memory")
    fs.pipe_file(target[len("memory:/"):] + "/stale.bin", b"old")
    tf.saved_model.save(model, target)
    assert "stale.bin" not in files_in(target) and "saved_model.json" in files_in(target)
    # A location holding something that is not an export is refused, naming it.
    fs.pipe_file(f"{store}/not-an-export/data.csv"[len("memory:/"):], b"x\n")
    with pytest.raises(ValueError, match="not-an-export.*holds no export"):
        tf.saved_model.save(model, f"{store}/not-an-export")


def test_an_export_still_uploading_is_not_loaded(store):
    fs = fsspec.filesystem("memory")
    # The data files of a version folder are there, its saved_model.json (uploaded last) is not.
    fs.pipe_file(f"{store}/export/1700000000/variables.safetensors"[len("memory:/"):], b"partial")
    assert not tf.saved_model.contains_saved_model(f"{store}/export/1700000000")
    with pytest.raises(FileNotFoundError, match="no complete export"):
        tf.saved_model.load(f"{store}/export/1700000000")
    with pytest.raises(FileNotFoundError, match="no complete export"):
        tf.saved_model.load(f"{store}/nothing-here")


def test_tf_train_checkpoint_and_its_manager_write_to_a_url(store):
    v = tf.Variable([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(v=v)
    path = checkpoint.save(f"{store}/ckpt")
    assert path == f"{store}/ckpt-1" and tf.train.latest_checkpoint(store) == path
    v.assign([0.0, 0.0])
    checkpoint.restore(path)
    assert v.numpy().tolist() == [1.0, 2.0]
    manager = tf.train.CheckpointManager(checkpoint, f"{store}/managed", max_to_keep=2)
    for _ in range(3):
        manager.save()
    assert manager.latest_checkpoint == f"{store}/managed/ckpt-4"
    assert tf.io.gfile.listdir(f"{store}/managed") == [
        "checkpoint", "ckpt-3.json", "ckpt-3.safetensors", "ckpt-4.json", "ckpt-4.safetensors"]

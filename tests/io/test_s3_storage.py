"""model_dir, exports and tf.data files on S3, against a real local S3-compatible server: moto in
server mode on a free loopback port, reached over HTTP by s3fs (the fsspec backend of `s3://`).
Never the internet. Skipped, saying which, when s3fs or moto's server is not installed
(`pip install -c constraints.txt 's3fs' 'moto[server]'`)."""

from __future__ import annotations

import gzip
import io
import logging
import os
import socket
import uuid

import numpy as np
import pytest

s3fs = pytest.importorskip("s3fs", reason="s3fs (the fsspec backend of s3://) is not installed")
moto_server = pytest.importorskip(
    "moto.server", reason="moto's server mode (pip install 'moto[server]') is not installed")

import fsspec  # noqa: E402

import torchestimator as tf  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def bucket():
    """`s3://<bucket>` on a moto server of this process, with fsspec's s3 settings pointing at it
    (restored afterwards)."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=_free_port(), verbose=False)
    server.start()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    host, port = server.get_host_and_port()
    saved_conf = fsspec.config.conf.get("s3")
    saved_env = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    fsspec.config.conf["s3"] = {"endpoint_url": f"http://{host}:{port}", "key": "testing",
                                "secret": "testing"}
    s3fs.S3FileSystem.clear_instance_cache()
    name = f"te-{uuid.uuid4().hex[:12]}"
    fsspec.filesystem("s3").mkdir(name)
    try:
        yield f"s3://{name}"
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        if saved_conf is None:
            fsspec.config.conf.pop("s3", None)
        else:
            fsspec.config.conf["s3"] = saved_conf
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.stop()


def _objects(url):
    fs = fsspec.filesystem("s3")
    fs.invalidate_cache()
    root = url[len("s3://"):].rstrip("/")
    return sorted(p[len(root) + 1:] for p in fs.find(root))


X = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
Y = X @ np.array([[1.0], [2.0], [-1.0]], np.float32)
COLUMNS = [tf.feature_column.numeric_column("x", shape=(3,))]


def _train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def _predict_input_fn():
    return tf.data.Dataset.from_tensor_slices({"x": X[:4]}).batch(4)


def _estimator(model_dir):
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=0, log_step_count_steps=None)
    return tf.estimator.LinearRegressor(COLUMNS, model_dir=model_dir, config=config)


@pytest.mark.slow  # 3 s on an idle 2-core box, over 20 s on a loaded one (two exports over HTTP)
def test_estimator_on_s3_trains_resumes_evaluates_exports_and_loads(bucket, tmp_path):
    model_dir = f"{bucket}/runs/linear"
    est = _estimator(model_dir)
    est.train(_train_input_fn, steps=7)
    names = _objects(model_dir)
    assert {"checkpoint", "model.ckpt-5.json", "model.ckpt-5.safetensors", "model.ckpt-7.json",
            "model.ckpt-7.safetensors"} <= set(names)
    assert any(n.startswith("events.out.tfevents.") for n in names) and ".lock" not in names
    assert tf.train.latest_checkpoint(model_dir) == f"{model_dir}/model.ckpt-7"

    # A restarted job (a new Estimator, fresh listings) resumes from S3.
    s3fs.S3FileSystem.clear_instance_cache()
    again = _estimator(model_dir)
    again.train(_train_input_fn, steps=3)
    assert again.latest_checkpoint() == f"{model_dir}/model.ckpt-10"
    metrics = again.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(32))
    assert int(metrics["global_step"]) == 10
    predictions = np.concatenate([p["predictions"] for p in again.predict(_predict_input_fn)])

    local = _estimator(str(tmp_path / "local"))  # the same two calls on a local disk
    local.train(_train_input_fn, steps=7)
    local.train(_train_input_fn, steps=3)
    expected = np.concatenate([p["predictions"] for p in local.predict(_predict_input_fn)])
    np.testing.assert_allclose(predictions, expected, rtol=1e-6)

    spec = tf.feature_column.make_parse_example_spec(COLUMNS)
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    export = again.export_saved_model(f"{model_dir}/export", receiver).decode()
    assert export.startswith(f"{model_dir}/export/")
    assert "saved_model.json" in _objects(export)
    loaded = tf.saved_model.load(export)
    rows = [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[float(v) for v in r]))
    })).SerializeToString() for r in X[:4]]
    out = loaded.signatures["predict"](examples=np.array(rows, dtype=object))
    np.testing.assert_allclose(np.asarray(out["predictions"]).reshape(-1), predictions.reshape(-1),
                               rtol=1e-5, atol=1e-6)
    # A second export gets a later version folder (above every one present, as TF numbers them).
    second = again.export_saved_model(f"{model_dir}/export", receiver).decode()
    assert int(second.rsplit("/", 1)[1]) > int(export.rsplit("/", 1)[1])
    assert tf.saved_model.contains_saved_model(second)

    # Warm start from the checkpoint on S3 into a local model_dir.
    warm = tf.estimator.LinearRegressor(COLUMNS, model_dir=str(tmp_path / "warm"), warm_start_from=model_dir)
    warmed = np.concatenate([p["predictions"] for p in warm.predict(_predict_input_fn)])
    np.testing.assert_allclose(warmed, predictions, rtol=1e-6)


def test_tf_data_readers_on_s3(bucket, tmp_path):
    data = f"{bucket}/data"
    with tf.io.gfile.GFile(f"{data}/a.csv", "w") as f:
        f.write("x,label\n1.0,0\n2.0,1\n")
    with tf.io.gfile.GFile(f"{data}/b.csv.gz", "wb") as f:
        f.write(gzip.compress(b"x,label\n3.0,1\n"))
    with tf.io.gfile.GFile(f"{data}/lines.txt", "w") as f:
        f.write("alpha\nbeta\n")
    local = tmp_path / "r.tfrecord"
    with tf.io.TFRecordWriter(str(local)) as writer:
        for i in range(5):
            writer.write(f"rec{i}".encode())
    tf.io.gfile.copy(str(local), f"{data}/r.tfrecord")

    ds = tf.data.experimental.make_csv_dataset(f"{data}/*.csv", batch_size=8, label_name="label",
                                               num_epochs=1, shuffle=False)
    features, labels = next(iter(ds))
    assert np.asarray(features["x"]).tolist() == [1.0, 2.0] and np.asarray(labels).tolist() == [0, 1]
    gz = tf.data.experimental.make_csv_dataset(f"{data}/b.csv.gz", batch_size=8, num_epochs=1,
                                               shuffle=False, compression_type="GZIP")
    assert np.asarray(next(iter(gz))["x"]).tolist() == [3.0]
    lines = [x.decode() if isinstance(x, bytes) else x
             for x in tf.data.TextLineDataset(f"{data}/lines.txt").as_numpy_iterator()]
    assert lines == ["alpha", "beta"]
    records = list(tf.data.TFRecordDataset(f"{data}/*.tfrecord").as_numpy_iterator())
    assert records == [f"rec{i}".encode() for i in range(5)]
    names = [n.decode() if isinstance(n, bytes) else n
             for n in tf.data.Dataset.list_files(f"{data}/*", shuffle=False).as_numpy_iterator()]
    assert names == [f"{data}/{n}" for n in ("a.csv", "b.csv.gz", "lines.txt", "r.tfrecord")]
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({"x": np.arange(4, dtype=np.float32)}), buffer)
    with tf.io.gfile.GFile(f"{data}/p/t.parquet", "wb") as f:
        f.write(buffer.getvalue())
    parquet = tf.data.experimental.make_parquet_dataset(f"{data}/p/*.parquet", batch_size=8, num_epochs=1,
                                                        shuffle=False)
    assert np.asarray(next(iter(parquet))["x"]).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(FileNotFoundError, match="nothing"):
        tf.data.TextLineDataset(f"{data}/nothing-*.txt")

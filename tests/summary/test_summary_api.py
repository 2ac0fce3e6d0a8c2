"""`tf.summary` (TF2) and `tf.compat.v1.summary`: what they write, read back with TensorBoard's
own EventAccumulator; model_fn histograms/images/text/audio written by the SummarySaverHook."""

from __future__ import annotations

import os

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import torchestimator as tf


def _accumulator(logdir) -> EventAccumulator:
    acc = EventAccumulator(str(logdir), size_guidance={"tensors": 0, "images": 0, "audio": 0,
                                                       "histograms": 0, "scalars": 0})
    acc.Reload()
    return acc


@pytest.fixture(autouse=True)
def _no_default_step():
    yield
    tf.summary.experimental.set_step(None)


def test_tf2_summaries_in_a_default_writer(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf.summary.should_record_summaries()
        for step in range(3):
            assert tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        assert tf.summary.histogram("weights", np.arange(100.0), step=2)
        assert tf.summary.image("img", np.zeros((2, 4, 4, 3), "float32"), step=1)
        assert tf.summary.text("note", "hello **world**", step=0)
        assert tf.summary.audio("clip", np.zeros((1, 80, 1), "float32"), 8000, step=0)
    writer.close()
    acc = _accumulator(tmp_path)
    tags = acc.Tags()["tensors"]
    assert {"loss", "weights", "img", "note", "clip"} <= set(tags)
    losses = [(e.step, float(np.asarray(acc.Tensors("loss")[i].tensor_proto.float_val or
                                         [tf.io.parse_tensor(e.tensor_proto.SerializeToString(), tf.float32)])[0]))
              for i, e in enumerate(acc.Tensors("loss"))]
    assert [s for s, _ in losses] == [0, 1, 2]


def test_the_default_step_record_if_and_no_writer(tmp_path):
    assert not tf.summary.scalar("x", 1.0, step=0)  # no default writer: nothing, False
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set. Please specify one either through the "
                                             "`step` argument or through tf.summary.experimental.set_step"):
            tf.summary.scalar("x", 1.0)
        tf.summary.experimental.set_step(7)
        assert tf.summary.experimental.get_step() == 7
        assert tf.summary.scalar("x", 1.0)
        with tf.summary.record_if(False):
            assert not tf.summary.should_record_summaries()
            assert not tf.summary.scalar("y", 2.0)
        with tf.summary.record_if(lambda: True):
            assert tf.summary.scalar("z", 3.0)
    writer.close()
    acc = _accumulator(tmp_path)
    assert [e.step for e in acc.Tensors("x")] == [7]
    assert "y" not in acc.Tags()["tensors"] and "z" in acc.Tags()["tensors"]
    with tf.summary.create_noop_writer().as_default():
        assert not tf.summary.scalar("x", 1.0, step=0)


def _model_fn(features, labels, mode):
    dense = tf.keras.layers.Dense(1, name="out")
    logits = dense(features["x"])
    tf.compat.v1.summary.histogram("logits", logits)
    tf.compat.v1.summary.image("inputs", tf.reshape(features["x"][:2], [2, 2, 2, 1]))
    tf.compat.v1.summary.text("mode", tf.constant(mode))
    tf.summary.histogram("kernel", dense.kernel)
    loss = tf.reduce_mean(tf.square(logits[:, 0] - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_model_fn_histograms_images_and_text_reach_tensorboard(tmp_path):
    x = np.random.RandomState(0).rand(32, 4).astype("float32")
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(save_summary_steps=2))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1))).batch(8).repeat(),
              steps=4)
    acc = _accumulator(tmp_path)
    tensors = acc.Tags()["tensors"]
    assert {"logits", "kernel", "inputs", "mode"} <= set(tensors), tensors
    assert [e.step for e in acc.Tensors("logits")] == [1, 3]


def test_v1_file_writer_writes_summary_protos(tmp_path):
    v1 = tf.compat.v1
    with v1.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(v1.Summary(value=[v1.Summary.Value(tag="acc", simple_value=0.75)]), 3)
        writer.add_summary(v1.Summary(value=[v1.Summary.Value(tag="acc", simple_value=0.8)])
                           .SerializeToString(), 4)
        writer.add_graph(v1.GraphDef())
    acc = _accumulator(tmp_path)
    assert [(e.step, round(e.value, 3)) for e in acc.Scalars("acc")] == [(3, 0.75), (4, 0.8)]
    assert v1.summary.FileWriterCache.get(str(tmp_path / "c")) is v1.summary.FileWriterCache.get(
        str(tmp_path / "c"))
    v1.summary.FileWriterCache.clear()
    assert os.listdir(tmp_path / "c")


def test_profiler_trace_is_exported(tmp_path):
    tf.summary.trace_on(graph=True, profiler=True)
    tf.matmul(tf.ones([8, 8]), tf.ones([8, 8]))
    tf.summary.trace_export("step", profiler_outdir=str(tmp_path))
    traces = [os.path.join(d, f) for d, _, files in os.walk(tmp_path) for f in files]
    assert len(traces) == 1 and traces[0].endswith("step.pt.trace.json")
    assert "plugins/profile" in traces[0].replace(os.sep, "/")

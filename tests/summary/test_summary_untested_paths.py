"""`tf.summary` paths no other test runs: `write`, `experimental.write_raw_pb`, `graph`,
`SummaryWriter.set_as_default`, `flush`, `experimental.summary_scope`, `trace_off`; each result
is read back from the event file with TensorBoard's own reader."""

from __future__ import annotations

import glob

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import graph_pb2, summary_pb2
from tensorboard.util import tensor_util

import torchestimator as tf
from torchestimator.summary import _summary


@pytest.fixture(autouse=True)
def _restore_default_writer():
    previous = getattr(_summary._STATE, "writer", None)
    yield
    _summary._STATE.writer = previous
    tf.summary.experimental.set_step(None)


def _events(logdir) -> list:
    (path,) = glob.glob(f"{logdir}/events.out.tfevents.*")
    return [e for e in tf.compat.v1.train.summary_iterator(path) if e.HasField("summary")
            or e.graph_def]


def test_write_with_serialized_metadata_and_set_as_default_step(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.set_as_default(step=7)
    assert tf.summary.experimental.get_step() == 7
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = "custom"
    assert tf.summary.write("t", tf.constant([1.0, 2.5]), metadata=metadata.SerializeToString())
    assert tf.summary.write("lazy", lambda: tf.constant(3), step=9)
    tf.summary.flush()
    writer.close()
    (first, second) = _events(tmp_path)
    assert first.step == 7 and second.step == 9
    value = first.summary.value[0]
    assert value.tag == "t" and value.metadata.plugin_data.plugin_name == "custom"
    np.testing.assert_allclose(tensor_util.make_ndarray(value.tensor), [1.0, 2.5])
    assert tensor_util.make_ndarray(second.summary.value[0].tensor) == 3


def test_write_without_a_default_writer_returns_false():
    _summary._STATE.writer = None
    assert tf.summary.write("t", 1.0, step=0) is False
    assert tf.summary.experimental.write_raw_pb(b"", step=0) is False


def test_write_raw_pb_bytes_and_string_tensors(tmp_path):
    raw = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="raw", simple_value=3.5)])
    other = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="other", simple_value=-1.0)])
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf.summary.experimental.write_raw_pb(raw.SerializeToString(), step=3)
        # a string tensor, as TF users pass it (here a numpy object array)
        assert tf.summary.experimental.write_raw_pb(tf.constant(raw.SerializeToString()), step=4)
        assert tf.summary.experimental.write_raw_pb(
            tf.constant([raw.SerializeToString(), other.SerializeToString()]), step=5)
        with pytest.raises(TypeError, match="serialized Summary"):
            tf.summary.experimental.write_raw_pb(tf.constant([1.0]), step=6)
    writer.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("raw")] == [(3, 3.5), (4, 3.5), (5, 3.5)]
    assert [(e.step, e.value) for e in acc.Scalars("other")] == [(5, -1.0)]


def test_graph_writes_the_graph_def(tmp_path):
    graph = graph_pb2.GraphDef()
    node = graph.node.add()
    node.name, node.op = "a", "Const"
    _summary._STATE.writer = None
    assert tf.summary.graph(graph) is False  # no default writer
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf.summary.graph(graph)
        with pytest.raises(ValueError, match="GraphDef"):
            tf.summary.graph("not a graph")
    writer.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["graph"]
    assert [n.name for n in acc.Graph().node] == ["a"]


def test_summary_scope_yields_tag_and_scope():
    with tf.summary.experimental.summary_scope("loss", "default", []) as (tag, scope):
        assert (tag, scope) == ("loss", "loss")
    with tf.summary.experimental.summary_scope(None, "default") as (tag, scope):
        assert tag == "default"
    with pytest.raises(ValueError, match="name"):
        with tf.summary.experimental.summary_scope(None):
            pass


def test_trace_off_discards_the_profile(tmp_path):
    tf.summary.trace_on(profiler=True, profiler_outdir=str(tmp_path))
    tf.summary.trace_off()
    tf.summary.trace_export("nothing", profiler_outdir=str(tmp_path))  # nothing left to export
    assert not glob.glob(f"{tmp_path}/**/*.json", recursive=True)
    tf.summary.trace_on(profiler=True)  # a new trace may start: the previous one was stopped
    tf.summary.trace_off()

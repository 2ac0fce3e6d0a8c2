"""The TensorBoard event-file writer, read back with TensorBoard's own EventAccumulator."""

import glob
import os
import re
import socket
import struct
import zlib

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.plugins.histogram import summary_v2 as histogram_v2
from tensorboard.util import tensor_util

from torchestimator._engine.summary import SummaryWriter, encode_png, histogram_buckets


def _load(logdir):
    acc = EventAccumulator(str(logdir), size_guidance={"tensors": 0, "scalars": 0})
    acc.Reload()
    return acc


def _tensor_values(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def test_file_name_as_tf2_names_it(tmp_path):
    with SummaryWriter(tmp_path / "train") as writer:
        writer.scalar("epoch_loss", 1.0, step=0)
    (name,) = os.listdir(tmp_path / "train")
    host = re.escape(socket.gethostname())
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{os.getpid()}\.\d+\.v2", name)


def test_scalars_read_back_by_step(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.scalar("epoch_loss", 0.5, step=0)
        writer.scalar("epoch_loss", torch.tensor(0.25), step=1)
        writer.scalar("epoch_loss", np.float32(0.125), step=2)
        writer.scalar("epoch_accuracy", 1, step=0)
    acc = _load(tmp_path)
    assert set(acc.Tags()["tensors"]) == {"epoch_loss", "epoch_accuracy"}
    values = _tensor_values(acc, "epoch_loss")
    assert [s for s, _ in values] == [0, 1, 2]
    np.testing.assert_allclose([float(v) for _, v in values], [0.5, 0.25, 0.125])
    # TF 2 format: a float32 tensor with the scalars plugin's metadata
    assert values[0][1].dtype == np.float32
    assert acc.SummaryMetadata("epoch_loss").plugin_data.plugin_name == "scalars"


def test_legacy_scalar_is_simple_value(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.scalar("loss", 2.5, step=7, legacy=True)
    acc = _load(tmp_path)
    (event,) = acc.Scalars("loss")
    assert (event.step, event.value) == (7, 2.5)


def test_histogram_matches_tensorboard_reference(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(40, 7)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        writer.histogram("dense/kernel_0/histogram", torch.from_numpy(data), step=3)
        writer.histogram("const", np.full(5, 2.0), step=0, buckets=4)
    acc = _load(tmp_path)
    ((step, table),) = _tensor_values(acc, "dense/kernel_0/histogram")
    assert step == 3
    reference = tensor_util.make_ndarray(histogram_v2.histogram_pb("x", data).value[0].tensor)
    np.testing.assert_allclose(table, reference)
    assert table.shape == (30, 3) and table[:, 2].sum() == data.size
    assert acc.SummaryMetadata("const").plugin_data.plugin_name == "histograms"
    ((_, const),) = _tensor_values(acc, "const")
    np.testing.assert_array_equal(const, [[2, 2, 0], [2, 2, 0], [2, 2, 0], [2, 2, 5]])


def test_histogram_buckets_edge_cases():
    np.testing.assert_array_equal(histogram_buckets([], 3), np.zeros((3, 3)))
    table = histogram_buckets(torch.tensor([0.0, 1.0]), 2)
    np.testing.assert_array_equal(table, [[0, 0.5, 1], [0.5, 1, 1]])
    # non-finite values are not hidden behind the finite rest: the edges become NaN
    table = histogram_buckets(torch.tensor([0.0, float("nan"), 1.0, float("inf")]), 2)
    assert np.isnan(table[:, :2]).all() and table[:, 2].tolist() == [0, 4]
    table = histogram_buckets(torch.arange(4), 2)  # integer tensors are counted too
    np.testing.assert_array_equal(table[:, 2], [2, 2])


def test_text_and_keras_model(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.text("notes", "**hello**", step=1)
        writer.keras_model("keras", '{"class_name": "Sequential"}', step=0)
    acc = _load(tmp_path)
    ((_, text),) = _tensor_values(acc, "notes")
    assert text.item() == b"**hello**"
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"
    meta = acc.SummaryMetadata("keras").plugin_data
    assert (meta.plugin_name, meta.content) == ("graph_keras_model", b"1")


def test_image_is_png(tmp_path):
    image = np.linspace(0, 1, 12, dtype=np.float32).reshape(1, 3, 4, 1)
    with SummaryWriter(tmp_path) as writer:
        writer.image("w/image", image, step=0)
    acc = _load(tmp_path)
    ((_, content),) = _tensor_values(acc, "w/image")
    assert content[0] == b"4" and content[1] == b"3"  # width, height
    png = content[2]
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height, depth, color = struct.unpack(">IIBB", png[16:26])
    assert (width, height, depth, color) == (4, 3, 8, 0)
    idat_len = struct.unpack(">I", png[33:37])[0]
    raw = zlib.decompress(png[41 : 41 + idat_len])
    rows = [raw[i * 5 + 1 : i * 5 + 5] for i in range(3)]  # filter byte + 4 pixels
    expected = (np.clip(image[0, :, :, 0], 0, 1) * 255.5).astype(np.uint8)
    assert [list(r) for r in rows] == expected.tolist()


def test_encode_png_rgba_header():
    png = encode_png(np.zeros((2, 2, 4), dtype=np.uint8))
    assert struct.unpack(">IIBB", png[16:26]) == (2, 2, 8, 6)


def test_flush_makes_events_visible_before_close(tmp_path):
    writer = SummaryWriter(tmp_path)
    writer.scalar("a", 1.0, step=0)
    writer.flush()
    assert _tensor_values(_load(tmp_path), "a")
    writer.close()
    writer.close()  # closing twice is fine
    assert writer.closed


def test_errors(tmp_path):
    writer = SummaryWriter(tmp_path / "d")
    with pytest.raises(ValueError, match="single number"):
        writer.scalar("x", torch.ones(3), step=0)
    with pytest.raises(TypeError, match="expected a number"):
        writer.scalar("x", "high", step=0)
    with pytest.raises(TypeError, match="`step` must be an int"):
        writer.scalar("x", 1.0, step=1.5)
    with pytest.raises(ValueError, match="non-empty str"):
        writer.scalar("", 1.0, step=0)
    with pytest.raises(ValueError, match="`buckets` must be a positive int"):
        writer.histogram("h", [1.0], step=0, buckets=0)
    with pytest.raises(TypeError, match="expected numbers"):
        writer.histogram("h", ["a", "b"], step=0)
    with pytest.raises(ValueError, match=r"\[k, h, w, c\]"):
        writer.image("i", np.zeros((2, 2)), step=0)
    with pytest.raises(TypeError, match="uint8"):
        writer.image("i", np.zeros((2, 2, 1), dtype=np.int32), step=0)
    with pytest.raises(TypeError, match="expected a str"):
        writer.text("t", 3, step=0)
    writer.close()
    with pytest.raises(RuntimeError, match="is closed"):
        writer.scalar("x", 1.0, step=0)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        SummaryWriter(not_a_dir)
    assert len(glob.glob(str(tmp_path / "d" / "events.out.tfevents.*"))) == 1


def test_histogram_counted_in_chunks_matches_reference(monkeypatch):
    import torchestimator._engine.summary as summary_module

    monkeypatch.setattr(summary_module, "_HISTOGRAM_CHUNK", 7)
    data = np.random.default_rng(1).normal(size=1000)
    reference = tensor_util.make_ndarray(histogram_v2.histogram_pb("x", data).value[0].tensor)
    np.testing.assert_array_equal(histogram_buckets(torch.from_numpy(data)), reference)
    bools = histogram_buckets(torch.tensor([True, False, True]), 2)
    np.testing.assert_array_equal(bools, [[0, 0.5, 1], [0.5, 1, 2]])

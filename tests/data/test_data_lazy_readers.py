"""`tf.data`'s file readers load on first use: an in-memory pipeline never imports PyArrow."""

import subprocess
import sys

import pytest

import torchestimator as tf


def test_file_readers_resolve_on_first_access():
    from torchestimator.data import experimental

    assert tf.data.experimental is experimental
    assert tf.data.experimental.make_csv_dataset.__name__ == "make_csv_dataset"
    for name in ("CsvDataset", "TextLineDataset", "TFRecordDataset"):
        assert getattr(tf.data, name).__name__ == name
        assert name in dir(tf.data)
    assert "experimental" in dir(tf.data)


def test_unknown_name_raises_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="NoSuchDataset"):
        tf.data.NoSuchDataset  # noqa: B018


def test_in_memory_pipeline_does_not_import_pyarrow():
    code = (
        "import sys, numpy as np, torchestimator as tf\n"
        "ds = tf.data.Dataset.from_tensor_slices(({'x': np.arange(10.0)}, np.arange(10)))\n"
        "batches = list(ds.shuffle(10, seed=1).repeat(2).batch(4))\n"
        "assert len(batches) == 5, len(batches)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pyarrow'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout

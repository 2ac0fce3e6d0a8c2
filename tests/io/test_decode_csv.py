"""`tf.io.decode_csv` against TF 2.15's answers (recorded by hand from tensorflow-cpu 2.15.1 on
the same records: the values, dtypes and error texts below)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf


def test_types_defaults_and_quotes_as_tf():
    out = tf.io.decode_csv(tf.constant(["1,2.5,a", '3,,"b,c"', ",4e3,"]), [[0], [0.0], ["z"]])
    assert out[0].tolist() == [1, 3, 0] and out[0].dtype == torch.int32
    assert out[1].tolist() == [2.5, 0.0, 4000.0] and out[1].dtype == torch.float32
    assert list(out[2]) == ["a", "b,c", "z"]


def test_select_cols_delimiter_and_a_required_int64_column_keep_the_records_shape():
    out = tf.io.decode_csv(tf.constant([["1;x;7", "2;y;8"]]),
                           [tf.constant([], tf.int64), [7]], field_delim=";", select_cols=[0, 2])
    assert out[0].tolist() == [[1, 2]] and out[0].dtype == torch.int64
    assert out[1].tolist() == [[7, 8]] and out[1].dtype == torch.int32


def test_na_value_takes_the_default():
    out = tf.io.decode_csv(tf.constant(["NA,1"]), [[5], [0]], na_value="NA")
    assert [o.tolist() for o in out] == [[5], [1]]


@pytest.mark.parametrize("records, defaults, message", [
    (["1,2"], [[0], [0], [0]], "Expect 3 fields but have 2 in record 0"),
    (["1,,3"], [[0], tf.constant([], tf.float32), [0]], "Field 1 is required but missing in record 0!"),
    (["1,x"], [[0], [0.0]], "Field 1 in record 0 is not a valid float: x"),
])
def test_tfs_errors(records, defaults, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.io.decode_csv(tf.constant(records), defaults)


def test_a_text_line_dataset_parses_with_it(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,0.5\n2,1.5\n")
    ds = tf.data.TextLineDataset(str(path)).batch(2).map(
        lambda line: tuple(tf.io.decode_csv(line, [[0], [0.0]])))
    (ids, values), = list(ds)
    assert ids.tolist() == [1, 2] and values.tolist() == [0.5, 1.5]

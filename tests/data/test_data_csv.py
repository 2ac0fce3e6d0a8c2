"""make_csv_dataset, CsvDataset and TextLineDataset on real files (Iris and small ones)."""

import collections
import gzip
import zlib

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.datasets import iris

make_csv_dataset = tf.data.experimental.make_csv_dataset


def collect(ds):
    """All rows of a batched (features, label) or features dataset, column by column."""
    cols = collections.defaultdict(list)
    for element in ds.as_numpy_iterator():
        features, label = element if isinstance(element, tuple) else (element, None)
        for k, v in features.items():
            cols[k].extend(np.asarray(v).tolist())
        if label is not None:
            cols["__label__"].extend(np.asarray(label).tolist())
    return dict(cols)


def test_iris_batches_structure_and_types():
    ds = make_csv_dataset(iris.csv_path(), batch_size=32, label_name="Species",
                          num_epochs=1, shuffle=False)
    features, labels = next(iter(ds))
    assert list(features) == ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
    assert isinstance(features, collections.OrderedDict)
    assert features["SepalLength"].dtype == torch.float32 and features["SepalLength"].shape == (32,)
    assert labels.dtype == torch.int32
    assert float(features["SepalLength"][0]) == pytest.approx(5.1)
    spec = ds.element_spec
    assert spec[0]["PetalWidth"] == tf.TensorSpec((None,), tf.float32)
    assert spec[1] == tf.TensorSpec((None,), tf.int32)
    rows = collect(ds)
    assert len(rows["__label__"]) == 150 and sorted(set(rows["__label__"])) == [0, 1, 2]
    assert [len(b[1]) for b in ds] == [32, 32, 32, 32, 22]


def test_iris_repeat_forever_drops_remainder_and_shuffles():
    ds = make_csv_dataset(iris.csv_path(), batch_size=32, label_name="Species", shuffle_seed=1)
    assert ds.cardinality() == tf.data.INFINITE_CARDINALITY
    assert ds.element_spec[1].shape == (32,)
    sizes = [len(label) for _, label in ds.take(12)]
    assert sizes == [32] * 12
    one_epoch = make_csv_dataset(iris.csv_path(), batch_size=150, label_name="Species",
                                 num_epochs=1, shuffle_seed=1)
    labels = next(iter(one_epoch))[1].tolist()
    assert labels != sorted(labels) and sorted(labels) == [0] * 50 + [1] * 50 + [2] * 50


def test_inferred_types_defaults_and_na(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("i,big,f,s,empty\n1,3000000000,1.5,x,\n,2,,y,\n3,4,2,NA,\n")
    ds = make_csv_dataset(str(path), batch_size=10, num_epochs=1, shuffle=False, na_value="NA")
    spec = ds.element_spec
    assert [spec[k].dtype for k in ("i", "big", "f", "s", "empty")] == \
        [torch.int32, torch.int64, torch.float32, tf.string, tf.string]
    rows = collect(ds)
    assert rows["i"] == [1, 0, 3] and rows["f"] == [1.5, 0.0, 2.0]
    assert rows["s"] == ["x", "y", ""] and rows["empty"] == ["", "", ""]


def test_column_defaults_select_columns_and_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("1,a,2.5\n2,b,\n")
    ds = make_csv_dataset(str(path), batch_size=5, column_names=["n", "s", "x"], header=False,
                          column_defaults=[tf.int64, "", 9.0], num_epochs=1, shuffle=False)
    rows = collect(ds)
    assert rows == {"n": [1, 2], "s": ["a", "b"], "x": [2.5, 9.0]}
    assert ds.element_spec["n"].dtype == torch.int64
    sel = make_csv_dataset(str(path), batch_size=5, column_names=["n", "s", "x"], header=False,
                           select_columns=["x", 0], label_name="x", num_epochs=1, shuffle=False)
    features, label = next(iter(sel))
    assert list(features) == ["n"] and label.tolist() == [2.5, 0.0]


def test_required_column_missing_value_names_file_and_line(tmp_path):
    path = tmp_path / "req.csv"
    path.write_text("a,b\n1,2\n3,\n")
    ds = make_csv_dataset(str(path), batch_size=5, column_defaults=[tf.int32, tf.int32],
                          num_epochs=1, shuffle=False)
    with pytest.raises(ValueError, match=r"req\.csv:3: column 1 \('b'\) is required but missing"):
        list(ds)


def test_bad_rows_raise_with_file_and_line(tmp_path):
    fields = tmp_path / "fields.csv"
    fields.write_text("a,b\n1,2\n3\n5,6\n")
    with pytest.raises(ValueError, match=r"fields\.csv:3: expected 2 fields but found 1"):
        list(make_csv_dataset(str(fields), 2, column_defaults=[0, 0], num_epochs=1))
    value = tmp_path / "value.csv"
    value.write_text("a,b\n" + "".join(f"{i},{i}\n" for i in range(200)) + "7,oops\n")
    # 'oops' is past the 100 inference rows: b is int32, and the row is an error.
    with pytest.raises(ValueError, match=r"value\.csv:202: column 1 \('b'\) has value 'oops'"):
        list(make_csv_dataset(str(value), 50, num_epochs=1, shuffle=False))


def test_ignore_errors_skips_and_warns(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n" + "".join(f"{i},{i}\n" for i in range(150)) + "x,1\n1\n150,150\n")
    ds = make_csv_dataset(str(path), batch_size=1000, num_epochs=1, shuffle=False,
                          ignore_errors=True)
    with pytest.warns(UserWarning, match=r"Skipped 2 invalid row\(s\) of .*bad\.csv"):
        rows = collect(ds)
    assert rows["a"] == list(range(151)) and rows["b"] == list(range(151))


def test_empty_and_header_only_files_give_empty_datasets(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("a,b\n")
    for pattern in ("empty.csv", "header.csv", "*.csv"):
        ds = make_csv_dataset(str(tmp_path / pattern), 4, num_epochs=1)
        assert list(ds) == []
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    assert collect(make_csv_dataset(str(tmp_path / "*.csv"), 4, num_epochs=1)) == \
        {"a": [1], "b": [2]}


def test_argument_errors_list_what_exists(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"`label_name` 'c' is not one of .*\['a', 'b'\]"):
        make_csv_dataset(str(path), 2, label_name="c")
    with pytest.raises(ValueError, match=r"`select_columns` entry 'z' .*\['a', 'b'\]"):
        make_csv_dataset(str(path), 2, select_columns=["a", "z"])
    with pytest.raises(ValueError, match="out of range"):
        make_csv_dataset(str(path), 2, select_columns=[5])
    with pytest.raises(ValueError, match=r"No files matched pattern .*missing-\*\.csv"):
        make_csv_dataset(str(tmp_path / "missing-*.csv"), 2)
    with pytest.raises(ValueError, match="without a header"):
        make_csv_dataset(str(path), 2, header=False)
    with pytest.raises(ValueError, match="duplicate column names"):
        make_csv_dataset(str(path), 2, column_names=["a", "a"])
    with pytest.raises(ValueError, match="one entry per selected column"):
        make_csv_dataset(str(path), 2, column_defaults=[0])
    with pytest.raises(ValueError, match="compression_type"):
        make_csv_dataset(str(path), 2, compression_type="BZ2")
    other = tmp_path / "u.csv"
    other.write_text("a,c\n1,2\n")
    with pytest.raises(ValueError, match="different column names"):
        make_csv_dataset(str(tmp_path / "*.csv"), 2)


def test_quotes_delimiters_and_compression(tmp_path):
    text = 'name|note\n"Smith, J"|"said ""hi"""\nLee|"two\nlines"\n'
    (tmp_path / "q.csv").write_text(text)
    rows = collect(make_csv_dataset(str(tmp_path / "q.csv"), 5, field_delim="|", num_epochs=1,
                                    shuffle=False))
    assert rows == {"name": ["Smith, J", "Lee"], "note": ['said "hi"', "two\nlines"]}
    data = b"a,b\n1,x\n2,y\n"
    (tmp_path / "g.csv.gz").write_bytes(gzip.compress(data))
    (tmp_path / "z.csv.z").write_bytes(zlib.compress(data))
    for name, kind in (("g.csv.gz", "GZIP"), ("z.csv.z", "ZLIB")):
        rows = collect(make_csv_dataset(str(tmp_path / name), 5, num_epochs=1, shuffle=False,
                                        compression_type=kind))
        assert rows == {"a": [1, 2], "b": ["x", "y"]}


def test_utf8_byte_order_mark_is_not_part_of_the_data(tmp_path):
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbfa,b\n1,2\n")
    rows = collect(make_csv_dataset(str(tmp_path / "bom.csv"), 2, num_epochs=1))
    assert rows == {"a": [1], "b": [2]}


def test_parallel_reads_cover_all_files(tmp_path):
    for k in range(5):
        (tmp_path / f"p{k}.csv").write_text(
            "v\n" + "".join(f"{k * 1000 + i}\n" for i in range(300)))
    for sloppy in (False, True):
        ds = make_csv_dataset(str(tmp_path / "p*.csv"), batch_size=64, num_epochs=2,
                              num_parallel_reads=3, sloppy=sloppy, shuffle_seed=0)
        values = collect(ds)["v"]
        assert sorted(values) == sorted([k * 1000 + i for k in range(5) for i in range(300)] * 2)


def test_csv_dataset_records_and_selection(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("abcdefg,4.28E10,5.55E6,12\nhijklmn,-5.3E14,,2\n")
    ds = tf.data.experimental.CsvDataset(
        str(path), [tf.float32, torch.tensor([0.0]), tf.int32], select_cols=[1, 2, 3])
    rows = list(ds.as_numpy_iterator())
    assert rows[1][1] == 0.0 and rows[0][2] == 12
    assert rows[0][0] == pytest.approx(4.28e10)
    assert ds.element_spec == (tf.TensorSpec((), tf.float32), tf.TensorSpec((), tf.float32),
                               tf.TensorSpec((), tf.int32))
    header = tmp_path / "h.csv"
    header.write_text("x,y\n1,a\n2,b\n")
    both = tf.data.experimental.CsvDataset(str(header), [tf.int64, ""], header=True)
    assert list(both.as_numpy_iterator()) == [(1, "a"), (2, "b")]
    batched = next(iter(both.batch(2)))
    assert batched[0].tolist() == [1, 2] and batched[1].tolist() == ["a", "b"]
    excluded = tf.data.experimental.CsvDataset(str(header), [""], header=True, exclude_cols=[0])
    assert list(excluded.as_numpy_iterator()) == ["a", "b"] or \
        list(excluded.as_numpy_iterator()) == [("a",), ("b",)]
    with pytest.raises(ValueError, match="record_defaults"):
        tf.data.experimental.CsvDataset(str(header), [])
    with pytest.raises(TypeError, match="float32, float64, int32, int64 or string"):
        tf.data.experimental.CsvDataset(str(header), [tf.bool, ""])


def test_text_line_dataset(tmp_path):
    (tmp_path / "a.txt").write_text("first\nsecond\r\n\nlast")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"g1\ng2\n"))
    ds = tf.data.TextLineDataset(str(tmp_path / "a.txt"))
    assert list(ds.as_numpy_iterator()) == ["first", "second", "", "last"]
    assert ds.element_spec == tf.TensorSpec((), tf.string)
    gz = tf.data.TextLineDataset([str(tmp_path / "b.txt.gz")], compression_type="GZIP")
    assert list(gz.as_numpy_iterator()) == ["g1", "g2"]
    lines = tf.data.TextLineDataset(str(tmp_path / "a.txt"), buffer_size=3).batch(3)
    assert [b.tolist() for b in lines.as_numpy_iterator()] == [["first", "second", ""], ["last"]]
    parsed = tf.data.TextLineDataset(iris.csv_path()).skip(1).map(
        lambda line: torch.tensor([float(v) for v in line.split(",")]))
    assert next(iter(parsed.batch(150))).shape == (150, 5)
    with pytest.raises(ValueError, match="No files matched"):
        tf.data.TextLineDataset(str(tmp_path / "*.nothing"))


def test_a_field_longer_than_pythons_csv_limit_is_read(tmp_path):
    """Python's csv module stops at 131,072-byte fields; TF (and PyArrow) read them: inference,
    the header and the row-by-row reader (which names the file and line of a bad row) too."""
    path = tmp_path / "big.csv"
    path.write_text("a,b\n1," + "x" * 200_000 + "\n2,y\n")
    rows = collect(make_csv_dataset(str(path), 2, num_epochs=1, shuffle=False))
    assert rows["a"] == [1, 2] and len(rows["b"][0]) == 200_000
    path.write_text("a,b\n1," + "x" * 200_000 + "\nq,y\n")
    with pytest.raises(ValueError, match=r"big\.csv:3: column 0 \('a'\) has value 'q'"):
        collect(make_csv_dataset(str(path), 2, num_epochs=1, shuffle=False,
                                 column_defaults=[tf.int32, tf.string]))


def test_nan_and_inf_columns_infer_as_strings_with_a_warning_and_parse_as_float(tmp_path):
    """TF's `_is_valid_float` is `value < np.inf`: nan and inf make an inferred column a string
    column (-inf does not). We say so in a warning; with a float dtype, every spelling parses."""
    path = tmp_path / "n.csv"
    path.write_text("a,b,c,d\n1,nan,inf,-inf\n2,NaN,Infinity,1.5\n3,4,-Infinity,2\n")
    with pytest.warns(UserWarning) as record:
        rows = collect(make_csv_dataset(str(path), 3, num_epochs=1, shuffle=False))
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and "column 'b' holds numbers and 'nan'" in messages[0]
    assert "column 'c' holds numbers and 'inf'" in messages[1] and "column_defaults" in messages[1]
    assert rows["b"] == ["nan", "NaN", "4"] and rows["c"] == ["inf", "Infinity", "-Infinity"]
    assert rows["d"][0] == -np.inf and rows["d"][1:] == [1.5, 2.0]  # float32, as TF
    rows = collect(make_csv_dataset(str(path), 3, num_epochs=1, shuffle=False,
                                    column_defaults=[tf.int32] + [tf.float32] * 3))
    assert np.isnan(rows["b"][:2]).all() and rows["b"][2] == 4.0
    assert rows["c"] == [np.inf, np.inf, -np.inf]


def test_a_string_column_with_a_nan_gets_no_warning(tmp_path, recwarn):
    path = tmp_path / "s.csv"
    path.write_text("a,b\n1,nan\n2,hello\n")
    assert collect(make_csv_dataset(str(path), 2, num_epochs=1, shuffle=False))["b"] == [
        "nan", "hello"]
    assert not [w for w in recwarn if "holds numbers" in str(w.message)]

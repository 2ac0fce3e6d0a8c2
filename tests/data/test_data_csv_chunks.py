"""The CSV reader's chunking and column conversion: chunks cut after whole rows (quoted
newlines included), small chunks read exactly like one big one, strings shared per chunk,
and no pandas import on the way."""

import csv
import io
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
import torch

import torchestimator as tf
from torchestimator.data import background, csv_reader
from torchestimator.data.csv_rows import REQUIRED, CsvFormat

# Quoted fields with commas, doubled quotes and line breaks; empty fields; a missing value
# marker; CRLF and LF line ends; no newline after the last row (which holds a line break).
TRICKY = (
    'id,name,score,note\r\n'
    '1,"Smith, J",1.5,"said ""hi"""\r\n'
    '2,Lee,,"two\nlines"\n'
    '3,,2.25,NA\n'
    '\n'
    '4,"multi\r\nline, with comma",-1,plain\n'
    '5,O\'Neil,3,""\n'
    '6,"x",4.5,"ends\nwith break"'
)


def python_rows(text: str) -> list[list[str]]:
    """The rows of `text` as Python's csv module reads them (blank lines dropped)."""
    return [r for r in csv.reader(io.StringIO(text, newline="")) if r][1:]


def chunk_texts(path: str, size: int, **fmt) -> list[bytes]:
    return [bytes(c) for c in csv_reader.csv_chunks(path, CsvFormat(**fmt), size)]


@pytest.mark.parametrize("size", [1, 5, 16, 64, 1 << 20])
def test_chunks_end_after_whole_rows(tmp_path, size):
    path = tmp_path / "t.csv"
    path.write_bytes(TRICKY.encode())
    chunks = chunk_texts(str(path), size)
    body = TRICKY.encode().split(b"\n", 1)[1]
    # Only a blank chunk (the blank line) may be left out.
    assert b"".join(chunks).replace(b"\n\n", b"\n") == body.replace(b"\n\n", b"\n")
    for c in chunks:
        assert c.count(b'"') % 2 == 0  # no chunk ends inside a quoted field
    rows = [r for c in chunks for r in csv.reader(io.StringIO(c.decode(), newline="")) if r]
    assert rows == python_rows(TRICKY)
    if size >= len(TRICKY):
        assert len(chunks) == 1


def test_chunks_skip_blank_chunks_and_grow_for_long_rows(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    long_value = "v" * 1000
    path.write_text(f"a,b\n\n\n   \n1,{long_value}\n2,x\n")
    chunks = chunk_texts(str(path), 8)
    assert all(c.strip() for c in chunks)
    assert b"".join(chunks).strip() == f"1,{long_value}\n2,x\n".encode().strip()
    # Without quoting, a quote character is data: chunks are cut at every row end.
    path.write_text('a\n"x\n"y\n')
    assert chunk_texts(str(path), 2, use_quote_delim=False) == [b'"x\n', b'"y\n']
    assert chunk_texts(str(path), 2) == [b'"x\n"y\n']
    # A quote inside an unquoted field (data to PyArrow) makes every later cut look like it
    # falls inside quotes: chunks then grow to a bounded size, not to the whole file.
    rows = ['5"6,x'] + [f"{i},y" for i in range(2000)]
    path.write_text("a,b\n" + "\n".join(rows) + "\n")
    monkeypatch.setattr(csv_reader, "_MAX_QUOTED_CHUNK", 1000)
    chunks = chunk_texts(str(path), 64)
    assert b"".join(chunks).decode().splitlines() == rows
    assert len(chunks) > 10 and max(len(c) for c in chunks) < 1000 + 64


@pytest.mark.parametrize("size", [1, 7, 40])
def test_small_chunks_read_like_one_chunk(tmp_path, monkeypatch, size):
    path = tmp_path / "t.csv"
    path.write_bytes(TRICKY.encode())

    def no_row_reader(*args, **kwargs):
        raise AssertionError("the row-by-row reader should not be needed")

    def read():
        ds = tf.data.experimental.CsvDataset(
            str(path), [tf.int32, "?", 0.0, "-"], header=True, na_value="NA", buffer_size=size)
        return [tuple(x.item() if isinstance(x, np.generic) else x for x in row)
                for row in ds.as_numpy_iterator()]

    whole = read()
    monkeypatch.setattr(csv_reader, "_MIN_CHUNK", 1)
    monkeypatch.setattr(csv_reader, "row_blocks", no_row_reader)
    assert read() == whole
    expected = []
    for r in python_rows(TRICKY):
        expected.append((int(r[0]), r[1] or "?", float(r[2]) if r[2] else 0.0,
                         "-" if r[3] in ("", "NA") else r[3]))
    assert whole == expected


def test_quoted_line_break_in_the_last_row_without_final_newline(tmp_path):
    # The row of the last field was cut in two by the old reader (its last chunk ended at
    # the line break inside the quotes), and dropped or garbled with ignore_errors=True.
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,x\n2,"multi\nline"')
    for ignore in (False, True):
        ds = tf.data.experimental.make_csv_dataset(str(path), 10, num_epochs=1, shuffle=False,
                                                   ignore_errors=ignore)
        features = next(iter(ds))
        assert features["a"].tolist() == [1, 2]
        assert features["b"].tolist() == ["x", "multi\nline"]


def test_required_value_missing_in_a_later_chunk_names_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_reader, "_MIN_CHUNK", 1)
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "".join(f"{i},{i}\n" for i in range(50)) + "50,\n51,51\n")
    ds = tf.data.experimental.CsvDataset(str(path), [tf.int64, tf.int64], header=True,
                                         buffer_size=32)
    with pytest.raises(ValueError, match=r"t\.csv:52: column 1 is required but missing"):
        list(ds)


def test_components_from_sliced_arrays_with_nulls():
    text = b"n,f,s\n1,0.5,a\n,1.5,b\n3,,\n4,4.5,a\n,,b\n"
    types = {"n": pa.int64(), "f": pa.float32(), "s": csv_reader._DICT_STRING}
    table = pacsv.read_csv(pa.BufferReader(text),
                           convert_options=pacsv.ConvertOptions(column_types=types,
                                                                strings_can_be_null=True))
    for offset in range(4):
        n, f, s = (table.column(c).chunk(0).slice(offset) for c in ("n", "f", "s"))
        ints = csv_reader.csv_component(n, 7)
        assert ints.dtype == torch.int64 and ints.tolist() == [1, 7, 3, 4, 7][offset:]
        floats = csv_reader.csv_component(f, -1.0)
        assert floats.dtype == torch.float32
        assert floats.tolist() == [0.5, 1.5, -1.0, 4.5, -1.0][offset:]
        strings = csv_reader.csv_component(s, "?")
        assert strings.dtype == object and strings.tolist() == ["a", "b", "?", "a", "b"][offset:]
    with pytest.raises(csv_reader._MissingRequired):
        csv_reader.csv_component(table.column("n").chunk(0), REQUIRED)
    empty = csv_reader.csv_component(table.column("f").chunk(0).slice(5), 0.0)
    assert isinstance(empty, torch.Tensor) and empty.shape == (0,)


def test_numbers_are_writable_tensors_and_strings_are_shared_str(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x,s\n" + "".join(f"{i}.5,{'ab'[i % 2]}\n" for i in range(100)))
    ds = tf.data.experimental.make_csv_dataset(str(path), 100, num_epochs=1, shuffle=False)
    features = next(iter(ds))
    x, s = features["x"], features["s"]
    assert x.dtype == torch.float32 and x[:3].tolist() == [0.5, 1.5, 2.5]
    x += 1  # a batch may be changed in place
    assert isinstance(s, np.ndarray) and s.dtype == object and s[0].numpy() == b"a"  # as TF's
    values = s.view(np.ndarray)  # what the batch holds
    assert type(values[0]) is str
    assert values[0] == values[2] == "a" and values[0] is values[2]  # one str per distinct value


def test_reading_csv_does_not_import_pandas_or_pyarrow_compute(tmp_path):
    # pyarrow's to_numpy imports pandas (about 40 MB), pyarrow.compute and pyarrow.parquet
    # cost 13 MB and 0.3 s more: reading a CSV file (with missing values) needs none of them.
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,x,2.5\n,y,\n3,,4\n")
    code = (
        "import sys, torchestimator as tf\n"
        f"ds = tf.data.experimental.make_csv_dataset({str(path)!r}, 2, num_epochs=1,"
        " shuffle=True, shuffle_seed=0)\n"
        "rows = sum(len(f['a']) for f in ds)\n"
        "print(rows, *(m in sys.modules for m in ('pandas', 'pyarrow.compute',"
        " 'pyarrow.parquet')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["3", "False", "False", "False"]


def test_shuffled_csv_reads_ahead_and_stops_its_threads(tmp_path, monkeypatch):
    # every input proves costly at its second element: the final prefetch runs on a thread
    monkeypatch.setattr(background, "COSTLY_ELEMENT_S", 0.0)
    monkeypatch.setattr(background, "COST_WINDOW", 1)
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "".join(f"{i},s{i % 7}\n" for i in range(3000)))
    baseline = {t.ident for t in threading.enumerate()}

    def make():
        return tf.data.experimental.make_csv_dataset(
            str(path), 100, num_epochs=1, shuffle_seed=3, shuffle_buffer_size=500)

    def pipeline_threads():
        return [t for t in threading.enumerate() if t.ident not in baseline]

    first = [b["a"].tolist() for b in make()]
    assert sorted(sum(first, [])) == list(range(3000)) and sum(first, []) != list(range(3000))
    assert [b["a"].tolist() for b in make()] == first  # same seed, same order
    for i, _batch in enumerate(make()):
        if i == 3:
            # The final prefetch, and the read-ahead unless it already read the whole file.
            assert 1 <= len(pipeline_threads()) <= 2
            break
    deadline = time.monotonic() + 5
    while pipeline_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pipeline_threads() == []

"""PyArrow and pandas readers of the input-pipeline file, re-batched to 1024 rows as a loop
would consume them (columns to numpy once per batch)."""

from __future__ import annotations

import time

import numpy as np


def _timed(fn) -> dict:
    start = time.perf_counter()
    rows = fn()
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "rows/s", "seconds": seconds, "rows": rows}


def _drain_table(table) -> int:
    rows = 0
    for batch in table.to_batches(max_chunksize=1024):
        cols = [np.asarray(c.to_numpy(zero_copy_only=False)) for c in batch.columns]
        rows += len(cols[-1])
    return rows


def arrow_read_csv(path: str) -> dict:
    """`pyarrow.csv.read_csv` (whole table), then batches of 1024 to numpy."""
    import pyarrow.csv as pacsv
    return _timed(lambda: _drain_table(pacsv.read_csv(path)))


def arrow_open_csv(path: str) -> dict:
    """`pyarrow.csv.open_csv` streaming (1 MiB blocks), each block's columns to numpy."""
    import pyarrow.csv as pacsv

    def run() -> int:
        rows = 0
        for batch in pacsv.open_csv(path, read_options=pacsv.ReadOptions(block_size=1 << 20)):
            rows += _drain_table_batch(batch)
        return rows
    return _timed(run)


def _drain_table_batch(batch) -> int:
    import pyarrow as pa
    return _drain_table(pa.Table.from_batches([batch]))


def arrow_parquet(path: str) -> dict:
    """`pyarrow.parquet.ParquetFile(path).iter_batches(1024)` streaming, columns to numpy."""
    import pyarrow.parquet as pq

    def run() -> int:
        rows = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            cols = [np.asarray(c.to_numpy(zero_copy_only=False)) for c in batch.columns]
            rows += len(cols[-1])
        return rows
    return _timed(run)


def _drain_frame(frame) -> int:
    rows = 0
    for i in range(0, len(frame), 1024):
        part = frame.iloc[i:i + 1024]
        cols = [part[c].to_numpy() for c in part.columns]
        rows += len(cols[-1])
    return rows


def pandas_csv(path: str) -> dict:
    """`pandas.read_csv` (C engine, whole file), then slices of 1024 rows to numpy."""
    import pandas as pd
    return _timed(lambda: _drain_frame(pd.read_csv(path)))


def pandas_parquet(path: str) -> dict:
    """`pandas.read_parquet` (pyarrow engine, whole file), then slices of 1024 rows to numpy."""
    import pandas as pd
    return _timed(lambda: _drain_frame(pd.read_parquet(path)))


JOBS = {"pipeline/arrow_read_csv": arrow_read_csv, "pipeline/arrow_open_csv": arrow_open_csv,
        "pipeline/arrow_parquet": arrow_parquet, "pipeline/pandas_csv": pandas_csv,
        "pipeline/pandas_parquet": pandas_parquet}

"""make_parquet_dataset streams: what it holds does not grow with the rows of the file.

The files are read in one fresh process, so that PyArrow's memory pool (whose peak only
rises) and the live batches are those reads' own. Memory, not time, is measured.
"""

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

SMALL, LARGE = 100_000, 400_000
ROW_BYTES = 48  # 10 float32 columns and an int64 label

_READ = r"""
import gc, json, sys, weakref
import pyarrow as pa
import torchestimator as tf

def read(path, shuffle):
    ds = tf.data.experimental.make_parquet_dataset(
        path, 1024, label_name="label", num_epochs=1, shuffle=shuffle,
        shuffle_buffer_size=4096, shuffle_seed=0)
    alive, rows = [], 0
    for features, label in ds:
        rows += label.shape[0]
        alive.append(weakref.ref(label))
        del features, label
    del ds
    gc.collect()
    return {"rows": rows, "pool_peak": pa.default_memory_pool().max_memory(),
            "live_batches": sum(r() is not None for r in alive)}

small, large = sys.argv[1], sys.argv[2]
print(json.dumps({"small": read(small, False), "large": read(large, False),
                  "large_shuffled": read(large, True)}))
"""


def _write(path, rows, row_group=16_384):
    """`rows` rows of 10 float32 columns and an int64 label, row groups of `row_group` rows."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 10)).astype(np.float32)
    table = pa.table({**{f"x{i}": x[:, i] for i in range(10)},
                      "label": (x.sum(1) > 0).astype(np.int64)})
    pq.write_table(table, path, row_group_size=row_group)


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    """The small file, then the 4x larger one, then the larger one shuffled, read in one
    fresh process: rows, PyArrow's pool peak so far and the batches still alive after each."""
    folder = tmp_path_factory.mktemp("parquet_memory")
    small, large = folder / "small.parquet", folder / "large.parquet"
    _write(small, SMALL)
    _write(large, LARGE)
    out = subprocess.run([sys.executable, "-c", _READ, str(small), str(large)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_reading_4x_the_rows_from_parquet_keeps_arrows_peak_memory_flat(reads):
    """PyArrow's pool peak while reading 400k rows (19 MB of data) stays that of reading 100k
    rows (5 MB): the reader holds about one row group, not the file. A reader over all the
    row groups at once (pyarrow's `ParquetFile.iter_batches()` on pyarrow 26) peaks at about
    the file's size and fails this."""
    assert (reads["small"]["rows"], reads["large"]["rows"]) == (SMALL, LARGE)
    growth = reads["large"]["pool_peak"] - reads["small"]["pool_peak"]
    # a quarter of the extra rows' bytes (3.6 MB): holding them, or most of them, cannot pass
    assert growth <= (LARGE - SMALL) * ROW_BYTES / 4, reads


def test_a_parquet_pass_keeps_no_batch_alive_after_the_loop_drops_it(reads):
    """No cache, buffer or summary keeps the batches a pass has produced, with or without the
    shuffle buffer."""
    assert reads["large_shuffled"]["rows"] == LARGE
    for name in ("small", "large", "large_shuffled"):
        assert reads[name]["live_batches"] == 0, (name, reads[name])

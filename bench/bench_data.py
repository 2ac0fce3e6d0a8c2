"""Benchmark of tf.data's CSV input (issue 18, W4) against PyArrow, and of in-memory pipelines.

    python bench/bench_data.py                   # W4 table: 1M-row CSV, 5 interleaved reps (~2 min)
    python bench/bench_data.py --csv table.csv   # a file of the layout below, instead of a new one
    python bench/bench_data.py --rows 200000 --reps 3 --no-in-memory      # a quick run
    python bench/bench_data.py --baseline-src /tmp/old/src               # also an older checkout
    python bench/bench_data.py --big             # also peak memory on a file 10x larger

W4 reads a CSV of 10 float, 3 string (vocabularies of 10, 100 and 10,000) and 2 int columns
plus a 0/1 label (the layout of the W4 anchor file, `csv_1m.csv`; written to a temporary
directory unless `--csv` names a file) into batches of 1024, to the end. Each job runs in a
fresh process, jobs interleaved, `--reps` times; the table shows medians of:

* rows/s: rows / seconds from opening the file to the last batch (as the anchors time it);
* CPU s: the process's CPU seconds (all threads) over the same span;
* peak MB above import: the process's peak RSS (VmHWM; the anchors' ru_maxrss is the same in
  a process started from a small one) minus its RSS after the imports the job's script starts
  with (torch and torchestimator for ours; numpy and pyarrow.csv for PyArrow), as the anchors
  measure it. Modules the pipeline imports later count.

Jobs: ours `make_csv_dataset(path, 1024, label_name='label', num_epochs=1, shuffle=False)`,
the same with `shuffle=True, shuffle_buffer_size=10000` (make_csv_dataset's default shuffle),
`pyarrow.csv.read_csv` (whole table, columns to numpy once, sliced) and the streaming
`pyarrow.csv.open_csv` (1 MiB blocks re-batched to 1024), the anchors' two PyArrow scripts.
The goals (issue 18): ours >= 0.7x read_csv's rows/s with peak MB <= open_csv's, and the
shuffled pipeline >= 0.6x read_csv's rows/s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BATCH = 1024


def write_csv(path: str, rows: int, seed: int = 0, chunk: int = 1_000_000) -> None:
    """Writes the W4 CSV (the anchors' layout; streamed in chunks, so 10M rows fit in memory)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    vocabs = {name: np.array([f"{name}_{k}" for k in range(v)], dtype=object)
              for name, v in (("cat10", 10), ("cat100", 100), ("cat10k", 10_000))}
    with open(path, "wb") as f:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            cols = {f"f{i}": np.round(rng.normal(size=n), 4) for i in range(10)}
            for name, vocab in vocabs.items():
                cols[name] = vocab[rng.integers(0, len(vocab), n)]
            cols["i0"] = rng.integers(0, 1000, n)
            cols["i1"] = rng.integers(-1_000_000, 1_000_000, n)
            cols["label"] = rng.integers(0, 2, n)
            table = pa.table(cols)
            if not start:
                f.write((",".join(table.column_names) + "\n").encode())
            pacsv.write_csv(table, f, write_options=pacsv.WriteOptions(
                include_header=False, quoting_style="none"))


# One W4 job in a fresh process: argv = job, path. Prints one JSON line.
_W4_CHILD = r"""
import json, resource, sys, time
job, path = sys.argv[1], sys.argv[2]


def rss_mb(key="VmRSS"):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024


if job.startswith("ours"):
    import torch
    import torchestimator as tf
    base = rss_mb()
    cpu0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    t = time.perf_counter()
    ds = tf.data.experimental.make_csv_dataset(
        path, batch_size=1024, label_name="label", num_epochs=1,
        shuffle=job == "ours_shuffle", shuffle_buffer_size=10000, shuffle_seed=0)
    rows = 0
    for features, label in ds:
        rows += len(label)
else:
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv
    base = rss_mb()

    def to_np(col):
        return col.to_numpy(zero_copy_only=False) if isinstance(col, pa.Array) else col.to_numpy()

    def read_batches():
        table = pacsv.read_csv(path)
        cols = {name: to_np(table.column(name)) for name in table.column_names}
        for i in range(0, table.num_rows, 1024):
            yield {c: a[i:i + 1024] for c, a in cols.items()}

    def stream_batches():
        reader = pacsv.open_csv(path)
        names = reader.schema.names
        buf = None
        for rb in reader:
            cols = {name: to_np(rb.column(i)) for i, name in enumerate(names)}
            if buf is not None:
                cols = {k: np.concatenate([buf[k], cols[k]]) for k in names}
            m = len(cols[names[0]])
            full = m - m % 1024
            for i in range(0, full, 1024):
                yield {k: v[i:i + 1024] for k, v in cols.items()}
            buf = {k: v[full:] for k, v in cols.items()}
        if buf is not None and len(buf[names[0]]):
            yield buf

    cpu0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    t = time.perf_counter()
    rows = 0
    for batch in (read_batches() if job == "pyarrow_read_csv" else stream_batches()):
        rows += len(batch["label"])
wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - cpu0
peak = rss_mb("VmHWM")  # ru_maxrss would count the RSS of the parent at fork time
print(json.dumps({"rows": rows, "rows_per_s": rows / wall, "peak_above_import_mb": peak - base,
                  "import_mb": base, "cpu_s": cpu}), flush=True)
"""

W4_JOBS = {
    "ours": "make_csv_dataset (shuffle=False)",
    "ours_shuffle": "make_csv_dataset (shuffle, buffer 10000)",
    "pyarrow_read_csv": "pyarrow.csv.read_csv + slice",
    "pyarrow_open_csv": "pyarrow.csv.open_csv (streaming)",
}


def run_w4_job(job: str, path: str, src: str | None = None) -> dict:
    """One W4 job in a fresh process (`src`: the torchestimator source tree to import)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", _W4_CHILD, job, path], check=True,
                         capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def streaming_memory(path: str) -> dict:
    """Peak RSS above the import footprint of a shuffled make_csv_dataset pass over `path`, in
    a fresh process: {"rows", "import_kb", "peak_kb"}."""
    m = run_w4_job("ours_shuffle", path)
    return {"rows": m["rows"], "import_kb": m["import_mb"] * 1024,
            "peak_kb": (m["import_mb"] + m["peak_above_import_mb"]) * 1024}


def w4_table(path: str, reps: int, baseline_src: str | None) -> dict:
    """Runs the W4 jobs interleaved `reps` times; prints and returns the medians."""
    jobs = [(name, None) for name in W4_JOBS]
    if baseline_src:
        jobs += [(name, baseline_src) for name in ("ours", "ours_shuffle")]
    runs: dict = {(name, src): [] for name, src in jobs}
    for rep in range(reps):
        for name, src in jobs:
            runs[(name, src)].append(run_w4_job(name, path, src))
        print(f"  rep {rep + 1}/{reps} done", flush=True)
    med = {}
    for key, results in runs.items():
        rows = {r["rows"] for r in results}
        assert len(rows) == 1, (key, rows)
        med[key] = {
            "rows_per_s": statistics.median(r["rows_per_s"] for r in results),
            "peak_mb": statistics.median(r["peak_above_import_mb"] for r in results),
            "import_mb": statistics.median(r["import_mb"] for r in results),
            "cpu_s": statistics.median(r["cpu_s"] for r in results),
        }
    read = med[("pyarrow_read_csv", None)]["rows_per_s"]
    stream_peak = med[("pyarrow_open_csv", None)]["peak_mb"]
    print(f"\n| {'W4 job (batches of 1024)':<52} | {'rows/s':>10} | {'x read_csv':>10} | "
          f"{'CPU s':>6} | {'peak MB above import':>20} | {'RSS after import MB':>19} |")
    print(f"|{'-' * 54}|{'-' * 12}|{'-' * 12}|{'-' * 8}|{'-' * 22}|{'-' * 21}|")
    for (name, src), m in med.items():
        label = W4_JOBS[name] + (" [baseline]" if src else "")
        print(f"| {label:<52} | {m['rows_per_s']:>10,.0f} | {m['rows_per_s'] / read:>10.2f} | "
              f"{m['cpu_s']:>6.2f} | {m['peak_mb']:>20.0f} | {m['import_mb']:>19.0f} |")
    ours, shuf = med[("ours", None)], med[("ours_shuffle", None)]
    print(f"\ngoals: ours >= 0.7x read_csv: {ours['rows_per_s'] / read:.2f}x; peak <= open_csv's "
          f"{stream_peak:.0f} MB: {ours['peak_mb']:.0f} MB (shuffled {shuf['peak_mb']:.0f} MB); "
          f"shuffled >= 0.6x read_csv: {shuf['rows_per_s'] / read:.2f}x")
    return med


def best_of(fn, repeats: int) -> tuple[float, int]:
    """(best seconds, rows) over `repeats` calls of fn() -> rows."""
    times, rows = [], 0
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        rows = fn()
        times.append(time.perf_counter() - t)
    return min(times), rows


def in_memory(rows: int, shuffle: bool):
    """from_tensor_slices of 20 float columns, optionally shuffled, batched by 256."""
    import torch

    import torchestimator as tf

    gen = torch.Generator().manual_seed(0)
    columns = {f"x{i}": torch.randn(rows, generator=gen) for i in range(20)}

    def run() -> int:
        ds = tf.data.Dataset.from_tensor_slices(columns)
        if shuffle:
            ds = ds.shuffle(10000, seed=0)
        n = 0
        for batch in ds.batch(256):
            n += len(batch["x0"])
        return n
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5, help="interleaved runs of each W4 job")
    parser.add_argument("--csv", help="read this W4-layout CSV instead of writing one")
    parser.add_argument("--baseline-src",
                        help="also run ours from this source tree (e.g. an older checkout's src)")
    parser.add_argument("--no-in-memory", action="store_true",
                        help="skip the from_tensor_slices figures")
    parser.add_argument("--big", action="store_true",
                        help="also measure peak memory on a file 10x larger")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_data_") as tmp:
        path = args.csv
        if path is None:
            path = os.path.join(tmp, "data.csv")
            t = time.perf_counter()
            write_csv(path, args.rows)
            print(f"wrote {args.rows:,} rows ({os.path.getsize(path) / 2**20:.0f} MB) in "
                  f"{time.perf_counter() - t:.1f}s")
        w4_table(path, args.reps, args.baseline_src)

        if not args.no_in_memory:
            print()
            for label, fn in (
                ("from_tensor_slices(20 cols).batch(256)", in_memory(args.rows, False)),
                ("from_tensor_slices(20 cols).shuffle(10000).batch(256)",
                 in_memory(args.rows, True)),
            ):
                seconds, rows = best_of(fn, 3)
                print(f"  {label}: {rows / seconds:,.0f} rows/s (best of 3)", flush=True)

        if args.big:
            big = os.path.join(tmp, "data_10x.csv")
            small_rows = sum(1 for _ in open(path, "rb")) - 1
            t = time.perf_counter()
            write_csv(big, 10 * small_rows, seed=1)
            print(f"\nwrote {10 * small_rows:,} rows ({os.path.getsize(big) / 2**20:.0f} MB) "
                  f"in {time.perf_counter() - t:.1f}s")
            peaks = []
            for p, rows in ((path, small_rows), (big, 10 * small_rows)):
                m = streaming_memory(p)
                assert m["rows"] == rows, m
                peaks.append((m["peak_kb"] - m["import_kb"]) / 1024)
                print(f"  shuffled make_csv_dataset, {rows:,} rows: peak {peaks[-1]:.0f} MB "
                      "above import")
            print(f"10x file / 1x file peak memory: {peaks[1] / max(peaks[0], 1e-9):.2f} "
                  "(target <= 1.5)")


if __name__ == "__main__":
    main()

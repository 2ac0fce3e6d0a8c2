"""Peer benchmarks: `python -m bench [--quick | --smoke] [--out DIR]` (or `python bench/run.py`).

`--from-json DIR/performance/results.json` rewrites the report and plots from a run's raw figures.

Runs torchestimator's Keras `fit` and `Estimator.train` against a hand-written PyTorch loop,
Lightning 2.x, Keras 3 on torch and (when `TORCHESTIMATOR_BENCH_TF_PYTHON` names a python that
has it) TensorFlow 2.15, on the seed MLP, the Iris DNN, y = W.x + b and wide & deep; the input
pipeline's rows/s against PyArrow and pandas; peak memory; and how `Estimator.train` scales with
the data and the model. Writes `DIR/performance.md` and PNG plots under `DIR/performance/`
(DIR defaults to the repository's `docs/`).

Each implementation runs in its own worker process (imports paid once, a warm-up run first);
the runs are interleaved round-robin over the implementations, `--reps` times, and the tables
show medians with min-max. `--smoke` makes every workload a few steps, one rep, no Keras 3/TF.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # `python bench/run.py`
    sys.path.insert(0, ROOT)

MARK = "@@BENCH "
TF_ENV = "TORCHESTIMATOR_BENCH_TF_PYTHON"

# mode -> sizes
SIZES = {
    "full": {"mlp_rows": 60_000, "iris_steps": 1000, "linreg_steps": 1000, "wd_rows": 100_000,
             "pipeline_rows": 1_000_000, "reps": 5,
             "scale_rows": [100_000, 300_000, 1_000_000, 3_000_000, 10_000_000],
             "scale_params": [10_000, 100_000, 1_000_000, 10_000_000], "scale_steps": 50, "scale_reps": 2},
    "quick": {"mlp_rows": 6_400, "iris_steps": 250, "linreg_steps": 250, "wd_rows": 20_000,
              "pipeline_rows": 200_000, "reps": 3,
              "scale_rows": [100_000, 300_000, 1_000_000],
              "scale_params": [10_000, 100_000, 1_000_000, 10_000_000], "scale_steps": 10, "scale_reps": 1},
    "smoke": {"mlp_rows": 64, "iris_steps": 4, "linreg_steps": 4, "wd_rows": 512,
              "pipeline_rows": 3_000, "reps": 1,
              "scale_rows": [2_000, 6_000], "scale_params": [1_000, 10_000], "scale_steps": 2, "scale_reps": 1},
}

# Display names of the implementations.
NAMES = {"ours": "torchestimator", "tf215": "TensorFlow 2.15", "torch": "PyTorch",
         "lightning": "Lightning", "keras3": "Keras 3 (torch)", "io": ""}


@dataclass
class Entry:
    """One implementation of one workload: which worker, which job, its label in the table."""

    section: str
    label: str
    impl: str
    job: str
    args: dict
    warm_args: dict | None = None
    runs: list = field(default_factory=list)


# ------------------------------------------------------------------------------------ workers
class Worker:
    """A `bench.peers._worker` process for one implementation (JSON lines over pipes)."""

    def __init__(self, impl: str, python: str, threads: int, log_dir: str) -> None:
        self.impl = impl
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        self.log_path = os.path.join(log_dir, f"{impl}.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen([python, "-m", "bench.peers._worker", impl, str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     text=True, cwd=ROOT, env=env)
        self.ready: dict | None = None
        self.error: str | None = None

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
        self._log.flush()
        with open(self.log_path) as f:
            tail = f.read()[-1500:]
        raise RuntimeError(f"worker {self.impl!r} exited ({self.proc.poll()}); its log ends:\n{tail}")

    def wait_ready(self) -> bool:
        try:
            self.ready = self._read()
            return True
        except RuntimeError as exc:
            self.error = str(exc)
            return False

    def run(self, job: str, args: dict) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"job": job, "args": args}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()


# ------------------------------------------------------------------------------------ plan
def plan(sizes: dict, impls: set[str], csv_path: str, parquet_path: str) -> list[Entry]:
    """The peer entries of every section, in round-robin order."""
    smoke = SIZES["smoke"]
    specs = [
        ("mlp", "mlp_rows", "rows", [
            ("Keras fit", "ours", "mlp/keras_fit"), ("Keras fit", "tf215", "mlp/keras_fit"),
            ("loop", "torch", "mlp/loop"), ("Trainer.fit", "lightning", "mlp/lightning"),
            ("fit", "keras3", "mlp/keras3")]),
        ("iris", "iris_steps", "steps", [
            ("DNNClassifier.train", "ours", "iris/estimator"), ("Keras fit", "ours", "iris/keras_fit"),
            ("DNNClassifier.train", "tf215", "iris/estimator"), ("Keras fit", "tf215", "iris/keras_fit"),
            ("loop", "torch", "iris/loop"), ("Trainer.fit", "lightning", "iris/lightning"),
            ("fit", "keras3", "iris/keras3")]),
        ("linreg", "linreg_steps", "steps", [
            ("Keras fit", "ours", "linreg/keras_fit"), ("Keras fit", "tf215", "linreg/keras_fit"),
            ("loop", "torch", "linreg/loop"), ("Trainer.fit", "lightning", "linreg/lightning"),
            ("fit", "keras3", "linreg/keras3")]),
        ("wide_deep", "wd_rows", "rows", [
            ("DNNLinearCombinedClassifier.train", "ours", "wide_deep/estimator"),
            ("DNNLinearCombinedClassifier.train", "tf215", "wide_deep/estimator"),
            ("loop (EmbeddingBag)", "torch", "wide_deep/loop"),
            ("Trainer.fit (EmbeddingBag)", "lightning", "wide_deep/lightning"),
            ("fit (Embedding)", "keras3", "wide_deep/keras3")]),
    ]
    entries = []
    for section, key, arg, impl_list in specs:
        for label, impl, job in impl_list:
            if impl in impls:
                entries.append(Entry(section, f"{NAMES[impl]} {label}", impl, job, {arg: sizes[key]},
                                     {arg: smoke[key]}))
    pipeline = [
        ("csv", "torchestimator make_csv_dataset", "ours", "pipeline/csv", csv_path),
        ("csv", "TensorFlow 2.15 make_csv_dataset", "tf215", "pipeline/csv", csv_path),
        ("csv", "pyarrow.csv.read_csv", "io", "pipeline/arrow_read_csv", csv_path),
        ("csv", "pyarrow.csv.open_csv (streaming)", "io", "pipeline/arrow_open_csv", csv_path),
        ("csv", "pandas.read_csv", "io", "pipeline/pandas_csv", csv_path),
        ("parquet", "torchestimator make_parquet_dataset", "ours", "pipeline/parquet", parquet_path),
        ("parquet", "pyarrow.parquet iter_batches (streaming)", "io", "pipeline/arrow_parquet", parquet_path),
        ("parquet", "pandas.read_parquet", "io", "pipeline/pandas_parquet", parquet_path),
    ]
    for fmt, label, impl, job, path in pipeline:
        if impl in impls:
            entries.append(Entry(f"pipeline_{fmt}", label, impl, job, {"path": path}))
    return entries


def run_round_robin(entries: list[Entry], workers: dict[str, Worker], reps: int, log=print) -> None:
    """A warm-up run of each entry (small size, untimed), then `reps` rounds over all entries."""
    for entry in entries:
        if entry.warm_args is not None:
            warm = workers[entry.impl].run(entry.job, entry.warm_args)
            if "error" in warm:
                log(f"  warm-up {entry.label}: {warm['error']}")
    for rep in range(reps):
        for entry in entries:
            result = workers[entry.impl].run(entry.job, entry.args)
            entry.runs.append(result)
            shown = result.get("error") or f"{result['value']:,.1f} {result['unit']}"
            log(f"  [{rep + 1}/{reps}] {entry.section:<16} {entry.label:<48} {shown}")


# ------------------------------------------------------------------------------------ machine
def machine() -> dict[str, Any]:
    """CPU model, threads and versions of this machine."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info: dict[str, Any] = {"cpu": cpu, "logical_cpus": os.cpu_count(), "python": platform.python_version(),
                            "platform": platform.platform()}
    try:
        info["affinity"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    from importlib import metadata

    for dist in ("torch", "numpy", "pyarrow", "pandas", "lightning", "keras", "matplotlib", "torchestimator"):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            info[dist] = "not installed"
    try:
        with open("/proc/loadavg") as f:
            info["loadavg"] = f.read().split()[:3]
    except OSError:
        pass
    return info


# ------------------------------------------------------------------------------------ stats
def summary(runs: list[dict]) -> dict | None:
    """median, min, max of `value`, median peak/base MB, unit; None when every run failed."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return None
    values = [r["value"] for r in ok]
    peaks = [r["peak_mb"] for r in ok]
    deltas = [r["peak_mb"] - r["base_mb"] for r in ok]
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "unit": ok[0]["unit"], "n": len(ok), "peak_mb": statistics.median(peaks),
            "delta_mb": statistics.median(deltas)}


def _fmt(v: float) -> str:
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 1:
        return f"{v:,.2f}"
    return f"{v:.3g}"


SECTION_TITLES = {
    "mlp": "Seed MLP (784-512-10, SGD 0.01, batch 32, MNIST-shaped synthetic data)",
    "iris": "Iris DNN (4-10-10-3, Adagrad 0.001, batch 32; DNNClassifier([10, 10]) and the same model)",
    "linreg": "y = W·x + b (Dense(1), SGD, mse, 100 rows, batch 100): overhead per step",
    "wide_deep": "Wide & deep (census-shaped table, batch 256, one epoch)",
    "pipeline_csv": "Input pipeline: CSV, batches of 1024 to the end",
    "pipeline_parquet": "Input pipeline: Parquet, batches of 1024 to the end",
}


def baseline_label(section: str) -> str | None:
    if section.startswith("pipeline"):
        return "pyarrow.csv.read_csv" if section.endswith("csv") else "pyarrow.parquet iter_batches (streaming)"
    return {"wide_deep": "PyTorch loop (EmbeddingBag)"}.get(section, "PyTorch loop")


def table(section: str, entries: list[Entry]) -> str:
    """The markdown table of one section: median, min-max, ratio to the baseline, peak RSS."""
    rows = [(e, summary(e.runs)) for e in entries if e.section == section]
    if not rows:
        return ""
    base = next((s for e, s in rows if e.label == baseline_label(section) and s), None)
    unit = next((s["unit"] for _, s in rows if s), "")
    lower_better = unit in ("us/step", "s", "s/step")
    ratio_head = f"÷ {baseline_label(section)}" + (" (time: lower is better)" if lower_better else "")
    lines = [f"| implementation | median {unit} | min–max | {ratio_head} | peak RSS MB | Δ RSS MB | runs |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for entry, s in rows:
        if s is None:
            err = next((r.get("error") for r in entry.runs if "error" in r), "no run")
            lines.append(f"| {entry.label} | failed: {err[:80]} | | | | | 0 |")
            continue
        ratio = f"{s['median'] / base['median']:.2f}×" if base else "–"
        lines.append(f"| {entry.label} | {_fmt(s['median'])} | {_fmt(s['min'])}–{_fmt(s['max'])} | {ratio} "
                     f"| {s['peak_mb']:,.0f} | {max(s['delta_mb'], 0.0):,.0f} | {s['n']} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ plots
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_bars(entries: list[Entry], sections: list[str], path: str, memory: bool = False) -> str:
    """One horizontal bar chart per section (median, min-max whiskers); returns `path`."""
    plt = _plt()
    sections = [s for s in sections if any(e.section == s and summary(e.runs) for e in entries)]
    fig, axes = plt.subplots(len(sections) or 1, 1, figsize=(9, 2.0 + 1.6 * max(1, len(sections)) * 1.4),
                             squeeze=False)
    for ax, section in zip(axes[:, 0], sections):
        items = [(e.label, summary(e.runs)) for e in entries if e.section == section]
        items = [(label, s) for label, s in items if s]
        labels = [label for label, _ in items]
        if memory:
            base = [s["peak_mb"] - max(s["delta_mb"], 0.0) for _, s in items]
            delta = [max(s["delta_mb"], 0.0) for _, s in items]
            ax.barh(labels, base, color="#cbc9e2", label="RSS before the run (imports, earlier runs)")
            ax.barh(labels, delta, left=base, color="#54278f", label="growth during the run (Δ)")
            ax.set_xlabel("peak RSS of the worker process, MB (median)")
            ax.set_xlim(0, max(s["peak_mb"] for _, s in items) * 1.6)
            if section == sections[0]:
                ax.legend(fontsize=7, loc="lower right")
        else:
            values = [s["median"] for _, s in items]
            err = [[s["median"] - s["min"] for _, s in items], [s["max"] - s["median"] for _, s in items]]
            colors = ["#d95f02" if lab.startswith("torchestimator") else "#1b9e77" for lab in labels]
            ax.barh(labels, values, xerr=err, color=colors, capsize=3)
            ax.set_xlabel(items[0][1]["unit"] + (" (lower is better)" if items[0][1]["unit"] == "us/step"
                                                  else " (higher is better)"))
        ax.set_title(SECTION_TITLES.get(section, section), fontsize=9)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_scaling(scaling: dict, path: str) -> str:
    """2x2: train seconds and peak RSS against rows streamed, and against parameters."""
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    data = [r for r in scaling.get("data", []) if "error" not in r]
    model = [r for r in scaling.get("model", []) if "error" not in r]
    if data:
        xs = [r["rows"] for r in data]
        axes[0, 0].loglog(xs, [r["seconds"] for r in data], "o-", label="measured")
        x0, t0 = xs[0], data[0]["seconds"]
        axes[0, 0].loglog(xs, [t0 * x / x0 for x in xs], "--", color="grey", label="linear from first point")
        axes[0, 0].legend(fontsize=8)
        axes[1, 0].semilogx(xs, [r["peak_mb"] for r in data], "o-", color="#8c6bb1")
        axes[1, 0].set_ylim(bottom=0)
    axes[0, 0].set(title="DNNClassifier([64, 32]).train, Parquet streamed", xlabel="rows", ylabel="seconds")
    axes[1, 0].set(title="… peak RSS of the process", xlabel="rows", ylabel="MB")
    if model:
        xs = [r["params"] for r in model]
        axes[0, 1].loglog(xs, [r["value"] * 1e3 for r in model], "o-", label="measured")
        y0 = model[0]["value"] * 1e3
        axes[0, 1].loglog(xs, [y0 * x / xs[0] for x in xs], "--", color="grey", label="linear from first point")
        axes[0, 1].legend(fontsize=8)
        axes[1, 1].semilogx(xs, [r["peak_mb"] for r in model], "o-", color="#8c6bb1", label="measured")
        m0 = model[0]["peak_mb"]
        axes[1, 1].semilogx(xs, [m0 + 8 * x / 2**20 for x in xs], "--", color="grey",
                            label="first point + weights and Adagrad slots (8 B/param)")
        axes[1, 1].set_ylim(bottom=0)
        axes[1, 1].legend(fontsize=8)
    axes[0, 1].set(title="DNNClassifier([h, h]).train: time per step", xlabel="parameters",
                   ylabel="ms/step")
    axes[1, 1].set(title="… peak RSS of the process", xlabel="parameters", ylabel="MB")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


# ------------------------------------------------------------------------------------ report
def write_report(out_dir: str, entries: list[Entry], scaling: dict, info: dict, mode: str,
                 notes: list[str], gpu: str, elapsed: float) -> str:
    """Writes `out_dir/performance.md` and its PNGs under `out_dir/performance/`; returns the md path."""
    img_dir = os.path.join(out_dir, "performance")
    os.makedirs(img_dir, exist_ok=True)
    train_sections = ["mlp", "iris", "linreg", "wide_deep"]
    pipe_sections = ["pipeline_csv", "pipeline_parquet"]
    plot_bars(entries, train_sections, os.path.join(img_dir, "training.png"))
    plot_bars(entries, pipe_sections, os.path.join(img_dir, "pipeline.png"))
    plot_bars(entries, train_sections + pipe_sections, os.path.join(img_dir, "memory.png"), memory=True)
    plot_scaling(scaling, os.path.join(img_dir, "scaling.png"))
    md = ["# Performance", "",
          f"Written by `python -m bench{'' if mode == 'full' else ' --' + mode}` on "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC in {elapsed / 60:.1f} min. "
          "Rerun it to measure your machine; `python -m bench` (no flag) is the full run.", "",
          "## Machine", "", "| | |", "|---|---|"]
    for key, value in info.items():
        md.append(f"| {key} | {' '.join(value) if isinstance(value, list) else value} |")
    md += ["", "## How it is measured", "",
           "- Every implementation runs in its own worker process (`bench/peers/_worker.py`): imports are "
           "paid once, and every entry has a small untimed warm-up run first.",
           "- Runs are interleaved: round-robin over all the implementations, repeated; the tables show "
           "the median and the min–max over the repetitions, so a slow spell of a shared machine hits "
           "every implementation alike.",
           "- Each timed run builds a fresh model (and, for the Estimator, a fresh `model_dir` with the "
           "default `RunConfig`: its checkpoints at the start and end are in the time).",
           "- examples/s counts the training examples over the wall time of `fit` / `train` / the loop; "
           "the y = W·x + b case reports microseconds per step instead (lower is better).",
           "- Peak RSS: the worker's VmHWM during the run (reset through `/proc/self/clear_refs` before "
           "it); Δ RSS is that peak minus the RSS before the run (memory the allocator kept from earlier "
           "runs is reused, so Δ is a lower bound of the run's own footprint).",
           "- Wide & deep: the peers (PyTorch, Lightning, Keras 3) encode the string columns to integer ids "
           "with numpy inside the timed region (the Estimator parses them in its input pipeline) and train "
           "both parts with Adagrad 0.05 (torch has no Ftrl); the Estimator keeps its defaults (Ftrl wide, "
           "Adagrad 0.001 deep).",
           "- Input pipeline: every reader goes to the end in batches of 1024; the PyArrow and pandas rows "
           "turn each batch's columns into numpy arrays (string columns become object arrays), as a training "
           "loop would consume them.",
           "- Code of each peer: `bench/peers/` (`tf_api.py` runs unchanged with `import tensorflow as tf`, "
           "`torch_loop.py`, `lightning_peer.py`, `keras3_peer.py`, `arrow_pandas.py`).",
           f"- TensorFlow 2.15 joins the tables when `{TF_ENV}` names a python that has it (it cannot "
           "share a venv with torch's pins); its runs are subprocesses of that python.", ""]
    if notes:
        md += ["## Notes on this run", ""] + [f"- {n}" for n in notes] + [""]
    md += ["## Training throughput", "", "![training throughput](performance/training.png)", ""]
    for section in train_sections:
        t = table(section, entries)
        if t:
            md += [f"### {SECTION_TITLES[section]}", "", t, ""]
    md += ["## Input pipeline", "", "![input pipeline rows/s](performance/pipeline.png)", ""]
    for section in pipe_sections:
        t = table(section, entries)
        if t:
            md += [f"### {SECTION_TITLES[section]}", "", t, ""]
    md += ["## Peak memory", "", "Peak RSS of each run (medians; the tables above give Δ RSS too).", "",
           "![peak memory](performance/memory.png)", "",
           "## Scaling of Estimator.train", "",
           "`DNNClassifier([64, 32])` on 10 numeric columns streamed from Parquet (`make_parquet_dataset`, "
           "batch 1024, one epoch), growing the rows; and `DNNClassifier([h, h])` trained for a fixed number "
           "of steps at batch 256, growing the parameters. Each point is a fresh worker process, so its peak "
           "RSS is the run's own. The file's data is 48 bytes a row (48 MB per million rows): a reader "
           "that held the file would add that much per million rows; the Parquet reader holds one row group "
           "(64k rows), so peak RSS levels off once the first steps' one-time allocations (the model, the "
           "optimizer, the allocators' arenas) are made, by about 0.3M rows "
           "(`tests/data/test_parquet_memory.py` holds the reader to this).", "", "![scaling](performance/scaling.png)", "",
           "| rows | seconds | rows/s | peak RSS MB |", "|---:|---:|---:|---:|"]
    for r in scaling.get("data", []):
        if "error" in r:
            md.append(f"| {r.get('rows', '?'):,} | failed: {r['error'][:80]} | | |")
        else:
            md.append(f"| {r['rows']:,} | {r['seconds']:.2f} | {r['rows'] / r['seconds']:,.0f} | {r['peak_mb']:,.0f} |")
    md += ["", "| parameters | ms/step | peak RSS MB |", "|---:|---:|---:|"]
    for r in scaling.get("model", []):
        if "error" in r:
            md.append(f"| {r.get('params', '?'):,} | failed: {r['error'][:80]} | |")
        else:
            md.append(f"| {r['params']:,} | {r['value'] * 1e3:.1f} | {r['peak_mb']:,.0f} |")
    md += ["", "## GPU", "", gpu, "", _TF32_NOTE, ""]
    path = os.path.join(out_dir, "performance.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    return path


# ------------------------------------------------------------------------------------ raw results
def save_results(path: str, entries: list[Entry], scaling: dict, info: dict, mode: str, notes: list[str],
                 gpu: str, elapsed: float) -> None:
    """Every run's raw figures as JSON, so that the report can be rewritten (`--from-json`)."""
    data = {"mode": mode, "elapsed": elapsed, "info": info, "notes": notes, "gpu": gpu, "scaling": scaling,
            "entries": [{"section": e.section, "label": e.label, "impl": e.impl, "job": e.job, "args": e.args,
                         "runs": e.runs} for e in entries]}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def rewrite_from_json(path: str, out_dir: str) -> str:
    """Writes the report again from a `results.json` of an earlier run; returns the md path."""
    with open(path) as f:
        data = json.load(f)
    entries = [Entry(e["section"], e["label"], e["impl"], e["job"], e["args"], runs=e["runs"])
               for e in data["entries"]]
    return write_report(out_dir, entries, data["scaling"], data["info"], data["mode"], data["notes"],
                        data["gpu"], data["elapsed"])


# ------------------------------------------------------------------------------------ main
def _scaling(sizes: dict, threads: int, tmp: str, log) -> dict:
    """Each point in a fresh `ours` worker, so that peak RSS is the point's own."""
    from bench.peers import _data

    out: dict = {"data": [], "model": []}
    points = []
    for rows in sizes["scale_rows"]:
        path = os.path.join(tmp, f"scale_{rows}.parquet")
        _data.write_numeric_parquet(path, rows)
        points.append(("data", "scale/data", {"path": path, "rows": rows}))
    for params in sizes["scale_params"]:
        points.append(("model", "scale/model", {"params": params, "steps": sizes["scale_steps"]}))
    results: dict = {}
    for _ in range(sizes["scale_reps"]):
        for kind, job, args in points:
            worker = Worker("ours", sys.executable, threads, tmp)
            if not worker.wait_ready():
                raise RuntimeError(worker.error)
            result = worker.run(job, args)
            worker.close()
            result.setdefault("rows", args.get("rows"))
            result.setdefault("params", args.get("params"))
            shown = result.get("error") or f"{result['seconds']:.2f} s, peak {result['peak_mb']:.0f} MB"
            log(f"  scaling {kind} {args.get('rows') or args.get('params'):>12,}: {shown}")
            results.setdefault((kind, json.dumps(args)), []).append(result)
    for (kind, _), runs in results.items():
        ok = [r for r in runs if "error" not in r]
        if not ok:
            out[kind].append(runs[0])
            continue
        best = sorted(ok, key=lambda r: r["seconds"])[len(ok) // 2]  # the median run
        out[kind].append(best)
    return out


_TF32_NOTE = (
    "On GPUs with TensorFloat-32 units (Ampere and later), float32 matrix products run in full\n"
    "float32 here, PyTorch's default, where TensorFlow uses TensorFloat-32 by default:\n"
    "`tf.config.experimental.enable_tensor_float_32_execution(True)` gives TensorFlow's (faster)\n"
    "behaviour ([Running on a GPU](gpu.md#float32-precision-tensorfloat-32)).")


def _gpu(quick: bool, log) -> str:
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    script = os.path.join(ROOT, "bench", "bench_gpu.py")
    if not cuda:  # the GPU cases counted on the CPU: kernel launches and read-backs per step
        log("GPU: bench/bench_gpu.py --count-kernels (no CUDA)")
        proc = subprocess.run([sys.executable, script, "--count-kernels"], capture_output=True, text=True,
                              cwd=ROOT, timeout=1800)
        table = proc.stdout[proc.stdout.find("case (per step"):] if proc.returncode == 0 else proc.stderr[-2000:]
        log("GPU: bench/bench_host_overhead.py (no CUDA)")
        host_cmd = [sys.executable, os.path.join(ROOT, "bench", "bench_host_overhead.py")]
        host = subprocess.run(host_cmd + (["--repeats", "3"] if quick else []), capture_output=True,
                              text=True, cwd=ROOT, timeout=1800)
        host_table = (host.stdout[host.stdout.find("Host time per step"):] if host.returncode == 0
                      else host.stderr[-2000:])
        return ("No GPU: CUDA is not available on this machine, so the GPU timings (`bench/bench_gpu.py`) did "
                "not run. `python bench/bench_gpu.py --count-kernels` (exit "
                f"{proc.returncode}) counts the same cases on the CPU instead: per step, the torch operations "
                "that would each launch a kernel on a GPU, and the values read back to the host, "
                "torchestimator against the hand-written loop:\n\n```\n" + table.strip() + "\n```\n\n"
                "A small model's GPU step is bound by the host work that queues its kernels. "
                f"`python bench/bench_host_overhead.py` (exit {host.returncode}) times that work on the "
                "CPU, on models too small to compute anything:\n\n```\n" + host_table.strip() + "\n```")
    log("GPU: bench/bench_gpu.py")
    cmd = [sys.executable, script] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=3600)
    return ("`python bench/bench_gpu.py" + (" --quick" if quick else "") + f"` (exit {proc.returncode}), "
            "torchestimator against a hand-written loop on the same GPU:\n\n```\n"
            + (proc.stdout + proc.stderr[-2000:]).strip() + "\n```")


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main(argv: list[str] | None = None) -> int:
    """Runs the suite and writes the report; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    mode_group = parser.add_mutually_exclusive_group()
    mode_group.add_argument("--quick", action="store_true", help="fewer reps, smaller data (~5 min on 2 cores)")
    mode_group.add_argument("--smoke", action="store_true", help="a few steps per workload, 1 rep, no Keras 3/TF")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"), help="folder of performance.md")
    parser.add_argument("--reps", type=int, help="repetitions (default: 5 full, 3 quick, 1 smoke)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch/TF threads per worker (default: all CPUs; 1 when the machine is busy)")
    parser.add_argument("--no-keras3", action="store_true")
    parser.add_argument("--no-lightning", action="store_true")
    parser.add_argument("--no-tf", action="store_true", help=f"ignore {TF_ENV}")
    parser.add_argument("--no-gpu", action="store_true", help="skip the GPU section even with CUDA")
    parser.add_argument("--from-json", metavar="RESULTS", help="only rewrite the report from a results.json")
    args = parser.parse_args(argv)
    if args.from_json:
        print(f"wrote {rewrite_from_json(args.from_json, args.out)}")
        return 0
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    sizes = dict(SIZES[mode])
    if args.reps:
        sizes["reps"] = args.reps
    started = time.perf_counter()
    notes: list[str] = []

    def log(msg: str) -> None:
        print(msg, flush=True)

    impls = {"ours", "torch", "io"}
    if not args.no_lightning:
        if _has("lightning"):
            impls.add("lightning")
        else:
            notes.append("Lightning is not installed: its rows are missing (`pip install lightning`).")
    if mode != "smoke" and not args.no_keras3:
        if _has("keras"):
            impls.add("keras3")
        else:
            notes.append("Keras 3 is not installed: its rows are missing (`pip install 'keras>=3,<4'`).")
    tf_python = os.environ.get(TF_ENV)
    if mode != "smoke" and not args.no_tf and tf_python:
        impls.add("tf215")
    elif mode != "smoke" and not args.no_tf:
        notes.append(f"TensorFlow 2.15 did not run: set {TF_ENV} to a python that has it.")
    if mode == "smoke":
        notes.append("Smoke run: a few steps per workload, one repetition; the figures mean nothing.")
    else:
        load = os.getloadavg()
        notes.append(f"Load average at the start: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on "
                     f"{os.cpu_count()} logical CPUs; a shared, busy machine makes every figure noisy.")

    if args.threads is None:
        cpus = os.cpu_count() or 1
        args.threads = cpus
        if cpus > 1 and os.getloadavg()[0] > cpus - 1:
            args.threads = 1
            notes.append(f"The load average exceeded {cpus - 1} at the start, so every worker used 1 thread: "
                         "with other processes on the cores, torch's OpenMP threads spin-wait for each other "
                         "(2 threads measured 25x slower than 1 on this machine's MLP loop). Pass --threads.")
    info = machine()
    info["threads per worker"] = args.threads
    info["repetitions"] = sizes["reps"]
    with tempfile.TemporaryDirectory(prefix="bench_") as tmp:
        from bench.peers import _data

        csv_path, parquet_path = os.path.join(tmp, "table.csv"), os.path.join(tmp, "table.parquet")
        log(f"writing the {sizes['pipeline_rows']:,}-row CSV and Parquet files")
        _data.write_table(csv_path, sizes["pipeline_rows"], "csv")
        _data.write_table(parquet_path, sizes["pipeline_rows"], "parquet")
        info["pipeline file"] = (f"{sizes['pipeline_rows']:,} rows, 10 float + 3 string + 2 int columns + label; "
                                 f"CSV {os.path.getsize(csv_path) / 2**20:.0f} MiB, "
                                 f"Parquet {os.path.getsize(parquet_path) / 2**20:.0f} MiB")
        workers: dict[str, Worker] = {}
        for impl in sorted(impls):
            python = tf_python if impl == "tf215" else sys.executable
            workers[impl] = Worker(impl, python, args.threads, tmp)
        for impl, worker in list(workers.items()):
            if not worker.wait_ready():
                notes.append(f"{NAMES[impl] or impl} could not start: {worker.error.splitlines()[-1]}")
                worker.close()
                del workers[impl]
            elif impl == "tf215":
                info["tensorflow (TF worker)"] = worker.ready["versions"].get("tensorflow", "?")
        entries = plan(sizes, set(workers), csv_path, parquet_path)
        log(f"{len(entries)} entries x {sizes['reps']} reps, workers: {', '.join(sorted(workers))}")
        try:
            run_round_robin(entries, workers, sizes["reps"], log)
        finally:
            for worker in workers.values():
                worker.close()
        log("scaling")
        scaling = _scaling(sizes, args.threads, tmp, log)
    gpu = "GPU section skipped (--no-gpu)." if args.no_gpu or mode == "smoke" else _gpu(mode != "full", log)
    elapsed = time.perf_counter() - started
    path = write_report(args.out, entries, scaling, info, mode, notes, gpu, elapsed)
    save_results(os.path.join(args.out, "performance", "results.json"), entries, scaling, info, mode, notes,
                 gpu, elapsed)
    log(f"wrote {path} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

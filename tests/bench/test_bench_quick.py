"""The peer benchmark suite (`python -m bench`): its report writer, and a smoke run end to end."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

pytest.importorskip("matplotlib")

from bench.peers import tf_api  # noqa: E402

from bench import run  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"
PLOTS = ("training.png", "pipeline.png", "memory.png", "scaling.png")


def _entry(section, label, impl, values, unit="examples/s", peak=300.0):
    entry = run.Entry(section, label, impl, "job", {})
    entry.runs = [{"value": v, "unit": unit, "seconds": 1.0, "peak_mb": peak, "base_mb": peak - 10}
                  for v in values]
    return entry


def _fake_entries():
    return [
        _entry("mlp", "torchestimator Keras fit", "ours", [900.0, 1000.0, 1100.0]),
        _entry("mlp", "PyTorch loop", "torch", [1900.0, 2000.0, 2100.0]),
        _entry("linreg", "torchestimator Keras fit", "ours", [150.0, 160.0, 170.0], unit="us/step"),
        _entry("linreg", "PyTorch loop", "torch", [70.0, 80.0, 90.0], unit="us/step"),
        _entry("pipeline_csv", "pyarrow.csv.read_csv", "io", [1e6, 2e6], unit="rows/s"),
        _entry("pipeline_csv", "torchestimator make_csv_dataset", "ours", [5e5, 1e6], unit="rows/s"),
    ]


def _check_report(out_dir, expect_sections):
    md_path = os.path.join(out_dir, "performance.md")
    with open(md_path) as f:
        md = f.read()
    assert "## Machine" in md and "| cpu |" in md
    for title in expect_sections:
        assert title in md, title
    assert md.count("| implementation | median") >= len(expect_sections)
    for name in PLOTS:
        assert f"performance/{name}" in md
        with open(os.path.join(out_dir, "performance", name), "rb") as f:
            assert f.read(8) == PNG, name
    return md


def test_table_median_range_and_ratio():
    entries = _fake_entries()
    text = run.table("mlp", entries)
    ours = next(line for line in text.splitlines() if line.startswith("| torchestimator"))
    cells = [c.strip() for c in ours.strip("|").split("|")]
    assert cells[1:4] == ["1,000", "900–1,100", "0.50×"]
    assert "÷ PyTorch loop" in text.splitlines()[0]
    linreg = run.table("linreg", entries)
    assert "lower is better" in linreg and "2.00×" in linreg
    assert run.table("wide_deep", entries) == ""


def test_failed_runs_are_shown_not_dropped():
    entry = run.Entry("mlp", "Lightning Trainer.fit", "lightning", "job", {})
    entry.runs = [{"error": "RuntimeError: boom", "peak_mb": 1.0, "base_mb": 1.0}]
    assert run.summary(entry.runs) is None
    assert "failed: RuntimeError: boom" in run.table("mlp", _fake_entries() + [entry])


def test_write_report_tables_and_pngs(tmp_path):
    scaling = {
        "data": [{"rows": r, "seconds": r / 1e5, "value": r / 1e5, "unit": "s", "peak_mb": 400.0}
                 for r in (100_000, 300_000, 1_000_000)],
        "model": [{"params": p, "value": p / 1e9, "unit": "s/step", "seconds": 1.0, "peak_mb": 300 + p / 1e5}
                  for p in (10_000, 100_000)],
    }
    path = run.write_report(str(tmp_path), _fake_entries(), scaling, {"cpu": "test cpu"}, "quick",
                            ["a note"], "No GPU: test.", 12.0)
    assert path == os.path.join(str(tmp_path), "performance.md")
    md = _check_report(str(tmp_path), [run.SECTION_TITLES["mlp"], run.SECTION_TITLES["linreg"],
                                       run.SECTION_TITLES["pipeline_csv"]])
    assert "| 1,000,000 | 10.00 | 100,000 | 400 |" in md
    assert "No GPU: test." in md and "- a note" in md


def test_results_json_rewrites_the_same_report(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    scaling = {"data": [{"rows": 1000, "seconds": 2.0, "value": 2.0, "unit": "s", "peak_mb": 300.0}],
               "model": [{"error": "ValueError: x", "params": 1000}]}
    entries = _fake_entries()
    run.write_report(str(first), entries, scaling, {"cpu": "c"}, "smoke", [], "No GPU.", 1.0)
    run.save_results(str(first / "performance" / "results.json"), entries, scaling, {"cpu": "c"}, "smoke", [],
                     "No GPU.", 1.0)
    assert run.main(["--from-json", str(first / "performance" / "results.json"), "--out", str(second)]) == 0
    strip = lambda text: text.split("\n", 3)[3]  # noqa: E731 - the first lines hold the write time
    assert strip((second / "performance.md").read_text()) == strip((first / "performance.md").read_text())
    assert "| 1,000 | failed: ValueError: x | |" in (second / "performance.md").read_text()


def test_hidden_width_matches_parameter_count():
    for params in (10_000, 1_000_000, 10_000_000):
        h = tf_api.hidden_for(params)
        assert abs(h * h + 13 * h + 1 - params) / params < 0.01


@pytest.mark.slow
def test_smoke_run_writes_tables_and_plots(tmp_path):
    env = dict(os.environ)
    env.pop("TORCHESTIMATOR_BENCH_TF_PYTHON", None)
    proc = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--out", str(tmp_path)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    md = _check_report(str(tmp_path), [run.SECTION_TITLES[s] for s in
                                       ("mlp", "iris", "linreg", "wide_deep", "pipeline_csv", "pipeline_parquet")])
    assert "failed:" not in md, md
    assert "Keras 3 (torch)" not in md and "TensorFlow 2.15 Keras fit" not in md

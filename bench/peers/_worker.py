"""One implementation's jobs in one process: `python -m bench.peers._worker IMPL THREADS`.

Reads one JSON job per stdin line (`{"job": "iris/estimator", "args": {...}}`), runs it, and
writes one `@@BENCH {json}` line per job on stdout: the job's result plus `peak_mb`, the
process's peak RSS during the job (VmHWM, reset through /proc/self/clear_refs before the job)
and `base_mb`, the RSS before it. IMPL: ours, tf215, torch, lightning, keras3, io.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback

MARK = "@@BENCH "


def _status_kb(key: str) -> float:
    try:
        with open("/proc/self/status") as f:
            match = re.search(rf"{key}:\s+(\d+)", f.read())
        return float(match.group(1)) if match else float("nan")
    except OSError:
        return float("nan")


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _load(impl: str, threads: int):
    """(call(job, args) -> dict) for `impl`."""
    if impl in ("ours", "tf215"):
        if impl == "ours":
            import torch

            torch.set_num_threads(threads)
            import torchestimator as tf
        else:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
            import tensorflow as tf

            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        from bench.peers import tf_api

        return lambda job, args: tf_api.JOBS[job](tf, **args)
    if impl in ("torch", "lightning", "keras3"):
        import torch

        torch.set_num_threads(threads)
    module = {"torch": "torch_loop", "lightning": "lightning_peer", "keras3": "keras3_peer",
              "io": "arrow_pandas"}[impl]
    jobs = __import__(f"bench.peers.{module}", fromlist=["JOBS"]).JOBS
    return lambda job, args: jobs[job](**args)


def main() -> int:
    impl, threads = sys.argv[1], int(sys.argv[2])
    call = _load(impl, threads)
    versions = {name: getattr(sys.modules[name], "__version__", "?")
                for name in ("tensorflow", "torch", "keras", "lightning", "numpy", "pyarrow", "pandas")
                if name in sys.modules}
    print(MARK + json.dumps({"ready": True, "rss_mb": _status_kb("VmRSS") / 1024, "versions": versions,
                             "python": sys.version.split()[0]}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        base = _status_kb("VmRSS") / 1024
        reset = _reset_peak()
        try:
            result = call(request["job"], request.get("args", {}))
        except Exception as exc:  # noqa: BLE001 - reported to the runner, which shows it
            traceback.print_exc()
            result = {"error": f"{type(exc).__name__}: {exc}"}
        result["peak_mb"] = _status_kb("VmHWM") / 1024 if reset else float("nan")
        result["base_mb"] = base
        print(MARK + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

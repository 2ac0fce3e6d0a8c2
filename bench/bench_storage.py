"""Checkpoints in a model_dir on a local disk, in `memory://` and on S3 (a moto server on
loopback, through s3fs): the time of `CheckpointManager.save` (tensors, metadata, then the
index), `latest_checkpoint` (index read and verification) and `load_checkpoint`.

    python bench/bench_storage.py                 # a 20 MB checkpoint, 5 repeats
    python bench/bench_storage.py --mb 100 --repeats 3

The S3 rows need `s3fs` and `moto[server]` (`pip install -c constraints.txt s3fs 'moto[server]'`)
and are left out without them. moto keeps objects in its process's memory, so those rows
measure the HTTP round trips and the copies, not a network. Each figure is the best of
--repeats; MB/s divides the checkpoint's size by the time.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import torch  # noqa: E402

from torchestimator._engine import checkpoint as ckpt  # noqa: E402


def _best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _rows(name: str, directory: str, tensors: dict, repeats: int, mb: float) -> list[tuple]:
    manager = ckpt.CheckpointManager(directory, max_to_keep=2)
    steps = iter(range(1, 10_000))
    save = _best(lambda: manager.save(next(steps), tensors), repeats)
    ckpt._VERIFIED.clear()
    latest_cold = _best(lambda: (ckpt._VERIFIED.clear(), ckpt.latest_checkpoint(directory)), repeats)
    latest_warm = _best(lambda: ckpt.latest_checkpoint(directory), repeats)
    load = _best(lambda: ckpt.load_checkpoint(directory), repeats)
    return [(name, "save (files, then index)", save, mb / save),
            (name, "latest_checkpoint (verifies)", latest_cold, mb / latest_cold),
            (name, "latest_checkpoint (verified before)", latest_warm, None),
            (name, "load_checkpoint", load, mb / load)]


def _moto() -> tuple | None:
    try:
        import fsspec
        import s3fs  # noqa: F401
        from moto.server import ThreadedMotoServer
    except ImportError:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    fsspec.config.conf["s3"] = {"endpoint_url": f"http://127.0.0.1:{port}", "key": "bench",
                                "secret": "bench"}
    bucket = f"bench-{uuid.uuid4().hex[:8]}"
    fsspec.filesystem("s3").mkdir(bucket)
    return server, f"s3://{bucket}/model"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = int(args.mb * (1 << 20) / 4)
    per = max(n // 8, 1)
    tensors = {f"layer_{i}/kernel": torch.randn(per) for i in range(8)}
    mb = sum(t.numel() * 4 for t in tensors.values()) / (1 << 20)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += _rows("local disk", os.path.join(tmp, "model"), tensors, args.repeats, mb)
    rows += _rows("memory://", f"memory://bench-{uuid.uuid4().hex}/model", tensors, args.repeats, mb)
    moto = _moto()
    if moto is not None:
        server, url = moto
        try:
            rows += _rows("s3:// (moto)", url, tensors, args.repeats, mb)
        finally:
            server.stop()
    print(f"checkpoint of {mb:.1f} MB, best of {args.repeats}")
    print(f"{'store':<14} {'operation':<38} {'ms':>9} {'MB/s':>9}")
    for store, op, seconds, rate in rows:
        shown = "" if rate is None else f"{rate:.0f}"
        print(f"{store:<14} {op:<38} {seconds * 1000:9.1f} {shown:>9}")
    if moto is None:
        print("(s3 rows left out: s3fs or moto[server] is not installed)")


if __name__ == "__main__":
    main()

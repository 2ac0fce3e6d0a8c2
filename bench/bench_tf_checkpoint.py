"""Reading a TensorFlow checkpoint (`_tf_formats.tensor_bundle`) against the disk's sequential
read rate, measured in the same run on the same file.

    python bench/bench_tf_checkpoint.py              # a 100 MB checkpoint, 5 repeats
    python bench/bench_tf_checkpoint.py --mb 400 --repeats 3

The checkpoint (float32 tensors of 1-4 MB, a few small ones and an int64 global_step, as
TF's BundleWriter lays them out: one `.data` shard, an SSTable `.index` of
`BundleEntryProto`s with each tensor's CRC32C) is written by the small writer below
(TensorFlow is not needed; tests/migration checks the reader against files TF wrote).
Rows (the "x disk" columns divide by the first row):
  * `disk read`: plain `readinto` of the data shard in 8 MB chunks (the disk's rate).
  * `disk read into fresh memory`: the whole shard in one `read` into a new buffer: what
    reading costs when the result is kept (fresh pages are faulted in; on small VMs this,
    not the disk, bounds every reader that keeps the tensors).
  * `TensorBundle.read_all`: every tensor as numpy, each CRC32C checked.
  * `tf.train.load_checkpoint(...).get_tensor` over every name.
  * `Estimator restore path` (`_engine.checkpoint.load_checkpoint`): numpy -> torch too.
"cold" rows first evict the files from the page cache (posix_fadvise DONTNEED), "warm"
rows read them cached. Each figure is the best of --repeats.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from torchestimator._tf_formats import _protos  # noqa: E402
from torchestimator._tf_formats._crc32c import crc32c, mask  # noqa: E402
from torchestimator._tf_formats._sstable import MAGIC  # noqa: E402

DT_FLOAT, DT_INT64 = 1, 9


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _block(entries: list[tuple[bytes, bytes]]) -> bytes:
    body = bytearray()
    restarts = []
    for key, value in entries:  # every entry a restart point: no prefix compression
        restarts.append(len(body))
        body += _varint(0) + _varint(len(key)) + _varint(len(value)) + key + value
    for r in restarts:
        body += struct.pack("<I", r)
    body += struct.pack("<I", len(restarts))
    return bytes(body)


def write_tf_checkpoint(prefix: str, tensors: dict[str, np.ndarray], step: int) -> None:
    """Writes `tensors` (float32 / int64) as TF's V2 checkpoint `prefix`, one data shard."""
    tensors = {**tensors, "global_step": np.array(step, np.int64)}
    entries = []
    offset = 0
    with open(prefix + ".data-00000-of-00001", "wb") as data:
        for name in sorted(tensors):
            raw = np.ascontiguousarray(tensors[name]).tobytes()
            entry = _protos.BundleEntryProto(
                dtype=DT_INT64 if tensors[name].dtype == np.int64 else DT_FLOAT,
                shard_id=0, offset=offset, size=len(raw), crc32c=mask(crc32c(raw)))
            for d in tensors[name].shape:
                entry.shape.dim.add(size=d)
            data.write(raw)
            offset += len(raw)
            entries.append((name.encode(), entry.SerializeToString()))
    header = _protos.BundleHeaderProto(num_shards=1, endianness=0)
    header.version.producer = 1
    entries.insert(0, (b"", header.SerializeToString()))
    out = bytearray()

    def add_block(contents: bytes) -> tuple[int, int]:
        start = len(out)
        out.extend(contents)
        trailer_crc = mask(crc32c(contents + b"\x00"))
        out.extend(b"\x00" + struct.pack("<I", trailer_crc))
        return start, len(contents)

    data_handle = add_block(_block(entries))
    meta_handle = add_block(_block([]))
    index_handle = add_block(_block([(entries[-1][0] + b"\xff", _varint(data_handle[0]) + _varint(data_handle[1]))]))
    footer = _varint(meta_handle[0]) + _varint(meta_handle[1]) + _varint(index_handle[0]) + _varint(index_handle[1])
    footer = footer.ljust(40, b"\x00") + struct.pack("<Q", MAGIC)
    with open(prefix + ".index", "wb") as f:
        f.write(bytes(out) + footer)


def evict(paths: list[str]) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def disk_read(path: str) -> None:
    buffer = bytearray(8 << 20)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as f:
        while f.readinto(view):
            pass


def best(fn, repeats: int, cold: bool, paths: list[str]) -> float:
    times = []
    for _ in range(repeats):
        if cold:
            evict(paths)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where to write the checkpoint (default: a temp dir)")
    args = parser.parse_args()

    import torchestimator as tf
    from torchestimator._engine import checkpoint as ckpt
    from torchestimator._tf_formats.tensor_bundle import TensorBundle

    rng = np.random.default_rng(0)
    tensors: dict[str, np.ndarray] = {}
    total = 0
    i = 0
    while total < args.mb * 1e6:
        rows = int(rng.integers(256, 1024))
        value = rng.standard_normal((rows, 1024), dtype=np.float32)
        tensors[f"dnn/hiddenlayer_{i}/kernel"] = value
        tensors[f"dnn/hiddenlayer_{i}/bias"] = rng.standard_normal(1024, dtype=np.float32)
        total += value.nbytes + 4096
        i += 1
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        prefix = os.path.join(folder, "model.ckpt-100")
        write_tf_checkpoint(prefix, tensors, 100)
        shard = prefix + ".data-00000-of-00001"
        paths = [shard, prefix + ".index"]
        size = os.path.getsize(shard)
        with TensorBundle(prefix) as bundle:  # sanity: the reader gets the values back
            assert np.array_equal(bundle.get_tensor("dnn/hiddenlayer_0/kernel"), tensors["dnn/hiddenlayer_0/kernel"])

        def read_all() -> None:
            with TensorBundle(prefix) as bundle:
                for _ in bundle.read_all():
                    pass

        def reader() -> None:
            r = tf.train.load_checkpoint(prefix)
            for name in r.get_variable_to_shape_map():
                r.get_tensor(name)

        def restore() -> None:
            ckpt.load_checkpoint(prefix)

        print(f"TF checkpoint: {size / 1e6:.1f} MB in {len(tensors) + 1} tensors "
              f"(python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
        print(f"{'':42s}{'cold MB/s':>12s}{'x disk':>8s}{'warm MB/s':>12s}{'x disk':>8s}")
        base = {}
        def disk_read_whole() -> None:
            with open(shard, "rb", buffering=0) as f:
                f.read()

        for label, fn in (("disk read (readinto, 8 MB chunks)", lambda: disk_read(shard)),
                          ("disk read into fresh memory (one read)", disk_read_whole),
                          ("TensorBundle.read_all (CRC32C checked)", read_all),
                          ("tf.train.load_checkpoint + get_tensor", reader),
                          ("Estimator restore path (-> torch)", restore)):
            cold = size / best(fn, args.repeats, True, paths) / 1e6
            warm = size / best(fn, args.repeats, False, paths) / 1e6
            base.setdefault("cold", cold)
            base.setdefault("warm", warm)
            print(f"{label:42s}{cold:12.0f}{cold / base['cold']:8.2f}{warm:12.0f}{warm / base['warm']:8.2f}")


if __name__ == "__main__":
    main()

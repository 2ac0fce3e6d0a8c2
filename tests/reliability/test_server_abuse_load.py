"""The server holds under abuse (security issue 26): a real `torchestimator serve` on 127.0.0.1,
64 keep-alive clients sending small `:predict` requests, first alone (the unloaded p99), then
for 30 s beside 8 slow clients (dribbling headers, or a body that stops) and 2 clients sending
oversized requests (too many rows; a body over the size limit). The well-behaved clients see no
error and a p99 latency within 3x the unloaded one. One asyncio loop drives every client."""

from __future__ import annotations

import asyncio
import json
import shutil
import time

import pytest
from _serving_helpers import PREDICT, make_export, serving_testlib

pytestmark = pytest.mark.slow

CLIENTS = 64
SLOW_CLIENTS = 8
UNLOADED_SECONDS = 10.0
LOADED_SECONDS = 30.0
LIMITS = ["--header_timeout_seconds", "2", "--body_timeout_seconds", "2",
          "--max_request_rows", "1000", "--max_body_bytes", str(1 << 20)]


def _post(path: str, body: bytes) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


PATH = "/v1/models/m:predict"
GOOD = _post(PATH, PREDICT)
TOO_MANY_ROWS = _post(PATH, json.dumps({"signature_name": "predict",
                                        "instances": [0.5] * 5000}).encode())
TOO_LARGE_HEAD = (f"POST {PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: {2 << 20}\r\n\r\n"
                  .encode())


async def _answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """(status code, body) of one HTTP answer with a Content-Length."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    return head[9:12], await reader.readexactly(length)


async def _good_client(port: int, stop_at: float, latencies: list, errors: list) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            writer.write(GOOD)
            try:
                status, body = await _answer(reader)
            except (OSError, asyncio.IncompleteReadError):  # closed when idle: reconnect
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            latencies.append(time.perf_counter() - started)
            if status != b"200":
                errors.append(status + b" " + body[:200])
    except OSError as error:
        errors.append(repr(error).encode())
    finally:
        writer.close()


async def _slow_client(port: int, stop_at: float, index: int, cut_off: list) -> None:
    """Dribbles headers (even index) or sends half a body (odd), reconnecting when cut off."""
    while time.monotonic() < stop_at:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            if index % 2:
                writer.write(GOOD[:-5])  # the body's end never comes
            else:
                for byte in GOOD[:-len(PREDICT) - 4]:
                    writer.write(bytes([byte]))
                    await asyncio.sleep(0.2)
                    if reader.at_eof() or time.monotonic() > stop_at:
                        break
            data = await asyncio.wait_for(reader.read(), max(0.1, stop_at - time.monotonic()))
            cut_off.append(data[9:12])
        except (OSError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()


async def _oversized_client(port: int, stop_at: float, kind: int, refused: list) -> None:
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(TOO_MANY_ROWS if kind == 0 else TOO_LARGE_HEAD)
            status, _ = await _answer(reader)
            refused.append(status)
            writer.close()
        except (OSError, asyncio.IncompleteReadError):
            pass
        await asyncio.sleep(0.05)


def _p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[int(0.99 * (len(ordered) - 1))]


async def _phase(port: int, seconds: float, abuse: bool) -> dict:
    stop_at = time.monotonic() + seconds
    latencies: list[float] = []
    errors: list = []
    cut_off: list = []
    refused: list = []
    tasks = [_good_client(port, stop_at, latencies, errors) for _ in range(CLIENTS)]
    if abuse:
        tasks += [_slow_client(port, stop_at, i, cut_off) for i in range(SLOW_CLIENTS)]
        tasks += [_oversized_client(port, stop_at, k, refused) for k in range(2)]
    await asyncio.gather(*tasks)
    return {"latencies": latencies, "errors": errors, "cut_off": cut_off, "refused": refused}


def test_well_behaved_clients_keep_their_latency_under_abuse(tmp_path):
    export = make_export(str(tmp_path / "model"), str(tmp_path / "scratch"))
    base = tmp_path / "base"
    shutil.copytree(export, base / "1")
    server = serving_testlib().Server("m", str(base), *LIMITS)
    try:
        asyncio.run(_phase(server.port, 2.0, abuse=False))  # warm-up
        alone = asyncio.run(_phase(server.port, UNLOADED_SECONDS, abuse=False))
        loaded = asyncio.run(_phase(server.port, LOADED_SECONDS, abuse=True))
    finally:
        server.stop()
    assert not alone["errors"] and not loaded["errors"], (alone["errors"][:3],
                                                          loaded["errors"][:3])
    unloaded_p99, loaded_p99 = _p99(alone["latencies"]), _p99(loaded["latencies"])
    print(f"\nunloaded: {len(alone['latencies'])} requests, p99 {unloaded_p99 * 1000:.1f} ms; "
          f"loaded: {len(loaded['latencies'])} requests, p99 {loaded_p99 * 1000:.1f} ms; "
          f"slow clients cut off {len(loaded['cut_off'])} times "
          f"({sorted(set(loaded['cut_off']))}); oversized refused {len(loaded['refused'])} "
          f"times ({sorted(set(loaded['refused']))})")
    assert loaded_p99 <= 3 * unloaded_p99, (unloaded_p99, loaded_p99)
    assert set(loaded["refused"]) == {b"413"} and len(loaded["refused"]) >= 10
    assert loaded["cut_off"] and set(loaded["cut_off"]) <= {b"408", b""}

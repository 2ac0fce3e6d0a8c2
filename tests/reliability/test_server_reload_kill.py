"""SIGKILL during the server's version reload. A real `torchestimator serve` watches a base path
(polling every 0.2 s) while an exporter process writes new versions into it with
`export_saved_model` over and over, and is SIGKILLed at a random moment; in other trials the
server itself is SIGKILLed mid-reload and started again. After every trial: the server never
tried to load a partial version (no failed load in its log or status), it kept answering
`:predict` with 200 throughout (a client thread asks all the time), and it serves the newest
complete version on disk within a few seconds. Trials: 1 in the default run (an exporter
kill), 20 exporter kills + 6 server kills slow."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from _serving_helpers import PREDICT, make_export, serving_testlib

import torchestimator as tf

WORKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "saved_model",
                      "_export_kill_worker.py")


class _Client(threading.Thread):
    """Asks `server` for :predict until stopped; keeps every status that was not 200."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server, self.bad, self.asked = server, [], 0
        self._stop_event = threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            status, body = self.server.post(self.server.model(":predict"), raw=PREDICT)
            self.asked += 1
            if status != 200:
                self.bad.append((status, body))
            time.sleep(0.01)

    def stop(self):
        self._stop_event.set()
        self.join(60)


def _spawn_exporter(model_dir: str, base: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, WORKER, model_dir, base], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def _start_exporter(model_dir: str, base: str,
                    process: subprocess.Popen | None = None) -> subprocess.Popen:
    """The exporter, once it has written its first new version (so that every trial makes the
    server reload, and the kill lands among the exports that follow)."""
    process = process or _spawn_exporter(model_dir, base)
    assert process.stdout.readline().strip() == "ready"
    assert process.stdout.readline().strip() == "exported"
    return process


def _kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def _complete_versions(base: str) -> list[int]:
    names = os.listdir(base)
    assert all(n.isdigit() or n.startswith("temp-") for n in names), names
    return sorted(int(n) for n in names if n.isdigit())


def _settle(server, base: str, seen: set[int]) -> int:
    """Waits until the server serves the newest version on disk; checks it never failed to load
    one; loads every version new since the last check with tf.saved_model.load. Returns the
    newest version."""
    versions = _complete_versions(base)
    for version in versions:
        if version not in seen:  # every numbered directory is a complete export
            loaded = tf.saved_model.load(os.path.join(base, str(version)))
            assert "predict" in loaded.signatures
            seen.add(version)
    newest = versions[-1]
    deadline = time.monotonic() + 60
    while True:
        status, body = server.get(server.model())
        assert status == 200, body
        states = body["model_version_status"]
        assert not [s for s in states if s["state"] == "END"], states  # a load that failed
        if max(int(s["version"]) for s in states if s["state"] == "AVAILABLE") == newest:
            break
        assert time.monotonic() < deadline, f"the server did not pick up {newest}: {states}"
        time.sleep(0.1)
    assert server.post(server.model(":predict"), raw=PREDICT)[0] == 200
    assert "failed" not in server.log().lower(), server.log()[-3000:]
    return newest


def _exporter_kill_trials(tmp_path, trials: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    base, model_dir = str(tmp_path / "base"), str(tmp_path / "model")
    shutil.copytree(make_export(model_dir, str(tmp_path / "first")), os.path.join(base, "1"))
    first = _spawn_exporter(model_dir, base)  # starts while the server does
    try:
        server = serving_testlib().Server("m", base)
    except BaseException:
        _kill(first)
        raise
    client = _Client(server)
    client.start()
    survived, seen, newest = 0, set(), 1
    try:
        for trial in range(trials):
            exporter = _start_exporter(model_dir, base, first if trial == 0 else None)
            time.sleep(rng.uniform(0.0, 1.0))
            _kill(exporter)
            got = _settle(server, base, seen)
            assert got > newest  # the trial's new versions were picked up
            newest = got
            survived += 1
        assert client.bad == [], client.bad[:3]
        assert client.asked > trials
    finally:
        client.stop()
        server.stop()
    return survived, newest


def _server_kill_trials(tmp_path, trials: int, seed: int) -> int:
    rng = random.Random(seed)
    base, model_dir = str(tmp_path / "base"), str(tmp_path / "model")
    shutil.copytree(make_export(model_dir, str(tmp_path / "first")), os.path.join(base, "1"))
    lib = serving_testlib()
    survived, seen, newest = 0, set(), 1
    for _ in range(trials):
        server = lib.Server("m", base)
        exporter = _start_exporter(model_dir, base)
        try:
            time.sleep(rng.uniform(0.0, 1.0))  # the server is reloading the new versions
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(30)
            time.sleep(rng.uniform(0.0, 0.5))
        finally:
            _kill(exporter)
            server.stop()
        restarted = lib.Server("m", base)  # a fresh start serves the newest complete version
        try:
            got = _settle(restarted, base, seen)
        finally:
            restarted.stop()
        assert got > newest
        newest = got
        survived += 1
    return survived


def test_sigkill_of_the_exporter_while_the_server_reloads(tmp_path):
    survived, newest = _exporter_kill_trials(tmp_path, 1, seed=11)
    assert survived == 1 and newest >= 1


@pytest.mark.slow
def test_sigkill_of_the_exporter_while_the_server_reloads_many_trials(tmp_path):
    survived, newest = _exporter_kill_trials(tmp_path, 20, seed=13)
    assert survived == 20 and newest > 1  # at least one new version was served


@pytest.mark.slow
def test_sigkill_of_the_server_during_reload_many_trials(tmp_path):
    assert _server_kill_trials(tmp_path, 6, seed=14) == 6

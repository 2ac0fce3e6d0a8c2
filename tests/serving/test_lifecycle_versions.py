"""ModelVersions and ModelConfigWatcher in process, on real exports: version policies, labels,
a held version unloaded only when released, a corrupt version reported END, a version being
written never served partial, config reloads."""

from __future__ import annotations

import logging
import os
import shutil
import time

import pytest

from torchestimator.serving._errors import RequestError
from torchestimator.serving._model_config import VersionPolicy
from torchestimator.serving._versions import ModelConfigWatcher, ModelRegistry, ModelVersions


@pytest.fixture
def base(exports, tmp_path) -> str:
    """Versions 1 and 2 of the Iris classifier, and version 1 again as 3."""
    root = str(tmp_path / "iris")
    os.makedirs(root)
    shutil.copytree(exports["iris_v1"], os.path.join(root, "1"))
    shutil.copytree(exports["iris_v2"], os.path.join(root, "2"))
    shutil.copytree(exports["iris_v1"], os.path.join(root, "3"))
    return root


def _served(models: ModelVersions) -> dict[int, str]:
    return {int(e["version"]): e["state"] for e in models.status(None)}


@pytest.mark.parametrize("policy, loaded, latest", [
    (VersionPolicy(), [3], 3),
    (VersionPolicy("latest", 2, explicit=True), [2, 3], 3),
    (VersionPolicy("all", explicit=True), [1, 2, 3], 3),
    (VersionPolicy("specific", versions=(1, 2, 7), explicit=True), [1, 2], 2),
])
def test_the_version_policy_decides_what_loads(base, policy, loaded, latest):
    models = ModelVersions("iris", base, poll_seconds=0, policy=policy, lazy=False)
    models.start()
    assert _served(models) == {v: "AVAILABLE" for v in loaded}
    assert models.get(None).version == latest
    unserved = ({1, 2, 3} - set(loaded)).pop() if set(loaded) != {1, 2, 3} else None
    if unserved is not None:
        with pytest.raises(RequestError) as raised:
            models.get(unserved)
        assert raised.value.status == 404 and "version policy" in raised.value.message


def test_labels_name_versions_and_must_name_available_ones(base):
    policy = VersionPolicy("specific", versions=(1, 2), explicit=True)
    models = ModelVersions("iris", base, poll_seconds=0, policy=policy,
                           labels={"stable": 1, "canary": 2}, lazy=False)
    models.start()
    assert models.acquire(label="stable").version == 1
    assert models.get(models.label_version("canary")).version == 2
    with pytest.raises(RequestError, match="Unrecognized servable version label: nope"):
        models.label_version("nope")
    refused = ModelVersions("iris", base, poll_seconds=0, policy=policy, labels={"old": 3},
                            lazy=False)
    with pytest.raises(ValueError, match="'old' to version 3.*not currently available"):
        refused.start()
    allowed = ModelVersions("iris", base, poll_seconds=0, policy=policy, labels={"old": 3},
                            lazy=False, allow_unavailable_labels=True)
    allowed.start()
    assert allowed.label_version("old") == 3


def test_a_held_version_is_unloaded_when_its_last_request_ends(base, caplog):
    shutil.rmtree(os.path.join(base, "3"))
    shutil.rmtree(os.path.join(base, "2"))
    models = ModelVersions("iris", base, poll_seconds=0, lazy=False)
    models.start()
    held = models.acquire()
    assert held.version == 1
    shutil.copytree(os.path.join(base, "1"), os.path.join(base, "2"))
    with caplog.at_level(logging.INFO, logger="torchestimator.serving"):
        models.refresh()
        assert models.get(None).version == 2
        assert _served(models) == {1: "UNLOADING", 2: "AVAILABLE"}
        assert held.signatures["predict"] is not None and not held.unloaded
        assert "Done unloading servable version {name: iris version: 1}" not in caplog.text
        held.release()
    assert held.unloaded
    assert _served(models) == {2: "AVAILABLE"}
    assert caplog.text.count("Done unloading servable version {name: iris version: 1}") == 1
    assert "Successfully loaded servable version {name: iris version: 2}" in caplog.text


def test_a_corrupt_version_is_reported_and_the_old_one_keeps_serving(base):
    models = ModelVersions("iris", base, poll_seconds=0, lazy=False)
    models.start()
    os.makedirs(os.path.join(base, "9"))
    with open(os.path.join(base, "9", "saved_model.json"), "w") as f:
        f.write("{broken")
    models.refresh()
    states = models.status(None)
    assert {e["version"]: e["state"] for e in states} == {"3": "AVAILABLE", "9": "END"}
    (failed,) = models.status(9)
    assert failed["state"] == "END" and failed["status"]["error_message"]
    assert models.get(None).version == 3


def test_a_version_being_written_is_not_served_until_it_is_whole(base, exports):
    """A copy not yet renamed into place (an exporter's temp-... directory) is not a
    version; a version written in place is reported END while it is partial, the old one
    serving, and loads once the rest of its files arrive (its directory changed)."""
    models = ModelVersions("iris", base, poll_seconds=0, lazy=False)
    models.start()
    try:
        source = exports["iris_v2"]
        files = sorted(os.listdir(source))
        scratch = os.path.join(base, "temp-1700000000")
        os.makedirs(scratch)
        shutil.copy(os.path.join(source, "saved_model.json"), scratch)
        models.refresh()
        assert _served(models) == {3: "AVAILABLE"}
        target = os.path.join(base, "4")
        os.makedirs(target)
        shutil.copy(os.path.join(source, "saved_model.json"), target)  # the first file only
        models.refresh()
        assert _served(models) == {3: "AVAILABLE", 4: "END"}
        assert models.get(None).version == 3
        time.sleep(0.05)  # (past the file system's timestamp granularity: the directory's
        # mtime, which the failed load was stamped with, changes with the files below)
        for name in files:
            if name != "saved_model.json":
                shutil.copy(os.path.join(source, name), target)
        models.refresh()
        assert _served(models) == {4: "AVAILABLE"}
        assert models.get(None).version == 4
    finally:
        models.stop()


def _write(path, models: list[str]) -> None:
    path.write_text("model_config_list {" + "".join(f" config {{ {m} }}" for m in models)
                    + " }")


def test_a_reloaded_config_adds_changes_and_removes_models(base, exports, tmp_path):
    config = tmp_path / "models.config"
    _write(config, [f'name: "iris" base_path: "{base}"',
                    f'name: "raw" base_path: "{exports["raw_base"]}"'])
    registry = ModelRegistry()
    watcher = ModelConfigWatcher(config, registry, poll_seconds=0)
    watcher.start()
    try:
        assert sorted(registry) == ["iris", "raw"]
        iris = registry["iris"]
        raw = registry["raw"].acquire()  # a request in flight on the model that goes
        assert watcher.reload() is False  # unchanged
        _write(config, [f'name: "iris" base_path: "{base}" model_version_policy '
                        '{ specific { versions: 1 } } version_labels { key: "a" value: 1 }',
                        f'name: "reg" base_path: "{exports["regressor_base"]}"'])
        assert watcher.reload() is True
        assert sorted(registry) == ["iris", "reg"]
        assert registry["iris"] is iris  # the same model, its policy and labels changed
        assert _served(iris) == {1: "AVAILABLE"} and iris.label_version("a") == 1
        assert not raw.unloaded  # still held
        raw.release()
        assert raw.unloaded
        _write(config, ["name: 'iris' oops"])
        with pytest.raises(ValueError, match="Invalid protobuf file"):
            watcher.reload()
        assert sorted(registry) == ["iris", "reg"]  # nothing changed
    finally:
        watcher.stop()

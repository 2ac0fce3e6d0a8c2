"""Crafted Keras files (security issue 26): loading one runs no code from it and allocates no
more than it holds, whatever it says. The files are written by hand (zipfile, json, h5py), not
by the saver. Each load runs inside `crafted_guard` (no process, shell, socket, write outside the
test's folder, or import of a module outside the guard's allowlist) and each payload is a canary
(`touch <tmp>/pwned`) whose file must not exist afterwards. Keras' own history is the checklist:
CVE-2024-3660 (lambda source/bytecode in safe mode), CVE-2025-1550 (module import named by the
config), CVE-2025-9906 (a config turning unsafe deserialization on), CVE-2025-9905 (`.h5`
ignoring `safe_mode`)."""

from __future__ import annotations

import base64
import inspect
import json
import os
import re
import struct
import zipfile

import numpy as np
import pytest

import torchestimator as tf
from _crafted_guard import crafted_guard
from torchestimator.keras import _registry

load_model = tf.keras.models.load_model


@pytest.fixture(scope="module", autouse=True)
def _warm_load_path(tmp_path_factory):
    """Loads a genuine model once, outside any guard: the package's own first-time imports
    (its layer namespaces, tensorboard, h5py) are not the crafted files' doing."""
    folder = tmp_path_factory.mktemp("warm")
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,)),
                                 tf.keras.layers.Lambda(tf.keras.activations.relu)])
    model.compile("adam", "mse")
    model.save(str(folder / "warm.keras"))
    load_model(str(folder / "warm.keras"))
    _registry._load_builtins()
    with pytest.raises(ValueError):
        tf.keras.layers.Lambda.from_config({"function": "relu\u0131", "module": "keras"})
    pytest.importorskip("h5py")


# ---------------------------------------------------------------------------------- crafting
def _safetensors(header: dict | None = None, data: bytes = b"") -> bytes:
    """Safetensors bytes written by hand: an 8-byte header length, the JSON header, the data."""
    text = json.dumps({"__metadata__": {}, **(header or {})}).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def _write_keras(path, config: dict, weights: bytes | None = None,
                 compression: int = zipfile.ZIP_STORED) -> str:
    """A `.keras` archive with `config` as its config.json (and empty weights by default)."""
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "crafted"}))
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("model.weights.safetensors", _safetensors() if weights is None else weights)
    return str(path)


def _input(name: str = "in", shape=(None, 3)) -> dict:
    """An InputLayer spec (Functional form; Sequential ignores `inbound_nodes`)."""
    return {"class_name": "InputLayer", "name": name, "inbound_nodes": [],
            "config": {"batch_input_shape": list(shape), "dtype": "float32", "name": name}}


def _lambda(name: str, function, module, function_type: str = "function", **extra) -> dict:
    config = {"name": name, "trainable": True, "dtype": "float32", "function": function,
              "function_type": function_type, "module": module, "output_shape": None,
              "output_shape_type": "raw", "output_shape_module": None, "arguments": {}}
    config.update(extra)
    return {"class_name": "Lambda", "name": name, "config": config, "registered_name": "Lambda"}


def _sequential(*layers: dict, name: str = "seq", shape=(None, 3)) -> dict:
    return {"class_name": "Sequential", "registered_name": "Sequential",
            "config": {"name": name, "layers": [_input(shape=shape), *layers]}}


def _called_with(layer: dict, *args) -> dict:
    """`layer` in a functional model, called with constant `args` (a crafted inbound node)."""
    return {**layer, "inbound_nodes": [{"args": list(args), "kwargs": {}}]}


def _functional(*layers: dict, output: str) -> dict:
    return {"class_name": "Functional", "registered_name": "Functional",
            "config": {"name": "f", "layers": [_input(), *layers], "input_layers": [["in", 0, 0]],
                       "output_layers": [[output, 0, 0]],
                       "input_structure": "single", "output_structure": "single"}}


def _on_input(layer: dict) -> dict:
    return {**layer, "inbound_nodes": [{"args": [{"__keras_tensor__": ["in", 0, 0]}], "kwargs": {}}]}


def _refused(tmp_path, path, *patterns: str, error=ValueError, **kwargs) -> str:
    """Loads `path` under the guard, expects `error` whose message names the file and matches
    every pattern, checks the canary was not created; returns the message."""
    with crafted_guard(tmp_path):
        with pytest.raises(error) as caught:
            load_model(path, **kwargs)
    message = str(caught.value)
    if os.environ.get("SHOW_CRAFTED_ERRORS"):
        print(f"\n{type(caught.value).__name__}: {message}")
    assert str(path) in message, message
    for pattern in patterns:
        assert re.search(pattern, message, re.S), f"{pattern!r} not in {message!r}"
    assert not (tmp_path / "pwned").exists(), "the crafted file ran its payload"
    return message


@pytest.fixture
def touch(tmp_path) -> str:
    """The canary command: it would create `<tmp>/pwned`."""
    return f"touch {tmp_path / 'pwned'}"


# ---------------------------------------------------------------------------------- CVE-2025-1550
def test_os_system_called_on_a_constant_is_refused(tmp_path, touch):
    config = _functional(_called_with(_lambda("run", "system", "os"), touch), output="run")
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config),
             '"run"', "os.system", "safe_mode=False")


def test_an_allowed_layer_called_on_constants_only_is_refused(tmp_path):
    """A node of constants alone would run the layer eagerly on data from the file while the
    model loads (the shape of the os.system attack, with a function safe mode allows): every
    saved node must take the output of another layer."""
    dense = {"class_name": "Dense", "name": "d", "registered_name": "Dense",
             "config": {"name": "d", "units": 2, "dtype": "float32"}}
    relu = _lambda("r", "relu", "torchestimator.keras.activations")
    for name, layer in (("d", dense), ("r", relu)):
        config = _functional(_called_with(layer, [[1.0, 2.0, 3.0]]), output=name)
        _refused(tmp_path, _write_keras(tmp_path / f"{name}.keras", config),
                 f"layer '{name}'", "called on constants only")


def test_typing_cast_feeding_os_system_is_refused(tmp_path, touch):
    config = _sequential(_lambda("feed", "cast", "typing", arguments={"val": touch}),
                         _lambda("run", "system", "os"))
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config), '"feed"', "typing.cast")


GADGETS = [
    ("subprocess", "getoutput"), ("subprocess", "call"), ("subprocess", "Popen"),
    ("builtins", "eval"), ("builtins", "exec"), ("builtins", "__import__"),
    ("importlib", "import_module"), ("os", "system"), ("posix", "system"), ("os", "popen"),
    ("pathlib", "Path.touch"), ("shutil", "rmtree"), ("torch", "save"), ("torch", "load"),
    ("torch", "from_file"), ("torch.hub", "load"), ("numpy", "save"),
    ("torchestimator.io.gfile", "makedirs"), ("torchestimator.io.gfile", "GFile"),
    ("torchestimator.io", "TFRecordWriter"), ("torchestimator", "py_function"),
    ("torchestimator", "print"), ("torchestimator.keras.saving", "safe_mode_scope"),
    ("torchestimator.keras.layers.core", "enable_unsafe_deserialization"),
    ("torchestimator.keras.layers.core._function_serialization", "SafeModeScope"),
    ("keras.config", "enable_unsafe_deserialization"), ("keras.utils", "get_file"),
    ("tensorflow.io", "write_file"), ("this", "s"), (None, "eval"),
]


@pytest.mark.parametrize(("module", "function"), GADGETS)
def test_a_lambda_naming_a_gadget_is_refused(tmp_path, touch, module, function):
    config = _functional(_called_with(_lambda("run", function, module), touch), output="run")
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config),
             '"run"', re.escape(function), "safe_mode=False")


def test_keras3_style_function_dict_naming_os_system_is_refused(tmp_path, touch):
    function = {"module": "os", "class_name": "function", "config": "system",
                "registered_name": "function"}
    config = _functional(_called_with(_lambda("run", function, None), touch), output="run")
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config), '"run"', "os.system")


@pytest.mark.parametrize("field", ["mask", "output_shape"])
def test_os_system_through_mask_or_output_shape_is_refused(tmp_path, field):
    layer = _on_input(_lambda("edge", "relu", "keras.activations",
                              **{field: "system", f"{field}_type": "function",
                                 f"{field}_module": "os"}))
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _functional(layer, output="edge")),
             '"edge"', field, "os.system", "safe_mode=False")


def test_a_raw_mask_record_naming_a_module_is_not_imported(tmp_path):
    layer = _on_input(_lambda("edge", "relu", None, mask={"module": "os", "object": "system"},
                              mask_type="raw"))
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _functional(layer, output="edge")),
             '"edge"', "mask", "'os'", "safe_mode=False")


def test_arguments_are_data_never_deserialized(tmp_path, touch):
    payload = {"class_name": "function", "module": "os", "config": "system",
               "registered_name": "function", "args": [touch]}
    layer = _on_input(_lambda("args", "relu", None, arguments={"alpha": payload}))
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _functional(layer, output="args")))


@pytest.mark.parametrize("layer", [
    {"class_name": "system", "module": "os", "config": {"name": "x"}, "registered_name": "system"},
    {"class_name": "os.system", "config": {"name": "x"}},
    {"class_name": "system", "module": "os", "config": {"name": "x"}, "registered_name": "os>system"},
    {"class_name": "Lambda", "module": "os", "config": {"name": "x"}, "registered_name": "os.system",
     "function": "system"},
    {"class_name": "enable_unsafe_deserialization", "config": {"name": "x"},
     "module": "torchestimator.keras.layers.core"},
    {"class_name": "SafeModeScope", "config": {"safe_mode": False, "name": "x"}},
], ids=["module-os", "dotted-class-name", "registered-name-module", "lambda-without-function",
        "unsafe-switch-as-class", "safe-mode-scope-as-class"])
def test_a_layer_config_naming_a_module_is_never_imported(tmp_path, layer):
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _sequential(layer)), "'x'|x")


def test_a_nested_object_config_naming_os_system_is_refused(tmp_path):
    dense = {"class_name": "Dense", "config": {
        "name": "d", "units": 2,
        "activation": {"class_name": "function", "config": "system", "module": "os",
                       "registered_name": "function"},
        "kernel_initializer": {"class_name": "system", "module": "os", "config": {}}}}
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _sequential(dense)), "system")


@pytest.mark.parametrize("wrapper", ["Sequential", "TimeDistributed", "Bidirectional", "Functional"])
def test_os_system_nested_inside_a_wrapper_is_refused(tmp_path, touch, wrapper):
    run = _lambda("run", "system", "os")
    if wrapper == "Sequential":
        outer = _sequential({"class_name": "Sequential", "config": {"name": "inner", "layers": [run]}})
    elif wrapper == "TimeDistributed":
        outer = _sequential({"class_name": "TimeDistributed", "config": {"name": "td", "layer": run}},
                            shape=(None, 2, 3))
    elif wrapper == "Bidirectional":
        lstm = {"class_name": "LSTM", "config": {
            "name": "lstm", "units": 2,
            "activation": {"class_name": "function", "config": "system", "module": "os"},
            "recurrent_activation": run}}
        outer = _sequential({"class_name": "Bidirectional", "config": {"name": "bi", "layer": lstm}},
                            shape=(None, 2, 3))
    else:
        inner = _functional(_called_with(run, touch), output="run")
        outer = _sequential({**inner, "config": {**inner["config"], "name": "inner"}})
    refusal = "Unknown activation" if wrapper == "Bidirectional" else '"run".*safe_mode=False'
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", outer), "system", refusal)


@pytest.mark.parametrize(("module", "function"), [
    ("ｏｓ", "system"),          # full-width letters (NFKC folds them to "os")
    ("оs", "system"),           # Cyrillic "о"
    ("os", "ѕystem"),           # Cyrillic "ѕ"
    ("keras.activations", "ｒｅｌｕ"),  # a full-width allowed name
    ("os\u200b", "system"),     # a zero-width space
    ("keras.activations", "relu\x00system"),
])
def test_unicode_tricks_in_names_are_refused(tmp_path, touch, module, function):
    config = _functional(_called_with(_lambda("run", function, module), touch), output="run")
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config), '"run"', "plain ASCII")


# ---------------------------------------------------------------------------------- CVE-2024-3660
def test_lambda_source_is_refused_before_anything_in_it_is_decoded(tmp_path, touch):
    record = {"class_name": "__lambda__", "config": {
        "source": f"lambda x: __import__('os').system({touch!r})", "name": "<lambda>",
        "closure": {"this": {"module": "this"}},          # importing `this` would print and
        "globals": {"os": {"module": "os"}, "zen": {"module": "this"}}}}  # fail the guard
    config = _functional(_called_with(_lambda("src", record, "__main__", "lambda"), 1.0),
                         output="src")
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", config), '"src"', "safe_mode=False")


def test_keras2_bytecode_lambda_is_refused_in_both_modes(tmp_path):
    code = base64.b64encode(b"\xe3" + b"\x00" * 40).decode()  # looks like marshalled code
    config = _sequential(_lambda("bytecode", [code, None, None], "__main__", "lambda"))
    path = _write_keras(tmp_path / "m.keras", config)
    _refused(tmp_path, path, '"bytecode"', "safe_mode=False")
    _refused(tmp_path, path, '"bytecode"', "bytecode", safe_mode=False)


# ---------------------------------------------------------------------------------- CVE-2025-9906
def test_a_lambda_turning_safe_mode_off_does_not_unlock_a_later_lambda(tmp_path, touch):
    switch = _called_with(_lambda("switch", "enable_unsafe_deserialization",
                                  "torchestimator.keras.layers.core"), 0)
    record = {"class_name": "__lambda__", "config": {
        "source": f"lambda x: __import__('os').system({touch!r})", "name": "<lambda>"}}
    later = _called_with(_lambda("later", record, "__main__", "lambda"), 0)
    path = _write_keras(tmp_path / "m.keras", _functional(switch, later, output="later"))
    _refused(tmp_path, path, '"switch"', "enable_unsafe_deserialization", "safe_mode=False")
    assert _registry.in_safe_mode()


def test_load_model_safe_mode_wins_over_the_global_switch(tmp_path, touch, monkeypatch):
    monkeypatch.setattr(_registry, "_UNSAFE_GLOBALLY", True)  # as after enable_unsafe_deserialization()
    record = {"class_name": "__lambda__", "config": {
        "source": f"lambda x: __import__('os').system({touch!r})", "name": "<lambda>"}}
    path = _write_keras(tmp_path / "m.keras",
                        _functional(_called_with(_lambda("later", record, None, "lambda"), 0),
                                    output="later"))
    _refused(tmp_path, path, '"later"', "safe_mode=False")


# ---------------------------------------------------------------------------------- CVE-2025-9905
def _keras2_lambda_config(touch: str) -> dict:
    """A Keras 2 model config whose Lambda imports os.system, fed the canary command."""
    run = {"class_name": "Lambda", "name": "run", "config": {
        "name": "run", "function": "system", "function_type": "function", "module": "os",
        "output_shape": None, "output_shape_type": "raw", "output_shape_module": None,
        "arguments": {}}, "inbound_nodes": [{"args": [touch], "kwargs": {}}]}
    return {"class_name": "Functional", "config": {
        "name": "model", "layers": [_input(), run], "input_layers": [["in", 0, 0]],
        "output_layers": [["run", 0, 0]]}}


def test_load_model_accepts_safe_mode_for_every_format():
    from torchestimator.keras.saving import _legacy_h5, _tf_checkpoint_weights

    assert inspect.signature(load_model).parameters["safe_mode"].default is True
    for loader in (_legacy_h5.load_model_h5, _legacy_h5.load_keras2_archive,
                   _tf_checkpoint_weights.load_model_savedmodel):
        assert inspect.signature(loader).parameters["safe_mode"].default is True


def test_h5_model_honours_safe_mode(tmp_path, touch):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "m.h5"
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(_keras2_lambda_config(touch))
        f.create_group("model_weights").attrs["layer_names"] = []
    _refused(tmp_path, path, '"run"', "os.system", "safe_mode=False", safe_mode=True)
    _refused(tmp_path, path, '"run"', "os.system")  # the default is safe too


def test_h5_lambda_bytecode_is_refused_in_both_modes(tmp_path):
    h5py = pytest.importorskip("h5py")
    config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        _input(), _lambda("bytecode", ["4wAAAAAAAAAAAAAAAAEAAAAD", None, None], "__main__", "lambda")]}}
    path = tmp_path / "m.h5"
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(config)
        f.create_group("model_weights").attrs["layer_names"] = []
    _refused(tmp_path, path, '"bytecode"', "safe_mode=False", safe_mode=True)
    _refused(tmp_path, path, '"bytecode"', "bytecode", safe_mode=False)


def test_keras2_archive_honours_safe_mode(tmp_path, touch):
    pytest.importorskip("h5py")
    path = tmp_path / "k2.keras"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "2.15.0"}))
        archive.writestr("config.json", json.dumps(_keras2_lambda_config(touch)))
        archive.writestr("model.weights.h5", b"\x89HDF\r\n\x1a\n")
    _refused(tmp_path, path, '"run"', "os.system", "safe_mode=False", safe_mode=True)


def test_keras2_savedmodel_honours_safe_mode(tmp_path, touch):
    from torchestimator._tf_formats import keras_tf_checkpoint

    folder = tmp_path / "sm"
    (folder / "variables").mkdir(parents=True)
    metadata = keras_tf_checkpoint._saved_metadata_class()()
    metadata.nodes.add(node_id=0, node_path="root", identifier="_tf_keras_network",
                       metadata=json.dumps({"model_config": _keras2_lambda_config(touch)}))
    (folder / keras_tf_checkpoint.METADATA_FILE).write_bytes(metadata.SerializeToString())
    _refused(tmp_path, folder, '"run"', "os.system", "safe_mode=False", safe_mode=True)


# ---------------------------------------------------------------------------------- sizes
def _write_deflated_member(path, name: str, total: int, others: dict[str, bytes]) -> None:
    """An archive whose member `name` is `total` zero bytes, deflated (a few hundred KB)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member, data in others.items():
            archive.writestr(member, data)
        with archive.open(name, "w", force_zip64=True) as stream:
            chunk = b"\x00" * 2**20
            for _ in range(total // len(chunk)):
                stream.write(chunk)


def test_a_decompression_bomb_in_the_weights_is_refused_before_inflating(tmp_path):
    path = tmp_path / "bomb.keras"
    _write_deflated_member(path, "model.weights.safetensors", 300 * 2**20, {
        "metadata.json": b"{}", "config.json": json.dumps(_sequential()).encode()})
    assert os.path.getsize(path) < 2**20
    _refused(tmp_path, path, "model.weights.safetensors", "decompression bomb")


def test_a_decompression_bomb_in_the_config_is_refused_before_inflating(tmp_path):
    path = tmp_path / "bomb.keras"
    _write_deflated_member(path, "config.json", 80 * 2**20, {
        "metadata.json": b"{}", "model.weights.safetensors": _safetensors()})
    _refused(tmp_path, path, "config.json", "declares")


def _patch_sizes(path, member: str, size: int, compressed: int | None = None) -> None:
    """Rewrites `member`'s uncompressed (and compressed) size in the zip's central directory."""
    data = bytearray(open(path, "rb").read())
    name = member.encode()
    at = data.find(b"PK\x01\x02")
    while at != -1:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + length]) == name:
            struct.pack_into("<I", data, at + 24, size)
            if compressed is not None:
                struct.pack_into("<I", data, at + 20, compressed)
            break
        at = data.find(b"PK\x01\x02", at + 4)
    open(path, "wb").write(bytes(data))


def test_a_member_declaring_a_huge_size_is_refused(tmp_path):
    path = _write_keras(tmp_path / "m.keras", _sequential())
    _patch_sizes(path, "model.weights.safetensors", 0xFFFFFFF0)
    _refused(tmp_path, path, "model.weights.safetensors", "declares")


def test_a_member_declaring_more_compressed_bytes_than_the_file_has_is_refused(tmp_path):
    path = _write_keras(tmp_path / "m.keras", _sequential(), compression=zipfile.ZIP_DEFLATED)
    _patch_sizes(path, "model.weights.safetensors", 0x7FFFFFF0, 0x7FFFFFF0)
    _refused(tmp_path, path, "model.weights.safetensors", "past the end")


def test_a_member_lying_small_about_its_size_cannot_inflate_past_it(tmp_path):
    path = tmp_path / "lie.keras"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", b"{}")
        archive.writestr("config.json", json.dumps(_sequential()))
        archive.writestr("model.weights.safetensors", b"\x00" * 8 * 2**20)  # inflates to 8 MiB
    _patch_sizes(path, "model.weights.safetensors", 1000)  # ... but says 1000 bytes
    _refused(tmp_path, path, "model.weights.safetensors", "damaged")


@pytest.mark.parametrize(("layer", "argument", "shape"), [
    ({"class_name": "Dense", "config": {"name": "big", "units": 10**12}}, "kernel", (None, 3)),
    ({"class_name": "Embedding", "config": {"name": "big", "input_dim": 10**12, "output_dim": 8}},
     "embeddings", (None, 3)),
    ({"class_name": "Dense", "config": {"name": "big", "units": 10**8}}, "kernel", (None, 3)),
    ({"class_name": "Conv2D", "config": {"name": "big", "filters": 10**9, "kernel_size": 3}},
     "kernel", (None, 8, 8, 3)),
])
def test_a_config_asking_for_more_memory_than_the_file_holds_is_refused(tmp_path, layer, argument,
                                                                        shape):
    path = _write_keras(tmp_path / "m.keras", _sequential(layer, shape=shape))
    _refused(tmp_path, path, "'big'", argument, "holds only")


def test_a_constant_call_with_a_huge_shape_is_refused(tmp_path):
    ones = _called_with(_lambda("ones", "ones", "tensorflow"), [10**6, 10**6])
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _functional(ones, output="ones")),
             "'ones'|ones", "called on constants only")


def test_a_huge_shape_in_the_safetensors_header_is_refused(tmp_path):
    weights = _safetensors({"w": {"dtype": "F32", "shape": [10**12, 10**6], "data_offsets": [0, 4]}},
                           b"\x00" * 8)
    _refused(tmp_path, _write_keras(tmp_path / "m.keras", _sequential(), weights),
             "model.weights.safetensors")


def test_a_huge_shape_in_an_h5_weights_header_is_refused(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "m.h5"
    config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        _input(), {"class_name": "Dense", "config": {"name": "d", "units": 2}}]}}
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(config)
        weights = f.create_group("model_weights")
        weights.attrs["layer_names"] = ["d"]
        group = weights.create_group("d")
        group.attrs["weight_names"] = ["d/kernel:0", "d/bias:0"]
        group.create_dataset("d/kernel:0", shape=(10**6, 10**6), dtype="f4")  # no data stored
        group.create_dataset("d/bias:0", data=np.zeros(2, "f4"))
    assert os.path.getsize(path) < 2**20
    _refused(tmp_path, path, "d/kernel:0", r"\(1000000, 1000000\)", "occupies")


# ---------------------------------------------------------------------------------- what loads
def test_safe_functions_still_load_in_safe_mode(tmp_path):
    @tf.keras.saving.register_keras_serializable(package="Crafted")
    def crafted_double(x):
        return x * 2

    def tripled(x):
        return x * 3

    layers = [_on_input(_lambda("act", "relu", "keras.activations")),
              _lambda("math", "reduce_sum", "tensorflow.python.ops.math_ops",
                      arguments={"axis": -1, "keepdims": True}),
              _lambda("torch_fn", "tanh", "torch"),
              _lambda("registered", "Crafted>crafted_double", "some.user.module"),
              _lambda("custom", "tripled", "__main__")]
    for previous, layer in zip(layers, layers[1:]):
        layer["inbound_nodes"] = [{"args": [{"__keras_tensor__": [previous["name"], 0, 0]}],
                                   "kwargs": {}}]
    path = _write_keras(tmp_path / "m.keras", _functional(*layers, output="custom"))
    with crafted_guard(tmp_path):
        model = load_model(path, custom_objects={"tripled": tripled})
    x = np.array([[1.0, -2.0, 3.0]], "float32")
    expected = np.tanh(np.maximum(x, 0).sum(-1, keepdims=True)) * 6
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5)


def test_the_limits_are_the_documented_values():
    from torchestimator.keras.saving import _limits

    assert _limits.MAX_JSON_MEMBER_BYTES == 64 * 2**20
    assert _limits.MAX_COMPRESSION_RATIO == 100
    assert _limits.BUILD_BUDGET_FACTOR == 4 and _limits.BUILD_BUDGET_SLACK == 256 * 2**20

"""The files of an export directory and how they are written and read.

    saved_model.json        signatures, the receiver, the preprocessing layers (as configs)
    program.json            the torch.export graph (torch's JSON schema)
    variables.safetensors   the program's weights and the preprocessing layers' weights
    assets/                 vocabulary files the preprocessing reads
    assets.extra/           the files given as `assets_extra`

`saved_model.json` records the SHA-256 of the other two files, so a damaged export is an
error naming the file rather than a model that answers wrongly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine import state_io

FORMAT = "torchestimator.saved_model"
FORMAT_VERSION = 1
DOCUMENT = "saved_model.json"
PROGRAM = "program.json"
VARIABLES = "variables.safetensors"
ASSETS = "assets"
ASSETS_EXTRA = "assets.extra"
PROGRAM_PREFIX = "program/"
PREPROCESSING_PREFIX = "preprocessing/"
_ASSET_PREFIX = "asset:"
#: The modules whose layers an export may store as preprocessing.
_PREPROCESSING_MODULES = (
    "torchestimator.feature_column.dense_features", "torchestimator.feature_column.linear",
    "torchestimator.feature_column.sequence_features", "torchestimator.estimator.canned._tree_logits",
)


def program_output(signature: str, key: str) -> str:
    """The program's name for output `key` of `signature`."""
    return f"{signature}/{key}"


def layer_to_json(layer: Any, assets: dict[str, str]) -> dict[str, Any]:
    """The layer's Keras config as JSON data; vocabulary files it names are added to `assets`
    (name -> source path) and referred to as `asset:<name>`."""
    from torchestimator.keras.saving._registry import serialize_keras_object

    config = serialize_keras_object(layer)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key == "vocabulary_file" and isinstance(item, str) and item:
                    name = os.path.basename(item)
                    while name in assets and os.path.abspath(assets[name]) != os.path.abspath(item):
                        name = "_" + name
                    assets[name] = item
                    out[key] = _ASSET_PREFIX + name
                else:
                    out[key] = walk(item)
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(config)


def layer_from_json(config: Mapping[str, Any], export_dir: str) -> Any:
    """Rebuilds a preprocessing layer from `layer_to_json`'s output (asset names resolved
    inside `export_dir/assets`). Only registered classes are rebuilt; no code is run from
    the export."""
    import importlib

    from torchestimator.keras.saving._registry import deserialize_keras_object

    for module in _PREPROCESSING_MODULES:  # their layer classes register themselves
        importlib.import_module(module)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (os.path.join(export_dir, ASSETS, v[len(_ASSET_PREFIX):])
                        if k == "vocabulary_file" and isinstance(v, str) and v.startswith(_ASSET_PREFIX)
                        else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return deserialize_keras_object(walk(dict(config)))


def write_files(directory: str, document: dict[str, Any], graph: bytes, tensors: dict[str, torch.Tensor]) -> None:
    """Writes the program, the variables and (last, with their checksums) saved_model.json."""
    variables = state_io.tensors_to_bytes(tensors)
    state_io.atomic_write_bytes(os.path.join(directory, PROGRAM), graph)
    state_io.atomic_write_bytes(os.path.join(directory, VARIABLES), variables)
    document = dict(document)
    document["sha256"] = {PROGRAM: state_io.sha256(graph), VARIABLES: state_io.sha256(variables)}
    state_io.atomic_write_bytes(os.path.join(directory, DOCUMENT), state_io.dumps_json(document))


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path} is missing: the export directory is incomplete. Export the model again."
        ) from None


def read_files(directory: str) -> tuple[dict[str, Any], bytes, dict[str, torch.Tensor]]:
    """Reads an export directory; returns (document, program graph bytes, tensors). Raises
    FileNotFoundError (not an export) or ValueError (damaged: names the file)."""
    document_path = os.path.join(directory, DOCUMENT)
    if not os.path.isfile(document_path):
        if os.path.isfile(os.path.join(directory, "saved_model.pb")):
            raise ValueError(
                f"{directory} is a TensorFlow SavedModel (saved_model.pb): torchestimator loads "
                "exports written by torchestimator. Export the model again with torchestimator."
            )
        raise FileNotFoundError(
            f"No export found at {directory}: it has no {DOCUMENT}. Give the directory that "
            "export_saved_model returned (export_dir_base/<timestamp>)."
        )
    raw = _read(document_path)
    try:
        document = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"{document_path} is not valid JSON ({e}): the export is damaged.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{document_path} is not a torchestimator export description.")
    if int(document.get("format_version", 0)) > FORMAT_VERSION:
        raise ValueError(
            f"{directory} was written by a newer torchestimator (format version "
            f"{document.get('format_version')}; this one reads {FORMAT_VERSION}). Upgrade torchestimator."
        )
    graph = _read(os.path.join(directory, PROGRAM))
    variables = _read(os.path.join(directory, VARIABLES))
    sums = document.get("sha256", {})
    for name, data in ((PROGRAM, graph), (VARIABLES, variables)):
        if sums.get(name) != state_io.sha256(data):
            raise ValueError(
                f"{os.path.join(directory, name)} does not match the checksum recorded in {DOCUMENT}: "
                "the export is damaged. Export the model again."
            )
    tensors = state_io.tensors_from_bytes(variables, os.path.join(directory, VARIABLES))
    return document, graph, tensors

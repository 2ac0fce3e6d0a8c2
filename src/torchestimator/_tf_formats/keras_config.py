"""Keras 2 (tf.keras 2.x) model configs made readable by our deserializer: a functional model's
`inbound_nodes` as Keras 2 writes them (`[[["layer", node, tensor, {kwargs}], ...], ...]`)
become `{"args": [...], "kwargs": {...}}` nodes with `__keras_tensor__` references."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["from_keras2_config"]


def _ref(entry: list) -> dict:
    return {"__keras_tensor__": [entry[0], int(entry[1]), int(entry[2])]}


def _node(node: Any) -> Any:
    if isinstance(node, dict):  # already {"args", "kwargs"}
        return node
    if not isinstance(node, list) or not node:
        raise ValueError(f"Keras 2 config: an inbound node must be a non-empty list; received {node!r:.200}")
    if isinstance(node[0], str):  # a single [name, node, tensor, kwargs] without the outer list
        node = [node]
    kwargs = dict(node[0][3]) if len(node[0]) > 3 and isinstance(node[0][3], dict) else {}
    refs = [_ref(entry) for entry in node]
    return {"args": [refs[0] if len(refs) == 1 else refs], "kwargs": kwargs}


def _convert(config: dict) -> dict:
    if config.get("class_name") in ("Functional", "Model") and isinstance(config.get("config"), dict) \
            and "layers" in config["config"]:
        inner = config["config"]
        for spec in inner["layers"]:
            spec["inbound_nodes"] = [_node(n) for n in spec.get("inbound_nodes", [])]
            if isinstance(spec.get("config"), dict) and "layers" in spec["config"]:
                converted = _convert({"class_name": spec["class_name"], "config": spec["config"]})
                spec["config"] = converted["config"]
        for key, structure in (("input_layers", "input_structure"), ("output_layers", "output_structure")):
            refs = inner.get(key)
            if isinstance(refs, list) and refs and isinstance(refs[0], str):
                inner[key] = [refs]  # one tensor, written without the outer list
                inner.setdefault(structure, "single")
            elif isinstance(refs, list) and len(refs) == 1:
                inner.setdefault(structure, "single")
    elif config.get("class_name") == "Sequential" and isinstance(config.get("config"), dict):
        for spec in config["config"].get("layers", []):
            if isinstance(spec, dict) and isinstance(spec.get("config"), dict) and "layers" in spec["config"]:
                spec.update(_convert(spec))
    return config


def _decode_json_types(value: Any) -> Any:
    """Keras' JSON encoding of Python values (`keras_metadata.pb`): `{"class_name": "__tuple__",
    "items": [...]}` and `{"class_name": "TensorShape", "items": [...]}` become lists."""
    if isinstance(value, dict):
        if value.get("class_name") in ("__tuple__", "TensorShape") and set(value) <= {"class_name", "items"}:
            return [_decode_json_types(v) for v in value.get("items") or []]
        return {k: _decode_json_types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode_json_types(v) for v in value]
    return value


def from_keras2_config(config: dict) -> dict:
    """A copy of Keras 2 model config `config` (`{"class_name", "config"}`) in the form our
    `deserialize_keras_object` reads."""
    return _convert(_decode_json_types(copy.deepcopy(config)))

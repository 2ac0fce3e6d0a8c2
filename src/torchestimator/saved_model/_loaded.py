"""`tf.saved_model.load`: an export opened without the code that trained it.

A loaded export runs each call in three parts: the receiver turns the signature's inputs
into features (parsing serialized `tf.train.Example`s, or checking raw tensors), the
preprocessing layers (feature-column layers rebuilt from their configs, with their weights)
turn features into tensors, and the `torch.export` program computes the outputs; string
outputs are looked up in the export's tables. Nothing from the export directory is
unpickled or executed as code.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import torch
from torch.export.passes import move_to_device_pass
from torch.utils import _pytree as pytree

from torchestimator._dtypes import TensorSpec
from torchestimator._engine import loop, storage
from torchestimator._engine.device_scope import placement_scope
from torchestimator.saved_model import _layout, _program
from torchestimator.saved_model._features import features_from_values
from torchestimator.saved_model._receiver_spec import PARSING, ReceiverSpec, spec_from_json


class _Runtime:
    """What every signature of one export shares: receiver, preprocessing, program, and the
    device they run on: the default device when the export is loaded (`TORCHESTIMATOR_DEVICE`,
    a `tf.device` block; a GPU when there is one), as TF's `load` places the variables. An
    export holds no device: one written on a GPU loads on a CPU-only machine."""

    def __init__(self, directory: str, document: Mapping[str, Any], graph: bytes, tensors: dict[str, torch.Tensor]):
        self.directory = directory
        self.device = loop.default_device()
        self.receiver = ReceiverSpec.from_json(document["receiver"])
        program = _program.program_of_export(directory, graph, tensors)
        if self.device.type != "cpu":  # its weights, and any device its graph names, moved there
            program = move_to_device_pass(program, self.device)
        self.program = program
        self._forward, self.feature_names, self.output_names = _flat_forward(program)
        self.layers = []
        stored = sum(t.numel() for t in tensors.values())
        for entry in document.get("preprocessing", []):
            layer = _layout.layer_from_json(entry["layer"], directory, stored)
            with placement_scope(self.device):
                layer.build(None)
            prefix = entry["weights_prefix"]
            state = {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}
            missing, unexpected = layer.load_state_dict(state, strict=False)
            if missing or unexpected:
                raise ValueError(
                    f"{os.path.join(directory, _layout.VARIABLES)}: preprocessing layer "
                    f"{layer.name!r} expects weights {sorted(missing)} that the export lacks"
                    + (f" (and has unexpected {sorted(unexpected)})" if unexpected else "")
                    + ". The export is damaged; export the model again."
                )
            layer.built = True
            layer.eval()
            self.layers.append(layer)

    def run(self, features: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """The program's outputs (by program output name) for the model's `features`."""
        with torch.no_grad(), self.device_scope():
            features = self.layer_features(features)
            flat = []
            batch = None
            for name in self.feature_names:
                value = features.get(name)
                if not isinstance(value, torch.Tensor):
                    raise ValueError(
                        f"Feature {name!r} must be a tensor for this export; got {type(value).__name__}."
                    )
                if value.ndim:
                    if batch is not None and value.shape[0] != batch[1]:
                        raise ValueError(
                            f"Features {batch[0]!r} and {name!r} have different batch sizes: "
                            f"{batch[1]} and {value.shape[0]}."
                        )
                    batch = batch or (name, value.shape[0])
                flat.append(self.placed(value))
            for layer in self.layers:
                output = layer(features)
                if isinstance(output, torch.Tensor):
                    flat.append(output)
                else:
                    flat.extend(pytree.tree_leaves(output))
            return dict(zip(self.output_names, self._forward(*flat)))

    def device_scope(self) -> contextlib.AbstractContextManager:
        """Where the preprocessing layers make tensors of the features' numpy values during a
        call: on the export's device, when TF's ops would otherwise make them elsewhere (an
        export loaded on the host, called where a GPU is the default)."""
        ops_on = loop.op_device()
        if ops_on is None or ops_on == self.device:
            return contextlib.nullcontext()
        return placement_scope(self.device)

    def layer_features(self, features: Mapping[str, Any]) -> Mapping[str, Any]:
        """`features` as the preprocessing layers read them: a tensor on another accelerator
        than the export's is copied to the export's device (to the host, for an export loaded
        there); host tensors stay on the host, where the layers do their string and id work."""
        if not self.layers or all(not isinstance(v, torch.Tensor) or v.device.type == "cpu"
                                  or v.device == self.device for v in features.values()):
            return features
        return {key: self.placed(value) if isinstance(value, torch.Tensor)
                and value.device.type != "cpu" else value for key, value in features.items()}

    def placed(self, value: torch.Tensor) -> torch.Tensor:
        """A feature tensor on the device the export runs on (copied there when it is not). A
        copy to the host blocks: the host ops after it read it at once (a copy from a GPU to the
        host without blocking may not have ended when they do)."""
        if value.device == self.device:
            return value
        return value.to(self.device, non_blocking=self.device.type != "cpu")


def _flat_forward(program: torch.export.ExportedProgram) -> tuple[Any, list[str], list[str]]:
    """The program as a function of its flat inputs (the tensor features, then the
    preprocessing outputs' tensors) returning its flat outputs; the features' names in input
    order; the outputs' names.

    The module torch makes for a program checks every call's inputs against the traced
    ranges (with sympy) and flattens and unflattens them with pytree: tens of microseconds a
    call on a small model. The receiver already gives the traced dtypes and ranks and `run`
    checks the batch sizes, so here the graph runs on flat arguments."""
    module = program.module(check_guards=False)  # guards are code: never compiled from a file
    module._forward_pre_hooks.clear()
    graph = module.graph
    for node in list(graph.nodes):  # metadata assertions torch leaves in the graph: no-ops here
        if node.op == "call_function" and node.target is torch.ops.aten._assert_tensor_metadata.default:
            graph.erase_node(node)
    graph._codegen = torch.fx.graph.CodeGen()
    module.recompile()
    in_spec = program.call_spec.in_spec
    (features, _), _ = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    feature_names = sorted(features, key=features.get)
    out_spec = program.call_spec.out_spec
    positions = pytree.tree_unflatten(list(range(out_spec.num_leaves)), out_spec)
    names = [""] * out_spec.num_leaves
    for name, index in positions.items():
        names[index] = name
    forward = module.forward

    def run(*flat: torch.Tensor) -> Any:
        out = forward(*flat)
        return out if isinstance(out, (tuple, list)) else (out,)

    return run, feature_names, names


class Signature:
    """One serving signature of a loaded export (TF's `ConcreteFunction` of a signature).

    Call it with the signature's inputs as keyword arguments; it returns a dict of output
    name -> `torch.Tensor` (numbers) or numpy object array of bytes (strings).

    Attributes:
        name: the signature key ('serving_default', 'predict', 'classification', ...).
        method_name: TF Serving's method ('tensorflow/serving/predict', '.../classify',
            '.../regress').
        inputs: input name -> `tf.TensorSpec` (None for the batch dimension).
        outputs: output name -> `tf.TensorSpec`.
    """

    def __init__(self, name: str, definition: Mapping[str, Any], runtime: _Runtime):
        self.name = name
        self.method_name = definition["method_name"]
        self.inputs: dict[str, TensorSpec] = {k: spec_from_json(v) for k, v in definition["inputs"].items()}
        self.outputs: dict[str, TensorSpec] = {k: spec_from_json(v["spec"]) for k, v in definition["outputs"].items()}
        self._runtime = runtime
        self._program_outputs = {k: v["program_output"] for k, v in definition["outputs"].items()}
        self._tables = {k: np.asarray([s.encode("utf-8", "surrogateescape") for s in v["string_table"]], dtype=object)
                        for k, v in definition["outputs"].items() if "string_table" in v}
        receiver_inputs = list(runtime.receiver.inputs)
        # classify/regress signatures call their one string input 'inputs'
        self._to_receiver = (dict(zip(self.inputs, receiver_inputs)) if list(self.inputs) != receiver_inputs
                             else {k: k for k in receiver_inputs})

    @property
    def structured_input_signature(self) -> tuple[tuple, dict[str, TensorSpec]]:
        """`((), {input name: TensorSpec})`, as TF's."""
        return (), dict(self.inputs)

    @property
    def structured_outputs(self) -> dict[str, TensorSpec]:
        """`{output name: TensorSpec}`, as TF's."""
        return dict(self.outputs)

    def __call__(self, *args: Any, **inputs: Any) -> dict[str, Any]:
        """Runs the signature on `inputs` (keyword arguments named as `self.inputs`)."""
        if args:
            if len(args) == 1 and len(self.inputs) == 1 and not inputs:
                inputs = {next(iter(self.inputs)): args[0]}
            else:
                raise TypeError(
                    f"Signature {self.name!r} takes its inputs as keyword arguments: "
                    f"{sorted(self.inputs)}; got {len(args)} positional argument(s)."
                )
        missing = sorted(set(self.inputs) - set(inputs))
        extra = sorted(set(inputs) - set(self.inputs))
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing input(s) {missing}")
            if extra:
                parts.append(f"unexpected input(s) {extra}")
            raise ValueError(
                f"Signature {self.name!r}: {' and '.join(parts)}. It takes {sorted(self.inputs)}."
            )
        receiver_inputs = {self._to_receiver[k]: v for k, v in inputs.items()}
        features = self._runtime.receiver.features_from_inputs(receiver_inputs, self.name)
        return self._finish(self._runtime.run(features))

    def call_on_features(self, features: Mapping[str, Any]) -> dict[str, Any]:
        """Runs the signature on already-parsed features (name -> values, batch first), for an
        export whose receiver parses `tf.train.Example`s: what a client would have put in the
        Examples, without serializing and parsing them."""
        receiver = self._runtime.receiver
        if receiver.kind != PARSING:
            raise ValueError(
                f"call_on_features needs an export with a parsing receiver; this one takes raw "
                f"inputs {sorted(receiver.inputs)}: call the signature with them."
            )

        parsed = features_from_values(features, receiver.feature_spec or {}, self.name)
        return self._finish(self._runtime.run(parsed))

    def _finish(self, outputs: Mapping[str, torch.Tensor]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, program_output in self._program_outputs.items():
            value = outputs[program_output]
            table = self._tables.get(key)
            result[key] = table[value.numpy()] if table is not None else value
        return result

    def __repr__(self) -> str:
        return f"<Signature {self.name!r} {self.method_name} inputs={list(self.inputs)} outputs={list(self.outputs)}>"


def signature_parts(signature: Any) -> tuple[_Runtime, Callable[[Mapping[str, torch.Tensor]], dict[str, Any]]] | None:
    """What a server's fast path plans a signature's call with: the export's runtime (its
    `receiver`, `program`, `feature_names`, preprocessing `layers` and `run(features)`) and the
    signature's `finish(outputs)` (program outputs -> the signature's outputs, vocabulary
    lookups included); None for anything that is not a loaded export's `Signature`."""
    if not isinstance(signature, Signature):
        return None
    return signature._runtime, signature._finish


class _SignatureMap(Mapping):
    """The `signatures` of a loaded export: a read-only mapping of key -> `Signature`."""

    def __init__(self, signatures: dict[str, Signature]):
        self._signatures = signatures

    def __getitem__(self, key: str) -> Signature:
        try:
            return self._signatures[key]
        except KeyError:
            raise KeyError(
                f"Signature {key!r} is not in this export; it has {sorted(self._signatures)}."
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return f"_SignatureMap({sorted(self._signatures)})"


class LoadedSavedModel:
    """An export opened by `tf.saved_model.load`.

    Attributes:
        signatures: signature key -> `Signature` (TF's `loaded.signatures`).
        feature_spec: the parse spec of an export whose receiver parses `tf.train.Example`s
            (feature name -> `FixedLenFeature`/`VarLenFeature`), else None.
        export_dir: the directory loaded.
    """

    def __init__(self, export_dir: str):
        document, graph, tensors = _layout.read_files(export_dir)
        runtime = _Runtime(export_dir, document, graph, tensors)
        self.export_dir = export_dir
        self._runtime = runtime
        self.signatures = _SignatureMap(
            {k: Signature(k, v, runtime) for k, v in document["signatures"].items()}
        )
        self.feature_spec = dict(runtime.receiver.feature_spec) if runtime.receiver.kind == PARSING else None

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Calls the `serving_default` signature."""
        return self.signatures["serving_default"](*args, **kwargs)

    def __repr__(self) -> str:
        return f"<LoadedSavedModel {self.export_dir!r} signatures={sorted(self.signatures)}>"


def load(export_dir: str | bytes | os.PathLike, tags: Any = None, options: Any = None) -> LoadedSavedModel:
    """Loads an export written by `export_saved_model`, `tf.saved_model.save` or
    `model.export` (TF's `tf.saved_model.load`).

    Args:
        export_dir: the export directory (str, bytes or PathLike), e.g. what
            `export_saved_model` returned.
        tags: accepted for TF compatibility ('serve' or None); exports have one graph.
        options: accepted for TF compatibility and ignored.

    Returns:
        A `LoadedSavedModel` whose `signatures[...]` are callable.

    Raises:
        FileNotFoundError when `export_dir` holds no export; ValueError when it is damaged.
    """
    del options
    if tags not in (None, "serve", ["serve"], ("serve",), {"serve"}):
        raise ValueError(f"tags must be 'serve' or None for a torchestimator export; got {tags!r}.")
    path = os.fsdecode(export_dir)
    if "://" in path:
        path = storage.local(path)
        if storage.is_url(path):
            return _load_from_store(path)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"SavedModel directory {path} does not exist.")
    return LoadedSavedModel(path)


def _load_from_store(url: str) -> LoadedSavedModel:
    """An export on an object store, downloaded into a local temporary folder (removed when the
    loaded model is garbage-collected); `export_dir` stays the URL."""

    if not storage.isfile(storage.join(url, _layout.DOCUMENT)):
        raise FileNotFoundError(
            f"SavedModel directory {url} does not exist or holds no complete export (no "
            f"{_layout.DOCUMENT}; an export being uploaded gets it last).")
    local = tempfile.mkdtemp(prefix="torchestimator-load-")
    try:
        pending = [""]
        while pending:
            rel = pending.pop()
            here = storage.join(url, rel) if rel else url
            for name in storage.listdir(here):
                if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
                    raise ValueError(
                        f"{url} holds an object named {name[:200]!r} under {here}: an export's "
                        "files have plain names, and this one would be written outside the "
                        "download folder. Export the model again into a store you trust."
                    )
                child = f"{rel}/{name}" if rel else name
                source = storage.join(url, child)
                if storage.isdir(source):
                    pending.append(child)
                    continue
                target = os.path.join(local, *child.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(storage.read_bytes(source))
        loaded = LoadedSavedModel(local)
    except BaseException:
        shutil.rmtree(local, ignore_errors=True)
        raise
    loaded.export_dir = url
    weakref.finalize(loaded, shutil.rmtree, local, True)
    return loaded

"""Writes an export: runs a model on a sample batch, traces its tensor part with
`torch.export`, and stores the rest as data.

The caller (the Estimator's `export_saved_model`, Keras' `model.export`) gives a function
`run(features) -> {signature key: ExportOutput}` and the receiver as a `ReceiverSpec`.
The model runs twice (see `_engine/export_capture.py`): eagerly on made-up examples with
the receiver's dtypes and shapes (recording its preprocessing layers and string outputs),
then under `torch.export` with the preprocessing layers' outputs as program inputs. The
directory is written under a temporary name and renamed at the end, so a crash never
leaves a partial export under a version name.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.utils import _pytree as pytree

from torchestimator import _dtypes
from torchestimator._dtypes import TensorSpec
from torchestimator._engine import export_capture, state_io, storage
from torchestimator._engine.device_moves import weights_on_host
from torchestimator._engine.device_scope import placement_scope
from torchestimator.saved_model import _layout, _program
from torchestimator.saved_model._export_output import (
    CLASSIFY_METHOD,
    PREDICT_METHOD,
    REGRESS_METHOD,
)
from torchestimator.saved_model._receiver_spec import ReceiverSpec, spec_to_json

logger = logging.getLogger("torchestimator")

SAMPLE_BATCH = 3


class ExportError(ValueError):
    """The model cannot be exported (a Python-side value or data-dependent control flow
    where the serving program needs tensors); the message names the cause and the line."""


@dataclasses.dataclass
class _SignaturePlan:
    name: str
    method_name: str
    inputs: dict[str, TensorSpec]
    outputs: dict[str, Any]  # output key -> tensor or StringOutput (recorded)


class _NotInProgram:
    """Stands for a feature that cannot enter the traced program (strings, ragged values)."""

    def __init__(self, name: str, value: Any):
        self._name = name
        self._kind = type(value).__name__

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise ExportError(
            f"Feature {self._name!r} ({self._kind}) holds strings or variable-length values, which "
            "cannot enter the exported program. Read it through a feature column layer "
            "(tf.keras.layers.DenseFeatures, tf.compat.v1.feature_column.input_layer, "
            "LinearModel) so the export can store its preprocessing as data."
        )

    __getattr__ = _fail
    __getitem__ = _fail
    __len__ = _fail
    __iter__ = _fail
    __array__ = _fail


def _signature_plans(outputs: Mapping[str, Any], receiver: ReceiverSpec) -> list[_SignaturePlan]:
    """TF's `build_all_signature_defs` in serving mode: a classification or regression output
    needs the receiver to be exactly one string tensor (it is excluded otherwise, with a log
    line); every other output is a predict signature over the receiver's inputs. Outputs are
    `tf.estimator.export` ExportOutputs (anything with `signature_method` and `as_dict()`)."""
    plans = []
    excluded = []
    for key, output in outputs.items():
        method = getattr(output, "signature_method", None)
        if method not in (CLASSIFY_METHOD, REGRESS_METHOD, PREDICT_METHOD) or not callable(getattr(output, "as_dict", None)):
            raise ExportError(
                f"export_outputs[{key!r}] must be an ExportOutput (PredictOutput, "
                f"ClassificationOutput, RegressionOutput); got {type(output).__name__}."
            )
        if method in (CLASSIFY_METHOD, REGRESS_METHOD):
            if not receiver.single_string_input:
                excluded.append(key)
                continue
            (spec,) = receiver.inputs.values()
            plans.append(_SignaturePlan(key, method, {"inputs": spec}, output.as_dict()))
        else:
            plans.append(_SignaturePlan(key, PREDICT_METHOD, dict(receiver.inputs), output.as_dict()))
    if excluded:
        logger.info("Signatures EXCLUDED from export because they cannot be served via "
                    "TensorFlow Serving APIs: %s (the receiver is not one string tensor)", excluded)
    if not any(p.name == "serving_default" for p in plans):
        logger.warning("Export includes no default signature!")
    return plans


def _output_value(value: Any, signature: str, key: str) -> Any:
    if isinstance(value, (torch.Tensor, export_capture.StringOutput)):
        return value
    raise ExportError(
        f"Output {key!r} of signature {signature!r} is a {type(value).__name__}, not a tensor; an "
        "exported program returns tensors only (class names are added from the export's tables). "
        "Return a tensor, or ids with a vocabulary."
    )


class _ProgramModule(torch.nn.Module):
    """The traced function: (tensor features, preprocessing outputs) -> named output tensors."""

    def __init__(self, run: Callable[[Any], Mapping[str, Any]], modules: Sequence[torch.nn.Module],
                 receiver: ReceiverSpec, placeholders: dict[str, Any], calls: list, plans: list[_SignaturePlan]):
        super().__init__()
        self.held = torch.nn.ModuleList([m for m in modules if isinstance(m, torch.nn.Module)])
        self._run = run
        self._receiver = receiver
        self._placeholders = placeholders
        self._calls = calls
        self._plans = plans

    def forward(self, features: dict[str, torch.Tensor], preprocessed: list[Any]) -> dict[str, torch.Tensor]:
        model_features: Any = {**features, **self._placeholders}
        if self._receiver.single_feature:
            (model_features,) = model_features.values()
        capture = export_capture.ExportCapture("replay", preprocessed, self._calls)
        with export_capture.capturing(capture):
            outputs = self._run(model_features)
        result = {}
        for plan in self._plans:
            if plan.name not in outputs:
                raise ExportError(f"The model returned no export output {plan.name!r} while tracing.")
            for key, value in outputs[plan.name].as_dict().items():
                value = _output_value(value, plan.name, key)
                result[_layout.program_output(plan.name, key)] = (
                    value.ids if isinstance(value, export_capture.StringOutput) else value
                )
        return result


def _user_frame(error: BaseException) -> str:
    """The innermost line of the traceback outside torch (preferring code outside this
    package too): where the model did what cannot be exported."""
    torch_dir = os.path.dirname(torch.__file__)
    package_dir = os.path.dirname(os.path.dirname(__file__))
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith(torch_dir) and not f.filename.startswith("<")]
    outside = [f for f in frames if not f.filename.startswith(package_dir)]
    chosen = (outside or frames or [None])[-1]
    if chosen is None:
        return ""
    return f' at {chosen.filename}, line {chosen.lineno}, in {chosen.name}: "{(chosen.line or "").strip()}"'


def _trace(module: _ProgramModule, features: dict[str, torch.Tensor], preprocessed: list[Any],
           what: str) -> torch.export.ExportedProgram:
    batch = torch.export.Dim("batch")
    dynamic = (
        {k: {0: batch} if v.ndim else None for k, v in features.items()},
        pytree.tree_map(lambda t: {0: batch} if isinstance(t, torch.Tensor) and t.ndim else None, preprocessed),
    )
    try:
        with torch.no_grad():
            return torch.export.export(module, (features, preprocessed), dynamic_shapes=dynamic, strict=False)
    except ExportError:
        raise
    except Exception as e:
        cause = _first_line(e)
        if "specialized it to be a constant" in str(e):
            raise ExportError(
                f"The {what} cannot be exported: it uses the batch size as a Python number "
                "(int(x.shape[0]), len(x), a loop or `if` over the batch), which would fix the "
                f"served model to the export's sample batch of {SAMPLE_BATCH}. Use tensor shapes "
                "(tf.shape(x)[0], x.shape[0] without int()) so any batch size is served."
            ) from e
        raise ExportError(
            f"The {what} cannot be exported{_user_frame(e)}: {type(e).__name__}: {cause}. An exported "
            "model must compute its outputs with tensor operations whose control flow does not depend "
            "on tensor values (as TensorFlow's graph mode required): replace Python `if`/`.item()`/"
            "`.numpy()` on tensor values with tensor ops (tf.where, tf.cond-free math)."
        ) from e


def _check_reads_receiver_features(call: Any, sample: Mapping[str, Any], what: str) -> None:
    """A served model computes its preprocessing layers from the receiver's features: a layer
    the model called on features it computed itself would answer differently when served."""
    features = call.features
    if not isinstance(features, Mapping):
        raise ExportError(
            f"Preprocessing layer {call.layer.name!r} was called on a {type(features).__name__}, not "
            "on the features dict; an export computes feature-column layers from the serving "
            "input receiver's features."
        )
    for column in getattr(call.layer, "_feature_columns", ()):
        for key in column.parse_example_spec:
            if key not in sample:
                raise ExportError(
                    f"Feature column {column.name!r} of layer {call.layer.name!r} reads feature "
                    f"{key!r}, which the serving input receiver does not provide (it provides "
                    f"{sorted(sample)}). Add {key!r} to the receiver's features."
                )
            if features.get(key) is not sample[key]:
                raise ExportError(
                    f"Layer {call.layer.name!r} reads feature {key!r}, which the {what} changed "
                    "before the call; an export computes feature-column layers from the serving "
                    "input receiver's features as received. Do the transformation in a feature "
                    "column (numeric_column(normalizer_fn=...), bucketized_column) or in the "
                    "receiver."
                )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0][:500] if lines else ""


def build(
    export_dir_base: str | os.PathLike,
    run: Callable[[Any], Mapping[str, Any]],
    receiver: ReceiverSpec,
    modules: Sequence[torch.nn.Module],
    assets_extra: Mapping[str, str] | None = None,
    what: str = "model",
    exact: bool = False,
) -> str:
    """Exports `run` under `export_dir_base/<timestamp>/` (or into `export_dir_base` itself
    with `exact`, replacing what is there); returns that directory (str).

    `run(features)` returns {signature key: ExportOutput}; `modules` hold the weights `run`
    uses (they become the program's parameters). The export is traced on the host: weights on
    an accelerator are on the CPU while it is made, and back where they were afterwards, so an
    export of a model trained on a GPU loads and serves on a machine without one."""
    with weights_on_host(modules), placement_scope(torch.device("cpu")):
        return _build_on_host(export_dir_base, run, receiver, modules, assets_extra, what, exact)


def _build_on_host(
    export_dir_base: str | os.PathLike,
    run: Callable[[Any], Mapping[str, Any]],
    receiver: ReceiverSpec,
    modules: Sequence[torch.nn.Module],
    assets_extra: Mapping[str, str] | None,
    what: str,
    exact: bool,
) -> str:
    sample = receiver.sample_features(SAMPLE_BATCH)
    model_sample: Any = sample
    if receiver.single_feature:
        (model_sample,) = sample.values()
    record = export_capture.ExportCapture("record")
    with torch.no_grad(), export_capture.capturing(record):
        recorded = run(model_sample)
    if not isinstance(recorded, Mapping) or not recorded:
        raise ExportError(f"The {what} returned no export outputs: {recorded!r:.200}")
    plans = _signature_plans(recorded, receiver)
    for plan in plans:
        plan.outputs = {k: _output_value(v, plan.name, k) for k, v in plan.outputs.items()}

    tensor_features = {k: v for k, v in sample.items() if isinstance(v, torch.Tensor)}
    placeholders = {k: _NotInProgram(k, v) for k, v in sample.items() if not isinstance(v, torch.Tensor)}
    preprocessed = [call.output for call in record.calls]
    for index, call in enumerate(record.calls):
        _check_reads_receiver_features(call, sample, what)
        for leaf in pytree.tree_leaves(call.output):
            if not isinstance(leaf, torch.Tensor):
                raise ExportError(
                    f"Preprocessing layer {call.layer.name!r} (call {index}) returned a "
                    f"{type(leaf).__name__}; exports need tensors."
                )
    module = _ProgramModule(run, modules, receiver, placeholders, record.calls, plans)
    program = _trace(module, tensor_features, preprocessed, what)

    graph, program_tensors = _program.program_to_bytes(program)
    tensors = {_layout.PROGRAM_PREFIX + k: v for k, v in program_tensors.items()}
    preprocessing = []
    assets: dict[str, str] = {}
    for index, call in enumerate(record.calls):
        layer_config = _layout.layer_to_json(call.layer, assets)
        prefix = f"{_layout.PREPROCESSING_PREFIX}{index}/"
        for name, value in call.layer.state_dict().items():
            tensors[prefix + name] = value
        preprocessing.append({"layer": layer_config, "weights_prefix": prefix,
                              "outputs": pytree.treespec_dumps(pytree.tree_structure(call.output))})
    signatures = {}
    for plan in plans:
        outputs = {}
        for key, value in plan.outputs.items():
            entry: dict[str, Any] = {"program_output": _layout.program_output(plan.name, key)}
            if isinstance(value, export_capture.StringOutput):
                entry["spec"] = spec_to_json(TensorSpec((None,) + tuple(value.ids.shape[1:]), _dtypes.string, key))
                entry["string_table"] = [n.decode("utf-8", "surrogateescape") for n in value.names]
            else:
                entry["spec"] = spec_to_json(TensorSpec((None,) + tuple(value.shape[1:]), value.dtype, key))
            outputs[key] = entry
        signatures[plan.name] = {
            "method_name": plan.method_name,
            "inputs": {k: spec_to_json(v) for k, v in plan.inputs.items()},
            "outputs": outputs,
        }
    document = {
        "format": _layout.FORMAT,
        "format_version": _layout.FORMAT_VERSION,
        "receiver": receiver.to_json(),
        "preprocessing": preprocessing,
        "signatures": signatures,
        "torch_version": torch.__version__,
    }
    return _write(export_dir_base, document, graph, tensors, assets, assets_extra, exact)


def _write(export_dir_base: str | os.PathLike, document: dict, graph: bytes, tensors: dict[str, torch.Tensor],
           assets: Mapping[str, str], assets_extra: Mapping[str, str] | None, exact: bool = False) -> str:
    base = os.fsdecode(export_dir_base)
    if "://" in base:
        base = storage.local(base)
        if storage.is_url(base):
            return _write_to_store(base, document, graph, tensors, assets, assets_extra, exact)
    if exact:
        target = os.path.abspath(base)
        base = os.path.dirname(target)
    os.makedirs(base, exist_ok=True)
    # TF's version names: Unix seconds, and always above the newest version present (so the
    # newest export is the highest number even after older ones were removed)
    present = [int(n) for n in os.listdir(base) if n.isdigit()]
    timestamp = max([int(time.time())] + [n + 1 for n in present])
    while os.path.exists(os.path.join(base, str(timestamp))):
        timestamp += 1
    temp = os.path.join(base, f"temp-{timestamp}-{os.getpid()}")
    final = target if exact else os.path.join(base, str(timestamp))
    try:
        os.makedirs(temp)
        _layout.write_files(temp, document, graph, tensors)
        if assets:
            os.makedirs(os.path.join(temp, _layout.ASSETS), exist_ok=True)
            for name, source in assets.items():
                shutil.copyfile(source, os.path.join(temp, _layout.ASSETS, name))
        if assets_extra:
            for dest, source in assets_extra.items():
                target = os.path.normpath(os.path.join(temp, _layout.ASSETS_EXTRA, dest))
                if not target.startswith(os.path.join(temp, _layout.ASSETS_EXTRA) + os.sep):
                    raise ValueError(
                        f"assets_extra destination {dest!r} leaves assets.extra/; give a relative "
                        "path inside it."
                    )
                if not os.path.isfile(source):
                    raise ValueError(f"assets_extra source {source!r} (for {dest!r}) is not a file.")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
        state_io.fsync_dir(temp)
        if exact:
            _replace_directory(temp, final)
        while not exact:
            try:
                os.rename(temp, final)
                break
            except OSError:
                if not os.path.exists(final):
                    raise
                timestamp += 1
                final = os.path.join(base, str(timestamp))
        state_io.fsync_dir(base)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    logger.info("SavedModel written to: %s", final)
    return final


def _write_to_store(base: str, document: dict, graph: bytes, tensors: dict[str, torch.Tensor],
                    assets: Mapping[str, str], assets_extra: Mapping[str, str] | None, exact: bool) -> str:
    """Exports to an object store (`base` a URL): the export is written in a local temporary
    folder as usual, then uploaded file by file with its `saved_model.json` last, so a version
    folder is an export (`load`, `read_files`) only once it is complete. Returns its URL."""

    staging = tempfile.mkdtemp(prefix="torchestimator-export-")
    try:
        written = _write(staging, document, graph, tensors, assets, assets_extra)
        if exact:
            final = base
            if storage.exists(final):
                names = storage.listdir(final) if storage.isdir(final) else None
                if names is None or (names and _layout.DOCUMENT not in names):
                    raise ValueError(
                        f"Cannot export to {final}: it exists and holds no export. Give a new or "
                        "empty location."
                    )
                # No longer an export while it is replaced (stores have no rename), then none
                # of the old files left beside the new ones.
                storage.remove(storage.join(final, _layout.DOCUMENT))
                storage.rmtree(final)
        else:
            try:
                present = [int(n) for n in storage.listdir(base) if n.isdigit()]
            except FileNotFoundError:
                present = []
            timestamp = max([int(time.time())] + [n + 1 for n in present])
            while storage.exists(storage.join(base, str(timestamp))):
                timestamp += 1
            final = storage.join(base, str(timestamp))
        files = []
        for folder, _, names in os.walk(written):
            for name in names:
                files.append(os.path.relpath(os.path.join(folder, name), written))
        files.sort(key=lambda rel: (rel == _layout.DOCUMENT, rel))  # the document last
        for rel in files:
            with open(os.path.join(written, rel), "rb") as f:
                storage.write_bytes(storage.join(final, *rel.split(os.sep)), f.read())
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    logger.info("SavedModel written to: %s", final)
    return final


def _replace_directory(new: str, target: str) -> None:
    """Puts directory `new` at `target`: an existing `target` is moved aside first and removed
    after, so `target` holds either the old export or the new one, never a mix."""
    if os.path.exists(target):
        if not os.path.isdir(target):
            raise ValueError(f"Cannot export to {target}: it exists and is not a directory.")
        if os.listdir(target) and not os.path.isfile(os.path.join(target, _layout.DOCUMENT)):
            raise ValueError(
                f"Cannot export to {target}: it is a non-empty directory that holds no export. "
                "Give a new or empty directory."
            )
        old = f"{target}.old-{os.getpid()}"
        os.rename(target, old)
        os.rename(new, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(new, target)

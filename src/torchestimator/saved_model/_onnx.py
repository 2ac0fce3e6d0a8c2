"""The tensor part of an export as ONNX: `model.onnx` beside `program.json`.

ONNX runs the program only: its inputs are the program's (the receiver's tensor features and
the preprocessing layers' outputs), its outputs the program's. `model.onnx.json` names them:
each ONNX input as `feature:<name>` or `preprocessed:<call>:<leaf>`, each ONNX output as the
program output (`<signature>/<key>`) it is. Needs the `onnx` extra (onnx, onnxscript;
onnxruntime to run it).
"""

from __future__ import annotations

import json
import os
import tempfile

import torch
from torch.utils import _pytree as pytree

from torchestimator._engine import state_io
from torchestimator.saved_model import _layout, _program

ONNX_FILE = "model.onnx"
ONNX_NAMES = "model.onnx.json"


def export_onnx(export_dir: str | bytes | os.PathLike, opset_version: int | None = None) -> str:
    """Writes the export's tensor part as ONNX (`model.onnx` and `model.onnx.json`, the names
    of its inputs and outputs) into `export_dir`; returns the path of `model.onnx`.

    Raises ImportError naming the extra when onnx is not installed; ValueError naming the
    operation when the program holds one ONNX cannot express."""

    try:
        import onnxscript  # noqa: F401 - torch's ONNX exporter needs it  # lazy: optional extra (onnxscript)
    except ImportError:
        raise ImportError(
            "Exporting to ONNX needs onnx and onnxscript: `pip install torchestimator[onnx]`."
        ) from None
    directory = os.fsdecode(export_dir)
    _, graph, tensors = _layout.read_files(directory)
    program = _program.program_of_export(directory, graph, tensors)
    in_spec = program.call_spec.in_spec
    (features, preprocessed), _ = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    input_names: list[str | None] = [None] * in_spec.num_leaves
    for name, index in features.items():
        input_names[index] = f"feature:{name}"
    for call, output in enumerate(preprocessed):
        for leaf, index in enumerate(pytree.tree_leaves(output)):
            input_names[index] = f"preprocessed:{call}:{leaf}"
    out_spec = program.call_spec.out_spec
    outputs = pytree.tree_unflatten(list(range(out_spec.num_leaves)), out_spec)
    output_names: list[str | None] = [None] * out_spec.num_leaves
    for name, index in outputs.items():
        output_names[index] = name
    try:
        onnx_program = torch.onnx.export(program, dynamo=True, opset_version=opset_version, verbose=False)
    except Exception as e:  # the exporter raises many kinds for an unsupported operator
        raise ValueError(
            f"The program of {directory} cannot be expressed in ONNX: {type(e).__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''}. Serve the export with tf.saved_model.load."
        ) from e
    onnx_path = os.path.join(directory, ONNX_FILE)
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        scratch_path = os.path.join(scratch, ONNX_FILE)
        onnx_program.save(scratch_path)
        with open(scratch_path, "rb") as f:
            data = f.read()
    state_io.atomic_write_bytes(onnx_path, data)
    names = {"inputs": input_names, "outputs": output_names, "onnx_sha256": state_io.sha256(data)}
    state_io.atomic_write_bytes(os.path.join(directory, ONNX_NAMES), json.dumps(names, indent=1).encode())
    return onnx_path

"""A `torch.export` program on disk without pickle: the graph as torch's own JSON schema,
the weights and constants as safetensors.

`torch.export.save` stores weights with `torch.save` (a pickle); here the graph goes
through torch's serializer with the tensors left out, and the tensors are written (and read
back) by safetensors. Loading hands the tensors to torch's deserializer as a dict, so no
unpickling happens.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import torch

from torchestimator.saved_model import _layout
from torchestimator.saved_model._program_check import check_program

#: Name prefixes that keep the program's state dict and its constants apart in one file.
_STATE = "state:"
_PARAMETER = "parameter:"
_CONSTANT = "constant:"


def program_to_bytes(program: torch.export.ExportedProgram) -> tuple[bytes, dict[str, torch.Tensor]]:
    """Returns (the graph as JSON bytes, the tensors the graph needs by stored name)."""
    from torch._export.serde import (  # lazy: heavy (torch._export.serde.serialize, 5585 ms)
        serialize as _serde,
    )

    # the graph alone: the tensors are stored apart (the switches are newer than torch 2.11,
    # whose `serialize` always packs the tensors too; that copy is not used)
    accepted = inspect.signature(_serde.serialize).parameters
    artifact = _serde.serialize(program, **{
        switch: False for switch in
        ("serialize_state_dict", "serialize_constants", "serialize_example_inputs")
        if switch in accepted
    })
    tensors: dict[str, torch.Tensor] = {}
    for name, value in program.state_dict.items():
        prefix = _PARAMETER if isinstance(value, torch.nn.Parameter) else _STATE
        tensors[prefix + name] = value.detach()
    for name, value in program.constants.items():
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                f"The exported program holds a constant {name!r} of type {type(value).__name__}, "
                "which cannot be stored as a tensor. Export models whose state is tensors only."
            )
        tensors[_CONSTANT + name] = value.detach()
    return artifact.exported_program, tensors


#: The largest `program.json` read: a program's graph without its weights is far smaller.
MAX_PROGRAM_BYTES = 256 * 2**20


def program_from_bytes(graph: bytes, tensors: dict[str, torch.Tensor], source: str) -> torch.export.ExportedProgram:
    """Rebuilds the program from `program_to_bytes`' output; errors name `source`.

    The graph is checked first (`_program_check`: expressions, operators, names, tree specs
    and guards against what torch writes) so that torch's reader runs no code from it."""
    from torch._export.serde import (  # lazy: heavy (torch._export.serde.serialize, 5585 ms)
        serialize as _serde,
    )


    document = _parse_graph(graph, source)
    check_program(document, source)
    state: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    for name, value in tensors.items():
        if name.startswith(_PARAMETER):
            state[name[len(_PARAMETER):]] = torch.nn.Parameter(value, requires_grad=False)
        elif name.startswith(_STATE):
            state[name[len(_STATE):]] = value
        elif name.startswith(_CONSTANT):
            constants[name[len(_CONSTANT):]] = value
    try:
        return _deserialize(_serde, document, state, constants)
    except Exception as e:  # torch's deserializer raises many kinds for a damaged graph
        raise ValueError(
            f"{source}: the exported program cannot be read ({type(e).__name__}: {e}). The file is "
            "damaged, or it was written by an incompatible torch version; export the model again."
        ) from e


def _parse_graph(graph: bytes, source: str) -> Any:
    """The program's JSON, after checking its size."""
    if len(graph) > MAX_PROGRAM_BYTES:
        raise ValueError(
            f"{source} is {len(graph)} bytes, more than an export's program may be "
            f"({MAX_PROGRAM_BYTES}); it is not an export's program. Export the model again."
        )
    try:
        return json.loads(graph)
    except (ValueError, RecursionError) as e:
        raise ValueError(
            f"{source}: the exported program is not valid JSON ({type(e).__name__}: {e}). The "
            "file is damaged; export the model again."
        ) from None


def _deserialize(serde: Any, document: dict, state: dict[str, Any], constants: dict[str, Any]) -> Any:
    """torch's `deserialize` on the already parsed (and checked) JSON: the same steps without
    parsing the text twice; the state and constants are given as tensors, never as bytes (which
    torch would unpickle)."""
    program = serde._dict_to_dataclass(serde.ExportedProgram, document)
    return serde.ExportedProgramDeserializer(None).deserialize(program, state, constants, None)


def program_of_export(directory: str, graph: bytes, tensors: dict[str, torch.Tensor]) -> torch.export.ExportedProgram:
    """The program of an export read by `_layout.read_files`: its graph with the tensors stored
    under the program's prefix in `variables.safetensors`."""
    prefix = _layout.PROGRAM_PREFIX
    program_tensors = {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}
    return program_from_bytes(graph, program_tensors, os.path.join(directory, _layout.PROGRAM))
